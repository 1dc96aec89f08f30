"""Grow a copy of the survey as its contributors and maintainers would, through the CLI.

:func:`grow` adds and tags papers after the cutoff and logs an exclusion (the living-review
tests); :func:`grow_tree` runs every workflow of the README on a copy: papers and exclusions
added and tagged, the next release frozen, an audit round sampled, read, adjudicated and
applied, and two branches that each add a paper merged with ``masrl resolve``. That grown
tree is the second tree the whole suite runs on (``grown_tree`` in tests/conftest.py), and
``python tests/grow.py DIR`` grows a copy by hand.

Every change goes through the CLI (``masrl add``, ``exclude``, ``release``, ``audit``,
``resolve``), then the tags are written into the new record files, as a contributor edits
them. The papers are invented for the tests (arXiv ids of June 2026, after the v1 cutoff of
2026-05-04).

Whatever the pool holds, growing it keeps every claim about the pool that held before: each
batch of papers added together holds at most 20% orchestrator-level and no message-level
credit among its papers with a credit unit, and no paper trains the stopping decision (O5)
with RL, so no share claim (message at most 10%, orchestrator at most 25%) can be pushed
over its bound by a batch (a mediant of shares within a bound stays within it).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, ContextManager

#: Five plausible post-cutoff papers: a hybrid-reward centralized orchestrator trained with RL;
#: an industrial system whose team decides when to stop without RL (O5, not trained);
#: a turn-level credit method; two agent-level credit methods. One orchestrator-level credit
#: unit among the four papers with a credit unit (20%, under the 25% bound) and no message-level
#: one: added together they keep every current claim about the pool true, wherever it stands.
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
    {"key": "turncredit2026", "arxiv": "2606.03456", "title": "Per-Turn Shapley Credit for Multi-Agent LLM Reinforcement Learning",
     "authors": ["Tanaka, Yui", "others"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "shared", "credit_granularity": "turn",
              "credit_mechanism": "strict", "orchestration_form": "debate", "scenario": "math", "subdecisions": "[O3]",
              "is_core": "core", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Shapley-value credit for each turn of a multi-agent debate"}},
    {"key": "teamgrpo2026", "arxiv": "2606.03567", "title": "Team-GRPO: Per-Agent Advantages for Cooperative LLM Agents",
     "authors": ["Moreau, Camille", "others"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "shared", "credit_granularity": "agent",
              "credit_mechanism": "strict", "orchestration_form": "debate", "scenario": "math", "subdecisions": "[O3]",
              "is_core": "supporting", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Group-relative advantages computed per agent of a cooperative team"}},
    {"key": "webcrew-rl2026", "arxiv": "2606.03678", "title": "WebCrew: Independent Policy Updates for Browsing Agent Teams",
     "authors": ["Singh, Arjun"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "individual", "credit_granularity": "agent",
              "credit_mechanism": "broad", "orchestration_form": "centralized", "scenario": "web", "subdecisions": "[O2]",
              "is_core": "supporting", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Each browsing agent of a team updated on its own reward"}},
)

#: Three more, and one more exclusion, for the grown tree (:func:`grow_tree`), distinct from the
#: ones the living-review tests add, so that those tests can run on the grown tree too.
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

#: The papers and exclusions of two contributors' branches, merged with ``masrl resolve``
#: (role- and agent-level credit: no share claim moves towards its bound).
BRANCH_PAPERS = (
    {"key": "mergeplan2026", "arxiv": "2606.15555", "title": "MergePlan: Role Credit for a Planner Trained with Its Critic",
     "authors": ["Duarte, Ines", "others"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "role", "credit_granularity": "role",
              "credit_mechanism": "broad", "orchestration_form": "planner_executor_critic", "scenario": "coding",
              "subdecisions": "[O4]", "is_core": "supporting", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Planner and critic trained together with role-level credit"}},
    {"key": "branchswarm2026", "arxiv": "2606.16666", "title": "BranchSwarm: Agent-Level Advantages for Parallel Tool Agents",
     "authors": ["Nakamura, Ren"], "year": 2026, "venue": "arXiv",
     "tags": {"category": "rl_method", "is_rl": "'yes'", "reward_type": "shared", "credit_granularity": "agent",
              "credit_mechanism": "broad", "orchestration_form": "swarm", "scenario": "tool_use", "subdecisions": "[O1]",
              "is_core": "supporting", "inclusion_criterion": "I1", "verified": "partial",
              "one_liner": "Agent-level advantages for a swarm of parallel tool-using agents"}},
)
BRANCH_EXCLUSIONS = (
    {"title": "AgentDesk: A Prompted Helpdesk Team", "arxiv": "2606.17777", "authors": ["Weber, Lena"], "year": 2026,
     "stage": "abstract_screen", "reason": "prompted agent framework only", "reason_class": "X1", "source": "arXiv",
     "query_family": "multi-agent LLM"},
    {"title": "Single-Agent Tool Tuning at Scale", "arxiv": "2606.18888", "authors": ["Kim, Minji"], "year": 2026,
     "stage": "full_text_screen", "reason": "a single agent, no team", "reason_class": "X2", "source": "arXiv",
     "query_family": "tool use"},
)

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
    from trees import replace

    replace(path, text)  # a new file, as masrl writes: a test's copy of a tree is hard links (tests/trees.py)


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


def confirm_drafts(root: Path) -> list[str]:
    """Confirm every suggested tag of the survey at ``root`` that no person has confirmed yet, each
    with the value drafted, as a maintainer does by hand before ``masrl release``, which refuses
    them: the field's ``tag_provenance`` line ``suggested (...), not confirmed`` becomes
    ``suggested (...), confirmed`` (an edit of the text, so that a record formatted by hand is
    kept as it is). A contributor's paper may come with drafted tags (README, Contributing a
    paper: ``masrl suggest KEY --draft``); a test that freezes a release from the tree in front
    of it confirms them first. Returns the keys confirmed (sorted; [] for none)."""
    import yaml
    from masrl.corpus.provenance import unconfirmed_fields
    from trees import replace

    keys = []
    for path in sorted((root / "corpus/papers").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "not confirmed" not in text:
            continue
        new = re.sub(r"(?m)^(  \w+: suggested \(masrl suggest[^\n]*\)), not confirmed$", r"\1, confirmed", text)
        left = unconfirmed_fields(yaml.load(new, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
        if left:
            raise AssertionError(f"{path.name}: suggested tags written in a form this helper does not edit are still not "
                                 f"confirmed: {', '.join(left)}; confirm them in the record (README, Contributing a paper)")
        if new != text:
            replace(path, new)  # a new file, as masrl writes: a test's copy of a tree is hard links (tests/trees.py)
            keys.append(path.stem)
    return keys


def grow(run, root: Path, papers: tuple = PAPERS, exclusion: dict = EXCLUSION, build: bool = True) -> None:
    """Add and tag ``papers``, exclude ``exclusion``, then (with ``build``) ``masrl build``."""
    for paper in papers:
        add_paper(run, root, paper)
    exclude_paper(run, root, exclusion)
    if build:
        _ok(run("build", "--root", str(root)), "masrl build")


def restrict_to_release(root: Path, name: str = "v1") -> Path:
    """Make the survey at ``root`` the survey as release ``name`` froze it, with whatever else of
    the tree fits it: record files added since are removed, a record the release held that is
    gone (moved to the exclusion log) is written back from the release's snapshot (and its
    exclusion removed), releases frozen after it are removed (snapshot, entry, reports) and so
    are audit folders that sampled a record the release does not hold. Tags stay as the
    working tree has them. Returns ``root``."""
    import shutil

    import yaml

    from masrl.corpus.load import read_taxonomy
    from masrl.corpus.records import excluded_order, ordered, retained_order
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.corpus.yamlio import dump_record

    tax = Taxonomy(read_taxonomy(root))
    def read(path: Path):  # libyaml's loader: a snapshot holds every record of the release
        return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

    snapshot = read(root / f"corpus/releases/{name}.yaml")
    for folder, members, order in (("corpus/papers", snapshot["retained"], retained_order(tax)),
                                   ("exclusions", snapshot["excluded"], excluded_order(tax))):
        for path in (root / folder).glob("*.yaml"):
            if path.stem not in members:
                path.unlink()
        for stem, record in members.items():
            if not (root / folder / f"{stem}.yaml").exists():
                (root / folder / f"{stem}.yaml").write_bytes(dump_record(ordered(record, order)))
    listing = root / "corpus/releases.yaml"
    names = [r["name"] for r in read(listing)["releases"]]
    later = names[names.index(name) + 1:]
    if later:
        text = listing.read_text(encoding="utf-8")
        listing.write_text(text[:text.index(f"\n  - name: {later[0]}\n") + 1], encoding="utf-8")
        assert [r["name"] for r in read(listing)["releases"]] == names[:len(names) - len(later)]
        for gone in later:
            (root / f"corpus/releases/{gone}.yaml").unlink()
            shutil.rmtree(root / f"reports/releases/{gone}", ignore_errors=True)
    held = {*snapshot["retained"], *snapshot["excluded"]}
    for audit in (root / "corpus/audits").glob("*/audit.yaml"):
        if any(item["record"] not in held for item in read(audit)["items"]):
            shutil.rmtree(audit.parent)
    return root


GIT_ENV = {"GIT_AUTHOR_NAME": "masrl tests", "GIT_AUTHOR_EMAIL": "tests@masrl.invalid", "GIT_COMMITTER_NAME": "masrl tests",
           "GIT_COMMITTER_EMAIL": "tests@masrl.invalid", "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run git in ``root`` (no user or system configuration); returns stdout and stderr together."""
    env = {**GIT_ENV, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)}
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, env=env, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} exited {done.returncode}: {done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def next_release_name(root: Path) -> str:
    """The next free release name ``v<N>`` of the survey at ``root`` (N = one more than the releases)."""
    import yaml

    releases = yaml.safe_load((root / "corpus/releases.yaml").read_text(encoding="utf-8"))["releases"]
    names = {r["name"] for r in releases}
    return next(f"v{n}" for n in range(len(releases) + 1, 10_000) if f"v{n}" not in names)


def audit_round(run, root: Path, reader: str = "Jane Doe", adjudicator: str = "Ada Lovelace", include: str = "c3") -> str:
    """One audit round as the README's "Auditing" section runs it: sample 20 retained records
    (seed 7, or the first seed from 7 whose sample holds ``include``), a reader who agrees with
    every value but one ``is_rl`` of another record, adjudicated for the reader and applied.
    Returns the audit id (``tags-<today>``)."""
    import csv
    import io

    import yaml

    args = ["audit", "sample", "--root", str(root), "--population", "retained", "--n", "20", "--stratify", "category"]
    def sampled(seed: int) -> list[str]:
        dry = run(*args, "--seed", str(seed), "--dry-run")
        _ok(dry, "masrl audit sample --dry-run")
        return dry.out.splitlines()[0].split(" record(s): ")[1].split(", ")

    seed = next(s for s in range(7, 200) if include in sampled(s))
    out = run(*args, "--seed", str(seed))
    _ok(out, "masrl audit sample")
    audit_id = f"tags-{datetime.date.today().isoformat()}"
    folder = root / "corpus/audits" / audit_id
    audit = yaml.safe_load((folder / "audit.yaml").read_text(encoding="utf-8"))
    changed = next(i for i in audit["items"] if i["record"] != include and i["original"].get("is_rl") == "yes")
    rows = list(csv.reader(io.StringIO((folder / "sheet/sheet.csv").read_text(encoding="utf-8-sig"), newline="")))
    header = rows[0]
    originals = {i["item"]: i["original"] for i in audit["items"]}
    for row in rows[1:]:
        cells = dict(zip(header, row))
        for name in audit["fields"]:
            cells[name] = originals[cells["item"]][name]
        if cells["item"] == changed["item"]:
            cells["is_rl"] = "partial"
        row[:] = [cells[h] for h in header]
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    sheet = root.parent / f"{root.name}-{audit_id}-sheet.csv"
    sheet.write_text(buffer.getvalue(), encoding="utf-8")
    _ok(run("audit", "import", str(sheet), "--root", str(root), "--audit", audit_id, "--reader", reader), "masrl audit import")
    _ok(run("audit", "adjudicate", audit_id, "--root", str(root)), "masrl audit adjudicate")
    path = folder / "adjudication-round-1.yaml"
    adjudication = yaml.safe_load(path.read_text(encoding="utf-8"))
    for entry in adjudication["resolutions"]:
        entry.update(resolved=entry["values"][reader], by=adjudicator)
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False, allow_unicode=True), encoding="utf-8")
    _ok(run("audit", "apply", audit_id, "--root", str(root), "--yes"), "masrl audit apply")
    return audit_id


