"""The door's secret rule: no change brings a secret into memory (invariant 10).

Whatever a dream, a proposal, a rollback or a person writes into a shard passes here. A target
that holds a secret memory did not already hold for that shard is refused, not redacted: what a
person reviewed is what gets written, byte for byte, and a refusal loses nothing (the reflection
or the proposal stays; the message names the file and the kind of secret, never the value).
"Already held" means by a file the change replaces or by the same slug's copy in another area,
so moving or recomputing a shard an outside writer filled (pin, unpin, archive, unforget,
doctor --fix) is not blocked by what dreamdeck never wrote.
"""
from __future__ import annotations

from itertools import chain

from dreamdeck.core.door.changeset import Plan
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.secrets import new_secret_families
from dreamdeck.core.index.evidence import SHARD_AREAS
from dreamdeck.core.workspace import Workspace


def refuse_new_secrets(ws: Workspace, plan: Plan) -> None:
    """`plan` maps a shard path under memory/ to (current text, target text); Refused on a new secret."""
    replaced = [current for current, _ in plan.values()]
    for rel, (current, target) in plan.items():
        if target is None or target == current:
            continue
        slug = rel.rsplit("/", 1)[-1]
        copies = (_read(ws, f"{area}/{slug}") for area in SHARD_AREAS if f"{area}/{slug}" not in plan)
        families = new_secret_families(target, chain(replaced, copies))  # read only if needed
        if families:
            raise Refused(
                f"refused: memory/{rel} would hold a secret ({', '.join(families)}); "
                "write the fact without the value. Nothing was written"
            )


def _read(ws: Workspace, rel: str) -> str | None:
    try:
        return (ws.memory / rel).read_bytes().decode("utf-8", "replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
