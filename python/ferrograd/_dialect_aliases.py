"""Dialect aliases: the same ops under Paddle's and PyTorch's names, as module functions
(the unbound ``Tensor`` methods themselves, so calls cost no extra Python frame) and as
extra ``Tensor`` method names.

The module functions are plain assignments, one per name, so that type checkers see them
(``ferrograd.add`` has the type of ``Tensor.add``); ``__all__`` lists them and the package
re-exports exactly that list.
"""

from __future__ import annotations

# (_shared_spellings: the calls the dialects answer differently)
from . import _core, _ops_shape, _shared_spellings

Tensor = _core.Tensor

# The table-declared factories (src/python/creation.rs), under the package's name.
# BEGIN generated: creation functions (scripts/gen_op_bindings.py from src/python/creation.rs)
zeros = _core.zeros
ones = _core.ones
empty = _core.empty
zeros_like = _core.zeros_like
ones_like = _core.ones_like
empty_like = _core.empty_like
rand = _core.rand
randn = _core.randn
# END generated: creation functions

# Module functions that take the tensor first: the method descriptors themselves.
# BEGIN generated: binary functions (scripts/gen_op_bindings.py from src/op_defs/binary.rs)
add = Tensor.add
subtract = Tensor.subtract
sub = Tensor.sub
multiply = Tensor.multiply
mul = Tensor.mul
divide = Tensor.divide
div = Tensor.div
true_divide = Tensor.true_divide
floor_divide = Tensor.floor_divide
remainder = Tensor.remainder
mod = Tensor.mod
pow = Tensor.pow
maximum = Tensor.maximum
minimum = Tensor.minimum
equal = _shared_spellings.equal
eq = Tensor.eq
not_equal = Tensor.not_equal
ne = Tensor.ne
less_than = Tensor.less_than
lt = Tensor.lt
less_equal = Tensor.less_equal
le = Tensor.le
greater_than = Tensor.greater_than
gt = Tensor.gt
greater_equal = Tensor.greater_equal
ge = Tensor.ge
logical_and = Tensor.logical_and
logical_or = Tensor.logical_or
logical_xor = Tensor.logical_xor
bitwise_and = Tensor.bitwise_and
bitwise_or = Tensor.bitwise_or
bitwise_xor = Tensor.bitwise_xor
copysign = Tensor.copysign
atan2 = Tensor.atan2
arctan2 = Tensor.arctan2
zeta = Tensor.zeta
chebyshev_polynomial_t = Tensor.chebyshev_polynomial_t
chebyshev_polynomial_u = Tensor.chebyshev_polynomial_u
chebyshev_polynomial_v = Tensor.chebyshev_polynomial_v
chebyshev_polynomial_w = Tensor.chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = Tensor.shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = Tensor.shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = Tensor.shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = Tensor.shifted_chebyshev_polynomial_w
hermite_polynomial_h = Tensor.hermite_polynomial_h
hermite_polynomial_he = Tensor.hermite_polynomial_he
laguerre_polynomial_l = Tensor.laguerre_polynomial_l
legendre_polynomial_p = Tensor.legendre_polynomial_p
# END generated: binary functions
# BEGIN generated: unary functions (scripts/gen_op_bindings.py from src/op_defs/unary.rs)
neg = Tensor.neg
negative = Tensor.negative
abs = Tensor.abs
absolute = Tensor.absolute
sign = Tensor.sign
sgn = Tensor.sgn
exp = Tensor.exp
log = Tensor.log
log1p = Tensor.log1p
expm1 = Tensor.expm1
sqrt = Tensor.sqrt
rsqrt = Tensor.rsqrt
square = Tensor.square
reciprocal = Tensor.reciprocal
sin = Tensor.sin
cos = Tensor.cos
tan = Tensor.tan
tanh = Tensor.tanh
sigmoid = Tensor.sigmoid
relu = Tensor.relu
gelu = Tensor.gelu
gelu_tanh = Tensor.gelu_tanh
softplus = Tensor.softplus
mish = Tensor.mish
erf = Tensor.erf
floor = Tensor.floor
ceil = Tensor.ceil
round = Tensor.round
silu = Tensor.silu
selu = Tensor.selu
relu6 = Tensor.relu6
hardsigmoid = Tensor.hardsigmoid
hardswish = Tensor.hardswish
softsign = Tensor.softsign
tanhshrink = Tensor.tanhshrink
log_sigmoid = Tensor.log_sigmoid
logical_not = Tensor.logical_not
bitwise_not = Tensor.bitwise_not
isnan = Tensor.isnan
isinf = Tensor.isinf
isfinite = Tensor.isfinite
isposinf = Tensor.isposinf
isneginf = Tensor.isneginf
asin = Tensor.asin
arcsin = Tensor.arcsin
acos = Tensor.acos
arccos = Tensor.arccos
atan = Tensor.atan
arctan = Tensor.arctan
sinh = Tensor.sinh
cosh = Tensor.cosh
asinh = Tensor.asinh
arcsinh = Tensor.arcsinh
acosh = Tensor.acosh
arccosh = Tensor.arccosh
atanh = Tensor.atanh
arctanh = Tensor.arctanh
log2 = Tensor.log2
log10 = Tensor.log10
exp2 = Tensor.exp2
erfc = Tensor.erfc
erfinv = Tensor.erfinv
trunc = Tensor.trunc
fix = Tensor.fix
frac = Tensor.frac
deg2rad = Tensor.deg2rad
rad2deg = Tensor.rad2deg
lgamma = Tensor.lgamma
digamma = Tensor.digamma
i0 = Tensor.i0
i0e = Tensor.i0e
i1 = Tensor.i1
i1e = Tensor.i1e
erfcx = Tensor.erfcx
bessel_j0 = Tensor.bessel_j0
bessel_j1 = Tensor.bessel_j1
bessel_y0 = Tensor.bessel_y0
bessel_y1 = Tensor.bessel_y1
modified_bessel_k0 = Tensor.modified_bessel_k0
modified_bessel_k1 = Tensor.modified_bessel_k1
scaled_modified_bessel_k0 = Tensor.scaled_modified_bessel_k0
scaled_modified_bessel_k1 = Tensor.scaled_modified_bessel_k1
spherical_bessel_j0 = Tensor.spherical_bessel_j0
airy_ai = Tensor.airy_ai
signbit = Tensor.signbit
# END generated: unary functions
clip = Tensor.clip
clamp = Tensor.clamp
# BEGIN generated: reduction functions (scripts/gen_op_bindings.py from src/op_defs/reduce.rs)
sum = Tensor.sum
mean = Tensor.mean
prod = Tensor.prod
max = _shared_spellings.max
min = _shared_spellings.min
amax = Tensor.amax
amin = Tensor.amin
argmax = Tensor.argmax
argmin = Tensor.argmin
var = Tensor.var
std = Tensor.std
logsumexp = Tensor.logsumexp
all = Tensor.all
any = Tensor.any
count_nonzero = Tensor.count_nonzero
nansum = Tensor.nansum
nanmean = Tensor.nanmean
# END generated: reduction functions
# (Paddle's check of dtype=: int32 / int64 only; _shared_spellings.py)
argmax = _shared_spellings.argmax  # type: ignore[assignment]  # noqa: F811
argmin = _shared_spellings.argmin  # type: ignore[assignment]  # noqa: F811
softmax = Tensor.softmax
log_softmax = Tensor.log_softmax
matmul = Tensor.matmul
mm = Tensor.mm
bmm = Tensor.bmm
dot = Tensor.dot
outer = Tensor.outer  # (the package binds Paddle's rule over it: __init__.py)
# BEGIN generated: shape functions (scripts/gen_op_bindings.py from src/op_defs/shape.rs)
squeeze = Tensor.squeeze
unsqueeze = Tensor.unsqueeze
flatten = Tensor.flatten
reshape = Tensor.reshape
permute = Tensor.permute
transpose = Tensor.transpose
expand = Tensor.expand
broadcast_to = Tensor.broadcast_to
expand_as = Tensor.expand_as
# END generated: shape functions
# (Paddle's list of axes, inserted one by one; _ops_shape.py)
unsqueeze = _ops_shape.unsqueeze  # type: ignore[assignment]  # noqa: F811
view = Tensor.view
t = Tensor.t
clone = Tensor.clone
detach = Tensor.detach
astype = Tensor.astype
cast = Tensor.cast
numel = Tensor.numel  # (Paddle code: a 0-d int64 Tensor, the core's rule)
scale = Tensor.scale
gather = Tensor.gather
index_select = Tensor.index_select
take_along_axis = Tensor.take_along_axis
nonzero = _shared_spellings.nonzero  # (Paddle code: [z, 1] pieces with as_tuple)
masked_select = Tensor.masked_select
chunk = Tensor.chunk
unbind = Tensor.unbind

