"""``F.multi_head_attention_forward``: PyTorch's functional multi-head attention, which
``nn.MultiheadAttention`` calls with its own parameters.

Inputs are ``[L, N, E]`` (``[L, E]`` unbatched), weights in PyTorch's ``[out, in]``
layout in any dialect. The heads are laid out as PyTorch's ``[N*num_heads, S, head_dim]``
(the layout ``static_k`` / ``static_v`` and a 3-D ``attn_mask`` use). Bool masks mark the
positions to *leave out* (True), float masks are added to the scores. A query row whose
keys are all left out gets zero weights (PyTorch gives NaN).
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .fn_attention import attend, attention, split_mask
from .functional import _linear_in_layout

Tensor = _core.Tensor
_WHAT = "multi_head_attention_forward"


def _tensor(t: Any, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{_WHAT}: {name} must be a Tensor, got {type(t).__name__}")
    return t


def _optional(t: Any, name: str) -> Optional[Tensor]:
    return None if t is None else _tensor(t, name)


def _shape(t: Optional[Tensor], name: str, want: list[int]) -> None:
    if t is not None and list(t.shape) != want:
        raise ValueError(f"{_WHAT}: {name} must have shape {want}, got {list(t.shape)}")


def _pad_key(mask: Optional[Tensor]) -> Optional[Tensor]:
    """``mask`` with one more key column that leaves nothing out (False / 0.0)."""
    if mask is None:
        return None
    extra = _core.zeros([*mask.shape[:-1], 1], dtype=mask.dtype)
    return _core.concat([mask, extra], axis=-1)


def _project(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    e: int,
    packed: Optional[Tensor],
    bias: Optional[Tensor],
    separate: Optional[tuple[Any, Any, Any]],
) -> tuple[Tensor, Tensor, Tensor]:
    """The three input projections (``packed`` ``[3E, E]`` or ``separate`` weights)."""
    _shape(bias, "in_proj_bias", [3 * e])
    bq, bk, bv = (None, None, None) if bias is None else (bias[:e], bias[e : 2 * e], bias[2 * e :])
    if separate is None:
        w = _tensor(packed, "in_proj_weight (use_separate_proj_weight=False)")
        _shape(w, "in_proj_weight", [3 * e, e])
        if q is k and k is v:  # self-attention: one [3E, E] product instead of three
            q, k, v = _linear_in_layout(q, w, bias, False).chunk(3, -1)
            return q, k, v
        wq, wk, wv = w[:e], w[e : 2 * e], w[2 * e :]
    else:
        wq, wk, wv = (
            _tensor(t, f"{n}_proj_weight (use_separate_proj_weight=True)")
            for t, n in zip(separate, "qkv")
        )
        for w, n, t in ((wq, "q", q), (wk, "k", k), (wv, "v", v)):
            _shape(w, f"{n}_proj_weight", [e, t.shape[-1]])
    return (
        _linear_in_layout(q, wq, bq, False),
        _linear_in_layout(k, wk, bk, False),
        _linear_in_layout(v, wv, bv, False),
    )


def _heads_of(t: Tensor, static: Optional[Tensor], n: int, h: int, d: int, name: str) -> Tensor:
    """``[N, S, E]`` as ``[N, H, S, d]``, or ``static`` (``[N*H, S', d]``) in its place."""
    if static is None:
        return t.reshape([n, t.shape[1], h, d]).transpose(1, 2)
    if static.ndim != 3 or static.shape[0] != n * h or static.shape[2] != d:
        raise ValueError(
            f"{_WHAT}: {name} must be [N*num_heads, S, head_dim] = [{n * h}, S, {d}], got "
            f"{list(static.shape)}"
        )
    return static.reshape([n, h, static.shape[1], d])


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Optional[Tensor],
    in_proj_bias: Optional[Tensor],
    bias_k: Optional[Tensor],
    bias_v: Optional[Tensor],
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Optional[Tensor],
    training: bool = True,
    key_padding_mask: Optional[Tensor] = None,
    need_weights: bool = True,
    attn_mask: Optional[Tensor] = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Optional[Tensor] = None,
    k_proj_weight: Optional[Tensor] = None,
    v_proj_weight: Optional[Tensor] = None,
    static_k: Optional[Tensor] = None,
    static_v: Optional[Tensor] = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Optional[Tensor]]:
    """PyTorch's functional multi-head attention on ``[L, N, E]`` inputs (``[L, E]``
    unbatched): ``(output [L, N, E], weights)``; ``weights`` is ``[N, L, S]`` averaged
    over the heads (``[N, H, L, S]`` with ``average_attn_weights=False``) or None unless
    ``need_weights``. ``attn_mask`` is ``[L, S]`` or ``[N*num_heads, L, S]``,
    ``key_padding_mask`` ``[N, S]`` (True / -inf leaves a key out). ``bias_k`` /
    ``bias_v`` (``[1, 1, E]``) append one learned key and value, ``add_zero_attn`` a key
    and value of zeros; ``static_k`` / ``static_v`` (``[N*num_heads, S, head_dim]``)
    replace the projected keys and values. Dropout applies only while ``training``."""
    for t, n in ((query, "query"), (key, "key"), (value, "value")):
        _tensor(t, n)
    if query.ndim not in (2, 3):
        raise ValueError(f"{_WHAT}: query must be 2-D or 3-D, got shape {list(query.shape)}")
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise ValueError(
            f"{_WHAT}: query, key and value must all be {query.ndim}-D, got shapes "
            f"{list(query.shape)}, {list(key.shape)}, {list(value.shape)}"
        )
    if not isinstance(num_heads, int) or isinstance(num_heads, bool) or num_heads <= 0:
        raise ValueError(f"{_WHAT}: num_heads must be a positive int, got {num_heads!r}")
    if is_causal and attn_mask is None:
        raise ValueError(
            f"{_WHAT}: is_causal=True is a hint that attn_mask is the causal mask; pass "
            "attn_mask as well"
        )
    if not isinstance(dropout_p, (int, float)) or not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{_WHAT}: dropout_p must be a probability in [0, 1], got {dropout_p!r}")
    unbatched = query.ndim == 2
    if unbatched:
        self_attention = query is key and key is value
        query = query.unsqueeze(1)
        key, value = (query, query) if self_attention else (key.unsqueeze(1), value.unsqueeze(1))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt, n, e = query.shape
    if e != embed_dim_to_check:
        raise ValueError(
            f"{_WHAT}: query's feature size {e} is not embed_dim_to_check ({embed_dim_to_check})"
        )
    if e % num_heads:
        raise ValueError(f"{_WHAT}: embed_dim ({e}) must be divisible by num_heads ({num_heads})")
    h, d = num_heads, e // num_heads
    if key.shape[:2] != value.shape[:2] or key.shape[1] != n:
        raise ValueError(
            f"{_WHAT}: key and value must be [S, N, *] with query's N={n}, got "
            f"{list(key.shape)} and {list(value.shape)}"
        )
    if not use_separate_proj_weight and key.shape != value.shape:
        raise ValueError(
            f"{_WHAT}: key shape {list(key.shape)} does not match value shape {list(value.shape)}"
        )
    src = key.shape[0]
    _optional(in_proj_bias, "in_proj_bias")
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    same = query is key and key is value
    # [L, N, E] -> [N, L, E] (the object identity of self-attention kept)
    query, key, value = (
        (query.transpose(0, 1),) * 3 if same else (t.transpose(0, 1) for t in (query, key, value))
    )
    q, k, v = _project(query, key, value, e, in_proj_weight, in_proj_bias, separate)
    if attn_mask is not None:
        attn_mask = _tensor(attn_mask, "attn_mask")
        if attn_mask.ndim == 2:
            _shape(attn_mask, "a 2-D attn_mask ([L, S])", [tgt, src])
        elif attn_mask.ndim == 3:
            _shape(attn_mask, "a 3-D attn_mask ([N*num_heads, L, S])", [n * h, tgt, src])
        else:
            raise ValueError(f"{_WHAT}: attn_mask must be 2-D or 3-D, got {attn_mask.ndim}-D")
    if key_padding_mask is not None:
        key_padding_mask = _tensor(key_padding_mask, "key_padding_mask")
    if (bias_k is None) != (bias_v is None):
        raise ValueError(f"{_WHAT}: bias_k and bias_v must be given together")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise ValueError(f"{_WHAT}: bias_k/bias_v cannot be used with static_k/static_v")
        bk, bv = _tensor(bias_k, "bias_k"), _tensor(bias_v, "bias_v")
        _shape(bk, "bias_k", [1, 1, e])
        _shape(bv, "bias_v", [1, 1, e])
        k = _core.concat([k, bk.expand([n, 1, e])], axis=1)
        v = _core.concat([v, bv.expand([n, 1, e])], axis=1)
        attn_mask, key_padding_mask = _pad_key(attn_mask), _pad_key(key_padding_mask)
    q = q.reshape([n, tgt, h, d]).transpose(1, 2)
    k = _heads_of(k, _optional(static_k, "static_k"), n, h, d, "static_k")
    v = _heads_of(v, _optional(static_v, "static_v"), n, h, d, "static_v")
    if add_zero_attn:  # a key and value of zeros: a row may then attend to nothing
        zeros = _core.zeros([n, h, 1, d], dtype=k.dtype)
        k, v = _core.concat([k, zeros], axis=2), _core.concat([v, zeros], axis=2)
        attn_mask, key_padding_mask = _pad_key(attn_mask), _pad_key(key_padding_mask)
    if k.shape[2] != v.shape[2]:
        raise ValueError(f"{_WHAT}: keys ({k.shape[2]}) and values ({v.shape[2]}) differ in number")
    keep, bias = _masks(attn_mask, key_padding_mask, n, h, tgt, k.shape[2], q.dtype)
    weights: Optional[Tensor] = None
    p = float(dropout_p) if training else 0.0
    if need_weights:
        out, weights = attend(q, k, v, keep, bias, p, training)
    else:  # the fused op: no [L, S] weights kept for backward
        out = attention(q, k, v, keep, bias, p, training)
    out = out.transpose(1, 2).reshape([n, tgt, e])
    _tensor(out_proj_weight, "out_proj_weight")
    _shape(out_proj_weight, "out_proj_weight", [e, e])
    _optional(out_proj_bias, "out_proj_bias")
    out = _linear_in_layout(out, out_proj_weight, out_proj_bias, False).transpose(0, 1)
    if unbatched:
        out = out.squeeze(1)
    if weights is None:
        return out, None
    if average_attn_weights:
        weights = weights.mean(1)
    if unbatched:
        weights = weights.squeeze(0)
    return out, weights


def _masks(
    attn_mask: Optional[Tensor],
    kpm: Optional[Tensor],
    n: int,
    h: int,
    tgt: int,
    src: int,
    dtype: Any,
) -> tuple[Optional[Tensor], Optional[Tensor]]:
    """PyTorch's masks (True = leave out) as (keep, bias), broadcastable to
    ``[N, H, L, S]``."""
    keep: Optional[Tensor] = None
    bias: Optional[Tensor] = None
    if attn_mask is not None:
        if attn_mask.ndim == 3:
            attn_mask = attn_mask.reshape([n, h, tgt, src])
        k, bias = split_mask(attn_mask, dtype, _WHAT)
        keep = None if k is None else k.logical_not()
    if kpm is not None:
        if list(kpm.shape) != [n, src]:
            raise ValueError(
                f"{_WHAT}: key_padding_mask must be [N, S] = {[n, src]}, got {list(kpm.shape)}"
            )
        k, b = split_mask(kpm.reshape([n, 1, 1, src]), dtype, _WHAT)
        if k is not None:
            k = k.logical_not()
            keep = k if keep is None else keep.logical_and(k)
        else:
            bias = b if bias is None or b is None else bias + b
    return keep, bias


__all__ = ["multi_head_attention_forward"]
