"""Transformer layers in both dialects: ``TransformerEncoderLayer``,
``TransformerEncoder``, ``TransformerDecoderLayer``, ``TransformerDecoder``,
``Transformer``.

PyTorch's arguments (``d_model, nhead, dim_feedforward=2048, dropout=0.1, activation,
layer_norm_eps, batch_first=False, norm_first=False, bias``) build a layer whose attention
is a ``MultiheadAttention`` (``self_attn``, ``multihead_attn``): sequence-first input
unless ``batch_first``; bool masks mark positions to leave out. Paddle's (``attn_dropout``,
``act_dropout``, ``normalize_before``, ``weight_attr``, ``bias_attr``) build one on
``MultiHeadAttention`` (``self_attn``, ``cross_attn``): batch-first input; bool masks mark
positions to keep; ``forward(src, src_mask)``. Float masks are added in both. A layer is
built in Paddle's dialect when one of Paddle's arguments is given, or when Paddle code
builds it without one of PyTorch's own (``batch_first``, ``norm_first``, ``bias``,
``device``, ``dtype``); PyTorch's otherwise. Its ``Linear`` layers take that dialect's
layout (Paddle's ``[in, out]``, so ``state_dict`` matches Paddle's keys and shapes).

``TransformerEncoder`` / ``TransformerDecoder`` stack ``num_layers`` copies of a layer
(PyTorch: deep copies, same initial weights; Paddle: fresh layers built from the same
arguments), with an optional final ``norm``. All compositions of differentiable ops.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Optional, Union

import numpy as np

from .. import _core
from . import functional as F
from . import init
from .attention import MultiHeadAttention, MultiheadAttention
from .layers import Dropout, LayerNorm, Linear, ModuleList, construction_dialect, layout_of
from .module import Module

Tensor = _core.Tensor

_PADDLE_ARGS = frozenset(
    {"attn_dropout", "act_dropout", "normalize_before", "weight_attr", "bias_attr"}
)
_TORCH_ONLY = frozenset({"batch_first", "norm_first", "bias", "device", "dtype"})
_TORCH_POS = ["layer_norm_eps", "batch_first", "norm_first", "bias", "device", "dtype"]
_PADDLE_POS = ["attn_dropout", "act_dropout", "normalize_before", "weight_attr", "bias_attr",
               "layer_norm_eps"]  # fmt: skip


def _cache_arg(layer: Any, kpm: Any, cache: Any, what: str) -> tuple[Any, Any]:
    """``(key_padding_mask, cache)``: Paddle's positional ``cache`` lands where PyTorch's
    key padding mask is (Paddle's layers have none), so a tuple / list there is the
    cache; a cache given to a layer built in PyTorch's dialect raises."""
    if layer._paddle and cache is None and isinstance(kpm, (tuple, list)):
        kpm, cache = None, kpm
    if cache is not None and not layer._paddle:
        raise TypeError(
            f"{what}: cache is Paddle's argument (incremental decoding); this layer was "
            "built in PyTorch's dialect"
        )
    return kpm, cache


def _paddle_only(layer: Any, what: str) -> None:
    if not layer._paddle:
        raise TypeError(f"{what}: gen_cache is Paddle's; this layer was built in PyTorch's dialect")


def _check_caches(cache: Any, n: int, what: str) -> None:
    if cache is not None and len(cache) != n:
        raise ValueError(f"{what}: cache must hold one entry per layer ({n}), got {len(cache)}")


def _activation(act: Union[str, Callable], what: str) -> Callable:
    if callable(act):
        return act
    if act == "relu":
        return F.relu
    if act == "gelu":
        return F.gelu
    raise ValueError(f"{what}: activation must be 'relu', 'gelu' or a callable, got {act!r}")


def _paddle_dialect(kw: dict) -> bool:
    """Whether a layer takes Paddle's dialect: one of Paddle's own arguments, or Paddle
    code (ferrograd's frames skipped) giving none of PyTorch's own."""
    if _PADDLE_ARGS & set(kw):
        return True
    return not (_TORCH_ONLY & set(kw)) and construction_dialect() == "paddle"


def _options(what: str, args: tuple, kw: dict) -> tuple[bool, dict]:
    """Which dialect, and every option by name."""
    paddle = _paddle_dialect(kw)
    names = _PADDLE_POS if paddle else _TORCH_POS
    if len(args) > len(names):
        raise TypeError(f"{what}() got too many positional arguments")
    o = dict(zip(names, args))
    for k, v in kw.items():
        if k in o:
            raise TypeError(f"{what}() got multiple values for argument {k!r}")
        o[k] = v
    unknown = set(o) - set(_TORCH_POS) - set(_PADDLE_POS)
    if unknown:
        raise TypeError(f"{what}() got unexpected keyword arguments {sorted(unknown)}")
    return paddle, o


class _LayerBase(Module):
    """Shared construction: sizes, dialect, attention factory, feed-forward block."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "attention layers are not recorded",
        "compose the attention from nn.Linear layers and recorded ops (matmul, softmax, reshape, transpose), or train in dynamic mode",
    )

    def _setup(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int,
        dropout: float,
        activation: Any,
        args: tuple,
        kw: dict,
        cross: bool = False,
    ) -> dict:
        what = type(self).__name__
        self._config = (d_model, nhead, dim_feedforward, dropout, activation, args, dict(kw))
        paddle, o = _options(what, args, kw)
        for label, v in (
            ("d_model", d_model),
            ("nhead", nhead),
            ("dim_feedforward", dim_feedforward),
        ):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"{what}: {label} must be a positive int, got {v!r}")
        if not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{what}: dropout must be a probability in [0, 1], got {dropout!r}")
        self._paddle = paddle
        self.batch_first = True if paddle else bool(o.get("batch_first", False))
        self.norm_first = bool(o.get("normalize_before", o.get("norm_first", False)))
        self.normalize_before = self.norm_first
        self.activation = _activation(activation, what)
        eps = o.get("layer_norm_eps", 1e-5)
        dtype = o.get("dtype")
        bias = o.get("bias", True)
        attn_p = float(dropout if o.get("attn_dropout") is None else o["attn_dropout"])
        act_p = float(dropout if o.get("act_dropout") is None else o["act_dropout"])
        c = {"paddle": paddle, "attn_p": attn_p, "bias": bias, "dtype": dtype, "o": o}
        # both peers register the attention first (the order of state_dict's keys)
        self.self_attn = self._attention(d_model, nhead, c)
        if cross:  # the decoder's attention over the memory
            if paddle:
                self.cross_attn = self._attention(d_model, nhead, c)
            else:
                self.multihead_attn = self._attention(d_model, nhead, c)
        lin_kw: dict = (
            {"weight_attr": o.get("weight_attr"), "bias_attr": o.get("bias_attr")}
            if paddle
            else {"bias": bias, "dtype": dtype}
        )
        with layout_of("paddle" if paddle else "torch"):
            self.linear1 = Linear(d_model, dim_feedforward, **lin_kw)
            self.linear2 = Linear(dim_feedforward, d_model, **lin_kw)
        self.dropout = Dropout(act_p)
        norm_kw: dict = {} if paddle else {"bias": bias, "dtype": dtype}
        self.norm1 = LayerNorm(d_model, eps, **norm_kw)
        self.norm2 = LayerNorm(d_model, eps, **norm_kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        return {"paddle": paddle, "attn_p": attn_p, "bias": bias, "dtype": dtype,
                "eps": eps, "norm_kw": norm_kw, "o": o}  # fmt: skip

    def _attention(self, d_model: int, nhead: int, c: dict) -> Module:
        if c["paddle"]:
            o = c["o"]
            with layout_of("paddle"):
                return MultiHeadAttention(
                    d_model, nhead, c["attn_p"], weight_attr=o.get("weight_attr"),
                    bias_attr=o.get("bias_attr"),
                )  # fmt: skip
        return MultiheadAttention(
            d_model, nhead, c["attn_p"], bias=c["bias"], batch_first=self.batch_first,
            dtype=c["dtype"],
        )  # fmt: skip

    def _attend(
        self,
        attn: Module,
        x: Tensor,
        mem: Tensor,
        mask: Any,
        kpm: Any,
        is_causal: bool,
    ) -> Tensor:
        if self._paddle:
            if kpm is not None:
                raise TypeError(f"{type(self).__name__}: Paddle's layer has no key padding mask")
            return attn(x, mem, mem, mask)
        return attn(
            x, mem, mem, attn_mask=mask, key_padding_mask=kpm, need_weights=False,
            is_causal=is_causal,
        )[0]  # fmt: skip

    def _ff(self, x: Tensor) -> Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_LayerBase):
    """Self-attention then feed-forward, each with a residual and a ``LayerNorm``
    (after the residual, or before the block with ``norm_first`` / ``normalize_before``)."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Union[str, Callable] = "relu",
        *args: Any,
        **kw: Any,
    ) -> None:
        super().__init__()
        self._setup(d_model, nhead, dim_feedforward, dropout, activation, args, kw)

    def forward(
        self,
        src: Tensor,
        src_mask: Optional[Tensor] = None,
        src_key_padding_mask: Optional[Tensor] = None,
        is_causal: bool = False,
        cache: Any = None,
    ) -> Any:
        """The layer applied to ``src``; with Paddle's ``cache`` (a
        ``MultiHeadAttention.Cache``, see ``gen_cache``), ``(output, new_cache)``."""
        kpm, cache = _cache_arg(self, src_key_padding_mask, cache, "TransformerEncoderLayer")
        new: list = []

        def sa(h: Tensor) -> Tensor:
            if cache is None:
                return self.dropout1(self._attend(self.self_attn, h, h, src_mask, kpm, is_causal))
            out, c = self.self_attn(h, h, h, src_mask, cache)
            new.append(c)
            return self.dropout1(out)

        x = src
        if self.norm_first:
            x = x + sa(self.norm1(x))
            x = x + self.dropout2(self._ff(self.norm2(x)))
        else:
            x = self.norm1(x + sa(x))
            x = self.norm2(x + self.dropout2(self._ff(x)))
        return x if cache is None else (x, new[0])

    def gen_cache(self, src: Tensor) -> Any:
        """Paddle's: an empty ``MultiHeadAttention.Cache`` for ``self_attn`` (the batch
        size of ``src``)."""
        _paddle_only(self, "TransformerEncoderLayer")
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerDecoderLayer(_LayerBase):
    """Self-attention over ``tgt``, attention over ``memory`` (PyTorch:
    ``multihead_attn``; Paddle: ``cross_attn``), then feed-forward; residuals and
    ``LayerNorm`` as in the encoder layer."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Union[str, Callable] = "relu",
        *args: Any,
        **kw: Any,
    ) -> None:
        super().__init__()
        c = self._setup(d_model, nhead, dim_feedforward, dropout, activation, args, kw, True)
        self.norm3 = LayerNorm(d_model, c["eps"], **c["norm_kw"])
        self.dropout3 = Dropout(dropout)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Optional[Tensor] = None,
        memory_mask: Optional[Tensor] = None,
        tgt_key_padding_mask: Optional[Tensor] = None,
        memory_key_padding_mask: Optional[Tensor] = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
        cache: Any = None,
    ) -> Any:
        """The layer applied to ``tgt`` attending to ``memory``; with Paddle's ``cache``
        (``(Cache, StaticCache)``, see ``gen_cache``), ``(output, new_cache)``."""
        tkpm, cache = _cache_arg(self, tgt_key_padding_mask, cache, "TransformerDecoderLayer")
        cross = self.cross_attn if self._paddle else self.multihead_attn
        x = tgt
        new: list = []

        def sa(h: Tensor) -> Tensor:
            if cache is None:
                a = self._attend(self.self_attn, h, h, tgt_mask, tkpm, tgt_is_causal)
            else:
                a, c = self.self_attn(h, h, h, tgt_mask, cache[0])
                new.append(c)
            return self.dropout1(a)

        def ca(h: Tensor) -> Tensor:
            if cache is None:
                a = self._attend(
                    cross, h, memory, memory_mask, memory_key_padding_mask, memory_is_causal
                )
            else:
                a, c = cross(h, memory, memory, memory_mask, cache[1])
                new.append(c)
            return self.dropout2(a)

        if self.norm_first:
            x = x + sa(self.norm1(x))
            x = x + ca(self.norm2(x))
            x = x + self.dropout3(self._ff(self.norm3(x)))
        else:
            x = self.norm1(x + sa(x))
            x = self.norm2(x + ca(x))
            x = self.norm3(x + self.dropout3(self._ff(x)))
        return x if cache is None else (x, (new[0], new[1]))

    def gen_cache(self, memory: Tensor) -> tuple[Any, Any]:
        """Paddle's: ``(Cache, StaticCache)``, an empty incremental cache for
        ``self_attn`` and the projected ``memory`` for ``cross_attn``."""
        _paddle_only(self, "TransformerDecoderLayer")
        sa, ca = self.self_attn, self.cross_attn
        return sa.gen_cache(memory, type=sa.Cache), ca.gen_cache(
            memory, memory, type=ca.StaticCache
        )


def _clones(layer: _LayerBase, n: int, what: str) -> ModuleList:
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"{what}: num_layers must be a positive int, got {n!r}")
    if not isinstance(layer, _LayerBase):
        raise TypeError(f"{what}: expected a transformer layer, got {type(layer).__name__}")
    if layer._paddle:
        d, h, ff, p, act, args, kw = layer._config
        with layout_of("paddle"):
            fresh = [type(layer)(d, h, ff, p, act, *args, **kw) for _ in range(n - 1)]
        return ModuleList([layer] + fresh)
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


class TransformerEncoder(Module):
    """``num_layers`` encoder layers in sequence, then ``norm`` (if given)."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "attention layers are not recorded",
        "compose the attention from nn.Linear layers and recorded ops (matmul, softmax, reshape, transpose), or train in dynamic mode",
    )

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Optional[Module] = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        src: Tensor,
        mask: Optional[Tensor] = None,
        src_key_padding_mask: Optional[Tensor] = None,
        is_causal: Optional[bool] = None,
        cache: Any = None,
        *,
        src_mask: Optional[Tensor] = None,
    ) -> Any:
        """``src`` through every layer (Paddle: ``forward(src, src_mask, cache)``, the
        cache a list of one ``Cache`` per layer; then ``(output, new_caches)``)."""
        mask = src_mask if src_mask is not None else mask
        kpm, cache = _cache_arg(self.layers[0], src_key_padding_mask, cache, "TransformerEncoder")
        _check_caches(cache, len(self.layers), "TransformerEncoder")
        x, new = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                x = layer(x, mask, kpm, bool(is_causal))
            else:
                x, c = layer(x, mask, cache=cache[i])
                new.append(c)
        x = x if self.norm is None else self.norm(x)
        return x if cache is None else (x, new)

    def gen_cache(self, src: Tensor) -> list:
        """Paddle's: one empty ``Cache`` per layer."""
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoder(Module):
    """``num_layers`` decoder layers in sequence, then ``norm`` (if given)."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "attention layers are not recorded",
        "compose the attention from nn.Linear layers and recorded ops (matmul, softmax, reshape, transpose), or train in dynamic mode",
    )

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Optional[Module] = None
    ) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Optional[Tensor] = None,
        memory_mask: Optional[Tensor] = None,
        tgt_key_padding_mask: Optional[Tensor] = None,
        memory_key_padding_mask: Optional[Tensor] = None,
        tgt_is_causal: Optional[bool] = None,
        memory_is_causal: bool = False,
        cache: Any = None,
    ) -> Any:
        """``tgt`` through every layer, each attending to ``memory`` (Paddle's ``cache``:
        one ``(Cache, StaticCache)`` per layer; then ``(output, new_caches)``)."""
        tkpm, cache = _cache_arg(self.layers[0], tgt_key_padding_mask, cache, "TransformerDecoder")
        _check_caches(cache, len(self.layers), "TransformerDecoder")
        x, new = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                x = layer(
                    x, memory, tgt_mask, memory_mask, tkpm, memory_key_padding_mask,
                    bool(tgt_is_causal), memory_is_causal,
                )  # fmt: skip
            else:
                x, c = layer(x, memory, tgt_mask, memory_mask, cache=cache[i])
                new.append(c)
        x = x if self.norm is None else self.norm(x)
        return x if cache is None else (x, new)

    def gen_cache(self, memory: Tensor, do_zip: bool = False) -> list:
        """Paddle's: one ``(Cache, StaticCache)`` per layer (``do_zip=True``: the two
        lists zipped, ``[(Cache, ...), (StaticCache, ...)]``)."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


