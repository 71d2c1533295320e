"""Kernel variants (impl=, oprt_set_kernel_variant) and seeing which kernel ran (oprt.explain,
oprt_last_launches): the CuTe variants of copy and vector_add pass their ops' cases on device backends,
and report the kernel that served each call; on the CPU the variants are refused by name."""

import functools
import types

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.copy import cases as copy_cases
from ops.vector_add import cases as add_cases

DEVICE_BACKENDS = [b for b in testing.backends() if testing.is_device(b)]
CUTE_OPS = {"copy": copy_cases, "vector_add": add_cases}


def cute_module(cases):
    """The op's cases module with its op running the 'cute' variant."""
    fn = getattr(oprt, cases.NAME)
    module = types.SimpleNamespace(**{k: getattr(cases, k) for k in dir(cases) if not k.startswith("__")})
    module.op = lambda *xs, out=None, **kw: fn(*xs, out=out, impl="cute", **kw)
    module.NAME = cases.NAME + "[cute]"
    return module


@functools.lru_cache(maxsize=None)
def has_cute(backend):
    """Whether this build has the CuTe variants on `backend` (asked once per backend)."""
    with oprt.backend(backend):
        try:
            oprt.copy(testing.to_backend(np.zeros(4, np.float32), backend), impl="cute")
        except oprt.NotSupportedError:
            return False
    return True


def _variant_params():
    params = []
    for name, cases in CUTE_OPS.items():
        for p in testing.case_params(cases.CASES, DEVICE_BACKENDS):
            backend, case, dtype = p.values
            params.append(pytest.param(name, backend, case, dtype, id="%s-%s" % (name, p.id), marks=p.marks))
    return params


@pytest.mark.parametrize("name,backend,case,dtype", _variant_params())
def test_cute_variant_case(name, backend, case, dtype):
    if not has_cute(backend):
        pytest.skip("this build has no CuTe variants (--//tools:cute=off, or CUTLASS not available)")
    testing.run_case(cute_module(CUTE_OPS[name]), case, dtype, backend)


@pytest.mark.parametrize("backend", DEVICE_BACKENDS or [pytest.param("nvidia", marks=pytest.mark.skip("no device"))])
def test_explain_names_the_kernel_that_ran(backend):
    if not has_cute(backend):
        pytest.skip("this build has no CuTe variants")
    with oprt.backend(backend):
        x = testing.to_backend(np.arange(4096, dtype=np.float32), backend)
        out = testing.to_backend(np.zeros(4096, np.float32), backend)
        cute = oprt.explain(oprt.copy, x, out=out, impl="cute")
        default = oprt.explain(oprt.copy, x, out=out)
    assert [l.kernel for l in cute.launches] == ["cute_elementwise::tiled_kernel"], cute
    assert [l.kernel for l in default.launches] == ["contiguous_kernel (128-bit packs)"], default
    assert cute.bytes_moved == default.bytes_moved == 2 * 4096 * 4
    assert cute.launches[0].grid == (1, 1, 1) and cute.launches[0].block == (256, 1, 1)  # 4096 floats: one tile


def test_explain_on_the_cpu_backend():
    x = np.ones((3, 5), np.float32)
    explanation = oprt.explain(oprt.softmax, x, axis=0)
    assert explanation.launches == [] and explanation.bytes_moved == 2 * 15 * 4
    assert "CPU reference" in str(explanation)


@pytest.mark.parametrize("op", [oprt.copy, oprt.relu, oprt.softmax])
def test_cpu_refuses_a_variant_it_lacks_by_name(op):
    x = np.ones(8, np.float32)
    out = np.full(8, 7.0, np.float32)
    with pytest.raises(oprt.NotSupportedError, match="no 'cute' kernel for backend 'cpu'.*it has: default"):
        op(x, out=out, impl="cute")
    assert (out == 7.0).all(), "nothing written on error"
    np.testing.assert_array_equal(oprt.copy(x, impl="default"), x)


def test_variant_choice_does_not_leak_into_the_next_call():
    x = np.ones(8, np.float32)
    with pytest.raises(oprt.NotSupportedError):
        oprt.relu(x, impl="cute")
    np.testing.assert_array_equal(oprt.relu(x), x)  # created with the default kernel
    assert oprt._lib.lib.oprt_get_kernel_variant() == b"default"


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
