#!/usr/bin/env bash
# The README's second command: the whole test suite. Tests run the real model,
# so the assets are fetched first (a no-op when .assets/ already holds them).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/fetch-assets.py >/dev/null
cargo test --release --locked --workspace "$@"
# The npm packages: build and pack them (also regenerates index.js and
# index.d.ts), then the Node tests of the addon and of the packed tarballs.
scripts/release.sh >/dev/null
node --test tests/
