"""The Rust tests that exercise unsafe code, run under valgrind's memcheck.

CI runs ``cargo test`` before pytest, so the test binaries are already built; this test
asks cargo for their paths (``cargo test --no-run``, a no-op then) and runs a chosen
subset under ``valgrind --leak-check=full``: any invalid read or write, use of
uninitialised memory, or memory definitely or indirectly lost fails the test, with
valgrind's report. It is skipped, saying why, where valgrind or cargo is missing.

The subset covers the unsafe code that plain Rust can reach without Python: storages
(raw buffers, the buffer cache and its page release), the strided elementwise,
reduction, copy, cast and indexing kernels, the matmul kernel (gemm over raw strided
pointers, row blocks), and the engine (iterative graph drop, saved tensors). The
bindings (DLPack, the buffer protocol, NumPy sharing) need Python and are not covered
here; see README, "Memory checking".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: test binary (cargo target name) -> libtest filters (substrings of test names; "" runs
#: all). The unit tests cover storages, the buffer cache, every kernel and the optimizers'
#: raw loops; tests/engine.rs the engine's iterative drop and saved tensors;
#: tests/indexing.rs and tests/indexing_writes.rs the index kernels through tensors.
#: tests/static_graph.rs adds no unsafe code of its own and is left out to keep the run
#: short.
SUBSETS = {
    "ferrograd": [""],
    "engine": [""],
    "indexing": [""],
    "indexing_writes": [""],
}

#: valgrind exits with this code when it found an error
ERROR_EXIT = 99
#: each binary's run must end within this many seconds
TIME_LIMIT = 300


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed; the memory check needs it")
    return path


def _test_binaries(cargo: str) -> dict[str, str]:
    """Cargo target name -> path of its test executable (built if it is not yet)."""
    out = subprocess.run(
        [cargo, "test", "--no-run", "--message-format=json", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if out.returncode != 0:
        pytest.fail(f"cargo test --no-run failed:\n{out.stderr[-4000:]}")
    found = {}
    for line in out.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            if msg["profile"]["test"]:
                found[msg["target"]["name"]] = msg["executable"]
    return found


@pytest.fixture(scope="module")
def binaries() -> dict[str, str]:
    if os.environ.get("FERROGRAD_SKIP_VALGRIND"):
        pytest.skip("FERROGRAD_SKIP_VALGRIND is set")
    _tool("valgrind")
    return _test_binaries(_tool("cargo"))


@pytest.mark.parametrize("target", sorted(SUBSETS))
def test_rust_tests_are_clean_under_valgrind(binaries, target):
    exe = binaries.get(target)
    assert exe, f"cargo built no test binary named {target!r}: {sorted(binaries)}"
    cmd = [
        "valgrind",
        "--quiet",
        f"--error-exitcode={ERROR_EXIT}",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect",
        "--show-leak-kinds=definite,indirect",
        exe,
        "--test-threads=1",
        *[f for f in SUBSETS[target] if f],
    ]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=TIME_LIMIT)
    report = (run.stdout[-3000:] + "\n" + run.stderr[-6000:]).strip()
    assert run.returncode != ERROR_EXIT, f"valgrind found memory errors:\n{report}"
    assert run.returncode == 0, f"the tests failed under valgrind:\n{report}"
    assert "test result: ok" in run.stdout, report
    ran = sum(int(n) for n in re.findall(r"test result: ok\. (\d+) passed", run.stdout))
    assert ran > 0, f"no test ran under valgrind:\n{report}"
