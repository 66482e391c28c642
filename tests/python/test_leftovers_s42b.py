"""Small findings of session 42's first round (leftovers-b): each test failed on
ferrograd before its fix. PyTorch's and Paddle's sources are cited per test."""

from __future__ import annotations

import os

import ferrograd
import ferrograd as torch
import numpy as np
import pytest
from ferrograd.nn import functional as F
from ferrograd.optim.swa_utils import AveragedModel


def _paddle_code(src: str) -> dict:
    """Runs ``src`` as code of a module that imports ferrograd as ``paddle`` (the dialect
    rule reads the calling module's globals) and returns its namespace."""
    ns: dict = {"__name__": "paddle_user_code", "paddle": ferrograd}
    exec(compile(src, "<paddle code>", "exec"), ns)
    return ns


# --- 1. dtype strings: NumPy's meaning in Paddle code --------------------------------


def test_dtype_strings_numpy_meaning_in_paddle_code_regression():
    # Paddle reads dtype strings through np.dtype (python/paddle/base/framework.py and
    # python/paddle/pir/core.py convert_np_dtype_to_dtype_): 'float' is float64, 'int'
    # int64, 'byte' int8 (NumPy's C names), also through astype / cast
    ns = _paddle_code(
        "x = paddle.ones([2])\n"
        "a = x.astype('float').dtype\n"
        "b = paddle.cast(x, 'int').dtype\n"
        "c = x.astype('byte').dtype\n"
        "d = paddle.zeros([1], dtype='float').dtype\n"
        "e = x.astype('float32').dtype\n"
        "paddle.enable_static()\n"
        "try:\n"
        "    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):\n"
        "        f = paddle.static.data('x', [2], 'float').dtype\n"
        "finally:\n"
        "    paddle.disable_static()\n"
    )
    assert ns["a"] == ferrograd.float64
    assert ns["b"] == ferrograd.int64
    assert ns["c"] == ferrograd.int8
    assert ns["d"] == ferrograd.float64
    assert ns["e"] == ferrograd.float32
    assert ns["f"] == ferrograd.float64  # test_einsum_v2.py TestNumpyTests: fed float64


def test_dtype_strings_keep_pytorchs_names_in_pytorch_code():
    # PyTorch takes no dtype strings; ferrograd's leniency reads them as torch.float /
    # torch.int / torch.byte (float32, int32, uint8) outside Paddle code
    x = torch.ones(2)
    assert x.to(dtype="float").dtype == torch.float32
    assert x.to(dtype="int").dtype == torch.int32
    assert x.to(dtype="byte").dtype == torch.uint8


# --- 2. stack of one Tensor -----------------------------------------------------------


def test_torch_stack_refuses_a_single_tensor_regression():
    # PyTorch: torch.stack(t) raises TypeError "stack(): argument 'tensors' must be tuple
    # of Tensors, not Tensor" (its argument parser); stacking the rows was silently wrong
    with pytest.raises(TypeError, match="list or tuple of Tensors, not Tensor"):
        torch.stack(torch.ones(2, 3))
    assert torch.stack(list(torch.ones(2, 3))).shape == (2, 3)  # the rows, asked for


# --- 3. as_strided_scatter on an expanded input ------------------------------------------


def test_as_strided_scatter_on_an_expanded_input_regression():
    # aten/src/ATen/native/TensorShape.cpp as_strided_scatter_symint: the output is
    # clone_preserve_strides(self), which for an input with internal overlap (a stride 0
    # over a size > 1: at::has_internal_overlap) is self.clone(), contiguous with offset
    # 0; size / stride / storage_offset address that clone
    x = torch.ones(1).expand(4)
    src = torch.tensor([5.0, 6.0])
    assert torch.as_strided_scatter(x, src, (2,), (1,), 1).tolist() == [1.0, 5.0, 6.0, 1.0]
    assert torch.as_strided_scatter(x, src, (2,), (2,)).tolist() == [5.0, 1.0, 6.0, 1.0]
    # the gradient reaches the expanded leaf through the clone
    leaf = torch.ones(1, requires_grad=True)
    out = torch.as_strided_scatter(leaf.expand(2, 3), src, (2,), (3,))
    (out * torch.arange(6.0).reshape(2, 3)).sum().backward()
    assert leaf.grad.tolist() == [1.0 + 2.0 + 4.0 + 5.0]


def test_as_strided_scatter_keeps_an_offset_inputs_memory():
    # ... and for any other input clone_preserve_strides keeps the input's strides and
    # storage offset: positions count in the input's memory, its offset by default
    base = torch.arange(10.0)
    x = base[2:6]
    out = torch.as_strided_scatter(x, torch.tensor([-1.0, -2.0]), (2,), (1,))
    assert out.tolist() == [-1.0, -2.0, 4.0, 5.0]
    out = torch.as_strided_scatter(x, torch.tensor([-1.0, -2.0]), (2,), (1,), 3)
    assert out.tolist() == [2.0, -1.0, -2.0, 5.0]


# --- 4. empty_strided / empty_permuted overflow -----------------------------------------


