#!/usr/bin/env python3
"""Offline checks of the documentation: links resolve, CONTRIBUTING.md's map
matches the source tree, and its two routes hold in the code. Python 3
standard library only; nothing is fetched.

Usage: python3 scripts/check-docs.py   (from anywhere in the repository)

Each problem is printed as `file:line: problem`; the exit code is 1 when there
is one, else 0.

1. Links. In README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md, every
   relative link and image (`[text](target)`, `![alt](target)`, and
   `[id]: target` definitions), outside code blocks and code spans, must name
   a file or folder that exists in the repository. Links with a scheme
   (http:, https:, mailto:, ...) are not fetched. A `#anchor` (alone: this
   file; after a markdown file: that file) must match one of that file's
   headings by GitHub's rules: the heading's text (links reduced to their
   text, code spans to their content, `*` emphasis dropped) lower-cased,
   every character that is not a letter, a digit, a space, `-` or `_`
   dropped, spaces turned into `-`; a repeated heading gets `-1`, `-2`, ...
   An anchor into a file that is not markdown is not checked.

2. Paths named in CONTRIBUTING.md. Every code span (in backticks) without
   spaces that looks like a repository path (holds a `/`, or ends in .rs,
   .py, .sh, .md or .mjs) and starts with a name of the repository's code
   tree must exist. "A name of the code tree": crates, scripts, bench,
   tests, docs, a crate's folder name (thehook-core, ...), or the name of a
   file or folder anywhere under crates/*/src/ or crates/*/tests/; a bare
   file name (no `/`) must exist in some folder of the repository. The span
   may be written from the repository root, from crates/, or from any
   folder below crates/ (so `thehook-cli/src/args.rs`, `agents/mod.rs` and
   `redact/gitleaks.rs` are all found); `*` matches as in a shell glob.
   Spans with a placeholder (`<...>`), a leading `.`, `~`, `$` or `/`, or a
   scheme are not paths of this repository and are skipped.

3. The map of the core. A fenced block in CONTRIBUTING.md whose first line
   is a folder of the repository (`crates/thehook-core/src/`) is a tree:
   each entry (the first word of a line indented by at most 12 spaces,
   ending in `/` or holding a `.`) is a file or folder below the entry it is
   indented under. An entry written with a `/` inside it
   (`memory/index/sync/`) is a path from the block's root folder. Every
   entry must exist.

4. Folders named. Every folder under crates/*/src/ (except `snapshots`
   folders) must be named in CONTRIBUTING.md by its path relative to its
   crate's src/ folder, written out in full with a trailing slash:
   `capture/worker/`, `memory/index/sync/`. The text may stand anywhere
   (prose, code span, the map), at the start of a word (after a space, a
   backtick, `(`, or a line start) or right after `src/` (so
   `crates/thehook-cli/src/commands/` names `commands/`); what follows it
   does not matter (`capture/worker/retry.rs` names `capture/worker/`).

5. The map is generated. The block between CONTRIBUTING.md's map markers
   is what `scripts/contributing_map.py` makes of the core's module docs
   (`//!`): each file with its first sentence. A file without one, or a
   map edited by hand, fails; `python3 scripts/contributing_map.py
   --update` writes it again.

6. The two routes. In CONTRIBUTING.md's section `## Two routes, file by
   file`, each `###` subsection is a route through the code: numbered steps
   of the shape

       N. `path/from/the/root.rs` `symbol`: what happens there.

   (the prose may wrap onto indented lines), with `(new process)` right
   after the symbol's span when the step starts a process of its own (the
   hook's detached `thehook retrieve --background`, `thehook capture
   --worker`). The section must be there, and each route must have at
   least 10 steps, numbered 1, 2, 3, ... Every step's file must exist and
   define its symbol: for `name`, `fn`, `struct`, `enum`, `trait`,
   `const`, `static`, `type` or `mod` followed by the name (any
   visibility); for `Type::method`, `fn method` and an `impl` of `Type`
   (`impl Type`, `impl<...> Type<...>`, `impl Trait for Type`).
   The steps must chain: the previous step's file, the one that calls it,
   reaches the step's symbol: `Type::method` as `.method(` or by its path
   (`Type::method`, `Self::method`); a name of the same file as a word
   (its own `fn` definition does not count); a name of another file by
   its module's path (`session_start::on_session_start`, `super::x`) or
   through a `use` that names it, so a common word (`run`, `read`) is not
   taken for a call of another file's function. A route
   also comes back from a call ("back in hooks.rs, the answer is printed"):
   then the symbol may be named instead in the file of an earlier step the
   route is still inside, the nearest first; the steps after that one are
   left, and no later step can come back to them. So a step moved before
   the step that calls it fails, while two calls made from one function may
   be told in either order (the order of calls is not checked). A `(new
   process)` step is not chained (nothing names it: the process is started
   by its command line); the route starts over inside it. Comments (`//`,
   `///`, `//!`, `/* */`) are stripped first, as scripts/check-cycles.py
   does, so a name in a doc comment neither defines nor calls anything.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", "target", "node_modules", ".assets", "dist"}
CODE_ROOTS = ("crates", "scripts", "bench", "tests", "docs")
PATH_SUFFIXES = (".rs", ".py", ".sh", ".md", ".mjs")

problems: list[str] = []


def problem(path: Path, line: int, text: str) -> None:
    problems.append(f"{path.relative_to(REPO).as_posix()}:{line}: {text}")


# ---------------------------------------------------------------------------
# Markdown: code blocks, code spans, headings, links
# ---------------------------------------------------------------------------

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    out, fence = [], None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            out.append((n, line))
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
            fence = None
    return out


CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")


def without_code_spans(line: str) -> str:
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
INLINE_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def slug(heading: str) -> str:
    text = INLINE_LINK.sub(lambda m: m.group(1), heading)
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("*", "")
    out = []
    for ch in text.strip().lower():
        if ch in " -_" or ch.isalnum() or unicodedata.category(ch).startswith("M"):
            out.append("-" if ch == " " else ch)
    return "".join(out)


_anchor_cache: dict[Path, set[str]] = {}


def anchors(path: Path) -> set[str]:
    if path not in _anchor_cache:
        seen: dict[str, int] = {}
        result: set[str] = set()
        lines = prose_lines(path.read_text(encoding="utf-8"))
        prev: tuple[int, str] | None = None
        for n, line in lines:
            heading = None
            m = ATX.match(line)
            if m:
                heading = m.group(2) or ""
            elif prev and prev[0] == n - 1 and prev[1].strip() and SETEXT.match(line) \
                    and not prev[1].lstrip().startswith(("|", "-", "*", "#", ">")):
                heading = prev[1].strip()
            if heading is not None:
                base = slug(heading)
                count = seen.get(base, 0)
                result.add(base if count == 0 else f"{base}-{count}")
                seen[base] = count + 1
            prev = (n, line)
        _anchor_cache[path] = result
    return _anchor_cache[path]


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def check_link(md: Path, line: int, target: str) -> None:
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target or SCHEME.match(target) or target.startswith("//"):
        return
    path_part, _, anchor = target.partition("#")
    path_part = path_part.split("?", 1)[0]
    from urllib.parse import unquote
    path_part, anchor = unquote(path_part), unquote(anchor)
    if path_part:
        if path_part.startswith("/"):
            dest = (REPO / path_part.lstrip("/")).resolve()
        else:
            dest = (md.parent / path_part).resolve()
        try:
            dest.relative_to(REPO)
        except ValueError:
            problem(md, line, f"link `{target}` points outside the repository")
            return
        if not dest.exists():
            problem(md, line, f"link `{target}`: {dest.relative_to(REPO).as_posix()} does not exist")
            return
    else:
        dest = md
    if anchor and dest.is_file() and dest.suffix.lower() in (".md", ".markdown"):
        if anchor not in anchors(dest):
            where = "this file" if dest == md else dest.relative_to(REPO).as_posix()
            problem(md, line, f"link `{target}`: no heading in {where} has the anchor #{anchor}")


def check_links(md: Path) -> None:
    for n, line in prose_lines(md.read_text(encoding="utf-8")):
        plain = without_code_spans(line)
        m = DEFINITION.match(plain)
        if m:
            check_link(md, n, m.group(1))
            continue
        for m in LINK.finditer(plain):
            check_link(md, n, m.group(1))


# ---------------------------------------------------------------------------
# CONTRIBUTING.md and the tree
# ---------------------------------------------------------------------------

def walk(root: Path) -> list[str]:
    """Every file and folder below root, as posix paths relative to REPO
    (folders with a trailing slash)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        rel = Path(dirpath).relative_to(REPO).as_posix()
        prefix = "" if rel == "." else rel + "/"
        out.extend(prefix + d + "/" for d in dirnames)
        out.extend(prefix + f for f in sorted(filenames))
    return out


