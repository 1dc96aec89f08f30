"""A distinct paper with a near-identical title can always be logged: papers whose arXiv ids
differ are distinct, and `masrl exclude --force REASON` (like `masrl add --force`) logs any
other, kept as `forced:`, which validate and `masrl resolve` accept."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from grow import next_record_id

from masrl.bib.matching import Pool, make_known

SCREEN = ["--stage", "abstract_screen", "--reason", "a model report, not an agent team", "--reason-class", "X3",
          "--source", "arXiv", "--query-family", "industrial agent system"]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin", "HOME": str(root)})


def exclude(cli, root, title, *ids, extra=()):
    return cli("exclude", "--root", root, "--title", title, *ids, "--author", "{OpenAI}", "--year", "2025", *SCREEN, *extra)


def test_papers_with_different_arxiv_ids_are_distinct_whatever_their_titles():
    pool = Pool([make_known("exclusions/E033.yaml", "excluded", "GPT-4 Technical Report", {"arxiv": "2303.08774"})])
    assert pool.matches("GPT-5 Technical Report", {"arxiv": "2508.00001"}) == []
    assert [round(m.similarity, 3) for m in pool.matches("GPT-4 Technical Reports", {"url": ["https://openai.com/gpt-4"]})] == [0.978]
    assert pool.matches("GPT-5 Technical Report", {"url": ["https://openai.com/gpt-5"]}) == []  # another number
    assert [m.key for m in pool.matches("Other title", {"arxiv": "2303.08774v2"})] == ["arxiv:2303.08774"]


def test_titles_whose_numbers_differ_or_that_say_no_are_distinct_papers():
    pool = Pool([make_known("a", "queued", "Orchestrator 1: Learning to Delegate", {"doi": "10.5555/a.1"}),
                 make_known("b", "queued", "Orchestration Part II", {}),
                 make_known("c", "queued", "Credit Assignment for Agent Teams with RL", {})])
    assert pool.matches("Orchestrator 2: Learning to Delegate", {"doi": "10.5555/a.2"}) == []
    assert pool.matches("Orchestration Part III", {}) == []
    assert pool.matches("Credit Assignment for Agent Teams without RL", {}) == []
    assert [m.other.where for m in pool.matches("Orchestrator-1: learning to delegate!", {})] == ["a"]  # the same title
    assert [m.other.where for m in pool.matches("Orchestration, Part II", {})] == ["b"]
    series = Pool([make_known(part, "queued", f"Orchestration Part {part}", {}) for part in ("I", "V", "XI", "XIV")])
    for part in ("I", "V", "XI", "XIV"):
        assert [m.other.where for m in series.matches(f"Orchestration, part {part}", {})] == [part]
    assert series.matches("Orchestration Part XII", {}) == [] and series.matches("Orchestration Part II", {}) == []
    plain = Pool([make_known("ppo", "queued", "Proximal Policy Optimization Algorithms", {}),
                  make_known("can", "queued", "Can I Orchestrate Agents", {})])
    assert plain.matches("Proximal Policy Optimization Algorithms Part I", {}) == []  # part one: a number
    assert plain.matches("Proximal Policy Optimization Algorithms \u2160", {}) == []  # Roman numeral one, U+2160
    assert [m.other.where for m in plain.matches("Can I orchestrate agents?", {})] == ["can"]  # the pronoun


@pytest.mark.parametrize(("a", "b"), [
    ("Online", "Offline"), ("Centralized", "Decentralized"), ("Synchronous", "Asynchronous"), ("Symmetric", "Asymmetric"),
    ("On-Policy", "Off-Policy"), ("Model-Based", "Model-Free"), ("Cooperative", "Competitive"),
    ("Homogeneous", "Heterogeneous"), ("Explicit", "Implicit"), ("Supervised", "Unsupervised"), ("Single-Agent", "Multi-Agent"),
    ("Intra-Team", "Inter-Team"), ("Dense", "Sparse"), ("Positive", "Negative"), ("Global", "Local"),
])
def test_titles_that_differ_by_opposite_words_are_two_papers(a, b):
    """Run 35: 'Online ...' and 'Offline ...' (96% similar), 'Model-Based' and 'Model-Free', 'Explicit' and 'Implicit' ...
    were one paper wherever the authors shared a family name: a round filed the second as a duplicate of the first."""
    from masrl.bib.matching import distinct_by_title, normalize_title

    first, second = (normalize_title(f"{w} Multi-Step Reinforcement Learning for Orchestration of Agents") for w in (a, b))
    assert distinct_by_title(first, second) and distinct_by_title(second, first)
    pool = Pool([make_known("a.yaml", "excluded", f"{a} Reinforcement Learning for Orchestration", {}, authors=["Wang, Wei"])])
    assert pool.matches(f"{b} Reinforcement Learning for Orchestration", {}, ["Wang, Jun"]) == []
    assert [m.other.where for m in pool.matches(f"{a} reinforcement learning for orchestration!", {}, ["Wang, Jun"])] == ["a.yaml"]


def test_parts_numbered_in_words_or_letters_are_two_papers():
    """Run 35: 'Part One' and 'Part Two', 'Part A' and 'Part B', 'First-Order' and 'Second-Order' were one paper (95%
    similar): the second add was refused. A number in words is its number ('Part Two' is 'Part 2', 'Part II')."""
    from masrl.bib.matching import distinct_by_title, normalize_title

    def distinct(a, b):
        return distinct_by_title(normalize_title(a), normalize_title(b))

    for a, b in (("Learning to Communicate, Part One", "Learning to Communicate, Part Two"),
                 ("Learning to Communicate, Part A", "Learning to Communicate, Part B"),
                 ("First-Order Methods for Agent Teams", "Second-Order Methods for Agent Teams"),
                 ("Orchestration, Volume Three", "Orchestration, Volume Four"),
                 ("SemEval-2023 Task 10: Explainable Detection of Online Sexism, Subtask A",
                  "SemEval-2023 Task 10: Explainable Detection of Online Sexism, Subtask B"),  # run 37
                 ("Model A: soil carbon under agent control", "Model B: soil carbon under agent control")):
        assert distinct(a, b), (a, b)
    for a, b in (("Learning to Communicate, Part Two", "Learning to Communicate, Part 2"),
                 ("Learning to Communicate, Part Two", "Learning to Communicate, Part II"),
                 ("One Model for All Agents", "One model for all agents!")):
        assert not distinct(a, b), (a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("LLM Agents Can Cooperate in Social Dilemmas", "LLM Agents Cannot Cooperate in Social Dilemmas"),
    ("Orchestrator Agents Learn to Delegate", "Orchestrator Agents Don't Learn to Delegate"),
    ("Orchestrator Agents Learn to Delegate", "Orchestrator Agents Don\u2019t Learn to Delegate"),
    ("Why Agents Can Coordinate at Scale", "Why Agents Can Never Coordinate at Scale"),
    ("Lower Bounds for Orchestrator Regret", "Upper Bounds for Orchestrator Regret"),
    ("Multi-Agent Debate Increases Factuality in LLMs", "Multi-Agent Debate Decreases Factuality in LLMs"),
    ("Are LLM Agents Good Negotiators?", "Are LLM Agents Bad Negotiators?"),
    ("Learning to Orchestrate in Zero-Sum Games", "Learning to Orchestrate in General-Sum Games"),
])
def test_titles_that_say_no_in_other_words_or_differ_by_an_antonym_are_two_papers(a, b):
    """Run 36: 'Cannot', "Don't", 'Never' did not say no, and Upper/Lower, Increases/Decreases, Good/Bad, Zero-/General-Sum
    were no opposites: a round filed the second paper as a duplicate of the first, and add refused it."""
    from masrl.bib.matching import distinct_by_title, normalize_title

    assert distinct_by_title(normalize_title(a), normalize_title(b))
    pool = Pool([make_known("a.yaml", "retained", a, {}, authors=["Lee, Alice"])])
    assert pool.matches(b, {}, ["Lee, Alice"]) == []


@pytest.mark.parametrize(("a", "b"), [
    ("QMIX: Monotonic Value Function Factorisation for Deep Multi-Agent Reinforcement Learning",
     "Weighted QMIX: Expanding Monotonic Value Function Factorisation for Deep Multi-Agent Reinforcement Learning"),
    ("Self-Consistency Improves Chain of Thought Reasoning in Language Models",
     "Universal Self-Consistency Improves Chain of Thought Reasoning in Language Models"),
    ("Orchestrating Large Language Model Agents with Extrinsic Rewards",
     "Orchestrating Large Language Model Agents with Intrinsic Rewards"),
    ("Orchestration of Large Language Model Agents under Full Observability",
     "Orchestration of Large Language Model Agents under Partial Observability"),
    ("Scaling Multi-Agent Orchestration at Training Time", "Scaling Multi-Agent Orchestration at Inference Time"),
    ("Multi-Agent Orchestration with Shared Parameters", "Multi-Agent Orchestration with Separate Parameters"),
    ("Orchestrating Agents with $\\alpha$-Rank", "Orchestrating Agents with $\\beta$-Rank"),
    ("Orchestrating LLM Agents for Code Generation in C", "Orchestrating LLM Agents for Code Generation in C++"),
    ("Orchestrating LLM Agents for Code Generation in C", "Orchestrating LLM Agents for Code Generation in C#"),
    ("Bias Against Women in LLM Agent Orchestration", "Bias Against Men in LLM Agent Orchestration"),
])
def test_a_title_with_a_new_leading_word_or_another_content_word_is_another_paper(a, b):
    """Run 37: 'Weighted QMIX: ...' was filed as a duplicate of 'QMIX: ...' (its authors' own earlier paper), Extrinsic and
    Intrinsic, Full and Partial, Training and Inference were one paper, and $\\alpha$-Rank, $\\beta$-Rank (the command
    dropped), C, C++ and C# (the signs dropped) had one title."""
    from masrl.bib.matching import distinct_by_title, normalize_title

    assert distinct_by_title(normalize_title(a), normalize_title(b)) and distinct_by_title(normalize_title(b), normalize_title(a))


@pytest.mark.parametrize(("a", "b"), [
    ("The QMIX Algorithm for Multi-Agent Learning", "QMIX Algorithm for Multi-Agent Learning"),
    ("Decentralised Orchestration of Agent Teams", "Decentralized Orchestration of Agent Teams"),
    ("Learning Orchestration Policy for Agent Teams", "Learning Orchestration Policies for Agent Teams"),
    ("Orchestrating LLM Agents", "Orchestrating LLM Agents (Extended Abstract)"),
    ("Modelling Agent Teams at Scale", "Modeling Agent Teams at Scale"),
    ("\\emph{Learned} Routers for Agent Teams", "Learned Routers for Agent Teams"),
    ("Toward Orchestrated Agent Teams", "Towards Orchestrated Agent Teams"),
])
def test_a_title_written_another_way_is_still_the_same_paper(a, b):
    from masrl.bib.matching import distinct_by_title, normalize_title

    assert not distinct_by_title(normalize_title(a), normalize_title(b)), (a, b)


def test_a_word_that_merely_begins_like_an_opposite_is_no_opposite():
    from masrl.bib.matching import distinct_by_title, normalize_title

    for a, b in (("Learning to Delegate", "Learning to Delegate Tasks"), ("Agents in Action", "Agents in Actions"),
                 ("Decentralised Agents", "Decentralized Agents"), ("Multi-Agent Systems", "Multiagent Systems")):
        assert not distinct_by_title(normalize_title(a), normalize_title(b)), (a, b)


def test_one_number_written_two_ways_is_one_paper():
    """A thousands separator and a Roman numeral do not make another number: ``1,000`` is ``1000``
    (also with a no-break space or the Arabic separator) and ``Part II`` is ``Part 2``."""
    pool = Pool([make_known("k", "queued", "Credit Assignment for 1000 Agents in Swarms", {}),
                 make_known("ii", "queued", "Orchestrating Agent Teams, Part II", {}),
                 make_known("m", "queued", "Credit assignment for 1000000 agents", {})])
    for title in ("Credit assignment for 1,000 agents in swarms", "Credit assignment for 1\u00a0000 agents in swarms",
                  "Credit assignment for \u0661\u066c\u0660\u0660\u0660 agents in swarms"):
        assert [m.other.where for m in pool.matches(title, {})] == ["k"], title
    assert [m.other.where for m in pool.matches("Orchestrating Agent Teams, Part 2", {})] == ["ii"]
    assert [m.other.where for m in pool.matches("Credit assignment for 1,000,000 agents", {})] == ["m"]
    assert pool.matches("Credit assignment for 1,001 agents in swarms", {}) == []
    assert pool.matches("Orchestrating Agent Teams, Part 3", {}) == []
    assert pool.matches("Credit assignment for 1000, 000 agents", {}) == []  # a comma and a space: two numbers
    # digits of another script are compared as digits (the similarity too), and "non" written apart or joined alike
    words = Pool([make_known("s", "queued", "Scaling to 1000 Language Agents", {}),
                  make_known("n", "queued", "Learning in Non-Stationary Multi-Agent Environments", {})])
    for title in ("Scaling to \u0661\u0660\u0660\u0660 Language Agents", "Scaling to \u06f1\u06f0\u06f0\u06f0 Language Agents"):
        assert [(m.other.where, m.similarity) for m in words.matches(title, {})] == [("s", 1.0)], title
    assert [m.other.where for m in words.matches("Learning in Nonstationary Multi-Agent Environments", {})] == ["n"]
    assert words.matches("Learning in Stationary Multi-Agent Environments", {}) == []  # says no where the other does not
    decimals = Pool([make_known("d", "queued", "Scaling to 1000 Agent Teams with Credit", {}),
                     make_known("g", "queued", "Orchestrating GPT-3.5 Agent Teams", {})])
    assert [m.other.where for m in decimals.matches("Scaling to 1000.0 Agent Teams with Credit", {})] == ["d"]
    assert [m.other.where for m in decimals.matches("Orchestrating GPT-3.50 Agent Teams", {})] == ["g"]
    assert decimals.matches("Orchestrating GPT-35 Agent Teams", {}) == []

def test_titles_in_other_scripts_are_compared_whole_and_their_digits_by_value():
    """Letters of every script are kept for the comparison (a Cyrillic or Chinese title is not reduced to
    its one Latin word), and digits of every script are numbers (Arabic-Indic ٣ is 3)."""
    pool = Pool([make_known("a", "queued", "Оркестратор для GPT-4 orchestrator", {}),
                 make_known("b", "queued", "Orchestrator 学习 多智能体", {}),
                 make_known("c", "queued", "learning ٣ agents", {})])
    assert pool.matches("Делегирование задач для GPT-4 orchestrator", {}) == []
    assert pool.matches("Orchestrator 评估 基准", {}) == []
    assert pool.matches("learning ٤ agents", {}) == []
    assert [m.other.where for m in pool.matches("Оркестратор для GPT-4 orchestrator.", {})] == ["a"]
    assert [m.other.where for m in pool.matches("learning 3 agents", {})] == ["c"]


def test_exclude_logs_a_distinct_paper_whose_title_is_near_identical(survey, cli):
    first = next_record_id(survey)
    assert exclude(cli, survey, "GPT-4 Technical Report", "--arxiv", "2303.08774").code == 0
    run = exclude(cli, survey, "GPT-5 Technical Report", "--arxiv", "2508.00001")
    assert run.code == 0, run.err
    assert cli("validate", "--root", survey).code == 0
    # without an arXiv id on both sides the titles decide: another number is another paper
    assert exclude(cli, survey, "GPT-6 Technical Report", "--url", "https://openai.com/index/gpt-6").code == 0
    # a title 94% similar, numbers alike, is refused, and the message says how to log it anyway
    assert exclude(cli, survey, "Learning to Orchestrate Agent Teams", "--url", "https://example.org/teams").code == 0
    run = exclude(cli, survey, "Learning to Orchestrate Agent Trees", "--url", "https://example.org/trees")
    assert run.code == 1 and run.err.splitlines()[-1].endswith(
        "(title 94% similar: 'Learning to Orchestrate Agent Teams'); if it is a distinct paper, --force REASON logs it anyway")
    run = exclude(cli, survey, "Learning to Orchestrate Agent Trees", "--url", "https://example.org/trees",
                  extra=("--force", "trees of agents, not teams"))
    assert run.code == 0, run.err
    third = next_record_id(survey)
    forced = yaml.safe_load((survey / f"exclusions/E{int(third[1:]) - 1:03d}.yaml").read_text())
    assert forced["forced"] == "trees of agents, not teams" and forced["record_id"] != first
    assert cli("validate", "--root", survey).code == 0


def test_force_never_overrides_a_shared_identifier(survey, cli):
    assert exclude(cli, survey, "GPT-4 Technical Report", "--arxiv", "2303.08774").code == 0
    run = exclude(cli, survey, "Another name", "--arxiv", "2303.08774", extra=("--force", "it is different"))
    assert run.code == 1 and "already excluded as exclusions/" in run.err and "(same arxiv 2303.08774" in run.err
    run = exclude(cli, survey, "Another name", "--arxiv", "2606.99991", extra=("--force", " "))
    assert run.code == 1 and "command line: --force: needs a reason" in run.err


def test_a_forced_exclusion_validates_and_a_near_identical_pair_names_the_way_out(survey, cli):
    for title, url in (("Learning to Orchestrate Agent Teams", "https://example.org/a"),
                       ("Learning to Orchestrate Agent Trees", "https://example.org/b")):
        rid = next_record_id(survey)
        assert exclude(cli, survey, title, "--url", url, extra=("--force", "set up the pair")).code == 0
        text = (survey / f"exclusions/{rid}.yaml").read_text()
        (survey / f"exclusions/{rid}.yaml").write_text(text.replace("forced: set up the pair\n", ""))
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert ("screening_label: title 94% similar to that of exclusions/" in run.err and
            "(distinct papers: keep both with forced: REASON in either record; `masrl add --force REASON` and "
            "`masrl exclude --force REASON` write it)") in run.err
    path = survey / f"exclusions/{rid}.yaml"
    path.write_text(path.read_text().replace("reason_class: X3\n", "reason_class: X3\nforced: a later model\n"))
    assert cli("validate", "--root", survey).code == 0


@pytest.mark.parametrize("survey_tree", ["grown"], indirect=True)  # a merge: the tree with a history
def test_resolve_keeps_two_distinct_papers_logged_on_two_branches(survey, cli, repo):
    shutil.copy(repo / ".gitattributes", survey / ".gitattributes")
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    rid = next_record_id(survey)
    for branch, title, arxiv in (("a", "GPT-4 Technical Report", "2303.08774"), ("b", "GPT-5 Technical Report", "2508.00001")):
        git(survey, "checkout", "-q", "-b", branch, "main")
        assert exclude(cli, survey, title, "--arxiv", arxiv).code == 0
        assert cli("build", "--root", survey).code == 0
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", branch)
    git(survey, "checkout", "-q", "a")
    subprocess.run(["git", "merge", "--no-edit", "b"], cwd=survey, capture_output=True)
    run = cli("resolve", "--root", survey)
    assert run.code == 0, run.err
    theirs = f"E{int(rid[1:]) + 1:03d}"
    assert f"kept both: exclusions/{rid}.yaml is ours; theirs is now exclusions/{theirs}.yaml" in run.out
    assert yaml.safe_load((survey / f"exclusions/{theirs}.yaml").read_text())["screening_label"] == "GPT-5 Technical Report"


def test_a_near_identical_title_by_authors_who_share_no_name_is_another_paper():
    """One rule for add, exclude, validate and rounds: "... Traffic Signal Control" by Lovelace is not "... Traffic
    Light Control" by Hopper (94% similar); the same titles by an author the two share (however written) are one."""
    from masrl.bib.matching import Pool, make_known, may_be_one_paper, similar_title_pairs

    signal = make_known("a.yaml", "retained", "Multi-Agent Reinforcement Learning for Traffic Signal Control", {},
                        authors=["Lovelace, Ada", "others"])
    pool = Pool([signal])
    light = "Multi-Agent Reinforcement Learning for Traffic Light Control"
    assert pool.matches(light, {}, ["Hopper, Grace"]) == []
    assert [m.other.where for m in pool.matches(light, {}, ["Hopper, Grace", "Ada Lovelace"])] == ["a.yaml"]
    assert [m.other.where for m in pool.matches(light, {}, None)] == ["a.yaml"]  # no authors to tell them apart by
    hopper = make_known("b.yaml", "retained", light, {}, authors=["Hopper, Grace"])
    assert similar_title_pairs([signal, hopper]) == [] and not may_be_one_paper(signal, hopper)
    assert len(similar_title_pairs([signal, make_known("c.yaml", "retained", light, {}, authors=["Lovelace, A."])])) == 1


def test_a_name_spelled_with_its_own_letters_or_in_ascii_is_one_authors():
    """The author rule compared name words with accents dropped only: Müller and Mueller, Søgaard and Sogaard shared
    no word, so one paper at an identical title was two (queued again, added twice, validate ok)."""
    from masrl.bib.matching import distinct_by_authors, name_words

    for mine, theirs in ((["Müller, Jürgen"], ["Mueller, Juergen"]), (["Søgaard, A."], ["Sogaard, A."]),
                         (["Łukasiewicz, Jan"], ["Lukasiewicz, J."]), (["Straße, Hans"], ["Strasse, H."]),
                         (["Nguyễn, Văn A"], ["Van A Nguyen"])):
        assert not distinct_by_authors(name_words(mine), name_words(theirs)), (mine, theirs)
    assert distinct_by_authors(name_words(["Lovelace, Ada"]), name_words(["Hopper, Grace"]))
    pool = Pool([make_known("a.yaml", "retained", "Learned Delegation for Agent Swarms", {}, authors=["Søgaard, A."])])
    assert [m.other.where for m in pool.matches("Learned Delegation for Agent Swarms", {}, ["Sogaard, A."])] == ["a.yaml"]


def test_a_name_in_han_characters_is_its_pinyin_and_a_shared_first_name_is_no_shared_author():
    """张伟 gave one word 'zhangwei', never 'Zhang, Wei': one paper became two records. And a first name or a particle
    two people share ('Wang, Wei' and 'Zhang, Wei'; 'van Dijk' and 'van Berg') made two papers one."""
    from masrl.bib.matching import distinct_by_authors, name_words

    for mine, theirs in ((["张伟", "李娜"], ["Zhang, Wei", "Li, Na"]), (["陈彦君"], ["Chen, Yanjun"])):
        assert not distinct_by_authors(name_words(mine), name_words(theirs)), (mine, theirs)
    for mine, theirs in ((["Wang, Wei"], ["Zhang, Wei"]), (["van Dijk, Jan"], ["van Berg, Piet"]),
                         (["Wang, Yanjun"], ["Chen, Yanjun"])):
        assert distinct_by_authors(name_words(mine), name_words(theirs)), (mine, theirs)
    assert sorted(person.order() for person in name_words(["van der Berg, Jan", "{Kimi Team}", "Plato", "others"])) == [
        (["berg", "vanderberg"], ["jan"], ["j"], [], [], []), (["kimi"], [], [], [], [], []),
        (["plato"], [], [], [], [], [])]  # a generic word of an organisation is no name


@pytest.mark.parametrize(("mine", "theirs", "distinct"), [
    (["张伟"], ["李伟"], True),  # a Han name's family name is its first syllable: a shared given name is no shared author
    (["Le Cun, Yann"], ["LeCun, Yann"], False), (["Di Caprio, L."], ["DiCaprio, Leo"], False),  # a particle spaced or not
    (["欧阳娜娜"], ["Ouyang, Nana"], False),  # a compound surname
    (["Wei, Zhang"], ["Zhang, Wei"], False),  # a source that read the family name first as the given name
    (["Smith, John"], ["John Smith"], False),
])
def test_the_family_name_of_either_among_the_others_names_is_one_author(mine, theirs, distinct):
    from masrl.bib.matching import distinct_by_authors, name_words

    assert distinct_by_authors(name_words(mine), name_words(theirs)) is distinct


@pytest.mark.parametrize(("mine", "theirs", "distinct"), [
    (["E, Weinan"], ["E, Weinan"], False),  # a one-letter family name was dropped: one author read as two
    (["Xu, Wei"], ["Xue, Wei"], True), (["Yu, Bing", "Sun, Jian"], ["Yue, Bing", "Suen, Jian"], True),  # ue is no umlaut
    (["Müller, J."], ["Muller, J."], False), (["Müller, J."], ["Mueller, Juergen"], False),
    (["曾伟"], ["Zeng, Wei"], False),  # 曾 read as a family name
])
def test_one_letter_family_names_umlauts_and_han_surname_readings(mine, theirs, distinct):
    from masrl.bib.matching import distinct_by_authors, name_words

    assert distinct_by_authors(name_words(mine), name_words(theirs)) is distinct


@pytest.mark.parametrize(("mine", "theirs", "distinct"), [
    # a Japanese family name is mostly two characters: 山田 and 山本, 田中 and 田村 share only a first character
    (["山田太郎"], ["山本花子"], True), (["田中一郎"], ["田村明子"], True), (["山田太郎"], ["山田, 太郎"], False),
    (["林真理子"], ["林, 真理子"], False),  # a family name of one character in a long name still meets itself
    # a compound surname is its two characters, never its first alone
    (["欧阳娜娜"], ["欧明"], True), (["司马光"], ["司徒雷"], True), (["欧阳娜娜"], ["欧阳, 娜娜"], False),
    (["张三丰"], ["Zhang, Sanfeng"], False),
    # organisations share their generic words, not their names
    (["{Kimi Team}"], ["Qwen Team"], True), (["{Kimi Team}"], ["Team, Qwen"], True), (["Team, Kimi"], ["{Kimi Team}"], False),
    (["{Meta AI}"], ["{Google AI}"], True), (["Ai, Weiwei"], ["Ai, Wei"], False),
    # a particle written before the family name by a source that writes First Last
    (["Cun, Yann Le"], ["LeCun, Yann"], False), (["Caprio, Leonardo Di"], ["DiCaprio, Leonardo"], False),
    (["Lane, Saunders Mac"], ["MacLane, Saunders"], False), (["Gogh, Vincent Van"], ["VanGogh, Vincent"], False),
    # one name in two spellings
    (["김민준"], ["김, 민준"], False), (["Oedegaard, Lars"], ["Ødegaard, Lars"], False),
    (["Aastrom, Karl"], ["Åström, Karl"], False), (["Παπαδόπουλος, Γιώργος"], ["Papadopoulos, Giorgos"], False),
    (["남궁민"], ["남, 궁민"], True),  # 남궁 is a surname of two syllables
    # run 34: a particle after two given names; organisations sharing a function word; Greek digraphs
    (["Cun, Yann André Le"], ["LeCun, Yann André"], False), (["Vries, Marie-Claire De"], ["DeVries, Marie-Claire"], False),
    (["Berg, Jan Van Der"], ["Vanderberg, Jan"], False), (["Blanc, Mary Ann Le"], ["Smith, Mary Ann"], True),
    (["{The Kimi Team}"], ["The Qwen Team"], True), (["The ATLAS Collaboration"], ["The CMS Collaboration"], True),
    (["Allen Institute for AI"], ["Vector Institute for AI"], True), (["{The Kimi Team}"], ["Kimi Team"], False),
    (["Παυλίδης, Γεώργιος"], ["Pavlidis, Georgios"], False), (["Ευαγγέλου, Νίκος"], ["Evangelou, Nikos"], False),
    (["Μπακογιάννης, Κώστας"], ["Bakogiannis, Kostas"], False), (["Ντόκος, Άννα"], ["Dokos, Anna"], False),
    (["Ben Amor, A."], ["Ben Ali, B."], True), (["Abu Bakr, A."], ["Abu Dhabi, B."], True),  # run 36: Arabic particles
    (["Ben Amor, A."], ["Amor, A."], False),
])
def test_family_names_of_han_and_hangul_names_organisations_particles_and_spellings(mine, theirs, distinct):
    """Run 33: 山田太郎 and 山本花子 were one author (a shared first character), as were 欧阳 and 欧, Kimi Team and
    Qwen Team (team); Yann Le Cun from a source writing First Last never met LeCun, nor 김민준 김 민준, Ødegaard
    Oedegaard, Åström Aastrom, Παπαδόπουλος Papadopoulos."""
    from masrl.bib.matching import distinct_by_authors, name_words

    assert distinct_by_authors(name_words(mine), name_words(theirs)) is distinct
    assert distinct_by_authors(name_words(theirs), name_words(mine)) is distinct


@pytest.mark.parametrize("mine, theirs, distinct", [
    (["Ma, Chen", "Wang, Lei"], ["Chen, Hao", "Zhang, Li"], True),  # Chen is one's given name, the other's family name
    (["Thomas, David"], ["Müller, Thomas"], True),
    (["Le, Quoc"], ["Roux, Xavier Le"], True),  # a particle a First Last source left among the given names
    (["Da, Wei"], ["Silva, Carlos Da"], True),
    (["Ma, Chen"], ["Chen, H."], True),
    (["Ben Amor, A."], ["Ben Ali, B."], True),
    (["Zhang, Wei"], ["Wei, Zhang"], False),  # one person, family name first in one source
    (["Zhang, W."], ["Wei, Zhang"], False),
    (["张小明"], ["Xiaoming, Zhang"], False),
    (["Li, Xiao-Ming"], ["Xiaoming, Li"], False),
    (["林真理子"], ["林, 真理子"], False),
    (["山田太郎"], ["山本花子"], True),
    # run 39: a particle's word that is a name's only given name is that given name (Wang Bin, Zhang Le, Du Wei)
    (["Wang, Bin"], ["Bin, Wang"], False),
    (["Zhang, Le"], ["Le, Zhang"], False),
    (["Du, Wei"], ["Wei, Du"], False),
    (["Smith, Ben"], ["Ben, Smith"], False),
    # run 39: a First Last source reads a second surname as a given name (Gabriel García Márquez)
    (["García, Gabriel"], ["Márquez, Gabriel García"], False),
    (["García, G."], ["Márquez, Gabriel García"], False),
    (["López, Ana"], ["de la Cruz, Ana López"], False),
    (["Paul, Anne"], ["Smith, John Paul"], True),  # a middle name and another's family name, the given names apart
    (["Luther, Anne"], ["King, Jr., Martin Luther"], True),
    # run 42: joining words, articles, generational suffixes and prefixes many families share are no shared name
    (["Costa e Silva, Artur"], ["Melo e Castro, João"], True),
    (["Ortega y Gasset, José"], ["Ramón y Cajal, Santiago"], True),
    (["Santos Filho, José"], ["Oliveira Filho, Pedro"], True),
    (["de los Santos, Juan"], ["de los Ríos, Maria"], True),
    (["Abdel-Rahman, Ahmed"], ["Abdel-Aziz, Mohamed"], True),
    (["Ó Briain, Dara"], ["Ó Muircheartaigh, Mícheál"], True),
    (["Costa e Silva, Artur"], ["Silva, Artur Costa e"], False),
    (["Abdel-Rahman, Ahmed"], ["Abdelrahman, Ahmed"], False),
    (["Oliveira Filho, Pedro"], ["Filho, Pedro Oliveira"], False),
    (["E, Weinan"], ["E, W."], False),
    (["in 't Veld, Jan"], ["in 't Hout, Piet"], True),  # 't, with its apostrophe, is a particle too
    (["in ’t Veld, Jan"], ["Veld, Jan in ’t"], False),
    # run 44: a family-first name ending in a one-letter word, read First Last by a source
    (["E, Zhang Xiao"], ["Zhang, Xiao E"], False),
    (["A, Nguyễn Văn"], ["Nguyễn, Văn A"], False),
    (["O, Lee Jae"], ["Lee, Jae O"], False),
    (["W, Zhang"], ["Zhang, W."], False),
    (["E, Wei"], ["Wang, Wei E"], True),  # one's family letter is the other's given letter, the family names apart
    (["X, Zhang Wei"], ["Zhang, Xiao"], True),  # an initial of a longer given name is no one-letter given word
])
def test_one_persons_given_name_that_is_anothers_family_name_is_no_shared_author(mine, theirs, distinct):
    """Run 38: any family name among any word of the other paper's names made one author, so a round filed
    "... for Large Language Models" by Hao Chen as a duplicate of the known one by Chen Ma, and Thomas Müller's
    paper as David Thomas's. A name swapped by a source (Wei Zhang read as Zhang Wei) swaps both ways."""
    from masrl.bib.matching import distinct_by_authors, name_words

    assert distinct_by_authors(name_words(mine), name_words(theirs)) is distinct
    assert distinct_by_authors(name_words(theirs), name_words(mine)) is distinct


def test_a_round_queues_a_near_identical_title_by_an_author_whose_given_name_is_the_known_ones_family_name():
    pool = Pool([make_known("corpus/papers/wang2026.yaml", "retained",
                            "A Survey on Multi-Agent Orchestration for Large Language Models", {"doi": "10.1145/1111.2222"},
                            authors=["Wang, Lei", "Ma, Chen"])])
    assert pool.matches("A Survey of Multi-Agent Orchestration for Large Language Models", {"doi": "10.1109/7777.0001"},
                        ["Chen, Hao", "Zhang, Li"]) == []
    assert [m.other.where for m in pool.matches("A Survey of Multi-Agent Orchestration for Large Language Models",
                                                 {"doi": "10.1109/7777.0001"}, ["Lei, Wang"])] == ["corpus/papers/wang2026.yaml"]


@pytest.mark.parametrize("written, stored", [("José Ortega y Gasset", "Ortega y Gasset, José"),
                                             ("Pedro Oliveira Filho", "Oliveira Filho, Pedro"),
                                             ("Josep Puig i Cadafalch", "Puig i Cadafalch, Josep"),
                                             ("Ludwig van Beethoven", "van Beethoven, Ludwig"), ("Jane Doe", "Doe, Jane"),
                                             # run 43: the particles before it stay the family name's
                                             ("Pedro da Costa Neto", "da Costa Neto, Pedro"),
                                             ("Juan de la Cruz y Gómez", "de la Cruz y Gómez, Juan")])
def test_an_iberian_family_name_written_first_last_is_stored_whole(written, stored):
    """Run 42: 'José Ortega y Gasset' was stored 'y Gasset, José Ortega' and 'Pedro Oliveira Filho' 'Filho, Pedro
    Oliveira' (key filho2026)."""
    from masrl.bib.bibtex import record_author

    assert record_author(written) == stored
