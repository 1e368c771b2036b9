#!/usr/bin/env python3
"""Replay real agent-session histories through thehook and score the memory it injects.

Data
----
A history is a git directory (e.g. the bare snapshot of entireio/cli) whose branch
`entire/checkpoints/v1` holds agent sessions recorded by Entire: one folder per
checkpoint, `<xx>/<id>/<n>/metadata.json` (`session_id`, `created_at`, `branch`,
`files_touched`, ...) and the raw agent transcript `full.jsonl` (Claude Code JSONL or a
Codex rollout; large ones are split into `full.jsonl`, `full.jsonl.001`, ...). A later
checkpoint of a session holds the whole transcript so far, so a session is:

* id: metadata `session_id`, checkpoints grouped by it; old Entire ids of the form
  `YYYY-MM-DD-<uuid>` (one per calendar day of the same agent session) count as `<uuid>`;
* transcript: the largest present `full.jsonl` of its checkpoints (chunks joined);
  checkpoints whose transcript blob is absent from the snapshot are counted as skipped,
  and a session with no present transcript at all is skipped (counted);
* start: the earliest of its checkpoints' `created_at` and its transcript's first
  timestamp (a checkpoint is written when work is committed, after the session began);
* files: union of `files_touched`, normalised to repo-relative paths;
* branch at start: the transcript's first `gitBranch` (Claude Code) or
  `session_meta.git.branch` (Codex), else the metadata `branch`; `branches` also holds
  the metadata branches (used by the branch baseline);
* start commit, first rule that applies: (1) the transcript names it (Codex
  `session_meta.git.commit_hash`, when the object exists); (2) a code commit carries the
  trailer `Entire-Checkpoint: <id>` of one of its checkpoints: the last commit before the
  start on the first-parent line of the earliest such commit; (3) the branch at start
  exists in the repository: its last commit before the start; (4) the last commit on
  main before the start.

Replay (per history, sessions in start order)
--------------------------------------------
A work tree (a `git clone --shared` of the history in the cache folder, so the history
itself is never written) gets `thehook init --agent claude-code --bin BIN` once; the
hook commands are read from the `.claude/settings.json` it writes. Then for every
session: `git checkout -f -B <branch at start> <start commit>`, with `main` moved to its
last commit before the start and the clone's remote refs and tags deleted, so no ref
shows the future; `.thehook/` is untracked and excluded and nothing is cleaned, so memory
persists (files whose blobs the snapshot lacks are left out by sparse checkout). The
SessionStart hook runs as Claude Code runs it (`sh -c CMD`, cwd = work tree, the JSON
payload on stdin; the transcript path points at a not-yet-existing file, as at a fresh
start); the UserPromptSubmit hook, when init wrote one, runs with the first real ask
(transcript path: a copy of the transcript up to that ask; a session with no real ask
gets an empty prompt block); then the session is captured synchronously with
`thehook capture --transcript <full.jsonl> --json`. The file hook: when init wrote
PreToolUse hooks running thehook, every such (matcher, command) is read from the
settings; each of the session's main-thread file tool calls (below), in transcript order
and at most MAX_FILE_CALLS (400) a session (the first 400; the rest are not replayed and
the session is flagged `file_calls_capped`), runs every command whose matcher takes its
tool, as `sh -c CMD` like the other hooks: payload `{session_id, transcript_path, cwd:
work tree, hook_event_name: "PreToolUse", tool_name, tool_input: {file_path (NotebookEdit:
notebook_path): the absolute path in the work tree}, tool_use_id}`. Calls made before the
first real ask run between SessionStart and the prompt hook, the others after the prompt
hook (all before capture); the transcript path is the same as the prompt hook's (not
yet written before the ask, then the transcript up to the ask). Several matching commands
count as one call (blocks joined, times summed). A matcher is applied as Claude Code does:
absent, empty or "*" takes every tool, else the whole tool name must match the regular
expression. With no such hook, the file hook is not run and not scored (the report says
so) and everything else is as before. Hooks get THEHOOK_BACKGROUND=0 and a
PATH without claude/codex/gemini/cursor-agent. `--llm fake` configures
`llm: {cli: command, command: [python3, bench/replay_fake_llm.py]}` (daily budget off);
`--llm none` (the default) leaves `cli: auto` with no LLM CLI on PATH, i.e. thehook's
heuristic extraction. Codex sessions go through the same Claude Code hooks.

Subagent starts and compactions ("contexts"): each of the session's main-thread
`Agent`/`Task` tool_use blocks (Claude Code; Codex: a `spawn_agent` function call), in
transcript order with the file calls (at most MAX_CONTEXT_EVENTS (50) a session), runs
what Claude Code runs when init wrote a SubagentStart hook: the PreToolUse commands whose
matcher takes `Agent` (payload: `tool_name: "Agent"`, `tool_input: {description, prompt,
subagent_type}`), then SubagentStart (`agent_id`: the tool_use id, `agent_type`: its
`subagent_type`, else "general-purpose"; Codex: "default"); each `compact_boundary` system
record (Codex: a `compacted` record) runs SessionStart with `source: "compact"` when its
matcher takes it. The histories' transcripts hold no subagent's own records
(`isSidechain`), so a subagent's tool calls are not replayed: what a subagent is given
at its start is. Events with no hook to run are counted (`context_events_unhooked`).

First real ask: the first user record whose typed text is not a tool result, not marked
`isMeta`/`isCompactSummary`, and not a wrapper (`<command-name>`, `<local-command-...>`,
`Caveat:`, `<system-reminder>`, `<task-notification>`, `[Request interrupted ...`,
"This session is being continued ...", "Base directory for this skill: ...", ...);
Codex: the first `event_msg` `user_message`.

Main-thread file tool calls (transcript order): Claude Code: tool_use blocks named Read,
Edit, Write, MultiEdit, NotebookEdit (`file_path`, `notebook_path`) in assistant records
whose `isSidechain` is not true, each tool_use id once; Codex: `apply_patch` (custom tool
or function call), one call per file of the patch, `*** Add File:` a Write, `*** Update
File:` / `*** Delete File:` an Edit; and, as a Read, a shell command that only reads one
file (`cat F`, `sed -n 'A,Bp' F`, `nl -ba F`, `nl -ba F | sed -n 'A,Bp'`; an `exec_command`
call, or the `exec` tool's script when it makes exactly one `tools.exec_command` call);
chains, pipes into other programs, `rg`, `head` and the like are left out. Edits are
Edit, Write, MultiEdit, NotebookEdit and patches. Paths: a relative path is taken from
the record's cwd (Claude Code: the record's `cwd`; Codex: `session_meta`/`turn_context`
cwd, or the shell call's `workdir`); the checkout root is that cwd less its longest tail
that is a folder of the repository at the session's start commit (an agent that cd'ed
into `cmd/entire/cli` keeps the root above); a path under it is made relative to it;
otherwise, the leftmost component named like the repository (history name, `cli`,
`entire-graph`, `entire-sem`) followed by a top-level name of the repository marks the
root (another checkout of the same repository); anything else (plans in ~/.claude, /tmp,
other repositories), `.thehook/` and `.git/` is outside and not replayed (counted). The
hook gets the path under the replay work tree, whether or not the file exists there.

Citations: a block cites `.thehook/sessions/<file>.md:<line>`; the file's front matter
`session_id:` maps it to a session (also through the session ids the transcript's own
records carry). Other citations are not sessions.

Scoring (definitions fixed before any score was looked at)
----------------------------------------------------------
* Universe: the replayed sessions of a history (with a transcript; `--limit` cuts it).
* Rare file: touched by at most max(3, 5% of the universe's sessions) sessions.
* Relevant earlier sessions of s: sessions that started before s and share at least
  one rare file with s. Only sessions with at least one are scored.
* Per scored session and method: hit = cites >= 1 relevant earlier session;
  precision = relevant cited / distinct sessions cited (0 when none cited); sessions
  cited; characters of the block(s).
* Methods: `start` (SessionStart block), `start+prompt` (union of the sessions cited by
  both blocks; chars summed), and two baselines without search: `latest5` (the 5 most
  recently started earlier sessions that were captured) and `branch5` (earlier captured
  sessions whose branches include s's branch at start, newest first, then the latest,
  5 in all). Baselines have no text, so their chars are not reported.
* Contexts (`start+prompt+file+contexts`): as `start+prompt+file`, with the blocks of
  the session's subagent starts and compactions added to the union and the characters
  (their hit by the first rare edit: those up to the edit's line). Items given twice in
  one context: as below, per context: the main thread's blocks split at each compaction
  (its block opens the next context), and each subagent's block on its own.
* File hook (`start+prompt+file`, only when init wrote a PreToolUse hook): sessions
  cited = the union over the start block, the prompt block and every file block of the
  session; precision = relevant cited / that union (0 when none); chars = start + prompt
  + all file blocks. Per scored session also: first rare edit = the first replayed call
  that edits a file both in the session's `files` and rare; hit by the first rare edit =
  the union of the sessions cited by the start block, the prompt block (only if the first
  real ask came before that edit) and the file blocks of the calls up to and including
  the edit's holds a relevant earlier session. Sessions without a rare edit (counted)
  use all their blocks. For `start`, `latest5` and `branch5` the hit by the first rare
  edit is their plain hit (they come before the work, or have no text); for
  `start+prompt` too, except when the first rare edit came before the first real ask
  (counted in the report): then the prompt block does not count, as for the file method.
  Items given twice: distinct citations matching `\\.thehook/[^\\s:()\\[\\]`]+:\\d+` that appear
  in more than one block (start, prompt, each file call) of the session, summed over
  sessions (also: sessions with any). Reported per table: the above (hit over all scored
  sessions and over those with a rare edit; chars median and p90 by nearest rank over
  scored sessions), file-hook calls (total, median a session), the share that printed
  something, and file-hook latency p50/p90 over all calls of the table's sessions.
* Split: tuning = entireio/cli sessions started before 2026-02-01 and every session of
  the other histories; evaluation = entireio/cli sessions from 2026-02-01 on. Evaluation
  sessions still build memory; their rows are printed apart and must not be used to
  choose anything.
* Also reported: skipped checkpoints/sessions, how start commits were found, and the
  median number of sessions back (in start order) to the nearest relevant earlier session.

Known limits: a session is captured whole right after its own start hooks, so a
session that ran in parallel with (or was resumed after) a later one is already in
memory for it; this affects the baselines and thehook alike.

Usage
-----
    python3 bench/replay.py --history cli=<git dir of the entireio/cli snapshot> \\
        --history entire-graph=<git dir of the entireio/entire-graph snapshot> [--llm none|fake]
        [--limit N] [--cache DIR] [--bin PATH] [--json OUT] [--no-bin-copy]

`--json OUT` (and `<cache>/results-<llm>.json`) holds per history the records, with per
session `file_calls`: `{tool, rel, edit, transcript_line, ms, chars, block, cited,
other_cites, error}`, and the scored rows with `work` (first rare edit, hit by it, items
given twice).

`--bin` (default target/release/thehook) is copied with the `libonnxruntime*` and
`model/` beside it into `<cache>/bin/<mtime>-<size>/` and run from there.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import posixpath
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BRANCH = "entire/checkpoints/v1"
EVAL_FROM = "2026-02-01T00:00:00Z"
EVAL_HISTORY = "entireio/cli"  # matched against the history name or its git dir
LLM_BINARIES = ("claude", "codex", "gemini", "cursor-agent", "agent")
CITE = re.compile(r"\.thehook/sessions/([^\s:()\[\]`]+?\.md):(\d+)")
WRAPPER = re.compile(
    r"^\s*(<command-name>|<command-message>|<command-args>|<local-command-|<system-reminder>|"
    r"<task-notification>|<user-prompt-submit-hook>|<bash-input>|<bash-stdout>|<bash-stderr>|"
    r"<ide_opened_file>|<ide_selection>|<environment_context>|<user_instructions>|"
    r"Caveat:|\[Request interrupted|This session is being continued from a previous|"
    r"Base directory for this skill:|Operation stopped by hook|# AGENTS\.md instructions)"
)
FAKE_LLM = Path(__file__).resolve().parent / "replay_fake_llm.py"
# `--llm fake`: the LLM CLI is the fake, with no daily budget.
FAKE_LLM_YAML = ("\nllm:\n  cli: command\n"
                 f"  command: [{json.dumps(sys.executable)}, {json.dumps(str(FAKE_LLM))}]\n"
                 "  timeout_secs: 90\n  daily_budget:\n    calls: null\n    usd: null\n")
# Claude Code's file tools, as its transcripts name them: the ones the file hook runs on.
FILE_TOOLS = {"Read": False, "Edit": True, "Write": True, "MultiEdit": True, "NotebookEdit": True}
MAX_FILE_CALLS = 400  # file-hook calls replayed per session, at most
MAX_CONTEXT_EVENTS = 50  # subagent starts and compactions replayed per session, at most
# The tools that start a Claude Code subagent (its task in `prompt`, its type in `subagent_type`).
SUBAGENT_TOOLS = ("Agent", "Task")
# A Codex shell command that only reads one file: `cat F`, `sed -n '1,80p' F`, `nl -ba F`.
CODEX_READ = re.compile(r"""^\s*(?:cat|nl -ba|sed -n ['"]?[0-9,$]+p['"]?)\s+(['"]?)([^\s|;&<>'"]+)\1\s*$""")
CODEX_NL_SED = re.compile(r"""^\s*nl -ba\s+(['"]?)([^\s|;&<>'"]+)\1\s*\|\s*sed -n ['"]?[0-9,$]+p['"]?\s*$""")
# apply_patch's file lines: Add File is a Write, Update/Delete File an Edit.
PATCH_FILE = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+)$", re.M)
PATCH_TOOL = {"Update": "Edit", "Add": "Write", "Delete": "Edit"}
ANY_CITE = re.compile(r"\.thehook/[^\s:()\[\]`]+:\d+")
# The method with every block a session's contexts were given: start, prompt, file
# calls, and the subagent starts and compactions ("contexts").
WITH_CONTEXTS = "start+prompt+file+contexts"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def parse_time(s: str | None) -> dt.datetime | None:
    if not s:
        return None
    try:
        s = s.strip().replace("Z", "+00:00")
        m = re.match(r"^(.*T\d\d:\d\d:\d\d)(\.\d+)?(.*)$", s)
        if m:  # Python 3.11 takes at most 6 fraction digits
            s = m.group(1) + (m.group(2)[:7] if m.group(2) else "") + m.group(3)
        t = dt.datetime.fromisoformat(s)
        return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return None


def iso(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def git(gitdir, *args, check=True, text=True, input=None, cwd=None):
    r = subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True,
                       text=text, input=input, cwd=cwd)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


# ---------------------------------------------------------------- extraction

def extract(name: str, gitdir: Path, out: Path) -> dict:
    """Copy the checkpoint branch's metadata and transcripts into `out` (cached by tip)."""
    tip = git(gitdir, "rev-parse", f"refs/heads/{BRANCH}").strip()
    done = out / "extracted.json"
    if done.exists():
        info = json.loads(done.read_text())
        if info.get("tip") == tip:
            log(f"[{name}] extraction cached ({out})")
            return info
    log(f"[{name}] extracting {BRANCH} at {tip[:10]} into {out}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    entries = {}
    for line in git(gitdir, "ls-tree", "-r", f"refs/heads/{BRANCH}").splitlines():
        meta, path = line.split("\t", 1)
        entries[path] = meta.split()[2]
    check = git(gitdir, "cat-file", "--batch-check", input="\n".join(entries.values()) + "\n")
    missing = {l.split()[0] for l in check.splitlines() if l.endswith("missing")}
    dirs: dict[str, dict[str, str]] = {}
    for path, sha in entries.items():
        parts = path.split("/")
        if len(parts) == 4:  # xx/id/n/file
            dirs.setdefault("/".join(parts[:3]), {})[parts[3]] = sha
    n_meta = n_full = n_missing = 0
    for d, files in sorted(dirs.items()):
        if "metadata.json" not in files or files["metadata.json"] in missing:
            continue
        dest = out / "checkpoints" / d
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "metadata.json").write_bytes(git(gitdir, "cat-file", "blob", files["metadata.json"], text=False))
        n_meta += 1
        chunks = sorted((f for f in files if re.fullmatch(r"full\.jsonl(\.\d+)?", f)),
                        key=lambda f: (f != "full.jsonl", f))
        if chunks and chunks[0] == "full.jsonl" and not any(files[c] in missing for c in chunks):
            with open(dest / "full.jsonl", "wb") as fh:
                for c in chunks:
                    data = git(gitdir, "cat-file", "blob", files[c], text=False)
                    fh.write(data if data.endswith(b"\n") or c == chunks[-1] else data + b"\n")
            n_full += 1
        else:
            n_missing += 1
    info = {"tip": tip, "checkpoints": n_meta, "with_transcript": n_full, "missing_transcript": n_missing}
    done.write_text(json.dumps(info, indent=1))
    log(f"[{name}] {n_meta} session checkpoints, {n_full} with transcript, {n_missing} without")
    return info


# ---------------------------------------------------------------- sessions

@dataclass
class Session:
    sid: str
    history: str
    checkpoints: list = field(default_factory=list)  # (created_at, checkpoint_id, dir)
    files: set = field(default_factory=set)
    branches: set = field(default_factory=set)
    meta_branch: str = ""
    transcript: Path | None = None
    start: dt.datetime | None = None
    start_branch: str = ""
    start_commit: str = ""
    main_commit: str = ""  # main as it was at the start
    commit_rule: str = ""
    ask: str = ""
    ask_line: int = 0  # transcript lines before the first ask
    aliases: set = field(default_factory=set)
    agent: str = ""
    codex_commit: str = ""
    file_calls: list = field(default_factory=list)  # {tool, path, cwd, edit, line[, rel]}, main thread, in order
    # subagent starts and compactions, in order: {kind: subagent|compact, line, id, agent_type, prompt}
    context_events: list = field(default_factory=list)


def normalise(path: str, repo_names: set) -> str:
    path = path.replace("\\", "/")
    if path.startswith("/"):
        parts = path.split("/")
        for i in range(len(parts) - 1, 0, -1):
            if parts[i] in repo_names:
                return "/".join(parts[i + 1:])
        return path
    return path[2:] if path.startswith("./") else path


def records(path: Path, wanted=None):
    """(line number, record) for each JSON object line of a transcript; `wanted`, if
    given, is asked about the raw line first, so lines it refuses are not parsed."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for i, line in enumerate(fh):
            if wanted is not None and not wanted(line):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict):
                yield i, r


def line_times(path: Path) -> dict[int, dt.datetime]:
    """The time of each transcript line that has one (Claude Code `timestamp`, Codex
    `timestamp`), by line number as `records` counts them."""
    out = {}
    for i, r in records(path, lambda line: '"timestamp"' in line):
        t = parse_time(r.get("timestamp"))
        if t:
            out[i] = t
    return out


def file_stem(session_id: str) -> str:
    """A session id as thehook names its files (`[A-Za-z0-9._-]` kept, the rest `_`)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", session_id)


def retime_given(tree: Path, s, fired: list) -> None:
    """Puts the given record of `s` on the session's own timeline. The replay runs a
    session's hooks now, but its transcript's tool calls happened then; capture marks a
    line used only by calls made after the line was given, so each hook's lines get the
    time the hook would have run at: session start just before the session's first
    record, the prompt hook at the ask's record, a file hook at its call's record (the
    call itself is not after it). `fired` lists the hook calls that gave something, in
    order: ("start", None) / ("prompt", None) / ("file", transcript line)."""
    path = tree / ".thehook" / "index" / "given" / f"{file_stem(s.sid)}.txt"
    if not path.exists():
        return
    times = line_times(s.transcript)
    first = min(times.values()) if times else s.start
    lines, groups, out = path.read_text().splitlines(), [], []
    for line in lines:
        parts = line.split("\t")
        if len(parts) != 3:
            out.append(line)
            continue
        if not groups or groups[-1][0] != (parts[0], parts[1]):
            groups.append(((parts[0], parts[1]), []))
        groups[-1][1].append(parts[2])
    pending = list(fired)
    for (_, hook), cited in groups:
        kind = "file" if hook.startswith("file ") else hook
        at = next((f for f in pending if f[0] == kind), None)
        if at:
            pending.remove(at)
        # The first session start just before the session; one after a compaction
        # (and the record's start-over) at the compaction's record.
        when = first - dt.timedelta(seconds=1) if not at or at[1] is None and kind != "prompt" else \
            times.get(s.ask_line if kind == "prompt" else at[1], first)
        stamp = when.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        out += [f"{stamp}\t{hook}\t{c}" for c in cited]
    text = "".join(line + "\n" for line in out)
    path.write_text(text)
    # Capture keys the record by the transcript's own session id, which an
    # Entire checkpoint's id may not be.
    for other in s.aliases:
        if other != s.sid:
            path.with_name(f"{file_stem(other)}.txt").write_text(text)


def used_shares(tree: Path, sids: set, alias: dict) -> dict:
    """Lines given and used per hook, over the marked records of the sessions `sids`
    (`.thehook/index/used/`, written at capture)."""
    out = {h: [0, 0] for h in ("start", "prompt", "file")}
    marked = 0
    folder = tree / ".thehook" / "index" / "used"
    for f in folder.glob("*.json") if folder.exists() else []:
        rec = json.loads(f.read_text())
        if alias.get(rec.get("session_id"), rec.get("session_id")) not in sids:
            continue
        marked += 1
        for b in rec.get("blocks", []):
            if b.get("hook") in out:
                out[b["hook"]][0] += len(b["lines"])
                out[b["hook"]][1] += sum(1 for line in b["lines"] if line.get("used"))
    return {"marked_sessions": marked, **{h: {"given": g, "used": u} for h, (g, u) in out.items()}}


def read_transcript(path: Path) -> dict:
    """First timestamp, branch at start, commit (Codex), ids and the first real ask."""
    info = {"first_ts": None, "branch": "", "commit": "", "ids": set(), "ask": "", "ask_line": 0, "agent": ""}
    for i, r in records(path):
        ts = r.get("timestamp")
        if ts and not info["first_ts"]:
            info["first_ts"] = parse_time(ts)
        if r.get("type") == "session_meta":
            p = r.get("payload") or {}
            info["agent"] = "codex"
            info["ids"].add(p.get("id") or "")
            g = p.get("git") or {}
            info["branch"] = info["branch"] or (g.get("branch") or "")
            info["commit"] = g.get("commit_hash") or ""
            continue
        if r.get("sessionId"):
            info["ids"].add(r["sessionId"])
            info["agent"] = info["agent"] or "claude-code"
        if r.get("gitBranch") and not info["branch"]:
            info["branch"] = r["gitBranch"]
        if info["ask"]:
            if info["branch"]:
                break
            continue
        text = ""
        if r.get("type") == "user" and not r.get("isMeta") and not r.get("isCompactSummary") \
                and not r.get("isSidechain"):
            c = (r.get("message") or {}).get("content")
            if isinstance(c, str):
                text = c
            elif isinstance(c, list):
                if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c):
                    text = ""
                else:
                    text = "\n".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
        elif r.get("type") == "event_msg" and (r.get("payload") or {}).get("type") == "user_message":
            text = r["payload"].get("message") or ""
        text = re.sub(r"<system-reminder>.*?</system-reminder>", "", text, flags=re.S).strip()
        if text and not WRAPPER.match(text):
            info["ask"], info["ask_line"] = text, i
    info["ids"].discard("")
    return info


