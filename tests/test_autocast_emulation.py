"""The default autocast policy's kernels (checks/emulation/autocast.py), run in a child process: they
are registered for the AutocastCPU key of the whole process, which the test process must not get."""
import json

import pytest

from tests.helpers import ROOT, run_python

pytestmark = pytest.mark.runtime

# A weight used by three linears of one region (an RNN cell per time step, a module on two views),
# then changed in place inside the region, then used in a second region. Counts the copies of the
# weight's shape the kernels make, and compares every output and gradient with the same computation
# under cache_enabled=False (each use cast again; the uses' gradients then meet in float32, not float16).
CASE = r"""
import json, torch
from torch.utils._python_dispatch import TorchDispatchMode
from checks.emulation import autocast

class Copies(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.n = 0
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.ops.aten._to_copy.default and tuple(out.shape) == (16, 32):
            self.n += 1
        return out

autocast.install()
x = torch.randn(4, 32)

def run(cache):
    torch.manual_seed(0)
    w = torch.randn(16, 32, requires_grad=True)
    copies, outs = Copies(), []
    with copies, torch.autocast("cpu", dtype=torch.float16, cache_enabled=cache):
        outs += [torch.nn.functional.linear(x, w) for _ in range(3)]
        first = copies.n
        with torch.no_grad():
            w.add_(0.5)  # an optimizer step inside the region
        outs.append(torch.nn.functional.linear(x, w))
    with copies, torch.autocast("cpu", dtype=torch.float16, cache_enabled=cache):
        with torch.no_grad():
            w.mul_(2.0)  # between regions, without a version the cache could tell apart: cleared at exit
        outs.append(torch.nn.functional.linear(x, w))
    sum(o.float().sum() for o in outs).backward()
    return first, copies.n, outs, w.grad

first, total, outs, grad = run(True)
_, total_uncached, ref, ref_grad = run(False)
print(json.dumps({"first_region_copies": first, "copies": total, "copies_uncached": total_uncached,
                  "dtypes": sorted({str(o.dtype) for o in outs}),
                  "same_outputs": all(torch.equal(a, b) for a, b in zip(outs, ref)),
                  "same_grad": torch.allclose(grad, ref_grad, rtol=2e-3, atol=0),
                  "grad_max_abs_diff": float((grad - ref_grad).abs().max())}))
"""


def test_a_weight_is_cast_once_per_region_as_torch_autocast_caches_it():
    proc = run_python("-c", CASE, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    facts = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    assert facts["dtypes"] == ["torch.float16"]
    assert facts["first_region_copies"] == 4  # one cast to float16 for three uses, each read back in float32
    assert facts["copies_uncached"] == 10  # 2 per use
    assert facts["copies"] == 8  # cast again after the in-place change, and in the second region
    assert facts["same_outputs"], facts
    assert facts["same_grad"], facts  # float16 rounding of the summed gradients, nothing more


# A step's chain of large temporaries (the policy adds one per cast): each 4 MiB tensor freed once the next
# exists. Minor page faults (memory glibc handed back and the next step faults in again) per later step,
# with glibc's initial thresholds first, then after install() in the same process.
FAULTS = r"""
import json, resource, torch
from checks.emulation import autocast

def faults_per_step():
    counts = []
    for _ in range(8):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        x = torch.empty(1 << 20).fill_(1.0)
        for _ in range(6):
            x = x * 2
        del x
        counts.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    return sorted(counts[2:])[len(counts[2:]) // 2]  # the median of the steady steps

libc = __import__("ctypes").CDLL(None)
if hasattr(libc, "mallopt"):  # glibc's initial thresholds (128 KiB), held: a forked or used heap slides them
    libc.mallopt(-3, 128 * 1024), libc.mallopt(-1, 128 * 1024)
defaults = faults_per_step()
autocast.install()
print(json.dumps({"defaults": defaults, "installed": faults_per_step(), "kept": autocast.keep_freed_memory()}))
"""


def test_freed_temporaries_are_not_faulted_in_again_each_step():
    """bench/autocast_workload.py: the policy's copies of a 1024x1024 weight and its gradient took 16 ms a
    step on one thread, most of it page faults on memory glibc had just handed back; with the heap kept,
    4 ms, and the `off` line went from 1.20x to 1.09x the plain CPU (CPU time of its steps 2..N, medians)."""
    proc = run_python("-c", FAULTS, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    facts = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    if not facts["kept"]:
        pytest.skip("no glibc mallopt here: the allocator's defaults stay")
    assert facts["defaults"] > 1000, facts  # every 4 MiB temporary mapped fresh and faulted in
    assert facts["installed"] * 10 < facts["defaults"], facts