__all__ = [
    # BEGIN generated: creation __all__ (scripts/gen_op_bindings.py from src/python/creation.rs)
    "zeros",
    "ones",
    "empty",
    "zeros_like",
    "ones_like",
    "empty_like",
    "rand",
    "randn",
    # END generated: creation __all__
    # BEGIN generated: binary __all__ (scripts/gen_op_bindings.py from src/op_defs/binary.rs)
    "add",
    "subtract",
    "sub",
    "multiply",
    "mul",
    "divide",
    "div",
    "true_divide",
    "floor_divide",
    "remainder",
    "mod",
    "pow",
    "maximum",
    "minimum",
    "equal",
    "eq",
    "not_equal",
    "ne",
    "less_than",
    "lt",
    "less_equal",
    "le",
    "greater_than",
    "gt",
    "greater_equal",
    "ge",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "copysign",
    "atan2",
    "arctan2",
    "zeta",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    # END generated: binary __all__
    # BEGIN generated: unary __all__ (scripts/gen_op_bindings.py from src/op_defs/unary.rs)
    "neg",
    "negative",
    "abs",
    "absolute",
    "sign",
    "sgn",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "square",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "gelu",
    "gelu_tanh",
    "softplus",
    "mish",
    "erf",
    "floor",
    "ceil",
    "round",
    "silu",
    "selu",
    "relu6",
    "hardsigmoid",
    "hardswish",
    "softsign",
    "tanhshrink",
    "log_sigmoid",
    "logical_not",
    "bitwise_not",
    "isnan",
    "isinf",
    "isfinite",
    "isposinf",
    "isneginf",
    "asin",
    "arcsin",
    "acos",
    "arccos",
    "atan",
    "arctan",
    "sinh",
    "cosh",
    "asinh",
    "arcsinh",
    "acosh",
    "arccosh",
    "atanh",
    "arctanh",
    "log2",
    "log10",
    "exp2",
    "erfc",
    "erfinv",
    "trunc",
    "fix",
    "frac",
    "deg2rad",
    "rad2deg",
    "lgamma",
    "digamma",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "erfcx",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "airy_ai",
    "signbit",
    # END generated: unary __all__
    "clip",
    "clamp",
    # BEGIN generated: reduction __all__ (scripts/gen_op_bindings.py from src/op_defs/reduce.rs)
    "sum",
    "mean",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "var",
    "std",
    "logsumexp",
    "all",
    "any",
    "count_nonzero",
    "nansum",
    "nanmean",
    # END generated: reduction __all__
    "softmax",
    "log_softmax",
    "matmul",
    "mm",
    "bmm",
    "dot",
    # BEGIN generated: shape __all__ (scripts/gen_op_bindings.py from src/op_defs/shape.rs)
    "squeeze",
    "unsqueeze",
    "flatten",
    "reshape",
    "permute",
    "transpose",
    "expand",
    "broadcast_to",
    "expand_as",
    # END generated: shape __all__
    "view",
    "t",
    "clone",
    "detach",
    "astype",
    "cast",
    "numel",
    "scale",
    "gather",
    "index_select",
    "take_along_axis",
    "nonzero",
    "masked_select",
    "chunk",
    "unbind",
]


