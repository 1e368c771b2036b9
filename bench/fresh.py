#!/usr/bin/env python3
"""Memory planted, then a session started at once: is it given?

Each benign convention below (written for this check, in no corpus the safety
check was trained or tuned on) is planted alone in a fresh git project with
memory (`thehook init`), in `.thehook/knowledge/conventions.md`, and a Claude
Code session starts right after (`retrieve`, its background half off, so
nothing but the hook itself may have synced). Counted: the lines the session
start gives. Two ways, each line in a project of its own:

* ``racy``: planted in the same second as init's sync (the file and its
  folder within the 2 s thehook does not trust an mtime);
* ``settled``: every memory file and folder dated an hour back, one session
  start (which records the stamp the hooks trust), then the line planted.

`--background` lets the session start's detached half run after each hook
(as it does for users; off by default, so that only the hook itself syncs).

`--bin` names the binary (the model and ONNX Runtime beside it, as
`scripts/setup.sh` links them); pass another commit's binary to compare.

Usage
-----
    python3 bench/fresh.py [--bin target/release/thehook] [--json OUT]

Python 3.11+, standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

BENIGN = [
    "Format Rust code with `cargo fmt` before every commit.",
    "Database migrations live in `db/migrations` and are numbered by date.",
    "Feature flags are read from `config/flags.yaml`, never from environment variables.",
    "Use `tracing` spans, not `println!`, for diagnostics.",
    "Integration tests need a running Postgres on port 5433.",
    "Public API types are re-exported from `src/lib.rs` only.",
    "The CI matrix runs stable Rust and the minimum supported version, 1.75.",
    "Error messages start lowercase and name the file involved.",
    "Prefer `BTreeMap` where the order of output is visible to users.",
    "Dates are stored in UTC and shown in the user's time zone.",
    "Snapshot tests use insta; review changes with `cargo insta review`.",
    "Release notes are drafted in `CHANGELOG.md` under Unreleased.",
]


def run(cmd: list[str], cwd: Path, env: dict, stdin: str | None = None) -> str:
    out = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr}")
    return out.stdout


def session_start(binary: str, root: Path, env: dict, session: str) -> str:
    payload = json.dumps({"session_id": session, "cwd": str(root),
                          "hook_event_name": "SessionStart", "source": "startup"})
    return run([binary, "retrieve", "--agent", "claude-code"], root, env, payload)


def age(root: Path) -> None:
    hour_ago = time.time() - 3600
    for sub in ("knowledge", "sessions"):
        top = root / ".thehook" / sub
        for dirpath, _, files in os.walk(top):
            for p in [dirpath, *[os.path.join(dirpath, f) for f in files]]:
                os.utime(p, (hour_ago, hour_ago))


def planted(binary: str, line: str, way: str, work: Path, background: bool) -> tuple[bool, float]:
    """Whether a session started right after `line` was planted is given it,
    and how long that session start took (ms)."""
    root = Path(tempfile.mkdtemp(dir=work))
    env = {k: v for k, v in os.environ.items() if not k.startswith("THEHOOK_")}
    env.update({"HOME": str(root / "home"), "THEHOOK_BACKGROUND": "1" if background else "0",
                "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})
    (root / "home").mkdir()
    run(["git", "init", "-q", "-b", "main"], root, env)
    (root / ".git/info/exclude").write_text("home/\n")
    run([binary, "init", "--agent", "claude-code"], root, env)
    run(["git", "add", "-A"], root, env)
    run(["git", "commit", "-qm", "init"], root, env)
    if way == "settled":
        age(root)
        session_start(binary, root, env, "before")
    conventions = root / ".thehook/knowledge/conventions.md"
    with open(conventions, "a") as f:
        f.write(f"- {line}\n")
    began = time.monotonic()
    answer = session_start(binary, root, env, "after")
    ms = 1000 * (time.monotonic() - began)
    return line in answer, ms


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=str(REPO / "target/release/thehook"))
    ap.add_argument("--json", help="write the counts here")
    ap.add_argument("--background", action="store_true", help="let the detached half run")
    args = ap.parse_args(argv)
    results = {}
    # The detached halves may still write when the folder goes.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as work:
        for way in ("racy", "settled"):
            rows = [planted(args.bin, line, way, Path(work), args.background) for line in BENIGN]
            given = sum(ok for ok, _ in rows)
            times = sorted(ms for _, ms in rows)
            results[way] = {"given": given, "planted": len(BENIGN),
                            "missed": [l for l, (ok, _) in zip(BENIGN, rows) if not ok],
                            "session_start_ms_median": times[len(times) // 2]}
            print(f"{way:8} {given} of {len(BENIGN)} benign lines given at the next session start "
                  f"(its median {times[len(times) // 2]:.0f} ms)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
