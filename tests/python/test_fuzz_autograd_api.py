"""Differential fuzzer for the autograd API surface: ``torch.autograd.grad`` (grad_outputs,
retain_graph, create_graph up to third derivatives, allow_unused / materialize_grads,
several outputs and inputs, non-leaf inputs), ``backward(inputs=...)``, accumulation and
``retain_grad``, ``torch.autograd.functional`` (jacobian / hessian / vjp / jvp / hvp / vhp),
``ferrograd.func`` (grad, grad_and_value, jacrev, jacfwd, vmap, functional_call), custom
``autograd.Function`` features, tensor hooks, ``saved_tensors_hooks``,
``utils.checkpoint.checkpoint`` and the Paddle spellings ``paddle.grad`` / ``PyLayer``.

The differentiated functions are random float64 programs of 2-4 smooth steps (exp, sin,
tanh, integer pow, mul, add, matmul, sum) over random small shapes and 1-3 inputs. The
reference is the same program run by NumPy: its Jacobian by complex steps (every step is
holomorphic, so the first derivative is exact to rounding), second derivatives by central
differences of that Jacobian and third ones by second differences of it. This module is
PyTorch code (``torch = fg`` below, docs/dialects.md). Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ
from hypothesis import assume, given
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

H_CS = 1e-30  # complex step


# ---------------------------------------------------------------- random programs
class Program:
    """A chain of steps on a current value, starting from input 0; binary steps take
    another input (drawn with the program). ``values`` lists the current value after
    each step (index 0: input 0 itself)."""

    def __init__(self, shapes, steps, used_at):
        self.shapes = shapes  # input shapes
        self.steps = steps  # (kind, arg)
        self.used_at = used_at  # input -> first value index that depends on it

    def __repr__(self):
        return f"Program(shapes={self.shapes}, steps={self.steps})"

    def values(self, xs, lib, start=0, cur=None):
        """All current values from value index `start` on (`cur`: the value there,
        default input 0); `lib` is "np" (NumPy, real or complex) or "fg"."""
        cur = xs[0] if cur is None else cur
        out = [cur]
        for kind, arg in self.steps[start:]:
            cur = step(kind, arg, cur, xs, lib)
            out.append(cur)
        return out

    def reaches(self, inp, value_index):
        return self.used_at[inp] <= value_index


def step(kind, arg, cur, xs, lib):
    np_ = lib == "np"
    if kind in ("exp", "sin", "tanh"):
        return getattr(np, kind)(cur) if np_ else getattr(fg, kind)(cur)
    if kind == "pow":
        return cur**arg if np_ else (fg.pow(cur, arg) if arg == 3 else cur**arg)
    if kind == "mul":
        return cur * xs[arg] if np_ else fg.mul(cur, xs[arg])
    if kind == "add":
        return cur + xs[arg] if np_ else cur + xs[arg]
    if kind == "matmul":
        return cur @ xs[arg] if np_ else fg.matmul(cur, xs[arg])
    if kind == "sum":
        dim, keep = arg
        if np_:
            return np.sum(cur, axis=dim, keepdims=keep)
        return cur.sum() if dim is None and not keep else cur.sum(dim=dim, keepdim=keep)
    raise AssertionError(kind)


def _shape_after(kind, arg, cur, shapes):
    if kind == "matmul":
        return cur[:-1] + shapes[arg][-1:]
    if kind == "sum":
        dim, keep = arg
        if dim is None:
            return tuple(1 for _ in cur) if keep else ()
        return tuple(
            1 if i == dim % len(cur) else s
            for i, s in enumerate(cur)
            if keep or i != dim % len(cur)
        )
    return cur


@st.composite
def programs(draw, min_steps=2, max_steps=4, max_inputs=3, scalar=False):
    shape0 = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    shapes = [shape0]
    used_at = {0: 0}
    steps = []
    cur = shape0
    n = draw(st.integers(min_steps, max_steps))
    for i in range(n):
        kinds = ["exp", "sin", "tanh", "pow", "mul", "add", "sum"] + (["matmul"] if cur else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "pow":
            arg = draw(st.sampled_from([2, 3]))
        elif kind in ("mul", "add"):
            fits = [j for j, s in enumerate(shapes) if len(s) <= len(cur) and _fits(s, cur)]
            if fits and (len(shapes) >= max_inputs or draw(st.booleans())):
                arg = draw(st.sampled_from(fits))
            elif len(shapes) < max_inputs:
                k = draw(st.integers(0, len(cur)))
                tail = cur[len(cur) - k :]
                s = tuple(1 if draw(st.booleans()) else d for d in tail)
                shapes.append(s)
                arg = len(shapes) - 1
            else:
                kind, arg = "sin", None
        elif kind == "matmul":
            if len(shapes) < max_inputs:
                m = draw(st.integers(1, 3))
                shapes.append((cur[-1], m))
                arg = len(shapes) - 1
            else:
                kind, arg = "tanh", None
        elif kind == "sum":
            if cur and draw(st.booleans()):
                arg = (draw(st.integers(-len(cur), len(cur) - 1)), draw(st.booleans()))
            else:
                arg = (None, bool(cur) and draw(st.booleans()))
        else:
            arg = None
        if arg is not None and kind in ("mul", "add", "matmul"):
            used_at.setdefault(arg, i + 1)
        cur = _shape_after(kind, arg, cur, shapes)
        steps.append((kind, arg))
    if scalar and cur != ():
        steps.append(("sum", (None, False)))
    for j in range(len(shapes)):
        used_at.setdefault(j, len(steps) + 1)
    return Program(shapes, steps, used_at)


def _fits(s, cur):
    return all(a in (1, b) for a, b in zip(s[::-1], cur[::-1]))


def draw_arrays(draw, prog, lo=-1.2, hi=1.2):
    """Input values for which every value of the program stays moderate."""
    arrays = [
        draw(hnp.arrays(np.float64, s, elements=st.floats(lo, hi, allow_subnormal=False)))
        for s in prog.shapes
    ]
    with np.errstate(all="ignore"):
        vals = prog.values(arrays, "np")
    assume(all(np.isfinite(v).all() and np.abs(v).max(initial=0) < 200 for v in vals))
    return arrays


# ---------------------------------------------------------------- references
def jac_ref(fn, arrays):
    """Complex-step Jacobians of ``fn`` (arrays -> list of arrays): for each output, an
    array of shape ``out.shape + (total input size,)``."""
    outs = fn([a.astype(np.float64) for a in arrays])
    sizes = [a.size for a in arrays]
    total = sum(sizes)
    jac = [np.zeros(o.shape + (total,)) for o in outs]
    col = 0
    for i, a in enumerate(arrays):
        for k in range(a.size):
            z = [b.astype(np.complex128) for b in arrays]
            flat = z[i].reshape(-1)
            flat[k] += 1j * H_CS
            z[i] = flat.reshape(a.shape)
            for j, o in enumerate(fn(z)):
                jac[j][..., col] = np.imag(o) / H_CS
            col += 1
    return jac


def split_cols(m, arrays):
    """The last axis of `m` (all inputs' elements) split per input and reshaped."""
    out, col = [], 0
    for a in arrays:
        out.append(m[..., col : col + a.size].reshape(m.shape[:-1] + a.shape))
        col += a.size
    return out


def vjp_ref(jac, v):
    """v^T J for one output's Jacobian (shape out + (n,))."""
    return np.tensordot(v, jac, axes=v.ndim) if v.ndim else v * jac


def grad_ref(prog, arrays, out_index=None):
    """The gradient (flattened over all inputs) of the scalar program output."""
    idx = len(prog.steps) if out_index is None else out_index
    (j,) = jac_ref(lambda z: [prog.values(z, "np")[idx]], arrays)
    return j.reshape(-1)


def flat(arrays):
    return np.concatenate([np.ravel(a) for a in arrays]) if arrays else np.zeros(0)


def unflat(vec, arrays):
    out, col = [], 0
    for a in arrays:
        out.append(vec[col : col + a.size].reshape(a.shape))
        col += a.size
    return out


def hess_ref(gradfn, arrays, h=1e-5):
    """Central differences of the (complex-step) gradient: H[k] = d grad / d x_k."""
    x = flat(arrays)
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = h
        cols.append((gradfn(unflat(x + e, arrays)) - gradfn(unflat(x - e, arrays))) / (2 * h))
    return np.stack(cols, axis=0) if cols else np.zeros((0, 0))


def close(got, want, what, rtol=1e-9, atol=1e-9):
    """`got` (tensor or array) equals `want` within tolerances scaled by `want`'s size."""
    g = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    if hasattr(got, "dtype") and not isinstance(got, np.ndarray):
        assert got.dtype.name == "float64", f"{what}: dtype {got.dtype.name}"
    scale = 1 + np.abs(w).max(initial=0)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale, err_msg=what)


