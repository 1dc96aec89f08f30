"""One HTTP connection whose requests are spaced in time: arXiv's "no more than one request every
three seconds" (https://info.arxiv.org/help/api/tou.html), across pages, retries and queries.

:class:`PacedSession` is a ``requests.Session`` (so the ``arxiv`` package's client and the
Crossref source use it as their transport, and ``responses`` can mock it) that waits before a
request until ``delay`` seconds have passed since the previous request ended (its response
arrived), so that the server sees its requests at least ``delay`` apart whatever the network's
latency. The clock and
the sleep are parameters, so the tests check the requested sleeps and the fake clock's
timestamps instead of waiting.
"""

from __future__ import annotations

import time
from typing import Callable

import requests

TIMEOUT = 30  # seconds per request: a hanging connection ends the run instead of stalling it
#: The clock and the sleep of a session built without them (tests replace them to run without waiting).
CLOCK = time.monotonic
SLEEP = time.sleep
USER_AGENT = "masrl update (survey corpus tool; https://github.com/xxzcc/awesome-llm-mas-rl)"


class PacedSession(requests.Session):
    """A session whose requests start at least ``delay`` seconds after the previous one ended.

    Attributes:
        delay: seconds between the end of one request and the start of the next.
        clock: seconds on a monotonic clock (default :data:`CLOCK`, :func:`time.monotonic`).
        sleep: waits that many seconds (default :data:`SLEEP`, :func:`time.sleep`).
        started: the clock time at which each request started, in order.
        ended: the clock time at which each request ended (response or error), in order.
        sleeps: every wait requested, in seconds.
        on_request: called with the URL before each request (progress display), or None.
    """

    def __init__(self, delay: float, clock: Callable[[], float] | None = None, sleep: Callable[[float], None] | None = None,
                 on_request: Callable[[str], None] | None = None):
        super().__init__()
        self.delay = float(delay)
        self.clock = clock or CLOCK
        self.sleep = sleep or SLEEP
        self.started: list[float] = []
        self.ended: list[float] = []
        self.sleeps: list[float] = []
        self.on_request = on_request
        self.headers["User-Agent"] = USER_AGENT
        # one connection: no pool of parallel sockets, requests one after the other
        adapter = requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=1, max_retries=0)
        self.mount("http://", adapter)
        self.mount("https://", adapter)

    def request(self, method, url, *args, **kwargs):  # noqa: D102 - requests.Session's signature
        if self.ended:
            wait = self.ended[-1] + self.delay - self.clock()
            if wait > 0:
                self.sleeps.append(wait)
                self.sleep(wait)
        self.started.append(self.clock())
        if self.on_request is not None:
            self.on_request(url)
        kwargs.setdefault("timeout", TIMEOUT)
        try:
            return super().request(method, url, *args, **kwargs)
        finally:
            self.ended.append(self.clock())
