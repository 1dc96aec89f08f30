"""Is a paper already in the corpus? Matching by identifier, then by title.

Used by ``masrl add`` and ``masrl exclude`` before anything is written.
"""

from __future__ import annotations

from ..errors import UserError
from ..load import Corpus
from ..records import SCHEME_ORDER, classify_url, identifier_pairs, title_similarity

#: Titles at least this similar (normalized, difflib ratio) are the same paper.
TITLE_THRESHOLD = 0.9


def find_matches(identifiers: dict, title: str, corpus: Corpus, batch: list[dict] = ()) -> list[str]:
    """Human-readable reasons why this paper is already retained, excluded, or
    earlier in the same batch; empty when it is new.

    An identifier matches after normalisation (arXiv version dropped, DOI case
    folded, URL scheme and trailing slash ignored); a title matches when its
    similarity is at least :data:`TITLE_THRESHOLD`.
    """
    mine = set(identifier_pairs(identifiers))
    reasons = []
    pools = [("retained as", corpus.retained, "title"), ("excluded as", corpus.excluded, "screening_label")]
    for what, records, title_field in pools:
        for file, rec in sorted(records.items()):
            ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
            shared = sorted(mine & set(identifier_pairs(ids)))
            other_title = str(rec.get(title_field, ""))
            if shared:
                scheme, value = shared[0]
                reasons.append(f"already {what} {file} (same {scheme} {value}; its title: '{other_title}')")
                continue
            similarity = title_similarity(title, other_title) if other_title else 0.0
            if similarity >= TITLE_THRESHOLD:
                reasons.append(f"already {what} {file} (title {int(similarity * 100)}% similar: '{other_title}')")
    for other in batch:
        shared = sorted(mine & set(identifier_pairs(other["identifiers"])))
        if shared or title_similarity(title, other["title"]) >= TITLE_THRESHOLD:
            reasons.append(f"appears twice in this batch (also '{other['title']}')")
    return reasons


def identifiers_from_args(arxiv: str | None, openreview: str | None, doi: str | None, url: str | None) -> dict:
    """The ``identifiers`` mapping of a paper given on the command line; a URL that
    is an arXiv/OpenReview/DOI/ACL page becomes that identifier.

    Raises:
        UserError: if no identifier is given.
    """
    ids = {k: v.strip() for k, v in (("arxiv", arxiv), ("openreview", openreview), ("doi", doi)) if v and v.strip()}
    if url and url.strip():
        scheme, value = classify_url(url.strip())
        if scheme == "url":
            ids["url"] = [url.strip()]
        elif scheme in ids and ids[scheme] != value:
            raise UserError(f"--url is the page of {scheme} {value}, but --{scheme} says {ids[scheme]}: which paper is it?")
        else:
            ids[scheme] = value
    if not ids:
        raise UserError("the paper needs an identifier: --arxiv, --doi, --openreview or --url")
    return {k: ids[k] for k in SCHEME_ORDER if k in ids}
