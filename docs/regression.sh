#!/bin/sh
# A small gradient regression suite written as a shell script, the way a CI job would pin
# autograd behaviour with autotrace. Copy it, point it at your own scripts, keep the goldens
# (SCRIPT.expected.json) in version control, and rewrite them on purpose with
#     autotrace check --update path/to/script.py
#
# usage: sh docs/regression.sh          (from anywhere; AUTOTRACE=... to use another binary)
# exit:  0 when every check holds, 1 otherwise. Each failed check is named on stderr.
#
# autotrace's exit codes, which the checks below lean on:
#   0 ok   1 the script failed   2 usage error   3 check found a difference   70 internal error

set -u
AUTOTRACE=${AUTOTRACE:-autotrace}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
failures=0

fail() {
    echo "regression: FAILED: $*" >&2
    failures=$((failures + 1))
}

# expect CODE DESCRIPTION -- COMMAND...: run COMMAND, require exit status CODE
expect() {
    want=$1; what=$2; shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$what (exit $got, expected $want)"
        sed 's/^/    /' "$TMP/out" "$TMP/err" >&2
    fi
}

# 1. Every scenario still matches its golden file: values and grads (rtol 1e-4, atol 1e-5),
#    grad_fn names, shapes, dtypes, printed output, errors and warnings.
expect 0 "scenarios match their goldens" -- $AUTOTRACE check scenarios/*.py

# 2. One gradient pinned inline, no file needed: d/dx sum(x*3) = [3, 3].
echo '{"schema_version": 1, "error": null, "variables": {"x": {"grad": [3.0, 3.0], "is_leaf": true}, "z": {"grad_fn": "SumBackward0"}}}' \
    >"$TMP/times3.json"
expect 0 "grad of sum(x*3) is [3, 3]" -- \
    $AUTOTRACE check -e 'y = x * 3; z = y.sum(); z.backward()' --set 'x=[2.0, 3.0]' --expect "$TMP/times3.json"

# 3. The same pin read from standard input, and a deliberate wrong expectation must be caught (exit 3).
echo '{"schema_version": 1, "variables": {"x": {"grad": [4.0, 4.0]}}}' >"$TMP/wrong.json"
expect 3 "a wrong gradient is reported as a difference" -- \
    sh -c "printf 'z = (x * 3).sum()\nz.backward()\n' | $AUTOTRACE check - --set 'x=[2.0, 3.0]' --expect '$TMP/wrong.json'"

# 4. A script that must keep failing: backward() on a vector output needs a gradient.
expect 1 "non-scalar backward still fails" -- \
    $AUTOTRACE run -e 'import torch; v = torch.ones(3, requires_grad=True); (v * 2).backward()'
$AUTOTRACE run -e 'import torch; v = torch.ones(3, requires_grad=True); (v * 2).backward()' --json >"$TMP/err.json" 2>/dev/null
grep -q '"message": "grad can be implicitly created only for scalar outputs"' "$TMP/err.json" \
    || fail "non-scalar backward: PyTorch's message in run --json"

# 5. The JSON document is stable: two runs are byte-identical (no addresses, no timestamps).
$AUTOTRACE run scenarios/seed1_mul_sum.py --json >"$TMP/a.json" 2>/dev/null
$AUTOTRACE run scenarios/seed1_mul_sum.py --json >"$TMP/b.json" 2>/dev/null
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "run --json is not byte-identical across runs"

# 6. Usage mistakes are exit 2, not a script failure.
expect 2 "a free name nobody bound is a usage error" -- $AUTOTRACE run -e 'z = (x * 3).sum()'
expect 2 "a malformed --set value is a usage error" -- $AUTOTRACE run -e 'z = (x * 3).sum()' --set 'x=[2.0,'

if [ "$failures" -ne 0 ]; then
    echo "regression: $failures check(s) failed" >&2
    exit 1
fi
echo "regression: all checks passed"
