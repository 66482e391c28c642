"""``static.save_inference_model`` / ``load_inference_model`` and their helpers
(``normalize_program``, ``serialize_*`` / ``deserialize_*``, ``save_to_file`` /
``load_from_file``): a program built in static mode, pruned to what the fetch vars need
from the feed vars, written in ferrograd's JSON + ``.npz`` format and run again.

Reference: Paddle's python/paddle/static/io.py (``save_inference_model``,
``load_inference_model``, ``normalize_program``) and python/paddle/static/pir_io.py
(``normalize_pir_program``, ``pir_prune_with_input``: a feed var not involved in the
fetch vars is a ValueError; ``_inference_optimize`` sets ``is_test``), io_utils.py
(``_check_vars``: a non-Variable is a ValueError; ``_normalize_path_prefix``).
"""

from __future__ import annotations

import json
import os

import ferrograd as paddle
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import ferrograd.static as static
import numpy as np
import pytest
from ferrograd.static.export import CaptureError


@pytest.fixture
def static_mode():
    paddle.enable_static()
    try:
        with static.scope_guard(static.Scope()):
            yield
    finally:
        paddle.disable_static()


def _mlp():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name="x", shape=[None, 4], dtype="float32")
        label = static.data(name="label", shape=[None, 1], dtype="float32")
        h = static.nn.fc(x, size=8, activation="relu")
        h = F.dropout(h, 0.5)  # the identity in the inference program
        out = static.nn.fc(h, size=1)
        loss = paddle.mean((out - label) ** 2)
        test_prog = main.clone(for_test=True)
        paddle.optimizer.SGD(learning_rate=0.05).minimize(loss)
    return main, startup, test_prog, x, label, out, loss


def test_mlp_round_trip_after_training(static_mode, tmp_path):
    main, startup, test_prog, x, label, out, loss = _mlp()
    exe = static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(16, 4)).astype("float32")
    ys = xs.sum(axis=1, keepdims=True)
    for _ in range(5):
        exe.run(main, feed={"x": xs, "label": ys}, fetch_list=[loss])
    new_x = rng.normal(size=(7, 4)).astype("float32")
    (ref,) = exe.run(test_prog, feed={"x": new_x}, fetch_list=[out.name])
    prefix = os.path.join(str(tmp_path), "sub", "mlp")
    # the training program itself (dropout, backward, updates): pruned to the forward
    static.save_inference_model(prefix, [x], [out], exe, program=main)
    assert os.path.isfile(prefix + ".pdmodel") and os.path.isfile(prefix + ".pdiparams")
    with open(prefix + ".pdmodel", encoding="utf-8") as f:
        assert json.load(f)["format"] == "ferrograd.jit.program"
    with static.scope_guard(static.Scope()):  # a fresh process, as it were
        prog, feeds, fetches = static.load_inference_model(prefix, exe)
        assert feeds == ["x"]
        assert len(fetches) == 1 and fetches[0].shape == [-1, 1]
        (got,) = exe.run(prog, feed={feeds[0]: new_x}, fetch_list=fetches)
        np.testing.assert_array_equal(got, ref)
        # the loaded program is an inference program: no label, no loss, no update
        assert "label" not in prog.global_block().vars
        assert not any(t in ("gradients", "optimizer_step") for t in prog.global_block().ops)
        (again,) = exe.run(prog, feed={"x": new_x}, fetch_list=fetches)
        np.testing.assert_array_equal(again, ref)


def test_cnn_with_layers_round_trip(static_mode, tmp_path):
    paddle.seed(0)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        img = static.data(name="img", shape=[None, 1, 8, 8], dtype="float32")
        label = static.data(name="label", shape=[None], dtype="int64")
        model = nn.Sequential(
            nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(), nn.MaxPool2D(2),
            nn.Flatten(), nn.Dropout(0.2), nn.Linear(64, 3),
        )  # fmt: skip
        logits = model(img)
        probs = F.softmax(logits, axis=-1)
        loss = nn.CrossEntropyLoss()(logits, label)
        test_prog = main.clone(for_test=True)
        paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters()).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(8, 1, 8, 8)).astype("float32")
    ys = (xs.mean(axis=(1, 2, 3)) > 0).astype("int64")
    for _ in range(3):  # moves batch norm's statistics away from their start
        exe.run(main, feed={"img": xs, "label": ys}, fetch_list=[loss])
    new = rng.normal(size=(5, 1, 8, 8)).astype("float32")
    ref_logits, ref_probs = exe.run(
        test_prog, feed={"img": new}, fetch_list=[logits.name, probs.name]
    )
    prefix = os.path.join(str(tmp_path), "cnn")
    static.save_inference_model(prefix, [img], [logits, probs], exe, program=main)
    with static.scope_guard(static.Scope()):
        prog, feeds, fetches = static.load_inference_model(prefix, exe)
        got_logits, got_probs = exe.run(prog, feed={feeds[0]: new}, fetch_list=fetches)
    np.testing.assert_array_equal(got_logits, ref_logits)
    np.testing.assert_array_equal(got_probs, ref_probs)
    # test mode is written into the file: jit.load runs the same program as a layer
    paddle.disable_static()
    try:
        layer = paddle.jit.load(prefix)
        lg, pr = layer(paddle.to_tensor(new))
        np.testing.assert_array_equal(lg.numpy(), ref_logits)
        np.testing.assert_array_equal(pr.numpy(), ref_probs)
    finally:
        paddle.enable_static()


