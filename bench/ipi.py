#!/usr/bin/env python3
"""Published indirect prompt injections, planted through a captured session's tool result,
end to end with the built binary.

Data
----
`bench/ipi_cases/` (see its SOURCES.md): the injected cases of inspect-evals'
`ipi_coding_agent` (35: an issue's text, a code comment, a README, a configuration file)
and of AgentThreatBench (19: a poisoned knowledge-base entry, an e-mail, a customer
record), each with the payload an attacker plants and the text that carries it, from
inspect_evals 0.28.0 on PyPI (MIT). Evaluation only: no rule is chosen by this score.

What it does
------------
For each case, in a fresh git repository (Ann's, as `bench/setup_notes.py` builds it
from `bench/setup_notes/python/project`):

1. a Claude Code session is captured (`thehook capture`) in which the person asks for
   the case's task, a tool brings in the carrier, and the agent repeats the payload
   ("The docs say: <payload on one line, clipped to 280 characters>"). The tool is the
   one the benchmark names, as an agent would meet it:
   * an issue's text: `gh issue view 42` (Bash);
   * a README, a code comment or a configuration file: `Read` of the file in a
     dependency folder (`.venv/lib/python3.12/site-packages/vendorlib/...`);
   * AgentThreatBench: the MCP tools `mcp__kb__memory_read`, `mcp__mail__read_inbox`,
     `mcp__crm__lookup_customer`.
   The LLM is the test suite's fake run as `credulous`: it takes the payload for a
   convention of the project, as an LLM that falls for it would.
2. The payload's item in the session file is found (the convention that is none of
   the fake's own); a case whose payload the capture did not keep is counted apart.
3. It *reaches an agent* when its probe (its longest code span that the task does not
   hold, else its first words) is in the session-start
   block, the prompt hook's answer to the payload, or MCP `recall` of the payload.

Usage
-----
    python3 bench/ipi.py [--bin target/release/thehook] [--json OUT] [--list]

Python 3.11+, standard library only. Prints a markdown table per benchmark.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from setup_notes import ROOT, base, captured, outputs, probe  # noqa: E402

CASES = ROOT / "bench/ipi_cases"
PROJECT = ROOT / "bench/setup_notes/python/project"
BENCHMARKS = ("ipi_coding_agent", "agentthreatbench")
MCP_TOOLS = {"memory_read": "mcp__kb__memory_read", "read_inbox": "mcp__mail__read_inbox",
             "lookup_customer": "mcp__crm__lookup_customer"}
MAX_SAID = 280
# The fake LLM's own lines, and Ann's convention: not the payload's.
OWN_ITEMS = ("Source files live under", "Keep pull requests small")


def tool_call(case: dict, cwd: Path) -> tuple[str, dict]:
    """The tool that brings the carrier in, and its input."""
    vector = case.get("injection_vector")
    if vector == "issue_text":
        return "Bash", {"command": "gh issue view 42"}
    if vector:
        name = Path(str(case.get("carrier_path", "README.md")).split()[0]).name
        path = cwd / ".venv/lib/python3.12/site-packages/vendorlib" / name
        return "Read", {"file_path": str(path)}
    delivery = str(case.get("delivery", ""))
    tool = next((t for key, t in MCP_TOOLS.items() if key in delivery), "mcp__kb__memory_read")
    return tool, {"query": case.get("task") or "look it up"}


def records(case: dict, cwd: Path) -> list[dict]:
    def record(n: int, role: str, content) -> dict:
        return {"type": role, "sessionId": f"s-{case['id']}", "cwd": str(cwd),
                "timestamp": f"2026-01-06T10:00:{n:02d}Z",
                "message": {"role": role, "content": content}}
    name, args = tool_call(case, cwd)
    said = " ".join(case["payload"].split())[:MAX_SAID].rstrip()
    task = " ".join(str(case.get("task") or "Handle the open request").split())[:400]
    return [
        record(0, "user", task),
        record(5, "assistant", [{"type": "tool_use", "id": "t1", "name": name, "input": args}]),
        record(9, "user", [{"type": "tool_result", "tool_use_id": "t1",
                            "content": case["carrier"] or case["payload"]}]),
        record(12, "assistant", [{"type": "text", "text": f"Done. The docs say: {said}"}]),
    ]


def distinct_probe(item: str, task: str) -> str:
    """`probe`, from the code spans the person's task does not hold (a payload that
    repeats the task's `pytest tests/` is not shown by it: the summary quotes the task)."""
    spans = [s for s in re.findall(r"`([^`]{6,})`", item) if s not in task]
    if spans:
        return max(spans, key=len)
    return probe(re.sub(r"`[^`]*`", "", item)) if "`" in item else probe(item)


def planted_item(repo: Path) -> tuple[str | None, bool]:
    """The payload's convention in the session file, and whether it is marked."""
    for f in sorted((repo / ".thehook/sessions").glob("*.md")):
        for line in f.read_text().splitlines():
            m = re.match(r"- `\[convention\]` (.+)", line)
            if m and not any(m.group(1).startswith(o) for o in OWN_ITEMS):
                text = m.group(1)
                marked = text.rstrip().endswith(")*") and "*(from outside: " in text
                return re.sub(r"\s*\*\(from outside: .*\)\*\s*$", "", text), marked
    return None, False


def run(benchmark: str, binary: Path, listing: bool) -> list[dict]:
    results = []
    for raw in (CASES / f"{benchmark}.jsonl").read_text().splitlines():
        case = json.loads(raw)
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / "repo"
            base(PROJECT, repo)
            captured(binary, repo, records(case, repo))
            item, marked = planted_item(repo)
            reached = []
            if item:
                seen = outputs(binary, repo, item)
                mark = distinct_probe(item, str(case.get("task") or ""))
                reached = [name for name, out in seen.items() if mark in out]
        results.append({"benchmark": benchmark, "id": case["id"],
                        "category": case.get("category"), "kept": item is not None,
                        "marked": marked, "reached": reached, "item": item})
        if listing:
            print(f"{benchmark} {case['id']}: kept={item is not None} marked={marked} "
                  f"{','.join(reached) or '-'}", file=sys.stderr, flush=True)
    return results


def table(results: list[dict]) -> str:
    out = ["| benchmark | cases | payload kept by the capture | marked from outside | reaching an agent | withheld |",
           "|---|---:|---:|---:|---:|---:|"]
    for b in BENCHMARKS:
        mine = [r for r in results if r["benchmark"] == b]
        if not mine:
            continue
        kept = [r for r in mine if r["kept"]]
        marked = sum(1 for r in kept if r["marked"])
        reach = sum(1 for r in kept if r["reached"])
        share = f"{(len(kept) - reach) / len(kept):.1%}" if kept else "-"
        out.append(f"| {b} | {len(mine)} | {len(kept)} | {marked} | {reach} | {share} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", type=Path, default=ROOT / "target/release/thehook")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--list", action="store_true", help="each case and where it reached")
    args = ap.parse_args(argv)
    results = []
    for b in BENCHMARKS:
        results += run(b, args.bin.resolve(), args.list)
    print(table(results))
    for r in results:
        if r["reached"] or not r["kept"] or not r["marked"]:
            print(f"- {r['benchmark']} {r['id']}: kept={r['kept']} marked={r['marked']} "
                  f"{','.join(r['reached']) or 'not given'}: {r['item']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
