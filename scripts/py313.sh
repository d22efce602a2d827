#!/usr/bin/env bash
# The tests again under CPython 3.13: Debian 13's own python3, in a Debian 13 (trixie) root made
# by debootstrap, with the packages of uv.lock (Feast 0.67) synced into a virtualenv there.
#
#   scripts/py313.sh                    # every test but the browser and container image ones
#   scripts/py313.sh tests/producer -x  # pytest arguments: run them as told, in one process
#   scripts/py313.sh prepare            # only make the root and sync its virtualenv
#                                       # (scripts/test.sh does it early, in the background)
#
# The root lives in build/py313/root. debootstrap fetches it from the Debian mirror this machine's
# apt uses (scripts/debian-mirror.sh; DEBIAN_MIRROR overrides it), then uv (the version of
# scripts/bootstrap.sh) is installed in it from PyPI. It is made once and kept while its recipe is
# unchanged (PY313_FRESH=1 makes it again); every run syncs the virtualenv in it from uv.lock
# (`uv sync --locked`, quick when nothing changed; uv's cache stays in the root) and runs pytest in
# a chroot over this checkout, bind-mounted at /work/feast-lineage (and ../shared beside it).
# Mounts are made in a mount namespace of their own, so none outlives the run.
#
# The PostgreSQL and MariaDB store tests run in scripts/test.sh's main pass (Python 3.11): here
# they are deselected (-m "not postgres and not mysql") and every store test runs on SQLite.
# Everything else runs: the producer against Feast 0.67, the consumer, real server processes,
# Feast's own server (tests/feast_api).
#
# Needs root (debootstrap, chroot, mounts) and debootstrap (scripts/system-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/debian-mirror.sh
source scripts/debian-mirror.sh

SUITE=trixie
PACKAGES=python3,python3-venv,ca-certificates,openssl
UV_VERSION=$(sed -n 's/^UV_VERSION=//p' scripts/bootstrap.sh)
MIRROR=$(debian_mirror "$SUITE")
WORK=$PWD/build/py313
ROOT=$WORK/root
PROJECT=/work/feast-lineage   # where this checkout appears in the root

# The root is made again when one of these changes: bump RECIPE with make_root().
RECIPE=1
SUM=$(printf '%s\n' "$RECIPE" "$SUITE" "$PACKAGES" "$UV_VERSION" "$MIRROR" | sha256sum | cut -c1-12)

[ "$(id -u)" = 0 ] || { echo "py313.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }

# This machine's CA certificates, so that uv and pip in the root trust what this machine trusts.
HOST_CA=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}

# Run a command in `root` (a chroot), with /proc, /dev, a fresh /tmp, this checkout and ../shared
# mounted, in a mount namespace of its own: the mounts end with the command.
in_root() {
  local root=$1
  shift
  cp /etc/resolv.conf /etc/hosts "$root/etc/"
  local env=(HOME=/root LANG=C.UTF-8 PATH=/opt/venv/bin:/opt/uv/bin:/usr/bin:/bin:/usr/sbin:/sbin)
  if [ -f "$HOST_CA" ]; then
    cp "$HOST_CA" "$root/etc/ssl/host-ca-certificates.crt"
    env+=(SSL_CERT_FILE=/etc/ssl/host-ca-certificates.crt PIP_CERT=/etc/ssl/host-ca-certificates.crt)
  fi
  local tmp shared
  tmp=$(mktemp -d /tmp/feast-lineage-py313.XXXXXX)
  shared=$(cd .. && pwd)/shared
  mkdir -p "$root$PROJECT" "$root/work/shared"
  local status=0
  unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
    root=$1 project=$2 tmp=$3 shared=$4
    shift 4
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --bind "$tmp" "$root/tmp"
    chmod 1777 "$tmp"
    mount --bind "$PWD" "$root$project"
    if [ -d "$shared" ]; then
      mount --bind "$shared" "$root/work/shared"
      mount -o remount,bind,ro "$root/work/shared"
    fi
    exec chroot "$root" "$@"
  ' in_root "$root" "$PROJECT" "$tmp" "$shared" /usr/bin/env -i "${env[@]}" "$@" || status=$?
  rm -rf "$tmp"
  return "$status"
}

