#!/usr/bin/env python3
"""How much of a public injection corpus thehook withholds: each line planted in a
project's memory, in each place memory holds text, then counted by the binary's own
`review --json`.

Data
----
The JSONL files `bench/injection/fetch.py` writes (one per source: `{"text", "source",
"class", "meta"}`), and the benign look-alikes of `tests/fixtures/safety/benign.tsv`
(every one must be delivered); files named `benign-*` are benign too: for them the
table's "withheld" are false positives. Lines of class `harmful-question` (a question with no
instruction to an assistant) are left out: they are not injections.

What it does
------------
For each source and each place, a fresh project under `--work`:
* `knowledge`: every line an item of `.thehook/knowledge/notes.md`;
* `session`: every line a gotcha of a session file (50 a file);
* `title`: every line the title of a session file of its own (a YAML double-quoted
  scalar);
then `BIN reindex --json` and `BIN review --json`. A line counts as withheld when
review lists its citation (its file and line; for a title, its file). Per source, per
class and per place: lines, withheld, withheld by a rule, withheld by the learned check
only, and delivered with hidden text removed (a line that reaches agents carrying
characters `strip_hidden` drops: Unicode tags, format characters, controls; a Tag
smuggling line then arrives as its visible part alone). `--json OUT` writes every count
and the lines that reach agents.

`--bin` is copied with the ONNX Runtime and model beside it, as `bench/replay.py` does;
pass the binary of another commit to measure before and after (the same corpora, the
same places).

Usage
-----
    python3 bench/injection/eval.py --corpora bench/out/corpora [--source NAME ...] \\
        [--place knowledge] [--bin PATH] [--work DIR] [--json OUT]

Python 3.11+, standard library only.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
from replay import clean_path, snapshot_binary  # noqa: E402

PLACES = ("knowledge", "session", "title")
PER_SESSION_FILE = 50
BENIGN = REPO / "crates/thehook-core/tests/fixtures/safety/benign.tsv"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def read_source(path: Path) -> list[dict]:
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    return [r for r in rows if r.get("class") != "harmful-question" and r["text"].strip()]


def benign_rows() -> list[dict]:
    lines = [l for l in BENIGN.read_text().splitlines() if l.strip() and not l.startswith("#")]
    return [{"text": l, "source": "benign-look-alikes", "class": "benign"} for l in lines]


def one_line(text: str) -> str:
    return " ".join(text.split())


def plant(root: Path, place: str, rows: list[dict]) -> dict[tuple[str, int | None], int]:
    """Writes the lines; returns (path, line or None for a title) -> row index."""
    (root / ".thehook/knowledge").mkdir(parents=True)
    (root / ".thehook/sessions").mkdir(parents=True)
    where: dict[tuple[str, int | None], int] = {}
    if place == "knowledge":
        body = ["# Notes"]
        for i, r in enumerate(rows):
            body.append(f"- {one_line(r['text'])}")
            where[(".thehook/knowledge/notes.md", len(body))] = i
        (root / ".thehook/knowledge/notes.md").write_text("\n".join(body) + "\n")
        return where
    for start in range(0, len(rows), 1 if place == "title" else PER_SESSION_FILE):
        n = start if place == "title" else start // PER_SESSION_FILE
        rel = f".thehook/sessions/2026-01-01-0000-planted-{n:05d}.md"
        chunk = rows[start:start + (1 if place == "title" else PER_SESSION_FILE)]
        title = json.dumps(one_line(chunk[0]["text"]), ensure_ascii=False) if place == "title" else '"Deploy fixes"'
        body = ["---", f"session_id: s{n:05d}", "agent: claude-code", "date: 2026-01-01T00:00:00Z",
                f"title: {title}", "---", "## Session Summary", "- **What was done**: fixed the deploy",
                "", "## Gotchas"]
        if place == "title":
            where[(rel, None)] = start
            body.append("- `[gotcha]` The deploy needs node 20.")
        else:
            for k, r in enumerate(chunk):
                body.append(f"- `[gotcha]` {one_line(r['text'])}")
                where[(rel, len(body))] = start + k
        (root / rel).write_text("\n".join(body) + "\n")
    return where


def run_json(binary: Path, args: list[str], root: Path, env: dict) -> dict:
    r = subprocess.run([str(binary), "-C", str(root), *args], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"`thehook {' '.join(args)}` exited {r.returncode}: {r.stderr.strip()[:500]}")
    return json.loads(r.stdout)


def withheld_rows(review: dict, where: dict) -> dict[int, dict]:
    """Row index -> the verdict, from `review --json`'s withheld entries."""
    out = {}
    for e in review.get("withheld") or []:
        item = e.get("item") if isinstance(e.get("item"), dict) else e
        verdict = e.get("withheld") if isinstance(e.get("withheld"), dict) else e
        path, line = item.get("path"), item.get("line_start", item.get("line"))
        title = (item.get("type") == "title")
        key = (path, None) if title else (path, line)
        if key in where:
            out[where[key]] = {"rule": verdict.get("rule") or e.get("rule"), "score": verdict.get("score"),
                               "nearest": (verdict.get("nearest") or {}).get("label")}
    return out


