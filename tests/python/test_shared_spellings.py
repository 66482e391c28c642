"""`max` / `min` with a dimension: Paddle's values, PyTorch's `(values, indices)`.

The dialect of a call comes from the calling module's import line (`ferrograd._dialect`);
each snippet below runs as a module of its own with ferrograd bound to the name a ported
program uses.
"""

from __future__ import annotations

import sys

import ferrograd as fg
import numpy as np
import pytest

A = np.array([[1.0, 5.0, 2.0, 5.0], [7.0, 0.0, 3.0, -1.0]])


def _run(src: str, name: str | None, module: str = "user_script", **names) -> dict:
    """Runs `src` as module `module` whose globals name ferrograd `name` (None: `fg`) and
    hold `names`."""
    g: dict = {"__name__": module, "np": np, "A": A, **names}
    g[name or "fg"] = fg
    exec(compile(src, "<user_script>", "exec"), g)
    return g


def test_the_pytorch_tutorial_idiom_gives_the_indices_at_batch_two():
    # with values only, `_, pred = ...` silently unpacked the two row maxima
    g = _run("_, pred = torch.max(torch.tensor(A), 1)", "torch")
    assert g["pred"].tolist() == [1, 0] and g["pred"].dtype == fg.int64
    g = _run("pred = torch.tensor(A).max(1)[1]", "torch")
    assert g["pred"].tolist() == [1, 0]
    g = _run("r = torch.tensor(A).min(dim=1, keepdim=True)", "torch")
    assert g["r"].values.shape == [2, 1] and g["r"].indices.tolist() == [[0], [3]]


def test_paddle_code_gets_the_values():
    src = "a = paddle.max(paddle.to_tensor(A), 1); b = paddle.to_tensor(A).min(axis=0)"
    g = _run(src, "paddle")
    np.testing.assert_array_equal(g["a"].numpy(), A.max(1))
    np.testing.assert_array_equal(g["b"].numpy(), A.min(0))
    # even with `torch` aliased process-wide: the module's own name decides
    saved = sys.modules.get("torch")
    sys.modules["torch"] = fg
    try:
        g = _run("a = paddle.to_tensor(A).max(1)", "paddle")
    finally:
        if saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = saved
    assert isinstance(g["a"], fg.Tensor)


def test_neutral_code_follows_the_keyword():
    x = fg.tensor(A)
    np.testing.assert_array_equal(fg.max(x, 1).numpy(), A.max(1))  # default: values
    np.testing.assert_array_equal(x.max(axis=1).numpy(), A.max(1))
    v, i = x.max(dim=1)  # PyTorch's keyword: the pair
    assert v.tolist() == [5.0, 7.0] and i.tolist() == [1, 0]
    assert type(x.min(dim=0)).__name__ == "MinResult"
    np.testing.assert_array_equal(x.max(dim=[0, 1]).numpy(), A.max())  # several dims
    with pytest.raises(TypeError, match="both axis= .* and dim="):
        x.max(1, dim=1)


def test_process_wide_alias_decides_for_neutral_modules_but_not_for_ferrograd():
    saved = sys.modules.get("torch")
    sys.modules["torch"] = fg
    try:
        r = _run("r = fg.tensor(A).max(1)", None)["r"]
        # ferrograd's own modules keep the values whatever the aliases
        own = _run("r = fg.tensor(A).max(1)", None, module="ferrograd.nn.some_layer")["r"]
    finally:
        if saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = saved
    assert r.indices.tolist() == [1, 0]
    np.testing.assert_array_equal(own.numpy(), A.max(1))


def test_gradient_goes_to_the_first_extreme_only():
    # PyTorch's rule for max(dim); the values-only reduction shares ties
    x = fg.tensor(A, requires_grad=True)
    x.max(dim=1).values.sum().backward()
    assert x.grad.tolist() == [[0, 1, 0, 0], [1, 0, 0, 0]]
    y = fg.tensor(A, requires_grad=True)
    y.max(1).sum().backward()
    assert y.grad.tolist() == [[0, 0.5, 0, 0.5], [1, 0, 0, 0]]


def test_pair_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(0)
    x = fg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    for op in ("max", "min"):
        for d in (0, 1, -1):
            f = lambda t, op=op, d=d: getattr(t, op)(dim=d, keepdim=d == 0).values  # noqa: E731
            assert fg.autograd.gradcheck(f, (x,))
            assert fg.autograd.gradgradcheck(f, (x,))


