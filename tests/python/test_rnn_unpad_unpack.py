"""``nn.utils.rnn.unpad_sequence`` / ``unpack_sequence``: the inverses of ``pad_sequence``
and ``pack_sequence`` (values as PyTorch 2.15 gives them), differentiable."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.nn.utils.rnn import pack_sequence, pad_sequence, unpack_sequence, unpad_sequence


def _seqs():
    rng = np.random.default_rng(7)
    return [torch.tensor(rng.standard_normal((n, 2)), requires_grad=True) for n in (3, 1, 4)]


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_inverts_pad(batch_first):
    seqs = _seqs()
    padded = pad_sequence(seqs, batch_first=batch_first, padding_value=-9.0)
    back = unpad_sequence(padded, torch.tensor([3, 1, 4]), batch_first=batch_first)
    assert [b.shape for b in back] == [s.shape for s in seqs]
    for b, s in zip(back, seqs):
        np.testing.assert_array_equal(b.detach().numpy(), s.detach().numpy())
    sum(b.sum() for b in back).backward()
    for s in seqs:  # each element reached once; the padding never
        np.testing.assert_array_equal(s.grad.numpy(), np.ones(s.shape))


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_unpack_inverts_pack_in_the_given_order(enforce_sorted):
    seqs = _seqs()
    if enforce_sorted:
        seqs = sorted(seqs, key=lambda s: -s.shape[0])
    back = unpack_sequence(pack_sequence(seqs, enforce_sorted=enforce_sorted))
    for b, s in zip(back, seqs, strict=True):
        np.testing.assert_array_equal(b.detach().numpy(), s.detach().numpy())


def test_unpad_checks_lengths():
    padded = pad_sequence(_seqs())
    with pytest.raises(ValueError, match="lengths"):
        unpad_sequence(padded, [3, 1])
    with pytest.raises(ValueError, match=r"\[1, 4\]"):
        unpad_sequence(padded, [3, 1, 5])
