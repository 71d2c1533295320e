// Reached only through the include path that :probe_dep's `includes` gives its dependents.
#ifndef TOOLS_METAX_STANDIN_PROBE_DEP_H_
#define TOOLS_METAX_STANDIN_PROBE_DEP_H_
constexpr int kProbeDepValue = OPRT_PROBE_DEP_DEFINE;
#endif  // TOOLS_METAX_STANDIN_PROBE_DEP_H_
