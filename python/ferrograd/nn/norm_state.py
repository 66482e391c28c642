"""The state-dict version of PyTorch's batch and instance norms (``_NormBase`` in
``torch/nn/modules/batchnorm.py``): ``_version`` 2, and loading a checkpoint of an earlier
version (or of none: a state dict without ``_metadata``) that lacks ``num_batches_tracked``
(added in version 2)."""

from __future__ import annotations

from typing import Any

from .. import _core
from .module_state_load import defers_copies


class NormStateVersion:
    """Mixin of ``_BatchNormTorch`` / ``_InstanceNormTorch`` (before ``Module`` in the
    bases): PyTorch's ``_NormBase._version`` and ``_load_from_state_dict``."""

    _version = 2

    @defers_copies
    def _load_from_state_dict(
        self,
        state_dict: Any,
        prefix: str,
        local_metadata: Any,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """A version None or < 2 checkpoint without ``num_batches_tracked`` loads the
        module's current count (0 for a new module), as PyTorch 2.x's ``_NormBase``; then
        the base ``_load_from_state_dict``."""
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and getattr(self, "track_running_stats", False):
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                current = self.__dict__["_buffers"].get("num_batches_tracked")
                state_dict[key] = current if current is not None else _core.tensor(0, dtype="int64")
        # (a mixin: Module comes next in the bases)
        super()._load_from_state_dict(  # type: ignore[misc]
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
            error_msgs,
        )  # fmt: skip
