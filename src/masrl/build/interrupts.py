"""Holding SIGINT and SIGTERM while a write commits (used by :mod:`masrl.build.write`).

No file access: the block inside does the writing.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

#: The signals a commit holds until it is done (Ctrl-C, and the polite request to stop).
_HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def interrupts_held():
    """Hold SIGINT and SIGTERM while the block runs, then deliver the first one received to the
    handler that was in place (Ctrl-C: ``KeyboardInterrupt``), so that an interrupt can never fall
    between two renames of one commit. Outside the main thread (where Python runs no signal
    handlers) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = {}
    for sig in _HELD:
        handler = signal.getsignal(sig)
        if handler is signal.SIG_IGN or handler is None:
            continue  # ignored, or installed outside Python: leave it alone
        old[sig] = signal.signal(sig, lambda signum, _frame: got.append(signum))
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if got:
            handler = old[got[0]]
            if callable(handler):
                handler(got[0], None)
            else:  # the default action (SIGTERM: end the process), now that the commit is whole
                os.kill(os.getpid(), got[0])
