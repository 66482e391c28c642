"""Allocation failures are MemoryError, never an abort (issue 16 item 11). The capped
cases run in a child process under an address-space limit, so an abort there is a
failed test rather than a dead test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import ferrograd as fg
import pytest

posix_only = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS, /proc")


def test_split_into_a_huge_number_of_sections_is_a_memory_error():
    with pytest.raises(MemoryError):
        fg.split(fg.zeros([0]), 2**40, 0)
    with pytest.raises(MemoryError):
        fg.chunk(fg.zeros([0]), 2**61, 0)


def run_capped(body: str, extra_mib: int) -> subprocess.CompletedProcess:
    """Runs ``body`` with the address space capped ``extra_mib`` MiB above what the child
    uses once ferrograd is imported; prints OK when body raised MemoryError."""
    code = textwrap.dedent(
        """
        import resource, ferrograd as fg
        vm = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (vm + ({extra} << 20), resource.RLIM_INFINITY))
        try:
        {body}
        except MemoryError as e:
            print("OK", e)
        """
    ).format(body=textwrap.indent(textwrap.dedent(body), "    " * 2), extra=extra_mib)
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"RAYON_NUM_THREADS": "1", "RUST_BACKTRACE": "0", "PATH": "/usr/bin:/bin"},
    )


@posix_only
@pytest.mark.parametrize(
    ("body", "extra_mib"),
    [
        # each cap lets the first big buffer fit and not the next (sizes in the comments)
        # the mask's selection: 16M mask + 128M values, then 128M for the result
        (
            "m = fg.ones([1 << 24], dtype='bool')\nx = fg.zeros([1 << 24], dtype='float64')\nx[m]",
            200,
        ),
        ("fg.arange(0, 1 << 25, dtype='float16')", 288),  # 256M of float64, then 64M
        ("fg.ones([1 << 24], dtype='bool').nonzero()", 200),  # 16M + 128M + 128M coords
        # 64M values + 8M mask, then 64M for the result
        (
            "fg.masked_select(fg.zeros([1 << 23], dtype='float64'), fg.ones([1 << 23], dtype='bool'))",
            80,
        ),
    ],
    ids=["bool-mask-index", "arange-float16", "nonzero", "masked_select"],
)
def test_allocation_failure_under_a_memory_cap_is_a_memory_error(body, extra_mib):
    r = run_capped(body, extra_mib)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-2000:]}"
    assert r.stdout.startswith("OK"), r.stdout + r.stderr[-2000:]
