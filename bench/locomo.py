#!/usr/bin/env python3
"""LoCoMo retrieval benchmark for thehook.

Measures how well `thehook recall` finds the dialog turns that answer a
question, on the LoCoMo long-term conversation benchmark (Maharana et al.,
"Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL 2024;
data CC BY-NC 4.0: evaluate with it, never ship it).

How it works:

1. Each LoCoMo conversation becomes its own project folder
   (`<work>/<format>/conv-<i>/.thehook/knowledge/locomo.md`) with one
   top-level bullet per dialog turn, tagged with its dialog id and speaker,
   in one of three formats (`--formats`, default all), so that no ranking
   change is tuned to one way of writing the same facts:

       date-first   - 2023-05-08 [D1:3] Caroline: I went to a LGBTQ support group ...
       tag-first    - [D1:3] (8 May, 2023) Caroline: I went to a LGBTQ support group ...
       heading      ## 2023-05-08            (one heading per session)

                    - [D1:3] Caroline: I went to a LGBTQ support group ...

   Image turns get `(shares a photo: <blip caption>)` appended. In
   date-first the date is the item's own date in thehook (a leading ISO
   date); in heading thehook dates the items under the session's heading
   (headings are not items); tag-first has it only in the text, as LoCoMo
   writes it. Every format must index
   exactly one item per turn, which is checked through `status --json`.
2. `thehook reindex` builds each project's index, but only when the knowledge
   file or the binary changed, so reruns and weight sweeps reuse the index.
3. Every question of categories 1-4 (5 is adversarial: no evidence to find) is
   asked with `thehook recall --stdin --json -k 10 --mode <mode>` in its own
   conversation's project. Hits are mapped back to dialog ids through the
   `[D<session>:<turn>]` tag in each hit's own text (hits folded into another
   hit's `duplicates` do not count, but they are tallied separately; their
   citations map through the line numbers of that format's file).
4. Metrics, per question then averaged: recall@k = share of the question's
   evidence turns among the top k hits; hit@k = 1 if any evidence turn is in
   the top k. Reported overall and per category for recall@5, hit@5 and
   recall@10, per format, then format x mode in one summary whose headline is
   the worst format's hybrid recall@5.

Usage:

    python3 bench/locomo.py                      # lexical, vector, hybrid; all three formats
    python3 bench/locomo.py --formats heading    # one format only
    python3 bench/locomo.py --sweep              # also hybrid at THEHOOK_LEXICAL_WEIGHT 0.3 .. 0.8

Results are printed as markdown tables and written to bench/out/locomo.json
(per format, with every question's top-10 dialog ids per format and run, for
failure analysis).
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
FORMATS = ("date-first", "tag-first", "heading")
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

SESSION_DATE = re.compile(r"(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})")


def session_date(text: str) -> re.Match:
    m = SESSION_DATE.search(text)
    if not m or m.group(2).lower() not in MONTHS:
        raise ValueError(f"cannot parse session date {text!r}")
    return m


def iso_date(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08'."""
    m = session_date(text)
    day, month, year = int(m.group(1)), MONTHS[m.group(2).lower()], int(m.group(3))
    return f"{year:04d}-{month:02d}-{day:02d}"


