"""The one way a bench times a small call: the best of `repeat` runs, CPU and wall seconds."""
from __future__ import annotations

import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int = 5) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) of `repeat` calls of `fn` (the machine is shared:
    the best run is the one least disturbed)."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return min(cpu), min(wall)
