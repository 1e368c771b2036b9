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
  background half and the capture worker). Then, with the memory committed
  (on a branch of its own, so the rows above see the repository unchanged):

    - approximate vector search against the exact scan: ``recall --mode
      vector -k 10`` for 40 queries built from the corpus's vocabulary, with
      and without ``THEHOOK_VECTOR_SEARCH=exact`` (recall@10, latency, RSS);
    - a second worktree (``git worktree add``) indexed by ``reindex`` from the
      embedding cache the main reindex filled (target: ready in <= 10 s);
    - a fresh clone's first session start (``retrieve``, no index yet), in 5
      clones, with what its block holds; then in the last clone the
      background half that builds the index and the 2nd-10th session starts
      (target: first start <= 150 ms, with knowledge and the latest sessions).

  The scale part uses a cache folder of its own (``THEHOOK_CACHE_DIR``, see
  scale_env), emptied before the reindex but for the optimised model, so the
  reindex embeds everything, as it always did, and fills the cache the
  second worktree reads.

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
from datetime import date, datetime, timedelta, timezone
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

# What `thehook init` writes into .thehook/.gitignore: the index and the
# machine-local state stay out of git.
THEHOOK_GITIGNORE = "failed/\nqueue/\nindex/\nlogs/\n"

# The scale part's later rows (the targets of the issue that asked for them).
TARGET_WORKTREE_READY_S = 10  # a second worktree, indexed and ready for hybrid search
TARGET_FIRST_START_MS = 150  # a fresh clone's first session start, whole process
VECTOR_QUERIES = 40  # queries of the approximate-against-exact comparison
FRESH_CLONES = 5  # fresh clones whose first session start is timed
LATER_STARTS = 9  # session starts after the background half, in the last clone
# The branch of the scale repository holding the committed memory (not
# `main`: retrieve would then read the feature branch's own commits).
MEMORY_BRANCH = "bench-memory"
# What a session start's block must hold: the latest sessions and knowledge.
LEFT_OFF = "Where you left off"
KNOWLEDGE_HEADINGS = ("## Conventions", "## Decisions", "## Gotchas")
# Queries of the vector comparison, filled like the corpus's items
# (speed._fill) with the corpus's own topics; the first is how make_session
# titles a session.
VECTOR_QUERY_TEMPLATES = [
    "{topic} in {lib}",
    "why is {topic} {adj}",
    "how do we {verb} {topic} with {lib}",
    "{topic} and {topic2} in {path}",
    "who owns {topic}",
]

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
    (origin / ".thehook" / ".gitignore").write_text(THEHOOK_GITIGNORE)
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


def scale_env(work: Path, name: str) -> dict[str, str]:
    """model_env() with a cache folder of the scale part's own,
    `scale/cache-<name>`, holding nothing but the optimised model when the
    part starts: the reindex then embeds every item, as it did before
    thehook kept embeddings in the cache, and fills the cache the second
    worktree reads (with the user's cache, a second run of this benchmark
    would time a reindex from the cache). The optimised model ONNX Runtime
    saved in model_env()'s cache is copied in once, so that the reindex does
    not pay for making it again."""
    env = model_env()
    cache = work / "scale" / f"cache-{name}"
    cache.mkdir(parents=True, exist_ok=True)
    for p in cache.iterdir():
        if p.name == "optimized":
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()
    user = Path(env["THEHOOK_CACHE_DIR"]) / "optimized"
    if user.is_dir() and user.resolve() != (cache / "optimized").resolve():
        (cache / "optimized").mkdir(exist_ok=True)
        for f in user.iterdir():
            dst = cache / "optimized" / f.name
            if f.is_file() and not dst.exists():
                tmp = dst.with_name(dst.name + ".copying")
                shutil.copy2(f, tmp)
                tmp.rename(dst)
    env.pop("THEHOOK_EMBEDDING_CACHE", None)  # speed.base_env() turns it off
    return {**env, "THEHOOK_CACHE_DIR": str(cache)}


