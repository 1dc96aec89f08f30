"""The session memo's figure stand-ins (tests/memo.py): a figure not drawn for a test that does not
read figures is the bytes of a figure of its shape really drawn, marked with its own key; a figure
with new text, a ``$``, a new shape, or in a test that reads figures is really drawn."""

from __future__ import annotations

import memo
import pytest

from masrl.render.figures import draw
from figure_specs import spec_of


@pytest.fixture
def fresh_memo(monkeypatch):
    """The figure memo of this test alone: empty, with stand-ins allowed (as in a test not marked ``figures``)."""
    for store in (memo.FIGURES, memo.STAND_INS):
        monkeypatch.setattr(store, "values", type(store.values)())
    monkeypatch.setattr(memo, "_REFERENCES", {})
    monkeypatch.setattr(memo, "_DRAWN_TEXT", {})
    monkeypatch.setattr(memo, "stand_ins", True)
    assert memo.enabled and getattr(draw.render, "__memo__", False)


def counts(data_of, **changes):
    """category_counts' data of release v1 with ``{category: count}`` or ``{category: label}`` changed."""
    data = data_of("category_counts")
    for category, value in changes.items():
        data.loc[category, "count" if isinstance(value, int) else "label"] = value
    return data


def drawn_for_real(data) -> bool:
    before = memo.FIGURES.misses
    draw.render(spec_of("category_counts"), data, ["n = 84 records."])
    return memo.FIGURES.misses == before + 1


def test_a_figure_of_a_drawn_shape_is_its_bytes_marked_with_its_key(fresh_memo, data_of):
    spec, notes = spec_of("category_counts"), ["n = 84 records."]
    real, missing = draw.render(spec, counts(data_of), notes)
    assert missing == [] and len(memo.FIGURES.values) == 1 and not memo.STAND_INS.values
    stand_in, missing = draw.render(spec, counts(data_of, survey=6), ["n = 85 records."])
    key = memo._figure_keys(spec, counts(data_of, survey=6), ["n = 85 records."]).key  # noqa: SLF001
    assert missing == [] and len(memo.FIGURES.values) == 1 and list(memo.STAND_INS.values) == [key]
    assert stand_in == {"svg": real["svg"] + b"<!-- test stand-in " + key.hex().encode() + b" -->\n",
                        "pdf": real["pdf"] + b"%test stand-in " + key.hex().encode() + b"\n",
                        "png": real["png"] + b"test stand-in " + key.hex().encode()}
    assert draw.render(spec, counts(data_of, survey=6), ["n = 85 records."])[0] is stand_in  # memoised
    assert draw.render(spec, counts(data_of, survey=7), ["n = 85 records."])[0] != stand_in  # another key


@pytest.mark.parametrize("label, real", [("Surveys", False), ("Survey Ω", True), ("Survey $x$", True), ("多", True)],
                         ids=["known-characters", "new-character", "mathtext", "missing-glyph"])
def test_new_text_is_drawn_for_real(fresh_memo, data_of, label, real):
    assert drawn_for_real(counts(data_of))
    assert drawn_for_real(counts(data_of, survey=label)) is real


def test_a_new_shape_is_drawn_for_real(fresh_memo, data_of):
    assert drawn_for_real(counts(data_of))
    zero = counts(data_of, **{c: 0 for c in data_of("category_counts").index})
    assert drawn_for_real(zero)
    assert drawn_for_real(counts(data_of, survey=-1))
    assert not drawn_for_real(counts(data_of, survey=-2))


def test_in_drafts_every_figure_is_stood_in_for_and_an_undrawn_shape_is_its_mark_alone(fresh_memo, data_of):
    """The grow helper's branch builds (memo.drafts): nothing is drawn, whatever its shape or text;
    a figure of a shape not drawn is the mark alone, and it is never a reference afterwards."""
    spec, notes = spec_of("category_counts"), ["n = 84 records.", "A second line: a new shape."]
    data = counts(data_of, survey="Survey $x$ Ω")
    key = memo._figure_keys(spec, data, notes).key  # noqa: SLF001
    before = memo.FIGURES.misses
    with memo.drafts():
        files, missing = draw.render(spec, data, notes)
    assert missing == [] and memo.FIGURES.misses == before and not memo.FIGURES.values and not memo._REFERENCES  # noqa: SLF001
    assert files == {"svg": b"<!-- test stand-in " + key.hex().encode() + b" -->\n",
                     "pdf": b"%test stand-in " + key.hex().encode() + b"\n", "png": b"test stand-in " + key.hex().encode()}
    assert not memo.drafting and drawn_for_real(counts(data_of))  # after the block: drawn for real again
    with memo.drafts():  # a drawn shape: its bytes, marked
        assert draw.render(spec_of("category_counts"), counts(data_of, survey=9), ["n = 84 records."])[0]["svg"].startswith(b"<?xml")
    assert memo.FIGURES.misses == before + 1  # the one real drawing, after the first block


