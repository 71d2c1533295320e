"""The contract every operator keeps, checked once here for every C operator: each one the Python side
registers (_dispatch.OPERATORS), through the testing.Contract its ops/<op>/cases.py lists in CONTRACTS.
An operator registered without a Contract fails every check here, loudly.

Each check calls the op's standard call (the Contract's) with arguments it must refuse: wrong or
unsupported dtypes, more than 8 dims, an out= that partially overlaps an input, aliases it with other
strides, or overlaps itself, host memory on a device backend and device memory on the CPU backend. The
op must raise exactly the given error and leave every tensor bit-for-bit untouched (testing.check_error);
the error names the Python parameters, not the C library's. Negative strides and the standard call
itself must work."""

import re

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import _dispatch, testing

CONTRACTS = testing.contracts()
NAMES = testing.operator_names(CONTRACTS)
BACKENDS = testing.backend_params()
DEVICE_BACKENDS = testing.backend_params(devices_only=True)
DTYPES = testing.dtype_params()
RNG = np.random.default_rng(31337)
SHAPE = (4, 5)  # the standard call's input shape


def contract(name) -> testing.Contract:
    return testing.contract_of(name, CONTRACTS)


def parameter_names(name) -> tuple:
    """(out, inputs...) as the Python API names them; ("out", "x") for an operator not registered (its
    checks fail in contract())."""
    op = _dispatch.OPERATORS.get(name)
    return op.names if op is not None else ("out", "x")


def per_tensor(with_out: bool, first_input: bool = True) -> list:
    """pytest params (name, k): operator x position k of the tensor (0: out, 1...: the inputs)."""
    params = []
    for name in NAMES:
        names = parameter_names(name)
        for k in range(0 if with_out else 1, len(names)):
            if k == 1 and not first_input:
                continue
            params.append(pytest.param(name, k, id="%s-%s" % (name, names[k])))
    return params


def inputs_of(c, shape, dtype, backend=None):
    """Random inputs of the standard call, all of `shape` (moved to `backend` when given)."""
    xs = [testing.random_values(shape, dtype, RNG) for _ in range(c.operator.num_inputs)]
    return xs if backend is None else [testing.to_backend(x, backend) for x in xs]


# ------------------------------------------------------------------------------------------ the registry


@pytest.mark.parametrize("name", NAMES)
def test_every_operator_has_a_contract(name):
    c = contract(name)
    op = c.operator
    assert op.name == name
    assert len(c.c_attrs) == len(op.attr_types), (
        "%s: Contract.c_attrs has %d values, the operator takes %d attributes" % (name, len(c.c_attrs), len(op.attr_types)))
    assert len(op.names) == 1 + op.num_inputs and len(op.c_names) == 1 + op.num_inputs


def test_an_operator_without_a_contract_fails_loudly():
    with pytest.raises(AssertionError, match="registered .* but no cases.py lists a testing.Contract"):
        testing.contract_of("an_operator_without_a_contract", CONTRACTS)
    with pytest.raises(AssertionError, match="no _dispatch.Operator of that name is registered"):
        testing.contract_of("unregistered", {"unregistered": CONTRACTS[NAMES[0]]})


def test_the_registry_is_not_empty():
    # (an import that registers nothing, or a discovery that finds no cases module, must not pass silently)
    assert _dispatch.OPERATORS and CONTRACTS, "no operators registered or no cases.py found"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_standard_call(name, backend, dtype):
    # The call test_c_api makes through the C API: the Contract's reference and out_shape describe it.
    c = contract(name)
    xs = inputs_of(c, SHAPE, dtype)
    magnitude = np.abs(c.expected(*[np.abs(x.astype(np.float64)) for x in xs]))  # (sums: of |terms|)
    y = testing.check_case(c.op, c.reference, xs, dtype, backend, attrs=c.attrs, out="contiguous",
                           reduce_len=SHAPE[-1], magnitude=magnitude)
    assert y.shape == c.output_shape(SHAPE)


# ------------------------------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,which", per_tensor(with_out=True, first_input=False))
def test_dtype_mismatch(name, which, backend, dtype):
    c = contract(name)
    other = "float32" if dtype != "float32" else "float16"
    xs = inputs_of(c, SHAPE, dtype)
    out = testing.make_output(c.output_shape(SHAPE), other if which == 0 else dtype)
    if which > 0:
        xs[which - 1] = testing.random_values(SHAPE, other, RNG)
    e = testing.check_error(c, xs, backend, oprt.BadDtypeError, out=out)
    # The message names the Python parameters (out, x), not the C library's (y, x).
    op = c.operator
    assert re.search(r"\b%s\b" % op.names[which], e.detail), e.detail
    for c_name, py_name in zip(op.c_names, op.names):
        if c_name != py_name:
            assert not re.search(r"\b%s\b" % c_name, e.detail), e.detail


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bad", ["int8", "int32", "int64"])
@pytest.mark.parametrize("name,which", per_tensor(with_out=False))
def test_unsupported_dtype(name, which, backend, bad):
    c = contract(name)
    xs = inputs_of(c, SHAPE, "float32")
    xs[which - 1] = np.arange(20).reshape(SHAPE).astype(bad)
    testing.check_error(c, xs, backend, oprt.BadDtypeError, convert=False)