def locomo_date(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '8 May, 2023' (the date as LoCoMo writes it)."""
    return session_date(text).group(0)


def one_line(text: str) -> str:
    """Collapses all whitespace, so a turn stays one markdown list item."""
    return " ".join(str(text).split())


def knowledge_file(sample: dict, fmt: str) -> tuple[str, dict[int, str]]:
    """The markdown for one conversation in format `fmt`, and its line
    number (1-based, as thehook cites it) -> dialog id."""
    conv = sample["conversation"]
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conv
        if (m := re.fullmatch(r"session_(\d+)", key)) and isinstance(conv[key], list)
    )
    lines: list[str] = []
    line_ids: dict[int, str] = {}
    for n, key in sessions:
        when = conv[f"{key}_date_time"]
        if fmt == "heading":
            # One heading per session, even when two sessions share a date;
            # blank lines keep heading and list apart in any renderer.
            if lines:
                lines.append("")
            lines += [f"## {iso_date(when)}", ""]
        for turn in conv[key]:
            text = one_line(turn["text"])
            if turn.get("blip_caption"):
                text += f" (shares a photo: {one_line(turn['blip_caption'])})"
            tag, who = f"[{turn['dia_id']}]", f"{turn['speaker']}: {text}"
            if fmt == "date-first":
                lines.append(f"- {iso_date(when)} {tag} {who}")
            elif fmt == "tag-first":
                lines.append(f"- {tag} ({locomo_date(when)}) {who}")
            elif fmt == "heading":
                lines.append(f"- {tag} {who}")
            else:
                raise ValueError(f"unknown format {fmt!r}")
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


def load(data_path: Path, only: list[int] | None, formats: list[str]) -> tuple[list[dict], dict]:
    """Conversations with their markdown (per format) and their scorable
    questions."""
    samples = json.loads(data_path.read_text())
    stats = {"normalised": [], "skipped": [], "no_evidence": 0, "turns": 0,
             "questions_by_category": {}}
    convs = []
    for i, sample in enumerate(samples):
        if only is not None and i not in only:
            continue
        files = {fmt: knowledge_file(sample, fmt) for fmt in formats}
        known = set(files[formats[0]][1].values())
        for fmt, (_, line_ids) in files.items():
            # Every format holds the same turns, once each.
            if sorted(line_ids.values()) != sorted(known) or len(line_ids) != len(known):
                raise ValueError(f"conversation {i}: format {fmt} does not hold each turn once")
        stats["turns"] += len(known)
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
                      "turns": len(known),
                      "markdown": {fmt: text for fmt, (text, _) in files.items()},
                      "line_ids": {fmt: ids for fmt, (_, ids) in files.items()},
                      "questions": questions})
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


def prepare_project(binary: str, binary_sha: str, work: Path, conv: dict, fmt: str,
                    force: bool) -> float | None:
    """Writes the conversation's knowledge file in format `fmt` and reindexes
    if needed; `work` is that format's folder.

    A stamp file beside `.thehook/` records the markdown and binary the index
    was built from; when both are unchanged the index is reused. Either way
    the index must hold one item (with one vector) per turn. Returns the
    reindex time in seconds, or None when the index was reused.
    """
    project = work / f"conv-{conv['index']}"
    markdown = conv["markdown"][fmt]
    path = project / ".thehook" / "knowledge" / "locomo.md"
    stamp_path = project / "bench-stamp.json"
    stamp = {"markdown_sha256": hashlib.sha256(markdown.encode()).hexdigest(),
             "binary_sha256": binary_sha}
    unchanged = path.exists() and path.read_text() == markdown
    elapsed = None
    if not (unchanged and not force and stamp_path.exists()
            and json.loads(stamp_path.read_text()) == stamp):
        path.parent.mkdir(parents=True, exist_ok=True)
        if not unchanged:
            path.write_text(markdown)
        start = time.perf_counter()
        proc = subprocess.run([binary, "-C", str(project), "reindex"], env=base_env(),
                              capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"reindex of {project} failed:\n{proc.stderr}{proc.stdout}")
        stamp_path.write_text(json.dumps(stamp) + "\n")
    check_items(binary, project, conv["turns"])
    return elapsed


def check_items(binary: str, project: Path, turns: int) -> None:
    """The index must count one item and one vector per turn, or the markdown
    was split or merged somewhere (a heading became an item, two bullets one)
    and the evaluation would be skewed."""
    proc = subprocess.run([binary, "-C", str(project), "status", "--json"], env=base_env(),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"status of {project} failed:\n{proc.stderr}{proc.stdout}")
    index = json.loads(proc.stdout)["index"]
    if index["items"] != turns or index["vectors"] != turns:
        sys.exit(f"{project}: the index holds {index['items']} items and {index['vectors']} "
                 f"vectors for {turns} turns")


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
        # The hit's own line must name the same turn, or line_ids (used for
        # the duplicates below) is off, e.g. by the lines headings take.
        if line_ids.get(hit["line_start"]) != ranked[-1]:
            sys.exit(f"{hit['citation']} holds {ranked[-1]} but line_ids say "
                     f"{line_ids.get(hit['line_start'])}")
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


def run(binary: str, work: Path, convs: list[dict], fmt: str, name: str, mode: str,
        weight: float | None, details: list[dict] | None) -> dict:
    """One configuration over all conversations of one format (whose
    projects are in `work`): metrics and timing.

    When `details` is given (one dict per question, in order), each
    question's top-10 dialog ids are stored under its "top"[fmt][name].
    """
    rows, query_seconds, n_queries, hidden = [], 0.0, 0, 0
    qi = 0
    for conv in convs:
        start = time.perf_counter()
        answers = recall(binary, work, conv, mode, weight)
        query_seconds += time.perf_counter() - start
        n_queries += len(answers)
        for q, answer in zip(conv["questions"], answers):
            ranked, folded = dia_ids_of(answer, conv["line_ids"][fmt])
            rows.append((q["category"], score(q["evidence"], ranked)))
            # Evidence present only as a folded duplicate of a top-5 hit.
            shown = set(ranked[:5])
            behind = {d for f in folded[:5] for d in f}
            if (set(q["evidence"]) & behind) - shown:
                hidden += 1
            if details is not None:
                details[qi]["top"].setdefault(fmt, {})[name] = ranked
            qi += 1
    return {"format": fmt, "name": name, "mode": mode, "lexical_weight": weight,
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


def metric_columns() -> tuple[str, str]:
    """The header and alignment cells of the overall metrics and recall@5 per
    category, shared by the sweep and the summary tables."""
    cats = [str(c) for c in CATEGORIES]
    return ("recall@5 | hit@5 | recall@10 | " + " | ".join(f"r@5 {CATEGORIES[int(c)]}" for c in cats),
            "---:|---:|---:|" + "---:|" * len(cats))


def metric_cells(m: dict) -> str:
    """One result's cells for `metric_columns`."""
    cats = [str(c) for c in CATEGORIES]
    return (f"{m['overall']['recall@5']:.3f} | {m['overall']['hit@5']:.3f} | "
            f"{m['overall']['recall@10']:.3f} | " + " | ".join(f"{m[c]['recall@5']:.3f}" for c in cats))


def sweep_table(results: list[dict]) -> str:
    header, align = metric_columns()
    out = [f"| lexical weight | {header} |", f"|---:|{align}"]
    for r in results:
        out.append(f"| {r['lexical_weight']} | {metric_cells(r['metrics'])} |")
    return "\n".join(out)


def summary_table(by_format: dict[str, list[dict]]) -> str:
    """Format x mode: the overall metrics and recall@5 per category."""
    header, align = metric_columns()
    out = [f"| format | mode | {header} |", f"|---|---|{align}"]
    for fmt, results in by_format.items():
        for r in results:
            out.append(f"| {fmt} | {r['name']} | {metric_cells(r['metrics'])} |")
    return "\n".join(out)


def worst_format(by_format: dict[str, list[dict]]) -> tuple[str, str, float] | None:
    """The format whose hybrid (else last mode run) recall@5 is lowest."""
    scored = []
    for fmt, results in by_format.items():
        pick = next((r for r in results if r["name"] == "hybrid"), results[-1] if results else None)
        if pick is not None:
            scored.append((pick["metrics"]["overall"]["recall@5"], fmt, pick["name"]))
    if not scored:
        return None
    value, fmt, name = min(scored)
    return fmt, name, value


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
    ap.add_argument("--formats", default=",".join(FORMATS),
                    help="knowledge-file formats to run (default: %(default)s)")
    ap.add_argument("--conversations", help="only these conversation indices, e.g. 0,3 (for quick checks)")
    ap.add_argument("--reindex", action="store_true", help="reindex even when the knowledge file is unchanged")
    args = ap.parse_args()

    only = [int(x) for x in args.conversations.split(",")] if args.conversations else None
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            ap.error(f"unknown mode {m!r}")
    formats = [f for f in args.formats.split(",") if f]
    for f in formats:
        if f not in FORMATS:
            ap.error(f"unknown format {f!r} (known: {', '.join(FORMATS)})")
    if not formats:
        ap.error("no format to run")

    binary_sha = binary_id(args.binary)
    convs, stats = load(args.data, only, formats)
    n_questions = sum(len(c["questions"]) for c in convs)
    print(f"LoCoMo: {len(convs)} conversations, {stats['turns']} turns, {n_questions} questions "
          f"(categories 1-4 with evidence); evidence entries normalised: {len(stats['normalised'])}, "
          f"ids skipped: {len(stats['skipped'])}, questions left without evidence: {stats['no_evidence']}")
    for n in stats["normalised"]:
        print(f"  normalised: {n}")
    if stats["skipped"]:
        print(f"  skipped: {', '.join(stats['skipped'])}")

    details = [{"conversation": c["sample_id"], "question": q["question"], "category": q["category"],
                "evidence": q["evidence"], "top": {}} for c in convs for q in c["questions"]]
    by_format: dict[str, list[dict]] = {}
    sweeps: dict[str, list[dict]] = {}
    reindex_seconds: dict[str, dict] = {}
    for fmt in formats:
        work = args.work / fmt
        # Index each conversation (only where the knowledge file changed).
        print(f"\nreindex ({fmt}, {work}):")
        reindex_seconds[fmt] = {}
        for conv in convs:
            t = prepare_project(args.binary, binary_sha, work, conv, fmt, args.reindex)
            reindex_seconds[fmt][conv["sample_id"]] = t
            print(f"  conv-{conv['index']} ({conv['sample_id']}, {conv['turns']} turns = items): "
                  + ("index reused" if t is None else f"{t:.1f} s"))
        by_format[fmt] = [run(args.binary, work, convs, fmt, m, m, None, details) for m in modes]
        sweeps[fmt] = []
        if args.sweep:
            sweeps[fmt] = [run(args.binary, work, convs, fmt, f"hybrid w={w}", "hybrid", w, None)
                           for w in SWEEP_WEIGHTS]

    for fmt in formats:
        print(f"\n## LoCoMo retrieval, format {fmt} (default lexical weight)\n")
        print(main_table(by_format[fmt]))
        if sweeps[fmt]:
            print(f"\n## Hybrid, THEHOOK_LEXICAL_WEIGHT sweep, format {fmt}\n")
            print(sweep_table(sweeps[fmt]))
    print("\n## Summary: format x mode\n")
    print(summary_table(by_format))
    worst = worst_format(by_format)
    if worst:
        print(f"\nworst format: {worst[0]} {worst[1]} recall@5 = {worst[2]:.3f}")

    print("\ntiming:")
    for fmt in formats:
        done = [t for t in reindex_seconds[fmt].values() if t is not None]
        if done:
            print(f"  {fmt} reindex: {sum(done):.1f} s for {len(done)} conversations "
                  f"({sum(done) / len(done):.1f} s each)")
        for r in by_format[fmt] + sweeps[fmt]:
            print(f"  {fmt} {r['name']}: {r['query_seconds']:.1f} s for {r['queries']} queries "
                  f"({1000 * r['query_seconds'] / max(r['queries'], 1):.1f} ms/query, process start included); "
                  f"questions with evidence only in a top-5 hit's duplicates: "
                  f"{r['evidence_hidden_in_duplicates@5']}")

    # Builds may run beside the benchmark; results from two binaries are void.
    if binary_id(args.binary) != binary_sha:
        print(f"\nwarning: {args.binary} changed during the run; rerun the benchmark", file=sys.stderr)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "binary": args.binary, "binary_sha256": binary_sha, "git": git_describe(),
        "data": str(args.data), "k": K, "formats": formats,
        "data_stats": {"conversations": len(convs), "turns": stats["turns"],
                       "questions": n_questions,
                       "questions_by_category": stats["questions_by_category"],
                       "evidence_normalised": stats["normalised"],
                       "evidence_skipped": stats["skipped"],
                       "questions_without_evidence": stats["no_evidence"]},
        "worst": None if worst is None else {"format": worst[0], "mode": worst[1], "recall@5": worst[2]},
        "by_format": {fmt: {"reindex_seconds": reindex_seconds[fmt], "results": by_format[fmt],
                            "sweep": sweeps[fmt]} for fmt in formats},
        "questions": details,
    }, indent=1) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
