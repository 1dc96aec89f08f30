"""One HTTP request to a public source, bounded in time, size and place: every network answer masrl
reads comes through :func:`fetch`.

What it guarantees, whatever the server does:

* **an overall deadline**: the whole request (connection, headers, body) ends within
  :attr:`Limits.deadline` seconds, or :class:`FetchError` says so; a server that trickles a byte
  every few seconds cannot hold the run (the socket's own timeout only bounds each read);
* **a size limit on both sides of the compression**: at most :attr:`Limits.max_wire` bytes are
  read from the connection and at most :attr:`Limits.max_body` bytes come out of the
  decompressor (``gzip`` or ``deflate``, the encodings masrl asks for); a small gzip bomb is
  stopped when its output passes the limit, never decompressed whole;
* **no move to another host**: redirects are not followed blindly; one to the same host (and port)
  is followed, at most :attr:`Limits.max_redirects` times; one to another host is refused by name,
  so that the answer always comes from the endpoint a round records;
* the URL is an ``http://`` or ``https://`` URL with a host (:func:`url_problem`), checked before
  anything is sent.

The transport is a ``requests.Session`` (tests mock it with ``responses`` or serve a local
server); the request runs in a worker thread so that the deadline holds even while the
connection is stuck in reading headers. Pure Python, standard library and ``requests``.
"""

from __future__ import annotations

import http.client
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from ..core.text import ascii_digits
from .urls import host_problem

#: What masrl accepts as an encoding of an answer (and says so in ``Accept-Encoding``).
ENCODINGS = ("gzip", "deflate", "identity")
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """The bounds of one request.

    Attributes:
        deadline: seconds for the whole request, body included.
        connect, read: seconds to connect, and between two reads of the socket.
        max_wire: bytes read from the connection (compressed, as sent).
        max_body: bytes of the answer once decompressed.
        max_redirects: redirects to the same host followed before the request is refused.
    """

    deadline: float = 60.0
    connect: float = 10.0
    read: float = 30.0
    max_wire: int = 16 * 1024 * 1024
    max_body: int = 32 * 1024 * 1024
    max_redirects: int = 3

    def settings(self) -> dict:
        """The limits as ``round.yaml`` records them."""
        return {"deadline_seconds": _number(self.deadline), "max_answer_bytes": self.max_body,
                "max_wire_bytes": self.max_wire}


def _number(value: float):
    return int(value) if float(value).is_integer() else str(value)


LIMITS = Limits()


@dataclass
class Answer:
    """A complete answer: the final URL, its status, headers (lower-case names) and body (decompressed)."""

    url: str
    status: int
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    #: the redirects followed to it (each one more HTTP request)
    redirects: int = 0

    @property
    def content_type(self) -> str:
        """The media type without parameters (``application/json``), lower case; a header sent twice with one
        value (joined as ``a, a``) is that value."""
        header = self.headers.get("content-type", "")
        parts = re.split(r',(?=(?:[^"]*"[^"]*")*[^"]*$)', header)  # a ',' inside a quoted parameter joins nothing
        kinds = {part.split(";")[0].strip().lower() for part in parts}
        return kinds.pop() if len(kinds) == 1 else ", ".join(sorted(kinds))


#: The media types of each kind of answer masrl reads; a ``+json`` type (``application/vnd.x+json``)
#: counts as JSON. An answer with no ``Content-Type`` is judged by its body alone.
JSON_TYPES = ("application/json",)
ATOM_TYPES = ("application/atom+xml", "application/xml", "text/xml")
BIBTEX_TYPES = ("text/plain", "application/x-bibtex", "text/x-bibtex", "application/octet-stream")


def media_problem(answer: Answer, expected: tuple[str, ...]) -> str | None:
    """Why ``answer``'s declared media type is not one of ``expected`` (``answered 'text/html' where
    its format is application/json``), or None (also when it declares none)."""
    kind = answer.content_type
    if not kind or kind in expected or (kind.endswith("+json") and "application/json" in expected):
        return None
    return f"answered {kind[:60]!r} where its documented format is {' or '.join(expected)}"


