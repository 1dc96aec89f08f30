"""Serve stand-ins of the update rounds' sources on 127.0.0.1, to try `masrl update search` offline (run by hand).

    .venv/bin/python scripts/standin_sources.py

Starts the servers the test suite searches (tests/update/servers.py: arXiv, Crossref, OpenReview and
Semantic Scholar, each answering in its real format over the records of tests/data/update), prints the
environment variables that point masrl at them, and serves until Ctrl-C. Their records are papers of
May and June 2026: search with ``--since 2026-05-04``, as docs/guides/update-rounds.md does. Needs the test
dependencies (the README's install: ``pip install -c constraints.txt '.[test]'``).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "update"))

from servers import ArxivServer, CrossrefServer, OpenReviewServer, SemanticScholarServer, Served  # noqa: E402

#: (environment variable, stand-in, the endpoint's path) of each source.
SOURCES = (
    ("MASRL_ARXIV_API", ArxivServer, "/api/query"),
    ("MASRL_CROSSREF_API", CrossrefServer, "/works"),
    ("MASRL_OPENREVIEW_API", OpenReviewServer, "/notes"),
    ("MASRL_S2_API", SemanticScholarServer, "/graph/v1"),
)


def main(argv: list[str] | None = None) -> int:
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    served = [(variable, Served(api()), path) for variable, api, path in SOURCES]
    print("Stand-ins of the sources are serving. In another shell:", flush=True)
    for variable, server, path in served:
        print(f"export {variable}={server.url}{path}")
    print("then: masrl update search --since 2026-05-04")
    print("  (every source; a few minutes, as citation searching asks once a second;")
    print("   add --source arxiv for a round of seconds)")
    print("Ctrl-C stops them.", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        for _, server, _ in served:
            server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
