"""Runs the peers' own unit-test files against ferrograd.

The files are upstream Paddle / PyTorch tests, fetched by you into a folder outside the
repository (they are never committed). Each file runs in its own Python process with
``paddle`` and ``torch`` (and their submodules) aliased to ferrograd, so the test bodies
run unchanged. Besides the aliases the runner provides only the peers' test
infrastructure (``scripts/peer_harness``): stand-ins for PyTorch's internal
``torch.testing._internal.common_utils`` (with its ``parametrize`` helpers),
``common_device_type`` (the CPU) and ``logging_tensor`` (a ``LoggingTensor`` that skips
the test) and, unless ``--no-base-shim``, the scaffolding
part of ``paddle.base`` (``dygraph.guard``, ``dygraph.to_variable``, ``wrap_decorator``,
``CPUPlace``, ``in_dygraph_mode``, ``framework.dygraph_not_support``), ``paddle.pir_utils``
(``test_with_pir_api``: the test once) and stand-ins for two helpers of Paddle's test
folder (``test_imperative_base.new_program_scope``, ``op_test``'s device and bfloat16
helpers, its ``OpTest`` classes skipped, and ``utils``' mode guards).

Usage::

    .venv/bin/python scripts/peer_tests.py /tmp/peer/paddle /tmp/peer/torch
    .venv/bin/python scripts/peer_tests.py /tmp/peer/paddle/test_pylayer_op.py -v

Prints every test's outcome (with the first line of the error for failures), one summary
line per file and a total. Exit status 0 when every test passed or was skipped.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import pkgutil
import subprocess
import sys
import time
import traceback
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT_TAG = "@@PEER_RESULT@@"


# ---------------------------------------------------------------------------- aliases


def install_aliases(base_shim: bool = True) -> None:
    """Makes ``import paddle``/``import torch`` (and ``paddle.nn.functional`` etc.)
    import ferrograd, and provides the peers' test infrastructure."""
    import ferrograd

    sys.path.insert(0, HERE)
    names = ["ferrograd"]
    for info in pkgutil.walk_packages(ferrograd.__path__, "ferrograd."):
        if info.name.split(".")[-1].startswith("_"):
            continue
        names.append(info.name)
    for name in names:
        importlib.import_module(name)
    # every public ferrograd module, also those registered under another name
    # (``ferrograd.tensor`` is Paddle's ``paddle.tensor`` package)
    for name, module in list(sys.modules.items()):
        if name == "ferrograd" or (
            name.startswith("ferrograd.") and not name.split(".")[-1].startswith("_")
        ):
            for peer in ("paddle", "torch"):
                sys.modules[peer + name[len("ferrograd") :]] = module

    from peer_harness import torch_common_utils

    testing = sys.modules.get("torch.testing") or types.ModuleType("torch.testing")
    internal = types.ModuleType("torch.testing._internal")
    internal.common_utils = torch_common_utils
    testing._internal = internal
    sys.modules["torch.testing"] = testing
    sys.modules["torch.testing._internal"] = internal
    sys.modules["torch.testing._internal.common_utils"] = torch_common_utils
    # ``common_cuda``: only its flags, all False (ferrograd computes on the CPU)
    common_cuda = types.ModuleType("torch.testing._internal.common_cuda")
    for flag in ("TEST_CUDA", "TEST_MULTIGPU", "TEST_CUDNN"):
        setattr(common_cuda, flag, False)
    internal.common_cuda = common_cuda  # type: ignore[attr-defined]
    sys.modules["torch.testing._internal.common_cuda"] = common_cuda
    # ``common_device_type`` (its ``instantiate_device_type_tests``, for the CPU) and
    # ``logging_tensor`` (a ``LoggingTensor`` that skips the test building one)
    from peer_harness import torch_device_type, torch_logging_tensor

    for short, stand_in in (
        ("common_device_type", torch_device_type),
        ("logging_tensor", torch_logging_tensor),
    ):
        setattr(internal, short, stand_in)
        sys.modules["torch.testing._internal." + short] = stand_in

    if base_shim:
        from peer_harness import paddle_base

        sys.modules["paddle.base"] = paddle_base
        # ``from paddle import base`` looks the name up on the package (ferrograd, in
        # this process only) before sys.modules
        ferrograd.base = paddle_base
        sys.modules["paddle.base.core"] = paddle_base.core
        sys.modules["paddle.base.compiler"] = paddle_base.compiler
        sys.modules["paddle.base.framework"] = paddle_base.framework
        sys.modules["paddle.base.dygraph"] = paddle_base.dygraph  # type: ignore[assignment]
        sys.modules["paddle.base.wrapped_decorator"] = paddle_base.wrapped_decorator  # type: ignore[assignment]
        # ``paddle.fluid`` is Paddle 2's name for ``paddle.base`` (older test revisions)
        ferrograd.fluid = paddle_base
        for name in ("", ".core", ".compiler", ".framework", ".dygraph", ".wrapped_decorator"):
            sys.modules["paddle.fluid" + name] = sys.modules["paddle.base" + name]
        # ``paddle.pir_utils``: the switch between Paddle's two static-graph forms, which
        # tests use to run a body under both (here: once)
        from peer_harness import paddle_pir_utils

        sys.modules["paddle.pir_utils"] = paddle_pir_utils
        # (``paddle.pir_utils.OldIrGuard()`` looks the name up on the package)
        ferrograd.pir_utils = paddle_pir_utils
        # ``paddle.framework``: its static-form switches (``in_pir_mode``, ``use_pir_api``)
        # are ``base.framework``'s, as in Paddle, which re-exports them there
        if not hasattr(ferrograd, "framework"):
            ferrograd.framework = paddle_base.framework
            sys.modules["paddle.framework"] = paddle_base.framework