def codex_read(cmd) -> str:
    """The one file a Codex shell command only reads (`cat F`, `sed -n 'A,Bp' F`,
    `nl -ba F`, `nl -ba F | sed -n 'A,Bp'`), or "" (anything else, chains included)."""
    if not isinstance(cmd, str):
        return ""
    m = CODEX_READ.match(cmd) or CODEX_NL_SED.match(cmd)
    return m.group(2) if m else ""


def codex_shell(payload: dict) -> tuple[str, str]:
    """(command, workdir) of a Codex shell call: `exec_command`/`shell` function calls
    (JSON arguments) and the `exec` custom tool when its script makes exactly one
    `tools.exec_command({cmd: "...", workdir: "..."})` call; ("", "") otherwise."""
    name, kind = payload.get("name"), payload.get("type")
    if kind == "function_call" and name in ("exec_command", "shell", "container.exec") \
            and isinstance(payload.get("arguments"), str):
        try:
            args = json.loads(payload["arguments"])
        except ValueError:
            return "", ""
        if not isinstance(args, dict):
            return "", ""
        cmd = args.get("cmd") or args.get("command") or ""
        if isinstance(cmd, list):
            cmd = cmd[-1] if len(cmd) >= 3 and cmd[:2] in (["bash", "-lc"], ["sh", "-c"], ["zsh", "-lc"]) \
                else " ".join(str(x) for x in cmd)
        return (cmd if isinstance(cmd, str) else ""), (args.get("workdir") or "")
    if kind == "custom_tool_call" and name == "exec" and isinstance(payload.get("input"), str):
        script = payload["input"]
        if len(re.findall(r"\btools\.", script)) != 1 or "tools.exec_command(" not in script:
            return "", ""
        vals = {}
        for key in ("cmd", "workdir"):
            m = re.search(r"""["']?\b%s["']?\s*:\s*("(?:[^"\\]|\\.)*")""" % key, script)
            try:
                vals[key] = json.loads(m.group(1)) if m else ""
            except ValueError:
                vals[key] = ""
        return vals["cmd"], vals["workdir"]
    return "", ""