def commit_memory(root: Path, expect_sessions: int) -> dict:
    """Commits the scale repository's memory, as a team's is, without
    touching what the rows before measured: the commit (HEAD plus
    `.thehook/sessions/` and `.thehook/knowledge/`, the `.thehook/.gitignore`
    `thehook init` writes, and a top-level `.gitignore` that no longer
    ignores `.thehook/`) is built in a separate git index and becomes the
    branch MEMORY_BRANCH; HEAD, the checked-out branch, git's own index and
    the working tree stay as they are. `.thehook/index/`, `logs/`, `queue/`
    and `failed/` are not committed. Returns the commit and what it holds."""
    tmp_index = root / ".git" / "bench-memory-index"
    tmp_index.unlink(missing_ok=True)
    genv = {**GIT_ENV, "GIT_INDEX_FILE": str(tmp_index)}

    def g(*args: str, stdin: str | None = None) -> str:
        return subprocess.run(["git", "-C", str(root), *args], env=genv, check=True,
                              capture_output=True, text=True, input=stdin).stdout.strip()

    try:
        g("read-tree", "HEAD")
        # -f: the working tree's .gitignore (speed.make_git_context's) ignores .thehook/.
        g("add", "-f", "--", ".thehook/sessions", ".thehook/knowledge")
        for rel, text in {".gitignore": "bench-home/\n", ".thehook/.gitignore": THEHOOK_GITIGNORE}.items():
            blob = g("hash-object", "-w", "--stdin", stdin=text)
            g("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}")
        tree = g("write-tree")
    finally:
        tmp_index.unlink(missing_ok=True)
    commit = g("commit-tree", tree, "-p", "HEAD", "-m", "Add the project memory")
    g("update-ref", f"refs/heads/{MEMORY_BRANCH}", commit)
    names = g("ls-tree", "-r", "--name-only", commit, "--", ".thehook").splitlines()
    sessions = sum(1 for n in names if n.startswith(".thehook/sessions/"))
    knowledge = sum(1 for n in names if n.startswith(".thehook/knowledge/"))
    local = [n for n in names if n.split("/")[1] in ("index", "logs", "queue", "failed")]
    if sessions != expect_sessions or knowledge != 4 or local:
        sys.exit(f"{root}: the memory commit holds {sessions} session files (expected "
                 f"{expect_sessions}), {knowledge} knowledge files and {len(local)} local files")
    return {"branch": MEMORY_BRANCH, "commit": commit, "session_files": sessions,
            "knowledge_files": knowledge, "thehook_files": len(names)}


def vector_queries(topics: list[str], seed: int, n: int = VECTOR_QUERIES) -> list[str]:
    """`n` queries from VECTOR_QUERY_TEMPLATES, filled with `topics` and
    speed.py's vocabulary as the corpus's items are. Same arguments -> same
    queries."""
    rng = random.Random(f"thehook-team-v{TEAM_CORPUS_VERSION}-{seed}-vector-queries")
    return [speed._fill(rng, VECTOR_QUERY_TEMPLATES[i % len(VECTOR_QUERY_TEMPLATES)], date(2025, 1, 6), topics)
            for i in range(n)]


