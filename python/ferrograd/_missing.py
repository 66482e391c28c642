"""Clear errors for PyTorch / Paddle names that ferrograd does not implement (yet).

Code ported from either peer reaches for names like ``torch.jit``, ``paddle.Model``
or ``nn.CTCLoss``. Without help Python answers "module 'ferrograd' has no attribute
'jit'", which does not say whether the name is misspelt or missing. Each module listed here
gets a module-level ``__getattr__`` (PEP 562) built by :func:`missing_attribute`: Python
calls it only for names the module does *not* define, so it never hides a real attribute
(names added later simply stop reaching it), and it raises an ``AttributeError`` that says
the name is a PyTorch / Paddle one ferrograd lacks, with a hint where one helps.
"""

from __future__ import annotations

from typing import Callable, NoReturn

#: Peer names per ferrograd module: name -> (which peers have it, hint or "").
_CPU = "ferrograd runs on the CPU only; drop the device handling"
_PEER_NAMES: dict[str, dict[str, tuple[str, str]]] = {
    # quantized tensor types (torch.quint8 ...): ferrograd has none; quantization-aware
    # training's fake quantization works on float tensors (_fake_quant.py)
    "ferrograd": {
        name: (
            "PyTorch",
            "ferrograd has no quantized tensor types; torch.fake_quantize_per_tensor_affine "
            "/ fake_quantize_per_channel_affine give the quantized values as floats",
        )
        for name in (
            *("quantize_per_tensor", "quantize_per_channel", "quantize_per_tensor_dynamic"),
            *("dequantize", "quint8", "qint8", "qint32", "quint4x2", "ao"),
        )
    },
    # ferrograd.sparse (docs/sparse.md): the peers' sparse names it does not implement
    "ferrograd.sparse": {
        "to_sparse_semi_structured": ("PyTorch", ""),
        "SparseSemiStructuredTensor": ("PyTorch", ""),
    },
    "ferrograd.sparse.nn": {
        "SyncBatchNorm": ("Paddle", "sparse.nn.BatchNorm on one process"),
    },
    # ferrograd.utils.checkpoint: PyTorch's selective activation checkpointing picks what
    # to save per operator (a TorchDispatchMode); ferrograd's ops have no such dispatch
    "ferrograd.utils.checkpoint": {
        name: (
            "PyTorch",
            "selective checkpointing (per-operator save or recompute) is not implemented: "
            "checkpoint the region whole, or pass a context_fn of your own "
            "(use_reentrant=False)",
        )
        for name in (
            "create_selective_checkpoint_contexts",
            "CheckpointPolicy",
            "SelectiveCheckpointContext",
        )
    },
    "ferrograd.jit": {
        "ScriptModule": ("PyTorch", "jit.script returns the nn.Module itself"),
        "ScriptFunction": ("PyTorch", "jit.script returns a plain function"),
    },
    # ferrograd.linalg (docs/linalg.md): what remains of the peers' linalg modules
    "ferrograd.linalg": {
        "fp8_fp8_half_gemm_fused": (
            "Paddle",
            "a GPU-only fused FP8 GEMM kernel; ferrograd runs on the CPU: use linalg.matmul",
        ),
    },
}


class _NoSuggestions:
    """An object with no attributes to suggest (see ``missing_attribute``)."""

    def __dir__(self) -> list[str]:
        return []


_NO_SUGGESTIONS = _NoSuggestions()
# CPython's traceback suggests a close name only among at most this many (`dir`) names.
_PYTHON_SUGGESTION_LIMIT = 750


def peer_names(module: str) -> dict[str, tuple[str, str]]:
    """The PyTorch / Paddle names listed as missing from ``module`` (for the tests)."""
    return dict(_PEER_NAMES.get(module, {}))


def missing_attribute(module: str) -> Callable[[str], NoReturn]:
    """A PEP 562 module ``__getattr__`` for ``module`` (reached only for undefined names)."""
    known = _PEER_NAMES.get(module, {})
    short = module.replace("ferrograd", "", 1)

    def __getattr__(name: str) -> NoReturn:
        if name in known:
            peers, hint = known[name]
            qualified = " / ".join(
                f"{'torch' if peer == 'PyTorch' else 'paddle'}{short}.{name}"
                for peer in peers.split(", ")
            )
            msg = (
                f"module '{module}' has no attribute '{name}': ferrograd does not "
                f"implement {qualified} ({peers} API) yet"
            )
            if hint:
                msg += f"; {hint}"
            err = AttributeError(msg)
            # Setting name/obj stops Python from filling them in with the module, which
            # would add "Did you mean: 'divide'?" for `device`; _NoSuggestions has nothing
            # to suggest.
            err.name = name
            err.obj = _NO_SUGGESTIONS
            raise err
        # Anything else: Python's usual message, "Did you mean" suggestions included
        # (they need the name and the module object, which Python fills in from these).
        import sys

        mod = sys.modules.get(module)
        err = AttributeError(f"module '{module}' has no attribute '{name}'")
        err.name = name
        err.obj = mod
        names = dir(mod) if mod is not None else []
        if len(names) > _PYTHON_SUGGESTION_LIMIT:
            # Python gives up suggesting past 750 names (ferrograd has more): suggest here
            import difflib

            close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
            if close:
                err = AttributeError(f"{err}. Did you mean: '{close[0]}'?")
                err.name = name
                err.obj = _NO_SUGGESTIONS
        raise err

    return __getattr__
