"""Whole objects in a ferrograd ``.npz`` file: ``torch.save(model, path)`` and
``torch.load(path, weights_only=False)`` (PyTorch's "Save/Load Entire Model").

An object that the JSON manifest cannot describe (a ``Module``, an optimizer, any user
class, a set, an object array, a dict with keys other than ``str``/``int``...) is pickled
into a uint8 array member (``p0``, ``p1``, ...) and described by the node
``{"kind": "pickle", "key": "p0", "type": "__main__.Net", "tensors": [NODE, ...]}``.
The pickle holds no tensor data: a ``persistent_id`` hands every Tensor / Parameter /
sparse tensor it meets to the writer's tensor or sparse node code (so each storage is
written once for the whole file, tied weights stay one object, strides are kept) and
keeps only its index in ``tensors`` (with the attributes set on the tensor, such as
Paddle's ``_in_out_layout``, when it has any).

Loading unpickles, which can run arbitrary code; ``load`` refuses a pickle node unless
the caller passes ``weights_only=False`` (PyTorch >= 2.6's rule and words), and then builds
the tensor nodes through the validating reader before unpickling with ``persistent_load``
returning them. ``type`` only names the class in messages; it is never trusted.
"""

from __future__ import annotations

import io
import pickle
import types
from typing import Any, Callable

import numpy as np

from . import _core

Tensor = _core.Tensor

