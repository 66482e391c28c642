"""Multi-head attention: PyTorch's ``nn.MultiheadAttention`` and Paddle's
``nn.MultiHeadAttention``.

PyTorch's layer keeps the three input projections in one ``in_proj_weight``
``[3*E, E]`` (or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when ``kdim`` /
``vdim`` differ from ``E``) and ``in_proj_bias``, and ``out_proj`` (a ``Linear``); its
bool masks mark positions to *leave out* (True = masked). Paddle's layer has four
``Linear`` layers ``q_proj``, ``k_proj``, ``v_proj``, ``out_proj`` (in Paddle's layout
``[in, out]`` when Paddle code builds it); its bool masks mark
positions to *keep* (True = attend). Float masks are added to the scores in both.
Both are compositions of differentiable ops (see ``fn_attention``).
"""

from __future__ import annotations

import collections
from typing import Any, Optional

from .. import _core
from . import init
from .fn_attention import attend, attention, split_mask
from .fn_mha import multi_head_attention_forward
from .layers import Linear, layout_of
from .module import Module
from .parameter import Parameter

Tensor = _core.Tensor


def _heads(embed_dim: Any, num_heads: Any, what: str) -> int:
    for label, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{what}: {label} must be a positive int, got {v!r}")
    if embed_dim % num_heads:
        raise ValueError(
            f"{what}: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})"
        )
    return embed_dim // num_heads


