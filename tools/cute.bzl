"""CUTE_DEPS: what an operator with CuTe kernel variants adds to its cuda_deps (see //tools:cute)."""

CUTE_DEPS = select({
    "//tools:nvidia_cute_on": ["@cutlass//:cute"],
    "//tools:nvidia_cute_auto": ["@cutlass//:cute_if_available"],
    "//conditions:default": [],
})
