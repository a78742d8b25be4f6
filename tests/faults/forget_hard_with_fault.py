"""Hard-forget one fragment through `ops.forget.forget_fragment`, SIGKILLing ourselves at STEP.

    python -m tests.faults.forget_hard_with_fault <agent folder> <today> <DAY#ID> <STEP>

Exit status 0 means STEP was never reached (the test fails on that).
"""
from __future__ import annotations

import os
import signal
import sys

from dreamdeck.core.ops.forget import forget_fragment
from dreamdeck.core.workspace import Workspace


def main() -> int:
    root, today, ref, step_name = sys.argv[1:5]
    ws = Workspace.open(root, today=today)
    day, fid = ref.split("#", 1)

    def fault(step: str) -> None:
        if step == step_name:
            os.kill(os.getpid(), signal.SIGKILL)

    forget_fragment(ws, day, fid, "private", hard=True, fault=fault)
    return 0


if __name__ == "__main__":
    sys.exit(main())