def file_calls(path: Path) -> list[dict]:
    """The main thread's file tool calls, in order, as the transcript wrote them:
    `{tool, path, cwd, edit, line}` with `path` as given (absolute, or relative to `cwd`,
    the working folder of the record) and `line` the transcript line of the call.
    Claude Code: assistant records' tool_use blocks named Read, Edit, Write, MultiEdit or
    NotebookEdit (`file_path`, `notebook_path`), records with `isSidechain` true left out,
    each tool_use id once. Codex: `apply_patch` (custom tool or function call), one call
    per `*** Add File:` (Write) / `*** Update File:` / `*** Delete File:` (Edit) line; and
    shell commands that only read one file (see `codex_read`, `codex_shell`) as Read.
    `repo_calls` maps the paths into the repository."""
    out: list[dict] = []
    cwd = ""
    seen: set = set()
    marks = ('"tool_use"', '"response_item"', '"session_meta"', '"turn_context"')
    for i, r in records(path, lambda line: any(m in line for m in marks)):
        kind = r.get("type")
        if kind in ("session_meta", "turn_context"):
            cwd = (r.get("payload") or {}).get("cwd") or cwd
            continue
        found: list[tuple[str, str, bool, str]] = []  # (tool, path, edit, cwd)
        if kind == "assistant" and r.get("isSidechain") is not True:
            cwd = r.get("cwd") or cwd
            content = (r.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if not (isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in FILE_TOOLS):
                    continue
                if b.get("id"):
                    if b["id"] in seen:
                        continue
                    seen.add(b["id"])
                inp = b.get("input") if isinstance(b.get("input"), dict) else {}
                p = inp.get("file_path") or inp.get("notebook_path") or ""
                if isinstance(p, str) and p:
                    found.append((b["name"], p, FILE_TOOLS[b["name"]], cwd))
        elif kind == "response_item":
            p = r.get("payload") or {}
            if p.get("name") == "apply_patch":
                body = p.get("input") or ""
                if not body and isinstance(p.get("arguments"), str):
                    try:
                        body = (json.loads(p["arguments"]) or {}).get("input") or ""
                    except (ValueError, AttributeError):
                        body = ""
                for op, f in PATCH_FILE.findall(body if isinstance(body, str) else ""):
                    found.append((PATCH_TOOL[op], f.strip(), True, cwd))
            else:
                cmd, workdir = codex_shell(p)
                f = codex_read(cmd)
                if f:
                    found.append(("Read", f, False, workdir or cwd))
        for tool, p, edit, base in found:
            out.append({"tool": tool, "path": p, "cwd": base, "edit": edit, "line": i})
    return out


def context_events(path: Path) -> list[dict]:
    """The main thread's subagent starts and compactions, in transcript order: Claude
    Code's `Agent`/`Task` tool_use blocks (`{kind: "subagent", id, agent_type:
    subagent_type or "general-purpose", prompt, line}`, each id once) and its
    `compact_boundary` system records; Codex's `spawn_agent` function calls (`message`,
    `agent_type` or "default") and its `compacted` records (`{kind: "compact", line}`).
    At most MAX_CONTEXT_EVENTS a session (the first)."""
    out: list[dict] = []
    seen: set = set()
    marks = ('"tool_use"', '"compact_boundary"', '"compacted"', '"spawn_agent"')
    for i, r in records(path, lambda line: any(m in line for m in marks)):
        kind = r.get("type")
        if kind == "system" and r.get("subtype") == "compact_boundary":
            out.append({"kind": "compact", "line": i})
        elif kind == "compacted":
            out.append({"kind": "compact", "line": i})
        elif kind == "assistant" and r.get("isSidechain") is not True:
            content = (r.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if not (isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in SUBAGENT_TOOLS):
                    continue
                if b.get("id") in seen:
                    continue
                seen.add(b.get("id"))
                inp = b.get("input") if isinstance(b.get("input"), dict) else {}
                out.append({"kind": "subagent", "id": b.get("id") or f"agent-{i}", "line": i,
                            "agent_type": inp.get("subagent_type") or "general-purpose",
                            "prompt": inp.get("prompt") or "", "description": inp.get("description") or ""})
        elif kind == "response_item":
            p = r.get("payload") or {}
            if p.get("type") == "function_call" and p.get("name") == "spawn_agent":
                try:
                    args = json.loads(p.get("arguments") or "{}")
                except ValueError:
                    args = {}
                out.append({"kind": "subagent", "id": p.get("call_id") or f"agent-{i}", "line": i,
                            "agent_type": (args or {}).get("agent_type") or "default",
                            "prompt": (args or {}).get("message") or "", "description": ""})
    return out[:MAX_CONTEXT_EVENTS]


def repo_rel(path: str, cwd: str, tree: set, repo_names: set) -> str:
    """A transcript's file path as a path relative to the repository, or "" when it is
    outside. `tree`: the repository's paths (files and folders) at the session's start
    commit. The checkout's root is `cwd` with its longest tail that is a folder of the
    repository taken off (an agent that cd'ed into `cmd/entire/cli` still has the root
    above it); a path under that root is relative to it. Otherwise (another checkout of
    the same repository, say the main one from a worktree) the leftmost path component
    named like the repository (`repo_names`) is taken as the root if what follows starts
    with a top-level name of the repository. `.thehook/` and `.git/` count as outside."""
    path, cwd = path.replace("\\", "/"), (cwd or "").replace("\\", "/").rstrip("/")
    if not path.startswith("/"):
        if not cwd:
            rel = posixpath.normpath(path)
            return "" if rel.startswith("..") or rel in (".", "") else _inside(rel)
        path = f"{cwd}/{path}"
    path = posixpath.normpath(path)
    parts = [x for x in cwd.split("/") if x]
    root = cwd
    for k in range(1, len(parts)):  # longest tail first
        if "/".join(parts[k:]) in tree:
            root = "/" + "/".join(parts[:k])
            break
    if root and path.startswith(root + "/"):
        return _inside(path[len(root) + 1:])
    comps = path.split("/")
    top = {t.split("/", 1)[0] for t in tree}
    for k, c in enumerate(comps[:-1]):
        if c in repo_names and comps[k + 1] in top:
            return _inside("/".join(comps[k + 1:]))
    return ""


def _inside(rel: str) -> str:
    rel = rel[2:] if rel.startswith("./") else rel
    if not rel or rel == "." or rel.startswith("../") or rel.split("/", 1)[0] in (".thehook", ".git", ".."):
        return ""
    return rel


def repo_calls(gitdir: Path, sessions: list, repo_names: set) -> dict:
    """Sets each call's `rel` (repository-relative path, see `repo_rel`) against the
    session's start commit and drops the calls outside the repository; returns counts."""
    trees: dict[str, set] = {}
    stats = {"file_calls_in_transcripts": 0, "file_calls_outside_repo": 0}
    for s in sessions:
        if s.start_commit not in trees:
            names = git(gitdir, "ls-tree", "-r", "-t", "--name-only", s.start_commit, check=False).splitlines()
            trees[s.start_commit] = set(names)
        tree = trees[s.start_commit]
        kept = []
        for c in s.file_calls:
            stats["file_calls_in_transcripts"] += 1
            rel = c.get("rel") or repo_rel(c["path"], c["cwd"], tree, repo_names)
            if rel:
                kept.append({**c, "rel": rel})
            else:
                stats["file_calls_outside_repo"] += 1
        s.file_calls = kept
    return stats


def load_sessions(name: str, root: Path, repo_names: set) -> tuple[list[Session], dict]:
    by_id: dict[str, Session] = {}
    stats = {"checkpoints": 0, "checkpoints_without_transcript": 0}
    for meta_path in sorted((root / "checkpoints").glob("*/*/*/metadata.json")):
        m = json.loads(meta_path.read_text())
        sid = m.get("session_id")
        if not sid:
            continue
        # old Entire ids are `YYYY-MM-DD-<uuid>`, one per day of the same agent session
        sid = re.sub(r"^\d{4}-\d{2}-\d{2}-(?=[0-9a-f]{8}-)", "", sid)
        stats["checkpoints"] += 1
        s = by_id.setdefault(sid, Session(sid=sid, history=name))
        created = parse_time(m.get("created_at"))
        s.checkpoints.append((created, m.get("checkpoint_id", ""), meta_path.parent))
        s.files |= {normalise(f, repo_names) for f in m.get("files_touched") or []}
        if m.get("branch"):
            s.branches.add(m["branch"])
        if not (meta_path.parent / "full.jsonl").exists():
            stats["checkpoints_without_transcript"] += 1
    sessions, no_transcript = [], 0
    for s in by_id.values():
        s.checkpoints.sort(key=lambda c: c[0] or dt.datetime.max.replace(tzinfo=dt.timezone.utc))
        fulls = [c[2] / "full.jsonl" for c in s.checkpoints if (c[2] / "full.jsonl").exists()]
        s.meta_branch = next((json.loads((c[2] / "metadata.json").read_text()).get("branch") or ""
                              for c in s.checkpoints), "")
        if not fulls:
            no_transcript += 1
            continue
        s.transcript = max(fulls, key=lambda p: p.stat().st_size)
        t = read_transcript(s.transcript)
        starts = [c[0] for c in s.checkpoints if c[0]] + ([t["first_ts"]] if t["first_ts"] else [])
        s.start = min(starts)
        s.start_branch = t["branch"] or s.meta_branch or ""
        if s.start_branch:
            s.branches.add(s.start_branch)
        s.ask, s.ask_line, s.agent, s.codex_commit = t["ask"], t["ask_line"], t["agent"], t["commit"]
        s.aliases = {s.sid, *t["ids"]}
        s.file_calls = file_calls(s.transcript)
        s.context_events = context_events(s.transcript)
        sessions.append(s)
    sessions.sort(key=lambda s: (s.start, s.sid))
    stats.update(sessions_total=len(by_id), sessions_without_transcript=no_transcript,
                 sessions=len(sessions))
    return sessions, stats


# ---------------------------------------------------------------- start commits

def checkpoint_commits(gitdir: Path) -> dict[str, list[tuple[int, str]]]:
    """checkpoint id -> [(commit time, sha)] of code commits carrying its trailer."""
    out: dict[str, list] = {}
    fmt = "%H|%ct|%(trailers:key=Entire-Checkpoint,valueonly,separator=%x2C)"
    for line in git(gitdir, "log", "--all", "--not", f"refs/heads/{BRANCH}", f"--format={fmt}").splitlines():
        parts = line.split("|", 2)
        if len(parts) == 3 and parts[2].strip():
            for cid in parts[2].split(","):
                out.setdefault(cid.strip(), []).append((int(parts[1]), parts[0]))
    return out


def resolve_start_commits(gitdir: Path, sessions: list[Session]) -> dict:
    trailers = checkpoint_commits(gitdir)
    heads = set(git(gitdir, "for-each-ref", "--format=%(refname:short)", "refs/heads").split())
    main = "main" if "main" in heads else "master"
    rules: dict[str, int] = {}

    def last_before(rev, when, first_parent=True):
        args = ["rev-list", "-n1", f"--before={int(when.timestamp())}"]
        if first_parent:
            args.append("--first-parent")
        return git(gitdir, *args, rev, check=False).strip()

    for s in sessions:
        sha, rule = "", ""
        if s.codex_commit and subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "-e",
                                              s.codex_commit + "^{commit}"], capture_output=True).returncode == 0:
            sha, rule = s.codex_commit, "transcript commit"
        if not sha:
            linked = sorted(c for cp in s.checkpoints for c in trailers.get(cp[1], []))
            if linked:
                sha = last_before(linked[0][1], s.start)
                rule = "checkpoint trailer" if sha else ""
        if not sha and s.start_branch in heads:
            sha = last_before(f"refs/heads/{s.start_branch}", s.start)
            rule = "branch ref" if sha else ""
        if not sha:
            sha = last_before(f"refs/heads/{main}", s.start)
            rule = "main" if sha else ""
        if not sha:  # started before the first commit on main: the first commit
            sha = git(gitdir, "rev-list", "--max-parents=0", f"refs/heads/{main}").split()[-1]
            rule = "root"
        s.start_commit, s.commit_rule = sha, rule
        s.main_commit = last_before(f"refs/heads/{main}", s.start) or sha
        rules[rule] = rules.get(rule, 0) + 1
    return rules


