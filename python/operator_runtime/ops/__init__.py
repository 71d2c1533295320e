"""The operators' Python bindings: one module per operator package, each from its folder (ops/<op>/<op>.py).

Bazel (//python:BUILD.bazel) and the wheel place every binding listed in ops/operators.bzl here, so this
package exports whatever is registered: each module's __all__ becomes part of operator_runtime's API.
"""

import importlib
import pkgutil



def _export_bindings() -> list:
    names = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module("." + info.name, __name__)
        for name in module.__all__:
            globals()[name] = getattr(module, name)
            names.append(name)
    return names


__all__ = _export_bindings()
