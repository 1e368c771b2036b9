#!/usr/bin/env python3
"""Team benchmark for thehook: memory shared through git.

Two parts, whole-process timings of the release binary as in bench/speed.py
(whose helpers this script imports):

* ``pull``: a teammate's clone after ``git pull`` brought new sessions.
  A project of ``--pull-items`` items (speed.py's corpus) is committed in a
  git repository "origin", followed by eight code commits; clone B is fully
  indexed (``thehook reindex``, real model) and its session-start caches are
  filled (one ``retrieve --background``). Then origin gets ``--pull-new`` new
  session files (generated like speed.py's, dated after the existing ones,
  named as thehook names captures) in one commit, and B pulls it. One of the
  new sessions holds a planted gotcha that nothing else mentions, which the
  recall query asks about. Measured, each from a fresh post-pull state:

    - (a) time to first answer: ``recall "<query>" --json`` right after the
          pull; it syncs the new files (embedding their items) before it
          answers. Also recorded: whether the planted item is among the hits.
    - (c) ``recall`` again, after (a): the first one after (a), then later
          ones. thehook does not trust an mtime younger than 2 s when it
          indexes a file (it stores none and reads the file again next time),
          so the first recall after (a) may read the 200 files again.
    - (d) ``retrieve`` (session start) once the index is synced.
    - (b) ``retrieve`` right after the pull, in a separate post-pull state:
          it syncs the new files lexically (no model) before it answers.

  and before the pull, as the baseline: ``recall`` and ``retrieve``. The
  ``THEHOOK_EMBEDDINGS`` default (unset: the real model) is measured, and
  ``THEHOOK_EMBEDDINGS=off`` in a second clone for comparison.

  The cycle is repeated ``--pull-runs`` times. To reset, B's ``.thehook/index/``
  is restored from a copy saved before the pull and ``git reset --hard``
  returns to the pre-pull commit: that only removes the new files, so the
  pre-pull files keep their (size, mtime_ns), by which thehook tells changed
  files (checked every cycle). The pull commit is fetched once before the
  cycles, so every ``git pull`` is a local fast-forward.

* ``scale``: a year of a team: ``--devs`` developers x ``--per-day`` sessions
  a day x ``--days`` days (10 x 2 x 365 = 7,300 session files), each
  developer with branch names and topics of their own, sessions of 4-8 items,
  plus the four knowledge files holding another 10% of the items. Measured:
  ``reindex`` (1 run: seconds, items/s, peak RSS), the index's size on disk,
  the item count ``status --json`` reports, ``recall`` hybrid and
  ``--mode lexical`` (``--runs`` runs each, interleaved), and the session hooks
  as speed.py measures them (``retrieve`` cold and warm, ``capture``, the
  background half and the capture worker).

The session hooks run with ``THEHOOK_BACKGROUND=0`` (the detached half of
retrieve is not started, so it does not overlap the next run) and a Claude
Code SessionStart payload on stdin. Timings are from just before the spawn to
the return of ``os.wait4``, which also gives the child's peak RSS.

Usage:
    python3 bench/team.py --bin /tmp/team-bench/thehook          # full size
    python3 bench/team.py --parts pull --pull-items 1000 --pull-new 20 --pull-runs 3
    python3 bench/team.py --parts scale --devs 2 --days 10 --runs 3
    python3 bench/team.py --wait-quiet 1800    # on a shared machine: wait for quiet

Output: a markdown report on stdout, JSON in bench/out/team.json.
Python 3.11+, standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
import speed  # noqa: E402  (the helpers: corpus, running, statistics)
from speed import Run, run, summarize  # noqa: E402

# Version of this script's generators (the team history, the pulled
# sessions), recorded in the JSON and mixed into their seeds. 2: items are
# counted without the session files' `files:` list (it made the knowledge
# files a third larger and the count disagree with the index's).
TEAM_CORPUS_VERSION = 2

# The planted fact of the pulled sessions: no other item says "quokka", so
# the query finds it only once the new files are indexed.
PLANTED_ITEM = ("`[gotcha]` The quokka ledger export counts refunds twice when Stripe retries "
                "the same webhook; dedupe on the event id in `src/billing/stripe.ts`.")
PULL_QUERY = "why does the quokka ledger export count refunds twice"

# Code commits on origin after the memory commit: the last eight commits are
# the context retrieve searches with, so before the pull it holds code only.
CODE_COMMITS = speed.CONTEXT_COMMITS + [
    ("src/billing/stripe.ts", "Retry Stripe webhooks with backoff"),
    ("src/lib/dates.ts", "Parse invoice dates as UTC"),
    ("src/jobs/queue.ts", "Move email sending to the job queue"),
    ("config/default.yaml", "Raise the upload size limit"),
]

# Developers of the scale part (more than these are named Dev11, Dev12...).
DEV_NAMES = speed.PEOPLE + ["Ines", "Jonas"]

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_CONFIG_NOSYSTEM": "1"}


def log(msg: str) -> None:
    print(f"[team] {msg}", file=sys.stderr, flush=True)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], env=GIT_ENV, check=True,
                          capture_output=True, text=True).stdout


# ---------------------------------------------------------------------------
# Generated memory
# ---------------------------------------------------------------------------

def slug(text: str) -> str:
    """`Rate limiting in Redis` -> `rate-limiting-in-redis` (as capture names files)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].rstrip("-")