def leaf(a):
    return fg.tensor(np.array(a, dtype=np.float64), dtype="float64", requires_grad=True)


NONLEAF = ["leaf", "scaled", "reshaped", "clone", "transposed"]


def make_input(a, kind):
    """(the leaf, the tensor passed to the program: `a`'s values, a leaf or not)."""
    if kind == "scaled":
        lf = leaf(np.asarray(a) / 2.0)
        return lf, lf * 2.0
    if kind == "reshaped":
        lf = leaf(np.ravel(a))
        return lf, lf.reshape(list(np.shape(a)))
    if kind == "clone":
        lf = leaf(a)
        return lf, lf.clone()
    if kind == "transposed" and np.ndim(a) >= 2:
        lf = leaf(np.ascontiguousarray(np.swapaxes(a, 0, 1)))
        return lf, lf.transpose(0, 1)
    lf = leaf(a)
    return lf, lf


# ---------------------------------------------------------------- autograd.grad
@FUZZ
@given(st.data())
def test_grad_outputs_inputs(data):
    """grad of one or two outputs (a random earlier value too) with grad_outputs, over
    leaf and non-leaf inputs plus an unused one; allow_unused / materialize_grads; a
    second call after retain_graph=True gives the same."""
    prog = data.draw(programs())
    arrays = draw_arrays(data.draw, prog)
    kinds = [data.draw(st.sampled_from(NONLEAF)) for _ in arrays]
    leaves, xs = zip(*[make_input(a, k) for a, k in zip(arrays, kinds)])
    extra = leaf(data.draw(hnp.arrays(np.float64, (2,), elements=st.floats(-1, 1))))
    vals = prog.values(list(xs), "fg")
    last = len(prog.steps)
    picks = [last]
    if data.draw(st.booleans()):
        picks.append(data.draw(st.integers(0, last - 1)))
    outs = [vals[i] for i in picks]
    vs_np = [
        data.draw(hnp.arrays(np.float64, tuple(o.shape), elements=st.floats(-2, 2))) for o in outs
    ]
    implicit = len(outs) == 1 and outs[0].ndim == 0 and data.draw(st.booleans())
    vs = None if implicit else [fg.tensor(v, dtype="float64") for v in vs_np]
    if implicit:
        vs_np = [np.ones(())]
    inputs = list(xs) + [extra]
    jacs = jac_ref(lambda z: [prog.values(z, "np")[i] for i in picks], arrays)
    want = split_cols(sum(vjp_ref(j, v) for j, v in zip(jacs, vs_np)), arrays)
    reached = [any(prog.reaches(i, p) for p in picks) for i in range(len(arrays))]
    mode = data.draw(st.sampled_from(["allow_unused", "materialize", "refuse"]))
    retain = data.draw(st.booleans())
    if mode == "refuse":
        with pytest.raises(RuntimeError):
            fg.autograd.grad(outs, inputs, vs, retain_graph=True)
        CALLS["grad.unused_refused"] += 1
        return
    kw = dict(allow_unused=True, materialize_grads=mode == "materialize")
    for _rep in range(2 if retain else 1):
        got = fg.autograd.grad(outs, inputs, vs, retain_graph=retain, **kw)
        CALLS["grad"] += 1
        assert isinstance(got, tuple) and len(got) == len(inputs)
        for i, (g, w) in enumerate(zip(got, want + [np.zeros(2)])):
            if i < len(arrays) and reached[i] or mode == "materialize":
                assert g is not None, f"input {i} ({kinds[i] if i < len(kinds) else 'extra'})"
                close(g, w, f"grad input {i} ({kinds[i] if i < len(kinds) else 'extra'})")
                assert not g.requires_grad
            else:
                assert g is None, f"input {i} does not reach the outputs: None expected"