def test_pruning_drops_the_label_branch(static_mode, tmp_path):
    main, startup, test_prog, x, label, out, loss = _mlp()
    exe = static.Executor()
    exe.run(startup)
    prog = static.normalize_program(main, [x], [out])
    assert prog is not main
    names = set(prog.global_block().vars)
    assert "x" in names and "label" not in names and loss.name not in names
    xv = np.ones((2, 4), "float32")
    (a,) = exe.run(prog, feed={"x": xv}, fetch_list=[prog.global_block().var(out.name)])
    # what the test program computes (the training program would also train)
    (b,) = exe.run(test_prog, feed={"x": xv}, fetch_list=[out.name])
    np.testing.assert_array_equal(a, b)
    # a data var the fetch vars need and feed_vars lacks stays an input (Paddle's PIR)
    prefix = os.path.join(str(tmp_path), "loss")
    static.save_inference_model(prefix, [x], [loss], exe, program=main)
    _, feeds, _ = static.load_inference_model(prefix, exe)
    assert feeds == ["x", "label"]


def test_feeding_an_intermediate_variable(static_mode, tmp_path):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name="x", shape=[None, 3], dtype="float32")
        h = paddle.tanh(x) * 2.0
        out = static.nn.fc(h, size=2)
    exe = static.Executor()
    exe.run(startup)
    hv = np.arange(6, dtype="float32").reshape(2, 3) / 6
    prefix = os.path.join(str(tmp_path), "m")
    static.save_inference_model(prefix, [h], [out], exe)
    prog, feeds, fetches = static.load_inference_model(prefix, exe)
    assert feeds == [h.name] and "x" not in prog.global_block().vars
    (got,) = exe.run(prog, feed={h.name: hv}, fetch_list=fetches)
    w = np.array(static.global_scope().find_var(main.all_parameters()[0].name))
    b = np.array(static.global_scope().find_var(main.all_parameters()[1].name))
    np.testing.assert_allclose(got, hv.astype("float64") @ w + b, rtol=1e-5, atol=1e-6)


def test_serialize_and_deserialize(static_mode, tmp_path):
    main, startup, test_prog, x, _, out, _ = _mlp()
    exe = static.Executor()
    exe.run(startup)
    xv = np.full((3, 4), 0.5, "float32")
    (ref,) = exe.run(test_prog, feed={"x": xv}, fetch_list=[out.name])
    prog_bytes = static.serialize_program([x], [out], program=main)
    param_bytes = static.serialize_persistables([x], [out], exe, program=main)
    assert isinstance(prog_bytes, bytes) and isinstance(param_bytes, bytes)
    path = os.path.join(str(tmp_path), "m.bin")
    static.save_to_file(path, param_bytes)
    assert static.load_from_file(path) == param_bytes
    with static.scope_guard(static.Scope()):
        prog = static.deserialize_program(prog_bytes)
        static.deserialize_persistables(prog, static.load_from_file(path), exe)
        (got,) = exe.run(prog, feed={"x": xv}, fetch_list=[out.name])
    np.testing.assert_array_equal(got, ref)
    with pytest.raises(ValueError, match="bytes"):
        static.save_to_file(path, "text")


def test_loaded_program_saves_again_and_jit_save_loads(static_mode, tmp_path):
    main, startup, _, x, _, out, _ = _mlp()
    exe = static.Executor()
    exe.run(startup)
    first = os.path.join(str(tmp_path), "a")
    static.save_inference_model(first, [x], [out], exe, program=main)
    prog, feeds, fetches = static.load_inference_model(first, exe)
    second = os.path.join(str(tmp_path), "b")
    static.save_inference_model(second, [prog.global_block().var("x")], fetches, exe, program=prog)
    xv = np.ones((2, 4), "float32")
    prog2, feeds2, fetches2 = static.load_inference_model(second, exe)
    (a,) = exe.run(prog, feed={"x": xv}, fetch_list=fetches)
    (b,) = exe.run(prog2, feed={feeds2[0]: xv}, fetch_list=fetches2)
    np.testing.assert_array_equal(a, b)
    # a layer saved by jit.save loads as an inference model (as in Paddle)
    paddle.disable_static()
    try:
        paddle.seed(0)
        lin = nn.Linear(4, 2)
        ref = lin(paddle.to_tensor(xv)).numpy()
        path = os.path.join(str(tmp_path), "jit", "lin")
        paddle.jit.save(lin, path, input_spec=[static.InputSpec([None, 4], "float32", "inp")])
    finally:
        paddle.enable_static()
    prog3, feeds3, fetches3 = static.load_inference_model(path, exe)
    assert feeds3 == ["inp"]
    (c,) = exe.run(prog3, feed={"inp": xv}, fetch_list=fetches3)
    np.testing.assert_allclose(c, ref, rtol=1e-6)


