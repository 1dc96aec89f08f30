"""What masrl accepts as a link: an absolute http(s) URL that cannot break out of Markdown or HTML.

One rule for the validator (a record's ``url`` and ``identifiers.url``) and
for every renderer (README list, Markdown reports, ``papers.html``): a link is
written only when :func:`url_problem` finds nothing wrong.

Accepted: ``http://`` or ``https://``, a host name (letters, digits, ``-``,
``.``), an IPv4 address or a bracketed IPv6 address, an optional port, then
only the characters RFC 3986 allows outside the host (unreserved, sub-delims,
``: / ? # @`` and ``%XX`` escapes), with parentheses balanced. Refused, with
the character named: spaces and control characters, non-ASCII characters
(percent-encode them), and ``< > " \\ ` { } | ^ [ ]`` outside an IPv6 host,
which would end a Markdown link or an HTML attribute or start a tag.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

_PATH_CHARS = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%]")
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _char(ch: str) -> str:
    return f"{ch!r} (U+{ord(ch):04X})"


def host_problem(host: str) -> str | None:
    """Why ``host`` (a URL's host: a name, an IPv4 address or ``[IPv6]``) is none, or None."""
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"{host!r} is not an IPv6 address"
        return None
    if not host:
        return "has no host name"
    if re.fullmatch(r"[0-9.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return f"{host!r} is not an IPv4 address"
        return None
    labels = host.rstrip(".").split(".")
    if not all(_HOST_LABEL.fullmatch(label) for label in labels):
        return f"{host!r} is not a host name (letters, digits, '-' and '.')"
    return None


def lower_schemes(text: str) -> str:
    """``text`` with every http(s) scheme in lower case (``HTTPS://`` -> ``https://``)."""
    return re.sub(r"(?i)(?<![A-Za-z])https?://", lambda m: m.group(0).lower(), text)


def scheme_case_problem(text: str) -> str | None:
    """For text whose URLs have an http(s) scheme not in lower case (``HTTPS://...``): what to
    write instead; else None."""
    lowered = lower_schemes(text)
    if lowered == text:
        return None
    return f"has its scheme in upper case: a record writes it in lower case (its normal form, RFC 3986): write {lowered!r}"


def _part_at(url: str, at: int, authority_end: int) -> str:
    """Which part of ``url`` its character ``at`` (counted after ``scheme://``) is in: a message that shows the
    URL cut before its query (which may hold a token) still says where the character is."""
    rest = url[len(url) - len(url.split("://", 1)[-1]):]
    if at < authority_end:
        return "host"
    fragment = rest.find("#")
    query = rest.find("?")
    if fragment >= 0 and at > fragment:
        return "fragment"
    if query >= 0 and at > query and (fragment < 0 or query < fragment):
        return "query"
    return "path"


def url_problem(url: object) -> str | None:
    """What is wrong with ``url`` as a link, or None if it is an acceptable http(s) URL.

    The message names the first bad part, e.g. ``contains '<' (U+003C), which
    is not allowed in a URL; percent-encode it (%3C)``.
    """
    if not isinstance(url, str):
        return "is not a string"
    match = re.match(r"(?i)(https?)://", url)
    if not match:
        return "is not an http(s) URL (it must start with http:// or https://)"
    rest = url[match.end():]
    authority_end = len(rest)
    for sep in "/?#":
        pos = rest.find(sep)
        if pos >= 0:
            authority_end = min(authority_end, pos)
    authority, tail = rest[:authority_end], rest[authority_end:]
    for at, ch in enumerate(url):
        if ch in "[]" and ch in authority:
            continue
        if not _PATH_CHARS.fullmatch(ch):
            kind = "a space or control character" if ch.isspace() or ord(ch) < 32 or ord(ch) == 127 else (
                "a non-ASCII character" if ord(ch) > 127 else "a character that ends a Markdown link or an HTML attribute")
            encoded = "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
            where = _part_at(url, at - match.end(), authority_end)  # a URL is shown cut before its query: say where
            at_text = f" at character {at + 1} (in its {where})" if where in ("query", "fragment") else ""
            return f"contains {_char(ch)}{at_text}, {kind}; percent-encode it ({encoded})"
    if _PERCENT.search(url):
        return "has a '%' that does not start a %XX escape; write a literal '%' as %25"
    depth = 0
    for ch in tail:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            break
    if depth != 0:
        return "has unbalanced parentheses; percent-encode them (%28, %29)"
    if "@" in authority:
        return "names a user before the host ('user@host'); remove it"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as err:
        return f"is not a well-formed URL ({err})"
    host = parts.netloc.rsplit(":", 1)[0] if not parts.netloc.endswith("]") else parts.netloc
    return host_problem(host)


def http_link(url: object) -> str | None:
    """``url`` if it is an acceptable link (:func:`url_problem` finds nothing), else None."""
    return url if isinstance(url, str) and url_problem(url) is None else None
