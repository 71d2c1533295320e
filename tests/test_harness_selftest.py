"""The harness must catch wrong kernels: each deliberately broken implementation below is plugged into
testing.check_case (on the CPU, as numpy functions) and must fail it, while correct ones pass.
Also pins assert_close's rules (NaN positions, exact infinities, dtype tolerances)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.copy import cases as copy_cases
from ops.elementwise.relu import cases as relu_cases
from ops.reduce_sum import cases as reduce_cases
from ops.softmax import cases as softmax_cases
from ops.vector_add import cases as add_cases

os.environ.pop("OPRT_TEST_CPU_TENSORS", None)  # the broken 'kernels' below are numpy functions
RNG = np.random.default_rng(11)
ALL = [copy_cases, add_cases, relu_cases, reduce_cases, softmax_cases]


def _inputs(module, shape, dtype, fill="normal"):
    n = 2 if module is add_cases else 1
    return [testing.random_values(shape, dtype, RNG, fill, scale=3.0 if module is softmax_cases else 1.0)
            for _ in range(n)]


def _attrs(module):
    return {reduce_cases: {"axis": -1}, softmax_cases: {"axis": -1}}.get(module, {})


def _tol(module, inputs, dtype, attrs):
    if not hasattr(module, "tolerance"):
        return {}
    case = testing.Case(shapes=tuple(x.shape for x in inputs), attrs=tuple(attrs.items()))
    return module.tolerance(case, inputs, dtype)


def _numpy_kernel(module, transform):
    """A CPU 'kernel' computing the reference in float64 and then `transform`ing the result."""

    def kernel(*xs, out=None, **attrs):
        with np.errstate(all="ignore"):
            y = np.asarray(module.reference(*[x.astype(np.float64) for x in xs], **attrs), dtype=np.float64)
            y = np.asarray(transform(y, xs, attrs)).astype(xs[0].dtype)
        if out is None:
            return y
        out[...] = y
        return out

    return kernel


def _check(module, kernel, inputs, dtype, attrs, out=None):
    return testing.check_case(kernel, module.reference, inputs, dtype, "cpu", attrs=attrs, out=out,
                              **_tol(module, inputs, dtype, attrs))


def _fails(module, kernel, inputs, dtype, attrs, out=None):
    with pytest.raises(AssertionError):
        _check(module, kernel, inputs, dtype, attrs, out)


# ------------------------------------------------------------------------------------------ correct ones pass


@pytest.mark.parametrize("module", ALL, ids=lambda m: m.NAME)
@pytest.mark.parametrize("dtype", testing.DTYPES)
def test_correct_implementations_pass(module, dtype):
    inputs, attrs = _inputs(module, (33, 65), dtype), _attrs(module)
    _check(module, _numpy_kernel(module, lambda y, xs, a: y), inputs, dtype, attrs)  # the reference itself
    _check(module, module.op, inputs, dtype, attrs)  # the library, cpu backend
    _check(module, module.op, inputs, dtype, attrs, out="sliced")


# ------------------------------------------------------------------------------------------ wrong ones fail


def _perturb_one(y, xs, attrs):
    y = y.copy()
    flat = y.reshape(-1)
    i = flat.size // 2 + 1
    flat[i] = flat[i] * 1.05 + 0.05  # one element off by 5%
    return y


def _shift_by_one(y, xs, attrs):
    return np.roll(y.reshape(-1), 1).reshape(y.shape)  # every element read from its neighbour


@pytest.mark.parametrize("module", ALL, ids=lambda m: m.NAME)
@pytest.mark.parametrize("dtype", testing.DTYPES)
@pytest.mark.parametrize("bug", [_perturb_one, _shift_by_one], ids=["one_element_perturbed", "shifted_by_one"])
def test_off_by_one(module, dtype, bug):
    inputs, attrs = _inputs(module, (33, 65), dtype, "uniform" if module is softmax_cases else "normal"), _attrs(module)
    _fails(module, _numpy_kernel(module, bug), inputs, dtype, attrs)


@pytest.mark.parametrize("dtype", testing.DTYPES)
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_wrong_axis(dtype, log, axis):
    x = testing.random_values((24, 24, 24), dtype, RNG, scale=3.0)
    wrong = {-1: 0, 0: 1, 1: 2}[axis]
    kernel = _numpy_kernel(softmax_cases, lambda y, xs, a: softmax_cases.reference(xs[0].astype(np.float64),
                                                                                   axis=wrong, log=a["log"]))
    _fails(softmax_cases, kernel, [x], dtype, {"axis": axis, "log": log})


@pytest.mark.parametrize("dtype", testing.DTYPES)
@pytest.mark.parametrize("axis,wrong", [(1, 0), (0, 1), (-1, 0), ((0, 2), (0, 1))])
def test_reduce_sum_wrong_axis(dtype, axis, wrong):
    x = testing.random_values((16, 16, 16), dtype, RNG, "uniform")  # same output shape either way
    kernel = _numpy_kernel(reduce_cases, lambda y, xs, a: xs[0].astype(np.float64).sum(axis=wrong))
    _fails(reduce_cases, kernel, [x], dtype, {"axis": axis})


def _in_f16(module):
    """Computed in float16 (inputs rounded to f16, every step rounded to f16) when float32 was asked."""

    def transform(y, xs, attrs):
        h = [x.astype(np.float16) for x in xs]
        if module is reduce_cases:
            return np.add.reduce(h[0], axis=attrs["axis"], dtype=np.float16)
        if module is softmax_cases:
            x = h[0]
            e = np.exp(x - x.max(axis=attrs["axis"], keepdims=True))
            s = e.sum(axis=attrs["axis"], keepdims=True, dtype=np.float16)
            return np.log(e / s) if attrs.get("log") else e / s
        return module.reference(*[v.astype(np.float64) for v in h], **attrs).astype(np.float16)

    return transform


@pytest.mark.parametrize("module", [reduce_cases, softmax_cases, add_cases, relu_cases], ids=lambda m: m.NAME)
@pytest.mark.parametrize("length", [64, 1024, 4097])
def test_low_precision(module, length):
    inputs = _inputs(module, (8, length), "float32", "uniform")
    attrs = _attrs(module)
    _fails(module, _numpy_kernel(module, _in_f16(module)), inputs, "float32", attrs)
    if module is softmax_cases:
        _fails(module, _numpy_kernel(module, _in_f16(module)), inputs, "float32", {"axis": -1, "log": True})


@pytest.mark.parametrize("module", ALL, ids=lambda m: m.NAME)
@pytest.mark.parametrize("dtype", testing.DTYPES)
def test_nan_where_a_number_is_expected(module, dtype):
    def bug(y, xs, attrs):
        y = y.copy()
        y.reshape(-1)[3] = np.nan
        return y

    inputs = _inputs(module, (33, 65), dtype)
    _fails(module, _numpy_kernel(module, bug), inputs, dtype, _attrs(module))


@pytest.mark.parametrize("dtype", testing.DTYPES)
@pytest.mark.parametrize("log", [False, True])
def test_number_where_nan_is_expected(dtype, log):
    # A softmax that treats an all -inf row as uniform (or NaN as -inf) instead of giving NaN like torch.
    x = testing.random_values((6, 40), dtype, RNG)
    x[2] = -np.inf
    x[4, 7] = np.nan

    def bug(y, xs, attrs):
        y = np.nan_to_num(y, nan=-np.log(40) if attrs["log"] else 1.0 / 40)
        return y

    _fails(softmax_cases, _numpy_kernel(softmax_cases, bug), [x], dtype, {"axis": -1, "log": log})


@pytest.mark.parametrize("module", [add_cases, relu_cases, copy_cases, reduce_cases], ids=lambda m: m.NAME)
@pytest.mark.parametrize("dtype", testing.DTYPES)
def test_infinity_mismatches(module, dtype):
    inputs = _inputs(module, (16, 16), dtype)
    inputs[0][3, 4] = np.inf
    attrs = _attrs(module)
    _fails(module, _numpy_kernel(module, lambda y, xs, a: np.where(np.isinf(y), np.finfo(np.float16).max, y)),
           inputs, dtype, attrs)  # a large finite value instead of inf
    _fails(module, _numpy_kernel(module, lambda y, xs, a: np.where(np.isinf(y), -y, y)), inputs, dtype, attrs)  # -inf
    _fails(module, _numpy_kernel(module, lambda y, xs, a: np.where(np.isinf(y), np.nan, y)), inputs, dtype, attrs)


@pytest.mark.parametrize("dtype", testing.DTYPES)
def test_writes_into_the_gaps_of_a_strided_out(dtype):
    # A kernel that ignores out's strides and writes it as if it were contiguous.
    def kernel(x, out=None):
        flat = np.lib.stride_tricks.as_strided(out, (x.size,), (out.itemsize,))
        flat[...] = np.asarray(x).reshape(-1)
        return out

    x = testing.random_values((8, 9), dtype, RNG)
    with pytest.raises(AssertionError):
        testing.check_case(kernel, copy_cases.reference, [x], dtype, "cpu", out="sliced", exact=True)


def test_ignoring_out_is_caught():
    x = testing.random_values((8, 9), "float32", RNG)
    with pytest.raises(AssertionError, match="did not return the out= object"):
        testing.check_case(lambda v, out=None: v.copy(), copy_cases.reference, [x], "float32", "cpu", out="contiguous")


def test_modifying_an_input_is_caught():
    def kernel(x, out=None):
        y = np.maximum(x, 0)
        x[0, 0] = 42  # scribbles on its input
        return y

    x = testing.random_values((8, 9), "float32", RNG)
    with pytest.raises(AssertionError, match="modified input"):
        testing.check_case(kernel, relu_cases.reference, [x], "float32", "cpu")


def test_wrong_dtype_or_shape_is_caught():
    x = testing.random_values((8, 9), "float16", RNG)
    with pytest.raises(AssertionError, match="dtype"):
        testing.check_case(lambda v: v.astype(np.float32), copy_cases.reference, [x], "float16", "cpu")
    with pytest.raises(AssertionError, match="shape"):
        testing.check_case(lambda v: v.reshape(9, 8), copy_cases.reference, [x], "float16", "cpu")


def test_check_error_catches_wrong_type_and_stray_writes():
    x = testing.random_values((4, 5), "float32", RNG)
    out = testing.make_output((4, 5), "float32")

    def raises_subclass_only(x, out=None):
        raise oprt.BadShapeError("wrong class")

    with pytest.raises(AssertionError, match="expected BadStridesError"):
        testing.check_error(raises_subclass_only, [x], "cpu", oprt.BadStridesError, out=out)

    def writes_then_raises(x, out=None):
        out[0, 0] = 1.0
        raise oprt.BadStridesError("too late")

    with pytest.raises(AssertionError, match="left memory modified"):
        testing.check_error(writes_then_raises, [x], "cpu", oprt.BadStridesError, out=out)

    with pytest.raises(AssertionError, match="did not raise"):
        testing.check_error(lambda x, out=None: out, [x], "cpu", oprt.BadStridesError, out=out)


# ------------------------------------------------------------------------------------------ the device path


@pytest.mark.parametrize("dtype", testing.DTYPES)
@pytest.mark.parametrize("shape", testing.EDGE_SHAPES + ((5, 7, 9),), ids=str)
def test_tensor_round_trip_keeps_layout(dtype, shape):
    # What to_backend does on a device backend, here with host memory: oprt.Tensor.from_numpy keeps the
    # exact layout (and the gaps of a sliced view), .numpy() gives back the same shape and values.
    values = testing.random_values(shape, dtype, RNG)
    for name, x in testing.layouts(values):
        t = oprt.Tensor.from_numpy(x)
        assert t.shape == x.shape and t.strides == x.strides, name  # bytes, as numpy's
        assert t.element_strides == tuple(s // x.itemsize for s in x.strides), name
        back = t.numpy()
        assert back.shape == x.shape and back.dtype == x.dtype, name
        np.testing.assert_array_equal(testing._bits(back), testing._bits(x.copy(order="C")))
        np.testing.assert_array_equal(testing._bits(testing._span(t)), testing._bits(testing._span(x)))


@pytest.mark.parametrize("module", ALL, ids=lambda m: m.NAME)
def test_cases_through_oprt_tensors(module, monkeypatch):
    # The device code path of check_case (inputs and out= as oprt.Tensor) on the cpu backend.
    monkeypatch.setenv("OPRT_TEST_CPU_TENSORS", "1")
    for case in module.CASES[::7]:
        if not case.device_only and case.numel < (1 << 16):
            testing.run_case(module, case, "float32", "cpu")


# ------------------------------------------------------------------------------------------ assert_close's rules


def test_assert_close_rules():
    e = np.array([1.0, np.nan, np.inf, -np.inf, 0.0])
    testing.assert_close(e.copy(), e, "float32")
    for bad in ([1.0, 0.0, np.inf, -np.inf, 0.0], [1.0, np.nan, 3e38, -np.inf, 0.0], [1.0, np.nan, np.inf, np.inf, 0.0],
                [1.0, np.nan, np.inf, -np.inf, np.nan], [1.0 + 1e-4, np.nan, np.inf, -np.inf, 0.0]):
        with pytest.raises(AssertionError):
            testing.assert_close(np.array(bad), e, "float32")
    with pytest.raises(AssertionError, match="shape"):
        testing.assert_close(np.zeros(3), np.zeros((3, 1)), "float32")


@pytest.mark.parametrize("dtype", testing.DTYPES)
def test_tolerance_is_one_ulp_for_exact_ops(dtype):
    eps = testing.TOLERANCES[dtype].eps
    e = np.array([1.0, 3.0, 100.0])
    testing.assert_close(e * (1 + eps), e, dtype)  # one ulp: passes
    with pytest.raises(AssertionError):
        testing.assert_close(e * (1 + max(4 * eps, 2 * testing.TOLERANCES[dtype].rtol)), e, dtype)


def test_reduction_tolerance_scales():
    r1, a1 = testing.tolerance("float32")
    r2, a2 = testing.tolerance("float32", reduce_len=1 << 20, magnitude=np.array([10.0, 1000.0]))
    assert r2 > r1 and a2[1] > a2[0] > a1
    assert testing.tolerance("float16", 1024)[0] < 2 * testing.TOLERANCES["float16"].rtol  # still ~1 f16 ulp


def test_bazel_test_filter_selects_like_pytest_k(tmp_path):
    # `bazel test --test_filter=EXPR` reaches the test as TESTBRIDGE_TEST_ONLY; testing.main passes it to -k.
    script = tmp_path / "test_sample.py"
    script.write_text("from operator_runtime import testing\n"
                      "def test_alpha(): pass\n"
                      "def test_beta(): assert False\n"
                      "if __name__ == '__main__':\n"
                      "    raise SystemExit(testing.main(__file__))\n")

    def run(only):
        env = {k: v for k, v in os.environ.items() if k not in ("XML_OUTPUT_FILE", "TESTBRIDGE_TEST_ONLY")}
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        if only is not None:
            env["TESTBRIDGE_TEST_ONLY"] = only
        r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, cwd=tmp_path)
        return r.returncode, r.stdout

    code, out = run("alpha")
    assert code == 0 and "1 passed, 1 deselected" in out, out
    code, out = run("not alpha")
    assert code == 1 and "1 failed, 1 deselected" in out, out
    code, out = run(None)
    assert code == 1 and "1 failed, 1 passed" in out, out
    code, out = run("gamma")  # selects nothing in this target: not a failure (bazel test //... --test_filter)
    assert code == 0 and "2 deselected" in out, out


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