# ---------------------------------------------------------------- replay

def matcher_takes(matcher: str, tool: str) -> bool:
    """Whether a hook group's matcher takes `tool`, as Claude Code applies it to tool
    names: absent, empty or "*" takes every tool; otherwise a regular expression that must
    match the whole name (`^(?:matcher)$`); an invalid one takes only the tool it spells."""
    if matcher in ("", "*"):
        return True
    try:
        return re.fullmatch(f"(?:{matcher})", tool) is not None
    except re.error:
        return matcher == tool


def clean_path() -> str:
    keep = []
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if d and not any(os.access(os.path.join(d, b), os.X_OK) for b in LLM_BINARIES):
            keep.append(d)
    return os.pathsep.join(keep)


class Replayer:
    def __init__(self, name, gitdir, root, binary, llm):
        self.name, self.gitdir, self.root, self.bin, self.llm = name, gitdir, root, binary, llm
        self.tree = (root / f"worktree-{llm}").resolve()  # the file hook gets absolute paths
        self.sandbox = (root / f"sandbox-{llm}").resolve()
        self.env = dict(os.environ, THEHOOK_BACKGROUND="0", PATH=clean_path(), NO_COLOR="1")
        self.env.pop("THEHOOK_CHILD", None)
        self.hooks: dict[str, str] = {}  # event -> the first thehook command init wrote for it
        self.matchers: dict[str, str] = {}
        self.file_hooks_cfg: list[tuple[str, str]] = []  # every PreToolUse (matcher, command) of thehook
        self.front: dict[str, tuple[float, str]] = {}  # session file -> (mtime, session_id)
        self.missing_paths: set[str] = set()

    def run(self, args, **kw):
        return subprocess.run(args, capture_output=True, text=True, env=self.env, cwd=self.tree, **kw)

    def setup(self):
        for d in (self.tree, self.sandbox):
            if d.exists():
                shutil.rmtree(d)
        self.sandbox.mkdir(parents=True)
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(self.gitdir), str(self.tree)],
                       check=True, capture_output=True)
        with open(self.tree / ".git" / "info" / "exclude", "a") as fh:
            fh.write("\n/.thehook/\n")
        # No ref from the future: drop the clone's remote-tracking refs and tags; main is
        # moved to where it was at each session's start (see checkout).
        self.run(["git", "remote", "remove", "origin"], check=True)
        refs = self.run(["git", "for-each-ref", "--format=%(refname)", "refs/remotes", "refs/tags"]).stdout.split()
        self.run(["git", "update-ref", "--stdin"], input="".join(f"delete {r}\n" for r in refs), check=True)
        r = self.run([str(self.bin), "init", "--agent", "claude-code", "--bin", str(self.bin)])
        if r.returncode != 0:
            raise RuntimeError(f"thehook init failed: {r.stdout}{r.stderr}")
        settings = json.loads((self.tree / ".claude" / "settings.json").read_text())
        for event, groups in (settings.get("hooks") or {}).items():
            for g in groups:
                for h in g.get("hooks", []):
                    if "thehook" not in h.get("command", ""):
                        continue
                    if event not in self.hooks:
                        self.hooks[event] = h["command"]
                        self.matchers[event] = g.get("matcher") or ""
                    if event == "PreToolUse":
                        self.file_hooks_cfg.append((g.get("matcher") or "", h["command"]))
        log(f"[{self.name}] hooks: {self.hooks}; file hooks (matcher, command): {self.file_hooks_cfg}")
        if "SessionStart" not in self.hooks:
            raise RuntimeError("init wrote no SessionStart hook")
        if "UserPromptSubmit" not in self.hooks:
            log(f"[{self.name}] WARNING: init wrote no UserPromptSubmit hook: prompt scoring skipped")
        if "PreToolUse" not in self.hooks:
            log(f"[{self.name}] WARNING: init wrote no PreToolUse hook: file-hook scoring skipped")
        cfg = self.tree / ".thehook" / "config.yaml"
        if self.llm == "fake":
            text = cfg.read_text() if cfg.exists() else ""
            text = re.sub(r"(?m)^llm:\n(?:[ \t#].*\n|\n)*", "", text)
            cfg.write_text(text + FAKE_LLM_YAML)
        # init may have written tracked-looking files (.claude/, CLAUDE.md): checkout -f overwrites them.

    def checkout(self, s: Session) -> bool:
        branch = s.start_branch if s.start_branch and s.start_branch != "HEAD" else "main"
        self.run(["git", "checkout", "-q", "--detach"])
        if branch != "main":
            self.run(["git", "update-ref", "refs/heads/main", s.main_commit])
        # a branch `a` blocks `a/b` and the other way round: drop the blocking local branch
        heads = self.run(["git", "for-each-ref", "--format=%(refname:short)", "refs/heads"]).stdout.split()
        for h in heads:
            if h != branch and h != "main" and (branch.startswith(h + "/") or h.startswith(branch + "/")):
                self.run(["git", "branch", "-q", "-D", h])
        for _ in range(2):
            r = self.run(["git", "checkout", "-q", "-f", "-B", branch, s.start_commit])
            if r.returncode == 0:
                return True
            if "unable to read" not in r.stderr or not self.skip_missing_blobs(s.start_commit):
                break
        log(f"  checkout failed for {s.sid}: {r.stderr.strip()[:200]}")
        return False

    def skip_missing_blobs(self, commit: str) -> bool:
        """Leave out of the work tree (sparse checkout) the files whose blobs the snapshot lacks."""
        entries = [l.split("\t", 1) for l in self.run(["git", "ls-tree", "-r", commit]).stdout.splitlines()]
        blobs = [(meta.split()[2], path) for meta, path in entries if meta.split()[1] == "blob"]
        check = self.run(["git", "cat-file", "--batch-check"], input="".join(b + "\n" for b, _ in blobs)).stdout
        missing = {path for (sha, path), line in zip(blobs, check.splitlines()) if line.endswith("missing")}
        if not missing - self.missing_paths:
            return False
        self.missing_paths |= missing
        log(f"  {len(missing)} file(s) absent from the snapshot left out of the work tree: {sorted(missing)[:3]}")
        self.run(["git", "config", "core.sparseCheckout", "true"])
        info = self.tree / ".git" / "info" / "sparse-checkout"
        info.write_text("/*\n" + "".join(f"!/{p}\n" for p in sorted(self.missing_paths)))
        return True

    def hook(self, event: str, payload: dict, command: str | None = None) -> tuple[str, float, str]:
        t0 = time.perf_counter()
        try:
            r = self.run(["sh", "-c", command or self.hooks[event]], input=json.dumps(payload), timeout=120)
        except subprocess.TimeoutExpired:
            return "", (time.perf_counter() - t0) * 1000, "timed out after 120 s"
        ms = (time.perf_counter() - t0) * 1000
        block, err = "", ""
        if r.returncode != 0:
            err = f"exit {r.returncode}: {r.stderr.strip()[:300]}"
        if r.stdout.strip():
            try:
                out = json.loads(r.stdout)
                block = ((out.get("hookSpecificOutput") or {}).get("additionalContext")) or ""
            except ValueError:
                err = err or f"stdout not JSON: {r.stdout[:200]}"
        return block, ms, err

    def file_hooks(self, s: Session, calls: list[dict], base: dict, rec: dict, alias: dict) -> None:
        """Runs the file hook(s) (PreToolUse commands init wrote whose matcher takes the
        tool) for each call, in order, as Claude Code would before the tool runs; appends
        what each call was given to rec["file_calls"] (several matching commands: their
        blocks joined by a blank line, times summed, as one call). Calls no matcher takes
        are counted in rec["file_calls_unmatched"]."""
        if not self.file_hooks_cfg:
            return
        for c in calls:
            commands = [cmd for m, cmd in self.file_hooks_cfg if matcher_takes(m, c["tool"])]
            if not commands:
                rec["file_calls_unmatched"] = rec.get("file_calls_unmatched", 0) + 1
                continue
            key = "notebook_path" if c["tool"] == "NotebookEdit" else "file_path"
            payload = {**base, "hook_event_name": "PreToolUse", "tool_name": c["tool"],
                       "tool_input": {key: str(self.tree / c["rel"])},
                       "tool_use_id": f"toolu_replay_{len(rec['file_calls']):04d}"}
            blocks, ms, errs = [], 0.0, []
            for cmd in commands:
                block, t, err = self.hook("PreToolUse", payload, cmd)
                ms += t
                if block:
                    blocks.append(block)
                if err:
                    errs.append(err)
            block = "\n\n".join(blocks)
            cited, other = self.cited(block, alias)
            rec["file_calls"].append({"tool": c["tool"], "rel": c["rel"], "edit": c["edit"],
                                      "transcript_line": c["line"], "ms": round(ms, 1), "chars": len(block),
                                      "block": block, "cited": cited, "other_cites": other,
                                      "error": "; ".join(errs)})

    def walk(self, s: Session, calls: list[dict], events: list[dict], base: dict, rec: dict,
             alias: dict) -> None:
        """Runs the file calls and the context events (subagent starts, compactions) in
        transcript order, a call before an event of the same line."""
        items = [(c["line"], 0, c) for c in calls] + [(e["line"], 1, e) for e in events]
        for _, is_event, item in sorted(items, key=lambda x: (x[0], x[1])):
            if is_event:
                self.context_hooks([item], base, rec, alias)
            else:
                self.file_hooks(s, [item], base, rec, alias)

    def takes_compact(self) -> bool:
        """Whether the SessionStart hook init wrote runs after a compaction."""
        return matcher_takes(self.matchers.get("SessionStart", ""), "compact")

    def context_hooks(self, events: list[dict], base: dict, rec: dict, alias: dict) -> None:
        """Runs, for each event in order, what Claude Code runs: for a subagent start,
        the PreToolUse commands init wrote whose matcher takes its tool (`Agent`, which
        keeps its task) and then the SubagentStart hook (`agent_id`: the tool call's id,
        `agent_type`); for a compaction, the SessionStart hook with `source: compact` when
        its matcher takes it. Appends `{kind, line, agent_type, ms, chars, block, cited,
        other_cites, error}` to rec["context_events"]; an event with no hook to run is
        counted in rec["context_events_unhooked"]."""
        for e in events:
            blocks, ms, errs = [], 0.0, []
            if e["kind"] == "subagent" and "SubagentStart" in self.hooks:
                call = {**base, "hook_event_name": "PreToolUse", "tool_name": "Agent",
                        "tool_input": {"description": e["description"], "prompt": e["prompt"],
                                       "subagent_type": e["agent_type"]}, "tool_use_id": e["id"]}
                for cmd in [c for m, c in self.file_hooks_cfg if matcher_takes(m, "Agent")]:
                    _, t, err = self.hook("PreToolUse", call, cmd)
                    ms += t
                    errs += [err] if err else []
                start = {**base, "hook_event_name": "SubagentStart", "agent_id": e["id"],
                         "agent_type": e["agent_type"]}
                block, t, err = self.hook("SubagentStart", start)
            elif e["kind"] == "compact" and self.takes_compact():
                block, t, err = self.hook("SessionStart", {**base, "hook_event_name": "SessionStart",
                                                           "source": "compact"})
            else:
                rec["context_events_unhooked"] = rec.get("context_events_unhooked", 0) + 1
                continue
            ms += t
            errs += [err] if err else []
            cited, other = self.cited(block, alias)
            rec["context_events"].append({"kind": e["kind"], "line": e["line"],
                                          "agent_type": e.get("agent_type", ""), "ms": round(ms, 1),
                                          "chars": len(block), "block": block, "cited": cited,
                                          "other_cites": other, "error": "; ".join(errs)})

    def capture(self, s: Session) -> tuple[dict, float]:
        t0 = time.perf_counter()
        r = self.run([str(self.bin), "capture", "--transcript", str(s.transcript), "--json"], timeout=600)
        ms = (time.perf_counter() - t0) * 1000
        try:
            out = json.loads(r.stdout) if r.stdout.strip() else {}
        except ValueError:
            out = {"raw": r.stdout[:500]}
        if r.returncode != 0:
            out["error"] = f"exit {r.returncode}: {r.stderr.strip()[:300]}"
        return out, ms

    def session_of(self, rel: str) -> str:
        """session_id in the front matter of a session file (cached by mtime)."""
        p = self.tree / ".thehook" / "sessions" / rel
        try:
            mt = p.stat().st_mtime
        except OSError:
            return ""
        if rel in self.front and self.front[rel][0] == mt:
            return self.front[rel][1]
        sid = ""
        with open(p, encoding="utf-8", errors="replace") as fh:
            for i, line in enumerate(fh):
                m = re.match(r"^session_id:\s*['\"]?([^'\"\s#]+)", line)
                if m:
                    sid = m.group(1)
                    break
                if i > 30:
                    break
        self.front[rel] = (mt, sid)
        return sid

    def cited(self, block: str, alias: dict) -> tuple[list, int]:
        """Sessions (history ids) cited by a block, and the number of other citations."""
        out, other = [], 0
        for m in CITE.finditer(block):
            fid = self.session_of(m.group(1))
            sid = alias.get(fid, "")
            if sid and sid not in out:
                out.append(sid)
            elif not sid:
                other += 1
        return out, other


