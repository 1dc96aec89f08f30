"""Pure helpers about records: field order, identifiers, titles, keys.

A *retained record* is one file ``corpus/papers/<key>.yaml``; an *excluded
record* is one file ``exclusions/<record_id>.yaml``. Both are plain mappings
here; the vocabulary lives in ``corpus/taxonomy.yaml``.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

#: Field order of a retained record file (fields not listed keep their order after these).
RETAINED_ORDER = (
    "key", "title", "authors", "first_author", "affiliation", "year", "venue", "url", "identifiers",
    "category", "is_rl", "reward_type", "credit_granularity", "credit_mechanism", "orchestration_form",
    "scenario", "subdecisions", "is_core", "inclusion_criterion", "verified",
    "domain", "mas_native", "eval_measures", "eval_note", "deployment_envelope",
    "one_liner", "notes", "tag_provenance", "forced", "bibtex_key", "bibtex", "provenance",
)

#: Field order of an excluded record file.
EXCLUDED_ORDER = (
    "record_id", "screening_label", "identifiers", "url", "source", "query_family", "date_screened",
    "stage", "exclusion_reason", "reason_class", "if_retained", "former_key", "former_record", "former_file",
    "tag_provenance", "provenance",
)

#: Free-text fields of records, claims and audits (not vocabulary codes, identifiers or keys).
TEXT_FIELDS = frozenset({
    "title", "screening_label", "authors", "first_author", "affiliation", "venue", "one_liner", "notes",
    "eval_note", "exclusion_reason", "forced", "speedup", "statement", "evidence_boundary", "label",
    "description", "agreement_note", "annotator_note",
})

#: Order of identifier schemes inside a record's ``identifiers`` mapping.
SCHEME_ORDER = ("arxiv", "openreview", "doi", "acl", "github", "label", "url")

#: Placeholder that ``masrl add`` writes into every controlled field.
UNTAGGED = "untagged"

_ARXIV_VERSION = re.compile(r"v[0-9]+$")


def ordered(record: dict, order: tuple[str, ...]) -> dict:
    """Return ``record`` with its keys in ``order`` (unknown keys after, in their order)."""
    out = {k: record[k] for k in order if k in record}
    out.update((k, v) for k, v in record.items() if k not in out)
    return out


def normalize_identifier(scheme: str, value: str) -> str:
    """Canonical form of one identifier for duplicate detection.

    arXiv ids lose their version (``2505.19591v2`` -> ``2505.19591``); DOIs,
    ACL ids and labels are compared case-insensitively; URLs lose the scheme,
    ``www.``, a trailing slash and the fragment.
    """
    value = value.strip()
    if scheme == "arxiv":
        return _ARXIV_VERSION.sub("", value)
    if scheme in ("doi", "acl", "label", "github"):
        return value.lower()
    if scheme == "url":
        value = re.sub(r"^https?://(www\.)?", "", value.split("#", 1)[0])
        return value.rstrip("/").lower()
    return value


def identifier_pairs(identifiers: dict | None) -> list[tuple[str, str]]:
    """All ``(scheme, normalized value)`` pairs of an ``identifiers`` mapping (url lists flattened)."""
    pairs: list[tuple[str, str]] = []
    for scheme, value in (identifiers or {}).items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str) and item.strip():
                pairs.append((scheme, normalize_identifier(scheme, item)))
    return pairs


def normalize_title(title: str) -> str:
    """Title reduced for comparison: LaTeX braces and math dropped, accents folded,
    lower case, punctuation removed, whitespace collapsed."""
    text = re.sub(r"\\[a-zA-Z]+\s*", " ", title)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[^0-9a-z]+", " ", text.lower())
    return " ".join(text.split())


def title_similarity(a: str, b: str) -> float:
    """Similarity of two titles in [0, 1] (difflib ratio of their normalized forms).

    Pairs whose cheap upper bound (``real_quick_ratio``, from lengths only) is
    below 0.5 return that bound without the full comparison.
    """
    matcher = SequenceMatcher(None, normalize_title(a), normalize_title(b), autojunk=False)
    bound = matcher.real_quick_ratio()
    if bound < 0.5:
        return bound
    bound = matcher.quick_ratio()
    return bound if bound < 0.5 else matcher.ratio()


def classify_url(url: str) -> tuple[str, str]:
    """Split one URL into ``(scheme, id)``: an arXiv/OpenReview/DOI/ACL/GitHub landing
    page becomes that identifier; anything else is ``("url", url)``.

    Only identifiers written in the URL itself are read; nothing is looked up or guessed.
    """
    url = url.strip()
    patterns = (
        ("arxiv", r"^https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/([0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?)(?:\.pdf)?/?$"),
        ("openreview", r"^https?://openreview\.net/(?:forum|pdf)\?id=([A-Za-z0-9_-]+)$"),
        ("doi", r"^https?://(?:dx\.)?doi\.org/(10\.[0-9]{4,9}/\S+)$"),
        ("acl", r"^https?://aclanthology\.org/([0-9]{4}\.[a-z0-9-]+\.[0-9]+|[A-Z][0-9]{2}-[0-9]{4})(?:\.pdf)?/?$"),
    )
    for scheme, pattern in patterns:
        match = re.match(pattern, url)
        if match:
            return scheme, match.group(1)
    return "url", url


def doi_in_url(url: str) -> str | None:
    """A DOI written in a publisher URL path (``.../doi/10.1287/moor.27.4.819.297``), else None."""
    match = re.search(r"/doi/(?:abs/|full/|pdf/)?(10\.[0-9]{4,9}/[^\s?#]+)", url)
    return match.group(1) if match else None


def ascii_slug(text: str) -> str:
    """Lower-case ASCII letters and digits of ``text`` (accents folded): ``Müller`` -> ``muller``."""
    text = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z0-9]+", "", "".join(ch for ch in text if not unicodedata.combining(ch)).lower())


def make_key(first_author: str, year: int, taken: set[str]) -> str:
    """The record key scheme of ``masrl add``: ``<surname><year>``, then ``b``, ``c``, ... if taken.

    ``first_author`` is in BibTeX ``Last, First`` form (a name without a comma
    is used whole: ``Kimi Team`` -> ``kimiteam``). Example: ``Liu, Shuo`` and
    2025 give ``liu2025``, or ``liu2025b`` when ``liu2025`` exists, ... ``liu2025z``,
    then ``liu2025aa``.
    """
    surname = first_author.split(",", 1)[0] if "," in first_author else first_author
    base = (ascii_slug(surname) or "anon") + str(year)
    if base not in taken:
        return base
    letters = "abcdefghijklmnopqrstuvwxyz"
    suffixes = list(letters[1:]) + [a + b for a in letters for b in letters]
    for suffix in suffixes:
        if base + suffix not in taken:
            return base + suffix
    raise ValueError(f"no free key for {base} (more than 700 papers with this first author and year)")
