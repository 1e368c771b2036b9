#!/usr/bin/env python3
"""Speed benchmark for thehook (the speed targets in docs/benchmarks.md).

Measures, with whole-process timings of the release binary:

* ``reindex`` throughput (items/s) and its peak memory, for each corpus size;
* ``recall`` latency (p50, p90, min, max, IQR) and peak memory over many runs,
  in three configurations:
    - ``hybrid``:        the default (BM25 + vectors; loads the model per call),
    - ``--mode lexical``: the same index, BM25 only (no model load) -- the
                          difference to ``hybrid`` is the cost of the model,
    - ``embeddings off``: ``THEHOOK_EMBEDDINGS=off``, a lexical-only index;
* the process floor (``thehook --version``), to see what spawning costs;
* the session hooks, whole process, with the agent's payload on stdin:
    - ``retrieve`` (session start), cold: nothing cached for this context, so
      it ranks lexically and may load the tokenizer to count the budget,
    - ``retrieve``, warm: the query vector and the token counts cached by an
      earlier session start's background half (hybrid ranking, no model load),
    - ``retrieve --background`` (the detached half: sync with the model,
      embed the context query, sweep the agents' transcript stores),
    - ``prompt`` (the prompt hook: a prompt on a subject the corpus holds,
      a new session each run, so nothing was given yet),
    - ``file`` (the file hook: Claude Code's PreToolUse for a Read of a file
      the corpus names, a new session each run, so nothing was given yet),
    - ``subagent (task kept)`` and ``subagent`` (the subagent hook: Claude
      Code's `Agent` call handing a general-purpose subagent its task, then
      the subagent's start, answered with its task's memory and a session
      start's block; a new session each run),
    - ``capture`` (session end: queue the session, start the detached
      worker, return),
    - ``capture --worker`` (the detached worker capturing one real Claude
      Code transcript with the fake LLM of the tests, which answers at once:
      thehook's own cost per session, indexing included, without the LLM's).
  The project copy is made a git repository with a few commits, so that
  retrieve has a branch, changed files and commit subjects to search with.

The corpus is synthetic and deterministic: the same ``--seed`` gives the same
bytes. It imitates what thehook stores: session files (front matter and the
four sections, 10-20 bullets each) plus the four knowledge files.

Timings are of the whole child process, measured from just before the spawn to
the return of ``os.wait4``, which also gives the child's peak RSS (ru_maxrss)
and CPU time. Runs of the recall configurations are interleaved so that
background noise spreads evenly over them. The page cache is warm (there is
one untimed warm-up run per configuration, which also syncs the index).

Usage:
    python3 bench/speed.py                      # sizes 1000,10000, 30 runs
    python3 bench/speed.py --sizes 1000 --runs 10
    python3 bench/speed.py --reindex-runs 0     # reuse the indexes in --work
    python3 bench/speed.py --breakdown          # plus a strace split of recall
    python3 bench/speed.py --wait-quiet 1800    # on a shared machine: wait for quiet

Output: a markdown report on stdout, JSON in bench/out/speed.json.
Python 3.11+, standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent

# The speed targets (2-core machine), as docs/benchmarks.md lists them.
TARGET_RECALL_P50_MS = 60  # hybrid recall, whole process, 10,000 items (issue 15)
TARGET_RECALL_RSS_MB = 150  # its peak memory
TARGET_RETRIEVE_P50_MS = 50  # session-start hook, whole process, 10,000 items
TARGET_PROMPT_P50_MS = 60  # prompt hook, whole process, 10,000 items
TARGET_FILE_P50_MS = 15  # file hook, whole process, 10,000 items (issue 35)
TARGET_CAPTURE_P50_MS = 100  # session-end hook returns
TARGET_REINDEX_ITEMS_PER_S = 100
TARGET_PEAK_RSS_MB = 400  # any command

# Version of the corpus generator, recorded in the JSON and mixed into the
# seed: bump it when the generator changes, so that results name their corpus.
CORPUS_VERSION = 2  # 2: session files record the files they changed


# ---------------------------------------------------------------------------
# Synthetic corpus
# ---------------------------------------------------------------------------
# Vocabularies of a typical web/backend project. Sentences are built from
# templates filled with these, then padded with clauses to a target length
# (8-60 words), so that BM25 sees realistic term statistics and the model sees
# realistic developer prose.

TOPICS = [
    "authentication", "session handling", "rate limiting", "database migrations",
    "connection pooling", "caching", "background jobs", "feature flags",
    "error reporting", "logging", "metrics", "tracing", "search indexing",
    "file uploads", "image resizing", "email delivery", "webhooks", "billing",
    "invoicing", "permissions", "role checks", "audit trail", "i18n",
    "date handling", "time zones", "pagination", "GraphQL resolvers",
    "REST endpoints", "websocket events", "push notifications", "CSV export",
    "PDF generation", "onboarding flow", "password reset", "OAuth login",
    "two-factor auth", "API keys", "retries", "idempotency keys", "schema validation",
    "form validation", "state management", "routing", "code splitting",
    "server-side rendering", "hydration", "dark mode", "accessibility",
    "dependency injection", "config loading", "secrets management", "CI pipeline",
    "deploy scripts", "docker images", "database seeding", "test fixtures",
    "snapshot tests", "end-to-end tests", "load testing", "memory leaks",
]

PATHS = [
    "src/auth/session.ts", "src/auth/jwt.ts", "src/api/routes/users.ts",
    "src/api/middleware/rateLimit.ts", "src/db/migrations/", "src/db/pool.ts",
    "src/jobs/queue.ts", "src/jobs/workers/email.ts", "src/lib/cache.ts",
    "src/lib/logger.ts", "src/lib/dates.ts", "src/lib/flags.ts",
    "src/components/Button.tsx", "src/components/forms/", "src/hooks/useAuth.ts",
    "src/store/slices/cart.ts", "src/pages/checkout/", "src/server/render.tsx",
    "src/graphql/resolvers/", "src/graphql/schema.graphql", "src/billing/stripe.ts",
    "src/uploads/s3.ts", "src/i18n/locales/", "config/default.yaml",
    "config/production.yaml", ".github/workflows/ci.yml", "docker/Dockerfile",
    "docker-compose.yml", "scripts/seed.ts", "scripts/deploy.sh",
    "tests/e2e/checkout.spec.ts", "tests/fixtures/users.json", "__tests__/",
    "vitest.config.ts", "tsconfig.json", "package.json", "Makefile",
    "crates/core/src/lib.rs", "crates/cli/src/main.rs", "app/models/user.rb",
    "app/services/billing.py", "internal/http/server.go", "pkg/cache/lru.go",
]

LIBS = [
    "React", "Next.js", "Vite", "vitest", "Jest", "Playwright", "Cypress",
    "Express", "Fastify", "Prisma", "Drizzle", "TypeORM", "Zod", "tRPC",
    "Redis", "PostgreSQL", "SQLite", "BullMQ", "Stripe", "Sentry",
    "OpenTelemetry", "pino", "winston", "date-fns", "Luxon", "Tailwind",
    "Redux Toolkit", "Zustand", "React Query", "Apollo", "Docker", "Terraform",
    "GitHub Actions", "pnpm", "ESLint", "Prettier", "TypeScript", "tokio",
    "serde", "axum", "sqlx", "Django", "Celery", "FastAPI", "pytest", "gin",
]

VERBS = [
    "use", "prefer", "wrap", "validate", "cache", "memoize", "retry", "batch",
    "debounce", "serialize", "normalize", "stream", "paginate", "lazy-load",
    "mock", "stub", "seed", "migrate", "index", "log", "trace", "lock",
]

ADJ = [
    "flaky", "slow", "stale", "duplicated", "missing", "silently dropped",
    "out of order", "truncated", "double-encoded", "off by one", "racy",
    "leaking", "cached too long", "timezone-shifted", "unescaped",
]

PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hiro"]
AGENTS = ["claude-code", "codex", "cursor", "gemini-cli"]
BRANCHES = ["main", "develop", "feat/billing-v2", "fix/session-expiry",
            "chore/deps", "feat/search", "refactor/db-layer", "feat/onboarding"]

# Main sentences by item type; placeholders are filled from the lists above.
TEMPLATES = {
    "summary": [
        "Worked on {topic} in `{path}` and moved the shared logic into a helper",
        "Fixed {adj} {topic} reported by {person} after the last release",
        "Refactored {topic} to {verb} requests through {lib} instead of custom code",
        "Investigated why {topic} was {adj} in staging; root cause was in `{path}`",
        "Added tests for {topic} covering the edge cases {person} listed",
        "Upgraded {lib} and updated `{path}` for the breaking changes",
        "Set up {topic} with {lib} for the new service",
    ],
    "convention": [
        "Tests for {topic} are colocated in `{path}` and run with {lib}",
        "Always {verb} {topic} through the helpers in `{path}`",
        "Name {topic} files in kebab-case and export one thing per file from `{path}`",
        "Use {lib} for {topic}; do not hand-roll it",
        "Every change to {topic} needs an entry in `{path}`",
        "Prefer {lib} over {lib2} for {topic} in new code",
        "Tests colocated in `{path}`",
    ],
    "adr": [
        "{lib} for {topic} over {lib2}, because it keeps `{path}` simple",
        "Chose to {verb} {topic} on the server rather than in the client",
        "{topic} state lives in {lib}; components read it through `{path}`",
        "JWT with refresh token rotation over server sessions for {topic}",
        "Keep {topic} behind a feature flag until {person} signs off",
        "Split {topic} out of `{path}` into its own module with a narrow interface",
    ],
    "gotcha": [
        "{lib} {verb}s {topic} silently when `{path}` is imported through a path alias",
        "{topic} is {adj} when the {lib} cache is warm; clear it before running tests",
        "`{path}` must be loaded before {lib} or {topic} breaks at startup",
        "{lib} --changed misses files imported through path aliases in `{path}`",
        "Timestamps in {topic} come back {adj} from {lib}; convert to UTC first",
        "Running {topic} tests in parallel with {lib} makes them {adj}",
        "{lib} ignores `{path}` on Windows",
    ],
    "history": [
        "{date} Migrated {topic} from {lib2} to {lib}",
        "{date} {person} rewrote {topic} in `{path}`",
        "{date} Dropped support for {lib2} in {topic}",
        "{date} Incident: {topic} was {adj} for two hours after a deploy",
    ],
    "note": [
        "{person} owns {topic}; ask before changing `{path}`",
        "Staging uses a separate {lib} instance for {topic}",
        "The {topic} dashboard is linked from `{path}`",
        "Local {topic} needs {lib} running; see `{path}`",
    ],
}

# Clauses appended until an item reaches its target length.
CLAUSES = [
    "because {lib} handles the {topic} edge cases for us",
    "see `{path}` for the details",
    "which {person} confirmed in review",
    "otherwise {topic} ends up {adj}",
    "and the same applies to {topic2}",
    "so that `{path}` stays free of {topic2} concerns",
    "after a bug where {topic2} was {adj} in production",
    "as agreed when we moved to {lib}",
    "keeping the old behaviour behind a flag for one release",
    "with a regression test in `{path}`",
    "since {lib2} made {topic2} hard to {verb}",
    "until the upstream fix in {lib} lands",
    "which only shows up on CI",
    "noted by {person} while pairing on {topic2}",
    "the {lib} docs are wrong about this",
    "check `{path}` before touching {topic2}",
    "it cost us a day on {topic2}",
    "revisit once {lib} ships its next major version",
]

# Questions a coding agent would ask at the start of a task. The timed runs
# cycle through them in order.
QUERIES = [
    "how are tests organised",
    "why did we choose JWT over server sessions",
    "what breaks when vitest runs with --changed",
    "where is rate limiting implemented",
    "how do we handle time zones in dates",
    "which library do we use for database migrations",
    "known problems with the Redis cache in tests",
    "who owns billing and Stripe integration",
    "conventions for naming React component files",
    "what happened during the last deploy incident",
]


def _fill(rng: random.Random, template: str, day: date, topics: list[str] = TOPICS) -> str:
    """Fills one template's placeholders with random vocabulary (topics from
    `topics`: bench/team.py gives each developer a few of their own)."""
    lib, lib2 = rng.sample(LIBS, 2)
    topic, topic2 = rng.sample(topics, 2)
    return template.format(
        topic=topic, topic2=topic2, lib=lib, lib2=lib2, path=rng.choice(PATHS),
        verb=rng.choice(VERBS), adj=rng.choice(ADJ), person=rng.choice(PEOPLE),
        date=day.isoformat(),
    )


def make_item(rng: random.Random, kind: str, day: date, topics: list[str] = TOPICS) -> str:
    """One memory item: a main sentence, then distinct clauses until it
    reaches a target length drawn from 8-60 words (mostly short, with a tail
    of long ones, like real notes)."""
    target = int(rng.triangular(8, 60, 12))
    text = _fill(rng, rng.choice(TEMPLATES[kind]), day, topics)
    for clause in rng.sample(CLAUSES, len(CLAUSES)):
        if len(text.split()) >= target:
            break
        text += rng.choice([", ", ", ", "; ", " — "]) + _fill(rng, clause, day, topics)
    words = text.split()
    if len(words) > 60:
        text = " ".join(words[:60]).rstrip(",;—")
        # Do not leave half a `code span`: an odd number of backticks would
        # change how the markdown parses.
        if text.count("`") % 2:
            text = text[: text.rfind("`")].rstrip(" ,;—")
    return text[0].upper() + text[1:] + "."


def generate_corpus(n_items: int, seed: int) -> dict[str, str]:
    """Returns {path relative to the project root: file text} with exactly
    `n_items` top-level list items. Same (n_items, seed) -> same bytes."""
    rng = random.Random(f"thehook-speed-v{CORPUS_VERSION}-{seed}-{n_items}")
    start = date(2025, 1, 6)

    # About 10% of the items are curated knowledge, the rest session notes.
    n_knowledge = max(4, n_items // 10)
    files = make_knowledge(rng, n_knowledge, start)

    # Sessions of 10-20 items, one or two a day; the last one takes the rest.
    remaining = n_items - n_knowledge
    session = 0
    while remaining > 0:
        size = rng.randint(10, 20)
        if remaining - size < 10:
            size = remaining
        remaining -= size
        when = datetime(2025, 1, 6, 9, tzinfo=timezone.utc) + timedelta(hours=13 * session)
        files[f".thehook/sessions/{when:%Y-%m-%d}-{session:05d}.md"] = make_session(rng, when, size)
        session += 1
    return files


def make_knowledge(rng: random.Random, n_knowledge: int, start: date) -> dict[str, str]:
    """The four knowledge files with `n_knowledge` items in all, dated over
    400 days from `start`: {path relative to the project root: file text}."""
    files: dict[str, str] = {}
    shares = {"conventions": 0.3, "architecture": 0.3, "history": 0.2, "notes": 0.2}
    kinds = {"conventions": "convention", "architecture": "adr",
             "history": "history", "notes": "note"}
    titles = {"conventions": "Conventions", "architecture": "Architecture Decisions",
              "history": "History", "notes": "Notes"}
    left = n_knowledge
    for i, (name, share) in enumerate(shares.items()):
        count = left if i == len(shares) - 1 else int(n_knowledge * share)
        left -= count
        lines = [f"# {titles[name]}", ""]
        for j in range(count):
            day = start + timedelta(days=j * 400 // max(count, 1))
            lines.append(f"- {make_item(rng, kinds[name], day)}")
        files[f".thehook/knowledge/{name}.md"] = "\n".join(lines) + "\n"
    return files


def make_session(rng: random.Random, when: datetime, size: int,
                 topics: list[str] = TOPICS, branches: list[str] = BRANCHES) -> str:
    """A session file: YAML front matter and the four sections (topics and
    branch names drawn from `topics` and `branches`)."""
    # 1-3 summary bullets, the rest spread at random over the other sections.
    n_summary = min(size, rng.randint(1, 3))
    picks = rng.choices(["convention", "adr", "gotcha"], weights=[35, 30, 35], k=size - n_summary)
    n_conv, n_adr, n_gotcha = (picks.count(k) for k in ("convention", "adr", "gotcha"))
    day = when.date()
    title = _fill(rng, "{topic} in {lib}", day, topics)
    title = title[0].upper() + title[1:]
    session_id = "%032x" % rng.getrandbits(128)
    out = [
        "---",
        f"session_id: {session_id[:8]}-{session_id[8:12]}-{session_id[12:16]}-"
        f"{session_id[16:20]}-{session_id[20:]}",
        f"agent: {rng.choice(AGENTS)}",
        f"date: {when.isoformat().replace('+00:00', 'Z')}",
        f"branch: {rng.choice(branches)}",
        f'title: "{title}"',
        "files:",
        *(f"- {f}" for f in sorted(set(rng.choices([p for p in PATHS if not p.endswith("/")], k=rng.randint(1, 4))))),
        "---",
        "",
    ]
    sections = [
        ("Session Summary", "summary", None, n_summary),
        ("Conventions Detected", "convention", "`[convention]` ", n_conv),
        ("Architecture Decisions", "adr", "`[ADR]` ", n_adr),
        ("Gotchas", "gotcha", "`[gotcha]` ", n_gotcha),
    ]
    for heading, kind, tag, count in sections:
        out += [f"## {heading}", ""]
        # An empty section stays empty: a top-level paragraph would be an item.
        for _ in range(count):
            out.append(f"- {tag or ''}{make_item(rng, kind, day, topics)}")
        out.append("")
    return "\n".join(out)


def write_corpus(root: Path, files: dict[str, str]) -> int:
    """Makes `root` hold exactly `files` (plus whatever else is in .thehook/,
    such as the index). Files whose bytes are already right are left alone, so
    their mtimes -- and so the index built from them -- stay valid. Returns the
    number of files written or removed."""
    touched = 0
    for rel, text in files.items():
        path = root / rel
        data = text.encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        touched += 1
    for sub in ("sessions", "knowledge"):
        for path in sorted((root / ".thehook" / sub).rglob("*.md")):
            if path.relative_to(root).as_posix() not in files:
                path.unlink()
                touched += 1
    return touched


def corpus_digest(files: dict[str, str]) -> str:
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + files[rel].encode("utf-8") + b"\0")
    return h.hexdigest()


# ---------------------------------------------------------------------------
# Running the binary
# ---------------------------------------------------------------------------

@dataclass
class Run:
    """One child process: wall time, CPU time (user + system, all threads),
    peak resident set size, exit code and output."""
    wall_ms: float
    cpu_ms: float
    maxrss_mb: float
    code: int
    stdout: str
    stderr: str


def run(argv: list[str], env: dict[str, str], stdin: bytes | None = None) -> Run:
    """Runs `argv` to completion. Output goes to temporary files rather than
    pipes, so that this process does nothing while the child runs; os.wait4
    returns the child's own resource usage (ru_maxrss is in KiB on Linux).
    `stdin`, if given, is read by the child from a file."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as inp:
        if stdin is not None:
            inp.write(stdin)
            inp.seek(0)
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdin=inp if stdin is not None else subprocess.DEVNULL,
                                 stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Run(
            wall_ms=wall * 1000,
            cpu_ms=(usage.ru_utime + usage.ru_stime) * 1000,
            maxrss_mb=usage.ru_maxrss / 1024,
            code=child.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def base_env() -> dict[str, str]:
    """The caller's environment, with the model and ONNX Runtime of this
    repository's .assets/ unless THEHOOK_MODEL_DIR / ORT_DYLIB_PATH are set,
    and the embedding cache off: a reindex times the model, not a read of
    vectors a run before embedded (bench/team.py's scale part turns it on
    for the second worktree)."""
    env = dict(os.environ)
    env["THEHOOK_EMBEDDING_CACHE"] = "off"
    env.setdefault("THEHOOK_MODEL_DIR", str(REPO / ".assets" / "model"))
    env.setdefault("ORT_DYLIB_PATH", str(REPO / ".assets" / "onnxruntime" / "libonnxruntime.so.1.31.1"))
    env["NO_COLOR"] = "1"
    env.pop("THEHOOK_EMBEDDINGS", None)
    env.pop("THEHOOK_LEXICAL_WEIGHT", None)
    return env


class CpuMeter:
    """How busy the machine was during a phase, apart from our own children:
    the share of all cores used by other processes (a build, another
    benchmark). Timings taken while it is high are not trustworthy."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.busy = self._busy_s()
        self.own = self._own_s()

    @staticmethod
    def _busy_s() -> float:
        # /proc/stat: cpu user nice system idle iowait irq softirq steal ...
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        user, nice, system, _idle, _iowait, irq, softirq, steal = fields
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _own_s() -> float:
        t = os.times()  # this process and its waited-for children
        return t.user + t.system + t.children_user + t.children_system

    def other_share(self) -> float | None:
        """Fraction (0-1) of all cores used by other processes since creation;
        None for phases under a second, too short for /proc/stat's 10 ms ticks."""
        wall = time.perf_counter() - self.wall
        if wall < 1.0:
            return None
        other = (self._busy_s() - self.busy) - (self._own_s() - self.own)
        return round(min(1.0, max(0.0, other / (wall * len(os.sched_getaffinity(0))))), 3)


def wait_quiet(max_wait_s: float) -> None:
    """Waits, up to `max_wait_s`, until other processes use less than 10% of
    the CPU over a 3-second window. Does nothing when `max_wait_s` is 0."""
    deadline = time.monotonic() + max_wait_s
    while max_wait_s > 0:
        meter = CpuMeter()
        time.sleep(3)
        share = meter.other_share() or 0.0
        if share < 0.10:
            return
        if time.monotonic() > deadline:
            log(f"still busy ({share:.0%} of the CPU used by others); measuring anyway")
            return
        log(f"machine busy ({share:.0%} of the CPU used by others); waiting")


def meter_max(shares: list[float | None]) -> float | None:
    known = [x for x in shares if x is not None]
    return max(known) if known else None


def summarize(values: list[float]) -> dict[str, float]:
    """p50, p90, min, max, IQR (p75 - p25) and mean, rounded to 0.1."""
    if len(values) == 1:
        v = round(values[0], 1)
        return {"n": 1, "p50": v, "p90": v, "min": v, "max": v, "iqr": 0.0, "mean": v}
    q = statistics.quantiles(values, n=20, method="inclusive")  # q[k-1] = p(5k)
    return {k: round(v, 1) for k, v in {
        "n": len(values), "p50": statistics.median(values), "p90": q[17],
        "min": min(values), "max": max(values), "iqr": q[14] - q[4],
        "mean": statistics.fmean(values),
    }.items()}


# ---------------------------------------------------------------------------
# The measurements
# ---------------------------------------------------------------------------

@dataclass
class Config:
    """One way of running recall: which project copy, extra flags, extra env,
    and the mode recall must report (hybrid silently degrades to lexical when
    the model is missing, which would make the numbers meaningless)."""
    name: str
    project: str  # "hybrid" or "lexical-only" (the two copies of the corpus)
    expect_mode: str
    flags: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


RECALL_CONFIGS = [
    Config("hybrid", "hybrid", "hybrid"),
    Config("lexical mode", "hybrid", "lexical", flags=["--mode", "lexical"]),
    Config("embeddings off", "lexical-only", "lexical", env={"THEHOOK_EMBEDDINGS": "off"}),
]

# The two project copies: an index with vectors, and a lexical-only index
# (THEHOOK_EMBEDDINGS=off changes the index fingerprint, so one copy cannot
# serve both without a rebuild on every switch).
PROJECTS = {"hybrid": {}, "lexical-only": {"THEHOOK_EMBEDDINGS": "off"}}


def log(msg: str) -> None:
    print(f"[speed] {msg}", file=sys.stderr, flush=True)


def measure_reindex(binary: str, root: Path, env: dict[str, str], runs: int, n_items: int,
                    want_embeddings: bool, quiet_s: float) -> dict:
    """Runs `reindex --json` `runs` times. Throughput is reported two ways:
    from the command's own timer (the rebuild proper) and from the whole
    process (adding start-up and exit). With `quiet_s` > 0, each run waits for
    a quiet machine, and a run during which other processes took more than
    10% of the CPU is done again (at most twice)."""
    results = []
    retries = 2 if quiet_s > 0 else 0
    while len(results) < runs:
        wait_quiet(quiet_s)
        # From an empty index folder: an LMDB file never shrinks, so
        # reindexing in place (a new model fingerprint rewrites every
        # vector) left a 157 MB file at 10,000 items where a rebuild makes
        # 30 MB, and every later hook timed on it read slower (1.21x the
        # warm session start, pair by pair).
        shutil.rmtree(root / ".thehook" / "index", ignore_errors=True)
        meter = CpuMeter()
        r = run([binary, "-C", str(root), "reindex", "--json"], env)
        other = meter.other_share() or 0.0  # short runs: too short to tell, assume quiet
        if r.code != 0:
            sys.exit(f"reindex failed ({r.code}) in {root}:\n{r.stderr}")
        report = json.loads(r.stdout.strip().splitlines()[-1])
        if report["items"] != n_items:
            sys.exit(f"reindex found {report['items']} items, the corpus has {n_items}: {root}")
        if want_embeddings and report["embedded"] + report.get("cached", 0) != n_items:
            sys.exit(f"reindex embedded {report['embedded']} of {n_items} items "
                     f"(embeddings: {report['embeddings']}); check THEHOOK_MODEL_DIR and ORT_DYLIB_PATH")
        if other > 0.10 and retries > 0:
            retries -= 1
            log(f"  reindex {root.name}: other processes took {other:.0%} of the CPU; again")
            continue
        results.append({
            "seconds": report["seconds"],
            "wall_s": round(r.wall_ms / 1000, 3),
            "cpu_s": round(r.cpu_ms / 1000, 3),
            "items_per_s": round(report["items"] / report["seconds"], 1),
            "items_per_s_wall": round(report["items"] * 1000 / r.wall_ms, 1),
            "peak_rss_mb": round(r.maxrss_mb, 1),
            "other_cpu_share": other,
            "embeddings": report["embeddings"],
            "files": report["files"],
        })
        log(f"  reindex {root.name} {len(results)}/{runs}: {results[-1]['items_per_s']} items/s, "
            f"{results[-1]['seconds']:.2f} s, {results[-1]['peak_rss_mb']} MB, other CPU {other:.0%}")
    return {
        "runs": results,
        "items_per_s": statistics.median(x["items_per_s"] for x in results),
        "items_per_s_wall": statistics.median(x["items_per_s_wall"] for x in results),
        "seconds": statistics.median(x["seconds"] for x in results),
        "cpu_s": statistics.median(x["cpu_s"] for x in results),
        "peak_rss_mb": max(x["peak_rss_mb"] for x in results),
        "other_cpu_share": meter_max([x["other_cpu_share"] for x in results]),
    }


def measure_recall(binary: str, roots: dict[str, Path], envs: dict[str, dict], runs: int,
                   configs: list[Config] = RECALL_CONFIGS) -> dict:
    """Times `recall --json` for every config, interleaved run by run, after
    one untimed warm-up each (the warm-up also syncs the index if needed)."""
    out: dict[str, dict] = {}
    samples: dict[str, list[Run]] = {c.name: [] for c in configs}

    def argv(c: Config, query: str) -> list[str]:
        return [binary, "-C", str(roots[c.project]), "recall", query, "--json", "-k", "5", *c.flags]

    for c in configs:
        w = run(argv(c, QUERIES[0]), envs[c.name])
        out[c.name] = {"warmup_ms": round(w.wall_ms, 1), "warmup_stderr": w.stderr.strip()}
    meter = CpuMeter()
    for i in range(runs):
        query = QUERIES[i % len(QUERIES)]
        for c in configs:
            samples[c.name].append(run(argv(c, query), envs[c.name]))
    other = meter.other_share()
    for c in configs:
        rs = samples[c.name]
        bad = [r for r in rs if r.code not in (0, 1)]  # 1 = nothing found
        if bad:
            sys.exit(f"recall ({c.name}) failed with exit code {bad[0].code}:\n{bad[0].stderr}")
        modes = sorted({json.loads(r.stdout)["mode"] for r in rs})
        if modes != [c.expect_mode]:
            sys.exit(f"recall ({c.name}) ran in mode {modes}, expected {c.expect_mode}; "
                     "check THEHOOK_MODEL_DIR and ORT_DYLIB_PATH")
        stderr = sorted({line for r in rs for line in r.stderr.splitlines() if line.strip()})
        out[c.name].update({
            "flags": c.flags, "env": c.env, "mode_reported": modes,
            "wall_ms": summarize([r.wall_ms for r in rs]),
            "cpu_ms": summarize([r.cpu_ms for r in rs]),
            "peak_rss_mb": round(max(r.maxrss_mb for r in rs), 1),
            "empty_results": sum(1 for r in rs if not json.loads(r.stdout)["hits"]),
            "stderr": stderr[:10],
            "other_cpu_share": other,
            "samples_ms": [round(r.wall_ms, 1) for r in rs],
        })
        log(f"  recall {c.name}: p50 {out[c.name]['wall_ms']['p50']} ms, "
            f"p90 {out[c.name]['wall_ms']['p90']} ms, {out[c.name]['peak_rss_mb']} MB")
    return out


# The commits of make_git_context: (file, subject), oldest first.
CONTEXT_COMMITS = [
    ("src/auth/session.ts", "Refresh sessions before they expire"),
    ("src/auth/jwt.ts", "Rotate refresh tokens on every use"),
    ("src/api/middleware/rateLimit.ts", "Rate limit the login endpoint"),
    ("tests/e2e/checkout.spec.ts", "Fix flaky checkout test with vitest"),
]


def make_git_context(root: Path) -> None:
    """Makes `root` a git repository on a feature branch with a few commits
    and an uncommitted change, as a project in the middle of work looks
    (done once; the .thehook/ folder is ignored)."""
    if (root / ".git").exists():
        return
    genv = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    g = lambda *a: subprocess.run(["git", "-C", str(root), *a], env=genv, check=True,
                                  capture_output=True)
    g("init", "-q", "-b", "fix/session-expiry")
    (root / ".gitignore").write_text(".thehook/\n")
    for path, subject in CONTEXT_COMMITS:
        f = root / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"// {subject}\n")
        g("add", "-A")
        g("commit", "-q", "-m", subject)
    (root / "src/auth/session.ts").write_text("// work in progress\n")


