#!/usr/bin/env bash
# Type-checks the whole workspace (tests included, the `model` feature on),
# with the workspace's unsafe lints,
# for every other target thehook ships for: Windows, both macOS, Linux
# arm64. This machine cannot link or run them, but rustc can check them,
# which is what keeps the `cfg(windows)` and `cfg(target_os = "macos")`
# code compiling. C dependencies are stood in for by scripts/check-only/.
# A target whose standard library rustup cannot fetch is reported and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/cross-tools.sh

stub=$PWD/scripts/check-only
skipped=()
for target in x86_64-pc-windows-msvc aarch64-apple-darwin x86_64-apple-darwin aarch64-unknown-linux-gnu; do
  if ! ensure_target "$target" >/dev/null 2>&1; then
    skipped+=("$target")
    continue
  fi
  echo "==> cargo clippy --target $target (type checks, and the unsafe lints)"
  var=${target//-/_}
  # Clippy type-checks as `cargo check` does. Of its lints only the
  # workspace's unsafe ones are held here, so the cfg(windows) and macOS
  # blocks say why they are sound too; the rest are held on Linux (test.sh),
  # where some (the size of an error type) measure differently.
  env "CC_$var=$stub/cc" "CXX_$var=$stub/cc" "AR_$var=$stub/ar" \
    cargo clippy --quiet --locked --workspace --all-targets \
    --features thehook-cli/model,thehook-core/model --target "$target" \
    -- -A clippy::all -D clippy::undocumented_unsafe_blocks -D clippy::missing_safety_doc
done
if [ ${#skipped[@]} -eq 4 ]; then
  echo "error: no target checked: rustup could fetch no standard library (${skipped[*]})" >&2
  exit 1
elif [ ${#skipped[@]} -gt 0 ]; then
  echo "warning: not checked, rustup could not fetch their standard library: ${skipped[*]}" >&2
fi
