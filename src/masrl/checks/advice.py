"""Warnings about a corpus that is valid but says something other than what was probably meant.

These are warnings, not errors: ``masrl validate`` and ``masrl build`` print them and go on.

* Text that YAML cut at a `` #`` comment (:func:`masrl.checks.textwarn.cut_text_warnings`).
* A field with a value that reads as "not applicable" (a code n/a or not_applicable in any case,
  or the label "not applicable") while the taxonomy declares no ``not_applicable``: that value is
  then an ordinary one, so the gap analysis can name it a gap and the heatmap draws it as one (a
  taxonomy of format 1, which implied its not-applicable code, moved to format 2 without the
  declaration).
* A claim about a release that the release has not frozen (``masrl release NAME --freeze-claims``):
  what it counts can still change the release's reports.
"""

from __future__ import annotations

import re

from ..core.errors import Problem
from ..corpus.load import CLAIMS, TAXONOMY, Corpus
from ..corpus.releases import releases_from
from ..corpus.taxonomy import Taxonomy
from .textwarn import cut_text_warnings

#: Codes and labels that say "not applicable".
_NOT_APPLICABLE_CODE = re.compile(r"(?i)n/?a|not[ _-]?applicable")
_NOT_APPLICABLE_LABEL = re.compile(r"(?i)\b(?:not applicable|n/a)\b")


def not_applicable_warnings(corpus: Corpus) -> list[Problem]:
    """One warning per value that reads as "not applicable" while the taxonomy declares no
    ``not_applicable`` (see the module docstring)."""
    tax = Taxonomy(corpus.taxonomy)
    if tax.not_applicable or not isinstance(corpus.taxonomy, dict):
        return []
    out = []
    for field in tax.fields.values():
        for code in field.values:
            label = field.value_label(code)
            if _NOT_APPLICABLE_CODE.fullmatch(str(code)) or _NOT_APPLICABLE_LABEL.search(str(label)):
                out.append(Problem(TAXONOMY, corpus.line(TAXONOMY, ("fields", field.name, "values", code)),
                                   f"fields.{field.name}.values.{code}",
                                   f"warning: {code!r} ({label}) reads as 'not applicable', but the taxonomy declares no "
                                   f"not_applicable, so it counts as an ordinary value: the gap analysis may name it a "
                                   f"gap and figures draw it as one; declare `not_applicable: {code}` (one code for every "
                                   "field), or give the value another label"))
    return out


def unfrozen_claim_warnings(corpus: Corpus) -> list[Problem]:
    """One warning per claim about a listed release that the release has not frozen (its
    ``claims:`` in ``corpus/releases.yaml``), naming the command that freezes it."""
    frozen = {r.name: r.frozen_claims for r in releases_from(corpus.releases)}
    out = []
    for i, claim in enumerate(corpus.claims):
        if not isinstance(claim, dict):
            continue
        name, cid = claim.get("scope"), claim.get("id")
        if isinstance(name, str) and name in frozen and isinstance(cid, str) and cid not in frozen[name]:
            out.append(Problem(CLAIMS, corpus.line(CLAIMS, ("claims", i, "scope")), f"claims[{i}].scope",
                               f"warning: claim {cid!r} is about release {name}, which has not frozen it: until it does, "
                               f"an edit of what the claim counts changes {name}'s published numbers; once the claim "
                               f"reads as it should, `masrl release {name} --freeze-claims` freezes it"))
    return out


def warnings(corpus: Corpus) -> list[Problem]:
    """Every warning of the corpus, in file order: :func:`cut_text_warnings`,
    :func:`not_applicable_warnings` and :func:`unfrozen_claim_warnings`."""
    return cut_text_warnings(corpus) + not_applicable_warnings(corpus) + unfrozen_claim_warnings(corpus)
