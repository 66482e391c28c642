"""Paddle's sparse convolution and pooling (``paddle.sparse.nn.functional.conv3d`` /
``subm_conv3d`` / ``conv2d`` / ``subm_conv2d`` / ``max_pool3d``) on COO tensors in
channels-last layout: ``x`` is [N, (D,) H, W, C] with ``sparse_dim = ndim - 1`` (values
[nnz, C]).

Built as sparse convolution libraries do it: a *rulebook* of (input entry, output entry,
kernel offset) pairs is computed from the coordinates with NumPy (vectorised over the
entries; one step per kernel offset at most), then the input values are gathered once
(``index_select``), each offset's run of pairs is multiplied by that offset's weight slice,
and one ``index_add`` sums the products into the output values. Every step is a
differentiable dense op, so gradients reach the input values, the weight and the bias.

* a regular convolution's output sites are all positions some input entry reaches;
* a submanifold (``subm``) convolution's output sites are the input's own sites, with
  the kernel centred on them (Paddle ignores ``padding`` there: odd kernels, stride 1);
* max pooling takes the maximum over the *stored* entries of each window (implicit zeros
  take no part), at the regular convolution's output sites.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ferrograd as fg

from ... import _core
from .._coo import SparseCooTensor

Tensor = _core.Tensor
_FORMATS = {2: "NHWC", 3: "NDHWC"}


def _ints(v: Any, nd: int, name: str, what: str) -> list[int]:
    vals = [int(v)] * nd if isinstance(v, (int, np.integer)) else [int(s) for s in v]
    if len(vals) != nd:
        raise ValueError(f"{what}: {name} needs {nd} values, got {v!r}")
    return vals


def _padding(
    padding: Any, nd: int, ksize: list[int], stride: list[int], dil: list[int], what: str
) -> list[int]:
    """Front padding per spatial dim, and checks the forms Paddle accepts."""
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            return [0] * nd
        if mode == "same":
            if any(s != 1 for s in stride):
                raise ValueError(f"{what}: padding='same' needs stride 1")
            return [d * (k - 1) // 2 for k, d in zip(ksize, dil)]
        raise ValueError(f"{what}: padding must be 'same', 'valid', ints or pairs")
    if isinstance(padding, (int, np.integer)):
        return [int(padding)] * nd
    flat: list[Any] = list(padding)
    if len(flat) == nd and all(isinstance(p, (list, tuple)) for p in flat):
        flat = [int(x) for pair in flat for x in pair]
    if len(flat) == nd:
        return [int(p) for p in flat]
    if len(flat) == 2 * nd:
        lo, hi = flat[0::2], flat[1::2]
        if [int(a) for a in lo] != [int(b) for b in hi]:
            raise NotImplementedError(f"{what}: asymmetric padding {padding!r} is not supported")
        return [int(p) for p in lo]
    raise ValueError(f"{what}: padding {padding!r} does not fit {nd} spatial dims")


def _check_input(x: Any, nd: int, data_format: str, what: str) -> SparseCooTensor:
    if data_format != _FORMATS[nd]:
        raise ValueError(f"{what}: data_format must be {_FORMATS[nd]!r}, got {data_format!r}")
    if not isinstance(x, SparseCooTensor) or x.ndim != nd + 2 or x.sparse_dim() != nd + 1:
        raise ValueError(
            f"{what}: x must be a COO tensor [N, {', '.join('DHW'[3 - nd :])}, C] with "
            f"sparse_dim {nd + 1} (values [nnz, C]); got "
            f"{getattr(x, 'layout', type(x).__name__)} of shape {list(getattr(x, 'shape', []))}"
        )
    return x.coalesce()


def _offsets(ksize: list[int]) -> np.ndarray:
    """Every kernel offset, row-major (the order of the weight's leading dims): [K, nd]."""
    grids = np.meshgrid(*[np.arange(k) for k in ksize], indexing="ij")
    return np.stack(grids, -1).reshape(-1, len(ksize))


def _rulebook(
    coords: np.ndarray,
    spatial: list[int],
    ksize: list[int],
    stride: list[int],
    pad: list[int],
    dil: list[int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Pairs of a regular convolution: (kernel offset, input entry, output entry) sorted
    by offset, the output coordinates [nout, 1 + nd] (sorted, unique) and output size."""
    nd = len(spatial)
    out = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, p, d, k, st in zip(
        spatial, pad, dil, ksize, stride)]  # fmt: skip
    if min(out) < 1:
        raise ValueError(
            f"the kernel {ksize} (dilation {dil}) does not fit the padded input {spatial}"
        )
    offs = _offsets(ksize)
    num = coords[None, :, 1:] + np.array(pad) - offs[:, None, :] * np.array(dil)
    st = np.array(stride)
    o = num // st
    ok = ((num % st) == 0) & (num >= 0) & (o < np.array(out))
    kk, ee = np.nonzero(ok.all(-1))
    oc = np.concatenate([coords[ee, :1], o[kk, ee]], 1)
    sizes = [int(coords[:, 0].max()) + 1 if len(coords) else 1, *out]
    keys = np.ravel_multi_index(tuple(oc.T), sizes) if len(oc) else np.zeros(0, np.int64)
    uniq, inv = np.unique(keys, return_inverse=True)
    out_coords = np.stack(np.unravel_index(uniq, sizes), 1) if len(uniq) else np.zeros(
        (0, nd + 1), np.int64)  # fmt: skip
    return kk, ee, inv.reshape(-1), out_coords.astype(np.int64), out


def _subm_rulebook(
    coords: np.ndarray, spatial: list[int], ksize: list[int], dil: list[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of a submanifold convolution (outputs = the sorted input sites)."""
    centre = np.array([(k - 1) // 2 for k in ksize])
    offs = (_offsets(ksize) - centre) * np.array(dil)
    sizes = [int(coords[:, 0].max()) + 1 if len(coords) else 1, *spatial]
    keys = np.ravel_multi_index(tuple(coords.T), sizes) if len(coords) else np.zeros(0, np.int64)
    q = coords[None, :, 1:] + offs[:, None, :]  # the input a kernel offset reads
    inside = ((q >= 0) & (q < np.array(spatial))).all(-1)
    qc = np.concatenate([np.broadcast_to(coords[None, :, :1], (len(offs), len(coords), 1)), q], 2)
    qkeys = np.zeros(inside.shape, np.int64)
    if inside.any():
        qkeys[inside] = np.ravel_multi_index(tuple(qc[inside].T), sizes)
    pos = np.searchsorted(keys, qkeys).clip(max=max(len(keys) - 1, 0))
    found = inside & (keys[pos] == qkeys) if len(keys) else inside & False
    kk, oo = np.nonzero(found)
    return kk, pos[kk, oo], oo


def _apply(
    vals: Tensor, weight: Tensor, kk: np.ndarray, ee: np.ndarray, oo: np.ndarray, nout: int
) -> Tensor:
    """Gather, per-offset matmul and one ``index_add``: the output values [nout, Cout]."""
    cin, cout = int(weight.shape[-2]), int(weight.shape[-1])
    w = weight.reshape([-1, cin, cout])
    gathered = vals.index_select(0, _core.tensor(ee.astype(np.int64)))
    bounds = np.searchsorted(kk, np.arange(int(w.shape[0]) + 1))
    parts = [
        gathered[int(bounds[k]) : int(bounds[k + 1])] @ w[k]
        for k in range(int(w.shape[0]))
        if bounds[k + 1] > bounds[k]
    ]
    out = fg.zeros([nout, cout], dtype=vals.dtype)
    if not parts:
        return out
    return out.index_add(0, _core.tensor(oo.astype(np.int64)), fg.concat(parts, 0))


def _conv(
    x: Any, weight: Tensor, bias: Any, stride: Any, padding: Any, dilation: Any, groups: Any,
    data_format: str, nd: int, subm: bool, what: str,
) -> SparseCooTensor:  # fmt: skip
    c = _check_input(x, nd, data_format, what)
    if int(groups) != 1:
        raise NotImplementedError(f"{what}: groups={groups} is not implemented (Paddle: 1)")
    if not isinstance(weight, Tensor) or weight.ndim != nd + 2:
        raise ValueError(f"{what}: weight must be [{'kD, ' if nd == 3 else ''}kH, kW, C, M]")
    ksize = [int(s) for s in weight.shape[:nd]]
    cin = int(c.shape[-1])
    if int(weight.shape[nd]) != cin:
        raise ValueError(
            f"{what}: weight has {weight.shape[nd]} input channels, x has {cin} "
            f"(weight is [*kernel, in_channels, out_channels])"
        )
    stride_ = _ints(stride, nd, "stride", what)
    dil = _ints(dilation, nd, "dilation", what)
    coords = c.indices().numpy().T.astype(np.int64)
    spatial = [int(s) for s in c.shape[1 : nd + 1]]
    if subm:
        if any(s != 1 for s in stride_) or any(k % 2 == 0 for k in ksize):
            raise ValueError(
                f"{what}: a submanifold convolution needs stride 1 and odd kernel sizes "
                f"(got stride {stride_}, kernel {ksize})"
            )
        kk, ee, oo = _subm_rulebook(coords, spatial, ksize, dil)
        out_idx, out_spatial, nout = c.indices(), spatial, c.nnz()
    else:
        pad = _padding(padding, nd, ksize, stride_, dil, what)
        kk, ee, oo, oc, out_spatial = _rulebook(coords, spatial, ksize, stride_, pad, dil)
        out_idx, nout = _core.tensor(np.ascontiguousarray(oc.T)), int(oc.shape[0])
    vals = _apply(c.values(), weight, kk, ee, oo, nout)
    if bias is not None:
        vals = vals + bias
    shape = (int(c.shape[0]), *out_spatial, int(weight.shape[-1]))
    return SparseCooTensor(out_idx, vals, shape, coalesced=True)


def conv3d(
    x: Any, weight: Tensor, bias: Any = None, stride: Any = 1, padding: Any = 0,
    dilation: Any = 1, groups: Any = 1, data_format: str = "NDHWC", name: Any = None,
) -> SparseCooTensor:  # fmt: skip
    """Paddle's ``sparse.nn.functional.conv3d``: ``x`` [N, D, H, W, C] (COO, values [nnz,
    C]) by ``weight`` [kD, kH, kW, C, M]; a COO result [N, D', H', W', M] at every site
    some input entry reaches (the dense convolution there, zero elsewhere)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, False,
                 "sparse.conv3d")  # fmt: skip


def subm_conv3d(
    x: Any, weight: Tensor, bias: Any = None, stride: Any = 1, padding: Any = 0,
    dilation: Any = 1, groups: Any = 1, data_format: str = "NDHWC", key: Any = None,
    name: Any = None,
) -> SparseCooTensor:  # fmt: skip
    """Paddle's ``sparse.nn.functional.subm_conv3d``: the convolution with a centred
    kernel evaluated only at ``x``'s own sites (the output has ``x``'s indices). As in
    Paddle, ``padding`` is ignored; ``key`` (a rulebook cache name) is accepted and unused."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, True,
                 "sparse.subm_conv3d")  # fmt: skip


def conv2d(
    x: Any, weight: Tensor, bias: Any = None, stride: Any = 1, padding: Any = 0,
    dilation: Any = 1, groups: Any = 1, data_format: str = "NHWC", name: Any = None,
) -> SparseCooTensor:  # fmt: skip
    """Paddle's ``sparse.nn.functional.conv2d``: :func:`conv3d` for [N, H, W, C] inputs
    and [kH, kW, C, M] weights."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, False,
                 "sparse.conv2d")  # fmt: skip


def subm_conv2d(
    x: Any, weight: Tensor, bias: Any = None, stride: Any = 1, padding: Any = 0,
    dilation: Any = 1, groups: Any = 1, data_format: str = "NHWC", key: Any = None,
    name: Any = None,
) -> SparseCooTensor:  # fmt: skip
    """Paddle's ``sparse.nn.functional.subm_conv2d``: :func:`subm_conv3d` in 2-D."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, True,
                 "sparse.subm_conv2d")  # fmt: skip


def max_pool3d(
    x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
    data_format: str = "NDHWC", name: Any = None,
) -> SparseCooTensor:  # fmt: skip
    """Paddle's ``sparse.nn.functional.max_pool3d``: the maximum over the stored entries
    of each window, per channel, at every output site some entry reaches. Ties share the
    gradient evenly (ferrograd's ``scatter_reduce(amax)`` rule)."""
    what = "sparse.max_pool3d"
    c = _check_input(x, 3, data_format, what)
    if ceil_mode:
        raise NotImplementedError(f"{what}: ceil_mode=True is not implemented")
    ksize = _ints(kernel_size, 3, "kernel_size", what)
    stride_ = ksize if stride is None else _ints(stride, 3, "stride", what)
    pad = _padding(padding, 3, ksize, stride_, [1, 1, 1], what)
    coords = c.indices().numpy().T.astype(np.int64)
    spatial = [int(s) for s in c.shape[1:4]]
    kk, ee, oo, oc, out_spatial = _rulebook(coords, spatial, ksize, stride_, pad, [1, 1, 1])
    vals = c.values()
    gathered = vals.index_select(0, _core.tensor(ee.astype(np.int64)))
    index = _core.tensor(oo.astype(np.int64)).unsqueeze(1).expand(list(gathered.shape))
    out = fg.scatter_reduce(
        fg.zeros([int(oc.shape[0]), int(vals.shape[1])], dtype=vals.dtype), 0, index,
        gathered, "amax", include_self=False,
    )  # fmt: skip
    shape = (int(c.shape[0]), *out_spatial, int(c.shape[-1]))
    return SparseCooTensor(_core.tensor(np.ascontiguousarray(oc.T)), out, shape, coalesced=True)