def _split_heads(x: Tensor, heads: int) -> Tensor:
    """``[B, L, E]`` → ``[B, heads, L, E/heads]``."""
    b, length, e = x.shape
    return x.reshape([b, length, heads, e // heads]).transpose(1, 2)


def _merge_heads(x: Tensor) -> Tensor:
    """``[B, heads, L, d]`` → ``[B, L, heads*d]``."""
    b, h, length, d = x.shape
    return x.transpose(1, 2).reshape([b, length, h * d])


def _check_dropout(p: Any, what: str) -> float:
    if not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{what}: dropout must be a probability in [0, 1], got {p!r}")
    return float(p)


class MultiheadAttention(Module):
    """PyTorch's multi-head attention: ``forward(query, key, value, key_padding_mask,
    need_weights=True, attn_mask=None, average_attn_weights=True, is_causal=False)``
    returns ``(output, weights)`` (``weights`` None unless ``need_weights``).

    Inputs are ``[L, N, E]`` (``[N, L, E]`` with ``batch_first``, ``[L, E]``
    unbatched). ``attn_mask`` is ``[L, S]`` or ``[N*num_heads, L, S]``,
    ``key_padding_mask`` ``[N, S]``; bool True leaves a position out, floats are added.
    A query row whose keys are all left out gets zero weights (PyTorch gives NaN)."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "attention layers are not recorded",
        "compose the attention from nn.Linear layers and recorded ops (matmul, softmax, reshape, transpose), or train in dynamic mode",
    )

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: Optional[int] = None,
        vdim: Optional[int] = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        what = "MultiheadAttention"
        self.head_dim = _heads(embed_dim, num_heads, what)
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = _check_dropout(dropout, what)
        self.batch_first = bool(batch_first)
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        d = dtype if dtype is not None else _core._get_default_dtype()
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_core.empty([3 * embed_dim, embed_dim], dtype=d))
            for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(n, None)
        else:
            self.register_parameter("in_proj_weight", None)
            self.q_proj_weight = Parameter(_core.empty([embed_dim, embed_dim], dtype=d))
            self.k_proj_weight = Parameter(_core.empty([embed_dim, self.kdim], dtype=d))
            self.v_proj_weight = Parameter(_core.empty([embed_dim, self.vdim], dtype=d))
        if bias:
            self.in_proj_bias = Parameter(_core.zeros([3 * embed_dim], dtype=d))
        else:
            self.register_parameter("in_proj_bias", None)
        with layout_of("torch"):  # PyTorch's layer: PyTorch's layouts in any code
            self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=d)
        if add_bias_kv:
            # one learned key and value appended to every sequence (PyTorch's [1, 1, E])
            self.bias_k = Parameter(_core.empty([1, 1, embed_dim], dtype=d))
            self.bias_v = Parameter(_core.empty([1, 1, embed_dim], dtype=d))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = bool(add_zero_attn)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        # PyTorch's: Xavier-uniform projections, zero biases
        if self.in_proj_weight is not None:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Optional[Tensor] = None,
        need_weights: bool = True,
        attn_mask: Optional[Tensor] = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Optional[Tensor]]:
        """Attention of ``query`` over ``key``/``value``: ``(output, weights)``
        (``F.multi_head_attention_forward`` with this layer's parameters)."""
        what = "MultiheadAttention"
        for t, name in ((query, "query"), (key, "key"), (value, "value")):
            if not isinstance(t, Tensor):
                raise TypeError(f"{what}: {name} must be a Tensor, got {type(t).__name__}")
        if query.ndim not in (2, 3):
            raise ValueError(f"{what}: query must be 2-D or 3-D, got shape {list(query.shape)}")
        if (
            query.shape[-1] != self.embed_dim
            or key.shape[-1] != self.kdim
            or value.shape[-1] != self.vdim
        ):
            raise ValueError(
                f"{what}: expected query/key/value feature sizes {self.embed_dim}/{self.kdim}/"
                f"{self.vdim}, got {query.shape[-1]}/{key.shape[-1]}/{value.shape[-1]}"
            )
        batch_first = self.batch_first and query.ndim == 3
        if batch_first:  # [N, L, E] -> [L, N, E], self-attention's one object kept one
            if query is key and key is value:
                query = key = value = query.transpose(0, 1)
            else:
                query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        return (out.transpose(0, 1) if batch_first else out), weights


class MultiHeadAttention(Module):
    """Paddle's multi-head attention: ``forward(query, key=None, value=None,
    attn_mask=None, cache=None)`` on ``[batch, seq, embed_dim]`` inputs returns the
    output, or ``(output, weights)`` (``[batch, heads, L, S]``) when built with
    ``need_weights=True``, the new cache appended when ``cache`` is given. A bool
    ``attn_mask`` (broadcastable to ``[batch, heads, L, S]``) keeps positions where it is
    True; a float one is added.

    Paddle's caches (inference): ``Cache(k, v)`` holds the projected keys and values
    (``[batch, heads, length, head_dim]``) of the positions seen so far, and each call
    appends those of ``key`` / ``value`` (incremental decoding, returned as a new
    ``Cache``); ``StaticCache(k, v)`` replaces the projection of ``key`` / ``value``
    (cross attention over a fixed memory, returned unchanged). ``gen_cache`` builds
    either."""

    #: Paddle's incremental cache (decoder self-attention): projected keys / values so far
    Cache = collections.namedtuple("Cache", ["k", "v"])
    #: Paddle's static cache (cross attention): the projected keys / values of a memory
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "attention layers are not recorded",
        "compose the attention from nn.Linear layers and recorded ops (matmul, softmax, reshape, transpose), or train in dynamic mode",
    )

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        kdim: Optional[int] = None,
        vdim: Optional[int] = None,
        need_weights: bool = False,
        weight_attr: Any = None,
        bias_attr: Any = None,
    ) -> None:
        super().__init__()
        what = "MultiHeadAttention"
        self.head_dim = _heads(embed_dim, num_heads, what)
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = _check_dropout(dropout, what)
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self.need_weights = need_weights
        attrs = {"weight_attr": weight_attr, "bias_attr": bias_attr}
        self.q_proj = Linear(embed_dim, embed_dim, **attrs)
        self.k_proj = Linear(self.kdim, embed_dim, **attrs)
        self.v_proj = Linear(self.vdim, embed_dim, **attrs)
        self.out_proj = Linear(embed_dim, embed_dim, **attrs)
        for lin in (self.q_proj, self.k_proj, self.v_proj, self.out_proj):
            # Paddle's defaults: Xavier-uniform weights, zero biases
            if weight_attr is None:
                init.xavier_uniform_(lin.weight)
            if lin.bias is not None and bias_attr is None:
                init.zeros_(lin.bias)

    def forward(
        self,
        query: Tensor,
        key: Optional[Tensor] = None,
        value: Optional[Tensor] = None,
        attn_mask: Optional[Tensor] = None,
        cache: Any = None,
    ) -> Any:
        """Attention of ``query`` over ``key`` and ``value`` (each ``query`` when not
        given, as Paddle), or over a ``cache`` (see the class notes)."""
        what = "MultiHeadAttention"
        key = query if key is None else key
        value = query if value is None else value
        if query.ndim != 3:
            raise ValueError(
                f"{what}: query must be [batch, seq, embed_dim], got shape {list(query.shape)}"
            )
        q = _split_heads(self.q_proj(query), self.num_heads)
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = _core.concat([cache.k, k], 2)
            v = _core.concat([cache.v, v], 2)
            cache = self.Cache(k, v)
        elif cache is not None and not isinstance(cache, self.StaticCache):
            raise TypeError(
                f"{what}: cache must be a MultiHeadAttention.Cache or StaticCache (see "
                f"gen_cache), got {type(cache).__name__}"
            )
        keep, bias = split_mask(attn_mask, q.dtype, what)
        if self.need_weights:
            out, weights = attend(q, k, v, keep, bias, self.dropout, self.training)
        else:  # the fused op: no [L, S] weights kept for backward
            out, weights = attention(q, k, v, keep, bias, self.dropout, self.training), None
        out = self.out_proj(_merge_heads(out))
        outs = (
            (out,) + ((weights,) if self.need_weights else ()) + (() if cache is None else (cache,))
        )
        return outs[0] if len(outs) == 1 else outs

    def compute_kv(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """Paddle's: the projected keys and values, ``[batch, heads, length, head_dim]``
        each (what a cache holds)."""
        k = _split_heads(self.k_proj(key), self.num_heads)
        v = _split_heads(self.v_proj(value), self.num_heads)
        return k, v

    def gen_cache(self, key: Tensor, value: Optional[Tensor] = None, type: Any = None) -> Any:
        """Paddle's: a ``StaticCache`` of ``compute_kv(key, value)`` (``value`` defaults
        to ``key``) when ``type`` is ``StaticCache``; otherwise a ``Cache`` (the default
        ``type``): empty (length 0, the batch size of ``key``) without ``value``, or
        holding ``key`` and ``value`` as given (already projected)."""
        if type is self.StaticCache:
            return self.StaticCache(*self.compute_kv(key, key if value is None else value))
        if type is not None and type is not self.Cache:
            raise TypeError(
                "MultiHeadAttention.gen_cache: type must be MultiHeadAttention.Cache or "
                f"MultiHeadAttention.StaticCache, got {type!r}"
            )
        if value is None:
            empty = _core.zeros([key.shape[0], self.num_heads, 0, self.head_dim], dtype=key.dtype)
            return self.Cache(empty, empty.clone())
        return self.Cache(key, value)


__all__ = ["MultiheadAttention", "MultiHeadAttention"]