def write_use_tally(root: Path, seed: int = 1) -> int:
    """Writes `.thehook/index/use-tally.tsv` as captures leave it after a
    history of sessions were given lines and marked what they used (the
    hooks and recall read it on every run): every session file's lines at
    a few citations, each given to 1-8 sessions and used by some. The same
    root and seed give the same bytes. Returns how many lines it holds."""
    rng = random.Random(seed)
    sessions = sorted(p.relative_to(root).as_posix() for p in (root / ".thehook" / "sessions").glob("*.md"))
    rows = []
    for path in sessions:
        file_given = file_used = 0
        for line in sorted(rng.sample(range(8, 60), 4)):
            given = rng.randint(1, 8)
            used = rng.randint(0, given)
            rows.append(("L", f"{path}:{line}", given, used))
            file_given, file_used = max(file_given, given), max(file_used, used)
        rows.append(("F", path, file_given, file_used))
    rows.sort(key=lambda r: (r[0], r[1]))
    # The first line: the most a file's weight is (memory/rank/tally.rs).
    most = max([1.0] + [(u + 2) / (g + 4) / 0.5 for k, _, g, u in rows if k == "F"])
    out = root / ".thehook" / "index" / "use-tally.tsv"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"#\t{most}\n" + "".join(f"{k}\t{key}\t{g}\t{u}\n" for k, key, g, u in rows))
    return len(rows)


