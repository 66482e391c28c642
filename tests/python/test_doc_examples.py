"""Every ```python block in README.md and docs/*.md runs standalone (docs/contributing
convention, /work/briefs/DOCS_CONVENTION.md in the project's history).

Each block runs on its own, in a fresh namespace, with the current directory a fresh
temporary one. A block directly under a line ``<!-- skip-run: reason -->`` is skipped with
that reason. Output shown as a trailing comment is checked:

- ``print(...)  # text``: what the call prints must be ``text``. When ``text`` is a Python
  literal, values are compared (numbers with a relative tolerance of 1e-4), and a single
  printed argument may match through its value (``print(t.shape)  # [2, 3]``). A comment
  that is neither a literal nor starts like the printed text is prose and is not checked;
- ``expression  # literal`` (both at any depth: inside ``with``, ``try``, loops): when the comment parses as a Python literal (a number, list,
  tuple, string, bool, None), the expression's value must equal it (tensors and
  ``Size`` are compared through ``tolist()``/``list``; a list ending in ``...`` shows
  the first items).

Other comments are prose and are not checked.
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP = re.compile(r"^<!--\s*skip-run:\s*(.+?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```+\s*python\s*$")


def _blocks(path: Path):
    """(line number of the fence, code, skip reason or None) for each python block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i])
            i += 1
        above = lines[start - 1].strip() if start > 0 else ""
        skip = SKIP.match(above)
        yield start + 1, "\n".join(body) + "\n", skip.group(1) if skip else None
        i += 1


def _doc_files():
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs").glob("**/*.md")) if (ROOT / "docs").is_dir() else []
    return [f for f in files if f.is_file()]


CASES = [
    pytest.param(code, reason, id=f"{path.relative_to(ROOT)}:{line}")
    for path in _doc_files()
    for line, code, reason in _blocks(path)
]


def _comments(code: str) -> dict[int, str]:
    """Trailing comments by line number."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out


def _plain(v):
    """A tensor / Size / NumPy value as plain Python data for comparison."""
    if hasattr(v, "tolist") and callable(v.tolist):
        return v.tolist()
    if type(v).__name__ == "Size":
        return list(v)
    return v


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if b and b[-1] is Ellipsis:  # `[1, 2, ...]` shows the first items
            b = b[:-1]
            a = a[: len(b)]
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _literal(text: str):
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _check_print(printed: str, shown: str, where: str, args: tuple = ()) -> None:
    printed = printed.strip()
    if " ".join(printed.split()) == " ".join(shown.split()):
        return
    ok_s, vs = _literal(shown)
    if ok_s:
        ok_p, vp = _literal(printed)
        if ok_p and _same(vp, vs):
            return
        # `print(t.shape)  # [2, 3]`: the value shown rather than its repr
        if len(args) == 1 and _same(_plain(args[0]), vs):
            return
        raise AssertionError(f"{where}: printed {printed!r}, the docs show {shown!r}")
    if printed[:4] == shown[:4]:
        # not a literal, but it starts like the output: it is the output, and differs
        raise AssertionError(f"{where}: printed {printed!r}, the docs show {shown!r}")
    # otherwise the comment is prose about the line, not its output


class _Checks(ast.NodeTransformer):
    """Rewrites ``print(...)  # text`` and ``expr  # literal`` statements (at any depth:
    inside ``with``, ``try``, loops) into calls of the checkers."""

    def __init__(self, comments: dict[int, str]):
        self.comments = comments

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        shown = self.comments.get(node.end_lineno)
        if shown is None:
            return node
        value = node.value
        line = ast.Constant(node.lineno)
        text = ast.Constant(shown)
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "print"
        ):
            call = ast.Call(
                ast.Name("__doc_print__", ast.Load()),
                [line, text, *value.args],
                value.keywords,
            )
        elif _literal(shown)[0]:
            call = ast.Call(ast.Name("__doc_value__", ast.Load()), [line, text, value], [])
        else:
            return node
        return ast.copy_location(ast.Expr(call), node)


def run_block(code: str, where: str = "<doc>") -> None:
    """Runs one block in a fresh namespace, checking shown output (see module doc)."""
    tree = _Checks(_comments(code)).visit(ast.parse(code, filename=where))
    ast.fix_missing_locations(tree)

    def doc_print(line, shown, *args, **kwargs):
        buf = io.StringIO()
        print(*args, **{**kwargs, "file": buf})
        print(buf.getvalue(), end="", file=kwargs.get("file"))
        _check_print(buf.getvalue(), shown, f"{where} (block line {line})", args)

    def doc_value(line, shown, value):
        got = _plain(value)
        expected = _literal(shown)[1]
        assert _same(got, expected), (
            f"{where} (block line {line}): value {got!r}, the docs show {shown!r}"
        )

    ns: dict = {"__name__": "__doc_example__", "__doc_print__": doc_print}
    ns["__doc_value__"] = doc_value
    exec(compile(tree, where, "exec"), ns)


@pytest.mark.parametrize("code, skip_reason", CASES)
def test_doc_example_runs(code, skip_reason, tmp_path, monkeypatch, request):
    if skip_reason is not None:
        pytest.skip(skip_reason)
    import ferrograd as fg
    from ferrograd import static

    monkeypatch.chdir(tmp_path)
    # a fresh process would start with empty default programs and scope
    fresh = static.program_guard(static.Program(), static.Program())
    try:
        with fresh, static.scope_guard(static.Scope()):
            run_block(code, request.node.callspec.id)
    finally:
        # leave no global mode behind for the next block
        if not fg.in_dynamic_mode():
            fg.disable_static()
        fg.set_grad_enabled(True)


def test_the_runner_checks_shown_output():
    run_block("x = [1, 2]\nprint(len(x))  # 2\nx  # [1, 2]\nx  # prose, not checked\n")
    with pytest.raises(AssertionError, match="block line 4"):
        run_block("try:\n    pass\nfinally:\n    print(1)  # 2\n")
    with pytest.raises(AssertionError, match="printed '3'"):
        run_block("print(1 + 2)  # 4\n")
    with pytest.raises(AssertionError, match="value 3"):
        run_block("1 + 2  # 4\n")
    run_block("print(0.1 + 0.2)  # 0.3\n")  # numbers within tolerance
    run_block("[1, 2, 3]  # [1, 2, ...]\n")  # a prefix
    run_block("import ferrograd as fg\nprint(fg.zeros(2, 3).shape)  # [2, 3]\n")
    run_block("print(0.5)  # the loss, falling\n")  # prose
    with pytest.raises(AssertionError, match="printed 'ferrograd.float32'"):
        run_block("import ferrograd as fg\nprint(fg.zeros(1).dtype)  # ferrograd.float64\n")
    with pytest.raises(AssertionError):
        run_block("[1, 5, 3]  # [1, 2, ...]\n")


def test_the_runner_finds_blocks_and_skip_markers(tmp_path):
    md = tmp_path / "x.md"
    md.write_text(
        "text\n```python\na = 1\n```\n<!-- skip-run: needs a GPU -->\n```python\nb\n```\n"
        "```bash\nls\n```\n"
    )
    blocks = list(_blocks(md))
    assert [(line, reason) for line, _, reason in blocks] == [(2, None), (6, "needs a GPU")]
    assert blocks[0][1] == "a = 1\n"
