"""Saying something once: a marker in the private folder records that a notice was given.

For advice a person needs to hear but not on every command (e.g. "this folder is not a git
repository"). Losing the marker only means the notice is given again.
"""
from __future__ import annotations

import hashlib
import os

from dreamdeck.core.io.private import private_dir


def first_time(topic: str, subject: str) -> bool:
    """True the first time `(topic, subject)` is asked about (then records it); False after."""
    name = hashlib.sha256(f"{topic}\0{subject}".encode()).hexdigest()[:32]
    try:
        fd = os.open(private_dir("notices") / name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    except OSError:  # no private folder: better said twice than never
        return True
    os.close(fd)
    return True
