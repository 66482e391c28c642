"""Paddle's global flags, ``paddle.set_flags`` / ``paddle.get_flags``, for the flags whose
request ferrograd already satisfies (so setting them changes nothing it computes):

* ``FLAGS_sort_sum_gradient``: sum the gradients that reach one tensor from several uses
  in a fixed order (Paddle: the reverse of the forward order, so results repeat exactly).
  ferrograd's engine always accumulates in one deterministic order, whatever the value.
* ``FLAGS_call_stack_level``: how much of the C++ / Python call stack Paddle's error
  messages show. ferrograd's errors are Python exceptions with their whole traceback.

Any other flag is refused with a ``ValueError`` naming it (as Paddle refuses flags it
does not know): a flag that changes behaviour must not be accepted and then ignored.
"""

from __future__ import annotations

import builtins
from typing import Any

__all__ = ["set_flags", "get_flags"]

# name -> (type, value); the values only report what was set
_FLAGS: dict[str, list[Any]] = {
    "FLAGS_sort_sum_gradient": [builtins.bool, False],
    "FLAGS_call_stack_level": [builtins.int, 1],
}


def _known(name: Any, what: str) -> list[Any]:
    flag = _FLAGS.get(name) if isinstance(name, str) else None
    if flag is None:
        raise ValueError(
            f"{what}: flag {name!r} is not supported by ferrograd (it has only "
            f"{', '.join(sorted(_FLAGS))}, whose behaviour it always has)"
        )
    return flag


def set_flags(flags: dict[str, Any]) -> None:
    """Sets Paddle global flags, e.g. ``set_flags({"FLAGS_sort_sum_gradient": True})``.

    Only the flags listed in this module's docs are known; their values are recorded (for
    :func:`get_flags`) and change nothing, since ferrograd already behaves as they ask.
    Another name is a ``ValueError``; a value of the wrong type a ``TypeError``.
    """
    if not isinstance(flags, dict):
        raise TypeError(
            f"set_flags: flags must be a dict of name -> value, got {type(flags).__name__}"
        )
    checked = []
    for name, value in flags.items():
        kind, _ = _known(name, "set_flags")
        ok = isinstance(value, kind) and (
            kind is builtins.bool or not isinstance(value, builtins.bool)
        )
        if not ok:
            article = "an" if kind is builtins.int else "a"
            raise TypeError(
                f"set_flags: {name} takes {article} {kind.__name__}, "
                f"got {type(value).__name__} {value!r}"
            )
        checked.append((name, value))
    for name, value in checked:  # all or nothing
        _FLAGS[name][1] = value


def get_flags(flags: str | list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The values of Paddle global flags, as ``{name: value}`` (``flags``: a name or a
    list of names; see :func:`set_flags` for the known ones)."""
    names = [flags] if isinstance(flags, str) else list(flags)
    return {name: _known(name, "get_flags")[1] for name in names}
