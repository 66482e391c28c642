"""``grad_fn.name()`` and ``next_functions`` called from Paddle code answer as Paddle
3.3.1 does (values checked there): Paddle's node names (``AddGradNode``, ``PowGradNode``,
``GradNodeAccumulation``, ``GradNodePyLayer_<Class>``), ``next_functions`` a list of
nodes (None for an input that does not require grad) and a leaf's ``[None]``. PyTorch
code keeps PyTorch's names and ``(node, input_nr)`` pairs."""

import ferrograd as paddle


def leaf(shape=(2, 3)):
    x = paddle.randn(list(shape))
    x.stop_gradient = False
    return x


def test_paddle_names_and_next_functions():
    x = leaf()
    z = x + x**2
    g = z.grad_fn
    assert g.name() == "AddGradNode"
    nxt = g.next_functions
    assert isinstance(nxt, list) and len(nxt) == 2
    assert [n.name() for n in nxt] == ["GradNodeAccumulation", "PowGradNode"]
    assert nxt[1].next_functions[0].name() == "GradNodeAccumulation"
    assert nxt[0].next_functions == [None]


def test_paddle_names_of_common_ops():
    x = leaf()
    w = paddle.randn([3, 2])
    cases = {
        "MultiplyGradNode": x * x,
        "SubtractGradNode": x - x,
        "DivideGradNode": x / x,
        "MatmulGradNode": paddle.matmul(x, w),
        "SumGradNode": x.sum(),
        "MeanGradNode": x.mean(),
        "ReshapeGradNode": x.reshape([3, 2]),
        "TransposeGradNode": x.transpose([1, 0]),
        "ConcatGradNode": paddle.concat([x, x]),
        "SliceGradNode": x[:, 1:],
        "TanhGradNode": x.tanh(),
        "CastGradNode": x.astype("float64"),
        "ReluGradNode": paddle.nn.functional.relu(x),
        "AssignGradNode": x.clone(),
    }
    for want, t in cases.items():
        assert t.grad_fn.name() == want


def test_python_number_operand_is_left_out():
    # Paddle 3.3.1: x ** 2 -> PowGradNode, x * 2 / x + 1 -> ScaleGradNode, x / 2 ->
    # DivScaleGradNode, each with the one input x
    x = leaf()
    for t, want in (
        (x**2, "PowGradNode"),
        (x * 2, "ScaleGradNode"),
        (x + 1, "ScaleGradNode"),
        (x / 2, "DivScaleGradNode"),
    ):
        nxt = t.grad_fn.next_functions
        assert t.grad_fn.name() == want
        assert [n.name() for n in nxt] == ["GradNodeAccumulation"]


def test_input_without_grad_is_none():
    x = leaf()
    q = x + paddle.randn([2, 3])
    nxt = q.grad_fn.next_functions
    assert nxt[0].name() == "GradNodeAccumulation" and nxt[1] is None


def test_pylayer_node_name():
    class Double(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, d):
            return d * 2

    x = leaf()
    g = Double.apply(x).grad_fn
    assert g.name() == "GradNodePyLayer_Double"
    assert [n.name() for n in g.next_functions] == ["GradNodeAccumulation"]


def test_torch_code_keeps_pytorch_names():
    x = leaf()
    z = x + x**2
    ns = {"torch": paddle, "z": z}
    exec(
        "name = z.grad_fn.name()\n"
        "nxt = z.grad_fn.next_functions\n"
        "names = [n.name() for n, _ in nxt]\n"
        "leaf_next = nxt[0][0].next_functions\n",
        ns,
    )
    assert ns["name"] == "AddBackward0"
    assert isinstance(ns["nxt"], tuple) and [nr for _, nr in ns["nxt"]] == [0, 0]
    assert ns["names"] == ["AccumulateGrad", "PowBackward0"]
    assert ns["leaf_next"] == ()