def grad_fn(prog):
    """x (list of arrays) -> the complex-step gradient of the scalar program, flattened."""
    return lambda arrays: grad_ref(prog, arrays)


def third_ref(gradfn, arrays, u, w, h=2e-3):
    """d/dx_k (w^T H u), by second differences of the gradient (Richardson-extrapolated
    over steps h and h/2)."""
    x, u = flat(arrays), flat(u)

    def diff(h):
        out = []
        for k in range(x.size):
            e = np.zeros_like(x)
            e[k] = h
            acc = 0.0
            for su, se in [(1, 1), (-1, 1), (1, -1), (-1, -1)]:
                acc = acc + su * se * gradfn(unflat(x + su * h * u + se * e, arrays))
            out.append(acc @ flat(w) / (4 * h * h))
        return np.array(out)

    return (4 * diff(h / 2) - diff(h)) / 3


@FUZZ
@given(st.data())
def test_grad_create_graph_higher_order(data):
    """create_graph=True: the gradient, a Hessian-vector product and a third derivative
    (grad of w^T H u) against differences of the complex-step gradient."""
    prog = data.draw(programs(scalar=True, max_inputs=2))
    arrays = draw_arrays(data.draw, prog)
    kinds = [data.draw(st.sampled_from(NONLEAF)) for _ in arrays]
    leaves, xs = zip(*[make_input(a, k) for a, k in zip(arrays, kinds)])
    y = prog.values(list(xs), "fg")[-1]
    gs = fg.autograd.grad(y, xs, create_graph=True, allow_unused=True, materialize_grads=True)
    CALLS["grad.create_graph"] += 1
    gref = grad_ref(prog, arrays)
    for g, w in zip(gs, unflat(gref, arrays)):
        close(g, w, "first derivative")
    hess = hess_ref(grad_fn(prog), arrays)  # hess[k] = d grad / d x_k (symmetric)
    u = [data.draw(hnp.arrays(np.float64, a.shape, elements=st.floats(-1, 1))) for a in arrays]
    live = [i for i, g in enumerate(gs) if g.requires_grad]
    hu_want = unflat(flat(u) @ hess, arrays)
    tol = dict(rtol=1e-6, atol=1e-6)
    for i, part in enumerate(split_cols(hess, arrays)):
        if i not in live:  # a gradient that is a constant: its Hessian rows are zero
            close(part, np.zeros_like(part), "constant gradient", **tol)
    if not live:
        return
    hu = fg.autograd.grad(
        [gs[i] for i in live],
        xs,
        [fg.tensor(u[i], dtype="float64") for i in live],
        create_graph=True,
        allow_unused=True,
        materialize_grads=True,
    )
    CALLS["grad.second_order"] += 1
    for h, w in zip(hu, hu_want):
        close(h, w, "Hessian-vector product", **tol)
    live2 = [i for i, h in enumerate(hu) if h.requires_grad]
    if not live2 or not data.draw(st.booleans()):
        return
    w = [data.draw(hnp.arrays(np.float64, a.shape, elements=st.floats(-1, 1))) for a in arrays]
    s = sum((hu[i] * fg.tensor(w[i], dtype="float64")).sum() for i in live2)
    third = fg.autograd.grad(s, xs, allow_unused=True, materialize_grads=True)
    CALLS["grad.third_order"] += 1
    wz = [wi if i in live2 else 0 * wi for i, wi in enumerate(w)]
    want = unflat(third_ref(grad_fn(prog), arrays, u, wz), arrays)
    for t, ref in zip(third, want):
        close(t, ref, "third derivative", rtol=1e-4, atol=1e-4)


def split_ref(prog, arrays, m, v, scale):
    """Gradients of v . y when the gradient flowing through value `m` is multiplied by
    `scale` (a tensor hook there): per input, and the gradient reaching value m."""
    z = prog.values(arrays, "np")[m]
    (jt,) = jac_ref(lambda a: [prog.values(a[:-1], "np", m, a[-1])[-1]], arrays + [z])
    tail = split_cols(vjp_ref(jt, v), arrays + [z])
    gz = tail[-1]
    (jh,) = jac_ref(lambda a: [prog.values(a, "np")[m]], arrays)
    head = split_cols(vjp_ref(jh, scale * gz), arrays)
    return [t + h for t, h in zip(tail[:-1], head)], gz


