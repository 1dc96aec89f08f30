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
#
# Prints the kill ratio per module and in all (scripts/mutation_report.py). A surviving
# mutant is a change to the code that no test notices: `.venv/bin/mutmut show NAME` shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c "import mutmut" 2>/dev/null; then
    .venv/bin/pip install -q -c constraints.txt -e '.[test,mutation]'
fi
set -f  # the module globs are patterns for the report script, not for the shell
modules=""
for glob in ${MODULES:-}; do modules="$modules --module $glob"; done
if [ -n "${SAMPLE:-}" ] && [ $# -eq 0 ]; then
    .venv/bin/mutmut run "masrl.no_such_mutant" > /dev/null 2>&1 || true  # generate the mutants and the test map only
    # shellcheck disable=SC2046
    set -- $(.venv/bin/python scripts/mutation_report.py --names --sample "$SAMPLE" $modules)
fi
.venv/bin/mutmut run --max-children "${JOBS:-2}" "$@" > mutants/run.log 2>&1 || true
# shellcheck disable=SC2086
.venv/bin/python scripts/mutation_report.py ${SAMPLE:+--sample "$SAMPLE"} $modules
