"""The figure toolchain is locked (constraints.txt) and recorded (manifest.json), so that the
byte comparisons of the figure tests and of `masrl build --check` test masrl, not a new release."""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

import pytest

from trees import published_only  # noqa: F401 - the published tree only


REPO = Path(__file__).resolve().parents[2]


def locked() -> dict[str, str]:
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s#]+)", line.strip()).groups()
            pins[name.lower()] = version
    return pins


def test_the_installed_toolchain_is_the_locked_one():
    pins = locked()
    assert {"matplotlib", "pillow", "fonttools", "numpy"} <= set(pins)
    installed = {name: metadata.version(name) for name in pins}
    assert installed == pins, "install with: pip install -c constraints.txt '.[test]'"


@pytest.mark.parametrize("tree", ["published_tree", pytest.param("repo", marks=pytest.mark.live)])
def test_the_figures_were_drawn_with_the_locked_toolchain(request, tree):
    """The manifest of the figures ``masrl build`` draws, and of those the repository commits."""
    from matplotlib import ft2font

    from masrl.render.figures.draw import toolchain_identity

    root = request.getfixturevalue(tree)
    recorded = json.loads((root / "reports/figures/manifest.json").read_text())["toolchain"]
    assert recorded["matplotlib"] == locked()["matplotlib"]
    assert recorded == {**toolchain_identity(), "freetype": ft2font.__freetype_version__,
                        "freetype_build": ft2font.__freetype_build_type__}


def test_another_toolchain_makes_every_figure_stale(survey, cli, monkeypatch):
    from masrl.render import figures
    from masrl.render.figures import draw

    monkeypatch.setattr(draw, "toolchain_identity", lambda: {"matplotlib": "9.9.9", "ft2font_sha256": "x"})
    run = cli("build", "--root", survey, "--check")
    assert run.code == 1
    stale = [line for line in run.err.splitlines() if line.startswith("stale: reports/figures/")]
    from masrl.corpus.load import read_taxonomy
    from masrl.corpus.taxonomy import Taxonomy

    declared = figures.figures_of(Taxonomy(read_taxonomy(survey)))
    assert len(stale) == 3 * len(declared) + 1  # every file of every figure, and the manifest
    recorded = json.loads((survey / "reports/figures/manifest.json").read_text())["toolchain"]
    assert (f"note: the figures were drawn with matplotlib {recorded['matplotlib']} (FreeType {recorded['freetype']}); "
            "this environment has matplotlib 9.9.9. Install the locked toolchain (pip install -c constraints.txt .) "
            "for byte-identical figures") in run.err.splitlines()
