"""Session 42's adversarial cases against the names added in sessions 38-41 (frombuffer,
asarray, empty_strided/empty_permuted, nonzero_static, as_strided_scatter, gradient,
view_as_real/view_as_complex/real/imag views, segment_reduce, histogramdd,
histogram_bin_edges, the special Bessel functions and orthogonal polynomials,
poisson/binomial/standard_gamma/log_normal, fake_quantize_*, reduce_as,
take_along_axis, F.pad, svd full_matrices, the RNN cells). NOT a pytest file: each case
runs in a worker process with its address space capped 3 GiB above the import; a case
that kills the worker (abort, segfault) or stalls for 60 seconds is recorded and
the worker restarts after it. Prints one line per case (``!!`` marks a crash, hang or a
raised non-``Exception``) and exits 1 if any::

    python tests/python/panic_fuzz_s42.py
"""

import json
import os
import subprocess
import sys
import tempfile
import time

WORKER = r"""
import json, os, resource, sys, signal
import ferrograd as fg, numpy as np
import ferrograd.nn.functional as F
vm = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (3 << 30), resource.RLIM_INFINITY))
cases = json.load(open(sys.argv[1])); start = int(sys.argv[2]); out = open(sys.argv[3], "a")
def readback(r, depth=0):
    if depth > 3: return
    if isinstance(r, fg.Tensor):
        repr(r); r.numpy()
        if r.dtype != fg.bool and not r.is_complex(): (r.detach() + 1)
    elif isinstance(r, (tuple, list)):
        for e in list(r)[:8]: readback(e, depth + 1)
    elif isinstance(r, dict):
        for e in list(r.values())[:8]: readback(e, depth + 1)
for i in range(start, len(cases)):
    name, code = cases[i]
    out.write(json.dumps(["START", i]) + "\n"); out.flush()
    ns = {"fg": fg, "np": np, "F": F}
    try:
        exec(code, ns)
        r = ns.get("r")
        readback(r)
        s = repr(r)
        res = ["ok", s[:300]]
    except Exception as e:
        res = ["exc", type(e).__name__, str(e)[:300]]
    except BaseException as e:
        res = ["BASE", type(e).__name__, str(e)[:300]]
    out.write(json.dumps(["RES", i, res]) + "\n"); out.flush()
"""


def run(cases: list, tag: str, hang_s: float = 60) -> dict:
    """Runs ``cases`` (``(name, code)`` pairs) in worker processes, restarting after a
    crash or a hang; prints one line per case and returns ``{index: result}``."""
    d = os.environ.get("FERROGRAD_PANIC_FUZZ_DIR") or tempfile.mkdtemp(prefix="panic_fuzz_s42-")
    cf, of = f"{d}/{tag}.cases.json", f"{d}/{tag}.out.jsonl"
    cases = [(n, code.replace("PFDIR", d)) for n, code in cases]
    json.dump(cases, open(cf, "w"))
    open(of, "w").close()
    wf = f"{d}/worker.py"
    open(wf, "w").write(WORKER)
    results = {}
    i = 0
    env = dict(os.environ, RAYON_NUM_THREADS="1", RUST_BACKTRACE="0")
    while i < len(cases):
        p = subprocess.Popen(
            [sys.executable, wf, cf, str(i), of],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(f"{d}/{tag}.stderr.txt", "w"),  # a file: a full pipe would stall
        )
        last, cur, t0 = 0, None, time.time()
        while True:
            try:
                p.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
            lines = open(of).read().splitlines()
            if len(lines) != last:
                last, t0 = len(lines), time.time()
            for ln in lines:
                rec = json.loads(ln)
                if rec[0] == "RES":
                    results[rec[1]] = rec[2]
                else:
                    cur = rec[1]
            if p.poll() is not None:
                break
            if time.time() - t0 > hang_s:
                p.kill()
                p.wait()
                results[cur] = ["HANG"]
                break
        err = open(f"{d}/{tag}.stderr.txt").read()
        if p.returncode not in (0, None) and cur is not None and cur not in results:
            results[cur] = ["CRASH", p.returncode, err[-500:]]
        if cur is None or cur + 1 <= i and p.returncode == 0:
            break
        i = (cur + 1) if cur is not None else len(cases)
        if p.returncode == 0:
            break
    for k, (name, _code) in enumerate(cases):
        res = results.get(k, ["MISSING"])
        flag = "!!" if res[0] in ("BASE", "CRASH", "HANG", "MISSING") else "  "
        print(flag, name, "|", json.dumps(res)[:260])
    return results


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from panic_fuzz_s42_cases import cases  # noqa: E402
from panic_fuzz_s42_cases2 import more_cases  # noqa: E402
from panic_fuzz_s42_cases3 import special_cases  # noqa: E402
from panic_fuzz_s42_paddle import paddle_cases  # noqa: E402

if __name__ == "__main__":
    found = run(
        cases() + special_cases() + more_cases() + paddle_cases(), "panic_fuzz_s42", hang_s=60
    )
    bad = [k for k, v in found.items() if v[0] in ("BASE", "CRASH", "HANG")]
    print(f"{len(found)} cases, {len(bad)} flagged")
    sys.exit(1 if bad else 0)
