"""Paddle-code cases of ``panic_fuzz_s42.py`` (``import ferrograd as paddle``):
take_along_axis broadcasting, F.pad with data_format, svd, the RNN cells, reduce_as,
as_complex/as_real, floor_mod, binomial/poisson, where_, split/stack, round, dot,
quantile/nanmedian, corrupted paddle.load files. One ``(name, code)`` pair per call."""

from __future__ import annotations


def paddle_cases() -> list:
    """The ``(name, code)`` cases of this file, each run under Paddle's import name."""
    C: list = []

    def c(name: str, code: str) -> None:
        C.append((name, "import ferrograd as paddle\ndel fg\n" + code))

    for args in [
        "paddle.ones([3, 4]), paddle.to_tensor([[0], [1]]), 1",
        "paddle.ones([3, 4]), paddle.to_tensor([[0]]), 1",
        "paddle.ones([3, 4]), paddle.to_tensor([[0, 1, 2, 3, 0]]), 1",
        "paddle.ones([3, 4]), paddle.to_tensor([[0]]), 1, broadcast=False",
        "paddle.ones([1, 4]), paddle.to_tensor([[0], [1], [2]]), 1",
        "paddle.ones([3, 4]), paddle.to_tensor([[2**40]]), 1",
        "paddle.ones([3, 4]), paddle.to_tensor([[-1]]), 1",
        "paddle.ones([3, 4]), paddle.zeros([2**31, 1], dtype='int64'), 1",
        "paddle.ones([0, 4]), paddle.to_tensor([[0]]), 1",
        "paddle.to_tensor(1.0), paddle.to_tensor(0), 0",
        "paddle.ones([3, 4]), paddle.to_tensor([[0]]), 5",
    ]:
        c(f"paddle take_along_axis {args}", f"r = paddle.take_along_axis({args})")
    for args in [
        "[1, 1, 1, 1, 1, 1, 1, 1]",
        "[1, 1, 1, 1, 1, 1, 1, 1], data_format='NHWC'",
        "[1, 1, 1, 1, 1, 1, 1, 1], mode='reflect'",
        "[0, 0, 0, 0, 0, 0, 2**62, 0]",
        "[0, 0, 0, 0, 2, 2, 2, 2], mode='reflect', data_format='NCHW'",
        "[0, 0, 0, 0, -2, -2, 0, 0]",
        "[1, 1, 1, 1], data_format='NHWC'",
        "[1, 1, 1, 1], data_format='NDHWC'",
        "[1, 1, 1, 1], data_format='bogus'",
        "[1] * 6",
        "[-5] * 8",
        "[1, 1, 1, 1, 1, 1, 1, 1], pad_from_left_axis=False",
        "paddle.to_tensor([1, 1, 1, 1])",
    ]:
        c(
            f"paddle F.pad {args}",
            f"import ferrograd.nn.functional as F\nr = F.pad(paddle.ones([1, 2, 3, 3]), {args}).shape",
        )
    for a in [
        "paddle.ones([3, 2])",
        "paddle.ones([0, 2])",
        "paddle.ones([2, 3, 0])",
        "paddle.full([2, 2], float('nan'))",
        "paddle.ones([3])",
    ]:
        for fm in ["False", "True"]:
            c(f"paddle svd {a} {fm}", f"r = paddle.linalg.svd({a}, full_matrices={fm})")
    for cell in ["LSTMCell", "GRUCell", "SimpleRNNCell"]:
        c(f"paddle {cell} basic", f"m = paddle.nn.{cell}(3, 4); r = m(paddle.ones([2, 3]))")
        c(
            f"paddle {cell} states wrong",
            f"m = paddle.nn.{cell}(3, 4); r = m(paddle.ones([2, 3]), paddle.ones([5, 4]) if '{cell}' != 'LSTMCell' else (paddle.ones([5, 4]), paddle.ones([2, 4])))",
        )
        c(f"paddle {cell} 1d", f"m = paddle.nn.{cell}(3, 4); r = m(paddle.ones([3]))")
        c(f"paddle {cell} zero hidden", f"m = paddle.nn.{cell}(3, 0); r = m(paddle.ones([2, 3]))")
    for args in [
        "paddle.ones([2, 3]), paddle.ones([3])",
        "paddle.ones([2, 3]), paddle.ones([4])",
        "paddle.ones([2, 3]), paddle.ones([1, 1, 3])",
        "paddle.ones([2, 3], dtype='int8') * 100, paddle.ones([1], dtype='int8')",
    ]:
        c(f"paddle reduce_as {args}", f"r = paddle.reduce_as({args})")
    for a in [
        "paddle.ones([3, 3])",
        "paddle.ones([3, 2]).t()",
        "paddle.ones([3, 2], dtype='int64')",
        "paddle.ones([0, 2])",
        "paddle.to_tensor(1.0)",
        "paddle.ones([2, 2], dtype='float16')",
    ]:
        c(f"paddle as_complex {a}", f"r = paddle.as_complex({a})")
    for a in [
        "paddle.ones([3])",
        "paddle.to_tensor([1+2j])",
        "paddle.to_tensor(1+2j)",
        "paddle.ones([0], dtype='complex64')",
    ]:
        c(f"paddle as_real {a}", f"r = paddle.as_real({a})")
    for args in [
        "paddle.to_tensor([5, -5]), paddle.to_tensor([0, 0])",
        "paddle.to_tensor([5.0, -5.0]), paddle.to_tensor([0.0, 0.0])",
        "paddle.to_tensor([-2**63]), paddle.to_tensor([-1])",
        "paddle.to_tensor([5], dtype='int8'), paddle.to_tensor([-128], dtype='int8')",
        "paddle.to_tensor([5+1j]), paddle.to_tensor([2])",
    ]:
        c(f"paddle floor_mod {args}", f"r = paddle.floor_mod({args})")
    for args in [
        "paddle.to_tensor([5, 10]), paddle.to_tensor([0.5, 0.5])",
        "paddle.to_tensor([5, 2**62]), paddle.to_tensor([0.5, 0.5])",
        "paddle.to_tensor([-1]), paddle.to_tensor([0.5])",
        "paddle.to_tensor([5.5]), paddle.to_tensor([0.5])",
        "paddle.to_tensor([True]), paddle.to_tensor([0.5])",
        "paddle.to_tensor([5]), paddle.to_tensor([1.5])",
        "paddle.to_tensor([10**9]), paddle.to_tensor([0.3])",
    ]:
        c(f"paddle binomial {args}", f"r = paddle.binomial({args})")
    c("paddle poisson big", "r = paddle.poisson(paddle.to_tensor([1e9, 5.0]))")
    c(
        "paddle where_ shape grows",
        "x = paddle.ones([3]); r = paddle.where_(paddle.to_tensor([[True], [False]]), x, paddle.zeros([3]))",
    )
    c(
        "paddle where_ int into float",
        "x = paddle.ones([3]); r = paddle.where_(paddle.to_tensor([True, False, True]), x, paddle.to_tensor([7, 7, 7]))",
    )
    c(
        "paddle where_ float into int",
        "x = paddle.ones([3], dtype='int64'); r = paddle.where_(paddle.to_tensor([True, False, True]), x, paddle.to_tensor([7.5, 7.5, 7.5]))",
    )
    c(
        "paddle where_ nonbool cond",
        "x = paddle.ones([3]); r = paddle.where_(paddle.to_tensor([1, 0, 2]), x, paddle.zeros([3]))",
    )
    c(
        "paddle where_ leaf grad",
        "x = paddle.ones([3]); x.stop_gradient = False; r = paddle.where_(paddle.to_tensor([True, False, True]), x, paddle.zeros([3]))",
    )
    c(
        "paddle where_ expanded",
        "x = paddle.ones([1]).expand([3]); r = paddle.where_(paddle.to_tensor([True, False, True]), x, paddle.zeros([3]))",
    )
    c("paddle standard_gamma int", "r = paddle.standard_gamma(paddle.to_tensor([1, 2]))")
    c("paddle log_normal", "r = paddle.log_normal(mean=0.0, std=1.0, shape=[2**62])")
    c(
        "paddle histogram_bin_edges",
        "r = paddle.histogram_bin_edges(paddle.to_tensor([1.0, 2.0]), bins=3, min=0, max=0)",
    )
    c("paddle split keyword", "r = paddle.split(paddle.ones([6]), num_or_sections=[2, -1, 2**62])")
    c("paddle split neg", "r = paddle.split(paddle.ones([6]), num_or_sections=[-1, -1])")
    c("paddle split zero", "r = paddle.split(paddle.ones([6]), num_or_sections=0)")
    c(
        "paddle split tensor sections",
        "r = paddle.split(paddle.ones([6]), num_or_sections=[paddle.to_tensor(2), 4])",
    )
    c("paddle split huge int", "r = paddle.split(paddle.ones([6]), num_or_sections=2**62)")
    c("paddle stack empty", "r = paddle.stack([])")
    c("paddle stack axis huge", "r = paddle.stack([paddle.ones([2])], axis=2**62)")
    c(
        "paddle eigvalsh nonsym",
        "r = paddle.linalg.eigvalsh(paddle.to_tensor([[1.0, 2.0], [0.0, 1.0]]))",
    )
    c("paddle eigvalsh UPLO bad", "r = paddle.linalg.eigvalsh(paddle.eye(2), UPLO='X')")
    c(
        "paddle is_empty",
        "r = (paddle.is_empty(paddle.ones([0, 3])), paddle.is_empty(paddle.to_tensor(1.0)))",
    )
    c("paddle round decimals huge", "r = paddle.round(paddle.to_tensor([1.23456]), decimals=2**62)")
    c(
        "paddle round decimals neg huge",
        "r = paddle.round(paddle.to_tensor([1.23456]), decimals=-400)",
    )
    c(
        "paddle round decimals 400",
        "r = paddle.round(paddle.to_tensor([1.23456], dtype='float64'), decimals=400)",
    )
    c("paddle round int decimals", "r = paddle.round(paddle.to_tensor([15, 25]), decimals=-1)")
    c(
        "paddle round half",
        "r = paddle.round(paddle.to_tensor([0.5, 1.5, 2.5, -0.5], dtype='float16'))",
    )
    c("paddle dot 2d mismatched", "r = paddle.dot(paddle.ones([2, 3]), paddle.ones([3, 3]))")
    c("paddle dot 3d", "r = paddle.dot(paddle.ones([2, 2, 3]), paddle.ones([2, 2, 3]))")
    c("paddle dot empty", "r = paddle.dot(paddle.ones([0, 3]), paddle.ones([0, 3]))")
    c(
        "paddle dot int overflow",
        "r = paddle.dot(paddle.to_tensor([2**62, 2**62]), paddle.to_tensor([2, 2]))",
    )
    c("paddle mean x=", "r = paddle.mean(x=paddle.ones([3]), axis=2**62)")
    c("paddle quantile axis list dup", "r = paddle.quantile(paddle.ones([3, 3]), 0.5, axis=[0, 0])")
    c("paddle quantile q nan", "r = paddle.quantile(paddle.ones([3, 3]), float('nan'))")
    c("paddle quantile q list empty", "r = paddle.quantile(paddle.ones([3, 3]), [])")
    c("paddle nanmedian axes", "r = paddle.nanmedian(paddle.ones([3, 3, 3]), axis=[0, 2, -1])")
    c(
        "paddle nanmedian all nan",
        "r = paddle.nanmedian(paddle.full([3, 3], float('nan')), axis=[0, 1])",
    )
    c("paddle nanmedian empty", "r = paddle.nanmedian(paddle.ones([0, 3]), axis=[0])")
    c(
        "paddle load corrupted",
        "p = 'PFDIR/x.pdparams'; paddle.save({'w': paddle.ones([3])}, p); b = bytearray(open(p, 'rb').read()); b[len(b)//2] ^= 0xFF; open(p, 'wb').write(b); r = paddle.load(p)",
    )
    c(
        "paddle load truncated",
        "p = 'PFDIR/y.pdparams'; paddle.save({'w': paddle.ones([3])}, p); b = open(p, 'rb').read(); open(p, 'wb').write(b[:-30]); r = paddle.load(p)",
    )
    return C
