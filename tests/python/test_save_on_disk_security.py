"""save_on_disk: the saved activations survive the cyclic garbage collector (issue 16
item 3) and the files are created exclusively, never through planted symlinks, under
unpredictable names with owner-only permissions (item 15)."""

from __future__ import annotations

import gc
import os
import stat
import sys

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd.graph import save_on_disk

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def forward(x):
    return ((x * 2.0).tanh() * x).sum()


def test_cyclic_gc_between_forward_and_backward_keeps_the_saved_files():
    x = fg.randn(6, dtype="float64", requires_grad=True)
    ref = fg.grad(forward(x), x)[0].numpy()
    with save_on_disk():  # the README's pattern: no reference to the hook is kept
        y = forward(x)
    junk = [[i] for i in range(10_000)]  # ordinary allocations, then a full collection
    del junk
    gc.collect()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), ref)


def test_a_temporary_directory_lives_until_the_last_graph_using_it_is_freed():
    x = fg.randn(4, dtype="float64", requires_grad=True)
    hook = save_on_disk()
    directory = hook.directory
    with hook:
        y = forward(x)
    del hook
    gc.collect()
    assert os.path.isdir(directory), "the graph still needs its files"
    y.backward()
    del y
    gc.collect()
    assert not os.path.exists(directory), "nothing uses the directory any more"


@posix_only
def test_files_are_owner_only_and_a_new_directory_is_0700(tmp_path):
    target = tmp_path / "made-here"
    x = fg.randn(3, requires_grad=True)
    seen = []
    hook = save_on_disk(str(target))
    with hook:
        y = forward(x)
        seen = os.listdir(target)
        modes = [stat.S_IMODE(os.stat(target / n).st_mode) for n in seen]
        bf = fg.randn(3, requires_grad=True).astype("bfloat16")  # the NumPy-copy path
        z = (bf * bf).sum()
    assert seen and all(m == 0o600 for m in modes), [oct(m) for m in modes]
    new = set(os.listdir(target)) - set(seen)
    assert new and all(stat.S_IMODE(os.stat(target / n).st_mode) == 0o600 for n in new)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o700
    tmp_owned = save_on_disk()
    assert stat.S_IMODE(os.stat(tmp_owned.directory).st_mode) == 0o700
    y.backward()
    z.backward()


def test_names_are_unpredictable(tmp_path):
    x = fg.randn(3, requires_grad=True)
    with save_on_disk(str(tmp_path)):
        y = forward(x)
    names = os.listdir(tmp_path)
    assert len(names) >= 2
    assert str(os.getpid()) not in "".join(names)
    # the random part is 128 bits of hex
    assert all(len(n.removeprefix("saved-").removesuffix(".bin")) == 32 for n in names)
    del y


@posix_only
def test_a_planted_symlink_is_never_followed(tmp_path, monkeypatch):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    shared = tmp_path / "shared"
    shared.mkdir()
    # predict the "random" name by fixing the random source, and plant a link there
    import secrets

    monkeypatch.setattr(secrets, "token_hex", lambda n=16: "0" * 32)
    os.symlink(victim, shared / ("saved-" + "0" * 32 + ".bin"))
    x = fg.randn(3, requires_grad=True)
    with pytest.raises(OSError):
        with save_on_disk(str(shared)):
            forward(x)
    assert victim.read_text() == "precious"
    bf = fg.randn(3, requires_grad=True).astype("bfloat16")  # the Python-side writer
    with pytest.raises(OSError):
        with save_on_disk(str(shared)):
            (bf * bf).sum()
    assert victim.read_text() == "precious"