# ------------------------------------------------------------------------------------------ shapes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("with_out", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_rank_above_8(name, backend, with_out):
    c = contract(name)
    shape = (2, 1, 1, 1, 1, 1, 1, 1, 2)
    out = testing.make_output(c.output_shape(shape), "float32") if with_out else None
    testing.check_error(c, inputs_of(c, shape, "float32"), backend, oprt.BadShapeError, out=out)


# ------------------------------------------------------------------------------------------ aliasing


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shift", [1, 3])
@pytest.mark.parametrize("name,which", per_tensor(with_out=False))
def test_output_partially_overlapping_an_input(name, which, backend, dtype, shift):
    c = contract(name)
    shape = (4, 8)
    xs = inputs_of(c, shape, dtype, backend)
    xs[which - 1], out = testing.overlapping_pair(backend, dtype, shape, shift=shift, out_shape=c.output_shape(shape))
    testing.check_error(c, xs, backend, oprt.BadStridesError, out=out, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,which", per_tensor(with_out=False))
def test_output_same_memory_other_layout(name, which, backend):
    # Same data pointer, other strides (the transpose): not an exact alias.
    c = contract(name)
    xs = inputs_of(c, (6, 6), "float32", backend)
    out_shape = c.output_shape((6, 6))
    out = testing.strided_view(xs[which - 1], out_shape, testing.contiguous_strides(out_shape)[::-1])
    testing.check_error(c, xs, backend, oprt.BadStridesError, out=out, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_self_overlapping_output(name, backend, dtype):
    c = contract(name)
    out = testing.self_overlapping_output(backend, dtype, c.output_shape(SHAPE))
    testing.check_error(c, inputs_of(c, SHAPE, dtype), backend, oprt.BadStridesError, out=out)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_negative_strides(name, backend):
    c = contract(name)
    xs = inputs_of(c, SHAPE, "float32")
    flipped = [x[::-1, ::-1] for x in xs]
    expected = c.expected(*flipped)
    if testing.is_device(backend):  # oprt.Tensor.from_numpy copies them into a layout the backend takes
        dev = [testing.to_backend(x, backend) for x in flipped]
        assert all(min(t.strides) > 0 for t in dev)
        with oprt.backend(backend):
            y = testing.to_numpy(c(*dev))
        testing.assert_close(y, expected, "float32", reduce_len=SHAPE[-1])
    else:  # numpy arrays with negative strides are staged through aligned copies, as numpy computes them
        testing.assert_close(np.asarray(c(*flipped)), expected, "float32", reduce_len=SHAPE[-1])
        out = testing.make_output(expected.shape, "float32")
        assert c(*xs, out=out[::-1]) is not None
        testing.assert_close(out[::-1], c.expected(*xs), "float32", reduce_len=SHAPE[-1])


# ------------------------------------------------------------------------------------------ placement


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_host_array_on_device_backend(name, backend):
    c = contract(name)
    host = inputs_of(c, SHAPE, "float32")
    dev = [testing.to_backend(x, backend) for x in host]
    with oprt.backend(backend):
        c(*dev)  # the same layouts are now cached: the placement check must still run
    testing.check_error(c, host, backend, oprt.InvalidArgumentError, convert=False)
    for k in range(len(dev)):  # one host input among device ones
        mixed = dev[:k] + [host[k]] + dev[k + 1:]
        testing.check_error(c, mixed, backend, oprt.InvalidArgumentError, convert=False)
    testing.check_error(c, dev, backend, oprt.InvalidArgumentError, convert=False,
                        out=testing.make_output(c.output_shape(SHAPE), "float32"))


@pytest.mark.skipif("cpu" not in testing.backends(), reason="cpu backend not requested")
@pytest.mark.parametrize("name", NAMES)
def test_device_array_on_cpu_backend(name):
    c = contract(name)
    xs = inputs_of(c, SHAPE, "float32")
    out = testing.make_output(c.output_shape(SHAPE), "float32")
    c(*xs, out=out.copy())  # caches the layouts
    for k in range(len(xs)):
        fake = xs[:k] + [testing.FakeDeviceArray(xs[k])] + xs[k + 1:]
        testing.check_error(c, fake, "cpu", oprt.InvalidArgumentError, out=out)
    testing.check_error(c, xs, "cpu", oprt.InvalidArgumentError, out=testing.FakeDeviceArray(out))
    assert (out == testing.SENTINEL).all()


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