@FUZZ
@given(st.data())
def test_backward_inputs_hooks_retain_grad(data):
    """backward(v, inputs=subset) fills only the subset; a second backward accumulates;
    retain_grad on an intermediate value; register_hook scaling the gradient on a leaf and
    on a non-leaf; register_post_accumulate_grad_hook sees the accumulated gradient."""
    prog = data.draw(programs(min_steps=2))
    arrays = draw_arrays(data.draw, prog)
    leaves = [leaf(a) for a in arrays]
    vals = prog.values(leaves, "fg")
    y = vals[-1]
    v = data.draw(hnp.arrays(np.float64, tuple(y.shape), elements=st.floats(-2, 2)))
    m = data.draw(st.integers(1, len(prog.steps) - 1))
    z = vals[m]
    c = data.draw(st.sampled_from([1.0, -2.0, 0.5]))
    z.retain_grad()
    if data.draw(st.booleans()):  # a hook on the non-leaf: retain_grad sees its result
        z.register_hook(lambda g: g * c)
    else:
        c = 1.0
    cl = data.draw(st.sampled_from([1.0, 3.0]))
    leaves[0].register_hook(lambda g: g * cl)
    seen = []
    post = data.draw(st.integers(0, len(leaves) - 1))
    leaves[post].register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.numpy().copy()))
    want, gz = split_ref(prog, arrays, m, v, c)
    want[0] = want[0] * cl
    subset = sorted(set(data.draw(st.lists(st.integers(0, len(leaves) - 1), min_size=1))))
    y.backward(fg.tensor(v, dtype="float64"), inputs=[leaves[i] for i in subset], retain_graph=True)
    CALLS["backward.inputs"] += 1
    for i, lf in enumerate(leaves):
        if i in subset:
            close(lf.grad, want[i], f"backward(inputs=) leaf {i}")
        else:
            assert lf.grad is None, f"leaf {i} is not in inputs= but got a gradient"
    # z's node runs (and retain_grad with it) when a leaf of inputs= lies behind it
    ran = any(prog.reaches(i, m) for i in subset)
    if ran:
        close(z.grad, c * gz, "retain_grad under inputs=")
    else:
        assert z.grad is None, "retain_grad of a value whose node need not run"
    assert len(seen) == (post in subset)
    y.backward(fg.tensor(v, dtype="float64"))
    CALLS["backward.accumulate"] += 1
    for i, lf in enumerate(leaves):
        close(lf.grad, want[i] * (2 if i in subset else 1), f"accumulated leaf {i}")
    close(z.grad, c * gz * (2 if ran else 1), "retain_grad accumulated")
    close(seen[-1], want[post] * (2 if post in subset else 1), "post-accumulate hook")


# ---------------------------------------------------------------- autograd.functional
AF = fg.autograd.functional


def _tensors(arrays):
    return [fg.tensor(a, dtype="float64") for a in arrays]


def _structure(got, tupled, n):
    if tupled:
        assert isinstance(got, tuple) and len(got) == n, f"expected a {n}-tuple, got {got!r}"
        return list(got)
    assert not isinstance(got, tuple), f"expected one tensor, got {type(got).__name__}"
    return [got]


@FUZZ
@given(st.data())
def test_functional_jacobian_vjp_jvp(data):
    """jacobian (vectorize, strategy, create_graph, strict), vjp and jvp against the
    complex-step Jacobian, for one or two outputs and a single input or a tuple."""
    prog = data.draw(programs(max_inputs=2))
    arrays = draw_arrays(data.draw, prog)
    n = len(arrays)
    in_tuple = n > 1 or data.draw(st.booleans())
    last = len(prog.steps)
    picks = [last] + ([data.draw(st.integers(1, last - 1))] if data.draw(st.booleans()) else [])
    out_tuple = len(picks) > 1

    def f(*xs):
        vals = prog.values(list(xs), "fg")
        return tuple(vals[i] for i in picks) if out_tuple else vals[last]

    jacs = jac_ref(lambda z: [prog.values(z, "np")[i] for i in picks], arrays)
    reached = [[prog.reaches(i, p) for i in range(n)] for p in picks]
    inputs = tuple(_tensors(arrays)) if in_tuple else _tensors(arrays)[0]
    which = data.draw(st.sampled_from(["jacobian", "vjp", "jvp"]))
    strict = data.draw(st.booleans())
    if which == "jacobian":  # strict: every output must depend on every input
        independent = not all(all(r) for r in reached)
    else:  # vjp: every input must reach some output (jvp: not checked here)
        independent = not all(any(r[i] for r in reached) for i in range(n))
        strict = strict and which == "vjp"
    if strict and independent:
        v = tuple(_tensors([np.ones(j.shape[:-1]) for j in jacs]))
        with pytest.raises(RuntimeError, match="strict"):
            if which == "jacobian":
                AF.jacobian(f, inputs, strict=True)
            else:
                AF.vjp(f, inputs, v if out_tuple else v[0], strict=True)
        CALLS["functional.strict_refused"] += 1
        return
    if which == "jacobian":
        kw = dict(
            vectorize=data.draw(st.booleans()),
            strategy=data.draw(st.sampled_from(["reverse-mode", "forward-mode"])),
        )
        if kw["strategy"] == "forward-mode":
            kw["vectorize"] = True  # PyTorch's forward-mode needs it
        if kw["vectorize"]:
            strict = False  # PyTorch refuses strict with vectorize
        got = AF.jacobian(f, inputs, strict=strict, **kw)
        CALLS["functional.jacobian"] += 1
        rows = list(got) if out_tuple else [got]
        assert len(rows) == len(picks)
        for k, (row, jac) in enumerate(zip(rows, jacs)):
            cols = _structure(row, in_tuple, n)
            want = split_cols(jac, arrays)
            for i, (g, w) in enumerate(zip(cols, want)):
                close(g, w, f"jacobian[{k}][{i}]")
        return
    if which == "vjp":
        v_np = [
            data.draw(hnp.arrays(np.float64, j.shape[:-1], elements=st.floats(-2, 2))) for j in jacs
        ]
        v = tuple(_tensors(v_np)) if out_tuple else fg.tensor(v_np[0], dtype="float64")
        out, got = AF.vjp(f, inputs, v, strict=strict)
        CALLS["functional.vjp"] += 1
        want = split_cols(sum(vjp_ref(j, w) for j, w in zip(jacs, v_np)), arrays)
    else:
        v_np = [
            data.draw(hnp.arrays(np.float64, a.shape, elements=st.floats(-2, 2))) for a in arrays
        ]
        v = tuple(_tensors(v_np)) if in_tuple else fg.tensor(v_np[0], dtype="float64")
        out, got = AF.jvp(f, inputs, v, strict=strict)
        CALLS["functional.jvp"] += 1
        want = [j @ flat(v_np) for j in jacs]
    outs = _structure(out, out_tuple, len(picks))
    ref_vals = prog.values(arrays, "np")
    for o, p in zip(outs, picks):
        close(o, ref_vals[p], "functional output")
        assert not o.requires_grad
    res = _structure(got, in_tuple if which == "vjp" else out_tuple, len(want))
    for g, w in zip(res, want):
        close(g, w, which)
        assert not g.requires_grad


