"""Hypothesis profiles of the test suite, chosen with ``MASRL_HYPOTHESIS_PROFILE``:

``ci`` (the default: every test run and CI; derandomized, so that a run gives the same answer every time)
    each property test and fuzzer runs the examples its ``@settings(max_examples=examples(N))``
    gives, N chosen so that the whole suite stays within its time budget (CONTRIBUTING.md,
    "Budgets"); a test without its own setting runs 100.
``long`` (by hand, before a release or after changing a parser or renderer)
    30 times as many examples everywhere:
    ``MASRL_HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest -q -m property``.

Both print the blob that reproduces a failure; neither has a deadline (a loaded machine is slow,
not wrong).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("MASRL_HYPOTHESIS_PROFILE", "ci")
#: How many times the ``ci`` examples the ``long`` profile runs.
LONG_FACTOR = 30

settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=100 * LONG_FACTOR, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.load_profile(PROFILE)


def examples(ci: int) -> int:
    """The examples of a property test: ``ci`` under the ``ci`` profile, 30 times as many under ``long``."""
    return ci * LONG_FACTOR if PROFILE == "long" else ci
