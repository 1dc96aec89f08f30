"""Grow a copy of the survey as a contributor would: add and tag papers after the cutoff, log exclusions.

Used by the living-review tests (and by ``python tests/grow.py DIR`` by hand). Every
change goes through the CLI (``masrl add``, ``masrl exclude``), then the tags are
written into the new record files, as a contributor edits them. The papers are
invented for the tests (arXiv ids of June 2026, after the v1 cutoff of 2026-05-04).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: Three plausible post-cutoff papers: a hybrid-reward centralized orchestrator trained with RL;
#: an industrial system whose team decides when to stop without RL (O5, not trained);
#: a message-level credit method. Their tags keep every current claim true.
PAPERS = (
    {"key": "orchestra-rl2026", "arxiv": "2606.01234", "title": "Orchestra-RL: Training a Central Orchestrator with Hybrid Local-Global Rewards",
     "authors": ["Rossi, Maria", "others"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "hybrid", "credit_granularity": "orchestrator",
              "credit_mechanism": "broad", "orchestration_form": "centralized", "scenario": "research", "subdecisions": "[O2]",
              "is_core": "supporting", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "RL-trained central orchestrator with hybrid rewards"}},
    {"key": "haltbench-ops2026", "arxiv": "2606.02345", "title": "When Should the Team Stop? Budgeted Termination in a Production Agent Platform",
     "authors": ["Okafor, Chidi", "Lindqvist, Sara"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "industry", "is_rl": "'no'", "reward_type": "NA", "credit_granularity": "NA",
              "credit_mechanism": "NA", "orchestration_form": "centralized", "scenario": "general", "subdecisions": "[O5]",
              "is_core": "case", "inclusion_criterion": "I3", "verified": "partial",
              "one_liner": "Budget- and heuristic-based stopping of a deployed agent team (no RL)"}},
    {"key": "msgcredit2026", "arxiv": "2606.03456", "title": "Per-Message Shapley Credit for Multi-Agent LLM Reinforcement Learning",
     "authors": ["Tanaka, Yui", "others"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "shared", "credit_granularity": "message",
              "credit_mechanism": "strict", "orchestration_form": "debate", "scenario": "math", "subdecisions": "[O3]",
              "is_core": "core", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Shapley-value credit for individual inter-agent messages"}},
)

#: Three more, and one more exclusion, for the run of the whole suite on a grown pool (distinct
#: from the ones the living-review tests add, so that those tests can run on the grown pool too).
SUITE_PAPERS = (
    {"key": "relay-marl2026", "arxiv": "2606.11111", "title": "Relay: Role-Conditioned Credit for Planner-Executor Teams",
     "authors": ["Ferreira, Ana", "others"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "role", "credit_granularity": "role",
              "credit_mechanism": "broad", "orchestration_form": "planner_executor_critic", "scenario": "coding",
              "subdecisions": "[O2, O4]", "is_core": "supporting", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Role-level credit for a trained planner and executor"}},
    {"key": "teamstop-survey2026", "arxiv": "2606.12222", "title": "Termination in LLM Agent Teams: A Survey of Stopping Rules",
     "authors": ["Haddad, Omar"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "survey", "is_rl": "'no'", "reward_type": "NA", "credit_granularity": "NA",
              "credit_mechanism": "NA", "orchestration_form": "NA", "scenario": "general", "subdecisions": "[O5]",
              "is_core": "supporting", "inclusion_criterion": "I5", "verified": "partial",
              "one_liner": "Survey of how agent teams decide to stop (no training)"}},
    {"key": "swarmscale2026", "arxiv": "2606.13333", "title": "SwarmScale: Parallel Sub-Agent Rollouts for Deep Research",
     "authors": ["Kowalski, Jan", "others"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "partial", "reward_type": "orchestration", "credit_granularity": "agent",
              "credit_mechanism": "unassessed", "orchestration_form": "swarm", "scenario": "research",
              "subdecisions": "[O1]", "is_core": "supporting", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Parallel sub-agent rollouts with a partly learned dispatcher"}},
)
SUITE_EXCLUSION = {"title": "ChatOps Agents: A Product Overview", "arxiv": "2606.14444", "authors": ["Ionescu, Radu"], "year": 2026,
                   "stage": "artifact_screen", "reason": "product overview without technical detail", "reason_class": "X3",
                   "source": "arXiv", "query_family": "industrial agent system"}

#: One screened paper excluded after the cutoff.
EXCLUSION = {"title": "PromptTeams: Prompting Agent Teams without Training", "arxiv": "2606.04567",
             "authors": ["Novak, Petra"], "year": 2026, "stage": "abstract_screen", "reason": "prompted agent framework only",
             "reason_class": "X1", "source": "arXiv", "query_family": "multi-agent LLM"}


def _ok(result, what: str) -> None:
    code = getattr(result, "code", 0)
    if code != 0:
        raise AssertionError(f"{what} exited {code}: {getattr(result, 'err', '')}")


def next_record_id(root: Path) -> str:
    """The record id ``masrl exclude`` gives next in the survey at ``root``."""
    numbers = [int(p.stem[1:]) for p in (root / "exclusions").glob("E*.yaml") if p.stem[1:].isdigit()]
    return f"E{max(numbers, default=0) + 1:03d}"


def set_field(path: Path, field: str, value: str) -> None:
    """Replace the top-level line ``field: ...`` (and a following block list) with ``field: value``."""
    text = path.read_text(encoding="utf-8")
    text, n = re.subn(rf"(?m)^{field}:.*(\n  - .*)*$", f"{field}: {value}", text, count=1)
    if n != 1:
        raise AssertionError(f"{field} not in {path}")
    path.write_text(text, encoding="utf-8")


def add_paper(run, root: Path, paper: dict) -> Path:
    """``masrl add`` the paper with its key, then tag it; returns the record file."""
    args = ["add", "--root", str(root), "--arxiv", paper["arxiv"], "--title", paper["title"], "--year", str(paper["year"]),
            "--venue", paper["venue"], "--key", paper["key"]]
    for author in paper["authors"]:
        args += ["--author", author]
    _ok(run(*args), f"masrl add {paper['key']}")
    path = root / f"corpus/papers/{paper['key']}.yaml"
    for field, value in paper["tags"].items():
        set_field(path, field, value)
    return path


def exclude_paper(run, root: Path, paper: dict, if_retained: dict | None = None) -> Path:
    """``masrl exclude`` a screened paper (optionally with near-miss tags); returns the new exclusion file."""
    before = set((root / "exclusions").glob("*.yaml"))
    args = ["exclude", "--root", str(root), "--title", paper["title"], "--arxiv", paper["arxiv"], "--year", str(paper["year"]),
            "--stage", paper["stage"], "--reason", paper["reason"], "--reason-class", paper["reason_class"],
            "--source", paper["source"], "--query-family", paper["query_family"]]
    for author in paper["authors"]:
        args += ["--author", author]
    _ok(run(*args), f"masrl exclude {paper['title']}")
    (path,) = set((root / "exclusions").glob("*.yaml")) - before
    if if_retained:
        lines = "".join(f"  {k}: {v}\n" for k, v in if_retained.items())
        path.write_text(path.read_text(encoding="utf-8").replace("\ntag_provenance:", f"\nif_retained:\n{lines}tag_provenance:", 1),
                        encoding="utf-8")
    return path


def grow(run, root: Path, papers: tuple = PAPERS, exclusion: dict = EXCLUSION) -> None:
    """Add and tag ``papers``, exclude ``exclusion``, then ``masrl build``."""
    for paper in papers:
        add_paper(run, root, paper)
    exclude_paper(run, root, exclusion)
    _ok(run("build", "--root", str(root)), "masrl build")


def restrict_to_release(root: Path, name: str = "v1") -> Path:
    """Make the survey at ``root`` hold exactly the records of release ``name``: record files
    added since are removed, and a record the release held that is gone (moved to the
    exclusion log) is written back from the release's snapshot (and its exclusion removed).
    Tags stay as the working tree has them. Returns ``root``."""
    import yaml

    from masrl.corpus.load import read_taxonomy
    from masrl.corpus.records import excluded_order, ordered, retained_order
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.corpus.yamlio import dump_record

    tax = Taxonomy(read_taxonomy(root))
    snapshot = yaml.safe_load((root / f"corpus/releases/{name}.yaml").read_text(encoding="utf-8"))
    for folder, members, order in (("corpus/papers", snapshot["retained"], retained_order(tax)),
                                   ("exclusions", snapshot["excluded"], excluded_order(tax))):
        for path in (root / folder).glob("*.yaml"):
            if path.stem not in members:
                path.unlink()
        for stem, record in members.items():
            if not (root / folder / f"{stem}.yaml").exists():
                (root / folder / f"{stem}.yaml").write_bytes(dump_record(ordered(record, order)))
    return root



def _cli(*args: str) -> None:
    from masrl.cli import main

    code = main(list(args))
    if code != 0:
        raise SystemExit(f"masrl {' '.join(args)} exited {code}")


if __name__ == "__main__":  # pragma: no cover - by hand: python tests/grow.py DIR
    grow(_cli, Path(sys.argv[1]), SUITE_PAPERS, SUITE_EXCLUSION)
