"""Writes the Python-side blocks derived from the op declarations in ``src/op_defs/``.

The Rust side (kernels, gradients, ``Tensor`` methods, static-graph parsing) expands the
declaration tables with macros. Python files cannot be written by a Rust macro, so this
script reads the tables from the built extension (``ferrograd._core._unary_op_table()``,
``_binary_op_table()``) and rewrites the marked blocks below: module functions and
``__all__`` entries, the ``nn.functional`` names, the static ``Variable`` methods and the
``Tensor`` stub entries.
Its output is checked in (type checkers and readers see plain code) and
``tests/python/test_op_registry.py`` fails when a block is stale.

The reductions (``src/op_defs/reduce.rs``, ``_reduce_op_table()``) and the shape ops
(``src/op_defs/shape.rs``, ``_shape_op_table()``) get their stubs and static ``Variable``
methods with the signature their entry declares. The factories declared in
``creation_factories!`` (``src/python/creation.rs``, ``_creation_op_table()``) get their
stubs, module names and ``__all__`` entries from their signature family.

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

# (methods, functional names, doc, dtype rule, has_gradient, extra keyword: round's
# decimals or None) per unary op
Op = tuple[list[str], list[str], str, str, bool, Any]
# (methods, operators, operand keywords, doc, dtype rule, has_gradient, extra keyword:
# torch's alpha / rounding_mode or None) per binary op
BinOp = tuple[list[str], list[str], list[str], str, str, bool, Any]


def _rst(doc: str) -> str:
    """Markdown inline code (`x`) as reStructuredText literals (``x``)."""
    return re.sub(r"`([^`]+)`", r"``\1``", doc)


# stub annotation of each extra keyword of the unary table (before ``name``, as Paddle's
# ``round(x, decimals=0, name=None)``)
_UNARY_EXTRA_TYPES = {"decimals": "_int"}


def _stub_methods(ops: list[Op]) -> list[str]:
    out = []
    for methods, _, doc, _, _, extra in ops:
        params = ["self", "name: str | None = None"]
        if extra is not None:
            params.insert(1, f"{extra}: {_UNARY_EXTRA_TYPES[extra]} | None = None")
        for m in methods:
            out += [*_def(m, params, "Tensor"), f'        """{_rst(doc)}"""']
    return out


def _api_functions(ops: list[Op]) -> list[str]:
    return [_function_line(m) for methods, *_ in ops for m in methods]


def _api_all(ops: list[Op]) -> list[str]:
    return [f'    "{m}",' for methods, *_ in ops for m in methods]


# torch's F.relu / F.mish also take ``inplace``: their generated line binds the table's
# method under a private name and nn/functional.py defines the function around it
INPLACE_FUNCTIONAL = ("relu", "mish")


def _functional(ops: list[Op]) -> list[str]:
    return [
        f"_{f}_method = Tensor.{methods[0]}"
        if f in INPLACE_FUNCTIONAL
        else f"{f} = Tensor.{methods[0]}"
        for methods, functional, *_ in ops
        for f in functional
    ]


def _functional_all(ops: list[Op]) -> list[str]:
    return [f'    "{f}",' for _, functional, *_ in ops for f in functional]


def _variable_methods(ops: list[Op]) -> list[str]:
    out: list[str] = []
    for methods, _, doc, _, _, extra in ops:
        for m in methods:
            if extra is None:
                out += [
                    f"    def {m}(self, name: str | None = None) -> Variable:",
                    f'        """{_rst(doc)}"""',
                    f'        return self._op("{methods[0]}", [self])',
                    "",
                ]
                continue
            # (the extra keyword composes the op in ``Variable._unary_extra``)
            out += [
                *_def(m, ["self", f"{extra}: Any = None", "name: str | None = None"], "Variable"),
                f'        """{_rst(doc)}"""',
                f'        return self._unary_extra("{methods[0]}", {extra}={extra})',
                "",
            ]
    return out


def _def(name: str, params: list[str], ret: str, indent: str = "    ") -> list[str]:
    """A stub ``def`` line as ruff formats it: on one line, with the parameters on one
    indented line, or one parameter per line (``indent``: the def's own indentation)."""
    one = f"{indent}def {name}({', '.join(params)}) -> {ret}:"
    if len(one) <= LINE_LENGTH:
        return [one]
    inner = indent + "    "
    hug = inner + ", ".join(params)
    if len(hug) <= LINE_LENGTH:
        return [f"{indent}def {name}(", hug, f"{indent}) -> {ret}:"]
    return [f"{indent}def {name}(", *[f"{inner}{p}," for p in params], f"{indent}) -> {ret}:"]


# stub annotation of each extra keyword of the binary table
_EXTRA_TYPES = {"alpha": "_Scalar", "rounding_mode": "str"}


def _binary_stub_methods(ops: list[BinOp]) -> list[str]:
    out = []
    for methods, _, keywords, doc, _, _, extra in ops:
        params = ["self", "other: _Operand | None = None", "name: str | None = None", "*"]
        params += [f"{k}: _Operand | None = None" for k in keywords]
        if extra is not None:
            params.append(f"{extra}: {_EXTRA_TYPES[extra]} | None = None")
        for m in methods:
            ret = "Any" if m in _DIALECT_WRAPPED else "Tensor"
            out += [*_def(m, params, ret), f'        """{_rst(doc)}"""']
    return out


def _binary_functions(ops: list[BinOp]) -> list[str]:
    return [_function_line(m) for methods, *_ in ops for m in methods]


def _binary_all(ops: list[BinOp]) -> list[str]:
    return [f'    "{m}",' for methods, *_ in ops for m in methods]


def _binary_variable_methods(ops: list[BinOp]) -> list[str]:
    out: list[str] = []
    for methods, _, _, doc, *_ in ops:
        for m in methods:
            out += [
                f"    def {m}(self, y: Any, name: str | None = None) -> Variable:",
                f'        """{_rst(doc)}"""',
                f'        return self._binary("{methods[0]}", y)',
                "",
            ]
    return out


# (name, doc, params, keyword-only params, other positional order, dtype rule, axes kind,
#  has_gradient, backward node) per reduction
RedOp = tuple[str, str, list[str], list[str], list[str], str, str, bool, str]

# stub annotation of each reduction parameter (runtime defaults are all None); `axis`/`dim`
# depend on the axes kind
_PARAM_TYPES = {
    "keepdim": "_bool | None",
    "keepdims": "_bool | None",
    "unbiased": "_bool | None",
    "dtype": "_DTypeLike | None",
    "correction": "_float | None",
    "name": "str | None",
}


# ops whose Python function (in the module named here) wraps the table's op because the two
# dialects spell a call the same way and answer differently (``max(x, 1)``: values or
# PyTorch's ``(values, indices)``; ``equal``: elementwise or one bool); the wrapper
# (``_shared_spellings.py``) holds the rule, and their stubs return ``Any``
_DIALECT_WRAPPED = {
    "max": "_shared_spellings",
    "min": "_shared_spellings",
    "equal": "_shared_spellings",
}


def _function_line(name: str) -> str:
    """The module function for op ``name``: the method itself, or the dialect wrapper."""
    if name in _DIALECT_WRAPPED:
        return f"{name} = {_DIALECT_WRAPPED[name]}.{name}"  # (imported at the file's top)
    return f"{name} = Tensor.{name}"


def _param_type(param: str, axes: str) -> str:
    if param in ("axis", "dim"):
        return "_Axis" if axes == "Many" else "_int | None"
    return _PARAM_TYPES[param]


def _reduction_stub_methods(ops: list[RedOp]) -> list[str]:
    out: list[str] = []
    for name, doc, params, keywords, other, _, axes, _, _ in ops:
        sig = ["self", *[f"{p}: {_param_type(p, axes)} = None" for p in params]]
        sig += ["*", *[f"{k}: {_param_type(k, axes)} = None" for k in keywords]]
        ret = "Any" if name in _DIALECT_WRAPPED else "Tensor"
        if not other:
            out += [*_def(name, sig, ret), f'        """{_rst(doc)}"""']
            continue
        # the other dialect's positional order as a second overload: positional-only up
        # to the last moved parameter, required up to the first one
        moved = [i for i, (p, o) in enumerate(zip(params, other)) if p != o]
        alt = ["self"]
        for i, p in enumerate(other):
            default = "" if i <= moved[0] else " = None"
            alt.append(f"{p}: {_param_type(p, axes)}{default}")
            if i == moved[-1]:
                alt.append("/")
        alt += ["*", *[f"{k}: {_param_type(k, axes)} = None" for k in keywords]]
        out += ["    @overload", *_def(name, sig, "Tensor"), f'        """{_rst(doc)}"""']
        alt_def = _def(name, alt, "Tensor")
        out += ["    @overload", *alt_def[:-1], alt_def[-1] + " ..."]
    return out


def _reduction_functions(ops: list[RedOp]) -> list[str]:
    return [_function_line(op[0]) for op in ops]


def _reduction_all(ops: list[RedOp]) -> list[str]:
    return [f'    "{op[0]}",' for op in ops]


def _reduction_variable_methods(ops: list[RedOp]) -> list[str]:
    out: list[str] = []
    for name, doc, params, keywords, _, _, _, _, _ in ops:
        sig = ["self", *[f"{p}: Any = None" for p in params], "*"]
        sig += [f"{k}: Any = None" for k in keywords]
        passed = [p for p in [*params, *keywords] if p != "name"]
        call = f'        return self._op("{name}", [self], {", ".join(f"{p}={p}" for p in passed)})'
        if len(call) > LINE_LENGTH:
            call = "\n".join(
                ["        return self._op(", f'            "{name}",', "            [self],"]
                + [f"            {p}={p}," for p in passed]
                + ["        )"]
            )
        out += [
            *_def(name, sig, "Variable"),
            f'        """{_rst(doc)}"""',
            call,
            "",
        ]
    return out


# (name, doc, params, keyword-only params, view kind, has static rule, backward node,
#  varargs name or "", arity, Python signature) per shape op
ShapeRow = tuple[str, str, list[str], list[str], str, bool, str, str, int, str]

# stub annotation of each shape-op parameter, by the vocabulary's names
_SHAPE_TYPES = {
    "axis": "_Axis",
    "dim": "_Axis",
    "start_axis": "_int",
    "stop_axis": "_int",
    "start_dim": "_int | None",
    "end_dim": "_int | None",
    "perm": "_ShapeLike | None",
    "dims": "_ShapeLike | None",
    "dim0": "_int | None",
    "dim1": "_int | None",
    "shape": "_ShapeLike | SupportsIndex | None",
    "size": "_ShapeLike | SupportsIndex | None",
    "other": "Tensor | None",
    "y": "Tensor | None",
    "name": "str | None",
}


def _defaults(signature: str) -> dict[str, str]:
    """Each parameter's default as the entry's ``signature`` shows it."""
    out = {}
    for part in signature.strip("()").split(","):
        name, _, default = part.strip().partition("=")
        if default:
            out[name] = default
    return out


def _shape_stub_methods(ops: list[ShapeRow]) -> list[str]:
    out: list[str] = []
    for name, doc, params, keywords, _, _, _, varargs, _, signature in ops:
        defaults = _defaults(signature)
        kw = [f"{k}: {_SHAPE_TYPES[k]} = {defaults[k]}" for k in keywords]
        if not varargs:
            sig = ["self", *[f"{p}: {_SHAPE_TYPES[p]} = {defaults[p]}" for p in params]]
            sig += ["*", *kw] if kw else []
            out += [*_def(name, sig, "Tensor"), f'        """{_rst(doc)}"""']
            continue
        # the varargs as ints, or as one sequence (positional-only)
        out += [
            "    @overload",
            *_def(name, ["self", f"*{varargs}: SupportsIndex", *kw], "Tensor"),
            f'        """{_rst(doc)}"""',
        ]
        alt = _def(
            name, ["self", f"{varargs}: _ShapeLike", "/", *(["*", *kw] if kw else [])], "Tensor"
        )
        out += ["    @overload", *alt[:-1], alt[-1] + " ..."]
    return out


def _shape_functions(ops: list[ShapeRow]) -> list[str]:
    return [f"{op[0]} = Tensor.{op[0]}" for op in ops]


def _shape_all(ops: list[ShapeRow]) -> list[str]:
    return [f'    "{op[0]}",' for op in ops]


def _shape_variable_methods(ops: list[ShapeRow]) -> list[str]:
    out: list[str] = []
    for name, doc, params, keywords, _, _, _, varargs, arity, _ in ops:

        def typed(p: str) -> str:
            return f"{p}: {'str | None' if p == 'name' else 'Any'} = None"

        sig = [
            "self",
            *(
                [f"*{varargs}: Any", *map(typed, keywords)]
                if varargs
                else [*map(typed, params), *(["*", *map(typed, keywords)] if keywords else [])]
            ),
        ]
        passed = [p for p in [varargs, *params, *keywords] if p and p != "name"]
        inputs = "[self]"
        if arity == 2:  # the second input plays the other/y role
            second = [p for p in passed if p in ("other", "y")]
            passed = [p for p in passed if p not in second]
            inputs = f'[self, self._second("{name}", {", ".join(second)})]'
        attrs = ", ".join(f"{p}={p}" for p in passed)
        call = f'        return self._op("{name}", {inputs}{", " + attrs if attrs else ""})'
        if len(call) > LINE_LENGTH:
            call = "\n".join(
                ["        return self._op(", f'            "{name}",', f"            {inputs},"]
                + [f"            {p}={p}," for p in passed]
                + ["        )"]
            )
        out += [*_def(name, sig, "Variable"), f'        """{_rst(doc)}"""', call, ""]
    return out


# (name, family macro, doc) per table-declared factory (src/python/creation.rs)
Factory = tuple[str, str, str]

# the keywords every factory takes after its family's own parameters
_FACTORY_FLAGS = [
    "requires_grad: _bool = False",
    "stop_gradient: _bool | None = None",
]


def _creation_stubs(rows: list[Factory]) -> list[str]:
    """Module-level stubs: a shape factory as ints or Paddle's positional form (a
    sequence, then dtype and name), with ``shape=``/``size=``; a like factory after ``x``."""
    out: list[str] = []
    for name, family, doc in rows:
        extra = ["generator: Generator | None = None"] if family == "random_factory" else []
        if family == "filled_factory":
            extra = ["memory_format: Any = None"]
        if family == "like_factory":
            params = ["x: Tensor", "dtype: _DTypeLike | None = None", "name: str | None = None"]
            params += ["*", *_FACTORY_FLAGS, "device: object = None", "memory_format: Any = None"]
            out += [*_top_def(name, params), f'    """{_rst(doc)}"""', ""]
            continue
        keywords = [
            "dtype: _DTypeLike | None = None",
            *_FACTORY_FLAGS,
            "name: str | None = None",
            "device: object = None",
            *extra,
        ]
        shape_kw = [
            "shape: _ShapeLike | SupportsIndex | None = None",
            "size: _ShapeLike | None = None",
        ]
        ints = ["*dims: SupportsIndex", *keywords, *shape_kw]
        out += ["@overload", *_top_def(name, ints), f'    """{_rst(doc)}"""', ""]
        paddle = ["paddle_shape: _ShapeLike", "paddle_dtype: _DTypeLike | None = None"]
        paddle += ["paddle_name: str | None = None", "/", "*", *keywords]
        alt = _top_def(name, paddle)
        out += ["@overload", *alt[:-1], alt[-1] + " ..."]
    return [*out, ""] if out and out[-1].endswith("...") else out  # (ruff: a blank line)


def _top_def(name: str, params: list[str]) -> list[str]:
    """A module-level stub ``def`` as ruff formats it (one parameter per line when long)."""
    return _def(name, params, "Tensor", indent="")


def _creation_names(rows: list[Factory]) -> list[str]:
    return [f"{name} = _core.{name}" for name, _, _ in rows]


def _creation_all(rows: list[Factory]) -> list[str]:
    return [f'    "{name}",' for name, _, _ in rows]


UNARY = "src/op_defs/unary.rs"
BINARY = "src/op_defs/binary.rs"
REDUCE = "src/op_defs/reduce.rs"
SHAPE = "src/op_defs/shape.rs"
CREATION = "src/python/creation.rs"

# (file, block name, source table, renderer)
BLOCKS: list[tuple[Path, str, str, Callable[[list[Any]], list[str]]]] = [
    (PKG / "_core.pyi", "unary Tensor methods", UNARY, _stub_methods),
    (PKG / "_dialect_aliases.py", "unary functions", UNARY, _api_functions),
    (PKG / "_dialect_aliases.py", "unary __all__", UNARY, _api_all),
    (PKG / "nn" / "functional.py", "unary activations", UNARY, _functional),
    (PKG / "nn" / "functional.py", "unary __all__", UNARY, _functional_all),
    (PKG / "static" / "variable_unary.py", "unary Variable methods", UNARY, _variable_methods),
    (PKG / "_core.pyi", "binary Tensor methods", BINARY, _binary_stub_methods),
    (PKG / "_dialect_aliases.py", "binary functions", BINARY, _binary_functions),
    (PKG / "_dialect_aliases.py", "binary __all__", BINARY, _binary_all),
    (
        PKG / "static" / "variable_binary.py",
        "binary Variable methods",
        BINARY,
        _binary_variable_methods,
    ),
    (PKG / "_core.pyi", "reduction Tensor methods", REDUCE, _reduction_stub_methods),
    (PKG / "_dialect_aliases.py", "reduction functions", REDUCE, _reduction_functions),
    (PKG / "_dialect_aliases.py", "reduction __all__", REDUCE, _reduction_all),
    (
        PKG / "static" / "variable_reductions.py",
        "reduction Variable methods",
        REDUCE,
        _reduction_variable_methods,
    ),
    (PKG / "_core.pyi", "shape Tensor methods", SHAPE, _shape_stub_methods),
    (PKG / "_dialect_aliases.py", "shape functions", SHAPE, _shape_functions),
    (PKG / "_dialect_aliases.py", "shape __all__", SHAPE, _shape_all),
    (
        PKG / "static" / "variable_shapes.py",
        "shape Variable methods",
        SHAPE,
        _shape_variable_methods,
    ),
    (PKG / "_core.pyi", "creation factories", CREATION, _creation_stubs),
    (PKG / "_core.pyi", "creation __all__", CREATION, _creation_all),
    (PKG / "_dialect_aliases.py", "creation functions", CREATION, _creation_names),
    (PKG / "_dialect_aliases.py", "creation __all__", CREATION, _creation_all),
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

    unary = [(list(m), list(f), d, r, g, e) for m, f, d, r, g, e in _core._unary_op_table()]
    binary = [
        (list(m), list(o), list(k), d, r, g, e) for m, o, k, d, r, g, e in _core._binary_op_table()
    ]
    reduce = [
        (n, d, list(p), list(k), list(o), r, a, g, node)
        for n, d, p, k, o, r, a, g, node in _core._reduce_op_table()
    ]
    shape = [
        (n, d, list(p), list(k), v, r, node, va, a, sig)
        for n, d, p, k, v, r, node, va, a, sig in _core._shape_op_table()
    ]
    creation = [tuple(row) for row in _core._creation_op_table()]
    return {UNARY: unary, BINARY: binary, REDUCE: reduce, SHAPE: shape, CREATION: creation}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = stale_files(table(), write=not check)
    for p in stale:
        print(f"{'stale' if check else 'rewrote'}: {p.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