def replay(name, gitdir, root, binary, llm, sessions, alias, eval_history, config=""):
    rp = Replayer(name, gitdir, root, binary, llm)
    rp.setup()
    if config:
        # The variant replaces the defaults init wrote (every key is optional).
        cfg = rp.tree / ".thehook" / "config.yaml"
        cfg.write_text(config + "\n" + (FAKE_LLM_YAML if llm == "fake" else ""))
        log(f"[{name}] config.yaml: {config!r}")
    records, captured = [], []
    t_all = time.perf_counter()
    for i, s in enumerate(sessions):
        rec = {"sid": s.sid, "start": iso(s.start), "branch": s.start_branch, "commit": s.start_commit,
               "commit_rule": s.commit_rule, "agent": s.agent, "ask": s.ask[:200], "files": sorted(s.files),
               "transcript": str(s.transcript), "captured_before": list(captured)}
        if not rp.checkout(s):
            rec["checkout_failed"] = True
        tpath = rp.sandbox / f"{s.sid}.jsonl"
        if tpath.exists():
            tpath.unlink()
        base = {"session_id": s.sid, "transcript_path": str(tpath), "cwd": str(rp.tree)}
        block, ms, err = rp.hook("SessionStart", {**base, "hook_event_name": "SessionStart", "source": "startup"})
        rec.update(start_block=block, start_ms=round(ms, 1), start_error=err)
        rec["start_cited"], rec["start_other_cites"] = rp.cited(block, alias)
        fired = [("start", None)] if block.strip() else []
        calls = s.file_calls[:MAX_FILE_CALLS]  # in transcript order
        early = [c for c in calls if not s.ask or c["line"] < s.ask_line]
        rec["file_calls"] = []
        rec["file_hook"] = bool(rp.file_hooks_cfg)
        rec["file_calls_in_transcript"] = len(s.file_calls)
        rec["file_calls_capped"] = len(s.file_calls) > MAX_FILE_CALLS
        rec["context_events"] = []
        events = s.context_events
        rp.walk(s, early, [e for e in events if not s.ask or e["line"] < s.ask_line], base, rec, alias)
        rec["file_calls_before_prompt"] = len(rec["file_calls"])
        if "UserPromptSubmit" in rp.hooks and not s.ask:  # the prompt hook would add nothing
            rec.update(prompt_block="", prompt_ms=0.0, prompt_error="", prompt_cited=[], prompt_other_cites=0,
                       prompt_skipped="no real ask found in the transcript")
        if "UserPromptSubmit" in rp.hooks and s.ask:
            with open(s.transcript, encoding="utf-8", errors="replace") as src, open(tpath, "w") as dst:
                for j, line in enumerate(src):
                    if j >= s.ask_line:
                        break
                    dst.write(line)
            block, ms, err = rp.hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit",
                                                          "prompt": s.ask})
            rec.update(prompt_block=block, prompt_ms=round(ms, 1), prompt_error=err)
            rec["prompt_cited"], rec["prompt_other_cites"] = rp.cited(block, alias)
            if block.strip():
                fired.append(("prompt", None))
        late = [e for e in events if s.ask and e["line"] >= s.ask_line]
        rp.walk(s, calls[len(early):], late, base, rec, alias)
        # Early file calls ran before the prompt hook; the order of kinds is all
        # retime_given needs (it matches start, prompt and file records apart).
        fired += [("file", c["transcript_line"]) for c in rec["file_calls"] if c["chars"]]
        for e in rec["context_events"]:
            if e["kind"] == "compact":
                fired += [("start-over", e["line"])] + ([("start", e["line"])] if e["chars"] else [])
        retime_given(rp.tree, s, fired)
        out, ms = rp.capture(s)
        rec.update(capture_ms=round(ms, 1), capture=out)
        written = [p for p in rp.tree.joinpath(".thehook", "sessions").glob("*.md")] \
            if rp.tree.joinpath(".thehook", "sessions").exists() else []
        ids = {alias.get(rp.session_of(p.name), "") for p in written}
        rec["captured"] = s.sid in ids
        if rec["captured"]:
            captured.append(s.sid)
        else:
            rec["capture_problem"] = "no session file with this session_id after capture"
        records.append(rec)
        fc = rec["file_calls"]
        log(f"[{name}] {i + 1}/{len(sessions)} {s.start:%Y-%m-%d} {s.sid[-8:]} start={rec['start_ms']:.0f}ms "
            f"cites={len(rec['start_cited'])} prompt={rec.get('prompt_ms', 0):.0f}ms "
            f"files={len(fc)} ({sum(1 for c in fc if c['chars'])} said) "
            f"capture={rec['capture_ms']:.0f}ms{' ' + err if err else ''}"
            f"{'' if rec['captured'] else ' NOT CAPTURED'}")
    hooks = dict(rp.hooks, **({"PreToolUse (matcher, command)": rp.file_hooks_cfg} if rp.file_hooks_cfg else {}))
    # The same split as score(): only entireio/cli has an evaluation half.
    tuning = {r["sid"] for r in records if r["captured"]
              and not (eval_history and parse_time(r["start"]) >= parse_time(EVAL_FROM))}
    hooks["used (tuning sessions)"] = used_shares(rp.tree, tuning, alias)
    return records, time.perf_counter() - t_all, hooks


