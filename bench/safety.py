#!/usr/bin/env python3
"""False positives of the safety rules on real memory: how many of the items thehook
writes when it replays real agent histories are withheld from agents.

Data
----
The memory `bench/replay.py` builds: real histories (git dirs whose branch
`entire/checkpoints/v1` holds agent sessions recorded by Entire, e.g. the snapshots of
entireio/cli and entireio/entire-graph) replayed session by session through thehook,
each session captured into `.thehook/sessions/*.md` of a work tree kept in the replay
cache, `<cache>/<history>/worktree-<llm>/` (`--llm none`: thehook's heuristic
extraction; `--llm fake`: `bench/replay_fake_llm.py` as the LLM, so conventions,
decisions and gotchas are written too; see replay.py's docstring). Nothing in these
histories was planted: every withheld item is a false positive (or a real attack in a
public history, which the listing shows). All sessions of every history are used: the
count tunes no weight.

What it does
------------
1. Unless `--reuse` is given, runs `bench/replay.py` once per `--llm` mode (default
   both, `none` then `fake`) with the histories, cache and binary given here; this
   rebuilds each work tree from scratch (minutes a mode). With `--reuse`, existing work
   trees are taken as they are and only the missing ones are replayed; with `--reuse`
   and no history given, every `<cache>/<history>/worktree-<llm>/` present is taken.
2. In each work tree (cwd = the work tree; the replay's environment: no LLM CLI on
   PATH, THEHOOK_BACKGROUND=0): `BIN reindex --json` (the markdown judged again by the
   binary under test), `BIN review --json` and `BIN status --json`.
3. Counts, per history and mode:
   * items: `status --json` `index.items` (every indexed item; session titles are not
     items); sessions: `status --json` `sessions`;
   * withheld: the entries of `review --json` `withheld` (absent: none). An entry is
     an item or, with `type: title` (or no item), a session title; `withheld items`
     counts the former, `titles` the latter; share = withheld items / items;
   * status's own `withheld_items`, when it has one, is checked against the listing.
   Both entry shapes are read: `{"item": {id, type, text, path, line_start},
   "citation", "rule", "reason", "committed_by"}` and the flat `{id, type, text, path,
   line, citation, "withheld": {rule, matched}, committed_by}`.
4. Prints a markdown table (history x mode: sessions, items, withheld items, share,
   titles withheld, by rule), then every withheld entry: rule, citation, type and text
   (one line, clipped to `--clip` characters, default 200) and what matched. `--json
   PATH` writes everything, entries unclipped.

`--bin` (default target/release/thehook) is copied into `<cache>/bin/<mtime>-<size>/`
with the ONNX Runtime and model beside it, as replay.py does, and run from there
(`--no-bin-copy`: in place); the replay gets the same binary.

Usage
-----
    python3 bench/safety.py --history cli=<git dir of the entireio/cli snapshot> \\
        --history entire-graph=<git dir of the entireio/entire-graph snapshot> \\
        [--llm none] [--llm fake] [--reuse] [--cache DIR] [--bin PATH] [--no-bin-copy] \\
        [--limit N] [--clip N] [--json OUT]
    python3 bench/safety.py --reuse        # the cached work trees, no replay: reindex and count

Python 3.11+, standard library only; reuses replay.py's binary snapshot and PATH filter.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay import clean_path, snapshot_binary  # noqa: E402

BENCH = Path(__file__).resolve().parent
MODES = ("none", "fake")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def one_line(text: str, limit: int) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def run_json(binary: Path, args: list[str], tree: Path, env: dict) -> tuple[dict | None, str, float]:
    """`BIN args` in `tree`: (parsed stdout or None, error text, seconds)."""
    t0 = time.perf_counter()
    r = subprocess.run([str(binary), *args], cwd=tree, env=env, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if r.returncode != 0:
        return None, f"`thehook {' '.join(args)}` exited {r.returncode}: {(r.stderr or r.stdout).strip()[:500]}", secs
    try:
        return json.loads(r.stdout), "", secs
    except json.JSONDecodeError as e:
        return None, f"`thehook {' '.join(args)}` printed no JSON ({e}): {r.stdout.strip()[:300]}", secs


def normalise(entry: dict) -> dict:
    """One withheld entry, whichever of the two shapes `review --json` prints."""
    item = entry.get("item") if isinstance(entry.get("item"), dict) else None
    src = item or entry
    verdict = entry.get("withheld") if isinstance(entry.get("withheld"), dict) else {}
    kind = src.get("type") or ("item" if item else "title")
    line = src.get("line_start", src.get("line"))
    path = src.get("path")
    return {
        "id": src.get("id"),
        "type": kind,
        "title": kind == "title",
        "text": src.get("text") or "",
        "path": path,
        "line": line,
        "citation": entry.get("citation") or (f"{path}:{line}" if path else None),
        "rule": entry.get("rule") or verdict.get("rule") or "?",
        "reason": entry.get("reason") or verdict.get("matched") or "",
        "committed_by": entry.get("committed_by"),
    }


def count(name: str, llm: str, tree: Path, binary: Path, env: dict) -> dict:
    row = {"history": name, "llm": llm, "tree": str(tree), "errors": [],
           "session_files": len(list((tree / ".thehook" / "sessions").glob("*.md")))}
    reindex, err, row["reindex_seconds"] = run_json(binary, ["reindex", "--json"], tree, env)
    if err:
        row["errors"].append(err)
    row["reindex"] = reindex
    review, err, row["review_seconds"] = run_json(binary, ["review", "--json"], tree, env)
    if err:
        row["errors"].append(err)
    status, err, _ = run_json(binary, ["status", "--json"], tree, env)
    if err:
        row["errors"].append(err)
    status = status or {}
    index = status.get("index") or {}
    items = index.get("items")
    if items is None and isinstance(index.get("by_type"), dict):
        items = sum(index["by_type"].values())
    row["items"] = items
    row["by_type"] = index.get("by_type")
    row["sessions"] = status.get("sessions")
    row["status_withheld"] = status.get("withheld_items")
    entries = [normalise(e) for e in ((review or {}).get("withheld") or [])]
    row["withheld"] = entries
    row["withheld_items"] = sum(1 for e in entries if not e["title"])
    row["withheld_titles"] = sum(1 for e in entries if e["title"])
    row["stale"] = len((review or {}).get("stale") or [])
    row["share"] = row["withheld_items"] / items if items else None
    by_rule: dict[str, int] = {}
    for e in entries:
        by_rule[e["rule"]] = by_rule.get(e["rule"], 0) + 1
    row["by_rule"] = dict(sorted(by_rule.items(), key=lambda kv: (-kv[1], kv[0])))
    if row["status_withheld"] is not None and row["status_withheld"] != len(entries):
        row["errors"].append(f"status withheld_items {row['status_withheld']} != review's {len(entries)} entries")
    log(f"[{name}/{llm}] items {items}, withheld {row['withheld_items']} items + {row['withheld_titles']} "
        f"titles, reindex {row['reindex_seconds']:.1f} s" + (f"; {row['errors']}" if row["errors"] else ""))
    return row


def pct(n, d) -> str:
    return f"{100 * n / d:.2f}%" if d else "-"


def report(rows: list[dict], version: str, clip: int) -> str:
    out = [f"# Safety rules on replayed memory ({version})", "",
           "| history | llm | sessions | items | withheld items | share | titles withheld | by rule |",
           "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        rules = ", ".join(f"{k} {v}" for k, v in r["by_rule"].items()) or "-"
        out.append(f"| {r['history']} | {r['llm']} | {r['sessions'] if r['sessions'] is not None else '?'} | "
                   f"{r['items'] if r['items'] is not None else '?'} | {r['withheld_items']} | "
                   f"{pct(r['withheld_items'], r['items'])} | {r['withheld_titles']} | {rules} |")
    for llm in dict.fromkeys(r["llm"] for r in rows):
        part = [r for r in rows if r["llm"] == llm]
        if len(part) > 1:
            items = sum(r["items"] or 0 for r in part)
            w = sum(r["withheld_items"] for r in part)
            out.append(f"| all | {llm} | {sum(r['sessions'] or 0 for r in part)} | {items} | {w} | "
                       f"{pct(w, items)} | {sum(r['withheld_titles'] for r in part)} | |")
    out.append("")
    total = sum(len(r["withheld"]) for r in rows)
    out.append(f"## Withheld ({total})")
    out.append("")
    for r in rows:
        for e in r["withheld"]:
            out.append(f"- {r['history']}/{r['llm']} `{e['rule']}` {e['citation']} ({e['type']}): "
                       f"{one_line(e['text'], clip)}")
            if e["reason"]:
                out.append(f"  matched: \"{one_line(e['reason'], clip)}\"")
    if not total:
        out.append("(none)")
    errors = [(r, e) for r in rows for e in r["errors"]]
    if errors:
        out += ["", "## Errors", ""] + [f"- {r['history']}/{r['llm']}: {e}" for r, e in errors]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("histories", nargs="*", help="NAME=GITDIR (same as --history)")
    ap.add_argument("--history", action="append", default=[],
                    help="NAME=GITDIR, repeatable (with --reuse, NAME alone names a cached history)")
    ap.add_argument("--llm", action="append", choices=MODES, help="replay mode, repeatable (default: both)")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "thehook-replay")
    ap.add_argument("--bin", type=Path, default=BENCH.parent / "target/release/thehook")
    ap.add_argument("--no-bin-copy", action="store_true",
                    help="run --bin in place (default: a copy in the cache, safe from rebuilds)")
    ap.add_argument("--reuse", action="store_true",
                    help="take the cached work trees as they are; replay only the missing ones")
    ap.add_argument("--limit", type=int, default=0, help="replay at most N sessions per history (0: all)")
    ap.add_argument("--clip", type=int, default=200, help="characters of an item's text in the listing")
    ap.add_argument("--json", type=Path, help="also write the results here")
    a = ap.parse_args(argv)
    modes = list(dict.fromkeys(a.llm or MODES))
    cache = a.cache.resolve()
    specs = a.history + a.histories
    histories: dict[str, Path | None] = {}
    for spec in specs:
        name, _, gd = spec.rpartition("=")
        if not name and not a.reuse:
            ap.error(f"give NAME=GITDIR: {spec!r}")
        if not name:
            name, gd = gd, ""
        histories[name] = Path(gd).resolve() if gd else None
    if not histories:
        if not a.reuse:
            ap.error("give the histories (--history NAME=GITDIR), or --reuse for the cached work trees")
        histories = {d.name: None for d in sorted(cache.iterdir()) if d.is_dir()
                     and any((d / f"worktree-{m}" / ".thehook").is_dir() for m in modes)} if cache.is_dir() else {}
        if not histories:
            log(f"no replayed work tree in {cache}: run without --reuse first")
            return 2

    binary = a.bin.resolve()
    if not binary.exists():
        log(f"no thehook binary at {binary}")
        return 2
    if not a.no_bin_copy:
        source, binary = binary, snapshot_binary(binary, cache)
        log(f"running a copy of {source}: {binary}")
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()

    # 1. replay what is needed
    replay_seconds: dict[str, float] = {}
    for llm in modes:
        todo = [n for n in histories if not (a.reuse and (cache / n / f"worktree-{llm}" / ".thehook").is_dir())]
        if not todo:
            log(f"[{llm}] reusing the cached work trees of {', '.join(histories)}")
            continue
        missing = [n for n in todo if histories[n] is None]
        if missing:
            log(f"[{llm}] no cached work tree and no git dir for {', '.join(missing)}: give NAME=GITDIR")
            return 2
        cmd = [sys.executable, str(BENCH / "replay.py"), "--llm", llm, "--cache", str(cache),
               "--bin", str(binary), "--no-bin-copy"]
        cmd += [x for n in todo for x in ("--history", f"{n}={histories[n]}")]
        cmd += ["--limit", str(a.limit)] if a.limit else []
        log(f"[{llm}] replaying {', '.join(todo)}: {' '.join(cmd)}")
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=sys.stderr)  # replay's report is not this script's output
        replay_seconds[llm] = round(time.perf_counter() - t0, 1)
        log(f"[{llm}] replay took {replay_seconds[llm]:.0f} s")
        if r.returncode != 0:
            log(f"[{llm}] replay.py exited {r.returncode}")
            return r.returncode

    # 2-3. reindex, review, status in every work tree
    env = dict(os.environ, THEHOOK_BACKGROUND="0", PATH=clean_path(), NO_COLOR="1")
    env.pop("THEHOOK_CHILD", None)
    rows = []
    for name in histories:
        for llm in modes:
            tree = cache / name / f"worktree-{llm}"
            if not (tree / ".thehook").is_dir():
                log(f"[{name}/{llm}] no work tree at {tree}: skipped")
                continue
            rows.append(count(name, llm, tree, binary, env))
    if not rows:
        log("no work tree to count")
        return 2

    # 4. report
    print(report(rows, version, a.clip))
    if a.json:
        results = {"bin": str(binary), "version": version, "cache": str(cache), "reuse": a.reuse,
                   "replay_seconds": replay_seconds, "trees": rows}
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(results, indent=1, ensure_ascii=False, default=str))
        log(f"results written to {a.json}")
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
