"""Rebuilds the extracts of upstream test files (PyTorch's ``test/test_autograd.py``,
Paddle's ``test/legacy_test/test_inplace.py``) that ``docs/peer-tests.md`` reports, from
a copy of the upstream file you fetched.

The extracts are collections of upstream tests that use only public API, bodies
unchanged; each is one class of the upstream file. Which tests (and helpers) each holds,
and from which upstream revision, is listed in ``scripts/peer_harness/extracts.json``;
this script copies exactly those class members and module functions out of the upstream
file (by name, with Python's ``ast``), under the header the manifest gives (upstream's
import lines, minus the internal modules the listed tests do not use).

Usage::

    python scripts/peer_extract.py /tmp/upstream/test_autograd.py /tmp/peer/torch
    python scripts/peer_extract.py /tmp/upstream/test_autograd.py /tmp/peer/torch --only test_autograd.py

The output files are upstream code: keep them outside the repository.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "peer_harness", "extracts.json")


def _members(tree: ast.Module, source: str, cls: str) -> dict[str, str]:
    """Source of each member (method, nested class) of class ``cls``, by name, with its
    decorators and indentation."""
    lines = source.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            out = {}
            for m in node.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    start = min([m.lineno] + [d.lineno for d in m.decorator_list]) - 1
                    out[m.name] = "".join(lines[start : m.end_lineno])
            return out
    raise SystemExit(f"class {cls} not found in the upstream file")


def _functions(tree: ast.Module, source: str) -> dict[str, str]:
    lines = source.splitlines(keepends=True)
    return {
        n.name: "".join(lines[n.lineno - 1 : n.end_lineno])
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
    }


def build(upstream: str, spec: dict) -> str:
    """The text of one extract described by ``spec`` (an entry of the manifest)."""
    source = open(upstream, encoding="utf-8").read()
    tree = ast.parse(source)
    members = _members(tree, source, spec["class"])
    functions = _functions(tree, source)
    missing = [n for n in spec["members"] if n not in members]
    missing += [n for n in spec.get("functions", []) if n not in functions]
    if missing:
        raise SystemExit(f"not in this upstream revision: {', '.join(missing)}")
    parts = ["\n".join(spec["header"]) + "\n"]
    parts += ["\n" + functions[n] for n in spec.get("functions", [])]
    parts.append(f"\n\nclass {spec['class']}(TestCase):\n")
    parts += ["\n" + members[n] for n in spec["members"]]
    parts.append("\n\nif __name__ == '__main__':\n    run_tests()\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("upstream", help="a copy of the upstream file the extract names")
    ap.add_argument("out_dir", help="folder to write the extracts into")
    ap.add_argument("--only", help="write just this extract (its file name)")
    args = ap.parse_args(argv)
    manifest = json.load(open(MANIFEST, encoding="utf-8"))
    os.makedirs(args.out_dir, exist_ok=True)
    for name, spec in manifest.items():
        if args.only and name != args.only:
            continue
        path = os.path.join(args.out_dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(build(args.upstream, spec))
        print(f"{path}: {sum(m.startswith('test_') for m in spec['members'])} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