# PyTorch's torch/serialization.py (load, UNSAFE_MESSAGE), word for word
UNSAFE_MESSAGE = (
    "Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)


class SavePickleError(TypeError, pickle.PicklingError):
    """``save`` could not pickle an object: a ``TypeError`` (what ``save`` raises for
    what it cannot store) that is also pickle's ``PicklingError`` (what ``torch.save``
    raises)."""


def pickle_settings(protocol: Any, kwargs: dict[str, Any]) -> tuple[Any, int]:
    """``save``'s pickle module and protocol: Paddle's ``protocol`` (third positional
    argument) or PyTorch's ``pickle_protocol``; a module passed third is PyTorch's
    positional ``pickle_module``. The protocol is checked when it is used."""
    module = kwargs.get("pickle_module")
    if isinstance(protocol, types.ModuleType):
        module, protocol = protocol, None
    if protocol is None:
        protocol = kwargs.get("pickle_protocol")
    if protocol is None:
        protocol = pickle.DEFAULT_PROTOCOL
    return module or pickle, protocol


def load_settings(weights_only: Any, kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """``load``'s ``(weights_only, pickle_module)`` as ``torch.load`` settles them: a
    module passed third is its positional ``pickle_module``; ``weights_only`` defaults to
    True unless a ``pickle_module`` is given, and cannot be True with one."""
    module = kwargs.get("pickle_module")
    if isinstance(weights_only, types.ModuleType):  # torch.load(f, map_location, pickle)
        module, weights_only = weights_only, None
    if weights_only is None:
        weights_only = module is None
    if weights_only and module is not None:
        raise RuntimeError(  # PyTorch's words (torch/serialization.py, load)
            "Can not safely load weights when explicit pickle_module is specified"
        )
    return bool(weights_only), module


def unfit(obj: Any) -> tuple:
    """``()`` when the JSON manifest describes ``obj`` without pickle (``_Writer.node``'s
    kinds: tensors, sparse tensors, non-object arrays, numbers, strings, None, and dicts
    with ``str``/``int`` keys, lists and tuples of them); else ``(x,)``, ``x`` the first
    thing in it that needs pickle (``RecursionError`` for a list holding itself)."""
    from .sparse._base import SparseTensor

    if isinstance(obj, (Tensor, SparseTensor, bool, int, str, float)) or obj is None:
        return ()
    if isinstance(obj, np.ndarray):
        return (obj,) if obj.dtype == object else ()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                return (k,)
            found = unfit(v)
            if found:
                return found
        return ()
    if isinstance(obj, (list, tuple)):
        for v in obj:
            found = unfit(v)
            if found:
                return found
        return ()
    if isinstance(obj, np.generic):
        return unfit(obj.item())
    return (obj,)


def _check_protocol(protocol: Any) -> int:
    ok = isinstance(protocol, int) and not isinstance(protocol, bool)
    if not ok or not 2 <= protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(
            f"save: pickle protocol {protocol!r}; pass an int from 2 to "
            f"{pickle.HIGHEST_PROTOCOL} (ferrograd's persistent tensor ids need protocol 2+)"
        )
    return protocol


def _tensor_state(t: Any) -> dict:
    """The attributes a saved tensor keeps: its ``__dict__`` less ferrograd's own
    ``_fg_`` entries (as ``pickle.dumps(tensor)`` keeps them)."""
    from ._dropin import _pickled_state

    return _pickled_state(t)


def _optimizer_reduce(opt: Any) -> Any:
    """An optimizer as ``object.__reduce_ex__`` gives it, except that each Rust
    ``ParamGroupState`` (not picklable) becomes its per-parameter buffers and step counts,
    rebuilt over the group's own parameters by ``_restore_optimizer``."""
    state = dict(opt.__dict__)
    groups = state.pop("_group_states")
    state["_fg_group_states"] = [
        [(list(st.buffers(i)), int(st.step_count(i))) for i in range(len(st))] for st in groups
    ]
    return (_new_object, (type(opt),), state, None, None, _restore_optimizer)


def _new_object(cls: Any) -> Any:
    """An instance of ``cls`` made without ``__init__`` (its state is set next)."""
    return cls.__new__(cls)


def _restore_optimizer(opt: Any, state: dict) -> None:
    """Sets an unpickled optimizer's attributes and remakes its group states."""
    snapshot = state.pop("_fg_group_states", None)
    opt.__dict__.update(state)
    groups = opt.__dict__.get("param_groups")
    if not isinstance(snapshot, list) or not isinstance(groups, list):
        raise ValueError("a pickled optimizer has no group states and param_groups")
    if len(snapshot) != len(groups):
        raise ValueError(
            f"a pickled optimizer has {len(snapshot)} group states for {len(groups)} groups"
        )
    made = []
    for group, saved in zip(groups, snapshot):
        st = _core.ParamGroupState(group["params"])
        if len(saved) != len(st):
            raise ValueError("a pickled optimizer's group state does not match its group")
        for i, (buffers, step) in enumerate(saved):
            if buffers or step:
                st.set_state(i, buffers, step)
        made.append(st)
    opt._group_states = made


def _type_name(obj: Any) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def pickle_node(writer: Any, obj: Any, where: str, module: Any, protocol: Any, reason: Any) -> dict:
    """Pickles ``obj`` into a new member and returns its ``pickle`` node; its tensors
    become tensor / sparse nodes written by ``writer``. The node's ``type`` names the
    class of ``reason``, the first thing in ``obj`` that needs pickle (for messages)."""
    from .nn.lazy import UninitializedParameter
    from .nn.lazy_more import UninitializedBuffer
    from .nn.parameter import Parameter
    from .optim.optimizer import Optimizer
    from .sparse._base import SparseTensor

    lazy = (UninitializedParameter, UninitializedBuffer)

    protocol = _check_protocol(protocol)
    nodes: list[dict] = []
    index: dict[int, int] = {}
    base: Any = getattr(module, "Pickler", None)
    if not isinstance(base, type):
        raise TypeError(f"save: pickle_module {module!r} has no Pickler class")

    # the chosen module's Pickler, subclassed with type() (a class statement inside a
    # function confuses stubtest's view of this module's __all__)
    def persistent_id(self, o: Any) -> Any:
        if not isinstance(o, (Tensor, SparseTensor)) or type(o) in lazy:
            return None  # (a lazy module's placeholder: see reducer_override)
        if isinstance(o, Tensor) and type(o) not in (Tensor, Parameter):
            raise SavePickleError(
                f"save: {where} holds a tensor of class {_type_name(o)}, which "
                f"ferrograd.save cannot keep; store a plain Tensor or Parameter"
            )
        i = index.get(id(o))
        if i is not None:
            return i
        i = index[id(o)] = len(nodes)
        writer.keep(o)  # (a temporary too) alive until the file is written
        nodes.append(writer.node(o, f"{where}<tensor {i}>"))
        state = _tensor_state(o) if isinstance(o, Tensor) else {}
        # its attributes ride along the first time (they may refer to the tensor)
        return (i, state) if state else i

    def reducer_override(self, o: Any) -> Any:
        if isinstance(o, Optimizer) and "_group_states" in getattr(o, "__dict__", {}):
            return _optimizer_reduce(o)
        if type(o) in lazy:  # a fresh placeholder, as PyTorch pickles one
            return (type(o), (bool(o.requires_grad), o.dtype))
        return NotImplemented

    _Pickler: Any = type(
        "_Pickler", (base,), {"persistent_id": persistent_id, "reducer_override": reducer_override}
    )

    buf = io.BytesIO()
    try:
        _Pickler(buf, protocol=protocol).dump(obj)
    except SavePickleError:
        raise
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as e:
        raise SavePickleError(
            f"save: {where} (a {_type_name(obj)}) needs pickle, and pickle cannot store "
            f"what it holds: {e}"
        ) from e
    key = f"p{sum(k.startswith('p') for k in writer.arrays)}"
    writer.arrays[key] = np.frombuffer(buf.getvalue(), dtype=np.uint8)
    return {"kind": "pickle", "key": key, "type": _type_name(reason), "tensors": nodes}


def unpickler(
    tensors: list, bad: type[Exception], module: Any = None, encoding: str = "utf-8"
) -> Callable[[np.ndarray, str], Any]:
    """The function that unpickles a ``pickle`` node's member with ``persistent_load``
    giving the node's (already built) ``tensors``; ``bad`` is the reader's malformed-file
    error, raised for a pickle that does not unpickle."""
    base: Any = getattr(module or pickle, "Unpickler", None)
    if not isinstance(base, type):
        raise TypeError(f"load: pickle_module {module!r} has no Unpickler class")

    def run(raw: np.ndarray, where: str) -> Any:
        def persistent_load(self, pid: Any) -> Any:
            state: Any = None
            if isinstance(pid, tuple) and len(pid) == 2:
                pid, state = pid
                if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
                    raise bad(f"its pickled object at {where} gives a tensor {state!r}")
            if isinstance(pid, bool) or not isinstance(pid, int) or not 0 <= pid < len(tensors):
                raise bad(f"its pickled object at {where} names tensor {pid!r} of {len(tensors)}")
            t = tensors[pid]
            if state:
                t.__dict__.update(state)
            return t

        _Unpickler: Any = type("_Unpickler", (base,), {"persistent_load": persistent_load})

        try:
            return _Unpickler(io.BytesIO(raw.tobytes()), encoding=encoding).load()
        except bad:
            raise
        except (
            pickle.UnpicklingError, EOFError, ValueError, IndexError, KeyError, TypeError,
            OverflowError, RecursionError, MemoryError,
        ) as e:  # fmt: skip
            # (a class the pickle names but this program lacks stays an AttributeError /
            # ImportError, as torch.load gives: the file is fine, the program is not)
            name = type(e).__name__
            raise bad(f"its pickled object at {where} cannot be unpickled ({name}: {e})") from None

    return run


def refusal(name: str, where: str, type_name: Any, paddle: bool) -> pickle.UnpicklingError:
    """The error for a pickle node met by a weights-only ``load``: PyTorch's
    ``pickle.UnpicklingError`` with its words; in Paddle code, words of its own (Paddle's
    ``paddle.load`` has no ``weights_only``)."""
    what = f" (with a {type_name[:200]} in it)" if isinstance(type_name, str) else ""
    detail = (
        f"{name} holds a pickled object{what} at {where}: it was saved with more than "
        f"tensors, arrays, numbers, strings, None and dicts/lists/tuples of them, and a "
        f"weights-only load never unpickles."
    )
    if paddle:
        return pickle.UnpicklingError(
            f"paddle.load: {detail} ferrograd loads files holding pickled objects only with "
            f"`paddle.load(path, weights_only=False)` (Paddle's own paddle.load has no such "
            f"switch), which can result in arbitrary code execution. Do it only if you got "
            f"the file from a trusted source."
        )
    return pickle.UnpicklingError(f"Weights only load failed. {UNSAFE_MESSAGE}\n\n{detail}")


__all__ = ["SavePickleError", "pickle_node", "pickle_settings", "refusal", "unpickler"]
