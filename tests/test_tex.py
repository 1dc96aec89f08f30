"""LaTeX output escapes every hostile character in every position (cells, column
headers, index labels, index and column names); numbers.tex macros are well formed."""

from __future__ import annotations

import re

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.render.numbers import camel, numbers_tex
from masrl.render.tex import table_tex

HOSTILE = "&%$#_{}~^\\"
ESCAPES = [r"\textasciitilde ", r"\textasciicircum ", r"\textbackslash ", r"\space ",
           r"\&", r"\%", r"\$", r"\#", r"\_", r"\{", r"\}"]
STRUCTURE = [r"\begin{tabular}", r"\end{tabular}", r"\toprule", r"\midrule", r"\bottomrule", r"\\", " & "]


def body(tex: str) -> str:
    """The table's content with every legitimate escape and structural command removed."""
    tex = re.sub(r"^\\begin\{tabular\}\{[lr]+\}", "", tex)  # column format
    for token in ESCAPES + STRUCTURE:
        tex = tex.replace(token, "")
    return tex


def test_every_position_is_escaped():
    frame = pd.DataFrame({"h" + HOSTILE: ["a&b%c$d#e_f{g}h~i^j\\k"]}, index=pd.Index(["r" + HOSTILE], name="n" + HOSTILE))
    frame.columns.name = "c&_"
    tex = table_tex(frame)
    assert r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde i\textasciicircum j\textbackslash k" in tex  # cell
    assert r"h\&\%\$\#\_\{\}\textasciitilde \textasciicircum \textbackslash " in tex  # column header
    assert r"r\&\%\$\#\_\{\}\textasciitilde \textasciicircum \textbackslash " in tex  # index label
    assert r"n\&\%\$\#\_\{\}\textasciitilde \textasciicircum \textbackslash \space / c\&\_" in tex  # index + columns names
    assert not any(ch in body(tex) for ch in HOSTILE)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=HOSTILE + "ab ", min_size=1, max_size=12), st.text(alphabet=HOSTILE + "xy", min_size=1, max_size=6))
def test_no_hostile_character_survives_anywhere(text, name):
    frame = pd.DataFrame({name: [text], "n": [3]}, index=pd.Index([text + "1"], name=name + "0"))
    tex = table_tex(frame)
    assert not any(ch in body(tex) for ch in HOSTILE), tex


def test_real_tables_are_booktabs(published_tree):
    tex = (published_tree / "reports/releases/v1/tex/credit_units.tex").read_text()  # the published release
    assert tex.startswith("\\begin{tabular}{lllrrl}\n\\toprule\nunit & label & bracket & broad & strict & representatives \\\\\n\\midrule\n")
    assert "orchestrator & orchestrator & new in LLM-MAS & 8 & 5 & puppeteer, kimi-k2-5, wideseek-r1-2026 \\\\" in tex


def test_macro_names_are_letters_only():
    assert camel("rl_method") == "RlMethod"
    assert camel("O1") == "OOne"
    assert camel("planner_executor_critic") == "PlannerExecutorCritic"
    assert numbers_tex({"NumRetained": 84}).endswith("\\newcommand{\\NumRetained}{84}\n")


def test_bad_macro_name_is_refused():
    import pytest

    with pytest.raises(ValueError, match="letters only"):
        numbers_tex({"Num1": 1})


def test_numbers_tex_carries_headline_and_claim_figures(published_tree):
    tex = (published_tree / "reports/releases/v1/tex/numbers.tex").read_text()  # the published release: frozen
    for line in ("\\newcommand{\\NumRetained}{84}", "\\newcommand{\\NumExcluded}{32}", "\\newcommand{\\NumAudited}{116}",
                 "\\newcommand{\\MessageCreditBroad}{2}", "\\newcommand{\\MessageCreditStrict}{1}",
                 "\\newcommand{\\OrchestratorCreditBroad}{8}", "\\newcommand{\\OrchestratorCreditStrict}{5}",
                 "\\newcommand{\\SubdecisionFiveCount}{0}", "\\newcommand{\\NumCreditGranularityTeam}{0}",
                 "\\newcommand{\\BenchmarksJointEval}{0}"):
        assert line in tex.splitlines()