def block(hess, arrays, i, j):
    """The Hessian block d^2 f / dx_i dx_j, shape x_i.shape + x_j.shape."""
    off = np.cumsum([0] + [a.size for a in arrays])
    sub = hess[off[i] : off[i + 1], off[j] : off[j + 1]]
    return sub.reshape(arrays[i].shape + arrays[j].shape)


@FUZZ
@given(st.data())
def test_functional_hessian_hvp_vhp(data):
    """hessian / hvp / vhp of a scalar program against differences of the complex-step
    gradient; with create_graph=True, the sum of the result differentiated once more
    through inputs that require grad, against second differences of the gradient."""
    prog = data.draw(programs(max_inputs=2, scalar=True))
    arrays = draw_arrays(data.draw, prog)
    n = len(arrays)
    in_tuple = n > 1 or data.draw(st.booleans())
    hess = hess_ref(grad_fn(prog), arrays)
    create = data.draw(st.booleans())
    xs = [leaf(a) if create else fg.tensor(a, dtype="float64") for a in arrays]
    inputs = tuple(xs) if in_tuple else xs[0]

    def f(*ts):
        return prog.values(list(ts), "fg")[-1]

    which = data.draw(st.sampled_from(["hessian", "hvp", "vhp"]))
    tol = dict(rtol=1e-6, atol=1e-6)
    ones = [np.ones(a.shape) for a in arrays]
    if which == "hessian":
        got = AF.hessian(f, inputs, create_graph=create, vectorize=data.draw(st.booleans()))
        CALLS["functional.hessian"] += 1
        result = []
        for i, row in enumerate(_structure(got, in_tuple, n)):
            for j, h in enumerate(_structure(row, in_tuple, n)):
                close(h, block(hess, arrays, i, j), f"hessian[{i}][{j}]", **tol)
                result.append(h)
        u = ones
    else:
        u = [data.draw(hnp.arrays(np.float64, a.shape, elements=st.floats(-1, 1))) for a in arrays]
        v = tuple(_tensors(u)) if in_tuple else _tensors(u)[0]
        y, got = getattr(AF, which)(f, inputs, v, create_graph=create)
        CALLS[f"functional.{which}"] += 1
        close(y, prog.values(arrays, "np")[-1], f"{which} output")
        result = _structure(got, in_tuple, n)
        for g, w in zip(result, unflat(flat(u) @ hess, arrays)):
            close(g, w, which, **tol)
    if not create:
        for r in result:
            assert not r.requires_grad, "create_graph=False gave a result with a graph"
        return
    live = [r for r in result if r.requires_grad]
    if not live:  # a constant Hessian: nothing to differentiate
        return
    gs = fg.autograd.grad(sum(r.sum() for r in live), xs, allow_unused=True, materialize_grads=True)
    CALLS["functional.create_graph"] += 1
    want = unflat(third_ref(grad_fn(prog), arrays, u, ones), arrays)
    for g, w in zip(gs, want):
        close(g, w, f"{which}(create_graph=True) differentiated again", rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- ferrograd.func
FN = fg.func


def _argnums(draw, n):
    if draw(st.booleans()):
        return draw(st.integers(0, n - 1))
    return tuple(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True)))


def _pick(seq, argnums):
    return tuple(seq[i] for i in argnums) if isinstance(argnums, tuple) else seq[argnums]


@FUZZ
@given(st.data())
def test_func_grad_and_jacobians(data):
    """func.grad / grad_and_value (has_aux, argnums int or tuple) of a scalar program and
    func.jacrev / jacfwd (argnums, has_aux) of a tensor program, against complex steps."""
    scalar = data.draw(st.booleans())
    prog = data.draw(programs(max_inputs=3, scalar=scalar))
    arrays = draw_arrays(data.draw, prog)
    n = len(arrays)
    argnums = _argnums(data.draw, n)
    has_aux = data.draw(st.booleans())
    m = data.draw(st.integers(0, len(prog.steps) - 1))
    vals_np = prog.values(arrays, "np")

    def f(*ts):
        vals = prog.values(list(ts), "fg")
        return (vals[-1], {"mid": vals[m]}) if has_aux else vals[-1]

    (jac,) = jac_ref(lambda z: [prog.values(z, "np")[-1]], arrays)
    per_input = split_cols(jac, arrays)
    want = _pick(per_input, argnums)
    xs = _tensors(arrays)
    if scalar:
        which = data.draw(st.sampled_from(["grad", "grad_and_value"]))
        res = getattr(FN, which)(f, argnums=argnums, has_aux=has_aux)(*xs)
        CALLS[f"func.{which}"] += 1
        if which == "grad_and_value":
            g, value = res
            value, aux = value if has_aux else (value, None)
            close(value, vals_np[-1], "grad_and_value's value")
        else:
            g, aux = res if has_aux else (res, None)
    else:
        which = data.draw(st.sampled_from(["jacrev", "jacfwd"]))
        res = getattr(FN, which)(f, argnums=argnums, has_aux=has_aux)(*xs)
        CALLS[f"func.{which}"] += 1
        g, aux = res if has_aux else (res, None)
    if has_aux:
        assert isinstance(aux, dict) and set(aux) == {"mid"}
        close(aux["mid"], vals_np[m], f"{which} aux")
    if isinstance(argnums, tuple):
        assert isinstance(g, tuple) and len(g) == len(argnums), f"{which}: {g!r}"
        for gi, w, i in zip(g, want, argnums):
            close(gi, w, f"{which} argnum {i}")
    else:
        close(g, want, f"{which} argnum {argnums}")