def measure_vector_recall(binary: str, root: Path, env: dict[str, str], queries: list[str]) -> dict:
    """Approximate vector search against the exact scan. Every query runs
    `recall "<query>" --mode vector -k 10 --json` twice: as is (large indexes
    search arroy's trees, approximately) and with THEHOOK_VECTOR_SEARCH=exact
    (the query is compared with every stored vector). recall@10 of a query is
    |approximate top 10 ∩ exact top 10| / |exact top 10|, by the hits' ids.
    The two modes alternate which runs first; one untimed warm-up each. A
    binary that does not know the variable searches the same way twice
    (recall@10 1.0)."""
    envs = {"approximate": {k: v for k, v in env.items() if k != "THEHOOK_VECTOR_SEARCH"},
            "exact": {**env, "THEHOOK_VECTOR_SEARCH": "exact"}}

    def once(query: str, mode: str) -> tuple[Run, list[str]]:
        r = checked(run([binary, "-C", str(root), "recall", query, "--mode", "vector", "-k", "10", "--json"],
                        envs[mode]), f"recall --mode vector ({mode})", (0, 1))  # 1: nothing found
        answer = json.loads(r.stdout)
        if answer["mode"] != "vector":
            sys.exit(f"recall --mode vector ran in mode {answer['mode']}; "
                     "check THEHOOK_MODEL_DIR and ORT_DYLIB_PATH")
        return r, [h.get("id") or h["citation"] for h in answer["hits"]]

    for mode in envs:
        once(queries[0], mode)
    samples: dict[str, list[Run]] = {mode: [] for mode in envs}
    per_query = []
    meter = speed.CpuMeter()
    for i, query in enumerate(queries):
        hits = {}
        for mode in (list(envs) if i % 2 == 0 else list(reversed(envs))):
            r, hits[mode] = once(query, mode)
            samples[mode].append(r)
        exact, approx = hits["exact"], hits["approximate"]
        per_query.append({
            "query": query, "exact_hits": len(exact), "approximate_hits": len(approx),
            "recall_at_10": round(len(set(exact) & set(approx)) / len(exact), 3) if exact else None,
            "same_order": exact == approx,
        })
    other = meter.other_share()
    overlaps = [q["recall_at_10"] for q in per_query if q["recall_at_10"] is not None]
    out = {
        "queries": len(queries), "k": 10,
        "recall_at_10": {"mean": round(sum(overlaps) / len(overlaps), 3) if overlaps else None,
                         "min": min(overlaps, default=None),
                         "below_1": sum(1 for x in overlaps if x < 1)},
        "same_top10_in_order": sum(1 for q in per_query if q["same_order"]),
        "empty_exact": sum(1 for q in per_query if not q["exact_hits"]),
        "modes": {mode: series(rs) for mode, rs in samples.items()},
        "other_cpu_share": other,
        "per_query": per_query,
    }
    log(f"  vector recall@10: mean {out['recall_at_10']['mean']}, min {out['recall_at_10']['min']}; "
        + ", ".join(f"{m} p50 {s['wall_ms']['p50']} ms" for m, s in out["modes"].items()))
    return out


def remove_worktree(root: Path, wt: Path) -> None:
    """Removes the worktree `wt` of `root` (from an earlier run), if any."""
    if wt.exists():
        subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", "--force", str(wt)],
                       env=GIT_ENV, capture_output=True)
        shutil.rmtree(wt, ignore_errors=True)
    git(root, "worktree", "prune")


def measure_second_worktree(binary: str, root: Path, wt: Path, env: dict[str, str], n_items: int,
                            quiet_s: float) -> dict:
    """A second worktree of the scale repository, as a developer adds one
    for a parallel task: `git worktree add --detach` of the memory commit,
    then `reindex --json` in it, one whole-process run, with the cache the
    main reindex filled (items whose vector came from it: the report's
    `cached`, when the binary gives it). Then `status --json` there: it is
    ready for hybrid search once every item has its vector. As for the
    clones of the pull part, the reindex starts 2.1 s after the checkout (an
    mtime younger than 2 s is not trusted)."""
    remove_worktree(root, wt)
    git(root, "worktree", "add", "-q", "--detach", str(wt), MEMORY_BRANCH)
    time.sleep(2.1)
    speed.wait_quiet(quiet_s)
    meter = speed.CpuMeter()
    r = checked(run([binary, "-C", str(wt), "reindex", "--json"], env), "reindex in the second worktree")
    other = meter.other_share()
    report = json.loads(r.stdout.strip().splitlines()[-1])
    if report["items"] != n_items:
        sys.exit(f"reindex in the second worktree found {report['items']} items, the corpus has {n_items}: {wt}")
    st = status(binary, wt, env)["index"]
    ready = st["vectors"] == st["items"]
    out = {
        "path": str(wt),
        "wall_s": round(r.wall_ms / 1000, 3), "cpu_s": round(r.cpu_ms / 1000, 3),
        "peak_rss_mb": round(r.maxrss_mb, 1), "other_cpu_share": other,
        "items": report["items"], "embedded": report.get("embedded"), "cached": report.get("cached"),
        "seconds": report.get("seconds"), "embeddings": report.get("embeddings"),
        "report": report,
        "status": {k: st[k] for k in ("items", "files", "vectors")},
        "ready": ready,
        "target_s": TARGET_WORKTREE_READY_S,
        "ok": ready and r.wall_ms / 1000 <= TARGET_WORKTREE_READY_S,
    }
    log(f"  second worktree: reindex {out['wall_s']} s, {out['peak_rss_mb']} MB, embedded {out['embedded']}, "
        f"cached {out['cached']}; {st['vectors']:,} vectors of {st['items']:,} items")
    return out


