"""``paddle.vision.models.LeNet``: the small MNIST convnet (1x28x28 input)."""

from __future__ import annotations

from typing import Any

from ... import flatten, nn

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """LeNet as in Paddle: ``features`` (two conv + ReLU + max-pool stages) and ``fc``.

    Takes ``[N, 1, 28, 28]`` images and returns ``[N, num_classes]`` logits; with
    ``num_classes <= 0`` there is no ``fc`` and the ``[N, 16, 5, 5]`` features come back.
    """

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
        )
        if num_classes > 0:
            self.fc = nn.Sequential(
                nn.Linear(400, 120),
                nn.Linear(120, 84),
                nn.Linear(84, num_classes),
            )

    def forward(self, inputs: Any) -> Any:
        """Features, then (with classes) flatten and the three linear layers."""
        x = self.features(inputs)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.fc(x)
        return x
