"""Report import cycles between the Rust modules of one source folder (default `src/python`).

Each `.rs` file is a module (`foo/mod.rs` is the module `foo`). An edge A -> B is drawn when
A's code names a path into B: `use super::b::X`, `super::super::b::f(...)`, `self::b::X`,
`crate::python::b::X` (brace groups in `use` are expanded). `mod b;` declarations are not
edges (a parent declaring a child is how Rust builds the tree, not a dependency). A path
that names an item of an ancestor module (e.g. `super::X` for a re-export in `mod.rs`)
is an edge to that ancestor.

Cycles are the strongly connected components with more than one module. Exit status 1
when there is one, with each cycle printed; `--graph` prints every edge.

Usage: python scripts/check_module_cycles.py [--root src/python] [--crate-path python] [--graph]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# A path that starts at crate/super/self and goes on with `::`; the tail may be a brace group.
_PATH = re.compile(r"\b(?:crate|super|self)(?:::(?:[A-Za-z_][A-Za-z0-9_]*|\{[^;]*?\}))+", re.S)
_LINE_COMMENT = re.compile(r"//[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _module_of(root: Path, file: Path) -> tuple[str, ...]:
    """The module path of `file` relative to `root` (`()` is root's own mod.rs)."""
    parts = list(file.relative_to(root).with_suffix("").parts)
    if parts and parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


def _expand(path: str) -> list[list[str]]:
    """`super::{a::X, b}` -> [["super", "a", "X"], ["super", "b"]] (nested groups too)."""
    i = path.find("{")
    if i < 0:
        return [[p for p in path.split("::") if p]]
    head = path[:i]
    body = path[i + 1 : path.rfind("}")]
    out: list[list[str]] = []
    depth, start = 0, 0
    items: list[str] = []
    for j, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(body[start:j])
            start = j + 1
    items.append(body[start:])
    for item in items:
        item = item.strip()
        if item:
            out.extend(_expand(head + item))
    return out


def _strip_tests(src: str) -> str:
    """Drop `#[cfg(test)] mod tests { ... }` bodies: test modules are leaves of their file."""
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", src)
    return src[: m.start()] if m else src


def build_graph(root: Path, crate_path: tuple[str, ...]) -> dict[tuple[str, ...], set]:
    """Map each module under `root` to the set of modules under `root` it names."""
    files = sorted(root.rglob("*.rs"))
    modules = {_module_of(root, f): f for f in files}
    graph: dict[tuple[str, ...], set] = {m: set() for m in modules}
    for mod, file in modules.items():
        src = _strip_tests(_BLOCK_COMMENT.sub("", _LINE_COMMENT.sub("", file.read_text())))
        for raw in _PATH.findall(src):
            for segs in _expand(re.sub(r"\s+", "", raw)):
                target = _resolve(mod, segs, crate_path)
                if target is None:
                    continue
                # the longest prefix of the path that is a module of this folder
                for n in range(len(target), -1, -1):
                    if target[:n] in modules:
                        dest = target[:n]
                        break
                else:
                    continue
                if dest != mod:
                    graph[mod].add(dest)
    return graph


def _resolve(mod: tuple[str, ...], segs: list[str], crate_path: tuple[str, ...]) -> tuple | None:
    """The path `segs` seen from module `mod`, relative to the folder's root (None: outside)."""
    if not segs:
        return None
    if segs[0] == "crate":
        rest = tuple(segs[1:])
        if rest[: len(crate_path)] != crate_path:
            return None
        return rest[len(crate_path) :]
    base = list(mod)
    i = 0
    if segs[0] == "self":
        i = 1
    while i < len(segs) and segs[i] == "super":
        if not base:
            return None  # leaves the folder
        base.pop()
        i += 1
    return tuple(base) + tuple(segs[i:])


def cycles(graph: dict[tuple[str, ...], set]) -> list[list[tuple[str, ...]]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: list = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _name(m: tuple[str, ...]) -> str:
    return "::".join(m) or "(mod.rs)"


def main(argv: list[str] | None = None) -> int:
    """Print the cycles (and with --graph the edges); 1 when there is a cycle."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1] / "src/python"))
    ap.add_argument("--crate-path", default="python", help="the folder's path in the crate")
    ap.add_argument("--graph", action="store_true", help="print every edge")
    args = ap.parse_args(argv)
    graph = build_graph(Path(args.root), tuple(p for p in args.crate_path.split("::") if p))
    if args.graph:
        for m in sorted(graph):
            for d in sorted(graph[m]):
                print(f"{_name(m)} -> {_name(d)}")
    found = cycles(graph)
    for comp in found:
        inner = {m: sorted(d for d in graph[m] if d in comp) for m in comp}
        print(f"cycle among {len(comp)} modules:")
        for m in comp:
            print(f"  {_name(m)} -> {', '.join(_name(d) for d in inner[m])}")
    if not found:
        print(f"no import cycle among {len(graph)} modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