# ------------------------------------------------------------------ one file (child)


class _Recorder(unittest.TestResult):
    """Keeps each test's outcome and the first line of its error."""

    def __init__(self) -> None:
        super().__init__()
        self.outcomes: list[tuple[str, str, str]] = []

    @staticmethod
    def _name(test) -> str:
        method = getattr(test, "_testMethodName", None)
        if method is None:  # a failed setUpClass/setUpModule: unittest's _ErrorHolder
            return str(test)
        return f"{type(test).__name__}.{method}"

    @staticmethod
    def _why(err) -> str:
        exc_type, exc, _ = err
        text = str(exc).strip().splitlines()
        return f"{exc_type.__name__}: {text[0] if text else ''}"[:300]

    def addSuccess(self, test):  # noqa: N802
        self.outcomes.append((self._name(test), "pass", ""))

    def addFailure(self, test, err):  # noqa: N802
        self.outcomes.append((self._name(test), "fail", self._why(err)))

    def addError(self, test, err):  # noqa: N802
        self.outcomes.append((self._name(test), "error", self._why(err)))

    def addSubTest(self, test, subtest, err):  # noqa: N802
        # a failing subTest fails its test (unittest then reports no success for it)
        if err is not None:
            kind = "fail" if issubclass(err[0], test.failureException) else "error"
            name = f"{self._name(test)} {subtest._subDescription()}"
            self.outcomes.append((name, kind, self._why(err)))

    def addSkip(self, test, reason):  # noqa: N802
        self.outcomes.append((self._name(test), "skip", str(reason)[:300]))

    def addExpectedFailure(self, test, err):  # noqa: N802
        self.outcomes.append((self._name(test), "pass", "expected failure"))

    def addUnexpectedSuccess(self, test):  # noqa: N802
        self.outcomes.append((self._name(test), "fail", "unexpected success"))


def run_one_file(path: str, base_shim: bool) -> dict:
    """Imports one test file (with ``unittest.main`` disabled) and runs its tests."""
    install_aliases(base_shim)
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    # Paddle's test-folder helpers, unless the folder has the real ones
    if base_shim:
        from peer_harness import paddle_op_test, paddle_test_base, paddle_utils

        for name, stand_in in (
            ("test_imperative_base", paddle_test_base),
            ("op_test", paddle_op_test),
            ("utils", paddle_utils),
        ):
            if not os.path.exists(os.path.join(folder, name + ".py")):
                sys.modules[name] = stand_in
    real_main = unittest.main
    unittest.main = lambda *a, **k: None  # some files call it at import time
    try:
        spec = importlib.util.spec_from_file_location(
            os.path.splitext(os.path.basename(path))[0], path
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except BaseException as e:  # the whole file cannot even be imported
        line = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()[-1]
        return {"import_error": line[:300], "outcomes": []}
    finally:
        unittest.main = real_main
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    recorder = _Recorder()
    suite.run(recorder)
    return {"import_error": None, "outcomes": recorder.outcomes}


# -------------------------------------------------------------------- driver (parent)


def _files(paths: list[str]) -> list[str]:
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(
                os.path.join(p, f)
                for f in os.listdir(p)
                if f.startswith("test_") and f.endswith(".py")
            )
        else:
            out.append(p)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="test files or folders of test_*.py files")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list passing tests")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per file")
    ap.add_argument(
        "--no-base-shim", action="store_true", help="do not provide the paddle.base scaffolding"
    )
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--run-file", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.run_file:
        result = run_one_file(args.run_file, not args.no_base_shim)
        sys.stdout.flush()
        print(RESULT_TAG + json.dumps(result))
        return 0
    if not args.paths:
        ap.error("give at least one test file or folder")

    totals = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
    report = {}
    for path in _files(args.paths):
        cmd = [sys.executable, os.path.abspath(__file__), "--run-file", path]
        if args.no_base_shim:
            cmd.append("--no-base-shim")
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            tagged = [ln for ln in proc.stdout.splitlines() if ln.startswith(RESULT_TAG)]
            if tagged:
                result = json.loads(tagged[-1][len(RESULT_TAG) :])
            else:
                tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
                result = {
                    "import_error": f"crashed (exit {proc.returncode}): {tail}",
                    "outcomes": [],
                }
        except subprocess.TimeoutExpired:
            result = {"import_error": f"timed out after {args.timeout:.0f} s", "outcomes": []}
        seconds = time.monotonic() - start
        name = os.path.basename(path)
        report[name] = result
        print(f"== {name}")
        if result["import_error"]:
            print(f"  FILE ERROR  {result['import_error']}")
            totals["error"] += 1
        counts = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
        for test, status, why in result["outcomes"]:
            counts[status] += 1
            totals[status] += 1
            if status != "pass" or args.verbose:
                print(f"  {status.upper():5} {test}" + (f"  -- {why}" if why else ""))
        ran = sum(counts.values())
        print(
            f"  {counts['pass']}/{ran} passed, {counts['fail']} failed, {counts['error']} "
            f"errors, {counts['skip']} skipped ({seconds:.1f} s)"
        )
    ran = sum(totals.values())
    print(
        f"TOTAL: {totals['pass']}/{ran} passed, {totals['fail']} failed, {totals['error']} "
        f"errors (files that failed to import count as one error), {totals['skip']} skipped"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if totals["fail"] == totals["error"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
