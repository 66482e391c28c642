"""Paddle's ``F.hsigmoid_loss``: the hierarchical sigmoid (a binary tree of logistic
classifiers over the classes), with Paddle's default complete tree or a custom one given
by ``path_table`` / ``path_code``. ``nn.HSigmoidLoss`` is in ``loss_hsigmoid.py``."""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np

from .. import _core

Tensor = _core.Tensor


def _default_tree(ids: np.ndarray, num_classes: int) -> tuple:
    """Paddle's default tree: class ``c`` is leaf ``c + num_classes`` of a heap-ordered
    complete binary tree; bit ``j`` of its code picks the branch at node ``((c +
    num_classes) >> (j + 1)) - 1``. Returns ``[N, L]`` node ids, bits and the 0/1 mask of
    the real path entries, ``L`` the longest path (``num_classes - 1``'s bit length)."""
    width = int(num_classes - 1).bit_length()
    code = ids + num_classes
    j = np.arange(width)
    nodes = (code[:, None] >> (j[None, :] + 1)) - 1
    bits = (code[:, None] >> j[None, :]) & 1
    lengths = np.floor(np.log2(code)).astype(np.int64)  # exact: code < 2**53
    valid = j[None, :] < lengths[:, None]
    return np.where(valid, nodes, 0), bits.astype(np.float64), valid


def _custom_tree(path_table: Any, path_code: Any, n: int, rows: int, what: str) -> tuple:
    table = path_table.numpy() if isinstance(path_table, Tensor) else np.asarray(path_table)
    code = path_code.numpy() if isinstance(path_code, Tensor) else np.asarray(path_code)
    if table.dtype.kind not in "iu" or code.dtype.kind not in "iu":
        raise TypeError(f"{what}: path_table and path_code must hold integers")
    if table.ndim != 2 or table.shape[0] != n or code.shape != table.shape:
        raise ValueError(
            f"{what}: path_table and path_code must both be [N, L] with N = {n}, got "
            f"{list(table.shape)} and {list(code.shape)}"
        )
    valid = np.cumprod(table >= 0, axis=1).astype(bool)  # a path ends at its first -1
    if valid.any() and table[valid].max() >= rows:
        raise IndexError(
            f"{what}: path_table holds node {table[valid].max()}, but weight has {rows} rows"
        )
    return np.where(valid, table, 0), (code != 0).astype(np.float64), valid


def hsigmoid_loss(
    input: Tensor,
    label: Tensor,
    num_classes: int,
    weight: Tensor,
    bias: Optional[Tensor] = None,
    path_table: Optional[Tensor] = None,
    path_code: Optional[Tensor] = None,
    is_sparse: bool = False,
    name: Optional[str] = None,
) -> Tensor:
    """Paddle's ``F.hsigmoid_loss(input, label, num_classes, weight, bias=None,
    path_table=None, path_code=None, is_sparse=False)``: ``input`` ``[N, D]``, ``label``
    ``[N]`` or ``[N, 1]`` class ids, ``weight`` ``[num_classes - 1, D]`` (one row per
    inner node), ``bias`` ``[num_classes - 1, 1]``. Along the path of each sample's class,
    with ``z = clip(w_node . x + b_node, -40, 40)`` and ``bit`` the branch taken, the loss
    is ``sum softplus(z) - bit * z`` (``[N, 1]``). As Paddle does, every position of the
    ``L``-long code past a shorter path adds ``log 2`` (Paddle's kernel leaves that
    constant in; gradients do not see it). With ``path_table`` / ``path_code`` (``[N,
    L]``, paths ended by -1) the tree is custom. ``is_sparse`` only changes how Paddle
    stores the weight gradient; it is accepted and ignored."""
    what = "hsigmoid_loss"
    for arg, v in (("input", input), ("weight", weight)):
        if not isinstance(v, Tensor):
            raise TypeError(f"{what}: {arg} must be a Tensor, got {type(v).__name__}")
    if input.ndim != 2:
        raise ValueError(f"{what}: input must be [N, D], got {list(input.shape)}")
    n, d = input.shape
    if weight.ndim != 2 or weight.shape[1] != d:
        raise ValueError(f"{what}: weight must be [nodes, {d}], got {list(weight.shape)}")
    rows = weight.shape[0]
    ids = label.numpy() if isinstance(label, Tensor) else np.asarray(label)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what}: label must hold integer class ids, got {ids.dtype}")
    if ids.ndim == 2 and ids.shape[1] == 1:
        ids = ids[:, 0]
    if ids.shape != (n,):
        raise ValueError(f"{what}: label must be [N] or [N, 1] with N = {n}, got {list(ids.shape)}")
    if isinstance(num_classes, bool):
        raise TypeError(f"{what}: num_classes must be an int, got bool")
    num_classes = operator.index(num_classes)
    custom = path_table is not None or path_code is not None
    if custom:
        if path_table is None or path_code is None:
            raise ValueError(f"{what}: give both path_table and path_code for a custom tree")
        nodes, bits, valid = _custom_tree(path_table, path_code, n, rows, what)
    else:
        if num_classes < 2:
            raise ValueError(f"{what}: num_classes must be >= 2 with the default tree")
        if rows != num_classes - 1:
            raise ValueError(
                f"{what}: weight must have num_classes - 1 = {num_classes - 1} rows with the "
                f"default tree, got {rows}"
            )
        if n and (ids.min() < 0 or ids.max() >= num_classes):
            raise IndexError(
                f"{what}: labels must lie in [0, {num_classes}), got [{ids.min()}, {ids.max()}]"
            )
        nodes, bits, valid = _default_tree(ids.astype(np.int64), num_classes)
    length = nodes.shape[1]
    flat = _core.tensor(nodes.reshape(-1).astype(np.int64))
    w = weight.index_select(flat, 0).reshape([n, length, d])
    z = (w * input.unsqueeze(1)).sum(-1)
    if bias is not None:
        if not isinstance(bias, Tensor) or bias.numel() != rows:
            raise ValueError(f"{what}: bias must be a Tensor of {rows} values ([{rows}, 1])")
        z = z + bias.reshape([rows]).index_select(flat, 0).reshape([n, length])
    mask = _core.tensor(valid.astype(np.float64), dtype=z.dtype)
    z = (z * mask).clamp(-40.0, 40.0)
    bit = _core.tensor(bits * valid, dtype=z.dtype)
    return (z.exp().log1p() - bit * z).sum(1, keepdim=True)