def _batched(draw, a, b, dim):
    """`b` samples around `a`, stacked along `dim` (None: `a` unbatched)."""
    if dim is None:
        return a, [a] * b
    samples = [a + draw(st.floats(-0.2, 0.2)) for _ in range(b)]
    return np.stack(samples, axis=dim), samples


@FUZZ
@given(st.data())
def test_func_vmap(data):
    """vmap of a program over 1-2 batch dims (nested vmap), in_dims with None entries,
    out_dims (None for an output independent of the mapped inputs), chunk_size, and
    vmap(grad(f)) per-sample gradients: against a NumPy loop."""
    prog = data.draw(programs(max_inputs=3))
    arrays = draw_arrays(data.draw, prog, lo=-1, hi=1)
    n = len(arrays)
    b1 = data.draw(st.integers(1, 3))  # an empty batch: test_vmap_empty_batch_regression
    dims1 = [data.draw(st.one_of(st.none(), st.integers(0, a.ndim))) for a in arrays]
    if all(d is None for d in dims1):
        dims1[0] = 0
    batched, samples = [], []
    for a, d in zip(arrays, dims1):
        big, ss = _batched(data.draw, a, b1, d)
        batched.append(big)
        samples.append(ss)
    per = [[samples[i][k] for i in range(n)] for k in range(b1)]  # per entry: inputs
    with np.errstate(all="ignore"):
        vals = [prog.values(p, "np") for p in per]
    assume(all(np.isfinite(v).all() and np.abs(v).max(initial=0) < 200 for vs in vals for v in vs))
    mode = data.draw(st.sampled_from(["plain", "grad", "nested"]))
    const = fg.tensor(np.arange(3.0), dtype="float64")
    od = data.draw(st.integers(0, len(prog.values(arrays, "np")[-1].shape)))
    chunk = data.draw(st.sampled_from([None, 1, 2]))
    in_dims = tuple(dims1) if data.draw(st.booleans()) or n > 1 else dims1[0]
    xs = _tensors(batched)
    if mode == "plain":

        def f(*ts):
            return prog.values(list(ts), "fg")[-1], const * 2

        y, c = FN.vmap(f, in_dims=in_dims, out_dims=(od, None), chunk_size=chunk)(*xs)
        CALLS["func.vmap"] += 1
        close(y, np.stack([v[-1] for v in vals], axis=od), "vmap")
        close(c, np.arange(3.0) * 2, "vmap out_dims=None")
    elif mode == "grad":
        sprog = Program(prog.shapes, prog.steps + [("sum", (None, False))], prog.used_at)
        g = FN.vmap(FN.grad(lambda *ts: sprog.values(list(ts), "fg")[-1]), in_dims=in_dims)(*xs)
        CALLS["func.vmap_grad"] += 1
        want = [split_cols(grad_ref(sprog, p), p)[0] for p in per]
        close(g, np.stack(want), "vmap(grad)", rtol=1e-9, atol=1e-9)
    else:  # a second batch dim of size b2 on input 0, mapped by an inner vmap
        b2 = data.draw(st.integers(1, 3))
        d2 = data.draw(st.integers(0, batched[0].ndim))
        outer = np.stack([batched[0] + 0.1 * k for k in range(b2)], axis=d2)
        inner_dims = (dims1[0],) + tuple(dims1[1:])
        assume(dims1[0] is not None)
        f = FN.vmap(
            lambda *ts: prog.values(list(ts), "fg")[-1], in_dims=inner_dims, chunk_size=chunk
        )
        outer_dims = (d2,) + (None,) * (n - 1)
        y = FN.vmap(f, in_dims=outer_dims, out_dims=0)(fg.tensor(outer, dtype="float64"), *xs[1:])
        CALLS["func.vmap_nested"] += 1
        want = []
        for j in range(b2):
            rows = []
            for k in range(b1):
                inp = [np.take(np.take(outer, j, axis=d2), k, axis=dims1[0])] + [
                    np.take(batched[i], k, axis=dims1[i]) if dims1[i] is not None else batched[i]
                    for i in range(1, n)
                ]
                rows.append(prog.values(inp, "np")[-1])
            want.append(np.stack(rows))
        close(y, np.stack(want), "nested vmap")


# ---------------------------------------------------------------- custom Function
Function = fg.autograd.Function
LOG: list = []


class MulSin(Function):
    """x * sin(w): saves both, returns only the gradients needs_input_grad asks for."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w.sin()

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        LOG.append(tuple(ctx.needs_input_grad))
        gx = g * w.sin() if ctx.needs_input_grad[0] else None
        gw = g * x * w.cos() if ctx.needs_input_grad[1] else None
        return gx, gw


class SinSign(Function):
    """(sin x, sign x) with the sign marked non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = x.sign()
        ctx.mark_non_differentiable(s)
        return x.sin(), s

    @staticmethod
    def backward(ctx, g, gs):
        LOG.append(gs)
        (x,) = ctx.saved_tensors
        return g * x.cos()


class TwoNoMaterialize(Function):
    """(2x, exp x) with set_materialize_grads(False): an unused output's gradient is None."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        e = x.exp()
        ctx.save_for_backward(e)
        return x * 2, e

    @staticmethod
    def backward(ctx, ga, gb):
        LOG.append((ga is None, gb is None))
        (e,) = ctx.saved_tensors
        out = None
        if ga is not None:
            out = 2 * ga
        if gb is not None:
            out = gb * e if out is None else out + gb * e
        return out


class TanhInPlace(Function):
    """tanh written into its (non-leaf) input, marked dirty."""

    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        x.tanh_()
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - y * y)


class ExpOnce(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @fg.autograd.once_differentiable
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class Cube(Function):
    """x ** 3 with a backward written in differentiable ops (double backward works)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g