def crates() -> list[Path]:
    return sorted(p for p in (REPO / "crates").iterdir() if p.is_dir()) if (REPO / "crates").is_dir() else []


def code_tree_names() -> set[str]:
    names = set(CODE_ROOTS) | {c.name for c in crates()}
    for crate in crates():
        for sub in ("src", "tests"):
            if (crate / sub).is_dir():
                for p in walk(crate / sub):
                    names.add(p.rstrip("/").rsplit("/", 1)[-1])
    return names


def path_exists_anywhere(span: str, everything: list[str]) -> bool:
    """Does `span` name an existing path from the root, from crates/, or from
    any folder below crates/ (a whole-component suffix of a real path)?"""
    want = span.rstrip("/")
    folder = span.endswith("/")
    if "/" not in want:  # a bare name: anywhere in the repository
        return any(fnmatch.fnmatchcase(p.rstrip("/").rsplit("/", 1)[-1], want)
                   for p in everything if p.endswith("/") == folder)
    for p in everything:
        is_dir = p.endswith("/")
        if folder and not is_dir:
            continue
        p = p.rstrip("/")
        if "*" in want:
            parts = p.split("/")
            n = want.count("/") + 1
            if len(parts) >= n and fnmatch.fnmatchcase("/".join(parts[-n:]), want) \
                    and (len(parts) == n or parts[0] == "crates"):
                return True
        elif p == want or (p.startswith("crates/") and p.endswith("/" + want)):
            return True
    return False


