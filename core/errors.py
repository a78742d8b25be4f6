"""The errors dreamdeck expects, under one root.

Every error a person can cause or meet in normal use (bad input, a refusal, a busy lock, git
saying no, a malformed file) is a `DreamdeckError`: it carries a message meant to be shown as
one line and the exit status the command line returns for it. Anything else that escapes is a
bug, and the command line shows it as one (with a traceback and a hint to report it).

Exit statuses: 2 for input the caller can correct (a bad date, id, slug, setting or file), 1
for a refusal or a failure that leaves nothing changed (the rules said no, git failed, a dream
is already running), as `git` and most Unix tools do.
"""
from __future__ import annotations


class DreamdeckError(Exception):
    """An expected error: `str(exc)` is one line for a person, `status` the exit code."""

    status = 1

    def __init__(self, message: str = "", *, status: int | None = None):
        super().__init__(message)
        if status is not None:
            self.status = status


class BadInput(DreamdeckError, ValueError):
    """Input the caller can correct: an argument, a setting, a date, an id, a slug.

    Also a ValueError, as Python code calling dreamdeck expects of a bad argument."""

    status = 2


class BadFile(BadInput):
    """A file dreamdeck must read is malformed or unreadable; the message names it."""


class NotFound(BadInput, LookupError):
    """The thing asked for does not exist (a topic, a fragment, a reflection, a revision)."""


class Refused(DreamdeckError):
    """A rule said no and nothing was written. `missing`/`conflicts` say which ids or files."""

    status = 1

    def __init__(self, message: str = "", *, missing=(), conflicts=(), status: int | None = None):
        super().__init__(message, status=status)
        self.missing = list(missing)
        self.conflicts = list(conflicts)


class Busy(DreamdeckError):
    """Someone else holds what this needs (a dream run, a lock); try again later."""


class GitError(DreamdeckError):
    """git failed; the message carries git's own words (often a revision the caller named)."""

    status = 2


class ApplyFailed(DreamdeckError):
    """A write failed mid-way and could not be undone; the message says how to recover."""
