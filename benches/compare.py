#!/usr/bin/env python3
"""Runs the same workloads on ferrograd, NumPy, PyTorch, Paddle and JAX and compares them.

Every library runs in a subprocess of its own (this script started again with
``--lib NAME``), which writes its results as JSON; the parent collects them and prints
medians plus time ratios to NumPy and to PyTorch. Libraries that do not import are
skipped. Each library may use its own interpreter (``--python-torch PATH`` etc.), so
frameworks can live in separate virtual environments.

    python benches/compare.py                       # full run
    python benches/compare.py --quick               # smoke run, a few seconds
    python benches/compare.py --python-torch /tmp/venv-torch/bin/python --json out.json

See benches/README.md for what each workload measures and how bytes and FLOPs are counted.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import json
import math
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

LIBS = ["ferrograd", "numpy", "torch", "paddle", "jax"]

WORKLOADS = [
    "add_1elem_us",
    "mul_add_16M_GBps",
    "matmul_64_us",
    "matmul_1024_f32_GFLOPs",
    "matmul_1024_f64_GFLOPs",
    "bmm_32x64_us",
    "einsum_bmm_32x64_us",
    "small_graph_iter_us",
    "chain_10k_ms",
    "chain_1M_ms",
    "mlp_step_ms",
    "mlp_step_static_ms",
    "demo_step_ms",
    "custom_tanh_iter_us",
    "builtin_tanh_iter_us",
    "hooked_small_graph_iter_us",
    "lstm_step_ms",
    "encoder_step_ms",
    "cumsum_16M_ms",
    "cumsum_dim0_16M_ms",
    "sort_1M_ms",
    "topk_1M_ms",
    # convolution (benches/conv_step.py)
    "conv2d_3x3_64_fwdbwd_ms",
    "depthwise3x3_fwdbwd_ms",
    "digits_cnn_step_ms",
]
# scatter / masked ops on 16M elements (benches/scatter_cases.py; issue 19)
import scatter_cases  # noqa: E402
from compare_measure import FLOOR, RATE_UNITS, Data, Settings, measure  # noqa: E402
from compare_setup import SETUP  # noqa: E402

WORKLOADS += scatter_cases.WORKLOADS

# Workloads left out of --quick runs.
# (one set: two merged branches each assigned their own, and the later one silently won)
SLOW = {
    "chain_1M_ms",
    "lstm_step_ms",
    "encoder_step_ms",
    "conv2d_3x3_64_fwdbwd_ms",
    "depthwise3x3_fwdbwd_ms",
}


def child(lib: str, quick: bool, threads: int | None, skip: list[str], save: Callable) -> dict:
    """Runs the workloads for `lib` in this process and returns the JSON-ready result.

    `save(out)` is called before and after each workload, so that when the process dies
    inside one, the parent still has the earlier results and sees which one was running.
    """
    out: dict[str, Any] = {"lib": lib, "python": sys.executable, "available": False}
    try:
        import numpy as np

        # importing here also checks that the library is there at all
        __import__(lib)
    except Exception as exc:  # noqa: BLE001  (any import failure means "skip")
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    out["available"] = True
    if quick:
        s = Settings(batch_s=0.02, batches=3, single_batches=2)
    else:
        s = Settings(batch_s=0.25, batches=7, single_batches=3)
    s.extras["threads"] = threads
    version, info, factories = SETUP[lib](np, s)
    out.update(version=version, info=info, numpy=np.__version__, results={}, errors={})
    for name in WORKLOADS:
        if name not in factories or name in skip or (quick and name in SLOW):
            continue
        out["running"] = name
        save(out)
        t0 = time.perf_counter()
        try:
            case = factories[name](Data(np, name))
            out["results"][name] = measure(case, s)
            out["results"][name]["wall_s"] = round(time.perf_counter() - t0, 3)
            del case  # free the inputs before the next workload
        except Exception as exc:  # noqa: BLE001  (reported per workload)
            out["errors"][name] = f"{type(exc).__name__}: {exc}"
        del out["running"]
        gc.collect()
    out["checks"] = {k: v for k, v in s.extras.items() if k != "threads" and v is not None}
    out["complete"] = True
    return out


# --------------------------------------------------------------------------- parent


def fmt(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "-"
    if v == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(v)))))
    return f"{v:.{min(digits, 4)}f}"


def time_ratio(lib_res: dict | None, ref_res: dict | None) -> float | None:
    """Time of `lib` over time of the reference (< 1: lib is faster)."""
    if not lib_res or not ref_res:
        return None
    lv, rv = lib_res["value"], ref_res["value"]
    if lib_res["unit"] in RATE_UNITS:
        return rv / lv if lv else None
    return lv / rv if rv else None


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    body = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in [header, *rows]
    ]
    return "\n".join([body[0], line, *body[1:]])


def cell(res: dict, workload: str) -> str:
    """The table entry of one library for one workload."""
    if workload in res.get("crashed", {}):
        return "crash"
    if workload in res.get("errors", {}):
        return "error"
    r = res["results"].get(workload)
    if not r:
        return "-"
    return fmt(r["value"]) + ("*" if r["note"].startswith(FLOOR) else "")


def report(results: dict[str, dict]) -> str:
    ran = [lib for lib in LIBS if results.get(lib, {}).get("results")]
    names = [w for w in WORKLOADS if any(cell(results[lib], w) != "-" for lib in ran)]
    units = {w: r["unit"] for lib in ran for w, r in results[lib]["results"].items() if w in names}
    rows = [[w, units.get(w, ""), *[cell(results[lib], w) for lib in ran]] for w in names]
    out = ["Medians (higher is better for GB/s and GFLOP/s, lower for times)"]
    out.append(table(["workload", "unit", *ran], rows))
    if any(cell(results[lib], w).endswith("*") for lib in ran for w in names):
        out.append(
            f"* {FLOOR}the same forward ops without autograd (NumPy has none);\n"
            "  ratios to NumPy in these rows compare forward + backward with that floor"
        )
    for lib in ran:
        for kind in ("crashed", "errors"):
            for w, why in results[lib].get(kind, {}).items():
                out.append(f"{lib} {w}: {'crashed' if kind == 'crashed' else 'error'}: {why}")
    for ref in ("numpy", "torch"):
        others = [lib for lib in ran if lib != ref]
        if ref not in ran or not others:
            continue
        rows = []
        for w in names:
            ref_res = results[ref]["results"].get(w)
            rows.append(
                [w, *[fmt(time_ratio(results[lib]["results"].get(w), ref_res)) for lib in others]]
            )
        out.append("")
        out.append(f"Time relative to {ref} (lib time / {ref} time; < 1 means faster than {ref})")
        out.append(table(["workload", *[f"{lib}/{ref}" for lib in others]], rows))
    return "\n".join(out)


def exit_text(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def run_once(lib: str, python: str, args, tmpdir: str, skip: list[str]) -> dict:
    """One child process for `lib`; returns what it wrote, marked failed if it died."""
    path = os.path.join(tmpdir, f"{lib}.json")
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
    cmd = [python, os.path.abspath(__file__), "--lib", lib, "--result-file", path]
    if args.quick:
        cmd.append("--quick")
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    if skip:
        cmd += ["--skip", ",".join(skip)]
    env = dict(os.environ)
    if args.threads:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[var] = str(args.threads)
        env["RAYON_NUM_THREADS"] = str(args.threads)
    env.setdefault("JAX_PLATFORMS", "cpu")
    problem = None
    try:
        proc = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=args.timeout, check=False
        )
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout or "").strip().splitlines()
            tail = [x.strip()[:200] for x in lines if x.strip() and "warn" not in x.lower()]
            problem = exit_text(proc.returncode) + (": " + " | ".join(tail[-3:]) if tail else "")
    except FileNotFoundError:
        return {"lib": lib, "available": False, "error": f"interpreter {python} not found"}
    except subprocess.TimeoutExpired:
        problem = f"timed out after {args.timeout:g} s"
    try:
        with open(path) as f:
            res = json.load(f)
    except (OSError, json.JSONDecodeError):
        res = {"lib": lib, "python": python, "available": True}
    if problem and res.get("complete"):
        res["exit_problem"] = problem  # everything ran; the process died on its way out
    elif problem or not res.get("complete") and res.get("available"):
        res.update(failed=True, error=problem or "no complete result")
    return res


def run_child(lib: str, python: str, args, tmpdir: str) -> dict:
    """Runs `lib`'s workloads; when the process dies inside a workload, records that
    workload as crashed and starts a new process for the ones that remain."""
    t0 = time.perf_counter()
    merged: dict[str, Any] = {}
    crashed: dict[str, str] = {}
    while True:
        done = [*merged.get("results", {}), *merged.get("errors", {}), *crashed]
        res = run_once(lib, python, args, tmpdir, done)
        merged = {
            **merged,
            **res,
            "results": {**merged.get("results", {}), **res.get("results", {})},
            "errors": {**merged.get("errors", {}), **res.get("errors", {})},
            "checks": {**merged.get("checks", {}), **res.get("checks", {})},
            "crashed": crashed,
        }
        running = res.get("running")
        if res.get("failed") and running and running not in crashed:
            crashed[running] = res["error"]
            merged.pop("failed", None)
            merged.pop("error", None)
            continue
        break
    merged.pop("running", None)
    merged["wall_s"] = round(time.perf_counter() - t0, 2)
    return merged


def parent(args) -> int:
    libs = [x.strip() for x in args.libs.split(",") if x.strip()]
    unknown = [x for x in libs if x not in LIBS]
    if unknown:
        print(f"unknown libraries {unknown}; choose from {LIBS}", file=sys.stderr)
        return 2
    started = datetime.datetime.now().astimezone()
    load_before = os.getloadavg()
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ferrograd-compare-") as tmpdir:
        for lib in libs:
            python = getattr(args, f"python_{lib}") or args.python
            results[lib] = run_child(lib, python, args, tmpdir)
    load_after = os.getloadavg()
    meta = {
        "date": started.isoformat(timespec="seconds"),
        "host": platform.node(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "quick": args.quick,
        "threads": args.threads,
    }
    print(f"ferrograd compare  {meta['date']}  {meta['platform']}  cpus={meta['cpus']}")
    print(
        "load average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(
            *load_before, *load_after
        )
    )
    for lib in libs:
        r = results[lib]
        if r.get("version"):
            details = [r["python"], f"{r['wall_s']} s"]
            details += [f"{k}={v}" for k, v in r.get("info", {}).items()]
            if r.get("exit_problem"):
                details.append(f"then {r['exit_problem']}")
            print(f"  {lib} {r['version']} ({'; '.join(details)})")
        if r.get("failed") or not r.get("available"):
            state = "FAILED" if r.get("failed") else "skipped"
            print(f"  {lib}: {state}: {r.get('error')}")
    checks = {lib: r["checks"] for lib, r in results.items() if r.get("checks")}
    if checks:
        print("  checks: " + "; ".join(f"{lib} {c}" for lib, c in checks.items()))
    print()
    print(report(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "libs": results}, f, indent=2)
        print(f"\nresults saved to {args.json}")
    # Non-zero when a library failed outside any single workload, or when ferrograd itself
    # crashed or raised anywhere; other libraries' per-workload crashes are only reported.
    fg = results.get("ferrograd", {})
    bad = any(r.get("failed") for r in results.values()) or fg.get("crashed") or fg.get("errors")
    return 1 if bad else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="short smoke run (no chain_1M_ms)")
    p.add_argument("--json", metavar="PATH", help="save all results as JSON")
    p.add_argument(
        "--libs", default=",".join(LIBS), help="comma-separated subset of " + ",".join(LIBS)
    )
    p.add_argument(
        "--threads", type=int, help="thread count for every library (sets *_NUM_THREADS)"
    )
    p.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per library")
    p.add_argument("--python", default=sys.executable, help="default interpreter for the libraries")
    for lib in LIBS:
        p.add_argument(f"--python-{lib}", metavar="PATH", help=f"interpreter for {lib}")
    p.add_argument("--lib", choices=LIBS, help=argparse.SUPPRESS)
    p.add_argument("--result-file", help=argparse.SUPPRESS)
    p.add_argument("--skip", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.lib is None:
        return parent(args)

    def save(res: dict) -> None:
        if args.result_file:
            tmp = args.result_file + ".part"
            with open(tmp, "w") as f:
                json.dump(res, f)
            os.replace(tmp, args.result_file)

    skip = [x for x in (args.skip or "").split(",") if x]
    try:
        res = child(args.lib, args.quick, args.threads, skip, save)
    except Exception as exc:  # noqa: BLE001  (reported to the parent as a failure)
        import traceback

        traceback.print_exc()
        res = {
            "lib": args.lib,
            "python": sys.executable,
            "available": True,
            "failed": True,
            "error": f"{type(exc).__name__}: {exc}",
        }
    if args.result_file:
        save(res)
    else:
        print(json.dumps(res))
    return 1 if res.get("failed") else 0


if __name__ == "__main__":
    sys.exit(main())