def measure(binary: Path, env: dict, work: Path, name: str, rows: list[dict], place: str) -> dict:
    root = work / f"{name}-{place}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    where = plant(root, place, rows)
    t0 = time.perf_counter()
    run_json(binary, ["reindex", "--json"], root, env)
    seconds = time.perf_counter() - t0
    verdicts = withheld_rows(run_json(binary, ["review", "--json"], root, env), where)
    by_class: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for i, r in enumerate(rows):
        c = by_class[r.get("class") or "-"]
        c[0] += 1
        if i in verdicts:
            c[1] += 1
            c[2] += verdicts[i]["rule"] == "learned-check"
    benign = name.startswith("benign")
    delivered = [{"text": rows[i]["text"], "class": rows[i].get("class")}
                 for i in range(len(rows)) if (i in verdicts) == benign]
    withheld = len(verdicts)
    stripped = 0 if benign else sum(has_hidden(d["text"]) for d in delivered)
    learned = sum(v["rule"] == "learned-check" for v in verdicts.values())
    log(f"[{name}/{place}] {withheld}/{len(rows)} withheld ({learned} by the learned check), "
        f"reindex {seconds:.1f} s")
    return {"source": name, "place": place, "benign": benign, "lines": len(rows), "withheld": withheld,
            "learned_only": learned, "hidden_stripped": stripped, "reindex_seconds": seconds,
            "by_class": {k: {"lines": v[0], "withheld": v[1], "learned_only": v[2]}
                         for k, v in sorted(by_class.items())},
            # Attacks that reached agents; for a benign source, lines withheld.
            "missed": [{"text": d["text"][:300], "class": d["class"]} for d in delivered]}


def has_hidden(text: str) -> bool:
    """Whether `text` holds a character thehook strips as hidden (`text/safety/hidden.rs`):
    a Unicode tag, a format character (Cf) or a control other than tab and line breaks."""
    return any(0xE0000 <= ord(c) <= 0xE007F or unicodedata.category(c) == "Cf"
               or (unicodedata.category(c) == "Cc" and c not in "\t\n\r") for c in text)


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def report(results: list[dict]) -> str:
    out = ["| source | place | lines | withheld | share | by the learned check only | delivered, hidden part stripped |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        out.append(f"| {r['source']} | {r['place']} | {r['lines']} | {r['withheld']} | "
                   f"{pct(r['withheld'], r['lines'])} | {r['learned_only']} | {r['hidden_stripped']} |")
    out += ["", "| source | place | class | lines | withheld | share |", "|---|---|---|---:|---:|---:|"]
    for r in results:
        for k, v in r["by_class"].items():
            out.append(f"| {r['source']} | {r['place']} | {k} | {v['lines']} | {v['withheld']} | "
                       f"{pct(v['withheld'], v['lines'])} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", type=Path, default=BENCH / "out/corpora")
    ap.add_argument("--source", action="append", help="a corpus file's stem, repeatable (default: all)")
    ap.add_argument("--place", action="append", choices=PLACES, help="repeatable (default: all)")
    ap.add_argument("--bin", type=Path, default=REPO / "target/release/thehook")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "thehook-replay")
    ap.add_argument("--work", type=Path, default=BENCH / "out/injection-work")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    binary = snapshot_binary(args.bin.resolve(), args.cache)
    env = {"PATH": clean_path(), "HOME": str(Path.home()), "NO_COLOR": "1", "THEHOOK_BACKGROUND": "0"}
    sources = {p.stem: read_source(p) for p in sorted(args.corpora.glob("*.jsonl"))
               if not args.source or p.stem in args.source}
    sources["benign-look-alikes"] = benign_rows()
    results = []
    for name, rows in sources.items():
        for place in args.place or PLACES:
            results.append(measure(binary, env, args.work, name, rows, place))
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