def session_start(binary: str, clone: Path, env: dict[str, str]) -> tuple[Run, dict]:
    """One `retrieve --agent claude-code` (session start) in `clone`, and
    what its block holds: the latest sessions (LEFT_OFF) and which of the
    knowledge sections (KNOWLEDGE_HEADINGS)."""
    r = checked(run([binary, "-C", str(clone), "retrieve", "--agent", "claude-code"], env,
                    speed.hook_payload(clone, "SessionStart")), f"retrieve in {clone.name}")
    try:
        text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    except (json.JSONDecodeError, KeyError, TypeError):
        text = ""
    hooks_log = clone / ".thehook" / "logs" / "hooks.log"
    return r, {
        "wall_ms": round(r.wall_ms, 1), "peak_rss_mb": round(r.maxrss_mb, 1),
        "context_chars": len(text), "left_off": LEFT_OFF in text,
        "knowledge": [h for h in KNOWLEDGE_HEADINGS if h in text],
        "stdout_head": "" if text else r.stdout[:300],
        "stderr": r.stderr.strip()[:300],
        # `<time> retrieve claude-code: 8 items, ..., hybrid (17 ms)`: what it did.
        "log": last_hook_log(clone).split(" ", 1)[-1] if hooks_log.exists() else None,
    }


def measure_fresh_clone(binary: str, root: Path, work: Path, name: str, env: dict[str, str],
                        quiet_s: float) -> dict:
    """A teammate's fresh clone: `git clone` (local) of the memory branch,
    renamed `main` as a clone's branch is, FRESH_CLONES times, each removed
    before the next. In each, the first session start (`retrieve`, the
    hooks' environment of measure_hooks: THEHOOK_BACKGROUND=0, HOME in the
    clone), whole process, with no index yet: what it costs, and whether its
    block holds the latest sessions and knowledge. In the last clone only,
    then: the background half (`retrieve --background`, which builds the
    index; the cache is warm) and LATER_STARTS more session starts, the 2nd
    to the 10th. As prepare_clone does, each clone waits 2.1 s and runs
    `git status` before the first start (an mtime younger than 2 s is not
    trusted; git's stat cache is refreshed once)."""
    paths = [work / f"clone-{name}-{i}" for i in range(FRESH_CLONES)]
    for p in paths:
        shutil.rmtree(p, ignore_errors=True)
    firsts: list[Run] = []
    first_info = []
    clone, cenv = paths[-1], env
    for i, clone in enumerate(paths):
        if i:
            shutil.rmtree(paths[i - 1])
        git(root, "clone", "-q", "--branch", MEMORY_BRANCH, str(root), str(clone))
        git(clone, "branch", "-q", "-m", "main")
        time.sleep(2.1)
        git(clone, "status", "--porcelain")
        cenv = {**env, "THEHOOK_BACKGROUND": "0", "HOME": str(clone / "bench-home")}
        speed.wait_quiet(quiet_s)
        r, info = session_start(binary, clone, cenv)
        firsts.append(r)
        first_info.append(info)
        log(f"  fresh clone {i + 1}/{FRESH_CLONES}: first start {info['wall_ms']:.0f} ms, "
            f"{info['peak_rss_mb']} MB, left off {info['left_off']}, knowledge {info['knowledge']}")
    # The last clone: the background half of that first start, then later starts.
    bg = checked(run([binary, "-C", str(clone), "retrieve", "--background", "--agent", "claude-code"], cenv),
                 "retrieve --background in the fresh clone")
    bg_log = last_hook_log(clone).split(" ", 1)[-1]
    later: list[Run] = []
    later_info = []
    for _ in range(LATER_STARTS):
        r, info = session_start(binary, clone, cenv)
        later.append(r)
        later_info.append(info)
    st = status(binary, clone, cenv)["index"]
    with_both = sum(1 for x in first_info if x["left_off"] and x["knowledge"])
    first = series(firsts)
    out = {
        "clones": FRESH_CLONES, "branch": "main",
        "first": first, "first_starts": first_info,
        "first_with_left_off": sum(1 for x in first_info if x["left_off"]),
        "first_with_knowledge": sum(1 for x in first_info if x["knowledge"]),
        "first_with_both": with_both,
        "background": {"wall_s": round(bg.wall_ms / 1000, 3), "cpu_s": round(bg.cpu_ms / 1000, 3),
                       "peak_rss_mb": round(bg.maxrss_mb, 1), "log": bg_log},
        "later_ms": [round(r.wall_ms, 1) for r in later],
        "later_starts": later_info,
        "second_ms": round(later[0].wall_ms, 1), "tenth_ms": round(later[-1].wall_ms, 1),
        "later_peak_rss_mb": round(max(r.maxrss_mb for r in later), 1),
        "status_after": {k: st[k] for k in ("items", "files", "vectors")},
        "target_ms": TARGET_FIRST_START_MS,
        "ok": first["wall_ms"]["p50"] <= TARGET_FIRST_START_MS and with_both == FRESH_CLONES,
    }
    log(f"  fresh clone: background {out['background']['wall_s']} s, 2nd start {out['second_ms']} ms, "
        f"10th {out['tenth_ms']} ms")
    return out