def test_pair_against_numpy_for_dtypes_nan_and_0d():
    for dtype in ("float32", "float64", "int32", "int64"):
        x = fg.tensor(A).astype(dtype)
        v, i = x.min(dim=0)
        assert v.dtype == x.dtype and i.dtype == fg.int64
        np.testing.assert_array_equal(v.numpy(), A.min(0).astype(dtype))
        np.testing.assert_array_equal(i.numpy(), A.argmin(0))
    b = fg.tensor([[True, False]])
    assert b.max(dim=1).indices.tolist() == [0] and b.min(dim=1).indices.tolist() == [1]
    n = fg.tensor([[1.0, float("nan"), 2.0]])
    v, i = n.max(dim=1)
    assert np.isnan(v.item()) and i.tolist() == [1]  # a NaN wins, as in PyTorch
    s = fg.tensor(3.0)
    v, i = s.max(dim=0)
    assert v.item() == 3.0 and i.item() == 0 and i.ndim == 0
    with pytest.raises(IndexError, match="out of range for a 0-d tensor"):
        s.max(dim=1)
    with pytest.raises(ValueError, match="zero-size dimension"):
        fg.zeros([2, 0]).max(dim=1)


def test_a_tensor_in_place_of_the_dimension_is_elementwise_except_in_paddle_code():
    a = fg.tensor(A, requires_grad=True)
    b = fg.tensor(np.full_like(A, 2.0))
    m = fg.max(a, b)
    np.testing.assert_array_equal(m.numpy(), np.maximum(A, 2.0))
    m.sum().backward()
    # a tie shares the gradient (PyTorch's maximum does the same)
    np.testing.assert_array_equal(a.grad.numpy(), (A > 2.0) + 0.5 * (A == 2.0))
    np.testing.assert_array_equal(a.min(b).numpy(), np.minimum(A, 2.0))
    with pytest.raises(TypeError, match="elementwise maximum of two tensors"):
        fg.max(a, b, keepdim=True)
    g = _run("r = paddle.max(paddle.to_tensor(A), paddle.to_tensor([1]))", "paddle")
    np.testing.assert_array_equal(g["r"].numpy(), A.max(1))  # Paddle: the axes


def test_static_programs_record_the_values():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [2, 4], "float64")
            out = fg.max(x, 1)
    finally:
        fg.disable_static()
    (res,) = st.Executor().run(main, feed={"x": A}, fetch_list=[out])
    np.testing.assert_array_equal(np.asarray(res), A.max(1))


def test_equal_is_one_bool_in_pytorch_code_and_elementwise_elsewhere():
    src = """
a = torch.tensor([1.0, 2.0]); b = torch.tensor([1.0, 2.0])
r = [torch.equal(a, b), a.equal(torch.tensor([1.0, 3.0])), torch.equal(a, b.reshape(1, 2)),
     torch.equal(torch.tensor([1, 2]), b), torch.equal(torch.tensor([float('nan')]),
     torch.tensor([float('nan')])), torch.equal(torch.zeros(0), torch.zeros(0))]
"""
    assert _run(src, "torch")["r"] == [True, False, False, True, False, True]
    with pytest.raises(TypeError, match="compares two tensors, got int"):
        _run("torch.equal(torch.tensor([1.0]), 1)", "torch")
    g = _run(
        "r = paddle.equal(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.0, 3.0]))", "paddle"
    )
    assert g["r"].tolist() == [True, False]
    assert fg.equal(fg.tensor([1, 2]), 2).tolist() == [False, True]


def _sizes(parts):
    return [int(p.shape[0]) for p in parts]


