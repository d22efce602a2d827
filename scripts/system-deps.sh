#!/usr/bin/env bash
# Debian packages the tests need: a PostgreSQL and a MariaDB server (the tests
# start their own), and Chromium with fonts for the web UI's browser tests (Playwright
# drives Debian's Chromium; it never downloads a browser), and the container
# tools of the image test (scripts/image.sh): podman with runc, and debootstrap,
# which builds the image's base from Debian's archive (no registry is pulled).
set -euo pipefail

need=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
[ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v runc >/dev/null 2>&1 || need+=(runc)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${need[*]} (run: sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
  echo "==> installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
