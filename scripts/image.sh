#!/usr/bin/env bash
# The lineage server's container image: build it, and check it in a real container.
#
#   scripts/image.sh base    # the Debian base image, made from Debian's archive with debootstrap
#   scripts/image.sh build   # the base (when missing), then the image from ./Containerfile
#   scripts/image.sh smoke   # tests/image/: start the image, send events, read the graph back
#
# No registry is pulled: the base is a root filesystem that debootstrap fetches
# from the Debian mirror this machine's apt uses (DEBIAN_MIRROR overrides it),
# imported into podman. The Python packages are those of uv.lock (exported with
# their hashes); the web UI is the one scripts/bootstrap.sh built on this machine.
# Needs root (debootstrap) and podman, runc and debootstrap (scripts/system-deps.sh).
# A base whose recipe is unchanged is reused; `IMAGE_FRESH=1` rebuilds everything.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-localhost/feast-lineage:dev}
SUITE=bookworm
BASE_PACKAGES=python3,python3-venv,ca-certificates
WORK=build/image
# This machine allows no cgroup v2 controllers and no raised limits: podman
# runs with runc and cgroupfs, builds with chroot isolation.
PODMAN=(podman --runtime runc --cgroup-manager=cgroupfs)

# shellcheck source=scripts/debian-mirror.sh
source scripts/debian-mirror.sh

MIRROR=$(debian_mirror "$SUITE")
SECURITY=${DEBIAN_SECURITY_MIRROR:-$(apt_uri "$SUITE-security")}
SECURITY=${SECURITY:-http://deb.debian.org/debian-security}

# The base is rebuilt when one of these changes: bump BASE_RECIPE with build_base().
BASE_RECIPE=1
BASE_SUM=$(printf '%s\n' "$BASE_RECIPE" "$SUITE" "$BASE_PACKAGES" "$MIRROR" "$SECURITY" |
  sha256sum | cut -c1-12)
BASE=localhost/feast-lineage-base:$SUITE-$BASE_SUM

have_image() { "${PODMAN[@]}" image exists "$1"; }

build_base() {
  local rootfs=$WORK/rootfs
  rm -rf "$rootfs"
  mkdir -p "$WORK"
  echo "==> debootstrap $SUITE from $MIRROR (minbase + $BASE_PACKAGES)"
  debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$rootfs" "$MIRROR" \
    >"$WORK/debootstrap.log" 2>&1 || { tail -n 30 "$WORK/debootstrap.log" >&2; exit 1; }
  # The same suites as this machine's apt, so the base gets the security updates.
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  echo "==> apt-get upgrade in the base (security and point-release updates)"
  chroot "$rootfs" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
    'apt-get update -qq && apt-get upgrade -y -qq && apt-get clean' >>"$WORK/debootstrap.log" 2>&1 \
    || { tail -n 30 "$WORK/debootstrap.log" >&2; exit 1; }
  # What a server image never reads: package lists, caches, manuals, translations
  # (the copyright files stay).
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/log/* \
    "$rootfs"/usr/share/man "$rootfs"/usr/share/info "$rootfs"/usr/share/locale
  find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
  echo "==> importing the base as $BASE"
  tar -C "$rootfs" --numeric-owner -cf - . |
    "${PODMAN[@]}" import --quiet --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
  rm -rf "$rootfs"
}

cmd_base() {
  if [ "${IMAGE_FRESH:-0}" = 1 ] || ! have_image "$BASE"; then
    build_base
  else
    echo "==> base $BASE is up to date"
  fi
}

cmd_build() {
  cmd_base
  local uv
  uv=$(command -v uv || echo .tools/bin/uv)
  [ -x "$uv" ] || { echo "image.sh: run ./scripts/bootstrap.sh first (uv)" >&2; exit 1; }
  [ -f src/feast_lineage/webui/index.html ] \
    || { echo "image.sh: run ./scripts/bootstrap.sh first (the web UI)" >&2; exit 1; }
  local context=$WORK/context
  rm -rf "$context"
  mkdir -p "$context"
  # Exactly the locked runtime packages, with their hashes; the wheel carries the built UI.
  "$uv" export --locked --no-dev --no-emit-project --extra postgres --extra mysql --extra oidc \
    --format requirements.txt --quiet --output-file "$context/requirements.txt"
  "$uv" build --wheel --quiet --out-dir "$context"
  # Their wheels are fetched here, by this machine's pip and its trust settings, for
  # the image's platform: CPython 3.11 on glibc 2.36 (Debian 12), this machine's
  # architecture. pip takes only the platform tags it is given, so every manylinux
  # tag up to glibc 2.36 is listed. The build installs them offline, checking every hash.
  local arch platforms=(--platform any)
  arch=$(uname -m)
  for glibc in $(seq 36 -1 5); do platforms+=(--platform "manylinux_2_${glibc}_$arch"); done
  platforms+=(--platform "manylinux2014_$arch" --platform "manylinux2010_$arch" \
    --platform "manylinux1_$arch")
  echo "==> downloading the locked wheels for CPython 3.11, glibc 2.36, $arch"
  "$uv" tool run --quiet pip download --quiet --disable-pip-version-check \
    --require-hashes --no-deps --only-binary :all: --dest "$WORK/wheels" \
    --implementation cp --python-version 3.11 "${platforms[@]}" \
    -r "$context/requirements.txt" \
    2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
  # build/image/wheels keeps them for the next build (pip skips a wheel it has);
  # pip in the build installs only the pinned ones of requirements.txt.
  cp -al "$WORK/wheels" "$context/wheels"
  cp Containerfile deploy/container/feature_store.yaml "$context/"
  echo "==> podman build $IMAGE"
  local args=()
  [ "${IMAGE_FRESH:-0}" = 1 ] && args+=(--no-cache)
  "${PODMAN[@]}" build --isolation chroot --network host --format docker \
    --build-arg "BASE=$BASE" --tag "$IMAGE" "${args[@]}" "$context"
  "${PODMAN[@]}" image inspect "$IMAGE" --format 'image {{.RepoTags}}: {{.Size}} bytes'
}

cmd_smoke() {
  have_image "$IMAGE" || { echo "image.sh: no image $IMAGE; run scripts/image.sh build" >&2; exit 1; }
  FEAST_LINEAGE_IMAGE=$IMAGE .venv/bin/pytest -p no:cacheprovider tests/image "$@"
}

case "${1:-}" in
  base) cmd_base ;;
  build) cmd_build ;;
  smoke) shift; cmd_smoke "$@" ;;
  *) echo "usage: scripts/image.sh base|build|smoke [pytest args]" >&2; exit 2 ;;
esac