def measure_scale(binary: str, work: Path, args: argparse.Namespace) -> dict:
    """The scale part (see the docstring at the top): the corpus, its
    reindex, recall and the hooks, then, with the memory committed, the
    vector search comparison, a second worktree and fresh clones."""
    name = f"d{args.devs}x{args.days}x{args.per_day}"
    root = work / "scale" / name
    log(f"scale: generating {args.devs} devs x {args.days} days x {args.per_day} sessions")
    out = in_child(write_history, root, args.devs, args.days, args.per_day, args.seed)
    if out["files_written"]:
        time.sleep(2.1)  # let the written files' mtimes settle (see prepare_clone)
    n_items = out["items"]
    # measure_hooks sets HOME and THEHOOK_BACKGROUND itself; every command of
    # the part shares the one cache folder.
    env = scale_env(work, name)
    out["cache_dir"] = env["THEHOOK_CACHE_DIR"]
    log(f"scale: reindex {n_items:,} items in {out['files']:,} files")
    # From an empty index folder: an LMDB file never shrinks, so a reindex
    # in place would report the size of the largest index it ever held.
    shutil.rmtree(root / ".thehook" / "index", ignore_errors=True)
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
    # The rows below need the memory in git (a worktree, a clone).
    out["memory_commit"] = commit_memory(root, out["session_files"])
    log(f"scale: vector search, approximate against exact, {VECTOR_QUERIES} queries")
    speed.wait_quiet(args.wait_quiet)
    topics = sorted({t for d in range(args.devs) for t in make_developer(d, args.seed).topics})
    out["vector_recall"] = measure_vector_recall(binary, root, env, vector_queries(topics, args.seed))
    log("scale: second worktree, reindex from the embedding cache")
    out["second_worktree"] = measure_second_worktree(binary, root, work / "scale" / f"wt-{name}", env,
                                                     n_items, args.wait_quiet)
    log(f"scale: fresh clones' first session start, {FRESH_CLONES} clones")
    out["fresh_clone"] = measure_fresh_clone(binary, root, work / "scale", name, env, args.wait_quiet)
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
    return lines + render_scale_new(s)


