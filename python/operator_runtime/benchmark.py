"""Timing for run_ops' bench mode: CUDA events with an L2 flush before every timed run, medians, the
device's measured copy bandwidth, and the facts about the machine a result needs to be read later.

On the nvidia backend timing uses torch's CUDA events when torch is importable (it also provides the
PyTorch baseline); otherwise, and on the CPU backend, wall-clock around a device synchronize.
"""

from __future__ import annotations

import datetime
import os
import platform
import socket
import statistics
import subprocess
import time

from . import _backends

L2_FLUSH_BYTES = 256 << 20  # H200's L2 is 60 MB; writing 4x that evicts everything we read before


def _torch_cuda():
    try:
        import torch

        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


class Timer:
    """time_ms(fn) -> median milliseconds of `fn()` over `repeats` runs, each after an L2 flush."""

    def __init__(self, backend: str, repeats: int = 30, warmup: int = 3):
        self.backend, self.repeats, self.warmup = backend, repeats, warmup
        self.torch = _torch_cuda() if backend == "nvidia" else None
        self._flush = self.torch.empty(L2_FLUSH_BYTES // 4, dtype=self.torch.float32, device="cuda") if self.torch else None

    def time_ms(self, fn) -> float:
        for _ in range(self.warmup):
            fn()
        times = []
        if self.torch is not None:
            torch = self.torch
            start = [torch.cuda.Event(enable_timing=True) for _ in range(self.repeats)]
            end = [torch.cuda.Event(enable_timing=True) for _ in range(self.repeats)]
            for i in range(self.repeats):
                self._flush.zero_()  # evict L2, not timed
                start[i].record()
                fn()
                end[i].record()
            torch.cuda.synchronize()
            times = [s.elapsed_time(e) for s, e in zip(start, end)]
        else:
            for _ in range(self.repeats):
                _backends.synchronize()
                t0 = time.perf_counter()
                fn()
                _backends.synchronize()
                times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)

    def copy_bandwidth_gbps(self, nbytes: int = 1 << 30) -> float | None:
        """Measured peak: a device-to-device copy of nbytes (read + write counted)."""
        if self.torch is None:
            return None
        src = self.torch.empty(nbytes, dtype=self.torch.uint8, device="cuda")
        dst = self.torch.empty_like(src)
        ms = self.time_ms(lambda: dst.copy_(src))
        return 2 * nbytes / (ms * 1e-3) / 1e9


def _run(cmd) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_info(backend: str) -> dict:
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "backend": backend,
        "device": _backends.device_name(),
    }
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:
        pass
    if backend == "nvidia":
        query = _run(["nvidia-smi", "--query-gpu=name,driver_version,mig.mode.current,memory.total,clocks.max.memory",
                      "--format=csv,noheader"])
        if query:
            fields = [f.strip() for f in query.splitlines()[0].split(",")]
            info.update(zip(["gpu", "driver", "mig_mode", "memory_total", "max_memory_clock"], fields))
        torch = _torch_cuda()
        if torch is not None:
            info["torch"] = torch.__version__
            info["torch_cuda"] = torch.version.cuda
            props = torch.cuda.get_device_properties(0)
            info["sm_count"] = props.multi_processor_count
        info["CUDA_VISIBLE_DEVICES"] = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    return info