def session_path(when: datetime, text: str, taken: dict[str, str]) -> str:
    """`sessions/YYYY-MM-DD-HHmm-<slug of the title>.md`, as thehook names a
    captured session; a suffix keeps it distinct from the paths in `taken`."""
    title = re.search(r'^title: "(.*)"$', text, re.M).group(1)
    base = f".thehook/sessions/{when:%Y-%m-%d-%H%M}-{slug(title)}"
    rel, n = f"{base}.md", 2
    while rel in taken:
        rel, n = f"{base}-{n}.md", n + 1
    return rel


def count_items(files: dict[str, str]) -> int:
    """Top-level list items: every item of these generators is one `- ` line
    of the body. The front matter's `files:` list is not an item."""
    return sum(1 for text in files.values() for line in body(text).splitlines() if line.startswith("- "))


def body(text: str) -> str:
    """A markdown file without its YAML front matter (`---` to `---`)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + 5:]
    return text


def pulled_sessions(existing: dict[str, str], n: int, seed: int) -> tuple[dict[str, str], str]:
    """`n` new session files (speed.py's make_session, 10-20 items) two hours
    apart, from the day after the newest session of `existing`; the middle
    one gets the planted item. Returns the files and the planted file's path."""
    newest = max(re.search(r"^date: (\S+)$", text, re.M).group(1)
                 for rel, text in existing.items() if rel.startswith(".thehook/sessions/"))
    start = datetime.fromisoformat(newest).replace(hour=9, minute=0) + timedelta(days=1)
    rng = random.Random(f"thehook-team-v{TEAM_CORPUS_VERSION}-{seed}-pull-{n}")
    files: dict[str, str] = {}
    for i in range(n):
        when = start + timedelta(hours=2 * i)
        text = speed.make_session(rng, when, rng.randint(10, 20))
        files[session_path(when, text, existing | files)] = text
    target = list(files)[n // 2]
    # The file ends with the Gotchas section: the bullet joins it.
    files[target] += f"- {PLANTED_ITEM}\n"
    return files, target


@dataclass
class Developer:
    name: str
    topics: list[str]
    branches: list[str]
    rng: random.Random


def make_developer(d: int, seed: int) -> Developer:
    """Developer `d`: ten topics of their own (teammates' overlap by chance)
    and six branches named after them, `dana/fix-webhooks`."""
    rng = random.Random(f"thehook-team-v{TEAM_CORPUS_VERSION}-{seed}-dev{d}")
    name = DEV_NAMES[d] if d < len(DEV_NAMES) else f"Dev{d + 1}"
    topics = rng.sample(speed.TOPICS, 10)
    branches = [f"{name.lower()}/{rng.choice(['feat', 'fix', 'refactor', 'chore'])}-{slug(t)}"
                for t in topics[:6]]
    return Developer(name, topics, branches, rng)


def team_history(devs: int, days: int, per_day: int, seed: int) -> dict[str, str]:
    """The scale part's project: every developer's sessions, `per_day` a day
    spread over working hours, 4-8 items each; then the knowledge files with
    10% of all items (speed.py's share). Same arguments -> same bytes."""
    start = datetime(2025, 1, 6, tzinfo=timezone.utc)
    slot = 9 * 60 // per_day  # minutes of a 09:00-18:00 day per session
    files: dict[str, str] = {}
    for d in range(devs):
        dev = make_developer(d, seed)
        for day in range(days):
            for k in range(per_day):
                minute = 9 * 60 + k * slot + dev.rng.randrange(max(1, slot - 30))
                when = start + timedelta(days=day, minutes=minute)
                text = speed.make_session(dev.rng, when, dev.rng.randint(4, 8), dev.topics, dev.branches)
                files[session_path(when, text, files)] = text
    n_knowledge = max(4, round(count_items(files) / 9))
    rng = random.Random(f"thehook-team-v{TEAM_CORPUS_VERSION}-{seed}-knowledge")
    files.update(speed.make_knowledge(rng, n_knowledge, start.date()))
    return files


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------

def in_child(fn, *args):
    """fn(*args) in a forked child process, returning its result. Every
    child spawned from here starts with this process's peak RSS as its own
    (vfork and exec keep the high-water mark), so the large corpus is built
    where it cannot raise that floor."""
    ctx = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        return pool.submit(fn, *args).result()


def process_floor(binary: str, runs: int) -> dict:
    """`thehook --version`: what starting the binary costs, and the peak RSS
    every measured process reports at least (see in_child)."""
    env = speed.base_env()
    return series([checked(run([binary, "--version"], env), "--version") for _ in range(runs)])


def series(runs: list[Run]) -> dict:
    """Wall and CPU time statistics, peak RSS and the samples of `runs`."""
    return {
        "wall_ms": summarize([r.wall_ms for r in runs]),
        "cpu_ms": summarize([r.cpu_ms for r in runs]),
        "peak_rss_mb": round(max(r.maxrss_mb for r in runs), 1),
        "samples_ms": [round(r.wall_ms, 1) for r in runs],
    }


def checked(r: Run, what: str, ok_codes: tuple[int, ...] = (0,)) -> Run:
    if r.code not in ok_codes:
        sys.exit(f"{what} failed with exit code {r.code}:\n{r.stderr[-2000:]}")
    return r


def model_env() -> dict[str, str]:
    """speed.py's environment (model and ONNX Runtime of .assets/), with the
    cache folder named, so that it stays where it is when HOME is changed
    (the optimised model ONNX Runtime saved there is reused)."""
    env = speed.base_env()
    cache = env.get("THEHOOK_CACHE_DIR") or str(
        Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "thehook")
    return {**env, "THEHOOK_CACHE_DIR": cache}


def clone_env(extra: dict[str, str], home: Path) -> dict[str, str]:
    """model_env() for a clone: no detached background half (it would
    overlap the next run and the reset) and HOME in the work folder, so that
    the sweep finds no real transcripts."""
    return {**model_env(), "THEHOOK_BACKGROUND": "0", "HOME": str(home), **extra}


def status(binary: str, root: Path, env: dict[str, str]) -> dict:
    """`status --json` (it syncs first, like every command)."""
    return json.loads(checked(run([binary, "-C", str(root), "status", "--json"], env), "status").stdout)


def index_size(root: Path) -> dict:
    """The index folder's disk usage (allocated blocks, as du counts them)
    and data.mdb's apparent size."""
    index = root / ".thehook" / "index"
    files = [p for p in index.rglob("*") if p.is_file()]
    return {
        "du_bytes": sum(p.stat().st_blocks * 512 for p in files),
        "apparent_bytes": sum(p.stat().st_size for p in files),
        "data_mdb_bytes": (index / "data.mdb").stat().st_size,
    }


def md_stats(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every markdown file thehook indexes."""
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for sub in ("sessions", "knowledge") for p in (root / ".thehook" / sub).rglob("*.md")}


def last_hook_log(root: Path) -> str:
    """retrieve's last line in hooks.log:
    `<time> retrieve claude-code: 8 items, 2247 chars, query 78 words, hybrid (17 ms)`."""
    return (root / ".thehook" / "logs" / "hooks.log").read_text().strip().splitlines()[-1]


# ---------------------------------------------------------------------------
# Part 1: pull
# ---------------------------------------------------------------------------

# The two clones: the default (THEHOOK_EMBEDDINGS unset, the real model) and
# a lexical-only one (its index has another fingerprint, so it needs its own).
PULL_CONFIGS = {"default": {}, "embeddings off": {"THEHOOK_EMBEDDINGS": "off"}}


def make_origin(origin: Path, files: dict[str, str]) -> None:
    """A repository with the memory committed, then the code commits."""
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "-b", "main")
    speed.write_corpus(origin, files)
    # What `thehook init` writes: the index and the local state stay out of git.
    (origin / ".thehook" / ".gitignore").write_text("failed/\nqueue/\nindex/\nlogs/\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "Add the project memory")
    for path, subject in CODE_COMMITS:
        f = origin / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"// {subject}\n")
        git(origin, "add", "-A")
        git(origin, "commit", "-q", "-m", subject)


@dataclass
class Clone:
    """A teammate's clone, indexed, with what resetting it needs."""
    name: str
    root: Path
    env: dict[str, str]
    saved_index: Path
    pre_pull: str
    stats: dict[str, tuple[int, int]]

    def argv(self, binary: str, *args: str) -> list[str]:
        return [binary, "-C", str(self.root), *args]

    def reset(self) -> None:
        """Back to the pre-pull state: the commit, and the index as it was."""
        git(self.root, "reset", "-q", "--hard", self.pre_pull)
        index = self.root / ".thehook" / "index"
        shutil.rmtree(index)
        shutil.copytree(self.saved_index, index)
        if md_stats(self.root) != self.stats:
            sys.exit(f"{self.root}: the reset changed the pre-pull markdown files' size or mtime")

    def pull(self) -> Run:
        return checked(run(["git", "-C", str(self.root), "pull", "-q", "--ff-only"], GIT_ENV), "git pull")


def prepare_clone(binary: str, origin: Path, work: Path, name: str, extra: dict[str, str],
                  n_items: int, quiet_s: float) -> tuple[Clone, dict]:
    """Clones origin, indexes the clone and fills retrieve's caches. Returns
    the clone and what setting it up measured."""
    root = work / f"clone-{slug(name)}"
    git(work, "clone", "-q", str(origin), str(root))
    # thehook does not trust an mtime younger than 2 s (the file is read
    # again by the next command): wait, so the index records them as settled.
    time.sleep(2.1)
    git(root, "status", "--porcelain")  # refreshes git's own stat cache once
    env = clone_env(extra, work / "home")
    log(f"pull/{name}: reindex {n_items:,} items")
    reindex = speed.measure_reindex(binary, root, env, 1, n_items,
                                    want_embeddings=not extra, quiet_s=quiet_s)
    # The background half of an earlier session start cached the context
    # query's vector and token counts, as it would have in daily use.
    checked(run([binary, "-C", str(root), "retrieve", "--background", "--agent", "claude-code"], env),
            "retrieve --background")
    saved = work / f"saved-index-{slug(name)}"
    shutil.copytree(root / ".thehook" / "index", saved, ignore=shutil.ignore_patterns("lock.mdb"))
    clone = Clone(name, root, env, saved, git(root, "rev-parse", "HEAD").strip(), md_stats(root))
    return clone, {"reindex": reindex, "status": status(binary, root, env)["index"]}


def recall_once(binary: str, clone: Clone, expect_mode: str, target: str) -> tuple[Run, dict]:
    """One `recall PULL_QUERY --json`, with where the planted item ranked."""
    r = checked(run(clone.argv(binary, "recall", PULL_QUERY, "--json", "-k", "5"), clone.env),
                "recall", (0, 1))
    answer = json.loads(r.stdout)
    if answer["mode"] != expect_mode:
        sys.exit(f"recall ran in mode {answer['mode']}, expected {expect_mode}; "
                 "check THEHOOK_MODEL_DIR and ORT_DYLIB_PATH")
    ranks = [i + 1 for i, h in enumerate(answer["hits"]) if h["path"] == target and "quokka" in h["text"]]
    return r, {"rank": ranks[0] if ranks else None, "stderr": r.stderr.strip()}


def retrieve_once(binary: str, clone: Clone, payload: bytes) -> tuple[Run, str]:
    r = checked(run(clone.argv(binary, "retrieve", "--agent", "claude-code"), clone.env, payload), "retrieve")
    if "additionalContext" not in r.stdout:
        sys.exit(f"retrieve printed no context: {r.stdout[:200]!r} ({last_hook_log(clone.root)})")
    return r, last_hook_log(clone.root)


def measure_pull_config(binary: str, clone: Clone, target: str, runs: int, cycles: int,
                        quiet_s: float) -> dict:
    """The baseline before the pull, then `cycles` pull cycles (see the docstring)."""
    expect_mode = "lexical" if clone.env.get("THEHOOK_EMBEDDINGS") == "off" else "hybrid"
    payload = speed.hook_payload(clone.root, "SessionStart")
    s: dict[str, list[Run]] = {k: [] for k in (
        "baseline recall", "baseline retrieve", "git pull", "(a) first recall",
        "(c) next recall", "(c) later recalls", "(e) reindex --pending", "(d) retrieve, synced",
        "(b) retrieve")}
    logs: dict[str, set[str]] = {"baseline retrieve": set(), "(b) retrieve": set(),
                                 "(d) retrieve, synced": set()}
    first_ranks, next_after_s, notes = [], [], set()

    def hook_line(key: str, line: str) -> None:
        # `<time> retrieve claude-code: 8 items, ..., hybrid (17 ms)`: what it did, not when or how long.
        logs[key].add(re.sub(r" \(\d+ ms\)$", "", line.split(" ", 1)[-1]))

    log(f"pull/{clone.name}: baseline, {runs} runs")
    speed.wait_quiet(quiet_s)
    for _ in range(runs):
        s["baseline recall"].append(recall_once(binary, clone, expect_mode, target)[0])
        r, line = retrieve_once(binary, clone, payload)
        s["baseline retrieve"].append(r)
        hook_line("baseline retrieve", line)

    after: dict = {}
    meter = speed.CpuMeter()
    for i in range(cycles):
        speed.wait_quiet(quiet_s)
        # State A: the first command after the pull is a recall.
        clone.reset()
        s["git pull"].append(clone.pull())
        pulled_at = time.monotonic()
        r, found = recall_once(binary, clone, expect_mode, target)
        s["(a) first recall"].append(r)
        first_ranks.append(found["rank"])
        if found["stderr"]:
            notes.add(found["stderr"][:300])
        next_after_s.append(round(time.monotonic() - pulled_at, 2))
        s["(c) next recall"].append(recall_once(binary, clone, expect_mode, target)[0])
        s["(c) later recalls"] += [recall_once(binary, clone, expect_mode, target)[0] for _ in range(2)]
        # What the detached `reindex --pending` a deferring recall starts
        # costs (run here in the foreground: the bench's background is off).
        s["(e) reindex --pending"].append(
            checked(run(clone.argv(binary, "reindex", "--pending"), clone.env), "reindex --pending"))
        r, line = retrieve_once(binary, clone, payload)
        s["(d) retrieve, synced"].append(r)
        hook_line("(d) retrieve, synced", line)
        if i == 0:
            after = status(binary, clone.root, clone.env)["index"]
        # State B: the first command after the pull is the session start.
        clone.reset()
        clone.pull()
        r, line = retrieve_once(binary, clone, payload)
        s["(b) retrieve"].append(r)
        hook_line("(b) retrieve", line)
        log(f"  pull/{clone.name} {i + 1}/{cycles}: (a) {s['(a) first recall'][-1].wall_ms:.0f} ms "
            f"(planted item rank {found['rank']}), (c) {s['(c) next recall'][-1].wall_ms:.0f} ms, "
            f"(b) {r.wall_ms:.0f} ms")
    clone.reset()
    return {
        "other_cpu_share": meter.other_share(),
        "series": {k: series(v) for k, v in s.items()},
        "planted_item_rank_first_recall": first_ranks,
        "next_recall_s_after_pull": next_after_s,
        "retrieve_log": {k: sorted(v) for k, v in logs.items()},
        "status_after_pull": after,
        "recall_notes": sorted(notes),
    }


def measure_pull(binary: str, work: Path, args: argparse.Namespace) -> dict:
    work = work / "pull"
    if work.exists():
        shutil.rmtree(work)  # clones and indexes are rebuilt every time
    work.mkdir(parents=True)
    files = speed.generate_corpus(args.pull_items, args.seed)
    new, target = pulled_sessions(files, args.pull_new, args.seed)
    origin = work / "origin"
    log(f"pull: origin with {args.pull_items:,} items in {len(files)} files")
    make_origin(origin, files)
    out: dict = {
        "items": args.pull_items, "files": len(files),
        "new_sessions": len(new), "new_items": count_items(new),
        "planted_file": target, "query": PULL_QUERY, "configs": {},
    }
    clones = {}
    for name, extra in PULL_CONFIGS.items():
        clones[name], out["configs"][name] = prepare_clone(
            binary, origin, work, name, extra, args.pull_items, args.wait_quiet)
    # The teammates' new sessions arrive on origin, in one commit.
    speed.write_corpus(origin, files | new)
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", f"Add {len(new)} sessions")
    for name, clone in clones.items():
        git(clone.root, "fetch", "-q")
        out["configs"][name].update(
            measure_pull_config(binary, clone, target, args.runs, args.pull_runs, args.wait_quiet))
    return out


# ---------------------------------------------------------------------------
# Part 2: scale
# ---------------------------------------------------------------------------

def write_history(root: Path, devs: int, days: int, per_day: int, seed: int) -> dict:
    """Writes team_history(...) into `root` (files already right are left
    alone, keeping their mtimes) and returns what it holds."""
    files = team_history(devs, days, per_day, seed)
    written = speed.write_corpus(root, files)
    per_session = [count_items({r: t}) for r, t in files.items() if r.startswith(".thehook/sessions/")]
    return {
        "devs": devs, "days": days, "per_day": per_day,
        "session_files": len(per_session), "files": len(files), "items": count_items(files),
        "session_items": sum(per_session),
        "items_per_session": {"mean": round(sum(per_session) / len(per_session), 2),
                              "min": min(per_session), "max": max(per_session)},
        "corpus_bytes": sum(len(t.encode()) for t in files.values()),
        "files_written": written,
    }


def measure_scale(binary: str, work: Path, args: argparse.Namespace) -> dict:
    root = work / "scale" / f"d{args.devs}x{args.days}x{args.per_day}"
    log(f"scale: generating {args.devs} devs x {args.days} days x {args.per_day} sessions")
    out = in_child(write_history, root, args.devs, args.days, args.per_day, args.seed)
    if out["files_written"]:
        time.sleep(2.1)  # let the written files' mtimes settle (see prepare_clone)
    n_items = out["items"]
    env = model_env()  # measure_hooks sets HOME and THEHOOK_BACKGROUND itself
    log(f"scale: reindex {n_items:,} items in {out['files']:,} files")
    out["reindex"] = speed.measure_reindex(binary, root, env, 1, n_items, want_embeddings=True,
                                           quiet_s=args.wait_quiet)
    st = status(binary, root, env)
    out["status"] = {k: st["index"][k] for k in ("items", "files", "vectors", "size_bytes")}
    out["status"]["sessions"] = st["sessions"]
    out["index_size"] = index_size(root)
    log(f"scale: recall, {args.runs} runs x 2 configs")
    speed.wait_quiet(args.wait_quiet)
    configs = [c for c in speed.RECALL_CONFIGS if c.project == "hybrid"]
    out["recall"] = speed.measure_recall(binary, {"hybrid": root}, {c.name: {**env, **c.env} for c in configs},
                                         args.runs, configs)
    log(f"scale: session hooks, {args.runs} runs")
    speed.wait_quiet(args.wait_quiet)
    meter = speed.CpuMeter()
    out["hooks"] = speed.measure_hooks(binary, root, env, args.runs)
    out["hooks_other_cpu_share"] = meter.other_share()
    return out


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def row(name: str, r: dict) -> str:
    w = r["wall_ms"]
    return (f"| {name} | {w['n']} | {w['p50']} | {w['p90']} | {w['min']} | {w['max']} | {w['iqr']} "
            f"| {r['cpu_ms']['p50']} | {r['peak_rss_mb']} |")


TABLE_HEAD = ["| what | n | p50 | p90 | min | max | IQR | CPU p50 | peak RSS MB |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]


def render_pull(p: dict) -> list[str]:
    lines = [
        f"### pull: {p['new_sessions']} new sessions ({p['new_items']:,} items) onto "
        f"{p['items']:,} items ({p['files']} files)",
        "",
        f"Query: `recall \"{p['query']}\" --json -k 5`; the planted item is in `{p['planted_file']}`. "
        "Milliseconds, whole process.",
    ]
    for name, c in p["configs"].items():
        ranks = c["planted_item_rank_first_recall"]
        found = sum(1 for r in ranks if r)
        before, after = c["status"], c["status_after_pull"]
        re_ = c["reindex"]
        lines += [
            "", f"#### {name}" + (" (`THEHOOK_EMBEDDINGS` unset)" if name == "default" else
                                   " (`THEHOOK_EMBEDDINGS=off`, a lexical-only clone)"),
            "",
            f"Clone indexed by `reindex` in {re_['seconds']:.1f} s ({re_['items_per_s']:.0f} items/s, "
            f"{re_['peak_rss_mb']} MB). Other processes' CPU share during the cycles: "
            f"{speed.pct(c['other_cpu_share'])}.",
            "", *TABLE_HEAD,
        ]
        lines += [row(k, v) for k, v in c["series"].items()]
        p50 = {k: v["wall_ms"]["p50"] for k, v in c["series"].items()}
        lines += [
            "",
            f"- First answer after the pull: {p50['(a) first recall'] / 1000:.2f} s, "
            f"{p50['(a) first recall'] / p50['baseline recall']:.0f}x the {p50['baseline recall']} ms "
            "of a recall before it (p50s).",
            f"- Session start right after the pull: {p50['(b) retrieve']} ms against {p50['baseline retrieve']} "
            f"ms before it; once synced, {p50['(d) retrieve, synced']} ms.",
            f"- The first recall found the planted item in {found} of {len(ranks)} cycles "
            f"(ranks: {', '.join(str(r) if r else '-' for r in ranks)}).",
            f"- Index before the pull: {before['items']:,} items, {before['files']} files, "
            f"{before['vectors']:,} vectors; after the pull and the first commands: {after['items']:,} items "
            f"(+{after['items'] - before['items']:,}), {after['files']} files "
            f"(+{after['files'] - before['files']}), {after['vectors']:,} vectors "
            f"(+{after['vectors'] - before['vectors']:,}) (`status --json`).",
            f"- The next recall started {min(c['next_recall_s_after_pull'])}-"
            f"{max(c['next_recall_s_after_pull'])} s after the pull.",
        ]
        for k, v in c["retrieve_log"].items():
            lines.append(f"- {k} logged: " + "; ".join(f"`{x}`" for x in v))
        for n in c["recall_notes"]:
            lines.append(f"- The first recall said on stderr: `{n}`")
    return lines


def render_scale(s: dict) -> list[str]:
    st, ix, re_ = s["status"], s["index_size"], s["reindex"]
    ips = s["items_per_session"]
    mb = lambda b: f"{b / 2**20:,.1f} MB"  # noqa: E731
    lines = [
        f"### scale: {s['devs']} developers x {s['per_day']} sessions a day x {s['days']} days",
        "",
        f"- {s['session_files']:,} session files with {s['session_items']:,} items "
        f"({ips['mean']} per session, {ips['min']}-{ips['max']}), plus {s['items'] - s['session_items']:,} "
        f"items in the 4 knowledge files: {s['items']:,} items, {mb(s['corpus_bytes'])} of markdown.",
        f"- `reindex`: {re_['seconds']:.1f} s ({re_['runs'][0]['wall_s']:.1f} s "
        f"whole process), **{re_['items_per_s']:.0f} items/s**, {re_['cpu_s']:.1f} CPU s, "
        f"peak RSS {re_['peak_rss_mb']} MB, other CPU {speed.pct(re_['other_cpu_share'])}.",
        f"- `status --json`: {st['items']:,} items, {st['files']:,} files, {st['vectors']:,} vectors, "
        f"{st['sessions']:,} sessions; index {mb(st['size_bytes'])}.",
        f"- `.thehook/index/` on disk: {mb(ix['du_bytes'])} (du), {mb(ix['apparent_bytes'])} apparent; "
        f"data.mdb {mb(ix['data_mdb_bytes'])} apparent.",
        "", *TABLE_HEAD,
    ]
    lines += [row(f"recall, {k}", v) for k, v in s["recall"].items()]
    lines += [row(k, v) for k, v in s["hooks"].items()]
    return lines


def render(result: dict) -> str:
    m, f = result["machine"], result["process_floor"]
    lines = [
        f"## thehook in a team ({result['binary']['version']}, {m['cpu_model']}, {m['nproc']} cores)",
        "",
        f"Process floor (`thehook --version`): p50 {f['wall_ms']['p50']} ms, peak RSS {f['peak_rss_mb']} MB. "
        "A peak RSS at that value is this benchmark's own (a spawned child starts with its parent's "
        "high-water mark), so the command used at most that much.",
    ]
    if "pull" in result:
        lines += [""] + render_pull(result["pull"])
    if "scale" in result:
        lines += [""] + render_scale(result["scale"])
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", "--binary", dest="binary",
                    default=str(speed.REPO / "target" / "release" / "thehook"),
                    help="the thehook binary (default target/release/thehook; a copy is run)")
    ap.add_argument("--work", default=str(BENCH_DIR / "out" / "team-work"),
                    help="where the repositories and indexes live (default bench/out/team-work)")
    ap.add_argument("--parts", default="pull,scale", help="pull, scale or both (default pull,scale)")
    ap.add_argument("--runs", type=int, default=20,
                    help="timed runs per series at scale, and of the pull's baseline (default 20)")
    ap.add_argument("--pull-runs", type=int, default=10, help="pull cycles (default 10)")
    ap.add_argument("--pull-items", type=int, default=10_000, help="items before the pull (default 10000)")
    ap.add_argument("--pull-new", type=int, default=200, help="session files the pull brings (default 200)")
    ap.add_argument("--devs", type=int, default=10, help="developers (default 10)")
    ap.add_argument("--days", type=int, default=365, help="days of history (default 365)")
    ap.add_argument("--per-day", type=int, default=2, help="sessions per developer a day (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                    help="before each phase and pull cycle, wait up to SECONDS for other processes "
                         "to use less than 10%% of the CPU (default 0: do not wait)")
    ap.add_argument("--out", default=str(BENCH_DIR / "out" / "team.json"),
                    help="where to write the JSON (default bench/out/team.json)")
    args = ap.parse_args()

    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    if not parts or set(parts) - {"pull", "scale"}:
        sys.exit("--parts takes pull, scale or pull,scale")
    if min(args.runs, args.pull_runs, args.pull_new, args.devs, args.days, args.per_day) < 1:
        sys.exit("--runs, --pull-runs, --pull-new, --devs, --days and --per-day must be at least 1")
    given = str(Path(args.binary).resolve())
    if not os.access(given, os.X_OK):
        sys.exit(f"no executable at {given}")
    work = Path(args.work).resolve()
    env = speed.base_env()
    snapshot = speed.snapshot_binary(given, work)
    binary = str(snapshot)

    result: dict = {
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": speed.machine_info(),
        "binary": speed.binary_info(given, snapshot, env),
        "settings": {k: getattr(args, k) for k in (
            "runs", "pull_runs", "pull_items", "pull_new", "devs", "days", "per_day", "seed", "wait_quiet")}
        | {"parts": parts, "work": str(work), "corpus_version": speed.CORPUS_VERSION,
           "team_corpus_version": TEAM_CORPUS_VERSION},
    }
    started = time.monotonic()
    result["process_floor"] = process_floor(binary, args.runs)
    if "pull" in parts:
        result["pull"] = measure_pull(binary, work, args)
    if "scale" in parts:
        result["scale"] = measure_scale(binary, work, args)
    result["machine"]["loadavg_end"] = list(os.getloadavg())
    result["seconds"] = round(time.monotonic() - started, 1)
    speed.write_report(result, Path(args.out), render(result), f" ({result['seconds']:.0f} s in all)")


if __name__ == "__main__":
    main()
