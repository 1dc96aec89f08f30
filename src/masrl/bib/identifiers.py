"""One identifier model: every written form of a paper's id -> one canonical id.

A paper is named by identifiers of a few schemes. Each scheme has many written
forms (bare ids, prefixes, resolver and landing-page URLs, DOIs that wrap
another scheme). :func:`parse` reads any of them into an :class:`Identifier`
holding the *stored form* (what a record file keeps) and the *canonical id*
(what duplicate detection compares). This module is the only home of the
identifier patterns; the schema, ``masrl add``, ``masrl exclude``,
``masrl validate``, the BibTeX import and the audit all use it.

Schemes and their forms (sources: arXiv identifier scheme,
https://info.arxiv.org/help/arxiv_identifier.html; arXiv DOIs
10.48550/arXiv.<id>, https://info.arxiv.org/help/doi.html; DOI Handbook 2.4
(DOIs are case-insensitive) and RFC 3986 percent-encoding; OpenReview note ids
in ``id=`` query parameters; ACL Anthology ids,
https://aclanthology.org/info/ids/, whose DOIs are 10.18653/v1/<id>):

========== ========================================= =========================================
scheme     accepted forms                            canonical id (``Identifier.key``)
========== ========================================= =========================================
arxiv      2505.19591, 2505.19591v2, arXiv:…,        ``arxiv:2505.19591`` (no version);
           cs/0506042, math.GT/0309136v1,            old style ``arxiv:cs/0506042``
           arxiv.org/{abs,pdf,html,format}/…,        (archive lower case, subject
           export.arxiv.org/…, 10.48550/arXiv.…      class dropped)
doi        10.1145/X, doi:…, https://doi.org/…,      ``doi:10.1145/x`` (lower case,
           dx.doi.org, %2F-encoded                   percent-decoded)
openreview forum?id=X, pdf?id=X (any other query     ``openreview:X`` (case kept: ids
           parameters, any order), openreview:X      are case-sensitive)
acl        2025.acl-long.476, P19-1001, URLs of      ``acl:2025.acl-long.476``,
           aclanthology.org / aclweb.org/anthology,  ``acl:P19-1001``
           10.18653/v1/<id> (stored as a DOI, also
           matched as the ACL id)
github     owner/name                                ``github:owner/name`` (lower case)
label      a screening label                         ``label:…`` (lower case)
url        any other http(s) URL                     scheme, ``www.``, fragment and a
                                                     trailing slash dropped, lower case
========== ========================================= =========================================

Nothing is looked up or guessed: only what the text itself says is read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qs, unquote, urlsplit

#: Order of identifier schemes inside a record's ``identifiers`` mapping.
SCHEME_ORDER = ("arxiv", "openreview", "doi", "acl", "github", "label", "url")

# arXiv's identifier scheme (https://info.arxiv.org/help/arxiv_identifier.html): YYMM.NNNN from April
# 2007 (0704) to December 2014, YYMM.NNNNN from January 2015 (1501), months 01-12, the number from 1
# (0000 and 00000 were never given); before April 2007 archive(.subject)/YYMMNNN, from August 1991
# (9108) to March 2007 (0703), the number from 001. A new-style id dated after the latest month an id
# can name today (the next only on a month's last day) is not one yet (:func:`arxiv_problem`: the
# pattern alone cannot know today).
_MONTH = r"(?:0[1-9]|1[0-2])"
_ARXIV_NEW = (rf"(?:(?:07(?:0[4-9]|1[0-2])|(?:0[89]|1[0-4]){_MONTH})\.(?!0000)[0-9]{{4}}"
              rf"|(?:1[5-9]|[2-9][0-9]){_MONTH}\.(?!00000)[0-9]{{5}})")
_ARXIV_OLD_ARCHIVES = (
    "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an", "chao-dyn", "chem-ph",
    "cmp-lg", "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an", "gr-qc", "hep-ex", "hep-lat", "hep-ph",
    "hep-th", "math", "math-ph", "mtrl-th", "nlin", "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph",
    "q-alg", "q-bio", "quant-ph", "solv-int", "supr-con",
)
#: The subject classes an old-style id may name after its archive (``math.GT/0309136``): two upper-case
#: letters, in the archives that had them (arXiv's identifier help and category taxonomy); the other
#: archives are each one subject, or keep their classes in the metadata only.
_ARXIV_OLD_CLASSES = {
    "cs": ("AI AR CC CE CG CL CR CV CY DB DC DL DM DS ET FL GL GR GT HC IR IT LG LO MA MM MS NA NE NI OH OS PF PL RO SC SD "
           "SE SI SY").split(),
    "math": "AC AG AP AT CA CO CT CV DG DS FA GM GN GR GT HO IT KT LO MG MP NA NT OA OC PR QA RA RT SG SP ST".split(),
    "nlin": "AO CD CG PS SI".split(),
    "q-bio": "BM CB GN MN NC OT PE QM SC TO".split(),
}
_ARXIV_OLD = (r"(?:" + "|".join(re.escape(a) for a in _ARXIV_OLD_ARCHIVES) + r")(?:\.[A-Za-z]{2})?/"
              rf"(?:91(?:0[89]|1[0-2])|9[2-9]{_MONTH}|0[0-6]{_MONTH}|070[1-3])(?!000)[0-9]{{3}}")
_VERSION = r"(?:v[1-9][0-9]*)?"
_ACL_NEW = r"[0-9]{4}\.[a-z0-9-]+\.[0-9]+"
_ACL_OLD = r"[A-Z][0-9]{2}-[0-9]{4}"

#: Stored form of each scheme in a record file (``identifiers.<scheme>``); the
#: JSON Schema of records uses these patterns.
STORED_PATTERNS = {
    "arxiv": rf"^(?:{_ARXIV_NEW}|{_ARXIV_OLD}){_VERSION}$",
    "openreview": r"^[A-Za-z0-9_-]{6,20}$",
    "doi": r"^10\.[0-9]{4,9}/\S+$",
    "acl": rf"^(?:{_ACL_NEW}|{_ACL_OLD})$",
    "github": r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$",
    "label": r"^[A-Z0-9][A-Z0-9-]*$",
    "url": r"^https?://\S+$",
}

#: What each scheme accepts, for error messages.
ACCEPTED = {
    "arxiv": "an arXiv id such as 2505.19591, 2505.19591v2, arXiv:2505.19591, cs/0506042, an arxiv.org "
             "abs/pdf/html URL or the DOI 10.48550/arXiv.<id>",
    "doi": "a DOI 10.<registrant>/<suffix>, doi:10…, or a https://doi.org/ URL",
    "openreview": "an OpenReview id such as ur295YVtmt or an openreview.net forum/pdf URL with id=",
    "acl": "an ACL Anthology id such as 2025.acl-long.476 or P19-1001, its aclanthology.org URL or its DOI 10.18653/v1/<id>",
    "github": "owner/name of a GitHub repository",
    "label": "an upper-case screening label such as CLAUDE-DOCS",
    "url": "an http(s) URL",
}

_ARXIV_ID = re.compile(rf"(?P<id>{_ARXIV_NEW}|{_ARXIV_OLD})(?P<v>{_VERSION})", re.IGNORECASE)
_ARXIV_HOSTS = {"arxiv.org", "www.arxiv.org", "export.arxiv.org", "xxx.lanl.gov"}
_ARXIV_PATH = re.compile(rf"^/(?:abs|pdf|html|format|ps|src|shortabs|versions)/(?P<rest>.+?)(?:\.pdf)?/?$", re.IGNORECASE)
_DOI_HOSTS = {"doi.org", "dx.doi.org", "www.doi.org", "hdl.handle.net"}
_DOI = re.compile(r"^10\.[0-9]{4,9}/\S+$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(?P<rest>.+)$", re.IGNORECASE)
_ACL_DOI = re.compile(rf"^10\.18653/v1/(?P<id>{_ACL_NEW}|{_ACL_OLD})$", re.IGNORECASE)
_ACL_HOSTS = {"aclanthology.org", "www.aclanthology.org", "aclweb.org", "www.aclweb.org"}
_ACL_PATH = re.compile(rf"^/(?:anthology/)?(?P<id>{_ACL_NEW}|{_ACL_OLD})(?:v[0-9]+)?(?:\.pdf|\.bib|\.xml)?/?$",
                       re.IGNORECASE)  # 2024.acl-long.5v2.pdf: a revision of the paper 2024.acl-long.5
_OPENREVIEW_HOSTS = {"openreview.net", "www.openreview.net"}
_OPENREVIEW_ID = re.compile(r"^[A-Za-z0-9_-]{6,20}$")


class IdentifierError(ValueError):
    """A text that is not any accepted form of the scheme asked for; the message
    names the text and the accepted forms."""


class SchemeError(IdentifierError):
    """An identifier written ``scheme:value`` whose scheme is not one masrl reads (or is not in lower
    case); the message is the whole answer."""


def scheme_and_value(text: str) -> tuple[str, str]:
    """The scheme and the value of an identifier written ``scheme:value``, as a round's queue holds
    it (``arxiv:2605.08686``, ``doi:10.1145/...``).

    Raises:
        SchemeError: no scheme, a URL (``https://...``), a scheme in capitals (``DOI:10...``) or a
            scheme masrl does not read (``isbn:...``), each named with what to write instead.
    """
    scheme, sep, value = text.partition(":")
    if not sep or not scheme or not value:
        raise SchemeError(f"{text!r} is not written scheme:value (arxiv:2605.08686, doi:10.1145/...)")
    if scheme.lower() in ("http", "https"):
        try:
            ident = parse(text)
        except IdentifierError:
            ident = None
        instead = f"{ident.key}" if ident is not None and ident.scheme != "url" else f"url:{text}"
        raise SchemeError(f"{text!r} is a URL, not scheme:value; write {instead}")
    if scheme not in ACCEPTED:
        if scheme.lower() in ACCEPTED:
            raise SchemeError(f"{text!r}: a scheme is written in lower case, {scheme.lower()}:{value}")
        raise SchemeError(f"{text!r}: masrl reads no identifier of the scheme {scheme!r}; the schemes are "
                          f"{', '.join(ACCEPTED)}")
    return scheme, value


@dataclass(frozen=True)
class Identifier:
    """One identifier of a paper.

    Attributes:
        scheme: one of :data:`SCHEME_ORDER`.
        value: the stored form (``2505.19591v2``, ``10.1145/3605764.3623985``,
            ``P19-1001``, a URL), as a record file keeps it.
    """

    scheme: str
    value: str

    @property
    def key(self) -> str:
        """The canonical id, ``scheme:normalized`` (see the module table)."""
        return canonical_key(self.scheme, self.value)

    def keys(self) -> tuple[str, ...]:
        """Every canonical id this identifier stands for: its own, plus the ACL
        id an ACL Anthology DOI names (``doi:10.18653/v1/p19-1001`` and ``acl:P19-1001``)."""
        own = self.key
        if self.scheme == "doi":
            match = _ACL_DOI.match(self.value)
            if match:
                return own, canonical_key("acl", match.group("id"))
        return (own,)


def _next_month() -> str:
    """``YYMM`` of the latest month an arXiv id can name today (:mod:`masrl.core.clock`): this month, or on
    its last day the next (arXiv numbers by its own time zone, US Eastern, which may be a day ahead of
    the day here)."""
    import datetime

    from ..core import clock

    today = clock.today()
    if (today + datetime.timedelta(days=1)).month == today.month:
        year, month = today.year, today.month
    else:
        year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    if year > 2099:  # the scheme's two-digit year ends with 2099: every YYMM it can write is past
        return "9912"
    return f"{year % 100:02d}{month:02d}"


_LOOKS_NEW = re.compile(r"(?P<yymm>[0-9]{4})\.(?P<num>[0-9]+)(?:v[0-9]+)?", re.IGNORECASE)
_LOOKS_OLD = re.compile(r"(?P<archive>[a-z-]+)(?P<sub>\.[a-z]{2})?/(?P<yymm>[0-9]{4})(?P<num>[0-9]+)(?:v[0-9]+)?", re.IGNORECASE)


#: arXiv's category taxonomy (https://arxiv.org/category_taxonomy): each archive's subject classes.
_ARXIV_SUBJECT_CLASSES = {
    "astro-ph": "CO EP GA HE IM SR".split(),
    "cond-mat": "dis-nn mes-hall mtrl-sci other quant-gas soft stat-mech str-el supr-con".split(),
    "cs": _ARXIV_OLD_CLASSES["cs"],
    "econ": "EM GN TH".split(),
    "eess": "AS IV SP SY".split(),
    "math": _ARXIV_OLD_CLASSES["math"],
    "nlin": _ARXIV_OLD_CLASSES["nlin"],
    "physics": ("acc-ph ao-ph app-ph atm-clus atom-ph bio-ph chem-ph class-ph comp-ph data-an ed-ph flu-dyn gen-ph geo-ph "
                "hist-ph ins-det med-ph optics plasm-ph pop-ph soc-ph space-ph").split(),
    "q-bio": _ARXIV_OLD_CLASSES["q-bio"],
    "q-fin": "CP EC GN MF PM PR RM ST TR".split(),
    "stat": "AP CO ME ML OT TH".split(),
}
#: The primary categories arXiv gives a paper (``arxiv:primary_category``, kept as BibTeX's
#: ``primaryclass``): ``archive.CLASS`` of :data:`_ARXIV_SUBJECT_CLASSES`, or an archive that is one
#: category (``hep-th``, ``quant-ph``), including the archives of old-style ids that older papers
#: keep as their category (``astro-ph``, ``cmp-lg``).
ARXIV_CATEGORIES = frozenset(
    [f"{archive}.{cls}" for archive, classes in _ARXIV_SUBJECT_CLASSES.items() for cls in classes]
    + [a for a in _ARXIV_OLD_ARCHIVES if a not in ("cs", "math", "nlin", "q-bio")])


def arxiv_category_problem(text: str) -> str | None:
    """Why ``text`` is no arXiv category (:data:`ARXIV_CATEGORIES`), or None."""
    if text in ARXIV_CATEGORIES:
        return None
    from ..core.didyoumean import hint_or_list

    archive = text.partition(".")[0]
    if archive in _ARXIV_SUBJECT_CLASSES:
        return f"{text[:40]!r} is not an arXiv category" + hint_or_list(
            text, [f"{archive}.{c}" for c in _ARXIV_SUBJECT_CLASSES[archive]], f"{archive}'s categories")
    return (f"{text[:40]!r} is not an arXiv category (arXiv's category taxonomy: an archive and its subject class, such "
            "as cs.CL, hep-th or math.AG)")


def arxiv_problem(text: str) -> str | None:
    """Why ``text`` (an arXiv id, version optional) is no id arXiv gives, or None: a month that is not
    one, a number of the wrong length for its month or zero, a new-style id before April 2007 or dated
    after the latest month an id can name today, an old-style id outside August 1991 to March 2007 or of an unknown archive."""
    text = text.strip()
    new = _LOOKS_NEW.fullmatch(text)
    if new:
        yymm, num = new.group("yymm"), new.group("num")
        if not 1 <= int(yymm[2:]) <= 12:
            return f"{yymm[2:]} is not a month (YYMM is the year and month the paper was submitted)"
        if yymm < "0704":
            return ("ids written YYMM.NNNN began in April 2007 (0704); an earlier paper's id is archive/YYMMNNN, "
                    "such as cs/0506042")
        latest = _next_month()
        if yymm > latest:  # before the number's length: 9107.0001 is no 4-digit id of 2091 (1991's ids are old-style)
            return f"{yymm} is 20{yymm[:2]}-{yymm[2:]}, after {latest[2:]}/20{latest[:2]}, the latest month an id can name today: no such id exists yet"
        digits = 4 if yymm < "1501" else 5
        if len(num) != digits:
            return (f"ids of {yymm[:2]}{yymm[2:]} (20{yymm[:2]}-{yymm[2:]}) have a {digits}-digit number "
                    f"(YYMM.{'N' * digits}: 4 digits from 0704 to 1412, 5 from 1501)")
        if int(num) == 0:
            return f"no arXiv id has the number {num} (numbers start at {'0' * (digits - 1)}1)"
        return None
    old = _LOOKS_OLD.fullmatch(text)
    if old:
        archive, yymm, num = old.group("archive").lower(), old.group("yymm"), old.group("num")
        if archive not in _ARXIV_OLD_ARCHIVES:
            return f"{archive!r} is not an arXiv archive of old-style ids ({', '.join(_ARXIV_OLD_ARCHIVES)})"
        sub = (old.group("sub") or "")[1:].upper()
        if sub and sub not in _ARXIV_OLD_CLASSES.get(archive, ()):
            classes = _ARXIV_OLD_CLASSES.get(archive)
            return (f"{archive}.{sub} is no subject class of an old-style id: {archive}'s are "
                    f"{', '.join(classes)}" if classes else
                    f"{archive!r} ids name no subject class (write {archive}/YYMMNNN); only "
                    f"{', '.join(_ARXIV_OLD_CLASSES)} ids may (such as math.GT/0309136)")
        if not 1 <= int(yymm[2:]) <= 12:
            return f"{yymm[2:]} is not a month (YYMM is the year and month the paper was submitted)"
        if "0703" < yymm < "9108":
            return "old-style ids (archive/YYMMNNN) run from August 1991 (9108) to March 2007 (0703); later ids are YYMM.NNNNN"
        if len(num) != 3:
            return "an old-style id has a 3-digit number (archive/YYMMNNN)"
        if int(num) == 0:
            return "no arXiv id has the number 000 (numbers start at 001)"
        return None
    return _ARXIV_FORMS


def acl_problem(text: str) -> str | None:
    """Why ``text`` (an ACL Anthology id) is no id the Anthology gives, or None: a new-style id
    (``2025.acl-long.476``, from 2020; ``2025.acl-long.0`` is the volume's front matter) with a leading zero, or of a
    year before 2020 or after next year; an old-style id
    (``P19-1001``, a letter and the year's last two digits, until 2019) of a year from 2020 on."""
    from ..core import clock

    new = re.fullmatch(r"([0-9]{4})\.[a-z0-9-]+\.([0-9]+)", text, re.IGNORECASE)
    latest = clock.today().year + 1
    if new and new.group(2).startswith("0") and new.group(2) != "0":  # .0 is a volume's front matter
        return (f"{new.group(2)} is no paper number of the Anthology: it numbers a volume's front matter 0 and its "
                "papers from 1, without leading zeros"
                + (f" ({text.rsplit('.', 1)[0]}.{int(new.group(2))})" if int(new.group(2)) else ""))
    if new and not 2020 <= int(new.group(1)) <= latest:
        return (f"{new.group(1)} is not a year of the Anthology's ids written YYYY.venue.N (2020 to {latest}; "
                "earlier papers' ids are a letter, the year's two digits and a number, such as P19-1001)")
    old = re.fullmatch(r"[A-Z]([0-9]{2})-[0-9]{4}", text, re.IGNORECASE)
    if old and 20 <= int(old.group(1)) <= 64:
        return (f"ids written like {text[:1].upper()}{old.group(1)}-NNNN end in 2019; a paper of 20{old.group(1)} "
                "has an id such as 2025.acl-long.476")
    return None


_ARXIV_FORMS = ("not an arXiv id: YYMM.NNNNN (from 2015), YYMM.NNNN (April 2007 to 2014) or archive/YYMMNNN "
                "(before April 2007, such as cs/0506042), with an optional version vN")


def _arxiv_value(text: str) -> str | None:
    """Stored arXiv id of ``text`` (an id with optional version) that arXiv can have given by now, or None."""
    match = _ARXIV_ID.fullmatch(text.strip())
    if not match:
        return None
    ident = match.group("id")
    if "/" not in ident and ident[:4] > _next_month():
        return None
    if "/" in ident and arxiv_problem(ident):  # a subject class its archive never had
        return None
    if "/" in ident:
        archive, number = ident.split("/", 1)
        ident = archive.split(".")[0].lower() + ("." + archive.split(".")[1].upper() if "." in archive else "") + "/" + number
    return ident + match.group("v").lower()


def looks_like_arxiv(text: str) -> bool:
    """Whether ``text`` has the form of an arXiv id (``YYMM.NNNNN``, ``archive/YYMMNNN``, version
    optional), whether or not arXiv gave or could give it (:func:`arxiv_problem` says)."""
    text = text.strip()
    return _LOOKS_NEW.fullmatch(text) is not None or (_LOOKS_OLD.fullmatch(text) is not None and _ARXIV_ID.fullmatch(text) is not None)


def canonical_key(scheme: str, value: str) -> str:
    """The canonical id of a stored value: ``canonical_key("arxiv", "2505.19591v2")`` is
    ``"arxiv:2505.19591"``; values that are not in stored form are compared as written
    (lower case). Remembered per value and day (an arXiv id of next month is one only from this
    month's last day): every command computes the pool's ids again."""
    from ..core import clock

    return _remembered_key(scheme, value, os.environ.get(clock.VARIABLE, "").strip() or _utc_day())


def _utc_day() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).date().isoformat()


@lru_cache(maxsize=65536)
def _remembered_key(scheme: str, value: str, day: str) -> str:  # noqa: ARG001 - the day is part of the key only
    return _canonical_key(scheme, value)


def _canonical_key(scheme: str, value: str) -> str:
    value = value.strip()
    if scheme == "arxiv":
        stored = _arxiv_value(value)
        if stored:
            ident = re.sub(r"v[0-9]+$", "", stored)
            if "/" in ident:
                archive, number = ident.split("/", 1)
                ident = archive.split(".")[0] + "/" + number
            return "arxiv:" + ident
        return "arxiv:" + value.lower()
    if scheme == "openreview":
        return "openreview:" + value
    if scheme == "acl":
        if re.fullmatch(_ACL_OLD, value, re.IGNORECASE):
            return "acl:" + value.upper()
        return "acl:" + value.lower()
    if scheme == "doi":
        return "doi:" + unquote(value).lower()
    if scheme == "url":
        value = re.sub(r"^https?://(www\.)?", "", value.split("#", 1)[0], flags=re.IGNORECASE)
        return "url:" + value.rstrip("/").lower()
    return f"{scheme}:{value.lower()}"


def from_url(url: str) -> Identifier:
    """The identifier a URL names: an arXiv, DOI, OpenReview or ACL Anthology page
    becomes that id (a DOI of arXiv becomes the arXiv id); any other http(s) URL is
    ``Identifier("url", url)``.

    Raises:
        IdentifierError: if ``url`` is not an http(s) URL.
    """
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise IdentifierError(f"{url!r} is not an http(s) URL")
    host = parts.netloc.lower().split(":")[0]
    path = unquote(parts.path)
    if host in _ARXIV_HOSTS:
        match = _ARXIV_PATH.match(path)
        if match:
            value = _arxiv_value(match.group("rest"))
            if value:
                return Identifier("arxiv", value)
            rest = match.group("rest")
            why = arxiv_problem(rest) if _LOOKS_NEW.fullmatch(rest) or _LOOKS_OLD.fullmatch(rest) else None
            # a paper's page whose id arXiv never gives (2508.03680v0, ...x): a paper mistyped, not a web page
            raise IdentifierError(f"{url!r} names no arXiv paper: {why or f'{rest!r} is {_ARXIV_FORMS}'}")
        if _ARXIV_PATH.match(path + "x"):  # /abs/ with no id
            raise IdentifierError(f"{url!r} names no arXiv paper: it gives no id")
    if host in _DOI_HOSTS and path.startswith("/10."):
        return _doi(path[1:].rstrip("/"))  # doi.org/10.1145/x/ is 10.1145/x (a DOI never ends in "/")
    if host in _OPENREVIEW_HOSTS and path.rstrip("/") in ("/forum", "/pdf", "/attachment", "/revisions"):
        ids = parse_qs(parts.query, keep_blank_values=True).get("id") or []
        if len(ids) == 1 and _OPENREVIEW_ID.match(ids[0]):
            return Identifier("openreview", ids[0])
        said = "no id=" if not ids else f"id={ids[0]!r}, not an OpenReview id" if len(ids) == 1 else "two id= parameters"
        raise IdentifierError(f"{url!r} names no OpenReview paper: it gives {said} ({ACCEPTED['openreview']})")
    if host in _ACL_HOSTS:
        match = _ACL_PATH.match(path)
        if match:
            if why := acl_problem(match.group("id")) or (re.search(r"v0+(?:\.[a-z]+)?/?$", path, re.IGNORECASE)
                                                        and "its versions are numbered from 1 (v1)"):
                raise IdentifierError(f"{url!r} names no ACL Anthology paper: {why}")
            return Identifier("acl", _acl_value(match.group("id")))
    return Identifier("url", url)


def _acl_value(text: str) -> str:
    return text.upper() if re.fullmatch(_ACL_OLD, text, re.IGNORECASE) else text.lower()


def _doi(text: str) -> Identifier:
    """A bare DOI (percent-decoded); the arXiv DOI becomes the arXiv id."""
    doi = unquote(text.strip()).rstrip("/")  # a DOI never ends in "/": 10.5555/k.1/ is 10.5555/k.1
    arxiv = _ARXIV_DOI.match(doi)
    if arxiv:
        value = _arxiv_value(arxiv.group("rest"))
        if value:
            return Identifier("arxiv", value)
        raise IdentifierError(f"{text!r} is an arXiv DOI, but {arxiv.group('rest')!r} is not an arXiv id")
    if not _DOI.match(doi):
        raise IdentifierError(f"{text!r} is not a valid DOI: expected {ACCEPTED['doi']}")
    return Identifier("doi", doi)


def parse(text: str, scheme: str | None = None) -> Identifier:
    """Read one identifier in any accepted form.

    Args:
        text: what the user or a BibTeX field wrote.
        scheme: the scheme the text claims to be (``--arxiv``, ``--doi``, ...), or
            None to recognise it (bare arXiv id, DOI, ACL id, OpenReview id, URL).
            A form of another scheme is still read when it names one paper
            unambiguously: ``parse("10.48550/arXiv.2307.07924", "doi")`` is the
            arXiv id, a URL given as ``--arxiv`` must be an arXiv URL.

    Raises:
        IdentifierError: with the text and the accepted forms.
    """
    raw = text
    text = text.strip()
    if not text:
        raise IdentifierError("empty identifier")
    if re.match(r"^https?://", text, re.IGNORECASE):
        ident = from_url(text)
        if scheme in (None, "url") or ident.scheme == scheme or (scheme == "doi" and ident.scheme in ("arxiv", "acl")):
            return ident
        raise IdentifierError(f"{raw!r} is not a valid {_LABELS.get(scheme, scheme)}: expected {ACCEPTED.get(scheme, scheme)}")
    lowered = text.lower()
    if scheme in (None, "arxiv"):
        body = text[6:].strip() if lowered.startswith("arxiv:") else text
        value = _arxiv_value(body)
        if value:
            return Identifier("arxiv", value)
        if lowered.startswith("10.48550/"):
            return _doi(text)
        if scheme == "arxiv" or lowered.startswith("arxiv:") or _LOOKS_NEW.fullmatch(body) or _LOOKS_OLD.fullmatch(body):
            why = arxiv_problem(body)
            if why and why != _ARXIV_FORMS:
                raise IdentifierError(f"{raw!r} is not an arXiv id: {why}")
    if scheme in (None, "doi"):
        body = text[4:].strip() if lowered.startswith("doi:") else text
        if body.startswith("10."):
            return _doi(body)
    if scheme in (None, "acl"):
        body = text[4:] if lowered.startswith("acl:") else text
        if versioned := re.fullmatch(rf"({_ACL_NEW}|{_ACL_OLD})v([0-9]+)", body, re.IGNORECASE):  # P19-1001v2: a version
            if int(versioned.group(2)) == 0:
                raise IdentifierError(f"{raw!r} is not an ACL Anthology id: its versions are numbered from 1 (v1)")
            body = versioned.group(1)
        if re.fullmatch(rf"{_ACL_NEW}|{_ACL_OLD}", body, re.IGNORECASE):
            if why := acl_problem(body):
                raise IdentifierError(f"{raw!r} is not an ACL Anthology id: {why}")
            return Identifier("acl", _acl_value(body))
        if scheme == "acl" and _ACL_DOI.match(body):
            if why := acl_problem(_ACL_DOI.match(body).group("id")):
                raise IdentifierError(f"{raw!r} is not an ACL Anthology id: {why}")
            return Identifier("acl", _acl_value(_ACL_DOI.match(body).group("id")))
    if scheme in (None, "openreview"):
        body = text[11:] if lowered.startswith("openreview:") else text
        if _OPENREVIEW_ID.match(body) and (scheme == "openreview" or lowered.startswith("openreview:") or _looks_like_openreview(body)):
            return Identifier("openreview", body)
    if scheme in ("github", "label") and re.match(STORED_PATTERNS[scheme], text):
        return Identifier(scheme, text)
    if scheme is None:
        raise IdentifierError(f"{raw!r} is not an identifier masrl can read: give {ACCEPTED['arxiv']}; "
                              f"{ACCEPTED['doi']}; {ACCEPTED['openreview']}; {ACCEPTED['acl']}; or a URL")
    raise IdentifierError(f"{raw!r} is not a valid {_LABELS.get(scheme, scheme)}: expected {ACCEPTED.get(scheme, scheme)}")


def _looks_like_openreview(body: str) -> bool:
    """A bare token is taken as an OpenReview id only if it mixes letters and digits or cases
    (OpenReview ids are random: ``ur295YVtmt``), so plain words are not mistaken for ids."""
    has_digit = any(c.isdigit() for c in body)
    has_upper = any(c.isupper() for c in body)
    has_lower = any(c.islower() for c in body)
    return 8 <= len(body) <= 14 and has_lower and (has_digit or has_upper)


_LABELS = {"arxiv": "arXiv identifier", "doi": "DOI", "openreview": "OpenReview id", "acl": "ACL Anthology id",
           "github": "GitHub repository", "label": "screening label", "url": "URL"}


def doi_in_url(url: str) -> str | None:
    """A DOI written in a publisher URL path (``…/doi/10.1287/moor.27.4.819.297``), else None."""
    match = re.search(r"/doi/(?:abs/|full/|pdf/|epdf/)?(10\.[0-9]{4,9}/[^\s?#]+)", url)
    return unquote(match.group(1)) if match else None


def stored_hint(scheme: str, value: str) -> str | None:
    """For a record value that is not in stored form, the stored form to write instead
    (``"arXiv:2505.19591"`` -> ``"2505.19591"``), else None."""
    try:
        ident = parse(value, scheme)
    except IdentifierError:
        return None
    if ident.value == value:
        return None
    return f"{ident.scheme}: {ident.value!r}"


def record_identifiers(identifiers: dict | None) -> list[Identifier]:
    """Every identifier of a record's ``identifiers`` mapping (URL lists flattened), as stored."""
    out: list[Identifier] = []
    for scheme, value in (identifiers or {}).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip():
                out.append(Identifier(scheme, item.strip()))
    return out


def keys_of(identifiers: dict | None) -> set[str]:
    """The canonical ids of a record's ``identifiers`` mapping."""
    return {key for ident in record_identifiers(identifiers) for key in ident.keys()}


def as_mapping(idents: list[Identifier]) -> dict:
    """``identifiers`` mapping of a list of identifiers, in :data:`SCHEME_ORDER`: the first
    value of each scheme, every URL (a second, different value of a scheme is dropped by
    the caller's choice; see :func:`conflicts`)."""
    out: dict = {}
    seen: set[str] = set()
    for ident in idents:
        if ident.key in seen:
            continue
        seen.add(ident.key)
        if ident.scheme == "url":
            out.setdefault("url", []).append(ident.value)
        else:
            out.setdefault(ident.scheme, ident.value)
    return {k: out[k] for k in SCHEME_ORDER if k in out}


def conflicts(idents: list[Identifier]) -> list[tuple[str, str, str]]:
    """``(scheme, first, other)`` for every scheme given two different canonical ids
    (a BibTeX entry whose ``eprint`` and ``url`` name different arXiv papers), an ACL Anthology
    DOI (``10.18653/v1/<id>``) counting as the ACL id it names."""
    first: dict[str, Identifier] = {}
    out = []
    for ident in idents:
        if ident.scheme == "url":
            continue
        if ident.scheme in first and first[ident.scheme].key != ident.key:
            out.append((ident.scheme, first[ident.scheme].value, ident.value))
        first.setdefault(ident.scheme, ident)
    # an ACL Anthology DOI names its paper's ACL id (10.18653/v1/<id>): another ACL id beside it is another paper
    named = {ident.keys()[1]: ident for ident in idents if ident.scheme == "doi" and len(ident.keys()) > 1}
    acl = first.get("acl")
    for key, doi in named.items():
        if acl is not None and acl.key != key:
            out.append(("acl", f"{key.split(':', 1)[1]} (DOI {doi.value})", acl.value))
    return out
