"""``ferrograd.static``: static graphs (Paddle's ``paddle.static``).

Build a ``Program`` once — ops on static ``Variable``s record instead of computing, with
shapes and dtypes inferred and checked as they are recorded — then run it many times
with an ``Executor``. The program is held and run in Rust: one ``Executor.run`` crosses
into Python only for ``py_func`` callbacks.

    import ferrograd as paddle
    paddle.enable_static()
    x = paddle.static.data(name="x", shape=[-1, 4], dtype="float32")
    w = paddle.static.create_parameter([4, 2], "float32")
    loss = paddle.mean(paddle.tanh(x @ w))
    (w_grad,) = paddle.static.gradients([loss], [w])
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    loss_v, g = exe.run(feed={"x": x_np}, fetch_list=[loss, w_grad])
"""

from __future__ import annotations

from . import initializer as initializer
from . import nn as nn
from .backward import append_backward as append_backward
from .backward import gradients as gradients
from .executor import CompiledProgram as CompiledProgram
from .executor import Executor as Executor
from .inference_model import deserialize_persistables as deserialize_persistables
from .inference_model import deserialize_program as deserialize_program
from .inference_model import load_from_file as load_from_file
from .inference_model import load_inference_model as load_inference_model
from .inference_model import normalize_program as normalize_program
from .inference_model import save_inference_model as save_inference_model
from .inference_model import save_to_file as save_to_file
from .inference_model import serialize_persistables as serialize_persistables
from .inference_model import serialize_program as serialize_program
from .io import load as load
from .io import save as save
from .mode_switch import disable_static as disable_static
from .mode_switch import enable_static as enable_static
from .mode_switch import in_dynamic_mode as in_dynamic_mode
from .program import Block as Block
from .program import Program as Program
from .program import Scope as Scope
from .program import assign as assign
from .program import create_parameter as create_parameter
from .program import data as data
from .program import default_main_program as default_main_program
from .program import default_startup_program as default_startup_program
from .program import global_scope as global_scope
from .program import program_guard as program_guard
from .program import scope_guard as scope_guard
from .variable import Variable as Variable

Tensor = Variable
py_func = nn.py_func


def cpu_places(device_count: int | None = None) -> list[str]:
    """Paddle compatibility: the CPU place(s)."""
    return ["cpu"] * (device_count or 1)


from .._dropin import CPUPlace as CPUPlace  # noqa: E402  (Paddle: static.CPUPlace)

# Paddle's InputSpec (shared with ferrograd.jit.to_static)
from .._input_spec import InputSpec as InputSpec  # noqa: E402

__all__ = [
    "Block",
    "InputSpec",
    "CPUPlace",
    "CompiledProgram",
    "Executor",
    "Program",
    "Scope",
    "Tensor",
    "Variable",
    "append_backward",
    "assign",
    "cpu_places",
    "create_parameter",
    "data",
    "default_main_program",
    "default_startup_program",
    "deserialize_persistables",
    "deserialize_program",
    "disable_static",
    "enable_static",
    "gradients",
    "global_scope",
    "in_dynamic_mode",
    "initializer",
    "load",
    "load_from_file",
    "load_inference_model",
    "nn",
    "normalize_program",
    "program_guard",
    "py_func",
    "save",
    "save_inference_model",
    "save_to_file",
    "scope_guard",
    "serialize_persistables",
    "serialize_program",
]
