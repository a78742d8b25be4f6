"""dreamdeck: the long-term memory of an AI agent, with a human at the controls.

The engine is `dreamdeck.core`, the Textual app `dreamdeck.tui`, the command line
`dreamdeck.cli`. This module is the Python API an agent runtime calls in-process.
"""
from __future__ import annotations

__all__ = ["Workspace"]


def __getattr__(name: str):
    # Lazy: `import dreamdeck` must stay cheap for a runtime that only wants one call.
    if name == "Workspace":
        from dreamdeck.core.workspace import Workspace

        return Workspace
    raise AttributeError(f"module 'dreamdeck' has no attribute {name!r}")
