"""``_core.pyi`` and the package's annotations agree with the running extension:
``python -m mypy.stubtest ferrograd`` reports nothing beyond ``tests/stubtest_allowlist.txt``
(each entry there says why stubtest cannot see it)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mypy", reason="stubtest needs mypy (in the `test` extra)")


def test_stubtest_is_clean(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "mypy.stubtest",
        "ferrograd",
        "--allowlist",
        str(ROOT / "tests" / "stubtest_allowlist.txt"),
        "--mypy-config-file",
        str(ROOT / "pyproject.toml"),
    ]
    # a private cache, so that parallel runs and a stale shared cache cannot interfere
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy_cache"))
    result = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
