#!/usr/bin/env python3
"""A fake LLM for bench/replay.py (`--llm fake`): deterministic, offline.

thehook runs it as `llm.cli: command`; the prompt arrives on stdin and the
answer goes to stdout. Two prompts are understood:

* the session extraction prompt (`capture/extract.rs`, `prompt()`): the answer
  is a `Title:` line and the four sections, derived only from the condensed
  transcript after `--- transcript ---`: the title from the first ask, the
  summary from the asks and the files changed, a convention from test files
  changed, a gotcha from the first tool error line (preferring one that says more
  than an exit code), if any;
* the consolidation prompt (`capture/consolidate.rs`): every current item is
  kept and the new sessions' conventions, decisions and titles are appended.

Anything else gets an empty answer (thehook then falls back to its heuristic).
"""
import re
import sys

MAX_ITEM = 250
WRAPPER = re.compile(r"^\s*(<[a-zA-Z_-]+>|Caveat:|\[Request interrupted|This session is being continued|"
                     r"tool error:|→ |\[image\])")
USER = re.compile(r"^\s*\[\d+\] user(?: \d\d:\d\d)?: (.*)$")
ERROR = re.compile(r"(?:tool error: (.*))|(?: ✗ (.*))")


def one_line(text, limit=MAX_ITEM):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def extraction(transcript):
    asks, files, errors, branch = [], [], [], None
    for line in transcript.splitlines():
        if line.startswith("# ") and " · branch " in line:
            branch = line.rsplit(" · branch ", 1)[1].strip()
        m = USER.match(line)
        if m and m.group(1).strip() and not WRAPPER.match(m.group(1)):
            asks.append(m.group(1).strip())
        if line.startswith("files changed: "):
            files = [f.strip() for f in line[len("files changed: "):].split(",") if f.strip()]
        e = ERROR.search(line)
        if e and (e.group(1) or e.group(2) or "").strip():
            errors.append((e.group(1) or e.group(2)).strip())
    # the first error that says more than an exit code
    errors.sort(key=lambda x: bool(re.fullmatch(r"(?i)exit code \d+", x)))
    first = asks[0] if asks else "a session without a typed ask"
    title = " ".join(re.sub(r"[`*#\[\]]", "", first).split()[:8]) or "Untitled session"
    short = [f.rsplit("/", 1)[-1] for f in files[:4]]
    done = one_line(first, 160) + (f" (files: {', '.join(short)})" if short else "")
    problems = one_line(errors[0], 200) if errors and errors[0] else "none"
    decisions = one_line(asks[1], 200) if len(asks) > 1 else "none"
    out = [
        f"Title: {title}",
        "",
        "## Session Summary",
        f"- **What was done**: {done}",
        f"- **Problems encountered**: {problems}",
        f"- **Decisions made**: {decisions}",
        "",
        "## Conventions Detected",
    ]
    tests = [f for f in files if re.search(r"(_test\.go|\.test\.[jt]sx?|_test\.py|test_[^/]*\.py)$", f)]
    if tests:
        t = tests[0]
        folder = t.rsplit("/", 1)[0] if "/" in t else "."
        out.append(f"- `[convention]` Tests live beside the code they test, e.g. `{one_line(t, 180)}` in `{one_line(folder, 80)}`")
    out += ["", "## Architecture Decisions"]
    if len(asks) > 1 and files:
        out += [
            f"- `[ADR]` {one_line(asks[1], 200)}",
            f"  - **Context**: {one_line(first, 200)}",
            "  - **Alternatives considered**: none recorded",
            f"  - **Rationale**: the change touched {one_line(', '.join(short), 150)}",
        ]
    out += ["", "## Gotchas"]
    if errors and errors[0]:
        where = f" (branch {branch})" if branch else ""
        out.append(f"- `[gotcha]` {one_line(errors[0], 220)}{where}")
    return "\n".join(out) + "\n"


def list_items(text):
    """Top-level list items of a markdown text, each with its nested lines."""
    items = []
    for line in text.splitlines():
        if re.match(r"^- ", line):
            items.append([line])
        elif re.match(r"^\s+- ", line) and items:
            items[-1].append(line)
    return items


def consolidation(prompt):
    parts = re.split(r"^--- (current knowledge/\S+|new session \S+) ---$", prompt, flags=re.M)
    current = {"conventions.md": [], "architecture.md": [], "history.md": []}
    new_conv, new_adr, new_hist = [], [], []
    for head, body in zip(parts[1::2], parts[2::2]):
        if head.startswith("current knowledge/"):
            name = head.split("/", 1)[1]
            if name in current:
                current[name] = list_items(body)
            continue
        path = head.split(" ", 2)[2]
        m = re.search(r"(\d{4}-\d{2}-\d{2})", path)
        date = m.group(1) if m else "1970-01-01"
        t = re.search(r"^title: (.*)$", body, flags=re.M) or re.search(r"^Title: (.*)$", body, flags=re.M)
        title = t.group(1).strip() if t else path.rsplit("/", 1)[-1]
        new_hist.append([f"- {date}: {one_line(title, 200)}"])
        for item in list_items(body):
            if "`[convention]`" in item[0] or "[convention]" in item[0]:
                new_conv.append([item[0]])
            elif "[ADR]" in item[0]:
                new_adr.append([one_line(item[0], 270) + f", {date}"] + [one_line(d, 280) for d in item[1:]])

    def merged(old, new):
        seen, out = set(), []
        for item in old + new:
            key = " ".join(item[0].split())
            if key not in seen:
                seen.add(key)
                out.append(item)
        return out

    out = []
    for name, new in (("conventions.md", new_conv), ("architecture.md", new_adr), ("history.md", new_hist)):
        out.append(f"=== {name} ===")
        for item in merged(current[name], new):
            out.extend(item)
    return "\n".join(out) + "\n"


def main():
    prompt = sys.stdin.read()
    if prompt.startswith("You maintain the long-term memory"):
        sys.stdout.write(consolidation(prompt))
    elif "--- transcript ---" in prompt:
        sys.stdout.write(extraction(prompt.split("--- transcript ---", 1)[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
