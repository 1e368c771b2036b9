#!/usr/bin/env bash
# The Windows build, run for real under Wine: it links (MinGW), starts, wires
# agents with Windows paths quoted for their shells, and its capture hook
# returns while the detached worker runs an LLM CLI `.cmd` found through
# PATHEXT, which is killed with everything it started (a job object) at the
# timeout; the session is written and the transcript kept. Installs MinGW and
# Wine from Debian's packages and the Rust target with rustup when missing.
#
# Wine cannot map an LMDB environment (NtMapViewOfSection is refused:
# ValveSoftware/wine#339), so nothing that opens the index runs here; the
# release workflow runs the Windows build on Windows (docs/platforms.md).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
target=x86_64-pc-windows-gnu

. scripts/cross-tools.sh
fail() { echo "test-windows: FAIL: $*" >&2; exit 1; }

ensure_packages "MinGW-w64 and Wine" x86_64-w64-mingw32-gcc wine -- \
  gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 wine
ensure_target "$target"

echo "==> cargo build --target $target"
cargo build --quiet --release --locked -p thehook-cli --target "$target"

tmp=$(mktemp -d)
export WINEPREFIX=$repo/target/wine-prefix WINEDEBUG=-all
# Whatever happens, no Windows process of this run outlives it.
trap 'wineserver -k 2>/dev/null || true; rm -rf "$tmp"' EXIT
wine() { command wine "$@" 2> >(grep -v 'wine32\|multiarch\|dpkg --add\|apt-get install' >&2); }
proj="$tmp/a project/proj" # a space in the path, as under C:\Users\First Last
bin=$proj/bin
mkdir -p "$bin" "$proj/.thehook"
cp "target/$target/release/thehook.exe" tests/windows/slow-llm.cmd "$bin/"
x86_64-w64-mingw32-gcc -shared -O2 -o "$bin/bcryptprimitives.dll" tests/windows/bcryptprimitives.c -ladvapi32
git -C "$proj" init -q
winpath() { echo "Z:${1//\//\\}"; }

echo "==> thehook.exe --version"
version=$(wine "$bin/thehook.exe" --version)
[ "$version" = "thehook $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)" ] || fail "--version printed '$version'"

echo "==> thehook.exe init: hook commands quoted for each agent's shell on Windows"
(cd "$proj" && HOME= wine "$bin/thehook.exe" init --agent claude,codex,gemini) >"$tmp/init.txt"
exe=$(winpath "$bin/thehook.exe")
python3 - "$proj" "$exe" "$tmp/init.txt" <<'PY'
import json, sys
proj, exe, report = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
def commands(path):
    hooks = json.load(open(f"{proj}/{path}"))["hooks"]
    return sorted(h["command"] for entries in hooks.values() for e in entries for h in e["hooks"])
bash = "'" + exe.replace("\\", "/") + "'"        # Claude Code: Git Bash
ps = "& '" + exe + "'"                           # Codex, Gemini: PowerShell
want = {
    # The subagent hook twice for Claude Code: SubagentStart, and PreToolUse on Agent|Task.
    ".claude/settings.json": [f"{bash} {sub} --agent claude-code"
                              for sub in ("capture", "file", "prompt", "retrieve", "subagent", "subagent")],
    ".codex/hooks.json": [f"{ps} {sub} --agent codex" for sub in ("capture", "file", "prompt", "retrieve", "subagent")],
    ".gemini/settings.json": [f"{ps} {sub} --agent gemini" for sub in ("capture", "file", "prompt", "retrieve")],
}
for path, expected in want.items():
    got = commands(path)
    assert got == expected, f"{path}: {got} != {expected}"
# The trust advice quotes the path as TOML and JSON need it.
root = exe.rsplit("\\bin\\", 1)[0]
assert f"[projects.'{root}']" in report, report
assert json.dumps(root) + ': "TRUST_FOLDER"' in report, report
assert ".claude/commands/recall.md" in report, report
print("   ok: " + "; ".join(f"{p}: {want[p][1]}" for p in want))
PY

echo "==> the capture hook returns while the detached worker runs the LLM"
printf 'llm:\n  cli: command\n  command: [slow-llm]\n  timeout_secs: 5\n' >"$proj/.thehook/config.yaml"
# A real Claude Code transcript (vendored from ../shared/testdata).
cp crates/thehook-core/tests/fixtures/transcripts/claude-code/entireio-1b3e6441.jsonl "$proj/t.jsonl"
id=$(head -c 4000 "$proj/t.jsonl" | python3 -c 'import json,sys
for l in sys.stdin:
    try: print(json.loads(l)["sessionId"]); break
    except Exception: pass')
payload=$(python3 -c 'import json,sys; print(json.dumps({"session_id": sys.argv[1], "transcript_path": sys.argv[2], "cwd": sys.argv[3], "hook_event_name": "SessionEnd", "reason": "exit"}))' \
  "$id" "$(winpath "$proj/t.jsonl")" "$(winpath "$proj")")
# The hook's stdout is a pipe, as an agent's is: `cat` ends when every
# holder of the pipe's write end has closed it.
out=$(echo "$payload" | WINEPATH="$(winpath "$bin")" wine "$bin/thehook.exe" capture --agent claude-code | cat)
[ -z "$out" ] || fail "the capture hook printed '$out'"
[ -z "$(ls "$proj/.thehook/sessions" 2>/dev/null)" ] ||
  fail "the hook's pipe closed only after the worker had written the session (the worker held the agent's pipe)"
ls "$proj/.thehook/queue/"*.json >/dev/null || fail "no capture job was queued"
# The LLM's grandchild is seen running, so its absence later means something.
for _ in $(seq 40); do
  pgrep -f 'ping -n 120' >/dev/null && break
  sleep 0.25
done
pgrep -f 'ping -n 120' >/dev/null || fail "the LLM's grandchild was never seen running"

echo "==> the worker stops the LLM's whole tree at the timeout, then writes the session"
for _ in $(seq 120); do
  pgrep -f 'capture --worker' >/dev/null || break
  sleep 0.5
done
pgrep -f 'capture --worker' >/dev/null && fail "the worker is still running after 60 s"
[ -f "$bin/llm-started.txt" ] || fail "slow-llm.cmd never ran (PATHEXT lookup)"
pgrep -f 'ping -n 120' >/dev/null && fail "the LLM's grandchild outlived the timeout (job object)"
grep -q '"ok":false,"seconds":5' "$proj/.thehook/logs/llm.log" || fail "llm.log: $(cat "$proj/.thehook/logs/llm.log")"
session=$(ls "$proj/.thehook/sessions/")
grep -q "^agent: claude-code" "$proj/.thehook/sessions/$session" || fail "no session file"
ls "$proj/.thehook/failed/$id.jsonl" >/dev/null || fail "the transcript was not kept in failed/"
echo "   ok: .thehook/sessions/$session written; transcript kept in failed/ for --retry"
echo "test-windows: all passed"