SPAN_PATH = re.compile(r"^[A-Za-z0-9_*][A-Za-z0-9_.*/-]*$")


def check_contributing_paths(md: Path, text: str, everything: list[str], names: set[str]) -> None:
    for n, line in prose_lines(text):
        for m in CODE_SPAN.finditer(line):
            span = m.group(2).strip()
            if not SPAN_PATH.match(span) or SCHEME.match(span):
                continue
            if "/" not in span and not span.endswith(PATH_SUFFIXES):
                continue
            if "/" in span and span.split("/", 1)[0] not in names:
                continue
            if not path_exists_anywhere(span, everything):
                problem(md, n, f"`{span}` names no file or folder of the repository")


ENTRY = re.compile(r"^( {0,12})([A-Za-z0-9_][A-Za-z0-9_./-]*)(?:\s|$)")


def check_map(md: Path, text: str) -> None:
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group(1)
        body_start = i + 1
        j = body_start
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence)) and not lines[j].strip().strip(fence[0])):
            j += 1
        body = lines[body_start:j]
        i = j + 1
        if not body:
            continue
        root_text = body[0].strip().split()[0] if body[0].strip() else ""
        if not root_text.endswith("/") or not (REPO / root_text).is_dir():
            continue
        root = root_text.rstrip("/")
        stack: list[tuple[int, str]] = []  # (indent, path from root) of open folders
        for k, line in enumerate(body[1:], start=body_start + 2):
            e = ENTRY.match(line)
            if not e:
                continue
            indent, name = len(e.group(1)), e.group(2)
            if not (name.endswith("/") or "." in name):
                continue
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if "/" in name.rstrip("/"):
                rel = name.rstrip("/")
            else:
                rel = (stack[-1][1] + "/" if stack else "") + name.rstrip("/")
            if not (REPO / root / rel).exists():
                problem(md, k, f"the map names {root}/{rel}{'/' if name.endswith('/') else ''}, which does not exist")
            if name.endswith("/"):
                stack.append((indent, rel))


def check_folders_named(md: Path, text: str) -> None:
    for crate in crates():
        src = crate / "src"
        if not src.is_dir():
            continue
        for p in walk(src):
            if not p.endswith("/"):
                continue
            rel = Path(REPO / p).relative_to(src).as_posix() + "/"
            if "snapshots" in rel.split("/"):
                continue
            pattern = re.compile(r"(?:^|(?<=[\s`(])|(?<=src/))" + re.escape(rel), re.M)
            if not pattern.search(text):
                problem(md, 1, f"folder {p} is not named (write `{rel}`, its path from {src.relative_to(REPO).as_posix()}/)")


def check_generated_map(md: Path, text: str) -> None:
    """5. The map of the core is the one generated from the module docs."""
    sys.path.insert(0, str(REPO / "scripts"))
    import contributing_map

    generated, missing = contributing_map.generate()
    for path in missing:
        problems.append(f"{path}:1: no module doc (`//!`) for CONTRIBUTING.md's map")
    expected = contributing_map.with_map(text, generated)
    if expected is None:
        problem(md, 1, "the map's markers are missing (scripts/contributing_map.py)")
    elif expected != text:
        line = next(
            (n for n, (a, b) in enumerate(zip(text.split("\n"), expected.split("\n")), 1) if a != b),
            1,
        )
        problem(md, line, "the map differs from the code's module docs: run python3 scripts/contributing_map.py --update")


