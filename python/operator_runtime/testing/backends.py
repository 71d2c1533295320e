"""Backends and placement: what to run on, and moving data to a backend and back."""

from __future__ import annotations

import os

import numpy as np

import operator_runtime as oprt

from .dtypes import np_dtype


def backends() -> list:
    """Backends to test: $OPRT_TEST_BACKENDS (comma-separated) if set, else every available backend."""
    requested = os.environ.get("OPRT_TEST_BACKENDS", "").strip()
    if requested:
        return [b.strip() for b in requested.split(",") if b.strip()]
    return oprt.available_backends()


def is_device(backend: str) -> bool:
    return backend != "cpu"


def skip_reason(backend: str):
    """Why `backend` cannot run here (None: it can, or it is an unknown name, which fails loudly in the
    test with InvalidArgumentError)."""
    if backend not in oprt._backends.BACKENDS:
        return None
    if backend in oprt.available_backends():
        return None
    if backend not in oprt.compiled_backends():
        return "backend %r is not compiled into this library" % backend
    return "backend %r is compiled in but no device is usable here" % backend


def backend_params(devices_only: bool = False) -> list:
    """pytest params, one per requested backend (only device backends if `devices_only`); unavailable
    ones are marked skip (not failed)."""
    import pytest

    params = []
    for b in backends():
        if devices_only and not is_device(b):
            continue
        reason = skip_reason(b)
        params.append(pytest.param(b, id=b, marks=[pytest.mark.skip(reason=reason)] if reason else []))
    return params


def parametrize_backends(fn):
    """Decorator: @testing.parametrize_backends def test_x(backend): ..."""
    import pytest

    return pytest.mark.parametrize("backend", backend_params())(fn)


def to_backend(array, backend: str):
    """The numpy array itself on "cpu"; else oprt.Tensor.from_numpy(array) on that backend, which keeps
    the exact layout (strides, 0-strides of broadcast views, the gaps of sliced views).
    With $OPRT_TEST_CPU_TENSORS set, "cpu" gets oprt.Tensor too: the device code path without a device."""
    if not is_device(backend) and not os.environ.get("OPRT_TEST_CPU_TENSORS"):
        return array
    with oprt.backend(backend):
        return oprt.Tensor.from_numpy(np.asarray(array))


def to_numpy(result) -> np.ndarray:
    """A host numpy array of any result (numpy, oprt.Tensor, torch, cupy)."""
    if isinstance(result, np.ndarray):
        return result
    if isinstance(result, oprt.Tensor):
        return result.numpy()
    module = type(result).__module__
    if module.startswith("torch"):
        import torch

        t = result.detach().cpu()
        if t.dtype == torch.bfloat16:
            return t.float().numpy().astype(np_dtype("bfloat16"))
        return t.numpy()
    if hasattr(result, "get"):  # cupy
        return result.get()
    return np.asarray(result)


class FakeDeviceArray:
    """Claims to be device memory through __cuda_array_interface__ while pointing at a host numpy array:
    the CPU backend must reject it (InvalidArgumentError) like any device tensor."""

    def __init__(self, array):
        self.array = array

    @property
    def __cuda_array_interface__(self):
        a = self.array
        return {"shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
                "data": (a.__array_interface__["data"][0], False), "version": 3}
