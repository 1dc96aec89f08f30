"""Deterministic builders of illustrative orchestration traces (pure functions, no I/O).

They produce the shipped examples (``examples/*.json`` other than the survey's own;
a test checks the files equal these builders' output) and the benchmark's large
swarms. The traces are illustrative, not recordings of real systems: topologies
follow the survey's cheat sheet (facts file ``topologies``), every one has
``decision`` tags and a ``stop`` event (masrl extensions).
"""

from __future__ import annotations

import json

SCHEMA_VERSION = "1.0"


class _Builder:
    """Append events and edges with little ceremony."""

    def __init__(self):
        self.events: list[dict] = []
        self.edges: list[dict] = []

    def ev(self, id: str, t, type: str, agent: str, **fields) -> str:
        event = {"id": id, "t": t, "type": type, "agent": agent}
        event.update(fields)
        self.events.append(event)
        return id

    def edge(self, src: str, dst: str, type: str) -> None:
        self.edges.append({"src": src, "dst": dst, "type": type})

    def trace(self, trace_id: str, topology: str, rewards: dict, units: dict, wall_clock_s) -> dict:
        tokens = sum(e.get("tokens", 0) for e in self.events)
        return {
            "schema_version": SCHEMA_VERSION,
            "trace_id": trace_id,
            "task_id": f"{trace_id}-task",
            "system": "masrl illustrative example",
            "topology": topology,
            "events": self.events,
            "edges": self.edges,
            "rewards": rewards,
            "reward_credit_units": units,
            "costs": {
                "tokens": tokens,
                "wall_clock_s": wall_clock_s,
                "tool_calls": sum(e["type"] == "tool_call" for e in self.events),
                "messages": sum(e["type"] == "message" for e in self.events),
            },
        }


def centralized_trace() -> dict:
    """One orchestrator, two sub-agents (researcher, coder), delegation, a peer message, aggregation, stop."""
    b = _Builder()
    b.ev("d1", 0, "orchestrator_decision", "orchestrator", decision="O1", role="lead", tokens=300, content_ref="plan#1")
    b.ev("s1", 1, "spawn", "orchestrator", to="researcher", role="researcher")
    b.ev("s2", 1, "spawn", "orchestrator", to="coder", role="coder")
    b.ev("d2", 2, "orchestrator_decision", "orchestrator", decision="O2", to="researcher", tokens=120)
    b.ev("d3", 2, "orchestrator_decision", "orchestrator", decision="O2", to="coder", tokens=120)
    b.ev("c1", 3, "tool_call", "researcher", tool="web.search", tokens=800, trusted=True)
    b.ev("c2", 3, "tool_call", "coder", tool="python.exec", tokens=1200, trusted=True)
    b.ev("r1", 4, "tool_result", "web.search", tool="web.search", trusted=False, duration_s=1.5)
    b.ev("r2", 5, "tool_result", "python.exec", tool="python.exec", trusted=False, duration_s=2.0)
    b.ev("m1", 5, "message", "researcher", **{"from": "researcher", "to": "coder"}, tokens=200, content_ref="findings#1")
    b.ev("x1", 6, "return", "researcher", **{"from": "researcher", "to": "orchestrator"}, tokens=150)
    b.ev("x2", 7, "return", "coder", **{"from": "coder", "to": "orchestrator"}, tokens=250)
    b.ev("d4", 8, "orchestrator_decision", "orchestrator", decision="O4", tokens=100)
    b.ev("a1", 8, "aggregate", "orchestrator", tokens=400, content_ref="answer#1")
    b.ev("st", 9, "stop", "orchestrator", decision="O5", tokens=20)
    for src, dst, typ in [
        ("d1", "s1", "spawn"), ("d1", "s2", "spawn"), ("s1", "d2", "causal"), ("s2", "d3", "causal"),
        ("d2", "c1", "message"), ("d3", "c2", "message"), ("c1", "r1", "return"), ("c2", "r2", "return"),
        ("r1", "m1", "causal"), ("m1", "x1", "causal"), ("m1", "x2", "message"), ("r2", "x2", "causal"),
        ("x1", "d4", "return"), ("x2", "d4", "return"), ("d4", "a1", "causal"), ("x1", "a1", "aggregate"),
        ("x2", "a1", "aggregate"), ("a1", "st", "causal"), ("d1", "d4", "temporal"),
    ]:
        b.edge(src, dst, typ)
    return b.trace(
        "example-centralized", "centralized",
        {"team": 1.0, "orchestration": 0.2, "tool": 0.1},
        {"team": "team", "orchestration": "orchestrator", "tool": "tool"},
        95,
    )