class Transformer(Module):
    """Encoder-decoder transformer: ``forward(src, tgt, src_mask, tgt_mask, memory_mask,
    ...)``. PyTorch's version re-draws every matrix Xavier-uniform after building."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "attention layers are not recorded",
        "compose the attention from nn.Linear layers and recorded ops (matmul, softmax, reshape, transpose), or train in dynamic mode",
    )

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Union[str, Callable] = "relu",
        custom_encoder: Optional[Module] = None,
        custom_decoder: Optional[Module] = None,
        **kw: Any,
    ) -> None:
        super().__init__()
        layer_kw = {k: v for k, v in kw.items() if k not in ("device",)}
        paddle = _paddle_dialect(kw)
        eps = kw.get("layer_norm_eps", 1e-5)
        with layout_of("paddle" if paddle else "torch"):  # the layers take its dialect
            self._build(d_model, nhead, num_encoder_layers, num_decoder_layers,
                        dim_feedforward, dropout, activation, custom_encoder,
                        custom_decoder, layer_kw, eps)  # fmt: skip
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = True if paddle else bool(kw.get("batch_first", False))
        if not paddle:
            for p in self.parameters():
                if p.ndim > 1:
                    init.xavier_uniform_(p)

    def _build(
        self, d_model: int, nhead: int, n_enc: int, n_dec: int, ff: int, dropout: float,
        activation: Any, custom_encoder: Optional[Module], custom_decoder: Optional[Module],
        layer_kw: dict, eps: float,
    ) -> None:  # fmt: skip
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            enc = TransformerEncoderLayer(d_model, nhead, ff, dropout, activation, **layer_kw)
            self.encoder = TransformerEncoder(enc, n_enc, LayerNorm(d_model, eps))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            dec = TransformerDecoderLayer(d_model, nhead, ff, dropout, activation, **layer_kw)
            self.decoder = TransformerDecoder(dec, n_dec, LayerNorm(d_model, eps))

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Optional[Tensor] = None,
        tgt_mask: Optional[Tensor] = None,
        memory_mask: Optional[Tensor] = None,
        src_key_padding_mask: Optional[Tensor] = None,
        tgt_key_padding_mask: Optional[Tensor] = None,
        memory_key_padding_mask: Optional[Tensor] = None,
        src_is_causal: Optional[bool] = None,
        tgt_is_causal: Optional[bool] = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Encodes ``src``, decodes ``tgt`` against it."""
        memory = self.encoder(src, src_mask, src_key_padding_mask, src_is_causal)
        return self.decoder(
            tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
            memory_key_padding_mask, tgt_is_causal, memory_is_causal,
        )  # fmt: skip

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """A float ``[sz, sz]`` causal mask: 0 on and below the diagonal, -inf above
        (both peers' helper)."""
        if not isinstance(sz, int) or sz < 0:
            raise ValueError(f"generate_square_subsequent_mask: sz must be an int >= 0, got {sz!r}")
        m = np.triu(np.full((sz, sz), -np.inf), 1)
        t = _core.tensor(m.astype(np.float32))
        return t if dtype is None else t.astype(dtype)


__all__ = [
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "TransformerDecoderLayer",
    "TransformerDecoder",
    "Transformer",
]
