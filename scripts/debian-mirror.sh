# The Debian mirror this machine's apt uses, for debootstrap (sourced by scripts/image.sh and
# scripts/py313.sh; not run on its own).

# The URI of the sources.list(.d) entry that serves `suite` (deb822 or one-line form).
apt_uri() {
  local suite=$1 uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk -v suite="$suite" 'BEGIN { RS = "" } {
        n = split($0, lines, "\n"); uris = ""; found = 0
        for (i = 1; i <= n; i++) {
          split(lines[i], f, /[ \t]+/)
          if (f[1] == "URIs:") uris = f[2]
          if (f[1] == "Suites:") for (j = 2; j in f; j++) if (f[j] == suite) found = 1
        }
        if (found && uris != "") { print uris; exit }
      }' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2; exit }' /etc/apt/sources.list)
  fi
  echo "$uri"
}

# The mirror for `suite`: the entry that serves it, else the one that serves this machine's own
# release (a Debian mirror serves every suite: a Debian 12 machine has no entry for Debian 13),
# else deb.debian.org. DEBIAN_MIRROR overrides it.
debian_mirror() {
  local suite=$1 uri=${DEBIAN_MIRROR:-}
  [ -n "$uri" ] || uri=$(apt_uri "$suite")
  if [ -z "$uri" ] && [ -f /etc/os-release ]; then
    uri=$(apt_uri "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")")
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}
