#!/usr/bin/env bash
# The generator end to end, in a scratch copy of this checkout (which it leaves untouched): one operator of every
# kind from `bazel run //tools:new_op`, then
#   - `git status` shows ops/operators.bzl as the only change outside the new folders;
#   - each new op builds (CPU, and with --config=nvidia when nvcc is here) and is in the umbrella header and oprt.*;
#   - its tests and the contract test fail with "<op>: kernel not implemented: edit ..." (never pass vacuously).
# Extra arguments go to every bazel command (CI passes its cache flags). Prints one result line; exit 0 = all held.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=$(mktemp -d /tmp/oprt-new-op.XXXXXX)
cleanup() { (cd "$SCRATCH/ws" 2>/dev/null && ./bazelw shutdown >/dev/null 2>&1) || true; rm -rf "$SCRATCH"; }
trap cleanup EXIT
fail() { echo "new_op_build_test: FAILED: $*"; exit 1; }

# The working tree as it is (tracked and untracked, not ignored), committed in a fresh repository.
mkdir "$SCRATCH/ws"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 -I{} cp --parents -P {} "$SCRATCH/ws/" 2>/dev/null || true)
# Your Bazel settings, but not user.bazelrc's startup lines: the scratch workspace needs its own output base.
[ -f "$ROOT/.bazelrc.generated" ] && cp "$ROOT/.bazelrc.generated" "$SCRATCH/ws/"
[ -f "$ROOT/user.bazelrc" ] && grep -v '^startup' "$ROOT/user.bazelrc" > "$SCRATCH/ws/user.bazelrc"
cd "$SCRATCH/ws"
git init -q && git add -A && git -c user.name=ci -c user.email=ci@localhost commit -qm scratch

KINDS=(unary binary reduce row)
for kind in "${KINDS[@]}"; do
  ./bazelw run "$@" //tools:new_op -- --name "scratch_$kind" --kind "$kind" > "$SCRATCH/new_op_$kind.log" 2>&1 ||
    { cat "$SCRATCH/new_op_$kind.log"; fail "new_op --kind $kind"; }
done
# A second run with a taken name refuses in one line, and changes nothing.
./bazelw run "$@" //tools:new_op -- --name scratch_unary --kind unary > "$SCRATCH/again.log" 2>&1 && fail "a taken name was accepted"
grep -q "already exists" "$SCRATCH/again.log" || fail "no 'already exists' line for a taken name"

changed=$(git status --porcelain | grep -v '^?? ops/scratch_' || true)
[ "$changed" = " M ops/operators.bzl" ] || fail "changes outside the new folders: $changed"
[ "$(git diff --numstat ops/operators.bzl)" = "$(printf '4\t0\tops/operators.bzl')" ] || fail "ops/operators.bzl: not 4 added lines"

targets=()
for kind in "${KINDS[@]}"; do targets+=("//ops/scratch_$kind/..."); done
./bazelw build "$@" "${targets[@]}" //include:umbrella_header > "$SCRATCH/build.log" 2>&1 || { tail -40 "$SCRATCH/build.log"; fail "CPU build"; }
for kind in "${KINDS[@]}"; do
  grep -q "operator_runtime/ops/scratch_$kind.h" bazel-bin/include/operator_runtime/operator_runtime.h || fail "scratch_$kind not in the umbrella header"
done
nvidia=skipped
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  ./bazelw build "$@" --config=nvidia //ops:libcamp_ops.so > "$SCRATCH/nvidia.log" 2>&1 || { tail -40 "$SCRATCH/nvidia.log"; fail "--config=nvidia build"; }
  nvidia=built
fi

# Every new op's own test fails, with its TODO message; so does the contract test (it covers registered ops).
tests=()
for kind in "${KINDS[@]}"; do tests+=("//ops/scratch_$kind:test_scratch_$kind"); done
./bazelw test "$@" "${tests[@]}" //tests:test_contract > "$SCRATCH/test.log" 2>&1 && fail "an unwritten op's tests passed"
for kind in "${KINDS[@]}"; do
  grep -q "scratch_$kind: kernel not implemented: edit ops/scratch_$kind/" "bazel-testlogs/ops/scratch_$kind/test_scratch_$kind/test.log" ||
    fail "test_scratch_$kind did not fail with the TODO message"
  grep -q "scratch_$kind: kernel not implemented" bazel-testlogs/tests/test_contract/test.log ||
    fail "test_contract did not fail for scratch_$kind"
done
echo "new_op_build_test: ok: ${#KINDS[@]} kinds generated (${KINDS[*]}), only ops/operators.bzl changed outside them (+4 lines), CPU build ok, nvidia build $nvidia, each op's tests and test_contract fail with its 'kernel not implemented' message"