# ---------------------------------------------------------------- scoring

def score(sessions: list[Session], records: list[dict], eval_history: bool) -> list[dict]:
    n = len(sessions)
    limit = max(3, 0.05 * n)
    touch: dict[str, int] = {}
    for s in sessions:
        for f in s.files:
            touch[f] = touch.get(f, 0) + 1
    rare = {f for f, c in touch.items() if c <= limit}
    rec_of = {r["sid"]: r for r in records}
    cutoff = parse_time(EVAL_FROM)
    scored = []
    for i, s in enumerate(sessions):
        r = rec_of[s.sid]
        mine = s.files & rare
        earlier = [e for e in sessions[:i] if e.start < s.start]
        relevant = [e.sid for e in earlier if e.files & mine]
        if not relevant:
            continue
        back = next(k for k, e in enumerate(reversed(sessions[:i]), 1) if e.sid in relevant)
        captured = [c for c in r["captured_before"]]
        start_of = {e.sid: e.start for e in sessions}
        latest = sorted(captured, key=lambda x: start_of[x], reverse=True)
        branch_of = {e.sid: e.branches for e in sessions}
        same = [x for x in latest if s.start_branch and s.start_branch in branch_of[x]]
        branch5 = (same + [x for x in latest if x not in same])[:5]
        methods = {"start": (r["start_cited"], len(r["start_block"])),
                   "latest5": (latest[:5], None), "branch5": (branch5, None)}
        if "prompt_cited" in r:
            union = list(dict.fromkeys(r["start_cited"] + r["prompt_cited"]))
            methods["start+prompt"] = (union, len(r["start_block"]) + len(r.get("prompt_block", "")))
        calls = r.get("file_calls")
        if calls is not None and r.get("file_hook"):
            files_cited = [x for c in calls for x in c["cited"]]
            union = list(dict.fromkeys(r["start_cited"] + r.get("prompt_cited", []) + files_cited))
            chars = len(r["start_block"]) + len(r.get("prompt_block", "")) + sum(c["chars"] for c in calls)
            methods["start+prompt+file"] = (union, chars)
            events = r.get("context_events")
            if events is not None:
                union = list(dict.fromkeys(union + [x for e in events for x in e["cited"]]))
                methods[WITH_CONTEXTS] = (union, chars + sum(e["chars"] for e in events))
        row = {"sid": s.sid, "start": iso(s.start), "relevant": relevant, "back": back,
               "split": "evaluation" if eval_history and s.start >= cutoff else "tuning", "methods": {}}
        rel = set(relevant)
        for m, (cited, chars) in methods.items():
            hits = len(rel & set(cited))
            row["methods"][m] = {"cited": cited, "hit": int(hits > 0),
                                 "precision": hits / len(cited) if cited else 0.0,
                                 "n_cited": len(cited), "chars": chars}
        if "start+prompt+file" in methods:
            row["work"] = work_of(s, r, mine, rel, row["methods"])
        scored.append(row)
    return scored


