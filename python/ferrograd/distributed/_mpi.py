"""Lazy access to mpi4py: ``ferrograd.distributed`` imports without it, and says how to
install it the first time something needs MPI."""

from __future__ import annotations

from typing import Any

_MPI: Any = None


def mpi() -> Any:
    """The ``mpi4py.MPI`` module; ImportError with the install command when missing."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError(
                "ferrograd.distributed runs on MPI through mpi4py, which is not installed; "
                "install it with: pip install 'ferrograd[distributed]' (or: pip install "
                "mpi4py mpich), then start the ranks with mpiexec -n N python train.py"
            ) from e
        _MPI = MPI
    return _MPI


def available() -> bool:
    """True when mpi4py can be imported."""
    try:
        mpi()
    except ImportError:
        return False
    return True