# ---------------------------------------------------------------------------
# 6. The two routes, file by file
# ---------------------------------------------------------------------------

ROUTES_HEADING = "## Two routes, file by file"
MIN_STEPS = 10
NUMBERED = re.compile(r"^(\d+)\.\s")
STEP = re.compile(
    r"^(\d+)\.\s+`([^`\s]+)`\s+`([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)?)`"
    r"(\s+\(new process\))?:\s*\S"
)
DEFINES = ("fn", "struct", "enum", "trait", "const", "static", "type", "mod")


def _check_cycles():
    """scripts/check-cycles.py as a module (its name has a hyphen)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_cycles", REPO / "scripts" / "check-cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Rust source without its comments, by scripts/check-cycles.py's rule.
strip_comments = _check_cycles().strip_comments


_source_cache: dict[str, str] = {}


def source(rel: str) -> str:
    if rel not in _source_cache:
        _source_cache[rel] = strip_comments((REPO / rel).read_text(encoding="utf-8", errors="replace"))
    return _source_cache[rel]


def impl_types(code: str) -> set[str]:
    """The self types of every `impl` block: `impl<'a> Worker<'a>` gives
    Worker, `impl fmt::Display for Panicked` gives Panicked."""
    types = set()
    for m in re.finditer(r"\bimpl\b", code):
        i = m.end()
        while i < len(code) and code[i].isspace():
            i += 1
        if i < len(code) and code[i] == "<":  # the impl's own generics
            depth = 0
            while i < len(code):
                depth += {"<": 1, ">": -1}.get(code[i], 0)
                i += 1
                if depth == 0:
                    break
        header = re.split(r"[{;]|\bwhere\b", code[i:], maxsplit=1)[0]
        target = re.split(r"\bfor\b", header)[-1]
        name = re.match(r"\s*(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?((?:\w+::)*\w+)", target)
        if name:
            types.add(name.group(1).rsplit("::", 1)[-1])
    return types


def defines(rel: str, symbol: str) -> str | None:
    """Why `symbol` is not defined in `rel`, or None when it is."""
    code = source(rel)
    if "::" in symbol:
        typ, method = symbol.split("::")
        if not re.search(rf"\bfn\s+{re.escape(method)}\b", code):
            return f"has no `fn {method}`"
        if typ not in impl_types(code):
            return f"has `fn {method}` but no `impl {typ}` (impl blocks here: {', '.join(sorted(impl_types(code))) or 'none'})"
        return None
    if re.search(rf"\b(?:{'|'.join(DEFINES)})\s+{re.escape(symbol)}\b", code):
        return None
    return f"defines no `{symbol}` (no fn, struct, enum, trait, const, static, type or mod of that name)"


def module_name(rel: str) -> str:
    """The name code uses for the module of file `rel`: its stem, the folder's
    for a `mod.rs`, the crate's for a `lib.rs` (`thehook_cli`)."""
    path = Path(rel)
    if path.name == "lib.rs":
        return path.parent.parent.name.replace("-", "_")
    if path.name == "mod.rs":
        return path.parent.name
    return path.stem


def names(rel: str, symbol: str, its_file: str) -> bool:
    """Whether the code of `rel` reaches `symbol` (defined in `its_file`):
    `Type::method` as `.method(` or by its path; a name of the same file as
    a word other than its `fn` definition; a name of another file by its
    module's path (`session_start::on_session_start`, `super::x`) or through a `use`
    that names it. A common word (`run`, `read`) is not taken for a call of
    another file's function."""
    text = source(rel)
    *owner, word = symbol.split("::")
    w = re.escape(word)
    if owner:
        pattern = rf"\.{w}\s*[(<:]|\b(?:{re.escape(owner[-1])}|Self)::{w}\b"
    elif rel == its_file:
        pattern = rf"(?<!\bfn )(?<![\w$]){w}\b"
    else:
        module = re.escape(module_name(its_file))
        pattern = rf"\b(?:{module}|super)::{w}\b|\buse\s[^;]*\b{w}\b[^;]*;"
    return re.search(pattern, text) is not None


