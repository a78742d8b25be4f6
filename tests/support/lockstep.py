"""Dreams run back to back against appender processes, in lockstep.

Each dreamer counts its reads in `reads` (a shared counter the appenders wait on before their
next batch); dream number `run` waits until every appender has appended more than
(run-1)*batch lines, so each dream sees lines that are new to it.
"""
from __future__ import annotations

from dreamdeck.core.dreaming.run import run_dream
from tests.support.dreamers import Scripted, cites_half
from tests.support.waits import wait_until


def counting_dreamer(reads) -> Scripted:
    """Cites half of what it sees, first counting the read that releases the appenders' next batch."""
    def has_read_then_cites_half(inp, scratch) -> None:
        with reads.get_lock():
            reads.value += 1
        cites_half(inp, scratch)
    return Scripted(has_read_then_cites_half)


def dream_in_lockstep(ws, dreamer, procs, ready, start, abort, counts, runs: int, batch: int) -> list:
    """Start the appenders, dream `runs` times in lockstep with them, then once more for what
    arrived last; the receipts. Every appender must exit 0."""
    receipts = []
    for p in procs:
        p.start()
    try:
        for _ in procs:
            ready.get(timeout=60)
        start.set()
        for run in range(1, runs + 1):
            wait_until(lambda run=run: all(c.value > (run - 1) * batch for c in counts) or any(p.exitcode for p in procs),
                       timeout=120, step=0.002, what=f"the appends before dream {run}")
            receipts.append(run_dream(ws, dreamer=dreamer, review="none"))
        for p in procs:
            p.join(timeout=120)
            assert p.exitcode == 0
    finally:
        abort.set()
        for p in procs:
            p.join(timeout=10)
    receipts.append(run_dream(ws, dreamer=dreamer, review="none"))  # whatever arrived last
    return receipts