class FetchError(Exception):
    """A request that gave no usable answer. ``host`` names the server; ``kind`` is one of
    ``unreachable`` (no connection, DNS), ``broken`` (connected, then a reset or no answer in
    time), ``deadline``, ``too large``, ``redirect``,
    ``encoding`` or ``url``; ``str()`` is one line naming the host and what happened."""

    def __init__(self, host: str, kind: str, what: str):
        self.host, self.kind, self.what = host, kind, what
        super().__init__(f"{host}: {what}")


def host_of(url: str) -> str:
    """``host[:port]`` of ``url`` (the whole text when it has none)."""
    return urlsplit(url).netloc or url


#: The most characters of a value :func:`shown` quotes; a longer one is cut, and ``…`` ends it.
SHOWN_CHARS = 200


def shown(url: str) -> str:
    """``url`` as a message shows it, quoted and escaped: without the user name, password, query or
    fragment it may hold (a secret, which no message prints), each shown as ``…``; in a URL (``scheme://``), what
    follows a blank, a control or an invisible character too. A value that is no URL (``not a url``,
    ``example.org/a b``) is quoted as written; either is cut after :data:`SHOWN_CHARS` characters."""
    text = re.sub(r"//.*@", "//…@", url, flags=re.S)  # to the last '@': a password may hold '/', '?' or '#'
    text = re.sub(r"[?#].*", lambda m: m.group()[0] + "…", text, flags=re.S)
    text = re.sub(r"(//[^/]*/.*?(?:;|%3[Bb])).*", r"\1…", text, flags=re.S)  # path parameters (';key=...')
    text = re.sub(r"(//[^/%]*%).*", r"\1…", text, flags=re.S)  # an encoded user name or password in the host
    cut = next((i for i, ch in enumerate(text) if ch.isspace() or not ch.isprintable()), None)
    if cut is not None and re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):  # in a URL, what follows a blank, a
        text = text[:cut] + "…"  # control or an invisible character may be a secret
    return repr(text[:SHOWN_CHARS] + "…" if len(text) > SHOWN_CHARS + 1 else text)


def url_problem(url: str) -> str | None:
    """Why ``url`` is not an ``http(s)://host/...`` URL masrl can send a request to, or None. The
    messages show the URL without its secrets (:func:`shown`)."""
    try:
        parts = urlsplit(url)
    except ValueError as err:  # "Invalid IPv6 URL", or a host that NFKC normalisation changes
        why = "an unbalanced '[' or ']'" if "IPv6" in str(err) else "characters no host name holds"
        return f"{shown(url)} is not a URL (its host has {why})"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return (f"{shown(url)}: a URL with a user name or password is refused (masrl writes URLs into files that "
                "are committed; a source's key goes in its own variable)")
    if any(ch.isspace() for ch in url):
        return f"{shown(url)} is not a URL (it holds a space)"
    if not url.isprintable():
        return f"{shown(url)} is not a URL (it holds a control or invisible character)"
    try:
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number or out of range
    except ValueError:
        port = parts.netloc.rpartition(":")[2]
        why = "out of range 1-65535" if ascii_digits(port) else "not a number"
        host = parts.netloc.rpartition(":")[0]
        # the "port" is not shown: it may be a secret written where the port goes
        return f"{shown(f'{parts.scheme}://{host}:…')} is not a URL (its port is {why})"
    if parts.port == 0:
        return f"{shown(url)} is not a URL (its port '0' is out of range 1-65535)"
    if parts.scheme not in ("http", "https"):
        return f"{shown(url)} is not a URL (it must start with https:// or http://)"
    if not parts.hostname:
        return f"{shown(url)} is not a URL (it names no host)"
    if "%" in parts.netloc:
        return f"{shown(url)} is not a URL (its host holds '%': a host name has none; a user name or password, encoded?)"
    if not parts.hostname.isascii():
        return f"{shown(url)} is not a URL (its host is not ASCII; write it in its IDNA form, xn--...)"
    if ":" not in parts.hostname and (why := host_problem(parts.hostname)):  # an IPv6 address urlsplit has read
        return f"{shown(url)} is not a URL ({why})"
    if re.search(r"%(?![0-9A-Fa-f]{2})", url):
        return f"{shown(url)} is not a URL (a '%' not followed by two hex digits)"
    return None


