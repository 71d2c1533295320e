"""What every example shares: the --backend flag, moving arrays to that backend and back, and the check
that ends each example (max error against a float64 numpy reference; exit status 1 if it is too big)."""

from __future__ import annotations

import argparse
import sys

import numpy as np

import operator_runtime as oprt


def parse_args(doc: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="cpu", choices=["cpu", "nvidia", "metax"],
                        help="where the op runs (default: cpu, which works on any machine)")
    args = parser.parse_args()
    if args.backend not in oprt.available_backends():
        sys.exit("backend %r is not available here (available: %s); build with --config=%s and run on a "
                 "machine with that GPU" % (args.backend, ", ".join(oprt.available_backends()), args.backend))
    return args


def to_backend(array: np.ndarray, backend: str):
    """numpy stays numpy on the CPU; on a GPU backend, a torch CUDA tensor when torch is installed (it is
    what most users hold), else our own oprt.Tensor. Both keep the array's strides."""
    if backend == "cpu":
        return array
    try:
        import torch

        return torch.from_numpy(array).to("cuda")
    except ImportError:
        return oprt.Tensor.from_numpy(array)


def to_numpy(tensor) -> np.ndarray:
    if isinstance(tensor, np.ndarray):
        return tensor
    if isinstance(tensor, oprt.Tensor):
        return tensor.numpy()
    if hasattr(tensor, "cpu"):
        return tensor.cpu().numpy()  # torch
    return np.asarray(tensor)  # a numpy scalar (a reduction of a numpy array to one value)


def check(what: str, got, want: np.ndarray, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    got, want = to_numpy(got).astype(np.float64), np.asarray(want, dtype=np.float64)
    ok = got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    error = float("nan")
    if got.shape == want.shape:
        same = (got == want) | (np.isnan(got) & np.isnan(want))  # equal infinities and NaN in both: no error
        with np.errstate(invalid="ignore"):  # inf - inf where they are the same
            error = float(np.max(np.where(same, 0.0, np.abs(got - want)), initial=0.0))
    print("%-48s max |error| %.2e  %s" % (what, error, "OK" if ok else "MISMATCH"))
    if not ok:
        sys.exit(1)
