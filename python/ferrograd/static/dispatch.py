"""Module functions called with static Variables: the ``__ferrograd_function__``
handler of ``Variable``.

``ferrograd.tanh``, ``ferrograd.add``, ``F.relu``, ``ferrograd.concat`` ... are
``OpFunction``s (``src/python/static_graph/dispatch.rs``): a call whose first argument is a
Tensor runs eagerly at once; any other call looks for an argument whose type defines
``__ferrograd_function__`` and hands it ``(name, args, kwargs)``. ``Variable``'s
handler is ``record_call``: the op is recorded into the Variable's program through the
Variable method of the same name (or one of ``FUNCTIONS`` when the first argument is not
a single tensor, or a traced op of ``eager_ops`` for the functions without an op kind of
their own), so no function in the ``ferrograd`` namespace is ever replaced.
"""

from __future__ import annotations

from typing import Any

from .._traced_op_names import FUNCTIONAL_OPS, TENSOR_OPS
from .creation import LIKE_FUNCTIONS
from .eager_ops import record_function
from .functions import FUNCTIONS, first_variable
from .variable import Variable

_TRACED = frozenset(TENSOR_OPS) | frozenset(FUNCTIONAL_OPS)
#: the names the peers give a function's tensor parameter (Paddle: ``x``, Paddle's older
#: and PyTorch's: ``input``)
_TENSOR_KEYWORDS = ("x", "input")


def _scan(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Variable | None:
    items = list(args) + list(kwargs.values())
    if args and isinstance(args[0], (list, tuple)):
        items += list(args[0])
    return first_variable(items)


def record_call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Records the module function ``name`` called with ``args``/``kwargs`` (at least one
    of them a static Variable) into that Variable's program."""
    static = FUNCTIONS.get(name) or LIKE_FUNCTIONS.get(name)
    if static is not None:
        return static(*args, **kwargs)
    if name in _TRACED:
        # an eager function run as one op when the program runs (static/eager_ops.py)
        return record_function(name, args, kwargs)
    var = _scan(args, kwargs)
    if var is None:  # (the dispatcher calls only when a Variable is among the arguments)
        raise TypeError(f"{name}: expected a static Variable among the arguments")
    if not args:
        # keyword-only call (``paddle.sort(x=v, axis=1)``, ``paddle.unbind(input=v)``):
        # the tensor parameter becomes the Variable method's receiver
        key = next((k for k in _TENSOR_KEYWORDS if k in kwargs), None)
        if key is None:
            raise TypeError(
                f"{name}: pass the variable positionally (or as x= / input=) in static programs"
            )
        kwargs = dict(kwargs)
        args = (kwargs.pop(key),)
    first = args[0] if isinstance(args[0], Variable) else var.block._as_variable(args[0], like=var)
    method = getattr(first, name, None)
    if method is None:
        raise TypeError(
            f"ferrograd.{name} is not supported in static programs (see the list of static "
            "ops in docs/static.md); compute it in dynamic mode or with static.nn.py_func"
        )
    return method(*args[1:], **kwargs)


__all__ = ["record_call"]
