"""Clear errors for PyTorch / Paddle names that ferrograd does not implement (yet).

Code ported from either peer reaches for names like ``torch.device``, ``paddle.set_device``
or ``nn.Conv2d``. Without help Python answers "module 'ferrograd' has no attribute 'device'.
Did you mean: 'divide'?", which sends the reader the wrong way. Each module listed here
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
    "ferrograd": {
        # devices and accelerators
        "device": ("PyTorch, Paddle", _CPU),
        "cuda": ("PyTorch", _CPU),
        "set_device": ("Paddle", _CPU),
        "get_device": ("PyTorch, Paddle", _CPU),
        "is_compiled_with_cuda": ("Paddle", "it would return False: " + _CPU),
        "CPUPlace": ("Paddle", _CPU),
        "CUDAPlace": ("Paddle", _CPU),
        "Generator": ("PyTorch", "use ferrograd.seed(n) / manual_seed(n) for reproducible draws"),
        # sub-packages
        "jit": ("PyTorch, Paddle", "ferrograd.static builds and runs Paddle-style programs"),
        "compile": ("PyTorch", "ferrograd.static builds and runs Paddle-style programs"),
        "fft": ("PyTorch, Paddle", ""),
        "sparse": ("PyTorch, Paddle", ""),
        "distributed": ("PyTorch, Paddle", ""),
        "amp": ("PyTorch, Paddle", "float16/bfloat16 tensors exist; there is no autocast"),
        "utils": ("PyTorch, Paddle", ""),
        "io": ("Paddle", ""),
        "vision": ("Paddle", ""),
        "func": ("PyTorch", "ferrograd.autograd.functional has jacobian, hessian, vjp, jvp"),
        "vmap": ("PyTorch", ""),
        # ops
        "cumsum": ("PyTorch, Paddle", ""),
        "cumprod": ("PyTorch, Paddle", ""),
        "sort": ("PyTorch, Paddle", ""),
        "argsort": ("PyTorch, Paddle", ""),
        "topk": ("PyTorch, Paddle", ""),
        "unique": ("PyTorch, Paddle", ""),
        "flip": ("PyTorch, Paddle", "a reversed slice x[::-1] is a view"),
        "roll": ("PyTorch, Paddle", ""),
        "tril": ("PyTorch, Paddle", ""),
        "triu": ("PyTorch, Paddle", ""),
        "diag": ("PyTorch, Paddle", ""),
        "diagonal": ("PyTorch, Paddle", ""),
        "trace": ("PyTorch, Paddle", ""),
        "tile": ("PyTorch, Paddle", "expand/broadcast_to gives a broadcast view"),
        "repeat_interleave": ("PyTorch, Paddle", ""),
        "scatter": ("PyTorch, Paddle", "x[index] = value assigns by index"),
        "scatter_add": ("PyTorch", ""),
        "index_add": ("PyTorch, Paddle", ""),
        "masked_fill": ("PyTorch, Paddle", "ferrograd.where(mask, value, x)"),
        "meshgrid": ("PyTorch, Paddle", ""),
        "conv2d": ("PyTorch", ""),
        "normal": ("PyTorch, Paddle", "ferrograd.randn(*shape) * std + mean"),
        "uniform": ("Paddle", "ferrograd.rand(*shape) * (high - low) + low"),
        "bernoulli": ("PyTorch, Paddle", "(ferrograd.rand(*shape) < p)"),
        "multinomial": ("PyTorch, Paddle", ""),
        "randperm": ("PyTorch, Paddle", ""),
        "ParamAttr": ("Paddle", "pass initializers to nn.Layer.create_parameter instead"),
        "DataParallel": ("PyTorch, Paddle", ""),
        "Model": ("Paddle", "write the training loop (see the demo: python -m ferrograd.demo)"),
        "summary": ("Paddle", ""),
        "set_default_dtype": ("PyTorch, Paddle", "float32 is the fixed default"),
        "set_printoptions": ("PyTorch, Paddle", ""),
    },
    "ferrograd.nn": {
        "Conv1d": ("PyTorch", ""),
        "Conv2d": ("PyTorch", ""),
        "Conv1D": ("Paddle", ""),
        "Conv2D": ("Paddle", ""),
        "ConvTranspose2d": ("PyTorch", ""),
        "MaxPool2d": ("PyTorch", ""),
        "MaxPool2D": ("Paddle", ""),
        "AvgPool2d": ("PyTorch", ""),
        "AvgPool2D": ("Paddle", ""),
        "AdaptiveAvgPool2d": ("PyTorch", ""),
        "BatchNorm1d": ("PyTorch", "LayerNorm is available"),
        "BatchNorm2d": ("PyTorch", "LayerNorm is available"),
        "BatchNorm1D": ("Paddle", "LayerNorm is available"),
        "BatchNorm2D": ("Paddle", "LayerNorm is available"),
        "GroupNorm": ("PyTorch, Paddle", "LayerNorm is available"),
        "RNN": ("PyTorch, Paddle", ""),
        "LSTM": ("PyTorch, Paddle", ""),
        "GRU": ("PyTorch, Paddle", ""),
        "MultiheadAttention": ("PyTorch, Paddle", ""),
        "Transformer": ("PyTorch, Paddle", ""),
        "TransformerEncoderLayer": ("PyTorch, Paddle", ""),
        "LeakyReLU": ("PyTorch, Paddle", ""),
        "ELU": ("PyTorch, Paddle", ""),
        "SiLU": ("PyTorch, Paddle", "x * x.sigmoid(), or a PyLayer (the demo's Swish)"),
        "Softplus": ("PyTorch, Paddle", "ferrograd.softplus is the function"),
        "BCELoss": ("PyTorch, Paddle", ""),
        "BCEWithLogitsLoss": ("PyTorch, Paddle", ""),
        "L1Loss": ("PyTorch, Paddle", "(a - b).abs().mean()"),
        "SmoothL1Loss": ("PyTorch, Paddle", ""),
        "KLDivLoss": ("PyTorch, Paddle", ""),
        "ParameterList": ("PyTorch, Paddle", "a ModuleList / LayerList of layers"),
        "ModuleDict": ("PyTorch", ""),
        "LayerDict": ("Paddle", ""),
        "utils": ("PyTorch, Paddle", ""),
    },
    "ferrograd.nn.functional": {
        "conv1d": ("PyTorch, Paddle", ""),
        "conv2d": ("PyTorch, Paddle", ""),
        "max_pool2d": ("PyTorch, Paddle", ""),
        "avg_pool2d": ("PyTorch, Paddle", ""),
        "batch_norm": ("PyTorch, Paddle", "layer_norm is available"),
        "group_norm": ("PyTorch, Paddle", "layer_norm is available"),
        "normalize": ("PyTorch, Paddle", ""),
        "pad": ("PyTorch, Paddle", "ferrograd.concat with zeros"),
        "interpolate": ("PyTorch, Paddle", ""),
        "one_hot": ("PyTorch, Paddle", ""),
        "softplus": ("PyTorch, Paddle", "ferrograd.softplus (top level) is the function"),
        "silu": ("PyTorch, Paddle", "x * ferrograd.sigmoid(x)"),
        "leaky_relu": ("PyTorch, Paddle", ""),
        "elu": ("PyTorch, Paddle", ""),
        "hardtanh": ("PyTorch, Paddle", "ferrograd.clip(x, -1, 1)"),
        "binary_cross_entropy": ("PyTorch, Paddle", ""),
        "binary_cross_entropy_with_logits": ("PyTorch, Paddle", ""),
        "l1_loss": ("PyTorch, Paddle", "(a - b).abs().mean()"),
        "smooth_l1_loss": ("PyTorch, Paddle", ""),
        "kl_div": ("PyTorch, Paddle", ""),
        "scaled_dot_product_attention": ("PyTorch, Paddle", ""),
    },
    "ferrograd.optim": {
        "RMSprop": ("PyTorch", ""),
        "Adagrad": ("PyTorch", ""),
        "Adadelta": ("PyTorch", ""),
        "Adamax": ("PyTorch", ""),
        "LBFGS": ("PyTorch", ""),
        "RAdam": ("PyTorch", ""),
        "NAdam": ("PyTorch", ""),
    },
    # ferrograd.linalg (docs/linalg.md): real symmetric / general-purpose factorizations
    # are there; these are not (yet)
    "ferrograd.linalg": {
        "eig": ("PyTorch, Paddle", "for a symmetric matrix use linalg.eigh"),
        "eigvals": ("PyTorch, Paddle", "for a symmetric matrix use linalg.eigvalsh"),
        "solve_triangular": ("PyTorch, Paddle", "linalg.solve solves any square system"),
        "lu": ("PyTorch, Paddle", "linalg.solve / inv / det use an LU factorization inside"),
        "lu_factor": ("PyTorch, Paddle", "linalg.solve / inv / det use an LU factorization inside"),
        "lu_solve": ("PyTorch, Paddle", "linalg.solve"),
        "cholesky_ex": ("PyTorch", "linalg.cholesky raises LinAlgError instead of returning info"),
        "inv_ex": ("PyTorch", "linalg.inv raises LinAlgError instead of returning info"),
        "matrix_exp": ("PyTorch, Paddle", ""),
        "householder_product": ("PyTorch, Paddle", ""),
        "vecdot": ("PyTorch, Paddle", "(x * y).sum(dim)"),
        "tensorinv": ("PyTorch", ""),
        "tensorsolve": ("PyTorch", ""),
    },
}


class _NoSuggestions:
    """An object with no attributes to suggest (see ``missing_attribute``)."""

    def __dir__(self) -> list[str]:
        return []


_NO_SUGGESTIONS = _NoSuggestions()


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

        err = AttributeError(f"module '{module}' has no attribute '{name}'")
        err.name = name
        err.obj = sys.modules.get(module)
        raise err

    return __getattr__
