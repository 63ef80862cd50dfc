"""Child process of `npu-migrate doctor` (runtime side: imports torch; the doctor never does).

    python -m checks.child.doctor_probe import                  # import torch, then torch_npu
    python -m checks.child.doctor_probe matmul                  # device count + tiny matmul on npu:0
    python -m checks.child.doctor_probe allreduce [--backend hccl] [--device npu]
                                                          # one rank; RANK/WORLD_SIZE/MASTER_* env

Each prints one line `DOCTOR_PROBE_RESULT {json}` last; a failure is reported in that JSON
(stage, exception type, message, traceback tail) rather than as a crash where possible.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import traceback

MARKER = "DOCTOR_PROBE_RESULT "


def emit(data: dict) -> None:
    sys.stdout.flush()
    print(MARKER + json.dumps(data), flush=True)


def failure(stage: str, exc: BaseException) -> dict:
    tail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]
    return {"ok": False, "stage": stage, "error_type": type(exc).__name__,
            "message": str(exc), "traceback": tail}


def probe_import() -> dict:
    try:
        import torch
    except BaseException as exc:  # noqa: BLE001 - report whatever import torch raises
        return failure("import torch", exc)
    try:
        import torch_npu
    except BaseException as exc:  # noqa: BLE001
        return dict(failure("import torch_npu", exc), torch=getattr(torch, "__version__", None))
    try:
        available = bool(torch.npu.is_available())
    except BaseException as exc:  # noqa: BLE001
        return dict(failure("torch.npu.is_available()", exc), torch=torch.__version__)
    return {"ok": True, "torch": getattr(torch, "__version__", None),
            "torch_npu": getattr(torch_npu, "__version__", None), "npu_available": available}


def probe_matmul() -> dict:
    stage = "import"
    try:
        import torch
        import torch_npu  # noqa: F401 - registers torch.npu

        stage = "torch.npu.device_count()"
        count = int(torch.npu.device_count())
        if count < 1:
            return {"ok": False, "stage": stage, "device_count": count,
                    "error_type": "NoDevice", "message": "torch.npu.device_count() == 0"}
        stage = "matmul on npu:0"
        gen = torch.Generator().manual_seed(0)
        a = torch.randn(64, 32, generator=gen)
        b = torch.randn(32, 16, generator=gen)
        on_npu = (a.to("npu:0") @ b.to("npu:0")).cpu()
        diff = float((on_npu - a @ b).abs().max())
        return {"ok": diff < 1e-2, "stage": stage, "device_count": count, "max_abs_diff": diff,
                "message": "" if diff < 1e-2 else f"npu result differs from CPU by {diff}"}
    except BaseException as exc:  # noqa: BLE001
        return failure(stage, exc)


def probe_allreduce(backend: str, device: str, timeout_s: float) -> dict:
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    stage = "import"
    try:
        import torch
        import torch.distributed as dist

        if device == "npu":
            import torch_npu  # noqa: F401

            torch.npu.set_device(rank)
        stage = f"init_process_group({backend})"
        dist.init_process_group(backend, rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=timeout_s))
        stage = "all_reduce"
        dev = f"{device}:{rank}" if device != "cpu" else "cpu"
        t = torch.full((4,), float(rank + 1), device=dev)
        dist.all_reduce(t)
        got = float(t.cpu()[0])
        expected = float(world * (world + 1) // 2)
        dist.destroy_process_group()
        return {"ok": got == expected, "stage": stage, "rank": rank, "got": got,
                "expected": expected}
    except BaseException as exc:  # noqa: BLE001
        return dict(failure(stage, exc), rank=rank)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m checks.child.doctor_probe")
    parser.add_argument("mode", choices=["import", "matmul", "allreduce"])
    parser.add_argument("--backend", default="hccl")
    parser.add_argument("--device", default="npu")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    if args.mode == "import":
        result = probe_import()
    elif args.mode == "matmul":
        result = probe_matmul()
    else:
        result = probe_allreduce(args.backend, args.device, args.timeout)
    emit(result)
    return 0 if result.get("ok") else 1


if __name__ == "__main__":
    raise SystemExit(main())