def hook_payload(root: Path, event: str) -> bytes:
    """A Claude Code hook payload for a session in `root`."""
    payload = {"session_id": "bench-5e41ef2f", "transcript_path": str(root / "no-transcript.jsonl"),
               "cwd": str(root), "permission_mode": "default", "hook_event_name": event}
    payload.update({"source": "startup"} if event == "SessionStart" else {"reason": "other"})
    return json.dumps(payload).encode()


PROMPT = "Session handling keeps expiring tokens early in Redis, see src/auth/session.ts"


def prompt_payload(root: Path, i: int) -> bytes:
    """A Claude Code UserPromptSubmit payload of a new session."""
    return json.dumps({"session_id": f"bench-prompt-{i}", "transcript_path": str(root / "no-transcript.jsonl"),
                       "cwd": str(root), "permission_mode": "default",
                       "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}).encode()


TOUCHED = "src/auth/session.ts"


def touched_source() -> str:
    """The file the file hook is asked about, as a real one would be: 40
    exported functions in 480 lines, whose head the hook reads for the
    symbols it defines."""
    out = ["import { sign, verify } from './jwt';", ""]
    for n in range(40):
        out += [f"export async function refreshSessionStep{n}(token: string): Promise<string> {{",
                f"  const claims = verify(token); // step {n}", "  if (!claims) throw new Error('expired');",
                "  await new Promise((r) => setTimeout(r, 0));", "  const next = sign({ ...claims, n: " + str(n) + " });",
                "  // keep the refresh window short", "  return next;", "}", "", "", ""]
    return "\n".join(out) + "\n"


def file_payload(root: Path, i: int) -> bytes:
    """A Claude Code PreToolUse payload: a new session reads a file the corpus names."""
    return json.dumps({"session_id": f"bench-file-{i}", "transcript_path": str(root / "no-transcript.jsonl"),
                       "cwd": str(root), "permission_mode": "default", "hook_event_name": "PreToolUse",
                       "tool_name": "Read", "tool_input": {"file_path": str(root / TOUCHED)},
                       "tool_use_id": f"toolu_bench_{i}"}).encode()


SUBAGENT_TASK = "Find where session tokens are refreshed and why Redis expires them early"


def subagent_payloads(root: Path, i: int) -> tuple[bytes, bytes]:
    """Claude Code's two subagent-hook payloads of a new session: the `Agent`
    call that hands a general-purpose subagent its task (PreToolUse), then
    the subagent's start (SubagentStart)."""
    base = {"session_id": f"bench-subagent-{i}", "transcript_path": str(root / "no-transcript.jsonl"),
            "cwd": str(root), "permission_mode": "default"}
    handed = {**base, "hook_event_name": "PreToolUse", "tool_name": "Agent",
              "tool_input": {"description": "look", "prompt": SUBAGENT_TASK, "subagent_type": "general-purpose"},
              "tool_use_id": f"toolu_bench_agent_{i}"}
    start = {**base, "hook_event_name": "SubagentStart", "agent_id": f"a{i:04d}",
             "agent_type": "general-purpose"}
    return json.dumps(handed).encode(), json.dumps(start).encode()


def wait_for_worker(lock: Path, timeout: float = 10.0) -> None:
    """Waits until no capture worker holds `lock`."""
    import fcntl
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(lock, "a") as f:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
        except (BlockingIOError, FileNotFoundError):
            time.sleep(0.01)


FAKE_LLM = REPO / "crates/thehook-cli/tests/fixtures/llm/good"
TRANSCRIPT = REPO / "crates/thehook-core/tests/fixtures/transcripts/claude-code/d-kimuson-1af7fc5e.jsonl"


def capture_one(worker: list[str], root: Path, env: dict[str, str], i: int) -> Run:
    """Queues one real transcript under a new session id and times the
    worker that captures it (LLM: the tests' fake, which answers at once)."""
    queue = root / ".thehook" / "queue"
    queue.mkdir(parents=True, exist_ok=True)
    job = {"version": 1, "session_id": f"bench-worker-{i}", "agent": "claude-code",
           "transcript_path": str(TRANSCRIPT), "cwd": str(root), "origin": "hook",
           "queued_at": f"2026-11-22T10:00:{i:02d}Z"}
    (queue / f"bench-worker-{i}.json").write_text(json.dumps(job))
    config = root / ".thehook" / "config.yaml"
    before = config.read_text() if config.exists() else None
    config.write_text(f"llm:\n  cli: command\n  command: [{json.dumps(str(FAKE_LLM))}]\n"
                      "consolidation:\n  every_n_sessions: 100000\n")
    try:
        r = run(worker, env)
    finally:
        if before is None:
            config.unlink()
        else:
            config.write_text(before)
    log_text = (root / ".thehook" / "logs" / "worker.log").read_text()
    if f"captured bench-worker-{i} into" not in log_text:
        sys.exit(f"capture --worker did not capture: {log_text[-500:]}")
    return r


def measure_hooks(binary: str, root: Path, env: dict[str, str], runs: int) -> dict:
    """Times the session hooks in `root` (a git repository), interleaved.
    The background half of retrieve is off for the foreground runs
    (THEHOOK_BACKGROUND=0) so that it does not overlap the next run; it is
    timed on its own. The background's caches (query vector, token counts)
    are removed before each cold run and put back before each warm run."""
    make_git_context(root)
    # A history's record of what agents used, which the hooks rank by.
    write_use_tally(root)
    # What the hooks gave each session is kept in the index's given/ folder,
    # which reindex leaves alone: after an earlier run in this work folder,
    # the file and prompt hooks' sessions (`bench-file-0`...) would have been
    # given everything already and print nothing. Start as a first run does.
    shutil.rmtree(root / ".thehook" / "index" / "given", ignore_errors=True)
    source = root / TOUCHED
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(touched_source())
    env = {**env, "THEHOOK_BACKGROUND": "0", "HOME": str(root / "bench-home")}
    caches = [root / ".thehook" / "index" / name for name in ("context-query.json", "token-counts.json")]
    log_file = root / ".thehook" / "logs" / "hooks.log"
    start_payload, end_payload = hook_payload(root, "SessionStart"), hook_payload(root, "SessionEnd")
    retrieve = [binary, "-C", str(root), "retrieve", "--agent", "claude-code"]
    background = [binary, "-C", str(root), "retrieve", "--background", "--agent", "claude-code"]
    capture = [binary, "-C", str(root), "capture", "--agent", "claude-code"]
    prompt = [binary, "-C", str(root), "prompt", "--agent", "claude-code"]
    touched = [binary, "-C", str(root), "file", "--agent", "claude-code"]
    subagent = [binary, "-C", str(root), "subagent", "--agent", "claude-code"]
    worker = [binary, "-C", str(root), "capture", "--worker"]
    # The session-end hook starts its worker: that spawn is part of what it
    # costs, so it stays on (the worker finds no transcript and is done in
    # milliseconds; each run waits for it so it does not overlap the next).
    capture_env = {k: v for k, v in env.items() if k != "THEHOOK_BACKGROUND"}
    worker_lock = root / ".thehook" / "queue" / ".worker.lock"

    def last_log() -> str:
        return log_file.read_text().strip().splitlines()[-1]

    # Warm-up: the background half fills its caches (from nothing).
    for c in caches:
        c.unlink(missing_ok=True)
    bg = [run(background, env)]
    if "cached the context query" not in last_log() or "token counts" not in last_log():
        sys.exit(f"retrieve --background did not fill its caches: {last_log()}")
    cached_bytes = [c.read_bytes() for c in caches]
    cold, warm = "retrieve (cold)", "retrieve (warm)"
    samples: dict[str, list[Run]] = {cold: [], warm: [], "prompt": [], "file": [], "subagent (task kept)": [],
                                     "subagent": [], "capture": []}
    ranked: dict[str, set[str]] = {cold: set(), warm: set()}
    meter = CpuMeter()
    for i in range(runs):
        for c in caches:
            c.unlink(missing_ok=True)
        samples[cold].append(run(retrieve, env, start_payload))
        ranked[cold].add(last_log().split(", ")[-1].split(" ")[0])
        for c, b in zip(caches, cached_bytes):
            c.write_bytes(b)
        samples[warm].append(run(retrieve, env, start_payload))
        ranked[warm].add(last_log().split(", ")[-1].split(" ")[0])
        samples["prompt"].append(run(prompt, env, prompt_payload(root, i)))
        samples["file"].append(run(touched, env, file_payload(root, i)))
        handed, started = subagent_payloads(root, i)
        samples["subagent (task kept)"].append(run(subagent, env, handed))
        samples["subagent"].append(run(subagent, env, started))
        samples["capture"].append(run(capture, capture_env, end_payload))
        wait_for_worker(worker_lock)
    for _ in range(max(3, runs // 5)):
        for c in caches:
            c.unlink(missing_ok=True)
        bg.append(run(background, env))
    samples["retrieve --background"] = bg[1:]
    samples["capture --worker"] = [capture_one(worker, root, env, i) for i in range(max(3, runs // 5))]
    # Leave the corpus as it was for the next size or run.
    for f in (root / ".thehook" / "sessions").glob("*.md"):
        if "session_id: bench-worker-" in f.read_text(errors="replace"):
            f.unlink()
    shutil.rmtree(root / ".thehook" / "failed", ignore_errors=True)
    source.unlink()
    other = meter.other_share()
    out = {}
    for name, rs in samples.items():
        bad = [r for r in rs if r.code != 0]
        if bad:
            sys.exit(f"{name} failed with exit code {bad[0].code}:\n{bad[0].stderr}")
        if (name.startswith("retrieve (") or name in ("prompt", "file", "subagent")) \
                and not all("additionalContext" in r.stdout for r in rs):
            sys.exit(f"{name} printed no context: {rs[0].stdout[:200]!r} (log: {last_log()})")
        out[name] = {
            "wall_ms": summarize([r.wall_ms for r in rs]),
            "cpu_ms": summarize([r.cpu_ms for r in rs]),
            "peak_rss_mb": round(max(r.maxrss_mb for r in rs), 1),
            "other_cpu_share": other,
            "ranking": sorted(ranked.get(name, [])),
            "context_chars": max((len(r.stdout) for r in rs), default=0),
        }
        log(f"  {name}: p50 {out[name]['wall_ms']['p50']} ms, p90 {out[name]['wall_ms']['p90']} ms, "
            f"{out[name]['peak_rss_mb']} MB {out[name]['ranking'] or ''}")
    for name in ranked:
        want = "lexical" if name == cold else "hybrid"
        if out[name]["ranking"] != [want]:
            sys.exit(f"{name} ranked {out[name]['ranking']}, expected {want}")
    return out


def breakdown(binary: str, root: Path, env: dict[str, str], runs: int = 5) -> dict | None:
    """Where the time of one hybrid recall goes, from `strace -ttt` timestamps
    of a few landmark system calls (median of `runs` traced runs):

    * start-up:   exec to loading ONNX Runtime (includes opening the index,
                  the sync check and config);
    * ort load:   loading libonnxruntime and creating its environment;
    * model+query: reading model.onnx, creating the inference session,
                  embedding the query, searching and fusing -- up to the first
                  write to stdout;
    * exit:       from the first write of the answer to the process's end.

    Tracing adds a little overhead to each traced call; the phases are for
    proportions, not absolute numbers. Returns None without strace."""
    if not shutil.which("strace"):
        return None
    ort = env["ORT_DYLIB_PATH"]
    names = ("startup", "ort_load", "model_and_query", "exit", "total")
    phases: dict[str, list[float]] = {k: [] for k in names}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            trace = Path(tmp) / f"trace{i}"
            # --seccomp-bpf: only the traced calls stop the process, which
            # keeps the overhead small.
            argv = ["strace", "-f", "--seccomp-bpf", "-ttt", "-o", str(trace),
                    "-e", "trace=execve,openat,write,exit_group",
                    binary, "-C", str(root), "recall", QUERIES[i % len(QUERIES)], "--json"]
            run(argv, env)
            t: dict[str, float] = {}
            for line in trace.read_text().splitlines():
                parts = line.split(None, 2)
                if len(parts) < 3:
                    continue
                ts, call = float(parts[1]), parts[2]
                t.setdefault("exec", ts)
                if call.startswith("openat(") and ort in call:
                    t.setdefault("ort", ts)
                elif call.startswith("openat(") and "model.onnx" in call:
                    t["model"] = ts  # the last open: the first one is the fingerprint
                elif call.startswith("write(1,"):
                    t.setdefault("answer", ts)
                t["end"] = ts
            if not {"exec", "ort", "model", "answer"} <= t.keys():
                return None  # not a hybrid run (no model?)
            phases["startup"].append(t["ort"] - t["exec"])
            phases["ort_load"].append(t["model"] - t["ort"])
            phases["model_and_query"].append(t["answer"] - t["model"])
            phases["exit"].append(t["end"] - t["answer"])
            phases["total"].append(t["end"] - t["exec"])
    return {k: round(statistics.median(v) * 1000, 1) for k, v in phases.items()}


def snapshot_binary(binary: str, work: Path) -> Path:
    """A private copy of the binary, named by its hash, so that a build
    finishing during the benchmark cannot swap it mid-run."""
    data = Path(binary).read_bytes()
    copy = work / "bin" / f"thehook-{hashlib.sha256(data).hexdigest()[:12]}"
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        tmp = copy.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.chmod(0o755)
        tmp.rename(copy)
    return copy


def machine_info() -> dict:
    cpu = "unknown"
    mem_mb = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_mb = int(line.split()[1]) // 1024
    except OSError:
        pass
    return {
        "cpu_model": cpu,
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_count": os.cpu_count(),
        "mem_total_mb": mem_mb,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "loadavg_start": list(os.getloadavg()),
    }


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout


def binary_info(given: str, snapshot: Path, env: dict[str, str]) -> dict:
    """What was measured: the snapshot's hash, and the repository state (the
    binary may have been built from uncommitted changes: those files are listed)."""
    data = snapshot.read_bytes()
    return {
        "path": given, "snapshot": str(snapshot),
        "version": run([str(snapshot), "--version"], env).stdout.strip(),
        "size_bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
        "mtime": datetime.fromtimestamp(Path(given).stat().st_mtime, timezone.utc).isoformat(),
        "repo_commit": git("rev-parse", "--short", "HEAD").strip() or None,
        "repo_modified_files": [line[3:] for line in
                                git("status", "--porcelain", "--untracked-files=no").splitlines()],
        "model_dir": env["THEHOOK_MODEL_DIR"], "ort_dylib_path": env["ORT_DYLIB_PATH"],
    }


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def pct(share: float | None) -> str:
    return "–" if share is None else f"{share * 100:.0f}%"


def render(result: dict) -> str:
    """The markdown report."""
    m = result["machine"]
    lines = [
        f"## thehook speed ({result['binary']['version']}, {m['cpu_model']}, "
        f"{m['nproc']} cores, {result['settings']['runs']} runs)",
        "",
        "Recall (`recall --json -k 5`) and the session hooks (a Claude Code payload on stdin), "
        "whole process, warm cache, milliseconds. "
        "\"other CPU\" is the share of the cores used by other processes meanwhile.",
        "",
        "| items | config | p50 | p90 | min | max | IQR | CPU p50 | peak RSS MB | other CPU |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    f = result["process_floor"]
    w, c = f["wall_ms"], f["cpu_ms"]
    lines.append(f"| – | `--version` (process floor) | {w['p50']} | {w['p90']} | {w['min']} | {w['max']} "
                 f"| {w['iqr']} | {c['p50']} | {f['peak_rss_mb']} | {pct(f['other_cpu_share'])} |")
    for size in result["sizes"]:
        for name, r in {**size["recall"], **size.get("hooks", {})}.items():
            w, c = r["wall_ms"], r["cpu_ms"]
            lines.append(f"| {size['items']:,} | {name} | {w['p50']} | {w['p90']} | {w['min']} | {w['max']} "
                         f"| {w['iqr']} | {c['p50']} | {r['peak_rss_mb']} | {pct(r['other_cpu_share'])} |")
    lines += [
        "",
        "Reindex (`reindex --json`; items/s from its own timer, and over the whole process):",
        "",
        "| items | index | runs | items/s | items/s (process) | seconds | CPU s | peak RSS MB | other CPU |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in result["sizes"]:
        for name, r in size["reindex"].items():
            if r is None:
                lines.append(f"| {size['items']:,} | {name} | 0 | (index reused) | | | | | |")
                continue
            lines.append(f"| {size['items']:,} | {name} | {len(r['runs'])} | {r['items_per_s']:.0f} "
                         f"| {r['items_per_s_wall']:.0f} | {r['seconds']:.2f} | {r['cpu_s']:.2f} "
                         f"| {r['peak_rss_mb']} | {pct(r['other_cpu_share'])} |")
    if result.get("breakdown"):
        b = result["breakdown"]
        lines += [
            "",
            f"Hybrid recall under strace at {b['items']:,} items (median of {b['runs']}, ms): "
            f"start-up and index {b['startup']}, ONNX Runtime load {b['ort_load']}, "
            f"model load + query + search {b['model_and_query']}, exit {b['exit']}; total {b['total']}.",
        ]
    lines += ["", "Targets:", "", "| target | measured | ok |", "|---|---:|---|"]
    for check in result["checks"]:
        lines.append(f"| {check['target']} | {check['measured']} | {'yes' if check['ok'] else '**NO**'} |")
    if result["warnings"]:
        lines += [""] + [f"Warning: {w}" for w in result["warnings"]]
    return "\n".join(lines)


def warnings(result: dict) -> list[str]:
    """Things that make the numbers less trustworthy."""
    out = []
    phases = [("process floor", result["process_floor"])]
    for s in result["sizes"]:
        phases += [(f"recall at {s['items']:,}", next(iter(s["recall"].values())))]
        phases += [(f"reindex {k} at {s['items']:,}", r) for k, r in s["reindex"].items() if r]
    busy = [f"{name} ({pct(p['other_cpu_share'])})" for name, p in phases
            if (p["other_cpu_share"] or 0) > 0.1]
    if busy:
        out.append("other processes used more than 10% of the CPU during: " + ", ".join(busy)
                   + "; rerun on a quiet machine")
    for s in result["sizes"]:
        for name, r in s["recall"].items():
            if r["warmup_stderr"]:
                out.append(f"recall {name} at {s['items']:,}: the warm-up said: {r['warmup_stderr'][:200]}")
            if r["stderr"]:
                out.append(f"recall {name} at {s['items']:,}: timed runs printed to stderr: "
                           f"{r['stderr'][0][:200]}")
    return out


def checks(result: dict) -> list[dict]:
    """The section 9 targets, evaluated on what was measured."""
    out = []
    by_size = {s["items"]: s for s in result["sizes"]}
    largest = by_size[max(by_size)]
    p50 = largest["recall"]["hybrid"]["wall_ms"]["p50"]
    note = "" if largest["items"] >= 10_000 else f" (at {largest['items']:,} items)"
    out.append({"target": f"recall p50 at 10,000 items <= {TARGET_RECALL_P50_MS} ms{note}",
                "measured": f"{p50} ms", "ok": p50 <= TARGET_RECALL_P50_MS})
    rss = largest["recall"]["hybrid"]["peak_rss_mb"]
    out.append({"target": f"recall peak memory at 10,000 items <= {TARGET_RECALL_RSS_MB} MB{note}",
                "measured": f"{rss} MB", "ok": rss <= TARGET_RECALL_RSS_MB})
    # Throughput at the largest size measured: small corpora are dominated by
    # loading the model once per worker thread.
    rates = [(s["items"], s["reindex"]["hybrid"]["items_per_s"]) for s in result["sizes"]
             if s["reindex"]["hybrid"] is not None]
    if rates:
        n, rate = max(rates)
        out.append({"target": f"reindex >= {TARGET_REINDEX_ITEMS_PER_S} items/s (with embeddings)",
                    "measured": f"{rate:.0f} items/s at {n:,}", "ok": rate >= TARGET_REINDEX_ITEMS_PER_S})
    hooks = largest.get("hooks")
    if hooks:
        for name, target in [("retrieve (cold)", TARGET_RETRIEVE_P50_MS),
                             ("retrieve (warm)", TARGET_RETRIEVE_P50_MS),
                             ("prompt", TARGET_PROMPT_P50_MS),
                             ("file", TARGET_FILE_P50_MS),
                             # A subagent's start is a session start of its own.
                             ("subagent", TARGET_RETRIEVE_P50_MS),
                             ("capture", TARGET_CAPTURE_P50_MS)]:
            p50 = hooks[name]["wall_ms"]["p50"]
            out.append({"target": f"{name} p50 at 10,000 items <= {target} ms{note}",
                        "measured": f"{p50} ms", "ok": p50 <= target})
    peaks = [("--version", result["process_floor"]["peak_rss_mb"])]
    for s in result["sizes"]:
        peaks += [(f"recall {k} {s['items']:,}", r["peak_rss_mb"]) for k, r in s["recall"].items()]
        peaks += [(f"{k} {s['items']:,}", r["peak_rss_mb"]) for k, r in s.get("hooks", {}).items()]
        peaks += [(f"reindex {k} {s['items']:,}", r["peak_rss_mb"]) for k, r in s["reindex"].items() if r]
    what, peak = max(peaks, key=lambda x: x[1])
    out.append({"target": f"peak memory of any command <= {TARGET_PEAK_RSS_MB} MB",
                "measured": f"{peak} MB ({what})", "ok": peak <= TARGET_PEAK_RSS_MB})
    return out


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30, help="timed recall runs per config (default 30)")
    ap.add_argument("--sizes", default="1000,10000", help="corpus sizes in items (default 1000,10000)")
    ap.add_argument("--binary", default=str(REPO / "target" / "release" / "thehook"),
                    help="the thehook binary (default target/release/thehook; a copy is run)")
    ap.add_argument("--work", default=str(BENCH_DIR / "out" / "speed-work"),
                    help="where the corpora and their indexes live; unchanged corpora "
                         "and their indexes are reused (default bench/out/speed-work)")
    ap.add_argument("--reindex-runs", type=int, default=None,
                    help="timed reindex runs per size and index (default 3 up to 2,000 items, "
                         "else 2; 0 = reuse the index, syncing it if it is stale)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    ap.add_argument("--fresh", action="store_true", help="delete --work first")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                    help="before each phase and reindex run, wait up to SECONDS for other "
                         "processes to use less than 10%% of the CPU, and redo reindex runs "
                         "they disturbed (default 0: do not wait)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also trace a few hybrid recalls at the largest size with strace "
                         "to split their time into phases")
    ap.add_argument("--out", default=str(BENCH_DIR / "out" / "speed.json"),
                    help="where to write the JSON (default bench/out/speed.json)")
    args = ap.parse_args()

    given = str(Path(args.binary).resolve())
    if not os.access(given, os.X_OK):
        sys.exit(f"no executable at {given} (build it with `cargo build --release`)")
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    if args.runs < 1 or not sizes:
        sys.exit("--runs must be at least 1 and --sizes must name at least one size")
    work = Path(args.work).resolve()
    if args.fresh and work.exists():
        shutil.rmtree(work)
    env = base_env()
    envs = {c.name: {**env, **c.env} for c in RECALL_CONFIGS}
    snapshot = snapshot_binary(given, work)
    binary = str(snapshot)

    result: dict = {
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "binary": binary_info(given, snapshot, env),
        "settings": {"runs": args.runs, "sizes": sizes, "seed": args.seed,
                     "corpus_version": CORPUS_VERSION, "queries": QUERIES,
                     "work": str(work)},
        "sizes": [],
    }
    log(f"{result['machine']['cpu_model']}, {result['machine']['nproc']} cores, "
        f"load {result['machine']['loadavg_start']}")

    # What merely starting the binary costs (dynamic linking, page faults).
    wait_quiet(args.wait_quiet)
    meter = CpuMeter()
    floor = [run([binary, "--version"], env) for _ in range(args.runs)]
    result["process_floor"] = {
        "other_cpu_share": meter.other_share(),
        "wall_ms": summarize([r.wall_ms for r in floor]),
        "cpu_ms": summarize([r.cpu_ms for r in floor]),
        "peak_rss_mb": round(max(r.maxrss_mb for r in floor), 1),
    }

    for n in sizes:
        log(f"{n:,} items: generating corpus")
        files = generate_corpus(n, args.seed)
        roots = {name: work / f"n{n}" / name for name in PROJECTS}
        written = {name: write_corpus(root, files) for name, root in roots.items()}
        size: dict = {
            "items": n,
            "files": len(files),
            "corpus_bytes": sum(len(t.encode("utf-8")) for t in files.values()),
            "corpus_sha256": corpus_digest(files),
            "files_written": written,
            "reindex": {},
        }
        reindex_runs = args.reindex_runs if args.reindex_runs is not None else (3 if n <= 2000 else 2)
        for name, extra in PROJECTS.items():
            if reindex_runs == 0:
                size["reindex"][name] = None
                continue
            log(f"{n:,} items: reindex ({name})")
            size["reindex"][name] = measure_reindex(binary, roots[name], {**env, **extra}, reindex_runs,
                                                    n, want_embeddings=not extra, quiet_s=args.wait_quiet)
        log(f"{n:,} items: recall, {args.runs} runs x {len(RECALL_CONFIGS)} configs")
        wait_quiet(args.wait_quiet)
        size["recall"] = measure_recall(binary, roots, envs, args.runs)
        log(f"{n:,} items: session hooks, {args.runs} runs")
        size["hooks"] = measure_hooks(binary, roots["hybrid"], env, args.runs)
        result["sizes"].append(size)

    if args.breakdown:
        n = max(sizes)
        log(f"{n:,} items: tracing hybrid recall")
        wait_quiet(args.wait_quiet)
        b = breakdown(binary, work / f"n{n}" / "hybrid", envs["hybrid"])
        result["breakdown"] = b and {"items": n, "runs": 5, **b}

    result["machine"]["loadavg_end"] = list(os.getloadavg())
    result["checks"] = checks(result)
    result["warnings"] = warnings(result)
    write_report(result, Path(args.out), render(result))


def write_report(result: dict, out: Path, report: str, tail: str = "") -> None:
    """Saves `result` as JSON in `out` and prints the markdown `report`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(report)
    print(f"\nJSON: {out}{tail}")


if __name__ == "__main__":
    main()