class ScaleWithInfo(Function):
    """(x * k, k, "tag"): non-tensor outputs beside the tensor; their gradients are None."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k, k, "tag"

    @staticmethod
    def backward(ctx, g, gk, gtag):
        LOG.append((gk, gtag))
        return g * ctx.k, None


FEATURES = ["needs_input_grad", "non_differentiable", "no_materialize", "mark_dirty"]
FEATURES += ["once_differentiable", "twice", "double_backward", "non_tensor_outputs"]


@FUZZ
@given(st.sampled_from(FEATURES), st.data())
def test_custom_function(feature, data):
    """custom autograd.Function features, each against its NumPy derivative."""
    shape = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    el = st.floats(-1.5, 1.5).filter(lambda v: abs(v) > 1e-3)
    a = data.draw(hnp.arrays(np.float64, shape, elements=el))
    b = data.draw(hnp.arrays(np.float64, shape, elements=el))
    gout = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-2, 2)))
    G = fg.tensor(gout, dtype="float64")
    LOG.clear()
    CALLS[f"Function.{feature}"] += 1
    if feature == "needs_input_grad":
        rx, rw = data.draw(st.sampled_from([(True, True), (True, False), (False, True)]))
        x = fg.tensor(a, dtype="float64", requires_grad=rx)
        w = fg.tensor(b, dtype="float64", requires_grad=rw)
        y = MulSin.apply(x, w)
        close(y, a * np.sin(b), "MulSin forward")
        y.backward(G)
        assert LOG == [(rx, rw)]
        if rx:
            close(x.grad, gout * np.sin(b), "MulSin dx")
        if rw:
            close(w.grad, gout * a * np.cos(b), "MulSin dw")
        assert (x.grad is None) != rx and (w.grad is None) != rw
    elif feature == "non_differentiable":
        x = leaf(a)
        y, s = SinSign.apply(x)
        assert y.requires_grad and not s.requires_grad
        close(s, np.sign(a), "sign")
        (y * G).sum().backward()
        close(LOG[0], np.zeros(shape), "non-differentiable output's gradient")
        close(x.grad, gout * np.cos(a), "SinSign dx")
    elif feature == "no_materialize":
        x = leaf(a)
        p, e = TwoNoMaterialize.apply(x)
        use = data.draw(st.sampled_from(["first", "second", "both"]))
        loss = {"first": (p * G).sum(), "second": (e * G).sum(), "both": (p * G + e * G).sum()}
        loss[use].backward()
        assert LOG == [(use == "second", use == "first")]
        want = {"first": 2 * gout, "second": gout * np.exp(a), "both": gout * (2 + np.exp(a))}
        close(x.grad, want[use], "no-materialize dx")
    elif feature == "mark_dirty":
        x = leaf(a)
        c = x * 1.0
        y = TanhInPlace.apply(c)
        assert y is c, "a dirty input is returned as the output itself"
        close(c, np.tanh(a), "in-place tanh")
        (y * y * G).sum().backward()
        close(x.grad, 2 * np.tanh(a) * (1 - np.tanh(a) ** 2) * gout, "mark_dirty dx")
    elif feature == "once_differentiable":
        x = leaf(a)
        (g,) = fg.autograd.grad((ExpOnce.apply(x) * G).sum(), x, create_graph=True)
        close(g, gout * np.exp(a), "once_differentiable dx")
        with pytest.raises(RuntimeError):  # a second differentiation must not pass silently
            fg.autograd.grad((g * g).sum(), x)
    elif feature == "twice":  # one Function, two nodes in a graph, sharing an input
        x, w = leaf(a), leaf(b)
        y = MulSin.apply(MulSin.apply(x, w), w) + MulSin.apply(w, x)
        want_y = a * np.sin(b) ** 2 + b * np.sin(a)
        close(y, want_y, "twice forward")
        y.backward(G)
        close(x.grad, gout * (np.sin(b) ** 2 + b * np.cos(a)), "twice dx")
        close(w.grad, gout * (2 * a * np.sin(b) * np.cos(b) + np.sin(a)), "twice dw")
    elif feature == "double_backward":
        x = leaf(a)
        (g,) = fg.autograd.grad((Cube.apply(x).sin() * G).sum(), x, create_graph=True)
        close(g, gout * np.cos(a**3) * 3 * a * a, "Cube dx")
        (gg,) = fg.autograd.grad(g.sum(), x)
        want = gout * (6 * a * np.cos(a**3) - 9 * a**4 * np.sin(a**3))
        close(gg, want, "Cube d2x")
        assert fg.autograd.gradgradcheck(
            lambda t: Cube.apply(t).sin(), (leaf(a),), eps=1e-6, atol=1e-5, rtol=1e-4
        )
    elif feature == "non_tensor_outputs":
        x = leaf(a)
        k = data.draw(st.sampled_from([0.5, -3.0]))
        y, kk, tag = ScaleWithInfo.apply(x, k)
        assert kk == k and isinstance(kk, float) and tag == "tag"
        y.backward(G)
        assert LOG == [(None, None)]
        close(x.grad, gout * k, "non-tensor outputs dx")


# ---------------------------------------------------------------- saved tensors, checkpoint
@FUZZ
@given(st.data())
def test_saved_tensors_hooks_and_checkpoint(data):
    """The gradients of a program are unchanged by saved_tensors_hooks whose pack/unpack
    go through NumPy (or scale and unscale) and by checkpointing its tail
    (use_reentrant True or False)."""
    prog = data.draw(programs(min_steps=2))
    arrays = draw_arrays(data.draw, prog)
    (jac,) = jac_ref(lambda z: [prog.values(z, "np")[-1]], arrays)
    wants = split_cols(jac.reshape(-1, jac.shape[-1]).sum(0), arrays)
    leaves = [leaf(a) for a in arrays]
    which = data.draw(st.sampled_from(["hooks_numpy", "hooks_scale", "checkpoint"]))
    if which.startswith("hooks"):
        packed = []

        def pack(t):
            packed.append(1)
            if which == "hooks_numpy":
                return t.detach().numpy().copy()
            return t * 4.0

        def unpack(p):
            if which == "hooks_numpy":
                return fg.tensor(p, dtype="float64")
            return p / 4.0

        with fg.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = prog.values(leaves, "fg")[-1]
        y.sum().backward()
        CALLS[f"saved_tensors_{which}"] += 1
        saving = any(k in ("exp", "sin", "tanh", "pow", "mul", "matmul") for k, _ in prog.steps)
        assert packed or not saving, "pack never ran"
    else:
        m = data.draw(st.integers(1, len(prog.steps) - 1))
        reentrant = data.draw(st.booleans())
        z = prog.values(leaves, "fg")[m]

        def tail(zz, *xs):
            return prog.values(list(xs), "fg", m, zz)[-1]

        y = fg.utils.checkpoint.checkpoint(tail, z, *leaves, use_reentrant=reentrant)
        close(y, prog.values(arrays, "np")[-1], "checkpointed forward")
        y.sum().backward()
        CALLS[f"checkpoint(use_reentrant={reentrant})"] += 1
    for i, (lf, w) in enumerate(zip(leaves, wants)):
        if lf.grad is None:
            assert not np.any(w), f"leaf {i}: no gradient"
        else:
            close(lf.grad, w, f"{which}: leaf {i}")


# ---------------------------------------------------------------- functional_call, Paddle
class Small(fg.nn.Module):
    def __init__(self, k, m):
        super().__init__()
        self.lin = fg.nn.Linear(k, m)
        self.register_buffer("shift", fg.zeros(m, dtype=fg.float64))

    def forward(self, x):
        return (self.lin(x) + self.shift).tanh().sum(-1)


@FUZZ
@given(st.data())
def test_functional_call(data):
    """func.functional_call of a small module with a random subset of its parameters
    and buffer replaced: output and gradients (w.r.t. the replacements) against NumPy;
    the module's own tensors are left as they were."""
    k, m, b = (data.draw(st.integers(1, 3)) for _ in range(3))
    mod = Small(k, m).double()
    own = {n: p.detach().numpy().copy() for n, p in mod.named_parameters()}
    arrs = {
        "lin.weight": (m, k),
        "lin.bias": (m,),
        "shift": (m,),
    }
    el = st.floats(-1, 1)
    new = {n: data.draw(hnp.arrays(np.float64, s, elements=el)) for n, s in arrs.items()}
    names = sorted(set(data.draw(st.lists(st.sampled_from(sorted(arrs)), min_size=1))))
    x = data.draw(hnp.arrays(np.float64, (b, k), elements=el))
    params = {n: leaf(new[n]) for n in names}
    out = fg.func.functional_call(mod, params, (fg.tensor(x, dtype="float64"),))
    CALLS["func.functional_call"] += 1
    cur = {**own, "shift": np.zeros(m), **{n: new[n] for n in names}}

    def ref(z):
        d = dict(cur)
        d.update(zip(names, z))
        return [np.tanh(x @ d["lin.weight"].T + d["lin.bias"] + d["shift"]).sum(-1)]

    close(out, ref([new[n] for n in names])[0], "functional_call output")
    v = data.draw(hnp.arrays(np.float64, (b,), elements=st.floats(-2, 2)))
    grads = fg.autograd.grad(out, [params[n] for n in names], fg.tensor(v, dtype="float64"))
    (jac,) = jac_ref(ref, [new[n] for n in names])
    for n, g, w in zip(names, grads, split_cols(vjp_ref(jac, v), [new[n] for n in names])):
        close(g, w, f"functional_call grad {n}")
    for n, p in mod.named_parameters():
        np.testing.assert_array_equal(p.detach().numpy(), own[n], err_msg=f"module's {n}")
    np.testing.assert_array_equal(mod.shift.numpy(), np.zeros(m))


