"""No import cycle between the Rust binding modules (`src/python`), checked by
scripts/check_module_cycles.py; and the checker itself finds the cycles it should."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_module_cycles.py"


def _checker():
    spec = importlib.util.spec_from_file_location("check_module_cycles", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def test_no_cycle_between_binding_modules():
    r = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no import cycle" in r.stdout


def _write(root: pathlib.Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_checker_finds_cycles_through_every_path_form(tmp_path):
    # a -> sub::b by `use super::`, sub::b -> sub::c by a sibling `super::` path inside an
    # expression, sub::c -> a by a `crate::python::` brace group: one cycle of three
    _write(
        tmp_path,
        {
            "mod.rs": "mod a;\nmod errors;\nmod sub;\n",
            "errors.rs": "pub struct E;\n",
            "a.rs": "use super::sub::b::B;\n",
            "sub/mod.rs": "pub mod b;\npub mod c;\n",
            "sub/b.rs": "fn f() { super::c::g(); }\n",
            "sub/c.rs": "use crate::python::{a::A, errors::E};\n",
        },
    )
    m = _checker()
    graph = m.build_graph(tmp_path, ("python",))
    assert graph[("a",)] == {("sub", "b")}
    assert graph[("sub", "b")] == {("sub", "c")}
    assert graph[("sub", "c")] == {("a",), ("errors",)}
    assert m.cycles(graph) == [[("a",), ("sub", "b"), ("sub", "c")]]
    assert m.main(["--root", str(tmp_path)]) == 1


def test_checker_ignores_comments_tests_and_mod_declarations(tmp_path):
    _write(
        tmp_path,
        {
            "mod.rs": "mod a;\nmod b;\n",
            "a.rs": "use super::b::X;\n",
            # b names a only in a comment and in its test module: not a dependency
            "b.rs": "// see super::a::f\n/* super::a::g */\n#[cfg(test)]\nmod tests {\n"
            "    use super::super::a::f;\n}\n",
        },
    )
    m = _checker()
    graph = m.build_graph(tmp_path, ("python",))
    assert graph[("b",)] == set()
    assert m.cycles(graph) == []
    assert m.main(["--root", str(tmp_path)]) == 0


def test_binding_file_names_say_what_they_hold():
    # names like `static_ops_ext.rs` or `functions.rs` say nothing about what is inside
    vague = ("_ext.rs", "_more.rs", "_misc.rs", "_extra.rs")
    bad = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "src" / "python").rglob("*.rs")
        if p.name.endswith(vague) or p.name in ("functions.rs", "misc.rs", "utils.rs", "helpers.rs")
    ]
    assert bad == [], f"rename to say what the file holds: {bad}"