def endpoint_problem(url: str) -> str | None:
    """Why ``url`` cannot be a source's endpoint (:func:`url_problem`, and a query
    or a fragment, which masrl would write into round.yaml and which a base URL cannot hold), or None."""
    if "@" in url:  # anywhere: a password may hold '/', '?' or '#', which end the host part of a URL
        return (f"{shown(url)}: an endpoint holding '@' (a user name or password, or an e-mail address in a query) is "
                "refused: masrl records the endpoint in round.yaml, which is committed; a source's key goes in its own "
                "variable, the e-mail address of Crossref's polite pool in MASRL_MAILTO")
    why = url_problem(url)
    if why is None and re.search(r";|%3[Bb]", urlsplit(url).path):
        why = (f"{shown(url)}: an endpoint with ';' parameters is refused (masrl records the endpoint in round.yaml, "
               "which is committed; give a key in the source's own variable)")
    if why is None and ("?" in url or "#" in url):
        why = (f"{shown(url)}: an endpoint with a query or a fragment is refused (masrl records the endpoint in round.yaml, "
               "which is committed; give a key in the source's own variable)")
    return why


def retry_after(headers: dict, now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (a number of seconds, or an HTTP date
    against ``now``, epoch seconds), or None when there is none or it is not one of those forms."""
    value = str(headers.get("retry-after", "")).strip()
    if not value:
        return None
    if ascii_digits(value):
        return float(int(value)) if len(value) <= 15 else float("inf")  # past 10^15 s: longer than masrl waits
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def _decoder(encoding: str, host: str):
    encoding = encoding.strip().lower() or "identity"
    if encoding == "identity":
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib-wrapped (RFC 9110); raw deflate is refused
    raise FetchError(host, "encoding", f"answered in the encoding {encoding!r}; masrl reads gzip, deflate or none")


def _read_body(response, limits: Limits, host: str, stop: threading.Event) -> bytes:
    """The decompressed body of a streamed ``requests`` response, within the limits."""
    decoder = _decoder(response.headers.get("content-encoding", ""), host)
    gzipped = response.headers.get("content-encoding", "").strip().lower() in ("gzip", "x-gzip")
    declared = response.headers.get("content-length", "")
    if ascii_digits(declared) and (len(declared) > 15 or int(declared) > limits.max_wire):
        size = f"{int(declared):,}" if len(declared) <= 15 else f"about 10^{len(declared) - 1}"
        raise FetchError(host, "too large", f"announced an answer of {size} bytes, more than the limit of "
                                            f"{limits.max_wire:,} bytes")
    wire = 0
    out = bytearray()
    raw = response.raw
    while True:
        if stop.is_set():
            raise FetchError(host, "deadline", "")
        try:
            chunk = raw.read(_CHUNK, decode_content=False)
        except Exception as err:  # urllib3's protocol and socket errors (a reset, a read timeout)
            if "timeout" in type(err).__name__.lower() or "timed out" in str(err).lower():  # it went silent, still connected
                raise FetchError(host, "broken", f"stopped sending for {limits.read:g} s while answering "
                                                 f"({type(err).__name__})") from None
            raise FetchError(host, "broken", f"broke the connection while answering ({type(err).__name__})") from None
        if not chunk:
            break
        wire += len(chunk)
        if wire > limits.max_wire:
            raise FetchError(host, "too large", f"sent more than the limit of {limits.max_wire:,} bytes")
        if decoder is None:
            out += chunk
        else:
            try:
                while chunk:
                    out += decoder.decompress(chunk, limits.max_body + 1 - len(out))
                    while decoder.unconsumed_tail and len(out) <= limits.max_body:
                        out += decoder.decompress(decoder.unconsumed_tail, limits.max_body + 1 - len(out))
                    chunk = b""
                    if decoder.eof and decoder.unused_data:  # another gzip member (RFC 1952), or bytes after the end
                        chunk = decoder.unused_data
                        if not (gzipped and (chunk[:2] == b"\x1f\x8b" or chunk == b"\x1f")):
                            raise FetchError(host, "encoding", "sent bytes after the end of its compressed answer")
                        decoder = _decoder("gzip", host)
            except zlib.error:
                raise FetchError(host, "encoding", "sent a compressed answer that does not decompress") from None
        if len(out) > limits.max_body:
            raise FetchError(host, "too large", f"sent an answer that decompresses to more than the limit of "
                                                f"{limits.max_body:,} bytes")
    if decoder is not None:
        try:
            out += decoder.flush()
        except zlib.error:
            raise FetchError(host, "encoding", "sent a compressed answer that does not decompress") from None
        if not decoder.eof:
            raise FetchError(host, "encoding", "sent a compressed answer that is cut short")
        if len(out) > limits.max_body:
            raise FetchError(host, "too large", f"sent an answer that decompresses to more than the limit of "
                                                f"{limits.max_body:,} bytes")
    return bytes(out)


def _exchange(session, url: str, params: dict | None, headers: dict | None, limits: Limits, stop: threading.Event) -> Answer:
    import requests

    start_host = host_of(url)
    sent = {"Accept-Encoding": "gzip, deflate", **(headers or {})}
    for hops in range(limits.max_redirects + 1):
        host = host_of(url)
        try:
            response = session.get(url, params=params, headers=sent, stream=True, allow_redirects=False,
                                   timeout=(limits.connect, limits.read))
        except requests.exceptions.SSLError as err:  # connected, then no TLS session: not "no network"
            raise FetchError(host, "broken", _tls_problem(err)) from None
        except requests.ReadTimeout as err:  # connected, then no answer began in time: the host is there
            if url.lower().startswith("https:") and f"read timeout={limits.connect:g})" in str(err):
                # the TLS handshake runs under the connect limit: a server that takes the connection and says nothing
                raise FetchError(host, "broken", f"did not complete the TLS handshake within {limits.connect:g} s "
                                                 "(ReadTimeout): is it a TLS server?") from None
            raise FetchError(host, "broken", f"did not begin to answer within {limits.read:g} s (ReadTimeout)") from None
        except requests.ConnectionError as err:
            from urllib3.exceptions import ProtocolError

            if err.args and isinstance(err.args[0], ProtocolError):  # connected, then no answer HTTP can read
                inner = err.args[0].args[-1] if err.args[0].args else None
                if inner is None or isinstance(inner, (ConnectionError, http.client.RemoteDisconnected)):
                    raise FetchError(host, "broken", "closed the connection without answering (ProtocolError)") from None
                raise FetchError(host, "broken", f"answered with something that is not HTTP ({type(inner).__name__}: "
                                                 f"{str(inner)[:80]!r})") from None
            raise FetchError(host, "unreachable", f"cannot be reached ({type(err).__name__})") from None
        except requests.exceptions.InvalidHeader as err:  # connected and answered, with a header HTTP forbids
            raise FetchError(host, "broken", f"answered with a header that is not valid HTTP (InvalidHeader: "
                                             f"{str(err)[:80]!r})") from None
        except requests.RequestException as err:
            raise FetchError(host, "unreachable", f"cannot be reached ({type(err).__name__})") from None
        except ValueError as err:  # an answer requests cannot read (a redirect to 'http://[::1/x')
            raise FetchError(host, "broken", f"answered with something that is not HTTP ({type(err).__name__}: "
                                             f"{str(err)[:80]!r})") from None
        try:
            if response.is_redirect or (300 <= response.status_code < 400 and "location" in response.headers):
                location = response.headers.get("location", "")
                why = _redirect_problem(url, location, start_host)
                if why:
                    raise FetchError(start_host, "redirect", f"answered HTTP {response.status_code} with a redirect to "
                                                             f"{shown(location)}, {why}")
                target = urljoin(response.url or url, location)
                url, params = target, None
                continue
            body = _read_body(response, limits, host, stop)
            return Answer(response.url or url, response.status_code, {k.lower(): v for k, v in response.headers.items()}, body,
                          hops)
        finally:
            response.close()
    raise FetchError(start_host, "redirect", f"redirected more than {limits.max_redirects} times")


def _tls_problem(err: Exception) -> str:
    """What went wrong in a TLS handshake, for a message: the OpenSSL reason (``WRONG_VERSION_NUMBER``)
    and what it usually means."""
    reason = re.search(r"\[SSL: ([A-Z0-9_]+)\]|(CERTIFICATE_VERIFY_FAILED)", str(err))
    code = next((g for g in reason.groups() if g), "") if reason else ""
    if code in ("WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG", "HTTP_REQUEST", "UNKNOWN_PROTOCOL"):
        return (f"answered an https:// request with something that is not TLS (SSLError: {code}): a plain http:// "
                "server? (then write its endpoint with http://)")
    if code == "CERTIFICATE_VERIFY_FAILED":
        return "presented a certificate that cannot be verified (SSLError: CERTIFICATE_VERIFY_FAILED)"
    return f"could not set up TLS (SSLError{': ' + code if code else ''})"


def _redirect_problem(url: str, location: str, start_host: str) -> str | None:
    """Why masrl does not follow a redirect from ``url`` to ``location``, or None: only to the same
    scheme, host and port, with no user name or password."""
    try:
        target = urlsplit(urljoin(url, location))
        target.port  # noqa: B018 - raises ValueError on a port that is no number
    except ValueError:
        return "which is not a URL; masrl does not follow it"
    if target.scheme not in ("http", "https"):
        return "which is not an http(s) URL; masrl does not follow it"
    if "@" in target.netloc:
        return "a URL with a user name or password; masrl does not follow it"
    if target.scheme != urlsplit(url).scheme:
        return (f"another scheme ({urlsplit(url).scheme} to {target.scheme}); masrl does not follow it (point the "
                "endpoint at the new URL if that is the source's address)")
    if target.netloc != start_host:
        return ("another host; masrl does not follow a source to another host (point the endpoint there if that is "
                "the source's new address)")
    return None


def fetch(session, url: str, params: dict | None = None, headers: dict | None = None, limits: Limits = LIMITS) -> Answer:
    """``GET url?params`` through ``session``, within ``limits`` (see the module docstring).

    Returns the :class:`Answer` whatever its status (the caller reads 4xx and 5xx answers:
    an API's error message, a ``Retry-After``).

    Raises:
        FetchError: the URL is not one, the source cannot be reached, the deadline passed, the
            answer is too large or in an unknown encoding, or a redirect leads to another host.
    """
    if why := url_problem(url):
        raise FetchError(url, "url", why)
    stop = threading.Event()
    box: dict = {}

    def work():
        try:
            box["answer"] = _exchange(session, url, params, headers, limits, stop)
        except BaseException as err:  # handed to the caller's thread
            box["error"] = err

    worker = threading.Thread(target=work, name=f"masrl fetch {host_of(url)}", daemon=True)
    worker.start()
    worker.join(limits.deadline)
    if worker.is_alive():
        stop.set()  # the worker stops at its next read; the connection is left to the server's close
        raise FetchError(host_of(url), "deadline", f"gave no complete answer within {_number(limits.deadline)} s "
                                                   "(masrl's deadline for one request)")
    if "error" in box:
        err = box["error"]
        if isinstance(err, FetchError) and err.kind == "deadline":
            raise FetchError(host_of(url), "deadline", f"gave no complete answer within {_number(limits.deadline)} s "
                                                       "(masrl's deadline for one request)")
        raise err
    return box["answer"]