def export_functions(namespace: dict) -> None:
    """Puts the method-backed module functions into ``namespace`` (the package itself
    imports them by name instead, so that type checkers see them)."""
    for name in __all__:
        namespace[name] = globals()[name]


def install_tensor_aliases() -> None:
    """Adds alternative method names and class attributes to ``Tensor``."""
    # (the stub declares these as methods, so that callers type-check; assigning them
    # here is what makes them exist, hence the method-assign ignores)
    # NumPy defers to our reflected operators (ndarray + tensor -> tensor).
    Tensor.__array_priority__ = 1000
    Tensor.multiply_ = Tensor.mul_  # type: ignore[method-assign]
    Tensor.clamp_min = lambda self, min: self.clip(min=min)  # type: ignore[method-assign]
    Tensor.clamp_max = lambda self, max: self.clip(max=max)  # type: ignore[method-assign]
    Tensor.ravel = lambda self: self.reshape(-1)  # type: ignore[method-assign]
    Tensor.type_as = lambda self, other: self.astype(other.dtype)  # type: ignore[method-assign]
    Tensor.new_zeros = lambda self, *shape, dtype=None: _core.zeros(  # type: ignore[method-assign]
        *shape, dtype=dtype or self.dtype
    )
    Tensor.new_ones = lambda self, *shape, dtype=None: _core.ones(*shape, dtype=dtype or self.dtype)  # type: ignore[method-assign]
    # x.max(1) / x.min(1) / x.equal(y): the calls the dialects answer differently
    from . import _shared_spellings

    _shared_spellings.install_tensor_methods()


# BEGIN static dispatch: the module functions above dispatch on their first argument's
# type (a Tensor runs at once; a static Variable records): see _op_functions.py
from ._op_functions import wrap_names as _wrap_names  # noqa: E402

_wrap_names(globals(), __all__)
# END static dispatch
