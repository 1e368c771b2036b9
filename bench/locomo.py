#!/usr/bin/env python3
"""LoCoMo retrieval benchmark for thehook.

Measures how well `thehook recall` finds the dialog turns that answer a
question, on the LoCoMo long-term conversation benchmark (Maharana et al.,
"Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL 2024;
data CC BY-NC 4.0: evaluate with it, never ship it).

How it works:

1. Each LoCoMo conversation becomes its own project folder
   (`<work>/conv-<i>/.thehook/knowledge/locomo.md`) with one top-level bullet
   per dialog turn, tagged with its date, dialog id and speaker:

       - 2023-05-08 [D1:3] Caroline: I went to a LGBTQ support group yesterday ...

   Image turns get `(shares a photo: <blip caption>)` appended. The leading
   ISO date makes it the item's date in thehook.
2. `thehook reindex` builds each project's index, but only when the knowledge
   file or the binary changed, so reruns and weight sweeps reuse the index.
3. Every question of categories 1-4 (5 is adversarial: no evidence to find) is
   asked with `thehook recall --stdin --json -k 10 --mode <mode>` in its own
   conversation's project. Hits are mapped back to dialog ids through the
   `[D<session>:<turn>]` tag in each hit's own text (hits folded into another
   hit's `duplicates` do not count, but they are tallied separately).
4. Metrics, per question then averaged: recall@k = share of the question's
   evidence turns among the top k hits; hit@k = 1 if any evidence turn is in
   the top k. Reported overall and per category for recall@5, hit@5 and
   recall@10.

Usage:

    python3 bench/locomo.py                # lexical, vector, hybrid at the default weight
    python3 bench/locomo.py --sweep        # also hybrid at THEHOOK_LEXICAL_WEIGHT 0.3 .. 0.8

Results are printed as markdown tables and written to bench/out/locomo.json
(with every question's top-10 dialog ids per run, for failure analysis).
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The data is evaluation-only (CC BY-NC 4.0) and never part of this repository:
# by default it is read from the shared folder beside the checkout.
DEFAULT_DATA = Path(os.environ.get("LOCOMO_JSON", REPO.parent / "shared" / "bench" / "locomo" / "locomo10.json"))
DEFAULT_BINARY = REPO / "target" / "release" / "thehook"
DEFAULT_WORK = REPO / "bench" / "out" / "locomo-work"
DEFAULT_OUT = REPO / "bench" / "out" / "locomo.json"

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MODES = ("lexical", "vector", "hybrid")
SWEEP_WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
K = 10  # hits asked per query; recall@5 and hit@5 use the first five

MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["january", "february", "march", "april", "may", "june", "july",
         "august", "september", "october", "november", "december"]
    )
}
DIA_ID = re.compile(r"D(\d+):(\d+)")
DIA_TAG = re.compile(r"\[(D\d+:\d+)\]")


# --------------------------------------------------------------------------
# Data preparation
# --------------------------------------------------------------------------

def iso_date(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08'."""
    m = re.search(r"(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", text)
    if not m or m.group(2).lower() not in MONTHS:
        raise ValueError(f"cannot parse session date {text!r}")
    day, month, year = int(m.group(1)), MONTHS[m.group(2).lower()], int(m.group(3))
    return f"{year:04d}-{month:02d}-{day:02d}"


def one_line(text: str) -> str:
    """Collapses all whitespace, so a turn stays one markdown list item."""
    return " ".join(str(text).split())


def knowledge_file(sample: dict) -> tuple[str, dict[int, str]]:
    """The markdown for one conversation, and line number -> dialog id."""
    conv = sample["conversation"]
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conv
        if (m := re.fullmatch(r"session_(\d+)", key)) and isinstance(conv[key], list)
    )
    lines: list[str] = []
    line_ids: dict[int, str] = {}
    for n, key in sessions:
        date = iso_date(conv[f"{key}_date_time"])
        for turn in conv[key]:
            text = one_line(turn["text"])
            if turn.get("blip_caption"):
                text += f" (shares a photo: {one_line(turn['blip_caption'])})"
            lines.append(f"- {date} [{turn['dia_id']}] {turn['speaker']}: {text}")
            line_ids[len(lines)] = turn["dia_id"]
    return "\n".join(lines) + "\n", line_ids


