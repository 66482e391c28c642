"""More cases of ``panic_fuzz_s42.py``: random counts, fake_quantize, reduce_as,
take_along_axis, F.pad, svd, RNN cells, jit.save/load files, autograd.functional,
Adam lazy_mode, spectral_norm. One ``(name, code)`` pair per call; ``code`` leaves its result in ``r``."""

from __future__ import annotations

import textwrap


def more_cases() -> list:
    """The ``(name, code)`` cases of this file."""
    C: list = []

    def c(name: str, code: str) -> None:
        C.append((name, code))

    # ---- b4 ----
    for rate in ["1e6", "1e9", "1e18", "3.4e38", "float('nan')", "-1.0", "float('inf')", "0.0"]:
        c(f"poisson rate={rate}", f"r = fg.poisson(fg.tensor([{rate}]))")
    c("poisson int", "r = fg.poisson(fg.tensor([3]))")
    c("poisson empty", "r = fg.poisson(fg.zeros(0))")
    c("poisson f16", "r = fg.poisson(fg.tensor([3.0], dtype=fg.float16))")
    c("poisson f16 big", "r = fg.poisson(fg.tensor([60000.0], dtype=fg.float16))")
    c("poisson expanded", "r = fg.poisson(fg.tensor([3.0]).expand(5))")
    for cnt in ["1e6", "1e9", "1e15", "float('nan')", "-1.0", "2.5", "float('inf')"]:
        c(f"binomial count={cnt}", f"r = fg.binomial(fg.tensor([{cnt}]), fg.tensor([0.5]))")
    c("binomial prob nan", "r = fg.binomial(fg.tensor([5.0]), fg.tensor([float('nan')]))")
    c("binomial broadcast bad", "r = fg.binomial(fg.ones(3), fg.ones(2) * 0.5)")
    c("binomial dtype mismatch", "r = fg.binomial(fg.ones(3, dtype=fg.float64), fg.ones(3) * 0.5)")
    c("binomial int count torch", "r = fg.binomial(fg.ones(3, dtype=fg.int64), fg.ones(3) * 0.5)")
    for a in ["0.0", "-1.0", "float('nan')", "float('inf')", "1e-310", "1e300", "1e-45"]:
        c(f"standard_gamma {a}", f"r = fg.standard_gamma(fg.tensor([{a}], dtype=fg.float64))")
    c("standard_gamma f16", "r = fg.standard_gamma(fg.tensor([1e-5, 60000.0], dtype=fg.float16))")
    c(
        "standard_gamma grad",
        "x = fg.tensor([1e-30, 1e30], dtype=fg.float64, requires_grad=True); fg.standard_gamma(x).sum().backward(); r = x.grad",
    )
    for kw in [
        "shape=[2**62]",
        "shape=[-1]",
        "shape=[2**31, 2**31]",
        "shape=None",
        "std=-1.0, shape=[2]",
        "std=float('nan'), shape=[2]",
        "mean=1000.0, shape=[2]",
        "mean=fg.ones(2), std=fg.ones(3)",
        "mean=fg.ones(2), std=-fg.ones(2)",
        "shape='ab'",
        "shape=[2.5]",
        "mean='a', shape=[2]",
    ]:
        c(f"log_normal {kw}", f"r = fg.log_normal({kw})")
    # fake quant
    x = "fg.tensor([-1.0, 0.0, 0.5, 100.0, float('nan'), float('inf')])"
    for args in [
        "1.0, 0, -2**63, 2**63",
        "1.0, 0, 0, 2**64",
        "0.0, 0, 0, 255",
        "float('nan'), 0, 0, 255",
        "float('inf'), 0, 0, 255",
        "-1.0, 0, 0, 255",
        "1e-45, 0, 0, 255",
        "1e39, 0, 0, 255",
        "1.0, 300, 0, 255",
        "1.0, float('nan'), 0, 255",
        "1.0, 0, 255, 0",
        "1.0, 0, 0.5, 255.9",
        "fg.tensor([1.0, 2.0]), 0, 0, 255",
        "fg.tensor(1.0), fg.tensor(300), 0, 255",
        "fg.tensor(1.0), fg.tensor(0.5), 0, 255",
        "'a', 0, 0, 255",
        "1.0, 0, -2**62, 2**62",
        "fg.tensor(1e-45), fg.tensor(0), 0, 255",
    ]:
        c(f"fq per tensor {args}", f"r = fg.fake_quantize_per_tensor_affine({x}, {args})")
    c(
        "fq per tensor int input",
        "r = fg.fake_quantize_per_tensor_affine(fg.tensor([1, 2]), 1.0, 0, 0, 255)",
    )
    c(
        "fq per tensor f16",
        "r = fg.fake_quantize_per_tensor_affine(fg.tensor([1.0, 300.0], dtype=fg.float16), 0.1, 0, 0, 255)",
    )
    c(
        "fq per tensor complex",
        "r = fg.fake_quantize_per_tensor_affine(fg.tensor([1j]), 1.0, 0, 0, 255)",
    )
    c(
        "fq per tensor grad",
        "x = fg.tensor([-1.0, 0.5, 300.0], requires_grad=True); fg.fake_quantize_per_tensor_affine(x, 1.0, 0, 0, 255).sum().backward(); r = x.grad",
    )
    for args in [
        "fg.ones(3), fg.zeros(3, dtype=fg.int32), 0, 0, 255",
        "fg.ones(2), fg.zeros(2, dtype=fg.int32), 0, 0, 255",
        "fg.ones(3), fg.zeros(3, dtype=fg.int32), -1, 0, 255",
        "fg.ones(3), fg.zeros(3, dtype=fg.int32), 2**62, 0, 255",
        "fg.zeros(3), fg.zeros(3, dtype=fg.int32), 0, 0, 255",
        "fg.ones(3)*float('nan'), fg.zeros(3), 0, 0, 255",
        "fg.ones(3), fg.full([3], float('nan')), 0, 0, 255",
        "fg.ones(3), fg.full([3], 2**40, dtype=fg.int64), 0, 0, 255",
        "fg.ones(3, 1), fg.zeros(3, 1), 0, 0, 255",
        "fg.ones(3), fg.zeros(3, dtype=fg.int32), 0, 0, 2**64",
        "fg.ones(3).expand(3), fg.zeros(1, dtype=fg.int32).expand(3), 0, 0, 255",
        "fg.ones(3, dtype=fg.complex64), fg.zeros(3, dtype=fg.int32), 0, 0, 255",
        "fg.ones(3), fg.zeros(3, dtype=fg.bool), 0, 0, 255",
    ]:
        c(
            f"fq per channel {args}",
            f"r = fg.fake_quantize_per_channel_affine(fg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), {args})",
        )
    c(
        "fq per channel 0-d",
        "r = fg.fake_quantize_per_channel_affine(fg.tensor(1.0), fg.ones(1), fg.zeros(1, dtype=fg.int32), 0, 0, 255)",
    )
    c(
        "fq per channel empty",
        "r = fg.fake_quantize_per_channel_affine(fg.zeros(0, 2), fg.ones(0), fg.zeros(0, dtype=fg.int32), 0, 0, 255)",
    )
    # reduce_as / take_along_axis / pad / svd / cells
    for args in [
        "fg.ones(2, 3), fg.ones(3)",
        "fg.ones(2, 3), fg.ones(4)",
        "fg.ones(2, 3), fg.ones(2, 1)",
        "fg.ones(2, 3), fg.ones(1, 2, 3)",
        "fg.ones(2, 3), fg.ones(0)",
        "fg.ones(0, 3), fg.ones(3)",
        "fg.tensor(1.0), fg.ones(1)",
        "fg.ones(2, 3), fg.tensor(1.0)",
        "fg.ones(2, 3, dtype=fg.bool), fg.ones(3)",
        "fg.ones(2, 3, dtype=fg.int8) * 100, fg.ones(3)",
        "fg.ones(2, 3), None",
        "fg.ones(2, 3), [3]",
    ]:
        c(f"reduce_as {args}", f"r = fg.reduce_as({args})")
    c(
        "reduce_as int8 values",
        "r = fg.reduce_as(fg.full([4], 100, dtype=fg.int8), fg.ones(1, dtype=fg.int8))",
    )
    for args in [
        "fg.ones(3, 4), fg.tensor([[0], [1]]), 1",
        "fg.ones(3, 4), fg.tensor([[5]]), 1",
        "fg.ones(3, 4), fg.tensor([[-5]]), 1",
        "fg.ones(3, 4), fg.tensor([[2**62]]), 1",
        "fg.ones(3, 4), fg.tensor([[0]]), 2**62",
        "fg.ones(3, 4), fg.tensor([0]), 1",
        "fg.ones(3, 4), fg.tensor([[0.5]]), 1",
        "fg.ones(3, 4), fg.zeros(1, 1, dtype=fg.int64).expand(2**31, 1), 1",
        "fg.ones(3, 4), fg.zeros(2**20, 2**20, dtype=fg.int64)[:0], 1",
        "fg.ones(3, 4), fg.zeros(3, 1, dtype=fg.int64), 1, False",
        "fg.ones(0, 4), fg.zeros(5, 1, dtype=fg.int64), 1",
        "fg.tensor(1.0), fg.tensor(0), 0",
        "fg.ones(3, 4), fg.zeros(1, 1, dtype=fg.int64), 1, True",
        "fg.ones(3, 4), fg.zeros(1, 1, dtype=fg.bool), 1",
        "fg.ones(1, 4).expand(3, 4), fg.tensor([[3], [2], [1]]), 1",
    ]:
        c(f"take_along_axis {args}", f"r = fg.take_along_axis({args})")
    for pad in [
        "[1, 1, 1, 1, 1, 1, 1, 1]",
        "[2**62, 0, 0, 0, 0, 0, 0, 0]",
        "[-3, -3, 0, 0, 0, 0, 0, 0]",
        "[-5, 0, 0, 0, 0, 0, 0, 0]",
        "[1, 1, 1]",
        "[1.5, 0, 0, 0, 0, 0, 0, 0]",
        "[2**31, 2**31, 0, 0, 0, 0, 0, 0]",
        "[0] * 10",
        "[1] * 8, 'reflect'",
        "[3, 3, 0, 0, 0, 0, 0, 0], 'reflect'",
        "[0, 0, 0, 0, 0, 0, 5, 5], 'reflect'",
        "[0, 0, 0, 0, 0, 0, 2**62, 0], 'replicate'",
        "[1] * 8, 'circular'",
        "[0, 0, 0, 0, 0, 0, 9, 0], 'circular'",
        "[1, 1, 1, 1], 'constant', float('nan')",
        "[0, 0, 0, 0, 1, 1, 1, 1], 'constant', 0.0, 'NHWC'",
        "[0, 0, 0, 0, 1, 1, 1, 1], 'constant', 0.0, 'NDHWC'",
        "[1] * 8, 'constant', 0.0, 'bogus'",
        "fg.tensor([1] * 8)",
        "fg.tensor([1.0] * 8)",
        "np.array([1] * 8)",
        "(1, 1, 1, 1, 1, 1, 1, 1)",
    ]:
        c(f"F.pad 4d {pad}", f"r = F.pad(fg.ones(1, 2, 3, 3), {pad}).shape")
    c("F.pad 0-d full", "r = F.pad(fg.tensor(1.0), [])")
    c("F.pad empty full", "r = F.pad(fg.ones(0, 2), [1, 1, 1, 1], 'reflect')")
    c("F.pad 5d full length 10", "r = F.pad(fg.ones(1, 1, 2, 2, 2), [1] * 10).shape")
    c("F.pad int8 value 1000", "r = F.pad(fg.ones(2, dtype=fg.int8), [1, 1], value=1000.0)")
    c("F.pad bool value", "r = F.pad(fg.ones(2, dtype=fg.bool), [1, 1], value=2.0)")
    c("F.pad complex", "r = F.pad(fg.ones(2, dtype=fg.complex64), [1, 1], 'reflect')")
    for a in [
        "fg.ones(0, 3)",
        "fg.ones(3, 0)",
        "fg.ones(0, 0)",
        "fg.full([3, 3], float('nan'))",
        "fg.full([3, 3], float('inf'))",
        "fg.ones(2, 3, dtype=fg.int64)",
        "fg.ones(2, 3, dtype=fg.float16)",
        "fg.ones(1, 3).expand(4, 3)",
        "fg.ones(3)",
        "fg.ones(2, 0, 3)",
        "fg.ones(2, 3, dtype=fg.complex64)",
        "fg.full([2, 2], 1e308, dtype=fg.float64)",
    ]:
        for fm in ["True", "False"]:
            c(f"svd {a} full_matrices={fm}", f"r = fg.linalg.svd({a}, full_matrices={fm})")
    c("svd paddle style", "r = fg.linalg.svd(fg.ones(3, 2), False)")
    # cells
    for cell in ["LSTMCell", "GRUCell", "RNNCell"]:
        c(f"{cell} 0 hidden", f"m = fg.nn.{cell}(3, 0); r = m(fg.ones(2, 3))")
        c(f"{cell} neg hidden", f"m = fg.nn.{cell}(3, -1); r = m(fg.ones(2, 3))")
        c(f"{cell} huge hidden", f"m = fg.nn.{cell}(3, 2**40); r = m")
        c(f"{cell} wrong input", f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 5))")
        c(f"{cell} 3d input", f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 2, 3))")
        c(f"{cell} 0-d input", f"m = fg.nn.{cell}(3, 4); r = m(fg.tensor(1.0))")
        c(f"{cell} empty batch", f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(0, 3))")
        c(f"{cell} unbatched", f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(3))")
        c(
            f"{cell} bad hx",
            f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 3), fg.ones(5, 4) if '{cell}' != 'LSTMCell' else (fg.ones(5, 4), fg.ones(2, 4)))",
        )
        c(
            f"{cell} hx batch mismatch",
            f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 3), fg.ones(3, 4) if '{cell}' != 'LSTMCell' else (fg.ones(2, 4), fg.ones(3, 4)))",
        )
        c(f"{cell} int input", f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 3, dtype=fg.int64))")
        c(f"{cell} f64 input", f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 3, dtype=fg.float64))")
        c(f"{cell} hx None tuple", f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 3), (None, None))")
        c(
            f"{cell} hx as list",
            f"m = fg.nn.{cell}(3, 4); r = m(fg.ones(2, 3), [fg.ones(2, 4), fg.ones(2, 4)])",
        )
        c(f"{cell} nan float size", f"m = fg.nn.{cell}(3, float('nan')); r = m")

    # ---- b5 ----
    # the model every jit case loads or mutates (PFDIR: the run's scratch folder)
    c(
        "jit setup",
        "m = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.ReLU(), fg.nn.Linear(4, 2))\n"
        "m.eval(); fg.jit.save(fg.jit.trace(m, fg.ones(1, 3)), 'PFDIR/m.pt'); r = None",
    )
    PRE = textwrap.dedent(
        """
    import json
    _d = fg.load('PFDIR/m.pt')
    prog = json.loads(_d['ferrograd.jit'])
    def save_prog(prog, params=None):
        d = dict(_d); d['ferrograd.jit'] = json.dumps(prog)
        if params is not None: d['params'] = params
        p = 'PFDIR/prog.pt'; fg.save(d, p); return p
    calls = prog['calls']
    """
    )

    def j(name, body, call="m(fg.ones(1, 3))"):
        c("jit " + name, PRE + body + f"\nm = fg.jit.load(p)\nr = {call}")

    j("baseline", "p = save_prog(prog)")
    j("var shape huge", "calls[0]['shape'] = [2**62, 3]; p = save_prog(prog)")
    j("var shape neg", "calls[0]['shape'] = [-1, 3]; p = save_prog(prog)")
    j(
        "input shape huge",
        "calls[4]['shape'] = [2**62, 2**62]; prog['inputs'][0]['shape'] = [2**62, 2**62]; p = save_prog(prog)",
    )
    j(
        "input shape huge only inputs",
        "prog['inputs'][0]['shape'] = [2**40, 3]; p = save_prog(prog)",
    )
    j("var dtype bogus", "calls[0]['dtype'] = 'bogus'; p = save_prog(prog)")
    j("var dtype complex", "calls[0]['dtype'] = 'complex64'; p = save_prog(prog)")
    j(
        "input dtype bool",
        "calls[4]['dtype'] = 'bool'; prog['inputs'][0]['dtype'] = 'bool'; p = save_prog(prog)",
    )
    j("op bogus", "calls[5]['op'] = 'os.system'; p = save_prog(prog)")
    j("op input oob", "calls[5]['inputs'] = [999]; p = save_prog(prog)")
    j("op input neg", "calls[5]['inputs'] = [-1]; p = save_prog(prog)")
    j("op input huge", "calls[5]['inputs'] = [2**70]; p = save_prog(prog)")
    j("op input self", "calls[5]['inputs'] = [5]; p = save_prog(prog)")
    j(
        "op attrs dim huge",
        "calls[5]['attrs'] = {'dict': [['dim0', 2**62], ['dim1', -2]]}; p = save_prog(prog)",
    )
    j("op attrs bad tag", "calls[5]['attrs'] = {'pickle': 'x'}; p = save_prog(prog)")
    j("op attrs two keys", "calls[5]['attrs'] = {'dict': [], 'tuple': []}; p = save_prog(prog)")
    j(
        "op attrs deep",
        "v = []\nfor _ in range(5000): v = [v]\ncalls[5]['attrs'] = {'dict': [['dim0', v]]}; p = save_prog(prog)",
    )
    j(
        "op attrs const oob",
        "calls[5]['attrs'] = {'dict': [['dim0', {'const': 10**6}]]}; p = save_prog(prog)",
    )
    j(
        "op attrs const neg",
        "calls[5]['attrs'] = {'dict': [['dim0', {'const': -1}]]}; p = save_prog(prog)",
    )
    j(
        "op attrs slot huge",
        "calls[5]['attrs'] = {'dict': [['dim0', {'slot': 2**62}]]}; p = save_prog(prog)",
    )
    j(
        "op attrs dtype attr",
        "calls[5]['attrs'] = {'dict': [['dim0', {'dtype': '__class__'}]]}; p = save_prog(prog)",
    )
    j("out mismatch", "calls[5]['out'] = 77; p = save_prog(prog)")
    j("calls not list", "prog['calls'] = {'a': 1}; p = save_prog(prog)")
    j("calls list of ints", "prog['calls'] = [1, 2]; p = save_prog(prog)")
    j("calls empty", "prog['calls'] = []; p = save_prog(prog)")
    j("outputs oob", "prog['outputs']['ids'] = [999]; p = save_prog(prog)")
    j("outputs neg", "prog['outputs']['ids'] = [-1]; p = save_prog(prog)")
    j("outputs kind bogus", "prog['outputs']['kind'] = 'bogus'; p = save_prog(prog)")
    j("outputs none", "prog['outputs'] = None; p = save_prog(prog)")
    j("inputs none", "prog['inputs'] = None; p = save_prog(prog)")
    j(
        "inputs extra",
        "prog['inputs'].append({'name': 'y', 'dtype': 'float32', 'shape': [1]}); p = save_prog(prog)",
    )
    j("persistable missing", "prog['persistables'][0]['name'] = 'nope'; p = save_prog(prog)")
    j(
        "persistable names dunder",
        "prog['persistables'][0]['names'] = ['__class__']; p = save_prog(prog)",
    )
    j(
        "persistable names dotted deep",
        "prog['persistables'][0]['names'] = ['a.b.c.d']; p = save_prog(prog)",
    )
    j(
        "persistable names training",
        "prog['persistables'][0]['names'] = ['training']; p = save_prog(prog)",
    )
    j(
        "persistable names forward",
        "prog['persistables'][0]['names'] = ['forward']; p = save_prog(prog)",
    )
    j("persistable kind bogus", "prog['persistables'][0]['kind'] = 'bogus'; p = save_prog(prog)")
    j(
        "params wrong shape",
        "pr = dict(_d['params']); pr['0.weight'] = fg.ones(5, 5); p = save_prog(prog, pr)",
    )
    j(
        "params int dtype",
        "pr = dict(_d['params']); pr['0.weight'] = fg.ones(4, 3, dtype=fg.int64); p = save_prog(prog, pr)",
    )
    j(
        "params complex",
        "pr = dict(_d['params']); pr['0.weight'] = fg.ones(4, 3, dtype=fg.complex64); p = save_prog(prog, pr)",
    )
    j(
        "params not tensor",
        "pr = dict(_d['params']); pr['0.weight'] = 'abc'; p = save_prog(prog, pr)",
    )
    j("params none", "p = save_prog(prog, {})")
    j("version", "prog['version'] = 999; p = save_prog(prog)")
    j(
        "traced bogus",
        "calls.insert(5, {'call': 'traced', 'kind': 'function', 'name': 'eval', 'args': [], 'kwargs': {'dict': []}, 'inputs': [], 'outputs': []}); p = save_prog(prog)",
    )
    j(
        "traced getattr",
        "calls.insert(5, {'call': 'traced', 'kind': 'method', 'name': '__reduce__', 'args': [], 'kwargs': {'dict': []}, 'inputs': [], 'outputs': []}); p = save_prog(prog)",
    )
    j(
        "const like huge",
        "calls.insert(5, {'call': 'const', 'value': 1.0, 'like': 2**62, 'out': 5}); p = save_prog(prog)",
    )
    j("assign oob", "calls.append({'call': 'assign', 'src': 999, 'dst': -5}); p = save_prog(prog)")
    j("wrong input at call", "p = save_prog(prog)", call="m(fg.ones(7, 9))")
    j("int input at call", "p = save_prog(prog)", call="m(fg.ones(1, 3, dtype=fg.int64))")
    j("no input at call", "p = save_prog(prog)", call="m()")
    j("extra inputs at call", "p = save_prog(prog)", call="m(fg.ones(1, 3), fg.ones(1, 3))")
    j("numpy input at call", "p = save_prog(prog)", call="m(np.ones((1, 3)))")
    j("string input at call", "p = save_prog(prog)", call="m('abc')")
    j("train then call", "p = save_prog(prog)", call="(m.train(), m(fg.ones(1, 3)))")
    j(
        "grad through",
        "p = save_prog(prog)",
        call="m(fg.ones(1, 3, requires_grad=True)).sum().backward()",
    )
    c(
        "jit truncated",
        "import shutil; b = open('PFDIR/m.pt', 'rb').read(); p = 'PFDIR/t.pt'; open(p, 'wb').write(b[: len(b) // 2]); r = fg.jit.load(p)",
    )
    c(
        "jit byteflip",
        "import random; b = bytearray(open('PFDIR/m.pt', 'rb').read()); rs = random.Random(1)\nout = []\nfor k in range(60):\n    bb = bytearray(b)\n    for _ in range(8): bb[rs.randrange(len(bb))] = rs.randrange(256)\n    p = 'PFDIR/f.pt'; open(p, 'wb').write(bb)\n    try: fg.jit.load(p)(fg.ones(1, 3)); out.append('ok')\n    except Exception as e: out.append(type(e).__name__)\nr = sorted(set(out))",
    )
    c("jit empty file", "p = 'PFDIR/e.pt'; open(p, 'wb').close(); r = fg.jit.load(p)")
    c("jit dir", "r = fg.jit.load('PFDIR')")
    c("jit None", "r = fg.jit.load(None)")
    c("jit fileobj", "import io; r = fg.jit.load(io.BytesIO(b'PK\\x03\\x04garbage'))")
    c(
        "jit paddle pdmodel garbage",
        "open('PFDIR/g.pdmodel', 'wb').write(b'\\xff\\xfe' * 100); open('PFDIR/g.pdiparams', 'wb').write(b'x'); r = fg.jit.load('PFDIR/g')",
    )
    c(
        "jit paddle pdmodel json params garbage",
        "import json; d = fg.load('PFDIR/m.pt'); open('PFDIR/h.pdmodel', 'w').write(d['ferrograd.jit']); open('PFDIR/h.pdiparams', 'wb').write(b'garbage'); r = fg.jit.load('PFDIR/h')",
    )
    c("jit save lambda", "r = fg.jit.save(lambda x: x, 'PFDIR/l.pt')")
    c(
        "jit save data-dependent",
        "class M(fg.nn.Module):\n    def forward(self, x):\n        return x * 2 if x.sum().item() > 0 else x\nr = fg.jit.save(M(), 'PFDIR/dd.pt', input_spec=[fg.static.InputSpec([1, 3], 'float32')] if hasattr(fg, 'static') else None)",
    )
    # autograd.functional
    AF = "fg.autograd.functional."
    c("jacobian vectorize empty", f"r = {AF}jacobian(lambda x: x * 2, fg.zeros(0), vectorize=True)")
    c(
        "jacobian vectorize 0-d",
        f"r = {AF}jacobian(lambda x: x * 2, fg.tensor(1.0), vectorize=True)",
    )
    c(
        "jacobian forward-mode",
        f"r = {AF}jacobian(lambda x: x.sin(), fg.ones(3), vectorize=True, strategy='forward-mode')",
    )
    c(
        "jacobian forward-mode no vectorize",
        f"r = {AF}jacobian(lambda x: x.sin(), fg.ones(3), strategy='forward-mode')",
    )
    c("jacobian bad strategy", f"r = {AF}jacobian(lambda x: x.sin(), fg.ones(3), strategy='bogus')")
    c("jacobian fn returns int", f"r = {AF}jacobian(lambda x: 3, fg.ones(3))")
    c("jacobian fn returns None", f"r = {AF}jacobian(lambda x: None, fg.ones(3), vectorize=True)")
    c("jacobian int input", f"r = {AF}jacobian(lambda x: x * 2, fg.ones(3, dtype=fg.int64))")
    c(
        "jacobian complex",
        f"r = {AF}jacobian(lambda x: x * 2, fg.ones(2, dtype=fg.complex64), vectorize=True)",
    )
    c(
        "jacobian huge",
        f"r = {AF}jacobian(lambda x: x.expand(2**20, 2**20)[0], fg.ones(2**20), vectorize=True)",
    )
    c(
        "hessian vectorize outer_jacobian_strategy",
        f"r = {AF}hessian(lambda x: (x ** 3).sum(), fg.ones(3), vectorize=True, outer_jacobian_strategy='forward-mode')",
    )
    c("hessian non-scalar", f"r = {AF}hessian(lambda x: x ** 3, fg.ones(3))")
    c("vjp v wrong shape", f"r = {AF}vjp(lambda x: x * 2, fg.ones(3), fg.ones(4))")
    c("jvp v wrong shape", f"r = {AF}jvp(lambda x: x * 2, fg.ones(3), fg.ones(4))")
    c(
        "hvp v wrong dtype",
        f"r = {AF}hvp(lambda x: (x ** 3).sum(), fg.ones(3), fg.ones(3, dtype=fg.float64))",
    )
    c("vhp int v", f"r = {AF}vhp(lambda x: (x ** 3).sum(), fg.ones(3), fg.ones(3, dtype=fg.int64))")
    c(
        "jacobian recursion",
        f"import sys; sys.setrecursionlimit(200)\ndef f(x):\n    return f(x)\nr = {AF}jacobian(f, fg.ones(2))",
    )
    c(
        "jacobian nested tuple inputs",
        f"r = {AF}jacobian(lambda a, b: a * b, (fg.ones(2), fg.ones(2)), vectorize=True)",
    )
    c(
        "jacobian list inputs",
        f"r = {AF}jacobian(lambda a, b: a * b, [fg.ones(2), fg.ones(3)], vectorize=True)",
    )
    c("incubate jacobian", "r = fg.incubate.autograd.Jacobian(lambda x: x * 2, fg.ones(3))[:]")
    c(
        "incubate hessian",
        "r = fg.incubate.autograd.Hessian(lambda x: (x ** 2).sum(), fg.ones(3))[:]",
    )
    c("incubate jvp", "r = fg.incubate.autograd.jvp(lambda x: x * 2, fg.ones(3), fg.ones(4))")
    c("incubate vjp", "r = fg.incubate.autograd.vjp(lambda x: x * 2, fg.ones(3), fg.ones(4))")
    c(
        "incubate Jacobian index",
        "r = fg.incubate.autograd.Jacobian(lambda x: x * 2, fg.ones(3))[2**62]",
    )
    c(
        "incubate Jacobian batched",
        "r = fg.incubate.autograd.Jacobian(lambda x: x * 2, fg.ones(2, 3), is_batched=True)[:]",
    )
    c(
        "incubate Jacobian batched 1d",
        "r = fg.incubate.autograd.Jacobian(lambda x: x * 2, fg.ones(3), is_batched=True)[:]",
    )
    # Adam lazy_mode / spectral_norm
    c(
        "adam lazy dense param",
        "w = fg.nn.Parameter(fg.ones(3, 2)); o = fg.optim.Adam([w], lazy_mode=True); (w * 2).sum().backward(); o.step(); r = w",
    )
    c(
        "adam lazy embedding sparse",
        "e = fg.nn.Embedding(5, 2, sparse=True); o = fg.optim.Adam(e.parameters(), lazy_mode=True); e(fg.tensor([1, 1, 4])).sum().backward(); o.step(); r = e.weight",
    )
    c(
        "adam lazy embedding oob",
        "e = fg.nn.Embedding(5, 2, sparse=True); o = fg.optim.Adam(e.parameters(), lazy_mode=True); e(fg.tensor([7])).sum().backward(); o.step(); r = e.weight",
    )
    c(
        "adam lazy embedding empty ids",
        "e = fg.nn.Embedding(5, 2, sparse=True); o = fg.optim.Adam(e.parameters(), lazy_mode=True); e(fg.zeros(0, dtype=fg.int64)).sum().backward(); o.step(); r = e.weight",
    )
    c(
        "adam lazy twice no grad",
        "e = fg.nn.Embedding(5, 2, sparse=True); o = fg.optim.Adam(e.parameters(), lazy_mode=True); o.step(); o.step(); r = e.weight",
    )
    c(
        "adamw lazy weight decay",
        "e = fg.nn.Embedding(5, 2, sparse=True); o = fg.optim.AdamW(e.parameters(), lazy_mode=True, weight_decay=0.5); e(fg.tensor([1])).sum().backward(); o.step(); r = e.weight",
    )
    c(
        "adam lazy nan grad",
        "e = fg.nn.Embedding(5, 2, sparse=True); o = fg.optim.Adam(e.parameters(), lazy_mode=True); (e(fg.tensor([1])) * float('nan')).sum().backward(); o.step(); r = e.weight",
    )
    c(
        "adam lazy ids padding",
        "e = fg.nn.Embedding(5, 2, sparse=True, padding_idx=1); o = fg.optim.Adam(e.parameters(), lazy_mode=True); e(fg.tensor([1, 2])).sum().backward(); o.step(); r = e.weight",
    )
    c(
        "adam lazy state dict roundtrip",
        "e = fg.nn.Embedding(5, 2, sparse=True); o = fg.optim.Adam(e.parameters(), lazy_mode=True); e(fg.tensor([1])).sum().backward(); o.step(); sd = o.state_dict(); o2 = fg.optim.Adam(e.parameters(), lazy_mode=True); o2.load_state_dict(sd); e(fg.tensor([2])).sum().backward(); o2.step(); r = e.weight",
    )
    c(
        "adam lazy mode str",
        "w = fg.nn.Parameter(fg.ones(3)); r = fg.optim.Adam([w], lazy_mode='yes')",
    )
    for args in [
        "fg.nn.Linear(3, 4)",
        "fg.nn.Linear(3, 4), dim=5",
        "fg.nn.Linear(3, 4), dim=-3",
        "fg.nn.Linear(3, 4), n_power_iterations=0",
        "fg.nn.Linear(3, 4), n_power_iterations=-1",
        "fg.nn.Linear(3, 4), eps=0.0",
        "fg.nn.Linear(3, 4), eps=float('nan')",
        "fg.nn.Linear(3, 4), name='nope'",
        "fg.nn.Linear(0, 4)",
        "fg.nn.Conv2d(2, 3, 3), dim=1",
        "fg.nn.Embedding(4, 3)",
    ]:
        c(
            f"spectral_norm {args}",
            f"m = fg.nn.utils.spectral_norm({args}); x = fg.ones(2, m.in_features if hasattr(m, 'in_features') else 1) if isinstance(m, fg.nn.Linear) else None\nr = m(x) if x is not None else m",
        )
    c(
        "spectral_norm zero weight",
        "m = fg.nn.utils.spectral_norm(fg.nn.Linear(3, 4))\nwith fg.no_grad():\n    m.weight_orig.zero_()\nr = m(fg.ones(1, 3))",
    )
    c(
        "spectral_norm nan weight",
        "m = fg.nn.utils.spectral_norm(fg.nn.Linear(3, 4))\nwith fg.no_grad():\n    m.weight_orig.fill_(float('nan'))\nr = m(fg.ones(1, 3))",
    )
    c(
        "SpectralNorm layer",
        "m = fg.nn.SpectralNorm([3, 4], dim=0, power_iters=1); r = m(fg.ones(3, 4))",
    )
    c(
        "SpectralNorm layer bad dim",
        "m = fg.nn.SpectralNorm([3, 4], dim=5, power_iters=1); r = m(fg.ones(3, 4))",
    )
    c(
        "SpectralNorm layer wrong shape",
        "m = fg.nn.SpectralNorm([3, 4], dim=0, power_iters=1); r = m(fg.ones(5, 4))",
    )
    c(
        "SpectralNorm layer 1d",
        "m = fg.nn.SpectralNorm([3], dim=0, power_iters=1); r = m(fg.ones(3))",
    )
    c(
        "SpectralNorm layer neg iters",
        "m = fg.nn.SpectralNorm([3, 4], dim=0, power_iters=-1); r = m(fg.ones(3, 4))",
    )
    c(
        "SpectralNorm layer huge shape",
        "r = fg.nn.SpectralNorm([2**40, 2**40], dim=0, power_iters=1)",
    )
    c(
        "SpectralNorm layer empty",
        "m = fg.nn.SpectralNorm([0, 4], dim=0, power_iters=1); r = m(fg.ones(0, 4))",
    )
    return C