def render_scale_new(s: dict) -> list[str]:
    """The rows with the memory committed: vector search, a second worktree,
    fresh clones, and their targets."""
    v, wt, fc = s["vector_recall"], s["second_worktree"], s["fresh_clone"]
    r10, modes = v["recall_at_10"], v["modes"]
    ok = lambda b: "yes" if b else "**NO**"  # noqa: E731
    mode_line = lambda m: (f"p50 {modes[m]['wall_ms']['p50']} ms (p90 {modes[m]['wall_ms']['p90']}), "  # noqa: E731
                           f"peak RSS {modes[m]['peak_rss_mb']} MB")
    num = lambda x: "–" if x is None else f"{x:,}"  # noqa: E731
    cached = "not reported by this binary" if wt["cached"] is None else num(wt["cached"])
    extra = {k: val for k, val in wt["report"].items()
             if k not in ("items", "embedded", "cached", "seconds", "embeddings", "files", "warnings")}
    st, fs, f = wt["status"], fc["first_starts"], fc["first"]["wall_ms"]
    fst = fc["status_after"]
    lines = [
        "",
        f"With the memory committed (branch `{s['memory_commit']['branch']}`: "
        f"{s['memory_commit']['thehook_files']:,} files of `.thehook/`; embedding cache `{s['cache_dir']}`):",
        "",
        f"- **Approximate vector search against the exact scan** (`recall --mode vector -k 10 --json`, "
        f"{v['queries']} queries, without and with `THEHOOK_VECTOR_SEARCH=exact`): recall@10 mean "
        f"**{r10['mean']}**, min {r10['min']} ({r10['below_1']} queries below 1.0; "
        f"{v['same_top10_in_order']} with the same top 10 in the same order; "
        f"{v['empty_exact']} with no exact hit). Approximate: {mode_line('approximate')}; "
        f"exact: {mode_line('exact')}. Other CPU {speed.pct(v['other_cpu_share'])}.",
        f"- **Second worktree: reindex from the embedding cache** (`git worktree add`, then `reindex --json` "
        f"there): {wt['wall_s']:.2f} s whole process ({wt['seconds'] or 0:.2f} s by its own timer), "
        f"{wt['cpu_s']:.2f} CPU s, peak RSS {wt['peak_rss_mb']} MB; {wt['items']:,} items, "
        f"{num(wt['embedded'])} embedded, cached: {cached}"
        + (f"; also reported: {', '.join(f'`{k}`: {val}' for k, val in extra.items())}" if extra else "")
        + f". `status --json`: {st['vectors']:,} vectors of {st['items']:,} items "
        f"({'ready' if wt['ready'] else 'not ready'} for hybrid search).",
        f"- **Fresh clone's first session start** (`git clone`, then `retrieve`, no index yet; "
        f"{fc['clones']} clones): p50 **{f['p50']} ms** (min {f['min']}, max {f['max']}), "
        f"peak RSS {fc['first']['peak_rss_mb']} MB, block of {min(x['context_chars'] for x in fs):,}-"
        f"{max(x['context_chars'] for x in fs):,} chars; \"{LEFT_OFF}\" in {fc['first_with_left_off']} of "
        f"{fc['clones']}, knowledge ({', '.join(sorted({h for x in fs for h in x['knowledge']})) or 'none'}) "
        f"in {fc['first_with_knowledge']} of {fc['clones']}. Logged: "
        + "; ".join(f"`{x}`" for x in sorted({re.sub(r' \(\d+ ms\)$', '', x['log'] or '-') for x in fs})) + ".",
        f"- In the last clone: the background half (`retrieve --background`, builds the index) "
        f"{fc['background']['wall_s']:.2f} s, peak RSS {fc['background']['peak_rss_mb']} MB "
        f"(`{fc['background']['log']}`); then the 2nd session start {fc['second_ms']} ms, the 10th "
        f"{fc['tenth_ms']} ms (2nd-10th: {', '.join(f'{x:.0f}' for x in fc['later_ms'])} ms; peak RSS "
        f"{fc['later_peak_rss_mb']} MB; last logged `{fc['later_starts'][-1]['log']}`). Index then: "
        f"{fst['items']:,} items, {fst['vectors']:,} vectors.",
    ]
    odd = [x for x in fs if not x["context_chars"]]
    if odd:
        said = ", ".join(f"{k} `{odd[0][k]}`" for k in ("stdout_head", "stderr") if odd[0][k])
        lines.append(f"- {len(odd)} of {fc['clones']} first starts printed no context"
                     + (f": {said}." if said else " (nothing on stdout or stderr, exit code 0)."))
    lines += [
        "",
        "| target | measured | ok |",
        "|---|---:|---|",
        f"| second worktree: reindex from the embedding cache, ready in <= {wt['target_s']} s "
        f"| {wt['wall_s']:.2f} s, {st['vectors']:,}/{st['items']:,} vectors | {ok(wt['ok'])} |",
        f"| fresh clone: first session start <= {fc['target_ms']} ms (p50), with knowledge and the latest "
        f"sessions | {f['p50']} ms, both in {fc['first_with_both']} of {fc['clones']} | {ok(fc['ok'])} |",
    ]
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