# ------------------------------------------------ errors


def test_missing_files(static_mode, tmp_path):
    exe = static.Executor()
    with pytest.raises(ValueError, match="no directory"):
        static.load_inference_model(os.path.join(str(tmp_path), "nodir", "m"), exe)
    with pytest.raises(FileNotFoundError, match=r"m\.pdmodel"):
        static.load_inference_model(os.path.join(str(tmp_path), "m"), exe)
    main, startup, _, x, _, out, _ = _mlp()
    exe.run(startup)
    prefix = os.path.join(str(tmp_path), "m")
    static.save_inference_model(prefix, [x], [out], exe, program=main)
    os.remove(prefix + ".pdiparams")
    with pytest.raises(FileNotFoundError, match="pdiparams"):
        static.load_inference_model(prefix, exe)
    with open(prefix + ".pdmodel", "wb") as f:  # a protobuf file written by Paddle
        f.write(b"\x0a\x05feed\x12\x03\x08\x01")
    with pytest.raises(ValueError, match="protobuf"):
        static.load_inference_model(prefix, exe)
    with pytest.raises(ValueError, match="directory"):
        static.save_inference_model(str(tmp_path) + "/", [x], [out], exe, program=main)
    with pytest.raises(ValueError, match="string"):
        static.save_inference_model(3, [x], [out], exe, program=main)
    with pytest.raises(ValueError, match="unsupported argument"):
        static.load_inference_model(prefix, exe, bogus=1)


def test_bad_feed_and_fetch_vars(static_mode, tmp_path):
    main, startup, _, x, label, out, _ = _mlp()
    exe = static.Executor()
    exe.run(startup)
    prefix = os.path.join(str(tmp_path), "m")
    other = static.Program()
    with static.program_guard(other, static.Program()):
        stray = static.data(name="not_in_main", shape=[None, 4], dtype="float32")
    with pytest.raises(ValueError, match="'not_in_main' is not a variable of the program"):
        static.save_inference_model(prefix, [stray], [out], exe, program=main)
    with pytest.raises(ValueError, match="'fetch_vars' should be a Variable"):
        static.save_inference_model(prefix, [x], [np.ones(2)], exe, program=main)
    with pytest.raises(ValueError, match="'feed_vars' should be a Variable"):
        static.save_inference_model(prefix, ["x"], [out], exe, program=main)
    with pytest.raises(TypeError, match="'fetch_vars' should be a Variable"):
        static.normalize_program(main, [x], ["out"])
    # Paddle's pir_prune_with_input: a feed var not involved in the fetch vars
    with pytest.raises(ValueError, match="'label' is not involved"):
        static.save_inference_model(prefix, [x, label], [out], exe, program=main)
    assert not os.path.exists(prefix + ".pdmodel")


def test_unsaveable_ops_are_refused_by_name(static_mode, tmp_path):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name="x", shape=[None, 2], dtype="float32")
        w = static.create_parameter([2, 2], "float32", name="w_pf")
        h = main.current_block().create_var(name="h_pf", dtype="float32", shape=[-1, 2])
        static.nn.py_func(func=lambda a: np.tanh(a), x=x @ w, out=h)
        out = h * 2.0
        other = paddle.mean(x @ w)
        (g,) = static.gradients([other], [w])
    exe = static.Executor()
    exe.run(startup)
    prefix = os.path.join(str(tmp_path), "m")
    with pytest.raises(CaptureError, match=r"'h_pf' with a static\.nn\.py_func"):
        static.save_inference_model(prefix, [x], [out], exe)
    with pytest.raises(CaptureError, match="gradient"):
        static.save_inference_model(prefix, [x], [g], exe)
    assert not os.path.exists(prefix + ".pdmodel")
    # the part without the callback saves
    static.save_inference_model(prefix, [x], [other], exe)
    prog, feeds, fetches = static.load_inference_model(prefix, exe)
    xv = np.ones((3, 2), "float32")
    (a,) = exe.run(prog, feed={"x": xv}, fetch_list=fetches)
    (b,) = exe.run(main, feed={"x": xv}, fetch_list=[other])
    np.testing.assert_array_equal(a, b)


def test_parameters_need_a_value(static_mode, tmp_path):
    main, startup, _, x, _, out, _ = _mlp()
    with pytest.raises(ValueError, match="startup program"):
        static.save_inference_model(
            os.path.join(str(tmp_path), "m"), [x], [out], static.Executor(), program=main
        )


def test_ops_appended_past_the_call_log_are_refused(static_mode, tmp_path):
    # the Rust program cannot describe its ops back: an op appended to it directly (not
    # through static's functions, which note every call) would be missing from the file
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name="x", shape=[None, 2], dtype="float32")
        y = paddle.tanh(x)
    main._core.append_op("exp", [y.id])
    with pytest.raises(RuntimeError, match="did not note"):
        static.save_inference_model(
            os.path.join(str(tmp_path), "m"), [x], [y], static.Executor(), program=main
        )