def debate_trace() -> dict:
    """A moderator, two debaters exchanging two rounds of messages, a judge that aggregates."""
    b = _Builder()
    b.ev("d1", 0, "orchestrator_decision", "moderator", decision="O1", tokens=100)
    for who in ("debater_a", "debater_b", "judge"):
        b.ev(f"s_{who}", 1, "spawn", "moderator", to=who, role=who.split("_")[0])
        b.edge("d1", f"s_{who}", "spawn")
    b.ev("d2", 2, "orchestrator_decision", "moderator", decision="O3", tokens=60, content_ref="protocol:two-rounds")
    b.edge("s_debater_a", "d2", "causal")
    b.edge("s_debater_b", "d2", "causal")
    for rnd in (1, 2):
        for me, other in (("a", "b"), ("b", "a")):
            b.ev(f"m{me}{rnd}", 2 + rnd, "message", f"debater_{me}",
                 **{"from": f"debater_{me}", "to": f"debater_{other}"}, tokens=400)
    b.edge("d2", "ma1", "message")
    b.edge("d2", "mb1", "message")
    b.edge("ma1", "mb2", "message")
    b.edge("mb1", "ma2", "message")
    for me, last in (("a", "ma2"), ("b", "mb2")):
        b.ev(f"f{me}", 5, "message", f"debater_{me}", **{"from": f"debater_{me}", "to": "judge"}, tokens=150)
        b.edge(last, f"f{me}", "causal")
        b.ev(f"x{me}", 6, "despawn", "moderator", to=f"debater_{me}")
        b.edge(f"f{me}", f"x{me}", "causal")
    b.ev("d4", 6, "orchestrator_decision", "moderator", decision="O4", to="judge", tokens=50)
    b.edge("fa", "d4", "causal")
    b.edge("fb", "d4", "causal")
    b.ev("ag", 7, "aggregate", "judge", tokens=300, content_ref="verdict#1")
    b.edge("d4", "ag", "causal")
    b.edge("fa", "ag", "message")
    b.edge("fb", "ag", "message")
    b.edge("s_judge", "ag", "causal")
    b.ev("rj", 8, "return", "judge", **{"from": "judge", "to": "moderator"}, tokens=40)
    b.edge("ag", "rj", "causal")
    b.ev("st", 9, "stop", "moderator", decision="O5", tokens=10)
    b.edge("rj", "st", "causal")
    return b.trace(
        "example-debate", "debate",
        {"team": 1.0, "debate": 0.6},
        {"team": "team", "debate": "message"},
        140,
    )


