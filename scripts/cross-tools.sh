# Sourced by the scripts that build or run other targets on this machine
# (check-targets.sh, test-windows.sh, test-arm64.sh).

# As root: this machine runs as root; a CI runner has sudo.
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# ensure_packages WHAT COMMAND... -- PACKAGE...: installs the Debian packages
# unless every command is on PATH already.
ensure_packages() {
  local what=$1 missing=
  shift
  while [ "$1" != -- ]; do
    command -v "$1" >/dev/null || missing=1
    shift
  done
  shift
  [ -z "$missing" ] && return
  echo "==> installing $what (Debian packages)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ensure_target TRIPLE: the Rust standard library of another target, by rustup.
ensure_target() { rustup target list --installed | grep -qx "$1" || rustup target add "$1"; }
