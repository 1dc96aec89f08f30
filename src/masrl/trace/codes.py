"""Codes and small helpers shared by the trace checker, its rules, the typed path and the metrics.

Event and edge type codes are the positions of the names in the published schema's
enums (:mod:`masrl.trace.schema`), so a code and a name can never disagree.
"""

from __future__ import annotations

import sys
from math import fsum

from .load import NonFinite
from .schema import EDGE_TYPES, EVENT_TYPES

INF = float("inf")
NAN = float("nan")
MAX_FLOAT = sys.float_info.max

TYPE_CODE = {name: k for k, name in enumerate(EVENT_TYPES)}
EDGE_CODE = {name: k for k, name in enumerate(EDGE_TYPES)}
OD, SPAWN, DESPAWN, MESSAGE, TOOL_CALL, TOOL_RESULT, RETURN, AGGREGATE, HUMAN, SAFETY, STOP = (
    TYPE_CODE[name]
    for name in (
        "orchestrator_decision", "spawn", "despawn", "message", "tool_call", "tool_result",
        "return", "aggregate", "human_intervention", "safety_event", "stop",
    )
)
NO_TYPE = 255
#: Edge types that must form no cycle.
ACYCLIC_EDGES = frozenset(EDGE_CODE[name] for name in ("spawn", "causal", "return"))
#: Event types whose ``to`` names an agent contacted by the sender (return rule, lifecycle).
LINK_TYPES = frozenset((OD, SPAWN, DESPAWN, MESSAGE, RETURN))
CONTACT_TYPES = frozenset((OD, SPAWN, MESSAGE))



def number_sum(values: list):
    """The sum of numbers, independent of their order and grouping: exact for ints
    (an int), else the correctly rounded sum of the values as doubles
    (:func:`math.fsum`). Raises OverflowError when that sum does not fit a double.
    Both validation paths use it, so a trace's ``event_tokens`` is the same whichever
    path measured it and however its events were split into blocks."""
    total = sum(values)
    return total if type(total) is int else fsum(values)


def reward_sum(values) -> float:
    """The sum of rewards whatever the order of their channels (:func:`number_sum`: exact
    for ints, else correctly rounded; ``1e16 + 1 - 1e16`` is 1 in any order). A sum whose intermediate
    values overflow a double is the plain sum (infinite: the checks name it)."""
    values = list(values)
    try:
        return number_sum(values)
    except OverflowError:
        return sum(values)

def reward_by_credit_unit(rewards: dict, units: dict) -> dict[str, float]:
    """Sum of rewards per credit unit through ``reward_credit_units`` ({channel: unit}).

    Channels without a unit are summed under ``unmapped``; units with no channel are
    omitted. No channel is mapped by its name alone.
    """
    grouped: dict[str, list] = {}
    for channel, value in rewards.items():
        grouped.setdefault(units.get(channel, "unmapped"), []).append(value)
    return {unit: reward_sum(values) for unit, values in grouped.items()}



def show(value) -> str:
    """A short JSON-like rendering of a value for messages ('abc', 12, true, null, an array)."""
    t = type(value)
    if t is str:
        text = value if len(value) <= 60 else value[:57] + "..."
        return "'" + text.replace("\n", "\\n") + "'"
    if t is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if t is int or t is float:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if t is NonFinite:
        return value.text
    if t is list:
        return "an array"
    if t is dict:
        return "an object"
    return repr(value)


def fmt_t(value: float) -> str:
    """Times in messages: integers without '.0' (t=3), others as repr (t=2.5)."""
    if value != value or value in (INF, -INF):
        return repr(value)
    return str(int(value)) if value == int(value) else repr(value)


def is_num(v) -> bool:
    t = type(v)
    return t is int or t is float


#: The largest whole number a double holds exactly. Times are compared and measured as doubles, so an
#: integer time beyond it (which a double would round to a neighbour) is refused by :func:`inexact_time`.
MAX_EXACT = 2**53


def inexact_time(t) -> str | None:
    """Why a time ``t`` cannot be compared exactly (an integer beyond :data:`MAX_EXACT`), or None."""
    if type(t) is int and t > MAX_EXACT:
        return (f"t is {t}, an integer beyond 2**53: times are compared as doubles, which cannot hold it exactly "
                "(two such times could compare equal or swapped); write times in seconds from the trace's start")
    return None


def nonfinite(v) -> str | None:
    """Why ``v`` is not a finite number (NaN literal, overflow), or None if it is fine."""
    t = type(v)
    if t is NonFinite:
        return f"{v.text} is not allowed; numbers must be finite"
    if t is float and not (v - v == 0.0):
        if v != v:
            return "NaN is not allowed; numbers must be finite"
        return "number overflows to infinity; numbers must be finite"
    if t is int and not -MAX_FLOAT <= v <= MAX_FLOAT:
        return "number is too large for a 64-bit float; numbers must be finite"
    return None
