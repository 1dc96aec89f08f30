"""The temporary folders of earlier runs, removed while this run's tests run instead of after them.

pytest keeps the base temporary folders of the last ``tmp_path_retention_count`` runs (3) and
removes older ones when the run ends, serially, after the last test and before its closing line.
A run of this suite leaves about 280,000 files there (each test's copy of a survey tree; their
reports are hard links), and removing one run's folder took 8 to 15 s on the 2-core machine of
the README's test budget, counted in pytest's own total. :func:`start` removes the same folders
(those pytest would remove at the end, chosen and removed by pytest's own functions, so a folder
in use by another run is left alone) in a background thread of the controlling process, which
waits for its workers most of the run; :func:`finish` waits for it before pytest's own clean-up.
"""

from __future__ import annotations

import os
import threading


def start(config) -> threading.Thread | None:
    """Start removing earlier runs' folders that pytest would remove when this run ends; None
    when there are none, in a pytest-xdist worker (the controlling process owns the folders) or
    with ``--basetemp`` (no numbered folders)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or config.option.basetemp:
        return None
    from _pytest.pathlib import LOCK_TIMEOUT, cleanup_candidates, try_cleanup

    keep = 0 if config.getini("tmp_path_retention_policy") == "none" else int(config.getini("tmp_path_retention_count"))
    current = config._tmp_path_factory.getbasetemp()  # noqa: SLF001 - made now instead of at the first test
    old = [path for path in cleanup_candidates(current.parent, "pytest-", keep) if path != current]
    if not old:
        return None
    dead_before = current.stat().st_mtime - LOCK_TIMEOUT  # what pytest's own clean-up considers a dead lock

    def remove() -> None:
        for path in old:
            try_cleanup(path, dead_before)

    thread = threading.Thread(target=remove, name="remove earlier runs' temporary folders", daemon=True)
    thread.start()
    return thread


def finish(thread: threading.Thread | None) -> None:
    """Wait for :func:`start`'s removal (long over, in a run of the whole suite)."""
    if thread is not None:
        thread.join()
