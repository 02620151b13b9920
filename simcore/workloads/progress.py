"""Progress lines of long commands, for their logs: a CEA-Curie learner chunk or a prediction
grid chunk runs for minutes, and Snakemake's own progress counts whole jobs only.

`progress(items, total, label)` yields the items and writes to stderr (the rule's log) a line
after an item when `every` seconds have passed since the last line, and after the last one:

    CEA-Curie variants 0:5: 2/5 (40 %), 3 min 2 s elapsed, about 4 min 33 s left

The time left is the mean time per item so far times the items left. Lines go between items,
never inside a simulation, so the kernel runs as fast as without them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator


def duration(seconds: float) -> str:
    """12 s, 3 min 2 s, 1 h 4 min."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def progress(
    items: Iterable, total: int, label: str, every: float = 30.0, stream=None, clock=time.monotonic
) -> Iterator:
    """`items` (`total` of them), with a progress line on `stream` (stderr) at most every
    `every` seconds and after the last item."""
    stream = sys.stderr if stream is None else stream
    began = last = clock()
    done = 0
    for item in items:
        yield item
        done += 1
        now = clock()
        if now - last >= every or done == total:
            last = now
            elapsed = now - began
            left = elapsed / done * max(total - done, 0)
            share = 100 * done / total if total else 100
            line = f"{label}: {done}/{total} ({share:.0f} %), {duration(elapsed)} elapsed"
            print(line + (f", about {duration(left)} left" if done < total else ""), file=stream, flush=True)
