"""Same figure bytes everywhere: masrl names its font files by path (matplotlib's own DejaVu Sans)
and draws with matplotlib's defaults, so neither the user's font list (``~/.cache/matplotlib``,
which other matplotlib installs rewrite, in another order or with other fonts of the same name) nor
a matplotlibrc changes a figure; the manifest records every font file's digest."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from masrl.core.tabular import pd
from masrl.render import figures
from masrl.render.figures import draw


SPEC = figures.FigureSpec(name="fonts_probe", caption="", table="probe", module="bars", data=lambda results: None,
                          notes=lambda results: [],
                          options={"title": "Bold title: Agents × teams", "labels": "label", "values": "count",
                                   "xlabel": "records"})
DATA = pd.DataFrame({"label": ["Orchestrator", "Single agent (ÅÉ)", "Team of agents"], "count": [3, 0, 12]},
                    index=pd.Index(["a", "b", "c"], name="code"))
NOTES = ["n = 15 retained records; none left out."]


def drawn() -> dict[str, bytes]:
    files, missing = draw.render(SPEC, DATA, NOTES)
    assert missing == []
    return files


@pytest.fixture
def user_font_list(monkeypatch):
    """``shuffle()``: make matplotlib's font list what another machine's cache may hold: every entry
    in the reverse order, behind a decoy that claims to be the regular DejaVu Sans but is another
    face (the oblique file), as a system font of the same name would be."""
    from matplotlib import font_manager

    manager = font_manager.fontManager

    def shuffle():
        entries = list(manager.ttflist)
        oblique = next(e for e in entries if e.name == "DejaVu Sans" and e.style == "oblique")
        decoy = dataclasses.replace(oblique, style="normal", weight=400)
        monkeypatch.setattr(manager, "ttflist", [decoy, *reversed(entries)])
        font_manager.FontManager._findfont_cached.cache_clear()  # noqa: SLF001

    yield shuffle
    font_manager.FontManager._findfont_cached.cache_clear()  # noqa: SLF001


def test_a_figure_is_the_same_bytes_with_the_font_list_in_another_order(user_font_list):
    before = drawn()
    user_font_list()
    assert drawn() == before


def test_a_figure_is_the_same_bytes_whatever_the_users_matplotlibrc_says(monkeypatch):
    import matplotlib

    before = drawn()
    for key, value in {"axes.facecolor": "#ffeeee", "lines.linewidth": 3.0, "font.family": ["serif"],
                       "savefig.facecolor": "black", "pdf.compression": 0, "axes.linewidth": 2.5}.items():
        monkeypatch.setitem(matplotlib.rcParams, key, value)
    assert drawn() == before


def test_the_house_fonts_are_named_by_path_in_matplotlibs_own_folder():
    import matplotlib
    from pathlib import Path

    files = draw.font_files()
    assert set(files) == {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf",
                          "LastResortHE-Regular.ttf"}
    assert {p.parent for p in files.values()} == {Path(matplotlib.get_data_path()) / "fonts" / "ttf"}
    identity = draw.toolchain_identity()
    assert identity["fonts"] == {name: hashlib.sha256(p.read_bytes()).hexdigest() for name, p in files.items()}


def test_the_fingerprint_and_the_manifest_cover_the_font_files(tmp_path, cli):
    identity = draw.toolchain_identity()
    other = {**identity, "fonts": {**identity["fonts"], "DejaVuSans.ttf": "0" * 64}}
    code = "code"
    assert (figures.fingerprint(SPEC, DATA, code, NOTES, draw.toolchain_text(identity))
            != figures.fingerprint(SPEC, DATA, code, NOTES, draw.toolchain_text(other)))
    assert cli("init", tmp_path / "s").code == 0
    assert cli("build", "--root", tmp_path / "s", "--quiet").code == 0
    recorded = json.loads((tmp_path / "s/reports/figures/manifest.json").read_text())["toolchain"]
    assert recorded["fonts"] == identity["fonts"]


@pytest.mark.parametrize(("setting", "jobs", "expected"), [("0", 9, 0), ("3", 9, 3), ("3", 2, 2), (" 2 ", 9, 2)])
def test_the_number_of_drawing_workers_is_the_one_set(monkeypatch, setting, jobs, expected):
    monkeypatch.setenv("MASRL_DRAW_WORKERS", setting)
    assert draw.workers(jobs) == expected


@pytest.mark.parametrize("setting", ["two", "-1", "1.5", "٣"])
def test_a_number_of_drawing_workers_that_is_not_a_whole_number_is_refused_by_name(monkeypatch, setting):
    from masrl.core.errors import UserError

    monkeypatch.setenv("MASRL_DRAW_WORKERS", setting)
    with pytest.raises(UserError, match=rf"^MASRL_DRAW_WORKERS='{setting}' is not a number of workers: give 0"):
        draw.workers(9)