def test_a_figure_with_missing_glyphs_is_never_a_reference(fresh_memo, data_of):
    """Only figures drawn with every glyph are copied: a stand-in has no missing glyph to report."""
    assert drawn_for_real(counts(data_of, survey="多"))
    assert drawn_for_real(counts(data_of, survey="多", benchmark=19))


def test_no_stand_in_in_a_test_that_reads_figures(fresh_memo, data_of, monkeypatch):
    assert drawn_for_real(counts(data_of))
    monkeypatch.setattr(memo, "stand_ins", False)
    assert drawn_for_real(counts(data_of, survey=6))
    monkeypatch.setattr(memo, "stand_ins", True)
    assert drawn_for_real(counts(data_of, survey=6)) is False  # memoised, real


@pytest.mark.figures("prisma_flow")
def test_a_test_that_reads_named_figures_gets_those_drawn_and_the_others_stood_in_for(fresh_memo, data_of):
    assert (memo.stand_ins, memo.reads) == (True, frozenset({"prisma_flow"}))  # as tests/conftest.py sets them
    assert drawn_for_real(counts(data_of))
    assert drawn_for_real(counts(data_of, survey=6)) is False  # category_counts is not read: stood in for
    memo.reads = frozenset({"category_counts"})
    assert drawn_for_real(counts(data_of, survey=7))  # a figure the test reads: drawn


def test_render_many_draws_only_what_it_cannot_stand_in_for(fresh_memo, data_of):
    spec, notes = spec_of("category_counts"), ["n = 84 records."]
    first, second, third = draw.render_many([(spec, counts(data_of), notes), (spec, counts(data_of, survey=6), notes),
                                             (spec, counts(data_of, survey="Ω"), notes)])
    assert len(memo.FIGURES.values) == 3 and not memo.STAND_INS.values  # nothing drawn before: all three really
    fourth, = draw.render_many([(spec, counts(data_of, survey=9), notes)])
    assert len(memo.FIGURES.values) == 3 and len(memo.STAND_INS.values) == 1
    assert fourth[0]["svg"].startswith(first[0]["svg"]) and fourth[1] == []


def test_mathtext_is_always_drawn_for_real(fresh_memo, data_of):
    """A ``$`` may start mathtext, which can fail to parse: such text is drawn every time."""
    assert drawn_for_real(counts(data_of, survey="Survey $x$"))
    assert drawn_for_real(counts(data_of, survey="Survey $x$", benchmark=19))


def test_the_grown_tree_finds_a_stand_in_left_among_its_figures(fresh_memo, data_of, tmp_path):
    """tests/grow.py fails the growing when a figure stood in for is left in the tree."""
    import grow

    spec = spec_of("category_counts")
    real, _ = draw.render(spec, counts(data_of), ["n = 84 records."])
    stand_in, _ = draw.render(spec, counts(data_of, survey=6), ["n = 85 records."])
    folder = tmp_path / "reports/figures"
    folder.mkdir(parents=True)
    for ext in ("svg", "pdf", "png"):
        (folder / f"real.{ext}").write_bytes(real[ext])
        (folder / f"stood-in.{ext}").write_bytes(stand_in[ext])
    assert grow.stood_in(tmp_path) == [f"reports/figures/stood-in.{ext}" for ext in ("pdf", "png", "svg")]


# --- fixtures wider than one test: stand-ins only in those of memo.STAND_IN_FIXTURES that no test
# --- reading figures takes ---------------------------------------------------------------------------

_SETUP: dict[str, bool] = {}
memo.STAND_IN_FIXTURES |= {"_tree_no_figure_test_takes", "_tree_a_figure_test_takes", "_session_tree_no_figure_test_takes"}


def _noting(name: str, scope: str):
    """A fixture of ``scope`` called ``name`` that notes whether stand-ins were allowed while it was set up."""
    def fixture():
        _SETUP[name] = memo.stand_ins
    return pytest.fixture(scope=scope, name=name)(fixture)


# a session fixture is set up for the session (above tests/): the rule is a plugin of the whole run,
# not a hook of tests/conftest.py, which pytest would not ask about it
_tree_not_listed = _noting("_tree_not_listed", "module")
_tree_no_figure_test_takes = _noting("_tree_no_figure_test_takes", "module")
_tree_a_figure_test_takes = _noting("_tree_a_figure_test_takes", "module")
_session_tree_no_figure_test_takes = _noting("_session_tree_no_figure_test_takes", "session")
_session_tree_not_listed = _noting("_session_tree_not_listed", "session")


@pytest.mark.parametrize("fixture, stand_ins", [("_tree_not_listed", False), ("_tree_no_figure_test_takes", True),
                                                ("_session_tree_not_listed", False),
                                                ("_session_tree_no_figure_test_takes", True)])
def test_a_wider_fixture_may_stand_in_where_listed_and_no_figure_test_takes_it(request, fixture, stand_ins):
    request.getfixturevalue(fixture)
    assert _SETUP[fixture] is stand_ins


@pytest.mark.figures
def test_a_wider_fixture_a_figure_test_takes_draws_for_real(_tree_a_figure_test_takes):
    assert _SETUP["_tree_a_figure_test_takes"] is False
