"""The documentation site (mkdocs.yml, docs/) builds with warnings as errors.

Needs the ``docs`` extra (``pip install -e '.[docs]'``: mkdocs-material and
mkdocstrings[python]); skipped, saying so, without it. The examples in the pages are run
by ``test_doc_examples.py``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEEDED = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _missing() -> list[str]:
    missing = []
    for name in NEEDED:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(name)
    return missing


def test_every_page_is_in_the_nav_and_every_nav_entry_exists():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config[config.index("\nnav:") :]
    in_nav = set(re.findall(r":\s*([\w./-]+\.md)\s*$", nav, flags=re.M))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").glob("**/*.md")}
    assert in_nav - pages == set(), "nav entries without a page"
    assert pages - in_nav == set(), "pages missing from the nav in mkdocs.yml"


def test_docs_site_builds_strict(tmp_path):
    missing = _missing()
    if missing:
        pytest.skip(f"the docs extra is not installed (missing {', '.join(missing)})")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    # the reference is generated: the stubs' Tensor methods and the package's classes
    for anchor in ("ferrograd._core.Tensor.backward", "ferrograd.autograd.py_layer.PyLayer"):
        assert f'id="{anchor}"' in api, anchor