class PaddleSin(fg.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x.sin() * w

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensor()
        return dy * x.cos() * w, dy * x.sin()


@FUZZ
@given(st.data())
def test_paddle_grad_and_pylayer(data):
    """The Paddle spellings: paddle.grad of a random program (list in, list out,
    grad_outputs) and a PyLayer with ctx.save_for_backward / ctx.saved_tensor()."""
    paddle = fg  # a local name: this module stays PyTorch code
    prog = data.draw(programs(max_inputs=2))
    arrays = draw_arrays(data.draw, prog)
    xs = [paddle.to_tensor(a, dtype="float64", stop_gradient=False) for a in arrays]
    y = prog.values(xs, "fg")[-1]
    v = data.draw(hnp.arrays(np.float64, tuple(y.shape), elements=st.floats(-2, 2)))
    gs = paddle.grad([y], xs, [paddle.to_tensor(v, dtype="float64")])
    CALLS["paddle.grad"] += 1
    (jac,) = jac_ref(lambda z: [prog.values(z, "np")[-1]], arrays)
    assert len(gs) == len(xs)
    for g, w in zip(gs, split_cols(vjp_ref(jac, v), arrays)):
        close(g, w, "paddle.grad")
    a, b = arrays[0], data.draw(hnp.arrays(np.float64, arrays[0].shape, elements=st.floats(-1, 1)))
    x = paddle.to_tensor(a, dtype="float64", stop_gradient=False)
    w = paddle.to_tensor(b, dtype="float64", stop_gradient=False)
    out = PaddleSin.apply(x, w)
    close(out, np.sin(a) * b, "PyLayer forward")
    out.sum().backward()
    CALLS["PyLayer"] += 1
    close(x.grad, np.cos(a) * b, "PyLayer dx")
    close(w.grad, np.sin(a), "PyLayer dw")


# ---------------------------------------------------------------- regressions
def test_vmap_empty_batch_regression():
    """PyTorch maps a size-0 dimension to an empty result (torch.Size([0]) here)."""
    xs = fg.zeros(0, 3, dtype=fg.float64)
    y = fg.func.vmap(lambda t: t.sin().sum())(xs)
    assert tuple(y.shape) == (0,) and y.dtype == fg.float64
