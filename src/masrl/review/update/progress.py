"""The progress of a search on a terminal: a tqdm bar over the queries, with requests, pages and
records found so far; nothing at all when the output is not a terminal (a log, CI)."""

from __future__ import annotations


class Progress:
    """Counts requests, pages and records; shows them on a tqdm bar when ``enabled``.

    ``total`` is the number of queries the run sends (sources x families).
    """

    def __init__(self, total: int, enabled: bool):
        self.requests = self.pages = self.records = self.queries = 0
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="query", leave=False, dynamic_ncols=True)

    def _show(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix(requests=self.requests, pages=self.pages, records=self.records, refresh=True)

    def request(self, url: str) -> None:
        """A request is about to be sent."""
        self.requests += 1
        self._show()

    def page(self) -> None:
        """A page was received."""
        self.pages += 1
        self._show()

    def query(self, source: str, family: str, records: int) -> None:
        """A query is about to be sent; ``records`` have been found so far."""
        if self.bar is not None and self.queries:
            self.bar.update(1)
        self.queries += 1
        self.records = records
        if self.bar is not None:
            self.bar.set_description(f"{source}: {family}")
        self._show()

    def close(self) -> None:
        """Remove the bar (the command prints its one-line summary instead)."""
        if self.bar is not None:
            self.bar.close()
