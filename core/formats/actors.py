"""Who acted, as commit trailers and the audit log record it.

A person is `human:<login>` whether they act from the command line (`--actor`'s default) or
from the app; agents and dreamers name themselves (`agent:…`, `dreamer:…`).
"""
from __future__ import annotations

import getpass

FALLBACK = "human:cli"  # no login name to be had (a container without a user database entry)


def human_actor() -> str:
    """`human:<login>` for the person at this terminal."""
    try:
        return f"human:{getpass.getuser()}"
    except (KeyError, OSError, ImportError):
        return FALLBACK