def test_empty_strided_overflow_is_named_regression():
    # c10/core/EmptyTensor.cpp computeStorageNbytes: "Storage size calculation overflowed
    # with sizes=... and strides=..." (RuntimeError), not a TypeError about a huge number
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.empty_strided((2**62, 4), (4, 1))
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.empty_permuted((2**62, 4), (0, 1))
    with pytest.raises(RuntimeError, match="overflowed"):  # elements past int64
        torch.empty_strided((2**40, 2**40), (0, 0))
    with pytest.raises(RuntimeError, match="overflowed"):  # bytes past int64
        torch.empty_strided((2**60,), (1,), dtype=torch.float64)
    # a count that fits int64 but not this machine is the allocation's MemoryError
    with pytest.raises(MemoryError):
        torch.empty_strided((2**40,), (1,))


# --- 5. jit.save of data-dependent Python control flow ------------------------------------


class _Branchy(torch.nn.Module):
    def __init__(self, how: str) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)
        self.how = how

    def forward(self, x):
        s = x.sum()
        if self.how == "if":
            cond = s > 0
        elif self.how == "item":
            cond = s.item() > 0
        else:
            cond = float(s) > 0
        if cond:
            return self.fc(x)
        return x


@pytest.mark.parametrize("how", ["if", "item", "float"])
def test_jit_save_refuses_data_dependent_branches_regression(tmp_path, how):
    # the capture runs forward once on static Variables that have no values; a branch on
    # one was an AttributeError ('Variable' object has no attribute 'item') or a bare
    # TypeError. CaptureError names it and the fix
    from ferrograd.static.export import CaptureError

    spec = [ferrograd.static.InputSpec([2, 3], "float32")]
    with pytest.raises(CaptureError, match="data-dependent Python control flow") as e:
        ferrograd.jit.save(_Branchy(how), os.path.join(str(tmp_path), "m"), input_spec=spec)
    assert "where(cond, a, b)" in str(e.value)
    assert isinstance(e.value, TypeError)  # as the Variable's own refusal was
    assert __file__ in str(e.value)  # the line of the user's code
    assert not os.listdir(str(tmp_path))


# --- 6. Adam(lazy_mode=) is a bool -------------------------------------------------------


def test_adam_lazy_mode_must_be_a_bool_regression():
    # Paddle passes lazy_mode to its adam_ kernel, whose argument parser
    # (paddle/fluid/pybind/eager_utils.cc CastPyArg2Boolean) takes True, False or None and
    # raises InvalidType (TypeError) "must be bool" for anything else
    w = torch.nn.Parameter(torch.ones(2))
    with pytest.raises(TypeError, match="lazy_mode must be a bool"):
        ferrograd.optimizer.Adam(parameters=[w], lazy_mode="yes")
    with pytest.raises(TypeError, match="lazy_mode must be a bool"):
        ferrograd.optimizer.AdamW(parameters=[w], lazy_mode=1)
    ferrograd.optimizer.Adam(parameters=[w], lazy_mode=None)  # None reads as False
    ferrograd.optimizer.Adam(parameters=[w], lazy_mode=False)


# --- 7. in-place clamp naming, sdpa's error class --------------------------------------


@pytest.mark.parametrize("call", ["clamp_", "clamp_min_", "clamp_max_"])
def test_inplace_clamp_on_a_leaf_names_the_method_called_regression(call):
    x = torch.ones(3, requires_grad=True)
    args = (0.0, 1.0) if call == "clamp_" else (0.5,)
    with pytest.raises(RuntimeError, match=f"^{call}: a leaf tensor that requires grad"):
        getattr(x, call)(*args)
    with pytest.raises(RuntimeError, match=f"^{call}: a view of a leaf"):
        getattr(x[:2], call)(*args)
    with pytest.raises(RuntimeError, match="^clip_: "):
        x.clip_(0.0, 1.0)


def test_sdpa_mask_and_causal_is_a_runtime_error_regression():
    # aten/src/ATen/native/transformers/attention.cpp (_scaled_dot_product_attention_math)
    # TORCH_CHECK: "Explicit attn_mask should not be set when is_causal=True"
    # (RuntimeError); ferrograd raised ValueError: the error is both
    q = torch.ones(1, 2, 3, 4)
    for cls in (RuntimeError, ValueError):
        with pytest.raises(cls, match="Explicit attn_mask should not be set"):
            F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(3, 3), is_causal=True)


# --- 8. AveragedModel(use_buffers=True) and integer buffers ------------------------------


def _bn_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3))


def test_averaged_model_averages_integer_buffers_as_pytorch_regression():
    # torch/optim/swa_utils.py AveragedModel.update_parameters: with use_buffers=True every
    # buffer is averaged; on the CPU the default is get_swa_avg_fn tensor by tensor,
    # avg + (p - avg) / (n + 1), written back with copy_, which truncates an integer
    # buffer toward zero: num_batches_tracked 1, then 1 + (2 - 1) / 2 -> 1, then
    # 1 + (3 - 1) / 3 -> 1
    model = _bn_model()
    avg = AveragedModel(model, use_buffers=True)
    seen = []
    for _ in range(3):
        model(torch.randn(4, 3))
        avg.update_parameters(model)
        seen.append(int(avg.module[1].num_batches_tracked))
    assert seen == [1, 1, 1]
    assert int(model[1].num_batches_tracked) == 3


def test_averaged_model_without_use_buffers_copies_the_buffers():
    # the same function: "If not apply running averages to the buffers, keep the buffers
    # in sync with the source model" (every call)
    model = _bn_model()
    avg = AveragedModel(model)
    for _ in range(2):
        model(torch.randn(4, 3))
        avg.update_parameters(model)
    np.testing.assert_array_equal(avg.module[1].running_mean.numpy(), model[1].running_mean.numpy())
    assert int(avg.module[1].num_batches_tracked) == 2
