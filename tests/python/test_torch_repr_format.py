"""PyTorch code keeps PyTorch's ``tensor([...])`` look (Paddle's is only for Paddle code,
tests/python/test_paddle_repr.py); ``print(parameter)`` shows the "Parameter
containing:" header, as ``torch.nn.Parameter.__repr__`` does for ``str`` too; a 0-d
tensor formats as its value (``Tensor.__format__``: ``self.item().__format__(spec)``)."""

import ferrograd as torch


def test_torch_look_kept():
    assert repr(torch.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    p = torch.nn.Parameter(torch.ones(2))
    assert str(p) == repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"


def test_format_zero_d():
    loss = torch.tensor(0.123456)
    assert f"loss {loss:.4f}" == "loss 0.1235"
    # an empty spec too: torch's __format__ formats the item (f"{t}" of a 0-d tensor)
    assert f"{torch.tensor(True)}" == "True" and f"{torch.tensor(2.5)}" == "2.5"
    assert f"{torch.ones(1)}" == str(torch.ones(1))


def test_size_keeps_torch_look():
    assert repr(torch.zeros(2, 3).shape) == "ferrograd.Size([2, 3])"
