"""``torch.backends.cpu``: which vector instructions this machine offers."""

from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"``: the widest vector instructions this
    machine offers among those PyTorch names (a query only: it selects nothing)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return "DEFAULT"
    if " avx512f" in flags:
        return "AVX512"
    if " avx2" in flags:
        return "AVX2"
    return "DEFAULT"
