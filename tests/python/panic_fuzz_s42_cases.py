"""The cases of ``panic_fuzz_s42.py`` (session 42's crash hunt): creation (frombuffer,
asarray, empty_strided, ...) and the complex views. One ``(name, code)`` pair per call;
``code`` leaves its result in ``r``."""

from __future__ import annotations


def cases() -> list:
    """The ``(name, code)`` cases of this file."""
    C: list = []

    def c(name: str, code: str) -> None:
        C.append((name, code))

    # ---- b1 ----
    H = [2**62, 2**31, 2**63 - 1, 2**64, -1, -(2**63)]
    # frombuffer
    for dt in [
        "fg.float32",
        "fg.complex128",
        "fg.bool",
        "fg.float16",
        "fg.bfloat16",
        "fg.int8",
        "fg.uint8",
        "fg.int64",
    ]:
        c(
            f"frombuffer {dt} odd offset",
            f"r = fg.frombuffer(bytearray(range(37)), dtype={dt}, offset=1, count=2)",
        )
        c(
            f"frombuffer {dt} offset=3 all",
            f"r = fg.frombuffer(bytearray(35), dtype={dt}, offset=3)",
        )
    for cnt in H + [0, 3, float("nan")]:
        c(
            f"frombuffer count={cnt}",
            f"r = fg.frombuffer(bytearray(16), dtype=fg.float32, count={cnt!r})",
        )
        c(
            f"frombuffer offset={cnt}",
            f"r = fg.frombuffer(bytearray(16), dtype=fg.float32, offset={cnt!r})",
        )
    c(
        "frombuffer bool bytes 2,255",
        "r = fg.frombuffer(bytearray([2, 255, 0, 1]), dtype=fg.bool); r = (r.logical_not(), r.sum(), r == True, r.float(), r.any(), r.all(), r.tolist())",
    )
    c(
        "from_numpy bool invalid",
        "a = np.frombuffer(bytearray([2, 255, 0, 1]), dtype=np.bool_); r = fg.from_numpy(a); r = (r.logical_not(), r.sum(), r.tolist(), r.to(fg.int64))",
    )
    c(
        "frombuffer noncontig memoryview",
        "m = memoryview(bytearray(32))[::2]; r = fg.frombuffer(m, dtype=fg.float32)",
    )
    c(
        "frombuffer memoryview 2d",
        "m = memoryview(bytearray(32)).cast('B', (4, 8)); r = fg.frombuffer(m, dtype=fg.float32)",
    )
    c(
        "frombuffer readonly bytes write",
        "t = fg.frombuffer(b'\\x00'*16, dtype=fg.float32); t.add_(1); r = t",
    )
    c(
        "frombuffer array.array d",
        "import array; r = fg.frombuffer(array.array('d', [1.0, 2.0]), dtype=fg.float32)",
    )
    c("frombuffer str", "r = fg.frombuffer('abcd', dtype=fg.uint8)")
    c("frombuffer None", "r = fg.frombuffer(None, dtype=fg.uint8)")
    c("frombuffer dtype str", "r = fg.frombuffer(bytearray(8), dtype='float32')")
    c("frombuffer dtype None", "r = fg.frombuffer(bytearray(8), dtype=None)")
    c(
        "frombuffer buffer freed",
        "b = bytearray(16); t = fg.frombuffer(b, dtype=fg.float32); del b; import gc; gc.collect(); r = t + 1",
    )
    c(
        "frombuffer resize bytearray",
        "b = bytearray(16); t = fg.frombuffer(b, dtype=fg.float32); b.extend(bytes(10**6)); r = t",
    )
    c(
        "frombuffer requires_grad int",
        "r = fg.frombuffer(bytearray(16), dtype=fg.int32, requires_grad=True)",
    )
    c(
        "frombuffer np.int64 count",
        "r = fg.frombuffer(bytearray(16), dtype=fg.float32, count=np.int64(2))",
    )
    c(
        "frombuffer offset np.float",
        "r = fg.frombuffer(bytearray(16), dtype=fg.float32, offset=np.float64(2))",
    )
    # asarray
    c("asarray nested ragged", "r = fg.asarray([[1, 2], [3]])")
    c("asarray deep", "x = 1\nfor _ in range(100000): x = [x]\nr = fg.asarray(x)")
    c("asarray deep 1000", "x = 1.0\nfor _ in range(1000): x = [x]\nr = fg.asarray(x)")
    c("asarray str", "r = fg.asarray('abc')")
    c("asarray None", "r = fg.asarray(None)")
    c("asarray bytes", "r = fg.asarray(b'abcd')")
    c("asarray bytes odd", "r = fg.asarray(b'abcde')")
    c("asarray bytes dtype f64", "r = fg.asarray(b'abcdefgh', dtype=fg.float64)")
    c(
        "asarray bytearray copy False dtype",
        "r = fg.asarray(bytearray(8), dtype=fg.float64, copy=False)",
    )
    c("asarray memoryview int", "r = fg.asarray(memoryview(bytearray(8)))")
    c("asarray np uint64 big", "r = fg.asarray(np.array([2**64-1], dtype=np.uint64))")
    c("asarray np uint64 scalar", "r = fg.asarray(np.uint64(2**64-1))")
    c("asarray np object", "r = fg.asarray(np.array([1, 'a'], dtype=object))")
    c("asarray np str", "r = fg.asarray(np.array(['a']))")
    c("asarray np datetime", "r = fg.asarray(np.array(['2020-01-01'], dtype='datetime64[D]'))")
    c("asarray np noncontig", "r = fg.asarray(np.arange(20.0)[::3])")
    c("asarray np neg stride", "r = fg.asarray(np.arange(20.0)[::-1])")
    c("asarray np zero stride", "r = fg.asarray(np.broadcast_to(np.arange(3.0), (4, 3)))")
    c(
        "asarray np unaligned",
        "a = np.frombuffer(bytearray(17), dtype=np.uint8)[1:].view(np.float64); r = fg.asarray(a)",
    )
    c(
        "asarray np unaligned copy False",
        "a = np.frombuffer(bytearray(17), dtype=np.uint8)[1:].view(np.float64); r = fg.asarray(a, copy=False)",
    )
    c("asarray np bigendian", "r = fg.asarray(np.arange(3, dtype='>f8'))")
    c("asarray np float16 req grad", "r = fg.asarray(np.ones(3, np.float16), requires_grad=True)")
    c("asarray np int req grad", "r = fg.asarray(np.ones(3, np.int64), requires_grad=True)")
    c(
        "asarray tensor dtype int req grad",
        "r = fg.asarray(fg.ones(3), dtype=fg.int64, requires_grad=True)",
    )
    c("asarray copy=1", "r = fg.asarray([1], copy=1)")
    c("asarray nan int dtype", "r = fg.asarray([float('nan')], dtype=fg.int64)")
    c("asarray inf int dtype", "r = fg.asarray([float('inf')], dtype=fg.int32)")
    c("asarray 1e300 float32", "r = fg.asarray([1e300], dtype=fg.float32)")
    c("asarray 2**70", "r = fg.asarray([2**70])")
    c("asarray 2**63 int64", "r = fg.asarray([2**63], dtype=fg.int64)")
    c("asarray complex to int", "r = fg.asarray([1+2j], dtype=fg.int64)")
    c("asarray list of tensors", "r = fg.asarray([fg.ones(2), fg.ones(3)])")
    c("asarray list of tensors ok", "r = fg.asarray([fg.ones(2), fg.ones(2)])")
    c("asarray dict", "r = fg.asarray({'a': 1})")
    c("asarray device cuda", "r = fg.asarray([1], device='cuda')")
    # empty_strided
    for size, stride in [
        ([2**62], [1]),
        ([2**62], [0]),
        ([2**31, 2**31], [1, 2**31]),
        ([2**40, 2**40], [2**40, 1]),
        ([3], [-1]),
        ([-1], [1]),
        ([2, 3], [1]),
        ([2**63], [1]),
        ([2**64], [0]),
        ([0, 2**62], [2**62, 1]),
        ([3, 3], [2**62, 2**62]),
        ([2, 2], [2**62, 1]),
        ([], []),
        ([1.5], [1]),
        ([float("nan")], [1]),
        ([True], [1]),
        (None, None),
        ("ab", "cd"),
        ([3], [2**63]),
        ([5], [2**61]),
    ]:
        c(f"empty_strided {size} {stride}", f"r = fg.empty_strided({size!r}, {stride!r})")
    c(
        "empty_strided stride0 2**31 sum",
        "t = fg.empty_strided([2**31], [0], dtype=fg.int8); r = t.shape",
    )
    c(
        "empty_strided stride0 2**31 contiguous",
        "t = fg.empty_strided([2**31, 4], [0, 1]); r = t.contiguous().shape",
    )
    c("new_empty_strided", "r = fg.ones(2).new_empty_strided([2**62], [2])")
    c("empty_strided bool", "r = fg.empty_strided([2, 2], [1, 2], dtype=fg.bool)")
    c("empty_strided complex", "r = fg.empty_strided([2, 2], [1, 2], dtype=fg.complex64)")
    c(
        "empty_strided req grad int",
        "r = fg.empty_strided([2], [1], dtype=fg.int64, requires_grad=True)",
    )
    # empty_permuted
    for size, perm in [
        ([2**62, 2**62], [0, 1]),
        ([2, 3], [1, 1]),
        ([2, 3], [0]),
        ([2, 3], [0, 2]),
        ([-1, 3], [0, 1]),
        ([2**31, 2**31, 4], [2, 0, 1]),
        ([], []),
        ([3], [-1]),
        ([0, 2**62], [1, 0]),
    ]:
        c(f"empty_permuted {size} {perm}", f"r = fg.empty_permuted({size!r}, {perm!r})")
    # nonzero_static
    for sz, fill in [
        (2**62, -1),
        (2**31, 0),
        (-1, 0),
        (3, 2**63),
        (3, float("nan")),
        (None, 0),
        (3, None),
        (0, 0),
        (3, -(2**63)),
    ]:
        c(
            f"nonzero_static {sz} {fill}",
            f"r = fg.nonzero_static(fg.tensor([0, 1, 1]), size={sz!r}, fill_value={fill!r})",
        )
    c("nonzero_static 0-d", "r = fg.nonzero_static(fg.tensor(1.0), size=3)")
    c("nonzero_static 0-size", "r = fg.nonzero_static(fg.zeros(0, 3), size=3)")
    c("nonzero_static complex", "r = fg.nonzero_static(fg.tensor([0j, 1j]), size=3)")
    c("nonzero_static nan", "r = fg.nonzero_static(fg.tensor([float('nan'), 0.0]), size=3)")
    c("nonzero_static expanded", "r = fg.nonzero_static(fg.ones(1).expand(2**20), size=2)")
    c("nonzero_static expanded huge", "r = fg.nonzero_static(fg.ones(1).expand(2**40), size=2)")
    c("nonzero_static size 2**31 ndim 2", "r = fg.nonzero_static(fg.ones(2,2), size=2**31).shape")
    # as_strided_scatter
    for size, stride, off in [
        ([2**62], [1], 0),
        ([2], [2**62], 0),
        ([2], [1], 2**62),
        ([2], [1], -1),
        ([2], [-1], 3),
        ([2, 2], [0, 1], 0),
        ([-1], [1], 0),
        ([2], [1], None),
        ([2, 2], [1], 0),
        ([0], [1], 100),
        ([2**31, 2**31], [0, 0], 0),
        ([3], [1], float("nan")),
        ([3], [1], 1.5),
        ([1], [2**63], 0),
    ]:
        c(
            f"as_strided_scatter {size} {stride} {off}",
            f"x = fg.zeros(6); s = fg.ones({size!r}) if all(isinstance(v, int) and 0 <= v < 100 for v in {size!r}) else fg.ones(2)\nr = fg.as_strided_scatter(x, s, {size!r}, {stride!r}, {off!r})",
        )
    c(
        "as_strided_scatter noncontig input",
        "x = fg.arange(12.0).reshape(3, 4).t(); r = fg.as_strided_scatter(x, fg.full([2], -1.0), [2], [1], 0)",
    )
    c(
        "as_strided_scatter offset view input",
        "x = fg.arange(12.0)[4:]; r = (fg.as_strided_scatter(x, fg.full([2], -1.0), [2], [1]), x.storage_offset())",
    )
    c(
        "as_strided_scatter expanded input",
        "x = fg.ones(1).expand(4); r = fg.as_strided_scatter(x, fg.full([1], -1.0), [1], [1], 0)",
    )
    c(
        "as_strided_scatter complex into float",
        "x = fg.zeros(4); r = fg.as_strided_scatter(x, fg.ones(2, dtype=fg.complex64), [2], [1], 0)",
    )
    c(
        "as_strided_scatter grad",
        "x = fg.zeros(4, requires_grad=True); s = fg.ones(2, requires_grad=True); fg.as_strided_scatter(x, s, [2], [2], 0).sum().backward(); r = (x.grad, s.grad)",
    )
    c(
        "as_strided_scatter 0-d",
        "x = fg.tensor(1.0); r = fg.as_strided_scatter(x, fg.tensor(5.0), [], [], 0)",
    )
    # gradient
    c("gradient huge spacing list", "r = fg.gradient(fg.arange(5.0), spacing=[fg.arange(5.0)])")
    c("gradient spacing 0", "r = fg.gradient(fg.arange(5.0), spacing=0)")
    c("gradient spacing nan", "r = fg.gradient(fg.arange(5.0), spacing=float('nan'))")
    c("gradient spacing complex", "r = fg.gradient(fg.arange(5.0), spacing=1j)")
    c("gradient spacing str", "r = fg.gradient(fg.arange(5.0), spacing='a')")
    c("gradient spacing 2d tensor", "r = fg.gradient(fg.arange(5.0), spacing=[fg.ones(5, 1)])")
    c(
        "gradient spacing wrong len coords",
        "r = fg.gradient(fg.arange(5.0), spacing=[fg.arange(4.0)])",
    )
    c("gradient spacing coords dup", "r = fg.gradient(fg.arange(5.0), spacing=[fg.zeros(5)])")
    c("gradient 0-d", "r = fg.gradient(fg.tensor(1.0))")
    c("gradient 0-d dim 0", "r = fg.gradient(fg.tensor(1.0), dim=0)")
    c("gradient 0-size", "r = fg.gradient(fg.zeros(0, 3), dim=1)")
    c("gradient dim 2**62", "r = fg.gradient(fg.zeros(3, 3), dim=2**62)")
    c("gradient dim list dup", "r = fg.gradient(fg.zeros(3, 3), dim=[0, -2])")
    c("gradient dim []", "r = fg.gradient(fg.zeros(3, 3), dim=[])")
    c("gradient edge 3", "r = fg.gradient(fg.zeros(3, 3), edge_order=3)")
    c("gradient edge 2 size 2", "r = fg.gradient(fg.zeros(2), edge_order=2)")
    c("gradient edge nan", "r = fg.gradient(fg.zeros(3), edge_order=float('nan'))")
    c("gradient int8", "r = fg.gradient(fg.tensor([1, 5, 127], dtype=fg.int8))")
    c(
        "gradient int8 values",
        "r = fg.gradient(fg.tensor([-128, 127, -128], dtype=fg.int8))[0].tolist()",
    )
    c("gradient complex", "r = fg.gradient(fg.tensor([1j, 2, 3+1j]))")
    c("gradient float16", "r = fg.gradient(fg.tensor([1.0, 2.0, 4.0], dtype=fg.float16))")
    c(
        "gradient bfloat16",
        "r = fg.gradient(fg.tensor([1.0, 2.0, 4.0], dtype=fg.bfloat16), spacing=[fg.tensor([0.0, 1.0, 3.0], dtype=fg.bfloat16)])",
    )
    c("gradient expanded", "r = fg.gradient(fg.ones(1).expand(5))")
    c(
        "gradient coords int spacing int input",
        "r = fg.gradient(fg.tensor([1, 4, 9]), spacing=[fg.tensor([0, 1, 2])])",
    )
    c(
        "gradient coords complex",
        "r = fg.gradient(fg.tensor([1.0, 4.0, 9.0]), spacing=[fg.tensor([0j, 1, 2])])",
    )
    c(
        "gradient coords req grad",
        "c0 = fg.tensor([0.0, 1.0, 3.0], requires_grad=True); g = fg.gradient(fg.tensor([1.0, 4.0, 9.0]), spacing=[c0], edge_order=2)[0]; g.sum().backward(); r = c0.grad",
    )
    c(
        "gradient spacing np scalar",
        "r = fg.gradient(fg.tensor([1.0, 4.0, 9.0]), spacing=np.float32(2))",
    )
    c(
        "gradient spacing list np",
        "r = fg.gradient(fg.tensor([1.0, 4.0, 9.0]), spacing=[np.float64(2)])",
    )
    c(
        "gradient spacing tensor 1-elt 1-d",
        "r = fg.gradient(fg.tensor([1.0, 4.0, 9.0]), spacing=fg.tensor([2.0]))",
    )

    # ---- b2 ----
    # view_as_real / view_as_complex / real / imag
    c("vac odd last", "r = fg.view_as_complex(fg.zeros(3, 3))")
    c("vac last 2 stride 2", "r = fg.view_as_complex(fg.zeros(3, 4)[:, ::2])")
    c("vac transposed", "r = fg.view_as_complex(fg.zeros(2, 3).t())")
    c("vac offset odd", "r = fg.view_as_complex(fg.zeros(7)[1:].reshape(3, 2))")
    c("vac expanded", "r = fg.view_as_complex(fg.zeros(2).expand(3, 2))")
    c("vac expanded last", "r = fg.view_as_complex(fg.zeros(3, 1).expand(3, 2))")
    c("vac 0-d", "r = fg.view_as_complex(fg.tensor(1.0))")
    c("vac 1-d [2]", "r = fg.view_as_complex(fg.zeros(2))")
    c("vac empty [0,2]", "r = fg.view_as_complex(fg.zeros(0, 2))")
    c("vac empty [2,0]", "r = fg.view_as_complex(fg.zeros(2, 0))")
    c("vac int", "r = fg.view_as_complex(fg.zeros(3, 2, dtype=fg.int64))")
    c("vac f16", "r = fg.view_as_complex(fg.zeros(3, 2, dtype=fg.float16))")
    c("vac bf16", "r = fg.view_as_complex(fg.zeros(3, 2, dtype=fg.bfloat16))")
    c("vac bool", "r = fg.view_as_complex(fg.zeros(3, 2, dtype=fg.bool))")
    c("vac complex", "r = fg.view_as_complex(fg.zeros(3, 2, dtype=fg.complex64))")
    c("vac odd stride dim0", "r = fg.view_as_complex(fg.zeros(9, 2).as_strided([3, 2], [3, 1], 0))")
    c(
        "vac odd offset as_strided",
        "r = fg.view_as_complex(fg.zeros(20).as_strided([3, 2], [4, 1], 1))",
    )
    c(
        "vac stride0 dim0",
        "r = fg.view_as_complex(fg.zeros(1, 2).expand(5, 2)); r = (r, r.stride())",
    )
    c(
        "vac grad",
        "x = fg.randn(3, 2, requires_grad=True); z = fg.view_as_complex(x); (z.abs()).sum().backward(); r = x.grad",
    )
    c("vac write", "x = fg.zeros(3, 2); z = fg.view_as_complex(x); z[1] = 1+2j; r = x")
    c("vac of var 0 numel offset", "x = fg.zeros(10, 2)[10:]; r = fg.view_as_complex(x)")
    c("var real", "r = fg.view_as_real(fg.zeros(3))")
    c("var 0-d complex", "r = fg.view_as_real(fg.tensor(1+2j))")
    c("var empty", "r = fg.view_as_real(fg.zeros(0, dtype=fg.complex64))")
    c("var expanded", "r = fg.view_as_real(fg.tensor([1+2j]).expand(4)); r = (r, r.stride())")
    c(
        "var noncontig",
        "z = fg.arange(12.0).reshape(3,2,2); z = fg.view_as_complex(z).t() if False else fg.view_as_complex(z).transpose(0,1); r = fg.view_as_real(z)",
    )
    c("var int", "r = fg.view_as_real(fg.zeros(3, dtype=fg.int64))")
    c(
        "var of vac roundtrip write",
        "x = fg.zeros(2, 2); fg.view_as_real(fg.view_as_complex(x))[0, 1] = 5; r = x",
    )
    c("real of real", "r = fg.zeros(3).real")
    c("imag of real", "r = fg.zeros(3).imag")
    c("imag write expanded", "z = fg.tensor([1+2j]).expand(3); z.imag[0] = 7; r = z")
    c("imag add_ expanded", "z = fg.tensor([1+2j]).expand(3); z.imag.add_(1); r = z")
    c(
        "real write float64 into c64",
        "z = fg.zeros(3, dtype=fg.complex64); z.real.copy_(fg.tensor([1e300, 1.0, 2.0], dtype=fg.float64)); r = z",
    )
    c("real 0-d", "z = fg.tensor(1+2j); z.real.fill_(5); r = z")
    c("real empty", "r = fg.zeros(0, dtype=fg.complex128).real")
    c(
        "real grad backward twice",
        "z = fg.tensor([1+2j], requires_grad=True); y = (z.real * 2).sum() + (z.imag ** 2).sum(); y.backward(); r = z.grad",
    )
    c(
        "imag inplace under grad",
        "w = fg.tensor([1+2j], requires_grad=True); z = w * 1; z.imag.mul_(3); z.abs().sum().backward(); r = (z, w.grad)",
    )
    c(
        "real of real requires grad write",
        "x = fg.zeros(3, requires_grad=True); r = x.real; r.add_(1)",
    )
    c(
        "real of view_as_real of vac",
        "x = fg.zeros(4, 2); r = fg.view_as_complex(x)[::2].real; r.fill_(3); r = x",
    )
    c("fg.real str", "r = fg.real('abc')")
    c("fg.imag None", "r = fg.imag(None)")
    c(
        "real storage after del",
        "z = fg.tensor([1+2j, 3+4j]); re = z.real; del z; import gc; gc.collect(); r = re + 1",
    )
    c("imag numpy", "z = fg.tensor([1+2j, 3+4j]); a = z.imag.numpy(); r = a")
    c(
        "imag np.asarray write",
        "z = fg.tensor([1+2j, 3+4j]); a = np.asarray(z.imag); a[0] = 9; r = (z, a.flags.writeable)",
    )
    c("imag dlpack", "z = fg.tensor([1+2j, 3+4j]); a = np.from_dlpack(z.imag); r = (a, a.strides)")
    c(
        "imag memoryview",
        "z = fg.tensor([1+2j, 3+4j]); m = memoryview(z.imag); r = (m.strides, m.tolist())",
    )
    c(
        "imag contiguous",
        "z = fg.tensor([1+2j, 3+4j]); r = (z.imag.is_contiguous(), z.imag.contiguous(), z.imag.view(-1))",
    )
    c("imag reshape", "z = fg.tensor([[1+2j, 3+4j]]); r = z.imag.reshape(2)")
    c("imag view dtype", "z = fg.tensor([1+2j, 3+4j]); r = z.imag.view(fg.int32)")
    c(
        "real view dtype c128 to int64",
        "z = fg.tensor([1+2j, 3+4j], dtype=fg.complex128); r = z.real.view(fg.int64)",
    )
    c("real as_strided", "z = fg.tensor([1+2j, 3+4j]); r = z.real.as_strided([4], [1], 0)")
    c("real as_strided off", "z = fg.tensor([1+2j, 3+4j]); r = z.real.as_strided([2], [1], 3)")
    c("real as_strided huge", "z = fg.tensor([1+2j, 3+4j]); r = z.real.as_strided([2], [2**62], 0)")
    c(
        "imag storage_offset",
        "z = fg.tensor([1+2j, 3+4j]); r = (z.imag.storage_offset(), z.imag.stride(), z[1:].imag.storage_offset())",
    )
    c(
        "imag save load",
        "import tempfile, os; z = fg.tensor([1+2j, 3+4j]); p = tempfile.mktemp(suffix='.npz'); fg.save({'a': z.imag, 'z': z}, p); d = fg.load(p); r = (d['a'], d['z'])",
    )
    c(
        "imag pickle",
        "import pickle; z = fg.tensor([1+2j, 3+4j]); r = pickle.loads(pickle.dumps(z.imag))",
    )
    c("imag set_", "z = fg.tensor([1+2j, 3+4j]); i = z.imag; i.set_(fg.zeros(5)); r = (i, z)")
    c("imag resize_", "z = fg.tensor([1+2j, 3+4j]); i = z.imag; i.resize_(10); r = (i, z)")
    c(
        "real untyped_storage",
        "z = fg.tensor([1+2j, 3+4j]); r = z.real.untyped_storage().nbytes() if hasattr(z.real, 'untyped_storage') else None",
    )
    c(
        "z resize after real",
        "z = fg.tensor([1+2j, 3+4j]); re = z.real; z.resize_(100); z.fill_(1); r = re",
    )
    c(
        "z set_ after imag",
        "z = fg.tensor([1+2j, 3+4j]); im = z.imag; z.set_(fg.zeros(1, dtype=fg.complex64)); r = im + 1",
    )
    c(
        "vac then resize base",
        "x = fg.zeros(4, 2); z = fg.view_as_complex(x); x.resize_(1); r = z + 1",
    )
    c(
        "imag detach write",
        "z = fg.tensor([1+2j], requires_grad=True); z.detach().imag.fill_(0); r = z",
    )
    c(
        "imag of vac of imag",
        "z = fg.zeros(2, 2, dtype=fg.complex128); r = fg.view_as_complex(z.imag)",
    )
    c("imag of grad z inplace", "z = fg.tensor([1+2j], requires_grad=True); r = z.imag; r.fill_(0)")

    return C
