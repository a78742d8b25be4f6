"""dreamdeck: the long-term memory of an AI agent, with a human at the controls.

The engine is `dreamdeck.core`, the Textual app `dreamdeck.tui`, the command line
`dreamdeck.cli`. This module is the Python API an agent runtime calls in-process:

    from dreamdeck import Memory, recall, inject

    memory = Memory("/path/to/agent")
    blocks = memory.recall("which package manager?")   # ranked, decay-aware, budgeted blocks
    text = memory.inject("which package manager?")     # TypeClaw's `# Memory` block for the turn

`recall(workspace, query, ...)` and `inject(workspace, query, ...)` do the same in one call; see
`dreamdeck.api` for every option.
"""
from __future__ import annotations

__all__ = ["Workspace", "Memory", "recall", "inject"]


def __getattr__(name: str):
    # Lazy: `import dreamdeck` must stay cheap for a runtime that only wants one call.
    if name == "Workspace":
        from dreamdeck.core.workspace import Workspace

        return Workspace
    if name in ("Memory", "recall", "inject"):
        from dreamdeck import api

        return getattr(api, name)
    raise AttributeError(f"module 'dreamdeck' has no attribute {name!r}")