def hierarchy_trace() -> dict:
    """Two levels: a root spawns two managers, each spawns, despawns and aggregates two workers."""
    b = _Builder()
    b.ev("d0", 0, "orchestrator_decision", "root", decision="O1", tokens=200)
    for m in (1, 2):
        mgr = f"manager_{m}"
        b.ev(f"sm{m}", 1, "spawn", "root", to=mgr, role="manager")
        b.edge("d0", f"sm{m}", "spawn")
        b.ev(f"dm{m}", 2, "orchestrator_decision", mgr, decision="O1", tokens=120)
        b.edge(f"sm{m}", f"dm{m}", "causal")
        for w in (1, 2):
            wk = f"worker_{m}{w}"
            b.ev(f"sw{m}{w}", 3, "spawn", mgr, to=wk, role="worker")
            b.edge(f"dm{m}", f"sw{m}{w}", "spawn")
            b.ev(f"c{m}{w}", 4, "tool_call", wk, tool="kb.lookup", tokens=500)
            b.edge(f"sw{m}{w}", f"c{m}{w}", "causal")
            b.ev(f"r{m}{w}", 5, "tool_result", "kb.lookup", tool="kb.lookup", trusted=False)
            b.edge(f"c{m}{w}", f"r{m}{w}", "return")
            b.ev(f"x{m}{w}", 6, "return", wk, **{"from": wk, "to": mgr}, tokens=100)
            b.edge(f"r{m}{w}", f"x{m}{w}", "causal")
            b.ev(f"k{m}{w}", 7, "despawn", mgr, to=wk)
            b.edge(f"x{m}{w}", f"k{m}{w}", "causal")
        b.ev(f"a{m}", 7, "aggregate", mgr, tokens=250)
        b.edge(f"x{m}1", f"a{m}", "aggregate")
        b.edge(f"x{m}2", f"a{m}", "aggregate")
        b.ev(f"xm{m}", 8, "return", mgr, **{"from": mgr, "to": "root"}, tokens=80)
        b.edge(f"a{m}", f"xm{m}", "causal")
    b.ev("a0", 9, "aggregate", "root", tokens=300)
    b.edge("xm1", "a0", "aggregate")
    b.edge("xm2", "a0", "aggregate")
    b.ev("st", 10, "stop", "root", decision="O5", tokens=10)
    b.edge("a0", "st", "causal")
    return b.trace(
        "example-hierarchy", "hierarchical",
        {"team": 1.0, "role": 0.4},
        {"team": "team", "role": "role"},
        310,
    )


def swarm_trace(n_agents: int, trace_id: str = "example-swarm-100") -> dict:
    """An orchestrator fans out to ``n_agents`` near-homogeneous sub-agents, then aggregates.

    Shape (4 * n_agents + 4 events, 5 * n_agents + 2 edges): decision O1; per sub-agent
    spawn -> tool_call -> tool_result -> return; decision O4 after every return;
    aggregate; stop (O5). Spawns are staggered over one time unit.
    """
    b = _Builder()
    b.ev("d0", 0, "orchestrator_decision", "orchestrator", decision="O1", tokens=500)
    returns = []
    for i in range(n_agents):
        a = f"sub_{i}"
        ts = round(1 + i / n_agents, 6)
        b.ev(f"s{i}", ts, "spawn", "orchestrator", to=a, role="worker")
        b.ev(f"c{i}", round(ts + 1, 6), "tool_call", a, tool="search", tokens=100)
        b.ev(f"r{i}", round(ts + 2, 6), "tool_result", "search", tool="search", content_ref=f"result#{i}")
        b.ev(f"x{i}", round(ts + 3, 6), "return", a, **{"from": a, "to": "orchestrator"}, tokens=20)
        b.edge("d0", f"s{i}", "spawn")
        b.edge(f"s{i}", f"c{i}", "causal")
        b.edge(f"c{i}", f"r{i}", "return")
        b.edge(f"r{i}", f"x{i}", "causal")
        returns.append(f"x{i}")
    b.ev("d4", 6, "orchestrator_decision", "orchestrator", decision="O4", tokens=200)
    for x in returns:
        b.edge(x, "d4", "causal")
    b.ev("ag", 7, "aggregate", "orchestrator", tokens=1000)
    b.edge("d4", "ag", "causal")
    b.ev("st", 8, "stop", "orchestrator", decision="O5", tokens=10)
    b.edge("ag", "st", "causal")
    return b.trace(trace_id, "swarm", {"team": 1.0, "orchestration": 0.5}, {"team": "team", "orchestration": "orchestrator"}, 600)


def swarm_for_events(n_events: int) -> dict:
    """A :func:`swarm_trace` with about ``n_events`` events (``4 * ((n_events - 4) // 4) + 4``)."""
    return swarm_trace(max(1, (n_events - 4) // 4), trace_id=f"bench-swarm-{n_events}")


def example_traces() -> dict[str, dict]:
    """The project's own shipped examples, by file stem."""
    return {
        "centralized": centralized_trace(),
        "debate": debate_trace(),
        "hierarchy": hierarchy_trace(),
        "swarm_100": swarm_trace(100),
    }


def to_json_bytes(trace: dict) -> bytes:
    """The on-disk form of a shipped example: 2-space indent, key order kept, ``\\n`` at the end."""
    return (json.dumps(trace, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
