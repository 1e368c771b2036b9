#!/usr/bin/env python3
"""Speed of the session browser (`thehook sessions`, `thehook read`) and of
the MCP server, whole process, over real transcripts.

A fake HOME gets N copies of every Claude Code session of
``../shared/testdata/claude-code`` (subagent files are left out: they belong
to their session), each with its working folder rewritten to the benchmark
project and its own session id, so that they all belong to the project.
Then, runs interleaved, each a fresh process:

* ``sessions --limit 0``, cold: the listing cache deleted first, so every
  transcript is read and parsed;
* ``sessions --limit 0`` and ``sessions`` (30 newest), warm: unchanged
  transcripts come from ``.thehook/index/sessions.json``;
* ``read <id>``: the largest session, compact;
* ``read <id> --full``: the same, every line in full;
* ``read <id> 1-20``: twenty lines in full;
* ``mcp``: start the server, initialize, call ``sessions`` and ``read``,
  close stdin (the round trip an agent pays for its first look).

Usage:
    python3 bench/browse.py                 # 4 copies (128 sessions), 15 runs
    python3 bench/browse.py --copies 1 --runs 5

Output: a markdown table on stdout, JSON in bench/out/browse.json.
Python 3.11+, standard library only; reuses bench/speed.py's process timer.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import REPO, base_env, run, snapshot_binary, summarize  # noqa: E402

TESTDATA = REPO.parent / "shared" / "testdata" / "claude-code"


def make_home(home: Path, project: Path, copies: int) -> tuple[int, int, str]:
    """Writes the sessions; returns (sessions, bytes, id of the largest)."""
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    store = home / ".claude" / "projects" / slug
    store.mkdir(parents=True)
    sources = sorted(p for p in TESTDATA.rglob("*.jsonl")
                     if not p.name.startswith("agent-") and "subagents" not in p.parts)
    total, largest = 0, ("", -1)
    for copy in range(copies):
        for i, path in enumerate(sources):
            text = path.read_text(encoding="utf-8", errors="replace")
            text = re.sub(r'"cwd":"[^"]*"', '"cwd":' + json.dumps(str(project)), text)
            session = f"bench-{copy:02d}-{i:03d}"
            text = re.sub(r'"sessionId":"[^"]*"', f'"sessionId":"{session}"', text)
            (store / f"{session}.jsonl").write_text(text, encoding="utf-8")
            total += len(text.encode())
            if len(text) > largest[1]:
                largest = (session, len(text))
    return copies * len(sources), total, largest[0]


def mcp_input(session: str) -> bytes:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "sessions", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "read", "arguments": {"id": session}}},
    ]
    return "".join(json.dumps(m) + "\n" for m in messages).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(REPO / "target" / "release" / "thehook"))
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    if not TESTDATA.is_dir():
        sys.exit(f"{TESTDATA} not found: this benchmark reads the shared real transcripts")
    with tempfile.TemporaryDirectory(prefix="thehook-browse-") as tmp:
        work = Path(tmp)
        binary = str(snapshot_binary(args.binary, work))
        project = work / "project"
        (project / ".thehook").mkdir(parents=True)
        cache = project / ".thehook" / "index" / "sessions.json"
        # In a child process: ru_maxrss of the measured commands starts from
        # this process's size at fork, which must not include 60 MB of text.
        with ProcessPoolExecutor(max_workers=1) as pool:
            sessions, size, largest = pool.submit(make_home, work / "home", project, args.copies).result()
        env = base_env()
        env["HOME"] = str(work / "home")
        base = [binary, "-C", str(project)]
        cases = {
            "sessions --limit 0, cold": (base + ["sessions", "--limit", "0"], None),
            "sessions --limit 0, warm": (base + ["sessions", "--limit", "0"], None),
            "sessions, warm": (base + ["sessions"], None),
            "read <id>": (base + ["read", largest], None),
            "read <id> --full": (base + ["read", largest, "--full"], None),
            "read <id> 1-20": (base + ["read", largest, "1-20"], None),
            "mcp: initialize, sessions, read": (base + ["mcp"], mcp_input(largest)),
        }
        times: dict[str, list[float]] = {k: [] for k in cases}
        rss: dict[str, float] = {k: 0.0 for k in cases}
        out_chars: dict[str, int] = {}
        for name, (argv, stdin) in cases.items():  # warm-up, and a check
            if "cold" in name:
                cache.unlink(missing_ok=True)
            r = run(argv, env, stdin)
            if r.code != 0:
                sys.exit(f"{name} failed ({r.code}): {r.stderr[-500:]}")
            out_chars[name] = len(r.stdout)
        for _ in range(args.runs):
            for name, (argv, stdin) in cases.items():
                if "cold" in name:
                    cache.unlink(missing_ok=True)
                r = run(argv, env, stdin)
                times[name].append(r.wall_ms)
                rss[name] = max(rss[name], r.maxrss_mb)
    result = {
        "sessions": sessions, "bytes": size, "runs": args.runs,
        "cases": {k: {"ms": summarize(v), "peak_rss_mb": round(rss[k], 1), "stdout_chars": out_chars[k]}
                  for k, v in times.items()},
    }
    out = REPO / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "browse.json").write_text(json.dumps(result, indent=2))
    print(f"{sessions} Claude Code sessions, {size / 1e6:.1f} MB, {args.runs} runs each, whole process\n")
    print("| command | p50 ms | p90 | min | max | peak RSS MB | output chars |")
    print("|---|---|---|---|---|---|---|")
    for name, c in result["cases"].items():
        m = c["ms"]
        print(f"| `{name}` | {m['p50']} | {m['p90']} | {m['min']} | {m['max']} | {c['peak_rss_mb']} | {c['stdout_chars']} |")


if __name__ == "__main__":
    main()
