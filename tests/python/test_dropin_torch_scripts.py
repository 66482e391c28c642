"""Gaps found running PyTorch tutorial-style scripts with only the import line changed
(session 17): container item assignment and the less common ``nn.init`` fills."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd import nn


def test_sequential_item_assignment_keeps_the_place():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    new_first = nn.Linear(3, 4)
    model[0] = new_first
    assert model[0] is new_first
    assert [n for n, _ in model.named_children()] == ["0", "1", "2"]
    x = torch.randn(5, 3)
    want = model[2](model[1](new_first(x)))
    np.testing.assert_array_equal(model(x).detach().numpy(), want.detach().numpy())
    model[-1] = nn.Identity()
    assert model(x).shape == [5, 4]
    with pytest.raises(IndexError):
        model[3] = nn.ReLU()


def test_sequential_and_module_list_delete_and_insert_renumber():
    a, b, c = nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1)
    seq = nn.Sequential(a, b, c)
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1"] and seq[1] is c
    assert list(seq.state_dict().keys()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    seq.insert(1, b)
    assert [type(m).__name__ for m in seq] == ["Linear", "Tanh", "Linear"]
    seq.extend([nn.Sigmoid()])
    assert len(seq) == 4
    del seq[:2]
    assert seq[0] is c
    ml = nn.ModuleList([a, b])
    ml[1] = c
    ml.insert(0, b)
    assert list(ml) == [b, a, c]
    del ml[0]
    assert list(ml) == [a, c] and [n for n, _ in ml.named_children()] == ["0", "1"]


def test_orthogonal_is_orthogonal_with_gain():
    torch.manual_seed(1)
    w = torch.empty(3, 5, dtype=torch.float64)
    nn.init.orthogonal_(w, gain=2.0)
    np.testing.assert_allclose(
        w.detach().numpy() @ w.detach().numpy().T, 4.0 * np.eye(3), atol=1e-12
    )
    w = torch.empty(6, 2, 2, dtype=torch.float64)  # rows > cols of the [6, 4] view
    nn.init.orthogonal_(w)
    flat = w.detach().numpy().reshape(6, 4)
    np.testing.assert_allclose(flat.T @ flat, np.eye(4), atol=1e-12)


def test_trunc_normal_stays_inside_and_keeps_the_moments():
    torch.manual_seed(2)
    w = torch.empty(20000, dtype=torch.float64)
    nn.init.trunc_normal_(w, mean=1.0, std=2.0, a=0.0, b=3.0)
    v = w.detach().numpy()
    assert v.min() >= 0.0 and v.max() <= 3.0
    # the truncated normal on [mean - 0.5 std, mean + std]: mean = mu + s (phi(al) - phi(be)) / Z
    phi = lambda t: np.exp(-t * t / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    cdf = lambda t: 0.5 * (1 + np.vectorize(__import__("math").erf)(t / np.sqrt(2)))  # noqa: E731
    al, be = -0.5, 1.0
    want = 1.0 + 2.0 * (phi(al) - phi(be)) / (cdf(be) - cdf(al))
    assert abs(v.mean() - want) < 0.03
    w = torch.empty(20000)
    nn.initializer.TruncatedNormal(mean=5.0, std=2.0, a=4.0, b=6.0)(w)
    assert 4.0 <= float(w.min()) and float(w.max()) <= 6.0
    with pytest.raises(ValueError, match="6 std"):
        nn.init.trunc_normal_(torch.empty(3), mean=0.0, std=0.0, a=1.0, b=2.0)


def test_eye_dirac_assign():
    w = torch.empty(2, 3)
    np.testing.assert_array_equal(nn.init.eye_(w).detach().numpy(), np.eye(2, 3))
    conv = nn.Conv2d(2, 2, 3, padding=1, bias=False)
    nn.init.dirac_(conv.weight)
    x = torch.randn(1, 2, 4, 4)
    np.testing.assert_allclose(conv(x).detach().numpy(), x.detach().numpy(), rtol=1e-6, atol=1e-6)
    p = torch.empty(2, 2)
    nn.initializer.Assign(np.array([[1.0, 2.0], [3.0, 4.0]]))(p)
    np.testing.assert_array_equal(p.detach().numpy(), [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="shape"):
        nn.initializer.Assign([1.0, 2.0])(p)


def test_backends_and_cuda_answer_as_a_cpu_only_pytorch():
    # pytorch/examples' mnist: `use_mps = torch.backends.mps.is_available()`
    import ferrograd.backends.cudnn as cudnn

    assert not torch.backends.mps.is_available() and not torch.backends.mps.is_built()
    assert not torch.backends.cudnn.is_available() and torch.backends.cudnn.version() is None
    cudnn.benchmark = True  # a switch scripts set: kept, selects nothing
    assert torch.backends.cudnn.benchmark is True
    cudnn.benchmark = False
    assert not torch.backends.cuda.is_built() and not torch.backends.cuda.matmul.allow_tf32
    assert torch.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    torch.cuda.manual_seed_all(0)
    torch.cuda.empty_cache()
    assert torch.cuda.memory_allocated() == 0 and not torch.cuda.is_bf16_supported()
    with pytest.raises(RuntimeError, match="no GPU backend"):
        torch.cuda.synchronize()


def test_cuda_amp_disables_itself_with_a_warning_and_training_still_steps():
    lin = nn.Linear(2, 1)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    with pytest.warns(UserWarning, match="GradScaler is enabled, but ferrograd has no GPU"):
        scaler = torch.cuda.amp.GradScaler()
    with pytest.warns(UserWarning, match="autocast is enabled"):
        ctx = torch.cuda.amp.autocast()
    before = lin.weight.detach().numpy().copy()
    with ctx:
        loss = lin(torch.ones(1, 2)).sum()
    assert loss.dtype == torch.float32
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(lin.weight.detach().numpy(), before - 0.1)


def test_itemsize_and_nbytes():
    x = torch.ones(4, 5)
    assert x.itemsize == 4 and x.nbytes == 80
    assert (
        torch.ones(3, dtype=torch.float64).nbytes == 24
        and torch.ones(2, dtype=torch.int8).itemsize == 1
    )
