"""``torch.backends`` as seen by a CPU-only program: the switches scripts set before training
(``torch.backends.cudnn.benchmark = True``) and the availability queries they branch on
(``torch.backends.mps.is_available()``).

ferrograd computes on the CPU with its own kernels, so the GPU backends report unavailable
(as a CPU-only PyTorch build does) and their switches are plain attributes that keep what a
script sets and change nothing. ``mkldnn`` and ``openmp`` report False: ferrograd uses
neither (its CPU kernels are its own, run on a rayon pool)."""

from __future__ import annotations

from . import cpu as cpu
from . import cuda as cuda
from . import cudnn as cudnn
from . import mkldnn as mkldnn
from . import mps as mps
from . import openmp as openmp

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
