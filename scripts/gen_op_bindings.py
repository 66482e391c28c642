"""Writes the Python-side blocks derived from the op declarations in ``src/op_defs/``.

The Rust side (kernels, gradients, ``Tensor`` methods, static-graph parsing) expands the
declaration tables with macros. Python files cannot be written by a Rust macro, so this
script reads the tables from the built extension (``ferrograd._core._unary_op_table()``)
and rewrites the marked blocks below: module functions and ``__all__`` entries, the
``nn.functional`` names, the static ``Variable`` methods and the ``Tensor`` stub entries.
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

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "python" / "ferrograd"
SOURCE = "src/op_defs/unary.rs"

# (methods, functional names, doc, dtype rule, has_gradient) per op
Op = tuple[list[str], list[str], str, str, bool]


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


# (file, block name, renderer)
BLOCKS: list[tuple[Path, str, Callable[[list[Op]], list[str]]]] = [
    (PKG / "_core.pyi", "unary Tensor methods", _stub_methods),
    (PKG / "_dialect_aliases.py", "unary functions", _api_functions),
    (PKG / "_dialect_aliases.py", "unary __all__", _api_all),
    (PKG / "nn" / "functional.py", "unary activations", _functional),
    (PKG / "nn" / "functional.py", "unary __all__", _functional_all),
    (PKG / "static" / "variable.py", "unary Variable methods", _variable_methods),
]


def _begin(name: str) -> str:
    return f"# BEGIN generated: {name} (scripts/gen_op_bindings.py from {SOURCE})"


def _end(name: str) -> str:
    return f"# END generated: {name}"


def render(text: str, name: str, lines: list[str]) -> str:
    """``text`` with the block called ``name`` replaced by ``lines``."""
    pattern = re.compile(
        r"^([ \t]*)" + re.escape(_begin(name)) + r"\n.*?^[ \t]*" + re.escape(_end(name)) + r"$",
        re.S | re.M,
    )
    match = pattern.search(text)
    if match is None:
        raise SystemExit(f"marker '{_begin(name)}' (and its END line) not found")
    indent = match.group(1)
    body = "\n".join([indent + _begin(name), *lines, indent + _end(name)])
    return text[: match.start()] + body + text[match.end() :]


def stale_files(ops: list[Op], write: bool) -> list[Path]:
    """The files whose blocks differ from the tables (rewritten when ``write``)."""
    texts: dict[Path, str] = {}
    for path, name, renderer in BLOCKS:
        texts[path] = render(texts.get(path) or path.read_text(), name, renderer(ops))
    stale = [p for p, t in texts.items() if p.read_text() != t]
    if write:
        for p in stale:
            p.write_text(texts[p])
    return stale


def table() -> list[Op]:
    """The unary op table from the built extension."""
    from ferrograd import _core

    return [(list(m), list(f), d, r, g) for m, f, d, r, g in _core._unary_op_table()]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = stale_files(table(), write=not check)
    for p in stale:
        print(f"{'stale' if check else 'rewrote'}: {p.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
