"""PyTorch's ``nn.AdaptiveLogSoftmaxWithLoss`` (Grave et al., "Efficient softmax
approximation for GPUs"): frequent classes in a head softmax, rarer ones in tail clusters
reached through one head entry per cluster, each cluster behind a smaller projection."""

from __future__ import annotations

import operator
from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from .. import _core
from .layers import Linear, ModuleList, Sequential, layout_of
from .module import Module

Tensor = _core.Tensor

#: ``forward``'s result: per-sample target log-probabilities and their negated mean
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_CUTOFFS = (
    "cutoffs should be a sequence of unique, positive integers sorted in an increasing "
    "order, where each value is between 1 and n_classes-1"
)


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool):
        raise TypeError(f"AdaptiveLogSoftmaxWithLoss: {what} must be an int, got bool")
    return operator.index(v)


class AdaptiveLogSoftmaxWithLoss(Module):
    """``AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0,
    head_bias=False, device=None, dtype=None)``. Classes below ``cutoffs[0]`` are in the
    head (a ``Linear(in_features, cutoffs[0] + n_clusters)``); cluster ``i`` holds
    classes ``[cutoffs[i], cutoffs[i+1])`` (the last ends at ``n_classes``) behind
    ``Linear(in_features, in_features // div_value**(i+1), bias=False)`` and
    ``Linear(that, cluster size, bias=False)``. ``forward(input, target)`` returns
    ``(output, loss)``: each sample's log-probability of its target (``[N]``, or 0-d for
    a 1-D input and 0-d target) and ``-output.mean()``; ``log_prob(input)`` gives all
    ``[N, n_classes]`` log-probabilities and ``predict(input)`` the most likely class.
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        in_features, n_classes = _int(in_features, "in_features"), _int(n_classes, "n_classes")
        if in_features <= 0 or n_classes <= 0:
            raise ValueError(
                f"AdaptiveLogSoftmaxWithLoss: in_features and n_classes must be positive, got "
                f"{in_features}, {n_classes}"
            )
        cuts = list(cutoffs)
        if (
            not cuts
            or any(isinstance(c, bool) or int(c) != c for c in cuts)
            or cuts != sorted(cuts)
            or min(cuts) <= 0
            or max(cuts) > n_classes - 1
            or len(set(cuts)) != len(cuts)
        ):
            raise ValueError(_CUTOFFS)
        cuts = [int(c) for c in cuts]
        div = float(div_value)
        if not div > 0:
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss: div_value must be > 0, got {div_value}")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cuts + [n_classes]
        self.div_value, self.head_bias = div, bool(head_bias)
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        sizes = [(int(in_features // div ** (i + 1)), self.cutoffs[i + 1] - self.cutoffs[i])
                 for i in range(self.n_clusters)]  # fmt: skip
        total = in_features * self.head_size + sum(h * (in_features + o) for h, o in sizes)
        if total > 2**31:
            raise ValueError(
                f"AdaptiveLogSoftmaxWithLoss: {total} parameters are too many (over 2**31)"
            )
        with layout_of("torch"):  # PyTorch's layer: PyTorch's [out, in] in any code
            self.head = Linear(in_features, self.head_size, bias=self.head_bias, dtype=dtype)
            self.tail = ModuleList(
                [
                    Sequential(
                        Linear(in_features, h, bias=False, dtype=dtype),
                        Linear(h, o, bias=False, dtype=dtype),
                    )
                    for h, o in sizes
                ]
            )

    def reset_parameters(self) -> None:
        """Draws the head's and every cluster's projections afresh."""
        self.head.reset_parameters()
        for cluster in self.tail.children():
            for proj in cluster.children():
                proj.reset_parameters()

    def forward(self, input: Tensor, target: Tensor) -> Any:
        """``(output, loss)``: the target classes' log-probabilities and ``-mean``."""
        if not isinstance(input, Tensor):
            raise TypeError(f"input must be a Tensor, got {type(input).__name__}")
        t = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
        if t.dtype.kind not in "iu":
            raise TypeError(f"target must hold integer class ids, got {t.dtype}")
        if t.ndim == 1:
            if input.ndim != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size", list(input.shape))  # fmt: skip
            if input.shape[0] != t.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")  # fmt: skip
            batched = True
        elif t.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with size", list(input.shape))  # fmt: skip
            batched = False
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        x = input if batched else input.unsqueeze(0)
        t = t.reshape(-1).astype(np.int64)
        n = t.shape[0]
        output = _core.zeros([n], dtype=x.dtype)
        head_ids = np.zeros(n, dtype=np.int64)
        used = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            rows = np.nonzero((t >= bounds[i]) & (t < bounds[i + 1]))[0]
            if rows.size == 0:
                continue
            if i == 0:
                head_ids[rows] = t[rows]
            else:
                idx = _core.tensor(rows)
                logp = self.tail[i - 1](x.index_select(idx, 0)).log_softmax(1)
                rel = _core.tensor((t[rows] - bounds[i])[:, None])
                output = output.index_add(0, idx, logp.gather(1, rel).squeeze(1))
                head_ids[rows] = self.shortlist_size + i - 1
            used += rows.size
        if used != n:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{t.min()}, {t.max()}] were found. "
            )
        head_logprob = self.head(x).log_softmax(1)
        output = output + head_logprob.gather(1, _core.tensor(head_ids[:, None])).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, x: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = head_output.log_softmax(1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = self.tail[i](x).log_softmax(1)
            parts.append(cluster + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _core.concat(parts, 1)

    def _check_2d(self, input: Any) -> Tensor:
        if not isinstance(input, Tensor) or input.ndim != 2:
            got = list(input.shape) if isinstance(input, Tensor) else type(input).__name__
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss: input must be [N, in_features], got {got}")  # fmt: skip
        return input

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probabilities ``[N, n_classes]`` of every class."""
        x = self._check_2d(input)
        return self._full_log_prob(x, self.head(x))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row (int64 ``[N]``); the tails are evaluated
        only for the rows whose head prediction is a cluster."""
        x = self._check_2d(input)
        head_output = self.head(x)
        out = head_output.argmax(1).numpy().astype(np.int64)
        rows = np.nonzero(out >= self.shortlist_size)[0]
        if rows.size:
            idx = _core.tensor(rows)
            full = self._full_log_prob(x.index_select(idx, 0), head_output.index_select(idx, 0))
            out[rows] = full.argmax(1).numpy()
        return _core.tensor(out)