def contexts_of(r: dict, ask_line: int) -> list[list[str]]:
    """The blocks of each context the session built, in order: the main thread's from
    its start up to a compaction (whose start block opens the next), and each
    subagent's start block on its own."""
    events = r.get("context_events") or []
    # (line, 0: a block of the main thread | 1: a compaction's, block)
    items = [(0, 0, r["start_block"]), (ask_line, 0, r.get("prompt_block", ""))]
    items += [(c["transcript_line"], 0, c["block"]) for c in r.get("file_calls", [])]
    items += [(e["line"], 1, e["block"]) for e in events if e["kind"] == "compact"]
    contexts, current = [], []
    for _, compaction, block in sorted(items, key=lambda x: (x[0], x[1])):
        if compaction:
            contexts.append(current)
            current = []
        current.append(block)
    contexts.append(current)
    return contexts + [[e["block"]] for e in events if e["kind"] == "subagent"]


def work_of(s: Session, r: dict, rare_mine: set, rel: set, methods: dict) -> dict:
    """What the file hook changes for one session. The first rare edit: the first of the
    session's replayed transcript calls (at most MAX_FILE_CALLS) that edits (Edit, Write,
    MultiEdit, NotebookEdit, a Codex patch) a rare file of the session's `files`. Hit by it
    (start+prompt+file): the sessions cited by the start block, the prompt block if the
    first real ask came before the edit, and the file blocks of the calls up to and
    including the edit's, include a relevant earlier session; with no such edit, all the
    session's blocks. start+prompt: the same without file blocks (its plain hit unless the
    edit came before the ask). The other methods keep their plain hit (they come before
    any edit, or have no text). Items given twice: distinct `.thehook/...:<line>` citations found in
    more than one of the session's blocks (start, prompt, each file call)."""
    calls = r["file_calls"]
    replayed = s.file_calls[:MAX_FILE_CALLS]
    edit = next((c for c in replayed if c["edit"] and c["rel"] in rare_mine), None)
    if edit is None:
        upto, after_ask = calls, True
    else:
        upto = [c for c in calls if c["transcript_line"] <= edit["line"]]
        after_ask = not s.ask or edit["line"] >= s.ask_line
    before = set(r["start_cited"]) | (set(r.get("prompt_cited", [])) if after_ask else set())
    cited = before | {x for c in upto for x in c["cited"]}
    blocks = [r["start_block"], r.get("prompt_block", "")] + [c["block"] for c in calls]
    seen: dict[str, int] = {}
    for b in blocks:
        for c in set(ANY_CITE.findall(b)):
            seen[c] = seen.get(c, 0) + 1
    twice = sorted(c for c, n in seen.items() if n > 1)
    # Given twice within one context: a compaction starts the main thread's over, and
    # each subagent's context is its own.
    in_context = 0
    for blocks_of in contexts_of(r, s.ask_line):
        counts: dict[str, int] = {}
        for b in blocks_of:
            for c in set(ANY_CITE.findall(b)):
                counts[c] = counts.get(c, 0) + 1
        in_context += sum(1 for n in counts.values() if n > 1)
    events = r.get("context_events") or []
    upto_events = events if edit is None else [e for e in events if e["line"] <= edit["line"]]
    with_contexts = {}
    if WITH_CONTEXTS in methods:
        cited_ctx = cited | {x for e in upto_events for x in e["cited"]}
        with_contexts = {WITH_CONTEXTS: int(bool(rel & cited_ctx))}
    return {"rare_edit": edit is not None,
            "rare_edit_at": None if edit is None else {"tool": edit["tool"], "rel": edit["rel"],
                                                        "transcript_line": edit["line"],
                                                        "before_ask": not after_ask,
                                                        "file_calls_up_to_it": len(upto)},
            "hit_by_edit": {**{m: methods[m]["hit"] for m in methods},
                            **({"start+prompt": int(bool(rel & before))} if "start+prompt" in methods else {}),
                            "start+prompt+file": int(bool(rel & cited)), **with_contexts},
            "given_twice": len(twice), "given_twice_items": twice,
            "given_twice_in_a_context": in_context,
            "subagents": sum(1 for e in events if e["kind"] == "subagent"),
            "compactions": sum(1 for e in events if e["kind"] == "compact"),
            "calls": len(calls), "said": sum(1 for c in calls if c["chars"]),
            "ms": [c["ms"] for c in calls]}


