"""Issue 19's probe list: every everyday name a PyTorch or Paddle user reaches for in the
first hour exists in ferrograd, as both peers spell it (module functions, ``Tensor``
methods, ``nn.functional`` and ``linalg`` names). A name missing here is an
AttributeError a porting user meets within minutes."""

import ferrograd as fg
import ferrograd.nn.functional as F
import pytest

# module functions (torch.X and paddle.X)
FUNCTIONS = """
cumsum cumprod cummax cummin sort argsort topk kthvalue median mode unique searchsorted
bucketize count_nonzero histc
masked_fill masked_select masked_scatter scatter scatter_add scatter_reduce index_add
index_fill index_put scatter_nd scatter_nd_add gather_nd take
flip roll rot90 tile repeat_interleave tril triu diag diag_embed diagonal trace narrow
movedim swapaxes unflatten unstack meshgrid broadcast_tensors
einsum norm cdist cross lerp fmod remainder hypot logaddexp xlogy clamp clip nan_to_num
isnan isinf isfinite isclose allclose equal equal_all addmm baddbmm mv outer kron
cosine_similarity pairwise_distance
randperm multinomial bernoulli normal uniform rand_like randn_like randint_like Generator
set_default_dtype get_default_dtype set_printoptions device shape uint8 int8 int16
""".split()

# Tensor methods (x.X in both peers, or in the one that has it)
METHODS = """
cumsum cumprod sort argsort topk kthvalue median unique masked_fill masked_fill_
masked_select masked_scatter scatter scatter_ scatter_add scatter_add_ index_add index_add_
index_fill index_fill_ index_put index_put_ flip roll tile repeat repeat_interleave tril
triu diagonal trace narrow movedim swapaxes unflatten norm cross lerp fmod remainder
clamp clip nan_to_num isnan isinf isfinite isclose allclose equal addmm mv outer kron
normal_ uniform_ bernoulli_ exponential_ type to cpu cuda set_value item tolist
""".split()

FUNCTIONAL = """
pad interpolate normalize cosine_similarity
""".split()

LINALG = """
inv solve det slogdet cholesky qr eigh svd pinv lstsq matrix_power norm vector_norm
matrix_norm eig eigvals solve_triangular triangular_solve lu lu_factor lu_factor_ex
lu_solve lu_unpack cholesky_ex inv_ex matrix_exp householder_product vecdot tensorinv
tensorsolve
""".split()


@pytest.mark.parametrize("name", FUNCTIONS)
def test_module_function_exists(name):
    assert hasattr(fg, name), f"ferrograd.{name} is missing"


@pytest.mark.parametrize("name", METHODS)
def test_tensor_method_exists(name):
    assert hasattr(fg.ones([2, 2]), name), f"Tensor.{name} is missing"


@pytest.mark.parametrize("name", FUNCTIONAL)
def test_functional_exists(name):
    assert hasattr(F, name), f"ferrograd.nn.functional.{name} is missing"


@pytest.mark.parametrize("name", LINALG)
def test_linalg_exists(name):
    assert hasattr(fg.linalg, name), f"ferrograd.linalg.{name} is missing"