def merge_two_branches(run, root: Path, papers: tuple = BRANCH_PAPERS, exclusions: tuple = BRANCH_EXCLUSIONS,
                       drafts: Callable[[], ContextManager] = contextlib.nullcontext) -> None:
    """Two contributors' branches off ``main``, each adding a paper and an exclusion and
    rebuilding (inside ``drafts()``: their pool figures are replaced by the merge's), merged as the
    README's "Merging two contributions" says (``git merge``, ``masrl resolve``, ``git commit
    --no-edit``), then brought into ``main``."""
    for branch, paper, exclusion in zip(("contrib-a", "contrib-b"), papers, exclusions):
        git(root, "checkout", "-q", "-b", branch, "main")
        add_paper(run, root, paper)
        exclude_paper(run, root, exclusion)
        with drafts():
            _ok(run("build", "--root", str(root)), f"masrl build on {branch}")
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"add {paper['key']}")
    git(root, "checkout", "-q", "contrib-a")
    merged = git(root, "merge", "--no-edit", "contrib-b", check=False)
    if "CONFLICT" not in merged:
        raise AssertionError(f"the two branches merged without a conflict: {merged}")
    _ok(run("resolve", "--root", str(root)), "masrl resolve")
    git(root, "commit", "-q", "--no-edit")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--ff-only", "contrib-a")


