"""The temporary folders of earlier runs, removed by a process of their own instead of after the tests.

pytest keeps the base temporary folders of the last ``tmp_path_retention_count`` runs (3) and
removes older ones when the run ends, serially, after the last test and before its closing line.
A run of this suite leaves about 280,000 files there (each test's copy of a survey tree; their
reports are hard links), and removing one run's folder took 8 to 15 s on the 2-core machine of
the README's test budget, counted in pytest's own total: of a run of the whole suite, and of a
run of one test alike. :func:`start` takes the folders pytest would remove at the end (chosen by
pytest's own functions, so that a folder in use by another run, whose lock is alive, is left
alone), renames each out of pytest's numbering (``masrl-removing-<uuid>``, one rename, as pytest
renames a folder to ``garbage-<uuid>`` before removing it) and starts one process, in a session of
its own, that removes them and any such folder an interrupted earlier removal left, at the idle
priority (:data:`REMOVE`). pytest's own clean-up then finds nothing to remove, and no run waits for
the removal.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

#: The name a folder being removed is renamed to (``<PREFIX><uuid>``), beside the numbered ones.
PREFIX = "masrl-removing-"

#: The removing process: at the idle priority (Linux ``SCHED_IDLE``: it runs only on a core no other
#: process wants; elsewhere the lowest nice value), so that it does not take CPU from the tests. Alone
#: it removes a run's 306,000 files in 3.8 s (2.7 s of CPU); at the normal priority it competed with
#: the two workers for the same two cores.
REMOVE = """import os, shutil, sys
try:
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
except (AttributeError, OSError):
    try:
        os.nice(19)
    except OSError:
        pass
for path in sys.argv[1:]:
    shutil.rmtree(path, ignore_errors=True)
"""


def start(config) -> list[Path]:
    """Start removing earlier runs' folders that pytest would remove when this run ends; returns
    the folders handed to the removing process (none in a pytest-xdist worker, where the controlling
    process owns the folders, or with ``--basetemp``, which has no numbered folders)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or config.option.basetemp:
        return []
    from _pytest.pathlib import LOCK_TIMEOUT, cleanup_candidates, create_cleanup_lock, ensure_deletable

    keep = 0 if config.getini("tmp_path_retention_policy") == "none" else int(config.getini("tmp_path_retention_count"))
    current = config._tmp_path_factory.getbasetemp()  # noqa: SLF001 - made now instead of at the first test
    root = current.parent
    dead_before = current.stat().st_mtime - LOCK_TIMEOUT  # what pytest's own clean-up considers a dead lock
    doomed = [path for path in root.glob(PREFIX + "*") if path.is_dir() and not path.is_symlink()]
    for path in cleanup_candidates(root, "pytest-", keep):
        if path == current or not ensure_deletable(path, dead_before):
            continue
        try:  # as pytest does: a lock of its own, then one rename, so that no other run takes it
            create_cleanup_lock(path)
            renamed = root / f"{PREFIX}{uuid.uuid4()}"
            path.rename(renamed)
        except OSError:  # another run is cleaning it up, or it is in use
            continue
        doomed.append(renamed)
    if doomed:
        subprocess.Popen([sys.executable, "-c", REMOVE, *map(str, doomed)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    return doomed
