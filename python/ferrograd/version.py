"""Version information in both peers' spellings: Paddle's ``paddle.version``
(``full_version``, ``major``/``minor``/``patch``, ``show()``, ``cuda()``) and PyTorch's
``torch.version`` (``__version__``, ``cuda``, ``hip``: None in a CPU-only build)."""

from __future__ import annotations

__version__ = "0.1.0"
full_version = __version__
major, minor, patch = __version__.split(".")
rc = "0"
istaged = True
commit = "unknown"
with_mkl = "OFF"
hip = None
debug = False


class _NoAccelerator:
    """``cuda`` / ``cudnn``: Paddle calls them (``paddle.version.cuda()`` -> ``'False'``),
    PyTorch reads ``torch.version.cuda`` (None, falsy, in a CPU build); this object is
    falsy, prints as None and, called, answers ``'False'``."""

    def __call__(self) -> str:
        return "False"

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "None"


cuda = _NoAccelerator()
cudnn = _NoAccelerator()


def show() -> None:
    """Prints the version (Paddle's ``paddle.version.show()``)."""
    print(f"full_version: {full_version}\nmajor: {major}\nminor: {minor}\npatch: {patch}")
    print("cuda: False\ncudnn: False")


__all__ = ["cuda", "cudnn", "full_version", "major", "minor", "patch", "show"]
