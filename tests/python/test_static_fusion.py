"""Static programs run `matmul → add bias → activation` chains and gradient-descent
updates as fused steps, and read NumPy feeds in place: the results must be the eager
ones bit for bit, whatever the feed's layout."""

import math

import ferrograd as fg
import numpy as np
import pytest

st = fg.static


def _params(rng, sizes, dtype):
    out = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        out.append((rng.standard_normal((fan_in, fan_out)) / math.sqrt(fan_in)).astype(dtype))
        out.append((rng.standard_normal(fan_out) * 0.1).astype(dtype))
    return out


def _act(t, name):
    return getattr(t, name)()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", ["tanh", "sigmoid", "relu"])
def test_static_training_matches_eager_bit_for_bit(dtype, act):
    rng = np.random.default_rng(3)
    sizes, lr = (6, 5, 4, 3), 0.05
    init = _params(rng, sizes, dtype)

    main, startup, scope = st.Program(), st.Program(), st.Scope()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, sizes[0]], dtype)
            params = [
                st.create_parameter(
                    list(p.shape), dtype, default_initializer=st.initializer.Assign(p)
                )
                for p in init
            ]
            w1, b1, w2, b2, w3, b3 = params
            h = _act(x @ w1 + b1, act)
            h = _act(b2 + h @ w2, act)  # the bias as the first operand
            loss = (h @ w3 + b3).square().mean()
            for p, g in zip(params, st.gradients([loss], params)):
                st.assign(p - lr * g, output=p)
    finally:
        fg.disable_static()
    exe = st.Executor()
    exe.run(startup, scope=scope)
    steps, fused = exe._core.plan_summary(main._core, [loss.id])
    assert fused == 3 + 6, "three linear layers and six updates run fused"

    eager = [fg.tensor(p, requires_grad=True) for p in init]
    for step, batch in enumerate([4, 7, 1, 4]):
        xb = rng.standard_normal((batch, sizes[0])).astype(dtype)
        (got,) = exe.run(main, feed={"x": xb}, fetch_list=[loss], scope=scope)
        e1, c1, e2, c2, e3, c3 = eager
        xe = fg.from_numpy(xb)
        he = _act(xe @ e1 + c1, act)
        he = _act(c2 + he @ e2, act)
        want = (he @ e3 + c3).square().mean()
        want.backward()
        with fg.no_grad():
            for p in eager:
                p.sub_(lr * p.grad)
                p.grad = None
        assert np.asarray(got).tobytes() == want.numpy().tobytes(), f"loss at step {step}"
        for i, p in enumerate(eager):
            held = scope.find_var(params[i].name).numpy()
            assert held.tobytes() == p.numpy().tobytes(), f"{params[i].name} at step {step}"


def test_feeds_of_any_layout_and_dtype_give_the_copied_result():
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, 3], "float64")
            y = (x * 2.0).sum(axis=1)
    finally:
        fg.disable_static()
    exe = st.Executor()
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    feeds = [
        base[:, ::2],  # strided view
        np.asfortranarray(base[:, :3]),  # column-major
        base[::-1, 1:4],  # negative stride
        np.frombuffer(base[:, :3].tobytes(), dtype=np.float64).reshape(4, 3),  # read-only
    ]
    for f in feeds:
        (got,) = exe.run(main, feed={"x": f}, fetch_list=[y])
        np.testing.assert_array_equal(got, (f * 2.0).sum(axis=1))
    # the program does not write into the fed array
    before = base.copy()
    exe.run(main, feed={"x": base[:, :3]}, fetch_list=[y])
    np.testing.assert_array_equal(base, before)
    with pytest.raises(TypeError, match="dtype"):
        exe.run(main, feed={"x": base[:, :3].astype(np.float32)}, fetch_list=[y])


def test_a_py_func_gets_its_own_copy_of_the_feed():
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    seen = []

    def scribble(a):
        arr = np.array(a, copy=True)
        seen.append(arr)
        return arr * 3.0

    try:
        with st.program_guard(main, startup):
            x = st.data("x", [2], "float64")
            out = main.current_block().create_var(name="out", dtype="float64", shape=[2])
            st.nn.py_func(scribble, x, out)
    finally:
        fg.disable_static()
    exe = st.Executor()
    feed = np.array([1.0, 2.0])
    (got,) = exe.run(main, feed={"x": feed}, fetch_list=[out])
    np.testing.assert_array_equal(got, [3.0, 6.0])
    np.testing.assert_array_equal(seen[0], feed)
