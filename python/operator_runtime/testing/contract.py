"""Contracts: what the cross-operator tests (tests/test_contract.py, tests/test_c_api.py) need of each C
operator, declared next to the op in its ops/<op>/cases.py, and how those modules are found.

    CONTRACTS = [testing.Contract("softmax", op, reference, attrs={"axis": -1}, c_attrs=(-1,))]

Every _dispatch.Operator registers itself in _dispatch.OPERATORS under its C name; the contract test
runs every check on every registered operator and fails for one that no cases.py gives a Contract.
"""

from __future__ import annotations

import dataclasses
import importlib
import pathlib
from typing import Callable, Optional

import numpy as np

from .. import _dispatch


@dataclasses.dataclass(frozen=True)
class Contract:
    """One C operator's standard call, in Python and in C.

    name       the C operator's name, as its _dispatch.Operator registers it ("copy", "log_softmax")
    op         op(*inputs, out=None, **attrs): the Python call (the cases module's `op`)
    reference  reference(*float64 inputs, **attrs) -> float64 result (the cases module's `reference`)
    attrs      the Python attributes of the standard call, e.g. {"axis": 1}
    c_attrs    the same call's attribute arguments of oprt_<name>_create (after the layouts), e.g.
               (ctypes.c_double(0.0),); one per attribute type of the Operator
    out_shape  out_shape(shape) -> the standard call's output shape when every input has `shape`
               (rank >= 2); None: `shape` itself
    """

    name: str
    op: Callable
    reference: Callable
    attrs: dict = dataclasses.field(default_factory=dict)
    c_attrs: tuple = ()
    out_shape: Optional[Callable] = None

    @property
    def __name__(self) -> str:  # what check_case / check_error name the op by
        return self.name

    def __call__(self, *inputs, out=None):
        """The standard call on `inputs` (out=None: the op allocates)."""
        return self.op(*inputs, out=out, **self.attrs)

    def expected(self, *inputs) -> np.ndarray:
        """The float64 reference result of the standard call."""
        return np.asarray(self.reference(*[np.asarray(x, dtype=np.float64) for x in inputs], **self.attrs))

    def output_shape(self, shape) -> tuple:
        return tuple(shape) if self.out_shape is None else tuple(self.out_shape(tuple(shape)))

    @property
    def operator(self):
        """The registered _dispatch.Operator (its C name, attribute types, inputs, parameter names)."""
        return _dispatch.OPERATORS[self.name]


def discover_cases(root=None) -> dict:
    """NAME -> module, for every ops/**/cases.py under `root` (a checkout's ops/ folder), by default
    under every folder of the importable `ops` package (under Bazel: the :cases targets the test or
    tool depends on); {} without an importable `ops` (the wheel alone)."""
    if root is None:
        try:
            import ops
        except ImportError:
            return {}
        roots = list(ops.__path__)
    else:
        roots = [root]
    modules = {}
    for r in roots:
        for path in sorted(pathlib.Path(r).rglob("cases.py")):
            name = ".".join(("ops",) + path.relative_to(r).with_suffix("").parts)
            module = importlib.import_module(name)
            modules[module.NAME] = module
    return modules


def contracts(modules=None) -> dict:
    """C name -> Contract, from the CONTRACTS of every cases module (default: discover_cases()); a name
    that two entries claim is an error."""
    found = {}
    for module in (discover_cases() if modules is None else modules).values():
        for c in getattr(module, "CONTRACTS", ()):
            if c.name in found:
                raise ValueError("two Contracts for operator %r (%s)" % (c.name, module.__name__))
            found[c.name] = c
    return found


def operator_names(found=None) -> list:
    """Every C operator the tests must cover: the registered ones and those a Contract names."""
    return sorted(set(_dispatch.OPERATORS) | set(contracts() if found is None else found))


def contract_of(name: str, found=None) -> Contract:
    """The Contract of operator `name`; AssertionError (loud, with what to add) when there is none or
    when it names an operator that is not registered."""
    found = contracts() if found is None else found
    if name not in found:
        raise AssertionError(
            "operator %r is registered (_dispatch.Operator) but no cases.py lists a testing.Contract for it: "
            "add CONTRACTS = [testing.Contract(%r, op, reference, ...)] to its ops/<op>/cases.py "
            "(and make the test depend on that :cases target)" % (name, name))
    if name not in _dispatch.OPERATORS:
        raise AssertionError("a testing.Contract names operator %r, but no _dispatch.Operator of that name is "
                             "registered (registered: %s)" % (name, ", ".join(sorted(_dispatch.OPERATORS))))
    return found[name]