def test_split_follows_the_dialect_of_the_code():
    # Paddle: 3 sections; PyTorch: sections of size 3 (6 -> [2, 2, 2] vs [3, 3])
    g = _run("a = torch.split(torch.arange(6.0), 3); b = torch.arange(6.0).split(4)", "torch")
    assert _sizes(g["a"]) == [3, 3] and _sizes(g["b"]) == [4, 2]
    src = "a = paddle.split(paddle.arange(6.0), 3); b = paddle.arange(6.0).split(3)"
    g = _run(src, "paddle")
    assert _sizes(g["a"]) == [2, 2, 2] and _sizes(g["b"]) == [2, 2, 2]
    x = fg.arange(6.0)  # neutral code: each form keeps its own peer's meaning ...
    assert _sizes(fg.split(x, 3)) == [2, 2, 2] and _sizes(x.split(4)) == [4, 2]
    # ... and the keywords only one peer has decide anywhere
    assert _sizes(fg.split(x, split_size_or_sections=4)) == [4, 2]
    assert _sizes(fg.split(x, 3, dim=0)) == [3, 3]
    assert _sizes(x.split(2, axis=0)) == [3, 3] and _sizes(x.split(num_or_sections=3)) == [2] * 3
    assert _sizes(x.split([1, 5])) == [1, 5] and _sizes(fg.split(x, [1, 5])) == [1, 5]
    m = fg.arange(12.0).reshape([2, 6])
    assert [list(p.shape) for p in _run("r = torch.split(M, 4, 1)", "torch", M=m)["r"]] == [
        [2, 4],
        [2, 2],
    ]


def test_uniform_defaults_to_zero_one_as_both_peers():
    # Paddle 3.3.1's paddle.uniform / Tensor.uniform_ default to [0, 1) too (older Paddle: -1)
    fg.seed(0)
    for src, name in [
        ("x = paddle.uniform([2000])", "paddle"),
        ("x = paddle.zeros([2000]); x.uniform_()", "paddle"),
        ("x = torch.zeros(2000); x.uniform_()", "torch"),
    ]:
        x = _run(src, name)["x"]
        assert 0.0 <= float(x.min()) < 0.01 and 0.99 < float(x.max()) < 1.0
    assert float(fg.zeros([2000]).uniform_(min=-1.0).min()) < -0.9


def test_allclose_is_a_bool_or_paddles_tensor():
    src = "r = allclose(t([1.0, 2.0]), t([1.0, 2.0 + 1e-9]))"
    g = _run(src.replace("allclose", "torch.allclose").replace("t(", "torch.tensor("), "torch")
    assert g["r"] is True
    g = _run(
        src.replace("allclose", "paddle.allclose").replace("t(", "paddle.to_tensor("), "paddle"
    )
    assert isinstance(g["r"], fg.Tensor) and g["r"].dtype == fg.bool and g["r"].item() is True
    assert fg.allclose(fg.tensor([1.0]), fg.tensor([1.5])) is False


def test_grid_sample_align_corners_default_follows_the_dialect():
    src = """
x = M.reshape([1, 1, 2, 2]); grid = Z
r = NS.nn.functional.grid_sample(x, grid)
"""
    m = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    z = fg.tensor([[[[-1.0, -1.0]]]])  # the top-left corner
    g = _run(src.replace("NS", "paddle"), "paddle", M=m, Z=z)
    assert g["r"].item() == 1.0  # Paddle: align_corners=True, the pixel's centre
    with pytest.warns(UserWarning, match="align_corners not given"):
        g = _run(src.replace("NS", "torch"), "torch", M=m, Z=z)
    assert g["r"].item() == 0.25  # PyTorch: the pixel's corner, bilinear with zero padding


def test_median_one_hot_and_sort_follow_the_dialect_of_the_code():
    even = np.array([[4.0, 1.0, 3.0, 2.0]])
    g = _run("m = torch.median(torch.tensor(E)); r = torch.tensor(E).median(1)", "torch", E=even)
    assert g["m"].item() == 2.0  # PyTorch: the lower middle value
    assert g["r"].values.tolist() == [2.0] and g["r"].indices.tolist() == [3]
    g = _run(
        "m = paddle.median(paddle.to_tensor(E)); r = paddle.median(paddle.to_tensor(E), 1)",
        "paddle",
        E=even,
    )
    assert g["m"].item() == 2.5 and g["r"].tolist() == [2.5]  # Paddle: the mean of the two
    assert fg.median(fg.tensor(even)).item() == 2.5  # neutral code: ferrograd's default

    g = _run("h = torch.nn.functional.one_hot(torch.tensor([0, 2]), 3)", "torch")
    assert g["h"].dtype == fg.int64 and g["h"].tolist() == [[1, 0, 0], [0, 0, 1]]
    g = _run("h = paddle.nn.functional.one_hot(paddle.to_tensor([0, 2]), 3)", "paddle")
    assert g["h"].dtype == fg.float32

    g = _run("s = paddle.sort(paddle.to_tensor(E), 1, True)", "paddle", E=even)
    assert isinstance(g["s"], fg.Tensor) and g["s"].tolist() == [[4.0, 3.0, 2.0, 1.0]]
    g = _run("s = torch.sort(torch.tensor(E), 1, True)", "torch", E=even)
    assert g["s"].indices.tolist() == [[0, 2, 3, 1]]