def test_characters_ot1_would_print_as_others_are_commands():
    frame = pd.DataFrame({"h<|>": ['RL -- method --> <svg onload=alert(1)> --- "q" `b`'], "n": [3]})
    tex = table_tex(frame)
    assert r"h\textless{}\textbar{}\textgreater{}" in tex  # column header
    assert (r"RL -{}- method -{}-\textgreater{} \textless{}svg onload=alert(1)\textgreater{} -{}-{}- "
            r"\textquotedbl{}q\textquotedbl{} \textasciigrave{}b\textasciigrave{} & 3 \\") in tex
    assert "--" not in tex.replace(r"-{}-", "")


def _styler_tex(frame: pd.DataFrame) -> str:
    """What pandas' Styler writes for ``frame`` (the index as a first column, hidden as an index),
    with the OT1 commands of masrl.render.tex: the oracle :func:`table_tex` is written to match."""
    from masrl.render.tex import _OT1, _TEXT_COMMANDS

    def ot1(value):
        return _OT1.sub(lambda m: _TEXT_COMMANDS.get(m.group(), "-{}"), value) if isinstance(value, str) else value

    first = frame.index.name or ""
    if frame.columns.name:
        first = f"{first} / {frame.columns.name}" if first else str(frame.columns.name)
    flat = frame.copy()
    flat.columns = [str(c) for c in flat.columns]
    flat.index = flat.index.astype(str)
    flat.insert(0, first, flat.index, allow_duplicates=True)
    flat = flat.reset_index(drop=True)
    styler = flat.style.format(ot1, escape="latex", na_rep="").format_index(ot1, escape="latex", axis=1).hide(axis="index")
    align = "".join("r" if pd.api.types.is_numeric_dtype(flat.iloc[:, i]) and list(flat.columns).count(c) == 1 else "l"
                    for i, c in enumerate(flat.columns))
    return styler.to_latex(hrules=True, column_format=align)


TEXT = st.text(alphabet=HOSTILE + "<>|\"`- aé\n", max_size=8)
CELL = st.one_of(TEXT, st.integers(-10**6, 10**6), st.floats(allow_infinity=True), st.none(), st.booleans())


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=4), st.integers(0, 4), st.data(), st.sampled_from(["int", "float", "mixed"]),
       st.one_of(st.none(), TEXT), st.one_of(st.none(), TEXT))
def test_table_tex_writes_what_the_styler_writes(columns, rows, data, kind, index_name, columns_name):
    """Byte for byte, for hostile labels, names and cells, numeric and object columns, missing values,
    duplicate labels and empty frames."""
    cells = {"int": st.integers(-10**6, 10**6), "float": st.floats(allow_infinity=True), "mixed": CELL}[kind]
    values = [[data.draw(cells) for _ in columns] for _ in range(rows)]
    index = [data.draw(TEXT) for _ in range(rows)]
    frame = pd.DataFrame(values, columns=columns, index=pd.Index(index, name=index_name, dtype=object))
    frame.columns.name = columns_name
    assert table_tex(frame) == _styler_tex(frame)


def test_table_tex_of_every_table_of_a_build_is_what_the_styler_writes(survey_tree):
    """Every table of a build (the pool and every release), published and grown trees."""
    from masrl.build.pipeline import build
    from masrl.corpus.load import load

    result = build(load(survey_tree), {})
    tables = [table for results in [result.pool, *result.releases] for table in results.all_tables()]
    assert len(tables) >= 60
    for table in tables:
        assert table_tex(table.frame) == _styler_tex(table.frame), table.name