#: When the papers of :data:`SUITE_PAPERS` were added and the release that holds them was frozen
#: in the grown tree: a release dated before today, so that a test can still freeze one between it
#: and today's additions.
SUITE_ADDED, SUITE_RELEASED = "2026-06-15", "2026-06-30"


def _date_added(path: Path) -> str:
    """A record file's ``date_added`` (ISO text; '' when it has none)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("date_added:"):
            return line.split(":", 1)[1].strip().strip("'\"")
    return ""


def stood_in(root: Path) -> list[str]:
    """The figure files under ``root``'s reports that the session memo stood in for (relative
    paths: those holding the mark of a stand-in, tests/memo.py)."""
    from memo import STAND_IN_TEXT

    return sorted(str(p.relative_to(root)) for p in (root / "reports").rglob("*")
                  if p.suffix in (".svg", ".pdf", ".png") and STAND_IN_TEXT in p.read_bytes())


def grow_tree(run, root: Path, drafts: Callable[[], ContextManager] = contextlib.nullcontext) -> dict:
    """Run the README's workflows on the copy of the survey at ``root`` (corpus, exclusions,
    reports, README.md, .gitattributes), each through the CLI:

    1. three papers added and tagged and one exclusion logged (:data:`SUITE_PAPERS`,
       :data:`SUITE_EXCLUSION`), as of :data:`SUITE_ADDED`;
    2. the suggested tags no person has confirmed confirmed (:func:`confirm_drafts`), and the
       next release frozen (``masrl release v<N> --date`` :data:`SUITE_RELEASED`);
    3. an audit round sampled, read, adjudicated and applied today (:func:`audit_round`);
       then ``masrl build`` and a commit;
    4. two branches that each add a paper and an exclusion today and rebuild, merged with
       ``masrl resolve`` (:func:`merge_two_branches`).

    ``run(*args)`` runs masrl in-process and returns an object with ``code``, ``out`` and
    ``err``. The two branches' builds run inside ``drafts()`` (the helper process: the session
    memo stands in for every figure they would draw, :func:`memo.drafts`); their pool figures are
    drawn again for the merge, and a figure stood in for that is left in the tree fails the growing. Leaves ``root`` a git repository on ``main`` with a clean working tree and its
    reports current, and returns ``{"release": name, "audit": audit id}``.
    """
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the survey as bundled")
    today = datetime.date.today().isoformat()
    # the release holds every pending record: it is dated no earlier than the latest one added
    # (a contributor's paper added today makes it today's release)
    latest = max([_date_added(path) for folder in ("corpus/papers", "exclusions") for path in (root / folder).glob("*.yaml")],
                 default="")
    released = min(max(SUITE_RELEASED, latest), today)
    added = min(SUITE_ADDED, released)
    before = {p.name for p in (root / "exclusions").glob("*.yaml")}
    for paper in SUITE_PAPERS:
        set_field(add_paper(run, root, paper), "date_added", f"'{added}'")
    set_field(exclude_paper(run, root, SUITE_EXCLUSION), "date_added", f"'{added}'")
    assert {p.name for p in (root / "exclusions").glob("*.yaml")} - before
    confirm_drafts(root)  # a contributor's paper with drafted tags: a release refuses them
    release = next_release_name(root)
    _ok(run("release", release, "--root", str(root), "--date", released, "--title", "Update of June 2026"),
        f"masrl release {release}")
    audit = audit_round(run, root)
    _ok(run("validate", "--root", str(root)), "masrl validate after the audit")
    _ok(run("build", "--root", str(root)), "masrl build")
    git(root, "add", "-A")
    git(root, "commit", "-qm", f"papers added, release {release} frozen, audit {audit} applied")
    merge_two_branches(run, root, drafts=drafts)
    left = stood_in(root)
    if left:
        raise AssertionError(f"figures stood in for are left in the grown tree: {left}")
    if git(root, "status", "--porcelain"):
        raise AssertionError(f"the grown tree is not clean: {git(root, 'status', '--porcelain')}")
    return {"release": release, "audit": audit}


class _Captured:
    """Result of one in-process masrl run: exit code, stdout, stderr."""

    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err


def run_captured(*args: str) -> _Captured:
    """Run masrl in-process with its output captured (for use outside a test's ``capsys``)."""
    import contextlib
    import io

    from masrl.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 2
    return _Captured(code, out.getvalue(), err.getvalue())


def main(argv: list[str]) -> None:
    """``python tests/grow.py DIR [FACTS]``: grow the copy of the survey at DIR (:func:`grow_tree`;
    a DIR that does not exist yet is first made a copy of this repository's survey); print what
    it holds, and write it as JSON to FACTS once the tree is ready (tests/conftest.py)."""
    import json
    import shutil
    import traceback

    if len(argv) not in (1, 2):
        raise SystemExit("usage: python tests/grow.py DIR [FACTS]")
    # The session memo of the tests (tests/memo.py; MASRL_TEST_MEMO=0 turns it off here too): each
    # CLI run below parses, validates and analyses the tree again, most of it unchanged since the run
    # before. Figures are drawn for real (no stand-ins): the tests compare the grown tree's figures with
    # what they draw again.
    import gc

    import memo

    memo.install()
    gc.set_threshold(50_000, 20, 20)  # as in the tests' processes (tests/conftest.py: GC_THRESHOLDS)
    root = Path(argv[0]).resolve()
    if not root.exists():
        from trees import copy_tree

        repo = Path(__file__).resolve().parent.parent
        copy_tree(repo, root)
        shutil.copy(repo / ".gitattributes", root / ".gitattributes")
    try:  # the branches' figures, which the merge draws again, are stood in for (memo.drafts)
        facts = grow_tree(run_captured, root, memo.drafts)
    except BaseException:  # the waiting tests fail with this, instead of waiting for ever
        facts = {"error": traceback.format_exc()}
    print(json.dumps(facts))
    if len(argv) > 1:
        partial = Path(argv[1]).with_suffix(".partial")
        partial.write_text(json.dumps(facts))
        partial.replace(argv[1])
    if "error" in facts:
        raise SystemExit(facts["error"])


if __name__ == "__main__":  # pragma: no cover - run by tests/conftest.py, or by hand
    main(sys.argv[1:])
