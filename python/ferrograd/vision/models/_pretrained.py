"""The one answer to ``pretrained=True``: ferrograd ships no weights and downloads nothing."""

from __future__ import annotations

from typing import Any


def check_pretrained(arch: str, pretrained: Any) -> None:
    """Raise a clear error when ``pretrained`` is true: there are no weights to load.

    Paddle downloads ``<arch>.pdparams`` here; ferrograd cannot reach the network, so it
    tells the caller to build the model with ``pretrained=False`` and load a local
    checkpoint with ``model.set_state_dict(paddle.load(path))``.
    """
    if pretrained:
        raise ValueError(
            f"ferrograd.vision.models.{arch}: pretrained=True is not supported "
            "(ferrograd ships no pretrained weights and downloads nothing); build the "
            "model with pretrained=False and load a local checkpoint with "
            "model.set_state_dict(paddle.load(path))"
        )
