#!/usr/bin/env bash
# The README's second command: the whole test suite. Tests run the real model,
# so the assets are fetched first (a no-op when .assets/ already holds them).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/fetch-assets.py >/dev/null
cargo test --release --locked --workspace "$@"
