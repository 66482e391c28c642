"""``python -m ferrograd.distributed.launch --nproc_per_node 2 train.py [args...]``: starts
``train.py`` in N processes under ``mpiexec`` (the one installed with mpich next to this
Python, else the first on PATH) and exits with its status. ``--hostfile FILE`` spreads the
ranks over the machines listed there (MPICH's ``-f``)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from typing import Optional, Sequence


def find_mpiexec() -> Optional[str]:
    """The mpiexec next to this interpreter (a venv with mpich), else the one on PATH."""
    local = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(local, os.X_OK):
        return local
    return shutil.which("mpiexec")


def command(args: argparse.Namespace, mpiexec: str) -> list:
    """The mpiexec command line for ``args``."""
    cmd = [mpiexec, "-n", str(args.nproc_per_node)]
    if args.hostfile:
        cmd += ["-f", args.hostfile]
    cmd += [sys.executable]
    if args.module:
        cmd += ["-m"]
    return cmd + [args.script, *args.script_args]


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(
        prog="python -m ferrograd.distributed.launch",
        description="Run a training script in N processes under mpiexec.",
    )
    p.add_argument(
        "--nproc_per_node", "--nproc-per-node", type=int, default=2, help="processes (ranks)"
    )
    p.add_argument("--hostfile", help="MPICH hostfile: one 'host[:slots]' per line")
    p.add_argument("--mpiexec", help="the mpiexec to use (default: found automatically)")
    p.add_argument("-m", "--module", action="store_true", help="script is a module name")
    p.add_argument("script", help="the training script (or module with -m)")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="its arguments")
    args = p.parse_args(argv)
    if args.nproc_per_node < 1:
        p.error(f"--nproc_per_node must be at least 1, got {args.nproc_per_node}")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the job; returns mpiexec's exit status."""
    args = parse_args(argv)
    mpiexec = args.mpiexec or find_mpiexec()
    if mpiexec is None:
        print(
            "ferrograd.distributed.launch: no mpiexec found; install one with "
            "pip install 'ferrograd[distributed]' (or: pip install mpi4py mpich)",
            file=sys.stderr,
        )
        return 127
    cmd = command(args, mpiexec)
    print("launching:", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