make_root() {
  local new=$WORK/root.new
  rm -rf "$new"
  mkdir -p "$WORK"
  echo "==> debootstrap $SUITE from $MIRROR (minbase + $PACKAGES)"
  debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$new" "$MIRROR" \
    >"$WORK/debootstrap.log" 2>&1 || { tail -n 30 "$WORK/debootstrap.log" >&2; exit 1; }
  rm -rf "$new"/var/lib/apt/lists/* "$new"/var/cache/apt/*.bin "$new"/var/cache/apt/archives/*.deb
  echo "==> uv $UV_VERSION from PyPI into the root"
  in_root "$new" /bin/sh -c "python3 -m venv /opt/uv && /opt/uv/bin/pip install --quiet \
    --disable-pip-version-check uv==$UV_VERSION"
  echo "$SUM" >"$new/.recipe"
  rm -rf "$ROOT"
  mv "$new" "$ROOT"
}

START=$SECONDS
if [ "${PY313_FRESH:-0}" = 1 ] || [ "$(cat "$ROOT/.recipe" 2>/dev/null)" != "$SUM" ]; then
  make_root
else
  echo "==> the Debian $SUITE root is up to date ($ROOT)"
fi

# In the root: sync the virtualenv from uv.lock (the groups and extras of scripts/bootstrap.sh's
# .venv), then pytest. Bytecode goes to the root, not into the checkout.
# shellcheck disable=SC2016  # expanded in the root
RUN='
set -euo pipefail
cd "$PROJECT"
export UV_PROJECT_ENVIRONMENT=/opt/venv UV_CACHE_DIR=/var/cache/uv UV_PYTHON=/usr/bin/python3 \
  UV_PYTHON_DOWNLOADS=never PYTHONPYCACHEPREFIX=/var/cache/pycache
uv sync --locked --extra postgres --extra mysql --extra oidc --quiet
if [ "${1:-}" = prepare ]; then
  echo "==> $(python --version) in /opt/venv is in sync with uv.lock"
  exit 0
fi
echo "==> $(python --version) ($(. /etc/os-release && echo "$PRETTY_NAME")), Feast $(python -c "import feast; print(feast.__version__)")"
SKIP=(-m "not postgres and not mysql")
if [ "$#" -gt 0 ]; then
  exec pytest -p no:cacheprovider "${SKIP[@]}" "$@"
fi
# As scripts/test.sh: two workers, a test file at a time each, and the OpenAPI conformance test
# (one node id for many cases) in a process of its own beside them.
CONFORMANCE=tests/consumer/test_openapi_conformance.py
CONFORMANCE_LOG=$(mktemp)
pytest -p no:cacheprovider -p no:xdist "${SKIP[@]}" "$CONFORMANCE" >"$CONFORMANCE_LOG" 2>&1 &
CONFORMANCE_PID=$!
trap "kill $CONFORMANCE_PID 2>/dev/null || true" EXIT
pytest -p no:cacheprovider -n 2 --dist loadfile --durations=10 "${SKIP[@]}" \
  --ignore="$CONFORMANCE" --ignore=tests/ui --ignore=tests/image
echo "==> $CONFORMANCE"
if ! wait "$CONFORMANCE_PID"; then
  cat "$CONFORMANCE_LOG"
  exit 1
fi
tail -n 1 "$CONFORMANCE_LOG"
trap - EXIT
'
in_root "$ROOT" /usr/bin/env PROJECT="$PROJECT" /bin/bash -c "$RUN" py313 "$@"
WHAT="the Python 3.13 pass"
[ "${1:-}" != prepare ] || WHAT="preparing $WHAT"
echo "==> $WHAT took $(((SECONDS - START) / 60)) min $(((SECONDS - START) % 60)) s"