def pct(xs, q):
    """The q-quantile by nearest rank (sorted[int(q * n)]), 0 for none."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0


def work_table(rows: list[dict], title: str) -> str:
    """The file hook's table: hit by the first rare edit, precision over all the session's
    citations, characters over the whole session, items given twice, file-hook calls."""
    rows = [r for r in rows if "work" in r]
    if not rows:
        return ""
    order = ["start", "start+prompt", "start+prompt+file", WITH_CONTEXTS, "latest5", "branch5"]
    methods = [m for m in order if m in rows[0]["methods"]]
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    base_p = mean([r["methods"]["latest5"]["precision"] for r in rows])
    with_edit = [r for r in rows if r["work"]["rare_edit"]]
    before_ask = sum(1 for r in with_edit if r["work"]["rare_edit_at"]["before_ask"])
    lines = [f"### {title}: the work (file hook)", "",
             f"scored sessions: {len(rows)}; with a rare edit: {len(with_edit)} ({before_ask} of them before the "
             f"first real ask); without one: {len(rows) - len(with_edit)} (scored with all their hooks).", "",
             "| method | hit by the first rare edit | same, sessions with a rare edit | precision "
             "| precision / latest5 | chars median | chars p90 |",
             "|---|---|---|---|---|---|---|"]
    for m in methods:
        hit = mean([r["work"]["hit_by_edit"][m] for r in rows])
        hit_e = mean([r["work"]["hit_by_edit"][m] for r in with_edit])
        prec = mean([r["methods"][m]["precision"] for r in rows])
        chars = [r["methods"][m]["chars"] for r in rows if r["methods"][m]["chars"] is not None]
        ch = (f"{statistics.median(chars):.0f} | {pct(chars, 0.9):.0f}") if chars else "- | -"
        lines.append(f"| {m} | {hit:.3f} | {hit_e:.3f} | {prec:.3f} | "
                     f"{prec / base_p if base_p else 0:.2f}x | {ch} |")
    twice = [r["work"]["given_twice"] for r in rows]
    calls = [r["work"]["calls"] for r in rows]
    said = sum(r["work"]["said"] for r in rows)
    ms = [x for r in rows for x in r["work"]["ms"]]
    in_context = [r["work"].get("given_twice_in_a_context", 0) for r in rows]
    subagents = [r for r in rows if r["work"].get("subagents")]
    if subagents and WITH_CONTEXTS in methods:
        # The sessions that started subagents, whose work the file hook never sees.
        hit = lambda m: mean([r["work"]["hit_by_edit"][m] for r in subagents])
        lines += ["", f"sessions that started subagents: {len(subagents)} "
                  f"({sum(r['work']['subagents'] for r in rows)} subagent starts, "
                  f"{sum(r['work'].get('compactions', 0) for r in rows)} compactions in all sessions); "
                  f"their hit by the first rare edit: start+prompt+file {hit('start+prompt+file'):.3f}, "
                  f"{WITH_CONTEXTS} {hit(WITH_CONTEXTS):.3f}, latest5 {hit('latest5'):.3f}"]
    lines += ["", f"items given twice in one context (a compaction starts the main thread's over; each "
              f"subagent's is its own): {sum(in_context)}",
              f"items given twice in one session: {sum(twice)} (in {sum(1 for t in twice if t)} sessions); "
              f"file-hook calls: {sum(calls)} (median {statistics.median(calls) if calls else 0} a session), "
              f"{said / sum(calls) if sum(calls) else 0:.3f} of them printed something; "
              f"file hook ms p50 {statistics.median(ms) if ms else 0:.1f}, p90 {pct(ms, 0.9):.1f}", ""]
    return "\n".join(lines)


def table(rows: list[dict], title: str) -> str:
    order = ["start", "start+prompt", "start+prompt+file", WITH_CONTEXTS, "latest5", "branch5"]
    methods = [m for m in order if rows and m in rows[0]["methods"]]
    if not rows:
        return f"### {title}\n\n(no scored sessions)\n"
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    agg = {}
    for m in methods:
        ms = [r["methods"][m] for r in rows if m in r["methods"]]
        chars = [x["chars"] for x in ms if x["chars"] is not None]
        agg[m] = {"hit": mean([x["hit"] for x in ms]), "precision": mean([x["precision"] for x in ms]),
                  "cited": mean([x["n_cited"] for x in ms]), "chars": mean(chars) if chars else None, "n": len(ms)}
    base = agg["latest5"]
    ratio = lambda a, b: f"{a / b:.2f}x" if b else "n/a"
    lines = [f"### {title}", "",
             "| method | hit | precision | sessions cited | chars | n scored | hit / latest5 | precision / latest5 |",
             "|---|---|---|---|---|---|---|---|"]
    for m in methods:
        a = agg[m]
        ch = f"{a['chars']:.0f}" if a["chars"] is not None else "-"
        lines.append(f"| {m} | {a['hit']:.3f} | {a['precision']:.3f} | {a['cited']:.2f} | {ch} | {a['n']} | "
                     f"{ratio(a['hit'], base['hit'])} | {ratio(a['precision'], base['precision'])} |")
    backs = [r["back"] for r in rows]
    lines += ["", f"median sessions back to the nearest relevant earlier session: {statistics.median(backs)}", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- main

def snapshot_binary(binary: Path, cache: Path) -> Path:
    """Copy the binary (with the ONNX Runtime and model beside it) into the cache, so a
    rebuild during a run does not change the program halfway."""
    st = binary.stat()
    dest = cache / "bin" / f"{int(st.st_mtime)}-{st.st_size}"
    if not (dest / binary.name).exists():
        tmp = dest.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for p in binary.parent.iterdir():
            if p == binary or p.name.startswith("libonnxruntime"):
                shutil.copy2(p, tmp / p.name)
            elif p.name == "model" and p.is_dir():
                shutil.copytree(p, tmp / "model")
        shutil.rmtree(dest, ignore_errors=True)
        tmp.rename(dest)
    return dest / binary.name


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("histories", nargs="*", help="NAME=GITDIR or GITDIR (same as --history)")
    ap.add_argument("--history", action="append", default=[], help="NAME=GITDIR, repeatable")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "thehook-replay")
    ap.add_argument("--bin", type=Path, default=Path(__file__).resolve().parent.parent / "target/release/thehook")
    ap.add_argument("--llm", choices=["none", "fake"], default="none")
    ap.add_argument("--limit", type=int, default=0, help="at most N sessions per history (0: all)")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--config", default="", help="the work trees' .thehook/config.yaml instead of the defaults "
                    "init writes (a variant to compare, e.g. 'retrieval:\\n  subagents: {default: task}')")
    ap.add_argument("--no-bin-copy", action="store_true",
                    help="run --bin in place (default: a copy in the cache, safe from rebuilds)")
    a = ap.parse_args(argv)
    specs = a.history + a.histories
    if not specs:
        ap.error("give at least one history: --history NAME=GITDIR")
    binary = a.bin.resolve()
    if not binary.exists():
        log(f"no thehook binary at {binary}")
        return 2
    if not a.no_bin_copy:
        source = binary
        binary = snapshot_binary(binary, a.cache)
        log(f"running a copy of {source}: {binary}")
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()
    results = {"bin": str(binary), "version": version, "llm": a.llm, "limit": a.limit, "histories": {}}
    report = [f"# thehook replay ({version}, --llm {a.llm}{f', --limit {a.limit}' if a.limit else ''})", ""]
    all_rows = {"tuning": [], "evaluation": []}
    for spec in specs:
        name, _, gd = spec.rpartition("=")
        gitdir = Path(gd).resolve()
        name = name or gitdir.parent.name.replace("+", "-")
        eval_history = EVAL_HISTORY in f"{name} {gitdir}".replace("+", "/") or name == "cli"
        root = a.cache / name
        info = extract(name, gitdir, root / "extract")
        repo_names = {name, gitdir.parent.name.split("+")[-1], "cli", "entire-graph", "entire-sem"}
        sessions, stats = load_sessions(name, root / "extract", repo_names)
        if a.limit:
            sessions = sessions[: a.limit]
        rules = resolve_start_commits(gitdir, sessions)
        stats.update(repo_calls(gitdir, sessions, repo_names))
        alias = {x: s.sid for s in sessions for x in s.aliases}
        log(f"[{name}] {len(sessions)} sessions to replay; start commits: {rules}")
        t0 = time.perf_counter()
        records, secs, hooks = replay(name, gitdir, root, binary, a.llm, sessions, alias, eval_history,
                                      a.config.replace("\\n", "\n"))
        rows = score(sessions, records, eval_history)
        elapsed = time.perf_counter() - t0
        h = {"gitdir": str(gitdir), "extraction": info, "stats": stats, "start_commit_rules": rules,
             "hooks": hooks, "seconds": round(elapsed, 1), "records": records, "scored": rows,
             "not_captured": sum(1 for r in records if not r["captured"]),
             "checkout_failed": sum(1 for r in records if r.get("checkout_failed")),
             "hook_errors": sum(1 for r in records if r.get("start_error") or r.get("prompt_error")
                                or any(c["error"] for c in r.get("file_calls", [])))}
        results["histories"][name] = h
        def ms(k):
            xs = [r[k] for r in records if k in r and not r.get("prompt_skipped")]
            return statistics.median(xs) if xs else 0
        report += [f"## {name} ({gitdir})", "",
                   f"checkpoints: {stats['checkpoints']} ({stats['checkpoints_without_transcript']} without "
                   f"transcript, skipped); sessions: {stats['sessions_total']} ({stats['sessions_without_transcript']} "
                   f"with no transcript at all, skipped), replayed: {len(sessions)}, not captured: {h['not_captured']}, "
                   f"checkout failures: {h['checkout_failed']}, hook errors: {h['hook_errors']}",
                   f"start commits: {rules}",
                   f"replay: {elapsed:.0f} s; median ms: SessionStart {ms('start_ms'):.0f}, "
                   f"prompt {ms('prompt_ms'):.0f}, capture {ms('capture_ms'):.0f}", ""]
        u = hooks["used (tuning sessions)"]
        share = lambda h: f"{u[h]['used']}/{u[h]['given']} ({100 * u[h]['used'] / u[h]['given']:.1f}%)" \
            if u[h]["given"] else "-"
        report += [f"lines given that the session used (tuning sessions, {u['marked_sessions']} marked at capture): "
                   f"start {share('start')}, prompt {share('prompt')}, file {share('file')}", ""]
        if "UserPromptSubmit" not in hooks:
            report += ["(no UserPromptSubmit hook in the settings init wrote: start+prompt not scored)", ""]
        if "PreToolUse" not in hooks:
            report += ["(no PreToolUse hook of thehook in the settings init wrote: the file hook was not run and "
                       "start+prompt+file is not scored)", ""]
        else:
            recs = [r for r in records if r.get("file_hook")]
            report += [f"main-thread file tool calls in the transcripts: {stats['file_calls_in_transcripts']} "
                       f"({stats['file_calls_outside_repo']} outside the repository, not replayed); "
                       f"replayed through the file hook: {sum(len(r['file_calls']) for r in recs)}; "
                       f"sessions over the cap of {MAX_FILE_CALLS}: {sum(1 for r in recs if r.get('file_calls_capped'))}; "
                       f"calls no matcher took: {sum(r.get('file_calls_unmatched', 0) for r in recs)}", ""]
        for split in ("tuning", "evaluation"):
            part = [r for r in rows if r["split"] == split]
            all_rows[split] += part
            if part or split == "tuning":
                label = f"{name}, {split}" + (" (EVALUATION: do not use these numbers to choose anything)"
                                              if split == "evaluation" else "")
                report.append(table(part, label))
                report.append(work_table(part, label))
    if len(specs) > 1:
        report.append(table(all_rows["tuning"], "all histories, tuning"))
        report.append(work_table(all_rows["tuning"], "all histories, tuning"))
        if all_rows["evaluation"]:
            label = "all histories, evaluation (EVALUATION: do not use these numbers to choose anything)"
            report.append(table(all_rows["evaluation"], label))
            report.append(work_table(all_rows["evaluation"], label))
    report.append("Evaluation rows (entireio/cli sessions from 2026-02-01 on) must not be used to choose anything.")
    text = "\n".join(report)
    print(text)
    a.cache.mkdir(parents=True, exist_ok=True)
    out = a.cache / f"results-{a.llm}.json"
    for p in [out] + ([a.json] if a.json else []):
        p.write_text(json.dumps(results, indent=1, default=str))
        log(f"results written to {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