def normalise_evidence(raw: list, known: set[str], stats: dict) -> list[str]:
    """Cleans a question's evidence list and keeps only ids of real turns.

    Malformed entries seen in the data: 'D8:6; D9:17' and 'D9:1 D4:4 D4:6'
    (several ids in one string), 'D30:05' (leading zero), 'D', 'D:11:26'.
    Entries are split on ';' and whitespace and turn numbers lose leading
    zeros; whatever still names no turn of the conversation is skipped.
    """
    out: list[str] = []
    for entry in raw:
        parts = [p for p in re.split(r"[;\s]+", str(entry).strip()) if p]
        fixed = []
        for part in parts:
            m = DIA_ID.fullmatch(part)
            fixed.append(f"D{int(m.group(1))}:{int(m.group(2))}" if m else part)
        if fixed != [entry]:
            stats["normalised"].append(f"{entry!r} -> {fixed}")
        for dia in fixed:
            if dia not in known:
                stats["skipped"].append(dia)
            elif dia not in out:
                out.append(dia)
    return out


def load(data_path: Path, only: list[int] | None) -> tuple[list[dict], dict]:
    """Conversations with their markdown and their scorable questions."""
    samples = json.loads(data_path.read_text())
    stats = {"normalised": [], "skipped": [], "no_evidence": 0, "turns": 0,
             "questions_by_category": {}}
    convs = []
    for i, sample in enumerate(samples):
        if only is not None and i not in only:
            continue
        text, line_ids = knowledge_file(sample)
        known = set(line_ids.values())
        stats["turns"] += len(line_ids)
        questions = []
        for qa in sample["qa"]:
            cat = qa.get("category")
            if cat not in CATEGORIES:
                continue
            evidence = normalise_evidence(qa.get("evidence", []), known, stats)
            if not evidence:
                stats["no_evidence"] += 1
                continue
            key = str(cat)
            stats["questions_by_category"][key] = stats["questions_by_category"].get(key, 0) + 1
            questions.append({"question": one_line(qa["question"]), "category": cat,
                              "evidence": evidence})
        convs.append({"index": i, "sample_id": sample.get("sample_id", f"conv-{i}"),
                      "markdown": text, "line_ids": line_ids, "questions": questions})
    return convs, stats


# --------------------------------------------------------------------------
# Driving thehook
# --------------------------------------------------------------------------

def base_env() -> dict[str, str]:
    """Environment for thehook: model and ONNX Runtime from the repo's .assets
    unless the caller's environment says otherwise."""
    env = dict(os.environ)
    env.setdefault("THEHOOK_MODEL_DIR", str(REPO / ".assets" / "model"))
    env.setdefault("ORT_DYLIB_PATH", str(REPO / ".assets" / "onnxruntime" / "libonnxruntime.so.1.31.1"))
    return env


def binary_id(binary: str) -> str:
    """SHA-256 of the binary: a rebuilt binary may index differently."""
    return hashlib.sha256(Path(binary).read_bytes()).hexdigest()


