"""Writes the Python-side blocks derived from the op declarations in ``src/op_defs/``.

The Rust side (kernels, gradients, ``Tensor`` methods, static-graph parsing) expands the
declaration tables with macros. Python files cannot be written by a Rust macro, so this
script reads the tables from the built extension (``ferrograd._core._unary_op_table()``,
``_binary_op_table()``) and rewrites the marked blocks below: module functions and
``__all__`` entries, the ``nn.functional`` names, the static ``Variable`` methods and the
``Tensor`` stub entries.
Its output is checked in (type checkers and readers see plain code) and
``tests/python/test_op_registry.py`` fails when a block is stale.

Usage (after rebuilding the extension)::

    .venv/bin/python scripts/gen_op_bindings.py          # rewrite the blocks
    .venv/bin/python scripts/gen_op_bindings.py --check  # exit 1 if a block is stale
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "python" / "ferrograd"
LINE_LENGTH = 100  # ruff's (pyproject.toml): generated lines are already formatted

# (methods, functional names, doc, dtype rule, has_gradient) per unary op
Op = tuple[list[str], list[str], str, str, bool]
# (methods, operators, operand keywords, doc, dtype rule, has_gradient) per binary op
BinOp = tuple[list[str], list[str], list[str], str, str, bool]


def _rst(doc: str) -> str:
    """Markdown inline code (`x`) as reStructuredText literals (``x``)."""
    return re.sub(r"`([^`]+)`", r"``\1``", doc)


def _stub_methods(ops: list[Op]) -> list[str]:
    out = []
    for methods, _, doc, _, _ in ops:
        for m in methods:
            out += [
                f"    def {m}(self, name: str | None = None) -> Tensor:",
                f'        """{_rst(doc)}"""',
            ]
    return out


def _api_functions(ops: list[Op]) -> list[str]:
    return [f"{m} = Tensor.{m}" for methods, *_ in ops for m in methods]


def _api_all(ops: list[Op]) -> list[str]:
    return [f'    "{m}",' for methods, *_ in ops for m in methods]


def _functional(ops: list[Op]) -> list[str]:
    return [f"{f} = Tensor.{methods[0]}" for methods, functional, *_ in ops for f in functional]


def _functional_all(ops: list[Op]) -> list[str]:
    return [f'    "{f}",' for _, functional, *_ in ops for f in functional]


def _variable_methods(ops: list[Op]) -> list[str]:
    out: list[str] = []
    for methods, _, doc, _, _ in ops:
        for m in methods:
            out += [
                f"    def {m}(self, name: str | None = None) -> Variable:",
                f'        """{_rst(doc)}"""',
                f'        return self._op("{methods[0]}", [self])',
                "",
            ]
    return out


def _def(name: str, params: list[str], ret: str) -> list[str]:
    """A stub ``def`` line as ruff formats it: on one line, with the parameters on one
    indented line, or one parameter per line."""
    one = f"    def {name}({', '.join(params)}) -> {ret}:"
    if len(one) <= LINE_LENGTH:
        return [one]
    hug = "        " + ", ".join(params)
    if len(hug) <= LINE_LENGTH:
        return [f"    def {name}(", hug, f"    ) -> {ret}:"]
    return [f"    def {name}(", *[f"        {p}," for p in params], f"    ) -> {ret}:"]


def _binary_stub_methods(ops: list[BinOp]) -> list[str]:
    out = []
    for methods, _, keywords, doc, _, _ in ops:
        params = ["self", "other: _Operand | None = None", "name: str | None = None", "*"]
        params += [f"{k}: _Operand | None = None" for k in keywords]
        for m in methods:
            out += [*_def(m, params, "Tensor"), f'        """{_rst(doc)}"""']
    return out


def _binary_functions(ops: list[BinOp]) -> list[str]:
    return [f"{m} = Tensor.{m}" for methods, *_ in ops for m in methods]


def _binary_all(ops: list[BinOp]) -> list[str]:
    return [f'    "{m}",' for methods, *_ in ops for m in methods]


def _binary_variable_methods(ops: list[BinOp]) -> list[str]:
    out: list[str] = []
    for methods, _, _, doc, _, _ in ops:
        for m in methods:
            out += [
                f"    def {m}(self, y: Any, name: str | None = None) -> Variable:",
                f'        """{_rst(doc)}"""',
                f'        return self._binary("{methods[0]}", y)',
                "",
            ]
    return out


UNARY = "src/op_defs/unary.rs"
BINARY = "src/op_defs/binary.rs"

# (file, block name, source table, renderer)
BLOCKS: list[tuple[Path, str, str, Callable[[list[Any]], list[str]]]] = [
    (PKG / "_core.pyi", "unary Tensor methods", UNARY, _stub_methods),
    (PKG / "_dialect_aliases.py", "unary functions", UNARY, _api_functions),
    (PKG / "_dialect_aliases.py", "unary __all__", UNARY, _api_all),
    (PKG / "nn" / "functional.py", "unary activations", UNARY, _functional),
    (PKG / "nn" / "functional.py", "unary __all__", UNARY, _functional_all),
    (PKG / "static" / "variable.py", "unary Variable methods", UNARY, _variable_methods),
    (PKG / "_core.pyi", "binary Tensor methods", BINARY, _binary_stub_methods),
    (PKG / "_dialect_aliases.py", "binary functions", BINARY, _binary_functions),
    (PKG / "_dialect_aliases.py", "binary __all__", BINARY, _binary_all),
    (PKG / "static" / "variable.py", "binary Variable methods", BINARY, _binary_variable_methods),
]


def _begin(name: str, source: str) -> str:
    return f"# BEGIN generated: {name} (scripts/gen_op_bindings.py from {source})"


def _end(name: str) -> str:
    return f"# END generated: {name}"


def render(text: str, name: str, lines: list[str], source: str = UNARY) -> str:
    """``text`` with the block called ``name`` replaced by ``lines``."""
    begin = _begin(name, source)
    pattern = re.compile(
        r"^([ \t]*)" + re.escape(begin) + r"\n.*?^[ \t]*" + re.escape(_end(name)) + r"$",
        re.S | re.M,
    )
    match = pattern.search(text)
    if match is None:
        raise SystemExit(f"marker '{begin}' (and its END line) not found")
    indent = match.group(1)
    body = "\n".join([indent + begin, *lines, indent + _end(name)])
    return text[: match.start()] + body + text[match.end() :]


def stale_files(tables: dict[str, list[Any]], write: bool) -> list[Path]:
    """The files whose blocks differ from the tables (rewritten when ``write``)."""
    texts: dict[Path, str] = {}
    for path, name, source, renderer in BLOCKS:
        old = texts.get(path) or path.read_text()
        texts[path] = render(old, name, renderer(tables[source]), source)
    stale = [p for p, t in texts.items() if p.read_text() != t]
    if write:
        for p in stale:
            p.write_text(texts[p])
    return stale


def table() -> dict[str, list[Any]]:
    """The op tables from the built extension, by declaring file."""
    from ferrograd import _core

    unary = [(list(m), list(f), d, r, g) for m, f, d, r, g in _core._unary_op_table()]
    binary = [(list(m), list(o), list(k), d, r, g) for m, o, k, d, r, g in _core._binary_op_table()]
    return {UNARY: unary, BINARY: binary}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = stale_files(table(), write=not check)
    for p in stale:
        print(f"{'stale' if check else 'rewrote'}: {p.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
