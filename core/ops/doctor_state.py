"""Whether the dreaming state file is sound, proven by one compiled call (msgspec) for doctor.

Doctor asks only for the state file's problem (`store.state.load_state`'s second answer). A year
of ids is ~50 MB of JSON: msgspec decodes it against the state's exact shape (version 2, each
day's non-empty string ids and its ts, no other key) without building the state; anything it
does not take — another key, a number where 2 is meant, a lone surrogate, bytes that are not
UTF-8, bad JSON — is answered by `load_state` itself, which alone words a problem.
tests/test_doctor_state_check.py holds the two to the same answer.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import msgspec

from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.store.state import load_state


class _Day(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    dreamedIds: list[Annotated[str, msgspec.Meta(min_length=1)]]  # noqa: N815 — TypeClaw's key
    ts: str


class _State(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    version: Literal[2]
    dreamedThrough: dict[str, _Day]  # noqa: N815


_DECODER = msgspec.json.Decoder(_State, strict=True)


def state_problem(path: Path) -> str | None:
    """`load_state(path)[1]`: None at once when the compiled decode takes the file."""
    try:
        _DECODER.decode(read_bytes_nofollow(path))
    except FileNotFoundError:
        return None  # as load_state: no file, no problem
    except (OSError, msgspec.DecodeError, UnicodeDecodeError):
        return load_state(path)[1]
    return None
