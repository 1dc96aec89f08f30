#!/usr/bin/env bash
# Mutation testing of masrl's core modules with mutmut (configured in pyproject.toml,
# [tool.mutmut]: which modules are mutated and which tests judge them).
#
#   scripts/mutation.sh                 every mutant (about 5,000: hours on 2 cores)
#   SAMPLE=50 scripts/mutation.sh       a fixed sample of 50 mutants per module (about 10,500 mutants
#                                       in 29 modules: 1,450 mutants, hours on 2 cores)
#   SAMPLE=10 MODULES='corpus/* trace/typed' scripts/mutation.sh   the sample of these modules only
#   JOBS=1 ...                          one mutant at a time (default: 2)
#   scripts/mutation.sh 'masrl.build.write*'  only the mutants whose names match
#   MEMOS=off ...                       the tests with masrl's in-process memos and build cache off
#                                       (compare the survivors, --survivors, with a run with them on:
#                                       a mutant only this run kills is one they hide)
#
# Prints the kill ratio per module and in all (scripts/mutation_report.py). A surviving
# mutant is a change to the code that no test notices: `.venv/bin/mutmut show NAME` shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c "import mutmut" 2>/dev/null; then
    .venv/bin/pip install -q -c constraints.txt -e '.[test,mutation]'
fi
if [ "${MEMOS:-on}" = off ]; then export MASRL_TEST_MEMOS=off; fi
set -f  # the module globs are patterns for the report script, not for the shell
modules=""
for glob in ${MODULES:-}; do modules="$modules --module $glob"; done
if [ -n "${SAMPLE:-}" ] && [ $# -eq 0 ]; then
    # generate the mutants and the map of tests: mutmut stops when no mutant has this name
    mkdir -p mutants
    .venv/bin/mutmut run "masrl.no_such_mutant" > mutants/generate.log 2>&1 || true
    # shellcheck disable=SC2046
    set -- $(.venv/bin/python scripts/mutation_report.py --names --sample "$SAMPLE" $modules)
    if [ $# -eq 0 ]; then  # without names mutmut would run every mutant
        echo "no mutants were generated; see mutants/generate.log" >&2
        exit 1
    fi
fi
.venv/bin/mutmut run --max-children "${JOBS:-2}" "$@" > mutants/run.log 2>&1 || true
# shellcheck disable=SC2086
.venv/bin/python scripts/mutation_report.py ${SAMPLE:+--sample "$SAMPLE"} $modules