def route_steps(lines: list[str], start: int, end: int, outside: set[int],
                md: Path) -> list[tuple[str, int, list[tuple[int, str]]]]:
    """The routes between lines[start] and lines[end], code blocks left out:
    (title, heading line, [(line, item text, continuation lines joined)])."""
    routes: list[tuple[str, int, list[tuple[int, str]]]] = []
    k = start
    while k < end:
        line = lines[k]
        if k + 1 not in outside:
            pass
        elif line.startswith("### "):
            routes.append((line[4:].strip(), k + 1, []))
        elif NUMBERED.match(line):
            text = line.strip()
            j = k + 1
            while j < end and lines[j].startswith((" ", "\t")) and lines[j].strip() \
                    and not NUMBERED.match(lines[j].lstrip()):
                text += " " + lines[j].strip()
                j += 1
            if routes:
                routes[-1][2].append((k + 1, text))
            else:
                problem(md, k + 1, f"a numbered step before any `###` route in `{ROUTES_HEADING}`")
            k = j
            continue
        k += 1
    return routes


def check_routes(md: Path, text: str) -> None:
    """6. The routes of `## Two routes, file by file` hold in the code."""
    lines = text.split("\n")
    outside = {n for n, _ in prose_lines(text)}
    heads = [k for k, l in enumerate(lines) if l.strip() == ROUTES_HEADING and k + 1 in outside]
    if not heads:
        problem(md, 1, f"the section `{ROUTES_HEADING}` is missing")
        return
    start = heads[0] + 1
    end = next((k for k in range(start, len(lines)) if lines[k].startswith("## ") and k + 1 in outside), len(lines))
    routes = route_steps(lines, start, end, outside, md)
    if not routes:
        problem(md, heads[0] + 1, f"`{ROUTES_HEADING}` has no `###` route")
    for title, head_line, steps in routes:
        if len(steps) < MIN_STEPS:
            problem(md, head_line, f"route \"{title}\" has {len(steps)} steps; at least {MIN_STEPS} are expected")
        # The steps the route is inside: (step number, file), the caller last.
        open_steps: list[tuple[int, str]] = []
        for index, (n, item) in enumerate(steps, 1):
            m = STEP.match(item)
            if not m:
                problem(md, n, f"route \"{title}\", step {index}: not of the shape "
                        "N. `path/to/file.rs` `symbol`: what happens there. "
                        "(with `(new process)` after the symbol when it starts a process)")
                open_steps = []
                continue
            number, rel, symbol, new_process = int(m.group(1)), m.group(2), m.group(3), bool(m.group(4))
            where = f"route \"{title}\", step {number} (`{rel}` `{symbol}`)"
            if number != index:
                problem(md, n, f"route \"{title}\": step {index} is numbered {number}")
            path = REPO / rel
            if not path.is_file():
                problem(md, n, f"{where}: the file {rel} does not exist")
                open_steps = []
                continue
            why = defines(rel, symbol)
            if why:
                problem(md, n, f"{where}: `{symbol}` is not defined there: {rel} {why}")
            word = symbol.rsplit("::", 1)[-1]
            if new_process or not open_steps:
                open_steps = [(number, rel)]
                continue
            caller = next((k for k in range(len(open_steps) - 1, -1, -1) if names(open_steps[k][1], symbol, rel)), None)
            if caller is None:
                prev_number, prev_rel = open_steps[-1]
                earlier = ", ".join(str(s) for s, _ in reversed(open_steps[:-1]))
                problem(md, n, f"{where}: the chain breaks: `{word}` is named neither in step "
                        f"{prev_number}'s file {prev_rel} nor in the file of a step the route "
                        f"could come back to" + (f" (steps {earlier})" if earlier else "")
                        + "; a step that starts a process is marked `(new process)`")
                open_steps.append((number, rel))
                continue
            open_steps = open_steps[: caller + 1] + [(number, rel)]


def main() -> int:
    docs = [REPO / n for n in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    docs += sorted((REPO / "docs").glob("*.md"))
    for md in docs:
        if md.is_file():
            check_links(md)
        elif md.parent == REPO:
            problems.append(f"{md.name}:1: the file is missing")
    contributing = REPO / "CONTRIBUTING.md"
    if contributing.is_file():
        text = contributing.read_text(encoding="utf-8")
        everything = walk(REPO)
        check_contributing_paths(contributing, text, everything, code_tree_names())
        check_map(contributing, text)
        check_folders_named(contributing, text)
        check_generated_map(contributing, text)
        check_routes(contributing, text)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
