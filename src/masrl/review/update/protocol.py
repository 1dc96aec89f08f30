"""The search protocol (``corpus/protocol.yaml``) as typed data, for the update rounds.

The file's form and vocabulary are checked by :func:`masrl.checks.protocol.check_protocol`;
:func:`protocol_of` reads a protocol that passed those checks. What each part means is said in
the header of ``corpus/protocol.yaml`` (the survey's protocol, and masrl's reading of it).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ...checks.protocol import check_protocol
from ...core.errors import UserError, summary
from ...corpus.load import Corpus
from ...corpus.releases import content_digest
from ...corpus.rounds import PROTOCOL

#: The keys of a searcher that configure its source (``venues`` of OpenReview, ``directions`` of
#: citation searching, ``exclusion_family`` of a source that is not searched by query family).
SEARCHER_OPTIONS = ("venues", "directions", "exclusion_family", "method")


@dataclass(frozen=True)
class Family:
    """One query family.

    Attributes:
        name: the protocol's name (``tool-using agents``).
        terms: the protocol's terms, in its order.
        exclusion_family: the value an exclusion found by this family records in the field of the
            ``found_by`` screening role (taxonomy ``screening``).
        all_of: masrl's reading: groups of terms; a record matches when its title or abstract
            holds a term of every group (:meth:`matches`).
        queries: source name -> the query string sent to it (before the window is added).
    """

    name: str
    terms: tuple[str, ...]
    exclusion_family: str
    all_of: tuple[tuple[str, ...], ...]
    queries: dict

    def matches(self, text: str) -> bool:
        """Whether ``text`` (a title and abstract) holds at least one term of every group, as a
        whole word or phrase, ignoring case and the difference between a hyphen and a space."""
        plain = _plain(text)
        return all(any(re.search(rf"(?<![a-z0-9]){re.escape(_plain(t))}(?![a-z0-9])", plain) for t in group)
                   for group in self.all_of)


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[-‐‑–_/]+", " ", text.lower()).split())


@dataclass(frozen=True)
class Searcher:
    """One source ``masrl update search`` queries.

    Attributes:
        name: ``arxiv`` or ``crossref`` (the module under :mod:`.sources`).
        label: how sheets and reports name it (``arXiv``, ``Crossref``).
        endpoint: the API URL, from the environment variable ``endpoint_env`` when it is set.
        endpoint_env: the variable that redirects it (``MASRL_ARXIV_API``).
        exclusion_source: the exclusion log's ``source`` value for records it found.
        scope: a clause every query of the source carries (arXiv's categories), or "".
    """

    name: str
    label: str
    endpoint: str
    endpoint_env: str
    exclusion_source: str
    scope: str = ""
    redirected: bool = False
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Protocol:
    """The protocol: its query families and searched sources, and the digest of the file's content."""

    families: tuple[Family, ...]
    searchers: dict
    sha256: str

    def family(self, name: str) -> Family:
        """The family called ``name`` (KeyError if none)."""
        return next(f for f in self.families if f.name == name)

    def exclusion_family_of(self, how: str) -> str:
        """The exclusion log's query-family value for a record found by ``how``: a query family's
        ``exclusion_family``, or for a citation link (``cites KEY``, ``cited by KEY``) the
        citation searcher's (KeyError if neither)."""
        for family in self.families:
            if family.name == how:
                return family.exclusion_family
        citations = self.searchers.get("citations")
        if citations is not None and how.startswith(("cites ", "cited by ")):
            return citations.options["exclusion_family"]
        raise KeyError(how)

    def searcher_by_label(self, label: str) -> Searcher | None:
        """The searched source whose label is ``label``, or None."""
        return next((s for s in self.searchers.values() if s.label == label), None)


def protocol_of(corpus: Corpus, environ: dict | None = None) -> Protocol:
    """The protocol of ``corpus``, endpoints redirected by the environment (``environ``, default
    ``os.environ``).

    Raises:
        UserError: when the survey has no ``corpus/protocol.yaml``, or with every problem of it.
    """
    if corpus.protocol is None:
        raise UserError(f"no search protocol in {PROTOCOL} (the file is absent, or a placeholder of comments only): "
                        "update rounds search the protocol's query families; write them there "
                        "(the manual's reference, 'Search protocol and update rounds', lists every key)")
    problems = check_protocol(corpus)
    if problems:
        raise UserError(summary(problems, "nothing was searched (fix the protocol first)."), problems)
    env = os.environ if environ is None else environ
    data = corpus.protocol
    searchers = {name: Searcher(name, spec["label"], env.get(spec["endpoint_env"]) or spec["endpoint"], spec["endpoint_env"],
                                spec["exclusion_source"], spec.get("scope", ""), bool(env.get(spec["endpoint_env"])),
                                {k: v for k, v in spec.items() if k in SEARCHER_OPTIONS})
                 for name, spec in data["searchers"].items()}
    families = tuple(Family(f["name"], tuple(f["terms"]), f["exclusion_family"], tuple(tuple(g) for g in f["all_of"]),
                            dict(f["queries"])) for f in data["query_families"])
    return Protocol(families, searchers, content_digest(data))
