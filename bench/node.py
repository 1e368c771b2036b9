#!/usr/bin/env python3
"""The npm package, measured (the in-process row of the speed targets).

* Warm ``recall()`` in-process (Node): the addon with the index and the model
  open, over the synthetic corpus of bench/speed.py (10,000 items by
  default), after a warm-up; each call timed in Node with hrtime.
* The tarballs of ``scripts/release.sh`` (``dist/``): their sizes, and the time
  of ``npm install --offline`` of the three into an empty folder.
* Whole-process latency of the entry points a user or agent starts:
  ``npx thehook --help``, ``node node_modules/thehook/bin/thehook.js --help``,
  the native ``thehook --help``, and the session-start hook command that
  ``init`` writes (``<native> retrieve`` with a payload, THEHOOK_BACKGROUND=0).

Usage:
    scripts/release.sh && python3 bench/node.py [--items 10000] [--calls 200] [--runs 20]
Output: markdown on stdout, JSON in bench/out/node.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import REPO, base_env, generate_corpus, run, summarize, write_corpus  # noqa: E402

WARM_RECALL = r"""
const thehook = require(process.argv[1]);
const projectDir = process.argv[2];
const calls = Number(process.argv[3]);
const queries = ['auth token refresh', 'database migration', 'flaky test retry', 'deploy pipeline cache',
                 'why did we choose postgres', 'logging format', 'rate limit errors', 'feature flags'];
(async () => {
  await thehook.recall('warm up', { projectDir });
  const ms = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    const hits = await thehook.recall(queries[i % queries.length] + ' ' + (i % 50), { projectDir, k: 8 });
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (hits.length === 0) throw new Error('no hits');
  }
  const status = await thehook.status({ projectDir });
  console.log(JSON.stringify({ ms, model: status.model, items: status.items }));
})();
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    dist = REPO / "dist"
    tarballs = sorted(str(p) for p in dist.glob("*.tgz"))
    if len(tarballs) != 3:
        sys.exit("run scripts/release.sh first (dist/ must hold the three tarballs)")
    env = base_env()
    env.update(npm_config_registry="http://127.0.0.1:9/", npm_config_audit="false",
               npm_config_fund="false", npm_config_update_notifier="false")
    result: dict = {"tarballs": {Path(t).name: os.path.getsize(t) for t in tarballs}}
    with tempfile.TemporaryDirectory(prefix="thehook-node-bench-") as tmp:
        work = Path(tmp)
        # Install time: fresh folder each run.
        installs = []
        for i in range(5):
            app = work / f"install-{i}"
            app.mkdir()
            (app / "package.json").write_text('{"name":"app","version":"1.0.0","private":true}\n')
            start = time.perf_counter()
            subprocess.run(["npm", "install", "--offline", "--loglevel=error", *tarballs], cwd=app, env=env,
                           check=True, stdout=subprocess.DEVNULL)
            installs.append((time.perf_counter() - start) * 1000)
        result["install_ms"] = summarize(installs)
        app = work / "install-0"
        native = app / "node_modules/thehook-linux-x64-gnu/thehook"
        user_env = {k: v for k, v in env.items() if k not in ("THEHOOK_MODEL_DIR", "ORT_DYLIB_PATH")}

        # A project with the corpus, indexed once by the CLI.
        project = work / "project"
        (project / ".thehook").mkdir(parents=True)
        write_corpus(project, generate_corpus(args.items, seed=7))
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        subprocess.run([str(native), "-C", str(project), "reindex"], env=user_env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        out = subprocess.run(["node", "-e", WARM_RECALL, str(app / "node_modules/thehook"), str(project), str(args.calls)],
                             cwd=app, env=user_env, check=True, capture_output=True, text=True)
        warm = json.loads(out.stdout)
        result["warm_recall_ms"] = summarize(warm["ms"])
        result["warm_recall_model"] = warm["model"]
        result["items"] = warm["items"]

        payload = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "SessionStart",
                              "source": "startup"}).encode()
        cases = {
            "npx thehook --help": (["npx", "--prefix", str(app), "thehook", "--help"], None, {}),
            "node bin/thehook.js --help": (["node", str(app / "node_modules/thehook/bin/thehook.js"), "--help"], None, {}),
            "native thehook --help": ([str(native), "--help"], None, {}),
            "hook: native retrieve (10k items)": ([str(native), "retrieve", "--agent", "claude-code"], payload,
                                                  {"THEHOOK_BACKGROUND": "0"}),
        }
        times: dict[str, list[float]] = {k: [] for k in cases}
        for argv, stdin, extra in cases.values():  # warm-up
            run(argv, user_env | extra, stdin)
        for _ in range(args.runs):
            for name, (argv, stdin, extra) in cases.items():
                r = run(argv, user_env | extra, stdin)
                if r.code != 0:
                    sys.exit(f"{name}: exit {r.code}: {r.stderr[-300:]}")
                times[name].append(r.wall_ms)
        result["latency_ms"] = {k: summarize(v) for k, v in times.items()}
    out_dir = REPO / "bench" / "out"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "node.json").write_text(json.dumps(result, indent=2))
    print("| tarball | bytes |\n|---|---|")
    for name, size in result["tarballs"].items():
        print(f"| {name} | {size:,} |")
    i = result["install_ms"]
    print(f"\n`npm install --offline` of the three, 5 runs: p50 {i['p50']} ms (min {i['min']}, max {i['max']})\n")
    w = result["warm_recall_ms"]
    print(f"warm in-process recall(), {result['items']} items, model {result['warm_recall_model']}, "
          f"{args.calls} calls: p50 {w['p50']} ms, p90 {w['p90']}, min {w['min']}, max {w['max']}\n")
    print("| command (whole process) | p50 ms | p90 | min | max |\n|---|---|---|---|---|")
    for name, s in result["latency_ms"].items():
        print(f"| `{name}` | {s['p50']} | {s['p90']} | {s['min']} | {s['max']} |")


if __name__ == "__main__":
    main()
