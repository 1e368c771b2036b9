#!/usr/bin/env python3
"""Fails when source files of a crate, or its folders, import each other in a cycle.

Each .rs file is a node; an edge a -> b means a names something of the module
b lives in (`crate::x::y`, `super::z`, `self::w`, or a `use` of them). Test
modules (`tests.rs`, `tests/`) are left out: they may look at anything.
A child module using its ancestors' own items is not counted (that is Rust's
module tree); a name the ancestor only re-exports (`pub use sibling::Item`)
counts as the edge to the sibling that defines it. Prints every strongly connected component of more than one
file and exits 1 when there is one.

An item the crate's root file (lib.rs, main.rs) defines itself, used by
a module of the crate, is refused too: the root is the crate's face, and
its children do not import it.

A name taken through an ancestor's re-export (`crate::Error` where lib.rs
re-exports `error::Error`) is refused outright: the import runs back up the
tree, and what it hides is the edge to the module that defines the name.

Folders are checked the same way, at every depth: sibling modules (a folder
and the file of the same name are one module, `x.rs` beside `x/`) must not
use each other in a loop, counting what any file inside each uses. So the
crate's top-level modules form layers, and so do the modules of each folder.
"""
import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+|::\{)")


def module_of(src_root: Path, f: Path) -> list[str]:
    rel = f.relative_to(src_root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(l.split("//")[0] for l in text.splitlines())


def expand_use_groups(text: str):
    """Yields (prefix, path) pairs for every path mentioned, braces expanded."""
    for m in re.finditer(r"\buse\s+((?:crate|super|self)[^;]*);", text, flags=re.S):
        yield from expand(m.group(1).replace("\n", " ").replace(" ", ""))
    for m in PATH.finditer(text):
        if m.group(2) == "::{":
            continue
        yield m.group(1) + m.group(2)


def expand(path: str):
    i = path.find("{")
    if i < 0:
        yield path
        return
    head, body = path[:i], path[i + 1 : path.rfind("}")]
    depth, cur, items = 0, "", []
    for c in body:
        if c == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += c == "{"
        depth -= c == "}"
        cur += c
    items.append(cur)
    for it in items:
        if it and it != "self":
            yield from expand(head + it)
        elif it == "self":
            yield head.rstrip(":")


def load(src_root: Path) -> dict:
    """Each module of the crate (a path of names, `()` for the root) and its
    text without comments, each file read once. Test files are left out, and
    so is `main.rs` beside a `lib.rs` (the binary that calls the library,
    through its name, not `crate::`)."""
    files = [f for f in src_root.rglob("*.rs") if "tests" not in f.parts and f.name != "tests.rs"]
    if (src_root / "lib.rs").is_file():
        files = [f for f in files if f != src_root / "main.rs"]
    return {tuple(module_of(src_root, f)): strip_comments(f.read_text()) for f in files}


def resolve(modules: dict, reexports: dict, here: list[str], path: str):
    """The module a path names. A name a module re-exports (`pub use
    child::Item`) resolves to the module that defines it, so importing a
    sibling through the parent is seen as the edge it is."""
    segs = path.split("::")
    base = [] if segs[0] == "crate" else list(here)
    segs = segs[1:] if segs[0] in ("crate", "self") else segs
    while segs and segs[0] == "super":
        base = base[:-1]
        segs = segs[1:]
    cand = base + segs
    # Down to the crate root itself: `crate::Item` may be a name lib.rs
    # re-exports, which is the edge to the module that defines it.
    while True:
        if tuple(cand) in modules:
            rest = (base + segs)[len(cand):]
            if rest and (tuple(cand), rest[0]) in reexports:
                return reexports[(tuple(cand), rest[0])]
            return tuple(cand)
        if not cand:
            return None
        cand = cand[:-1]


def reexports_of(modules: dict) -> dict:
    """(module, name) -> the module a `pub use` of that module takes it from."""
    out = {}
    for m, text in modules.items():
        for g in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", text, flags=re.S):
            for path in expand(g.group(1).replace("\n", " ").replace(" ", "")):
                name = path.split("::")[-1].split(" as ")[-1]
                source = resolve(modules, {}, list(m), path if path.split("::")[0] in ("crate", "super", "self") else "self::" + path)
                if source is not None and source != m and name not in ("*", "self"):
                    out[(m, name)] = source
    return out


def through_ancestors(modules: dict, reexports: dict) -> list[str]:
    """Names a module takes from an ancestor that only re-exports them
    (`crate::Error` in a module of the crate): the import runs back up the
    tree and hides the edge to the module that defines the name."""
    out = []
    for m, text in modules.items():
        for path in expand_use_groups(text):
            via = resolve(modules, {}, list(m), path)
            source = resolve(modules, reexports, list(m), path)
            is_ancestor = via is not None and len(via) < len(m) and m[: len(via)] == via
            if is_ancestor and source != via and source != m:
                name = "::".join(m) or "lib"
                out.append(f"{name} uses {path} through a re-export: import it from {'::'.join(source)}")
    return sorted(set(out))


STRING = re.compile(r'r(#*)".*?"\1|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'', re.S)


def without_inline_tests(text: str) -> str:
    """The text without its inline `mod tests { ... }` (whose `super` is
    the file's own module, not its parent). String and character literals
    are emptied first, so a brace inside one does not end the module."""
    text = STRING.sub('""', text)
    while (m := re.search(r"\bmod\s+tests\s*\{", text)):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        text = text[: m.start()] + text[i:]
    return text


def into_the_face(modules: dict, reexports: dict) -> list[str]:
    """Names a module takes from the crate's root file (lib.rs, or main.rs
    alone): the root is the crate's face, what other crates see, so an item
    it defines itself and a child uses is an arrow back up the tree. Such an
    item belongs in a module of its own that the root re-exports. (A name
    the root only re-exports is `through_ancestors`' to report.)"""
    out = []
    for m, text in modules.items():
        if m == ():
            continue
        for path in expand_use_groups(without_inline_tests(text)):
            parts = path.split("::")
            # A test module is left out (it may look at anything).
            if len(parts) > 1 and parts[1] == "tests":
                continue
            if resolve(modules, reexports, list(m), path) == ():
                out.append(f"{'::'.join(m)} uses {path}, which the crate's root file defines: move it into a module of its own")
    return sorted(set(out))


def edges_of(modules: dict, reexports: dict) -> dict:
    """Module -> the modules it uses (not counting its ancestors)."""
    edges = {m: set() for m in modules}
    for m, text in modules.items():
        # `super` in foo.rs and in foo/mod.rs alike is foo's parent.
        here = list(m)
        for path in expand_use_groups(text):
            t = resolve(modules, reexports, here, path)
            # A child may use its ancestors' items (Rust's module tree); an
            # edge to an ancestor is not counted.
            is_ancestor = len(t or ()) < len(m) and m[: len(t or ())] == t
            if t is not None and t != m and not is_ancestor:
                edges[m].add(t)
    return edges


def cycles(edges: dict) -> list[list[tuple]]:
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def folder_edges(edges: dict) -> dict:
    """Sibling module -> sibling modules, at every depth: an edge a -> b
    between two files counts for the pair of siblings that hold them (the
    first path element where they part)."""
    out: dict = {}
    for a, targets in edges.items():
        for b in targets:
            common = 0
            while common < min(len(a), len(b)) and a[common] == b[common]:
                common += 1
            if common < len(a) and common < len(b):
                sa, sb = a[: common + 1], b[: common + 1]
                out.setdefault(sa, set()).add(sb)
                out.setdefault(sb, set())
    return out


def check(src_root: Path) -> list[str]:
    modules = load(src_root)
    reexports = reexports_of(modules)
    edges = edges_of(modules, reexports)
    name = lambda c: "::".join(c) or "lib"
    out = through_ancestors(modules, reexports) + into_the_face(modules, reexports)
    out += [f"import cycle among files {', '.join(name(c) for c in comp)}" for comp in cycles(edges)]
    for comp in cycles(folder_edges(edges)):
        # one file-level example of each folder-level edge of the loop
        example = {}
        for a, bs in sorted(edges.items()):
            for b in sorted(bs):
                for sa in comp:
                    for sb in comp:
                        if sa != sb and a[: len(sa)] == sa and b[: len(sb)] == sb:
                            example.setdefault((sa, sb), f"{name(a)} uses {name(b)}")
        why = "; ".join(f"{name(sa)} -> {name(sb)} ({e})" for (sa, sb), e in sorted(example.items()))
        out.append(f"import cycle among folders {', '.join(name(c) for c in comp)}: {why}")
    return out


def main() -> int:
    root = Path(__file__).resolve().parent.parent / "crates"
    bad = 0
    for crate in sorted(root.iterdir()):
        src = crate / "src"
        if not src.is_dir():
            continue
        for problem in check(src):
            bad += 1
            print(f"{crate.name}: {problem}")
    if bad:
        print(
            f"{bad} problem(s): import a name from the module that defines it, and break a"
            " cycle by moving the shared part into a module both can depend on"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
