"""One HTTP connection whose requests are spaced in time, within a run and across runs, and that
waits when a source says so: arXiv's "no more than one request every three seconds"
(https://info.arxiv.org/help/api/tou.html), Crossref's, OpenReview's and Semantic Scholar's
rate limits (HTTP 429 with ``Retry-After``).

:class:`PacedSession` is a ``requests.Session`` with one connection (so ``responses`` can mock it)
whose :meth:`~PacedSession.answer` sends one request through :func:`masrl.bib.fetch.fetch`
(deadline, size limits, no redirect to another host) after waiting until ``delay`` seconds have
passed since the previous request to the source ended, whether that request was sent by this
run or by an earlier one: the end of the last request to each host is kept in a pace file
(:class:`PaceFile`, ``.masrl-cache/pace.json`` at the survey root), so that two searches run
back to back keep the pace too. A 429 or 503 answer is retried after the ``Retry-After`` the
source asks for (or, without one, after twice the delay, then four times, ...), at most
``retries`` times, never once longer than :data:`MAX_WAIT` and never more than :data:`MAX_WAITING` in all
in one run, whatever source asked (the sessions of a run share its :class:`PaceFile`, which counts the
waiting; a source that asks for more is refused by name); a wait of 10 s or more is said on stderr.

The clock and the sleep are parameters (defaults :data:`CLOCK`, wall-clock seconds, and
:data:`SLEEP`), so the tests check the requested sleeps on a fake clock instead of waiting. The
clock is the wall clock because the pace file compares times of different processes; a wait is
never longer than the delay, so a clock set back cannot hold a run.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Callable

import requests

from ....bib.fetch import LIMITS, Answer, FetchError, Limits, fetch, host_of, retry_after

#: The clock and the sleep of a session built without them (tests replace them to run without waiting).
CLOCK = time.time
SLEEP = time.sleep
USER_AGENT = "masrl update (survey corpus tool; https://github.com/xxzcc/awesome-llm-mas-rl)"
#: The longest wait a ``Retry-After`` may ask for before the run gives up and says so (seconds).
MAX_WAIT = 300.0
#: The longest a run waits for rate limits in all (every ``Retry-After`` and back-off of every source, seconds).
MAX_WAITING = 900.0
#: Where the pace is kept between runs, under the survey root.
PACE_FILE = ".masrl-cache/pace.json"


class RateLimited(Exception):
    """The source kept answering 429/503, or asked for a wait longer than :data:`MAX_WAIT`."""

    def __init__(self, host: str, status: int, wait: float | None, tries: int, waited: float = 0.0):
        self.host, self.status, self.wait, self.tries = host, status, wait, tries
        shown = f"{wait:g}" if wait is not None and wait < 1e6 else f"{wait:,.0f}" if wait is not None else ""
        asked = f"asked to wait {shown} s (Retry-After)" if wait is not None and wait < 1e15 else \
            "asked to wait over 10^15 s (Retry-After)" if wait is not None else (
            "gave no Retry-After that is a number of seconds or an HTTP date")
        if waited:
            asked += (f", after masrl had waited {waited:g} s for rate limits in this run, every source's (it waits at most "
                      f"{MAX_WAITING:g} s in all)")
        super().__init__(f"{host}: answered HTTP {status} (rate limit) {tries} time(s); it {asked}")


class PaceFile:
    """The end of the last request to each host (wall-clock seconds), kept between runs.

    ``root`` is the survey root (None: nothing is kept, as for a session outside a survey). An
    unreadable or damaged file counts as empty; a file that cannot be written is left as it is
    (the pace of this run still holds).
    """

    def __init__(self, root: Path | None):
        self.path = Path(root) / PACE_FILE if root is not None else None
        #: Seconds the run that holds this pace has waited for rate limits so far, every source's (not kept on disk).
        self.rate_waited = 0.0

    def _read(self) -> dict:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        return {k: float(v) for k, v in data.items() if isinstance(k, str) and isinstance(v, (int, float))} \
            if isinstance(data, dict) else {}

    def last(self, host: str) -> float | None:
        """When the last request to ``host`` ended, or None."""
        return self._read().get(host)

    def record(self, host: str, when: float) -> None:
        """Keep ``when`` as the end of the last request to ``host``."""
        if self.path is None:
            return
        from ....build.write import write_cache

        data = self._read()
        data[host] = round(when, 3)
        folder = PACE_FILE.split("/")[0]
        write_cache(self.path.parent.parent, {PACE_FILE: (json.dumps(data, sort_keys=True) + "\n").encode()}, folder)


class PacedSession(requests.Session):
    """A session whose requests start at least ``delay`` seconds after the previous one to the
    same source ended (in this run, or in an earlier one through ``pace``).

    Attributes:
        delay: seconds between the end of one request and the start of the next.
        clock: wall-clock seconds (default :data:`CLOCK`); sleep: waits that many seconds.
        started, ended: the clock time at which each request started and ended, in order.
        sleeps: every wait, in seconds (pacing and ``Retry-After``).
        on_request: called with the URL before each request (progress display), or None.
        pace: the :class:`PaceFile` of the survey (default: none).
        limits: the bounds of each request (:class:`masrl.bib.fetch.Limits`).
        retries: tries after a 429 or 503 answer.
    """

    def __init__(self, delay: float, clock: Callable[[], float] | None = None, sleep: Callable[[float], None] | None = None,
                 on_request: Callable[[str], None] | None = None, pace: PaceFile | None = None, limits: Limits | None = None,
                 retries: int = 3):
        super().__init__()
        self.delay = float(delay)
        self.clock = clock or CLOCK
        self.sleep = sleep or SLEEP
        self.started: list[float] = []
        self.ended: list[float] = []
        self.sleeps: list[float] = []
        self.on_request = on_request
        self.pace = pace or PaceFile(None)
        self.limits = limits or LIMITS
        self.retries = int(retries)
        self.rate_limited = 0
        self.headers["User-Agent"] = USER_AGENT
        # one connection: no pool of parallel sockets, requests one after the other
        adapter = requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=1, max_retries=0)
        self.mount("http://", adapter)
        self.mount("https://", adapter)

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.sleeps.append(seconds)
            self.sleep(seconds)

    def _turn(self, host: str) -> None:
        last = self.ended[-1] if self.ended else self.pace.last(host)
        if last is not None:
            self._wait(min(self.delay, last + self.delay - self.clock()))

    def answer(self, url: str, params: dict | None = None, headers: dict | None = None) -> Answer:
        """The answer to ``GET url?params`` (any status but 429/503, which are waited on and retried).

        Raises:
            FetchError: see :func:`masrl.bib.fetch.fetch`.
            RateLimited: the source still limits the rate after every retry, or asks for too long a wait.
        """
        host = host_of(url)
        for attempt in range(self.retries + 1):
            self._turn(host)
            self.started.append(self.clock())
            if self.on_request is not None:
                self.on_request(url)
            try:
                got = fetch(self, url, params, headers, self.limits)
            finally:
                self.ended.append(self.clock())
                self.pace.record(host, self.ended[-1])
            self.started += [self.started[-1]] * got.redirects  # each redirect followed is a request sent too
            self.ended += [self.ended[-1]] * got.redirects
            if got.status not in (429, 503):
                return got
            self.rate_limited += 1
            wait = retry_after(got.headers)
            if got.status == 503 and wait is None:
                return got  # an outage, not a rate limit: the source reports it
            pause = wait if wait is not None else self.delay * 2 ** (attempt + 1)
            over = pause > MAX_WAITING - self.pace.rate_waited  # the run's waiting for rate limits would pass its bound
            if attempt == self.retries or pause > MAX_WAIT or over:
                raise RateLimited(host, got.status, wait, attempt + 1, self.pace.rate_waited if over else 0.0)
            if pause >= 10:
                why = "as it asks" if wait is not None else "(masrl's back-off: it gave no Retry-After masrl can read)"
                print(f"note: {host} limits the rate (HTTP {got.status}); waiting {pause:g} s {why}", file=sys.stderr)
            self.pace.rate_waited += pause
            self._wait(pause)
        raise AssertionError("unreachable")  # pragma: no cover


__all__ = ["CLOCK", "SLEEP", "FetchError", "PaceFile", "PacedSession", "RateLimited"]