def test_cross_entropy_mean_with_ignored_labels_follows_the_dialect():
    # Paddle (3.3.1) averages over every sample when ignore_index < 0 and no weight is
    # given; PyTorch over the counted ones. Measured: Paddle 1.5857552, torch 2.1143403.
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 5)).astype(np.float32)
    lab = np.array([0, -100, 2, 3])
    ls = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    kept = -np.array([ls[0, 0], ls[2, 2], ls[3, 3]])
    src = "l = NS.nn.functional.cross_entropy(T(L), T(Y)); m = NS.nn.CrossEntropyLoss()(T(L), T(Y))"
    g = _run(
        src.replace("NS", "paddle").replace("T(", "paddle.to_tensor("), "paddle", L=logits, Y=lab
    )
    np.testing.assert_allclose([g["l"].item(), g["m"].item()], [kept.sum() / 4] * 2, rtol=1e-6)
    g = _run(src.replace("NS", "torch").replace("T(", "torch.tensor("), "torch", L=logits, Y=lab)
    np.testing.assert_allclose([g["l"].item(), g["m"].item()], [kept.mean()] * 2, rtol=1e-6)
    # Paddle's own rule elsewhere: a non-negative ignore_index or a weight count the kept
    g = _run(
        "l = paddle.nn.functional.cross_entropy(paddle.to_tensor(L), paddle.to_tensor(Y), "
        "ignore_index=1)",
        "paddle",
        L=logits,
        Y=np.array([0, 1, 2, 3]),
    )
    np.testing.assert_allclose(g["l"].item(), kept.mean(), rtol=1e-6)
    # the gradient follows the value (mean over all four)
    x = fg.tensor(logits.astype(np.float64), requires_grad=True)
    g = _run("l = paddle.nn.functional.cross_entropy(X, paddle.to_tensor(Y))", "paddle", X=x, Y=lab)
    g["l"].backward()
    p = np.exp(ls.astype(np.float64))
    want = p.copy()
    for i, c in enumerate(lab):
        want[i, c if c >= 0 else 0] -= 1.0 if c >= 0 else 0.0
    want[1] = 0.0
    np.testing.assert_allclose(x.grad.numpy(), want / 4, rtol=1e-5, atol=1e-7)


def test_histogram_is_paddles_counts_or_pytorchs_pair():
    data = np.array([1.0, 2.0, 7.0, 7.0])
    g = _run("h = paddle.histogram(paddle.to_tensor(D), bins=3, min=0, max=9)", "paddle", D=data)
    assert g["h"].dtype == fg.int64 and g["h"].tolist() == [2, 0, 2]
    for src in ("r = torch.histogram(torch.tensor(D), bins=3)", "r = torch.tensor(D).histogram(3)"):
        r = _run(src, "torch", D=data)["r"]
        hist, edges = np.histogram(data, bins=3)
        assert r.hist.dtype == fg.float64 and r.hist.tolist() == hist.tolist()
        np.testing.assert_allclose(r.bin_edges.numpy(), edges)
    # PyTorch's keywords or edges choose its form anywhere; weight and density as NumPy's
    x = fg.tensor(data.astype(np.float32))
    r = fg.histogram(x, 2, range=(0.0, 8.0), weight=fg.ones([4]) * 2, density=True)
    want, _ = np.histogram(data, 2, range=(0, 8), weights=np.full(4, 2.0), density=True)
    np.testing.assert_allclose(r.hist.numpy(), want, rtol=1e-6)
    assert r.hist.dtype == fg.float32
    r = fg.histogram(x, fg.tensor([0.0, 1.5, 8.0]))
    assert r.hist.tolist() == [1.0, 3.0]
    with pytest.raises(TypeError, match="range=\\(min, max\\)"):
        _run("torch.histogram(torch.tensor(D), 3, 0, 8)", "torch", D=data)
