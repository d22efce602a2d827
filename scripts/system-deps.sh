#!/usr/bin/env bash
# Debian packages the tests need: a PostgreSQL and a MariaDB server (the tests
# start their own), and Chromium with fonts for the web UI's browser tests (Playwright
# drives Debian's Chromium; it never downloads a browser).
set -euo pipefail

need=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
[ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
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
