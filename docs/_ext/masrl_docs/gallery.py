"""Each figure kind as drawn: for every kind masrl registers (``masrl.render.figures.KINDS``),
the first figure of that kind the survey at :data:`SURVEY` declares, shown from its committed
PNG under ``reports/figures/`` (what ``masrl build`` drew), with its declaration."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

#: The survey whose figures are shown (the bundled survey, unless a build sets it).
SURVEY = Path(__file__).resolve().parents[3]


def _declared() -> list[dict]:
    data = yaml.safe_load((SURVEY / "corpus" / "taxonomy.yaml").read_text(encoding="utf-8")) or {}
    return [f for f in data.get("figures") or [] if isinstance(f, dict)]


def _first_of_each_kind() -> dict[str, dict]:
    from masrl.render.figures import KINDS

    declared = _declared()
    return {kind: next((f for f in declared if f.get("kind") == kind), None) for kind in KINDS}


def problems() -> list[str]:
    return [f"figure gallery: the survey at {SURVEY} declares no figure of kind {kind!r}"
            for kind, figure in _first_of_each_kind().items() if figure is None]


def markdown(srcdir: str, docname: str) -> str:
    """A section per figure kind: the figure, its caption and its declaration."""
    here = Path(srcdir) / Path(docname).parent
    out = []
    for kind, figure in _first_of_each_kind().items():
        if figure is None:
            continue
        png = os.path.relpath(SURVEY / "reports" / "figures" / f"{figure['name']}.png", here)
        declaration = yaml.safe_dump([figure], sort_keys=False, allow_unicode=True, width=100).rstrip()
        out += [f"### `{kind}`\n", f"```{{figure}} {png}\n:alt: {figure['caption']}\n\n{figure['caption']}\n```\n",
                f"Declared in `corpus/taxonomy.yaml` as:\n\n```yaml\nfigures:\n{_indent(declaration)}\n```\n"]
    return "\n".join(out)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())
