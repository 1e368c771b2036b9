#!/usr/bin/env python3
"""opencode's plugin: spawning `thehook` per event against the Node addon in-process.

opencode runs plugins in its own Bun runtime. This bench runs a script in that
runtime (the opencode binary of tests/agents, as Bun with BUN_BE_BUN=1) that
answers one session-start payload two ways, in turn, over the synthetic
corpus of bench/speed.py:

* spawn: what thehook's plugin does, `thehook retrieve --agent opencode` with
  the payload on stdin and its JSON read from stdout (THEHOOK_BACKGROUND=0, so
  only the foreground is timed);
* addon: `retrieve(payload, {agent: 'opencode'})` of the built addon, loaded
  once in the same process (its first call, which opens the index and the
  model, is reported apart).

Both must answer the same text. Each call is timed in the runtime; the ratio
is addon/spawn of the medians, measured side by side.

Usage:
    scripts/release.sh && python3 bench/opencode_plugin.py [--items 1000] [--calls 40]
Output: markdown on stdout, JSON in bench/out/opencode_plugin.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import REPO, base_env, generate_corpus, summarize, write_corpus  # noqa: E402

OPENCODE = REPO / "tests/agents/node_modules/opencode-linux-x64/bin/opencode"
ADDON = REPO / "index.js"

SCRIPT = r"""
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
const [thehook, addonPath, projectDir, callsArg] = process.argv.slice(2);
const calls = Number(callsArg);
const payload = JSON.stringify({ session_id: "ses_bench", cwd: projectDir, hook_event_name: "SessionStart", source: "startup" });
const textOf = (json) => (json ? JSON.parse(json).additionalContext : null);

function viaSpawn() {
  return new Promise((resolve) => {
    let out = "";
    const child = spawn(thehook, ["retrieve", "--agent", "opencode"], { stdio: ["pipe", "pipe", "ignore"] });
    child.stdout.on("data", (d) => (out += d));
    child.on("close", () => resolve(textOf(out.trim() || null)));
    child.stdin.end(payload);
  });
}

const rssBefore = process.memoryUsage().rss;
let start = performance.now();
const addon = createRequire(import.meta.url)(addonPath);
const viaAddon = async () => textOf((await addon.retrieve(payload, { agent: "opencode", projectDir })).output);
const first = await viaAddon();
const firstMs = performance.now() - start;
const rssAfter = process.memoryUsage().rss;

const ms = { spawn: [], addon: [] };
const same = first === (await viaSpawn());
for (let i = 0; i < calls; i++) {
  for (const [name, call] of i % 2 ? [["addon", viaAddon], ["spawn", viaSpawn]] : [["spawn", viaSpawn], ["addon", viaAddon]]) {
    start = performance.now();
    const text = await call();
    ms[name].push(performance.now() - start);
    if (!text) throw new Error(`${name}: no memory in the answer`);
  }
}
console.log(JSON.stringify({ ms, firstMs, same, chars: first?.length ?? 0, rssMb: (rssAfter - rssBefore) / 1048576, versions: process.versions }));
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--binary", default=str(REPO / "target/release/thehook"))
    args = ap.parse_args()
    for what, path in [("opencode (npm install in tests/agents)", OPENCODE), ("the addon (scripts/release.sh)", ADDON)]:
        if not path.exists():
            sys.exit(f"{what} missing: {path}")
    env = base_env()
    env.update({"BUN_BE_BUN": "1", "THEHOOK_BACKGROUND": "0", "THEHOOK_NPM_BIN": args.binary})
    with tempfile.TemporaryDirectory(prefix="thehook-oc-bench-") as tmp:
        project = Path(tmp) / "project"
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        write_corpus(project, generate_corpus(args.items, seed=1))
        subprocess.run([args.binary, "-C", str(project), "reindex"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        script = Path(tmp) / "bench.mjs"
        script.write_text(SCRIPT)
        out = subprocess.run([str(OPENCODE), str(script), args.binary, str(ADDON), str(project), str(args.calls)],
                             env=env, check=True, capture_output=True, text=True, cwd=project)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    spawn, addon = summarize(result["ms"]["spawn"]), summarize(result["ms"]["addon"])
    ratio = addon["p50"] / spawn["p50"]
    report = {"items": args.items, "calls": args.calls, "spawn": spawn, "addon": addon,
              "addon_over_spawn_p50": round(ratio, 3), "addon_first_call_ms": round(result["firstMs"], 1),
              "addon_rss_mb": round(result["rssMb"], 1), "same_answer": result["same"],
              "answer_chars": result["chars"], "bun": result["versions"].get("bun")}
    out_dir = REPO / "bench/out"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "opencode_plugin.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"Session start in opencode's runtime (Bun {report['bun']}), {args.items} items, "
          f"{args.calls} calls each, in turn:\n")
    print("| way | median ms | p90 | min | max |\n|---|---:|---:|---:|---:|")
    for name, s in [("spawn `thehook retrieve`", spawn), ("addon `retrieve()` in-process", addon)]:
        print(f"| {name} | {s['p50']} | {s['p90']} | {s['min']} | {s['max']} |")
    print(f"\naddon/spawn, medians: {ratio:.3f}; the addon's first call (load, open): "
          f"{report['addon_first_call_ms']} ms and {report['addon_rss_mb']} MB more resident memory; "
          f"same answer: {report['same_answer']} ({report['answer_chars']} characters)")


if __name__ == "__main__":
    main()