def git_describe() -> str | None:
    """The repo's commit, with "-dirty" when the tree has changes."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def prepare_project(binary: str, binary_sha: str, work: Path, conv: dict, force: bool) -> float | None:
    """Writes the conversation's knowledge file and reindexes if needed.

    A stamp file beside `.thehook/` records the markdown and binary the index
    was built from; when both are unchanged the index is reused. Returns the
    reindex time in seconds, or None when the index was reused.
    """
    project = work / f"conv-{conv['index']}"
    path = project / ".thehook" / "knowledge" / "locomo.md"
    stamp_path = project / "bench-stamp.json"
    stamp = {"markdown_sha256": hashlib.sha256(conv["markdown"].encode()).hexdigest(),
             "binary_sha256": binary_sha}
    unchanged = path.exists() and path.read_text() == conv["markdown"]
    if unchanged and not force and stamp_path.exists() and json.loads(stamp_path.read_text()) == stamp:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    if not unchanged:
        path.write_text(conv["markdown"])
    start = time.perf_counter()
    proc = subprocess.run([binary, "-C", str(project), "reindex"], env=base_env(),
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"reindex of {project} failed:\n{proc.stderr}{proc.stdout}")
    # "indexed N items ..." must count one item per turn, or the markdown
    # was split or merged somewhere and the evaluation would be skewed.
    m = re.search(r"indexed (\d+) items", proc.stdout + proc.stderr)
    if m and int(m.group(1)) != len(conv["line_ids"]):
        print(f"warning: {project}: {m.group(1)} items indexed for "
              f"{len(conv['line_ids'])} turns", file=sys.stderr)
    stamp_path.write_text(json.dumps(stamp) + "\n")
    return elapsed


def recall(binary: str, work: Path, conv: dict, mode: str, weight: float | None) -> list[dict]:
    """Runs all questions of a conversation through one `recall --stdin`."""
    project = work / f"conv-{conv['index']}"
    env = base_env()
    env.pop("THEHOOK_LEXICAL_WEIGHT", None)  # None = the binary's default
    if weight is not None:
        env["THEHOOK_LEXICAL_WEIGHT"] = str(weight)
    queries = [q["question"] for q in conv["questions"]]
    proc = subprocess.run(
        [binary, "-C", str(project), "recall", "--stdin", "--json", "-k", str(K), "--mode", mode],
        input="\n".join(queries) + "\n", env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"recall in {project} failed:\n{proc.stderr}")
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if len(answers) != len(queries) or any(a["query"] != q for a, q in zip(answers, queries)):
        sys.exit(f"recall in {project}: answers do not match the {len(queries)} queries\n{proc.stderr}")
    return answers


def dia_ids_of(answer: dict, line_ids: dict[int, str]) -> tuple[list[str], list[list[str]]]:
    """Dialog ids of the hits (best first) and of what each hit folded in."""
    ranked, folded = [], []
    for hit in answer["hits"]:
        m = DIA_TAG.search(hit["text"])
        ranked.append(m.group(1) if m else "?")
        # Duplicates are citations `path:line`; the line maps to a turn.
        folded.append([line_ids.get(int(c.rsplit(":", 1)[1]), "?") for c in hit.get("duplicates", [])])
    return ranked, folded


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------

def score(evidence: list[str], ranked: list[str]) -> dict[str, float]:
    ev = set(evidence)
    return {
        "recall@5": len(ev & set(ranked[:5])) / len(ev),
        "hit@5": float(bool(ev & set(ranked[:5]))),
        "recall@10": len(ev & set(ranked[:10])) / len(ev),
    }


def aggregate(rows: list[tuple[int, dict[str, float]]]) -> dict[str, dict]:
    """Mean of each metric, overall and per category."""
    groups: dict[str, list[dict]] = {"overall": [s for _, s in rows]}
    for cat in CATEGORIES:
        groups[str(cat)] = [s for c, s in rows if c == cat]
    out = {}
    for name, scores in groups.items():
        n = len(scores)
        out[name] = {"n": n, **{m: (sum(s[m] for s in scores) / n if n else 0.0)
                                for m in ("recall@5", "hit@5", "recall@10")}}
    return out


def run(binary: str, work: Path, convs: list[dict], name: str, mode: str,
        weight: float | None, details: list[dict] | None) -> dict:
    """One configuration over all conversations: metrics and timing.

    When `details` is given (one dict per question, in order), each
    question's top-10 dialog ids are stored under its "top"[name].
    """
    rows, query_seconds, n_queries, hidden = [], 0.0, 0, 0
    qi = 0
    for conv in convs:
        start = time.perf_counter()
        answers = recall(binary, work, conv, mode, weight)
        query_seconds += time.perf_counter() - start
        n_queries += len(answers)
        for q, answer in zip(conv["questions"], answers):
            ranked, folded = dia_ids_of(answer, conv["line_ids"])
            rows.append((q["category"], score(q["evidence"], ranked)))
            # Evidence present only as a folded duplicate of a top-5 hit.
            shown = set(ranked[:5])
            behind = {d for f in folded[:5] for d in f}
            if (set(q["evidence"]) & behind) - shown:
                hidden += 1
            if details is not None:
                details[qi]["top"][name] = ranked
            qi += 1
    return {"name": name, "mode": mode, "lexical_weight": weight,
            "metrics": aggregate(rows), "query_seconds": query_seconds,
            "queries": n_queries, "evidence_hidden_in_duplicates@5": hidden}


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------

def scope_label(key: str) -> str:
    return "overall" if key == "overall" else f"{key} {CATEGORIES[int(key)]}"


def main_table(results: list[dict]) -> str:
    out = ["| category | n | mode | recall@5 | hit@5 | recall@10 |",
           "|---|---:|---|---:|---:|---:|"]
    for key in ["overall"] + [str(c) for c in CATEGORIES]:
        for r in results:
            m = r["metrics"][key]
            out.append(f"| {scope_label(key)} | {m['n']} | {r['name']} | "
                       f"{m['recall@5']:.3f} | {m['hit@5']:.3f} | {m['recall@10']:.3f} |")
    return "\n".join(out)


def sweep_table(results: list[dict]) -> str:
    cats = [str(c) for c in CATEGORIES]
    out = ["| lexical weight | recall@5 | hit@5 | recall@10 | "
           + " | ".join(f"r@5 {CATEGORIES[int(c)]}" for c in cats) + " |",
           "|---:|---:|---:|---:|" + "---:|" * len(cats)]
    for r in results:
        m = r["metrics"]
        out.append(f"| {r['lexical_weight']} | {m['overall']['recall@5']:.3f} | "
                   f"{m['overall']['hit@5']:.3f} | {m['overall']['recall@10']:.3f} | "
                   + " | ".join(f"{m[c]['recall@5']:.3f}" for c in cats) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=str(DEFAULT_BINARY), help="thehook binary (default: %(default)s)")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo10.json (default: %(default)s)")
    ap.add_argument("--work", type=Path, default=DEFAULT_WORK,
                    help="folder for the per-conversation projects; indexes are reused (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results (default: %(default)s)")
    ap.add_argument("--sweep", action="store_true",
                    help="also run hybrid at lexical weights " + ", ".join(map(str, SWEEP_WEIGHTS)))
    ap.add_argument("--modes", default=",".join(MODES), help="modes to run (default: %(default)s)")
    ap.add_argument("--conversations", help="only these conversation indices, e.g. 0,3 (for quick checks)")
    ap.add_argument("--reindex", action="store_true", help="reindex even when the knowledge file is unchanged")
    args = ap.parse_args()

    only = [int(x) for x in args.conversations.split(",")] if args.conversations else None
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            ap.error(f"unknown mode {m!r}")

    binary_sha = binary_id(args.binary)
    convs, stats = load(args.data, only)
    n_questions = sum(len(c["questions"]) for c in convs)
    print(f"LoCoMo: {len(convs)} conversations, {stats['turns']} turns, {n_questions} questions "
          f"(categories 1-4 with evidence); evidence entries normalised: {len(stats['normalised'])}, "
          f"ids skipped: {len(stats['skipped'])}, questions left without evidence: {stats['no_evidence']}")
    for n in stats["normalised"]:
        print(f"  normalised: {n}")
    if stats["skipped"]:
        print(f"  skipped: {', '.join(stats['skipped'])}")

    # Index each conversation (only where the knowledge file changed).
    print("\nreindex:")
    reindex_seconds = {}
    for conv in convs:
        t = prepare_project(args.binary, binary_sha, args.work, conv, args.reindex)
        reindex_seconds[conv["sample_id"]] = t
        print(f"  conv-{conv['index']} ({conv['sample_id']}, {len(conv['line_ids'])} turns): "
              + ("index reused" if t is None else f"{t:.1f} s"))

    details = [{"conversation": c["sample_id"], "question": q["question"], "category": q["category"],
                "evidence": q["evidence"], "top": {}} for c in convs for q in c["questions"]]
    results = [run(args.binary, args.work, convs, m, m, None, details) for m in modes]
    sweep = []
    if args.sweep:
        sweep = [run(args.binary, args.work, convs, f"hybrid w={w}", "hybrid", w, None)
                 for w in SWEEP_WEIGHTS]

    print("\n## LoCoMo retrieval (default lexical weight)\n")
    print(main_table(results))
    if sweep:
        print("\n## Hybrid, THEHOOK_LEXICAL_WEIGHT sweep\n")
        print(sweep_table(sweep))
    print("\ntiming:")
    done = [t for t in reindex_seconds.values() if t is not None]
    if done:
        print(f"  reindex: {sum(done):.1f} s for {len(done)} conversations "
              f"({sum(done) / len(done):.1f} s each)")
    for r in results + sweep:
        print(f"  {r['name']}: {r['query_seconds']:.1f} s for {r['queries']} queries "
              f"({1000 * r['query_seconds'] / max(r['queries'], 1):.1f} ms/query, process start included); "
              f"questions with evidence only in a top-5 hit's duplicates: "
              f"{r['evidence_hidden_in_duplicates@5']}")

    # Builds may run beside the benchmark; results from two binaries are void.
    if binary_id(args.binary) != binary_sha:
        print(f"\nwarning: {args.binary} changed during the run; rerun the benchmark", file=sys.stderr)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "binary": args.binary, "binary_sha256": binary_sha, "git": git_describe(),
        "data": str(args.data), "k": K,
        "data_stats": {"conversations": len(convs), "turns": stats["turns"],
                       "questions": n_questions,
                       "questions_by_category": stats["questions_by_category"],
                       "evidence_normalised": stats["normalised"],
                       "evidence_skipped": stats["skipped"],
                       "questions_without_evidence": stats["no_evidence"]},
        "reindex_seconds": reindex_seconds,
        "results": results, "sweep": sweep, "questions": details,
    }, indent=1) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
