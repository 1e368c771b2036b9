#!/usr/bin/env python3
"""How fast the local page (`thehook ui`) is, measured in the browser.

For each corpus (speed.py's 10,000 items; team.py's year of a team, 10
developers x 2 sessions a day x 365 days), the project is written, committed
to git (the Memory view asks git who wrote what) and indexed with the real
model; then `thehook ui --no-open` serves it and headless Chromium
(bench/ui_views.mjs, puppeteer-core from tests/ui/) loads each view's URL
afresh, --runs times, views in turn: the time from the start of the
navigation to the first contentful paint, and to the moment the view has
rendered its data (the page's `view-ready:<view>` mark: the script loaded,
its API call answered, the DOM built). Printed: median and min-max per view,
and beside them `thehook recall` as a whole process, the search the page's
search view answers in-process.

    python3 bench/ui.py [--runs 15] [--parts items,team] [--bin target/release/thehook]

The page's targets (docs/benchmarks.md): first paint and each view <= 300 ms
at 10,000 items, <= 1 s at a team's year.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import speed  # noqa: E402
import team  # noqa: E402

QUERY = "retry backoff flaky test"
VIEWS = ["sessions", "session/{session}", "next", "memory", "item/{item}",
         f"search?q={QUERY.replace(' ', '%20')}", "review", "cost", "health"]


def prepare(root: Path, files: dict, binary: str, env: dict) -> None:
    """The corpus written, committed and indexed (kept between runs when unchanged)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".thehook").mkdir(exist_ok=True)
    touched = speed.write_corpus(root, files)
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    if touched or not (root / ".thehook" / "index").exists():
        subprocess.run(["git", "add", "-A", ".thehook"], cwd=root, check=True)
        subprocess.run(["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit",
                        "-qm", "memory", "--allow-empty"], cwd=root, check=True)
        t0 = time.perf_counter()
        subprocess.run([binary, "-C", str(root), "reindex"], env=env, check=True, capture_output=True)
        print(f"  reindexed in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def serve(binary: str, root: Path, env: dict) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([binary, "-C", str(root), "ui", "--no-open"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    return proc, line.split(": ", 1)[1]


def api(url: str, path: str) -> dict:
    import urllib.request
    base, token = url.split("/?token=")
    token = token.split("#")[0]
    req = urllib.request.Request(f"{base}{path}", headers={"X-Thehook-Token": token})
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def spread(xs: list) -> str:
    xs = [x for x in xs if x is not None]
    return f"{statistics.median(xs):.0f} ({min(xs):.0f}-{max(xs):.0f})" if xs else "-"


def measure(name: str, files: dict, binary: str, runs: int, work: Path, env: dict) -> dict:
    root = work / name
    print(f"[{name}] {sum(1 for f in files if f.endswith('.md'))} files", file=sys.stderr)
    prepare(root, files, binary, env)
    proc, url = serve(binary, root, env)
    try:
        overview = api(url, "/api/overview")
        session = api(url, "/api/sessions?limit=1")["sessions"][0]["session_id"]
        item = api(url, "/api/items")["items"][0]["id"]
        views = [v.format(session=session, item=item) for v in VIEWS]
        out = subprocess.run(["node", str(BENCH / "ui_views.mjs"), url, str(runs), *views],
                             capture_output=True, text=True, check=True)
        timings = json.loads(out.stdout)
    finally:
        proc.send_signal(2)
        proc.wait()
    recall = [speed.run([binary, "-C", str(root), "recall", QUERY, "--json"], env).wall_ms
              for _ in range(runs)]
    return {"items": overview["items"], "sessions": overview["sessions"], "views": timings,
            "recall_ms": recall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(BENCH.parent / "target" / "release" / "thehook"))
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--parts", default="items,team")
    ap.add_argument("--work", default=str(BENCH / "out" / "ui-work"))
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    env = speed.base_env()
    # The embedding cache of this benchmark's own: a second run embeds nothing.
    env["THEHOOK_EMBEDDING_CACHE"] = "on"
    env["THEHOOK_CACHE_DIR"] = str(Path(a.work) / "cache")
    env["THEHOOK_BACKGROUND"] = "0"
    binary = str(Path(a.bin).resolve())
    work = Path(a.work)
    corpora = {"items": lambda: speed.generate_corpus(10_000, 1),
               "team": lambda: team.team_history(10, 365, 2, 1)}
    results = {name: measure(name, corpora[name](), binary, a.runs, work, env)
               for name in a.parts.split(",")}
    lines = ["| view | " + " | ".join(f"{n}: ready ms, median (min-max)" for n in results) + " |",
             "|---|" + "---|" * len(results)]
    names = list(next(iter(results.values()))["views"])
    for i, view in enumerate(names):
        cells = []
        for r in results.values():
            key = list(r["views"])[i]
            cells.append(spread(r["views"][key]["ready"]))
        lines.append(f"| {view.split('?')[0].split('/')[0]} | " + " | ".join(cells) + " |")
    paint = [spread([p for v in r["views"].values() for p in v["paint"]]) for r in results.values()]
    lines.append("| first contentful paint (every load) | " + " | ".join(paint) + " |")
    lines.append("| `thehook recall` (whole process) | " + " | ".join(spread(r["recall_ms"]) for r in results.values()) + " |")
    print("\n".join(f"{n}: {r['items']} items, {r['sessions']} sessions" for n, r in results.items()))
    print("\n".join(lines))
    if a.json:
        a.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
