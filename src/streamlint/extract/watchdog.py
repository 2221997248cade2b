"""The last bound: a watchdog over one file's analysis, in wall time and memory.

The counted bounds (`budget`) answer the same on a loaded machine as on a quiet one, and are
what normally stops an input. But one step can itself run away (a record whose text doubles
at every level of a helper calling itself took 13 GB in one step), so a thread watches the
clock (`STREAMLINT_MAX_SECONDS`, default 30) and the process's memory
(`STREAMLINT_MAX_MEMORY_MB`) while a file is analysed, and interrupts the analysis: the file
is refused with exit 2 and the reason, never left to hang.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

from streamlint.extract.budget import Limits, refuse, rss_mb

_POLL_SECONDS = 0.05
# The watcher interrupts the analysis through a signal of its own (simulated in the main
# thread, nothing is sent to the process): SIGINT may be ignored where streamlint runs (a
# background job, nohup, some CI runners), and a user's Ctrl-C must stay a Ctrl-C.
_SIGNAL = getattr(signal, "SIGUSR1", signal.SIGINT)


class _Runaway(Exception):
    """Raised in the main thread when the watcher fires."""


def _raise_runaway(signum: int, frame: Any) -> None:
    raise _Runaway()


@contextlib.contextmanager
def watchdog(path: str, limits: Limits) -> Iterator[None]:
    """Run the block under the watch; off the main thread (which alone can be interrupted)
    the block runs unwatched, bounded by the counted limits only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    reason: list[tuple[str, str]] = []  # (what happened, the setting that bounds it)
    done = threading.Event()
    # Whichever comes first, the block's end or the watcher's decision, holds this: the
    # watcher never interrupts a block that has ended, and the block's end is not kept
    # waiting for the watcher to wake up and exit (no join).
    decided = threading.Lock()
    start_mb = rss_mb()

    def watch() -> None:
        deadline = time.monotonic() + limits.max_seconds
        while not done.wait(_POLL_SECONDS):
            now_mb = rss_mb()
            if time.monotonic() > deadline:
                found = (f"the analysis took more than {limits.max_seconds} s",
                         "STREAMLINT_MAX_SECONDS")
            elif now_mb is not None and start_mb is not None and (
                    now_mb - start_mb > limits.max_memory_mb):
                found = (f"the analysis took more than {limits.max_memory_mb} MB of memory",
                         "STREAMLINT_MAX_MEMORY_MB")
            else:
                continue
            with decided:
                if not done.is_set():
                    reason.append(found)
                    _thread.interrupt_main(_SIGNAL)
            return

    previous = signal.signal(_SIGNAL, _raise_runaway)
    watcher = threading.Thread(target=watch, name="streamlint-watchdog", daemon=True)
    watcher.start()
    try:
        try:
            yield
        except _Runaway:
            if not reason:
                raise  # an enclosing watch fired: it answers
            raise refuse(path, 1, 0, *reason[0]) from None
        finally:
            with decided:
                done.set()
        if reason:
            # It fired as the block ended: the interrupt is pending, let it land here.
            with contextlib.suppress(_Runaway):
                time.sleep(_POLL_SECONDS)
            raise refuse(path, 1, 0, *reason[0])
    finally:
        signal.signal(_SIGNAL, previous)
