"""Saving and unsaving a recall query (`store.saved_queries`), through the one door: a person's
change to the list is a commit with an audit line, like any other change under `memory/`."""
from __future__ import annotations

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import Audit, ChangeSet, Commit, Writes
from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.secrets import redact_secrets
from dreamdeck.core.store.saved_queries import (
    SAVED_FILE,
    load_saved_queries,
    normal_query,
    saved_text,
    with_query,
    without_query,
)
from dreamdeck.core.workspace import Workspace

MAX_SAVED_QUERY = 500


def _checked(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise BadInput("a saved query needs some words")
    text = " ".join(query.split())
    if len(text) > MAX_SAVED_QUERY or text.startswith("#"):
        raise BadInput(f"a saved query is one line of at most {MAX_SAVED_QUERY} characters, not starting with '#'")
    if redact_secrets(text) != text:
        raise BadInput("refused: that query holds what looks like a secret; it is not saved")
    return text


def save_query(ws: Workspace, query: str, actor: str = "human:cli") -> bool:
    """Add `query` to the saved list; False when it was there already (nothing is written)."""
    query = _checked(query)
    if normal_query(query) in {normal_query(q) for q in load_saved_queries(ws)}:
        return False
    _write(ws, with_query(saved_text(ws), query), "EDIT", f"saved recall query {query!r}", actor)
    return True


def unsave_query(ws: Workspace, query: str, actor: str = "human:cli") -> bool:
    """Remove `query` from the saved list; False when it was not there."""
    query = _checked(query)
    if normal_query(query) not in {normal_query(q) for q in load_saved_queries(ws)}:
        return False
    _write(ws, without_query(saved_text(ws), query), "EDIT", f"unsaved recall query {query!r}", actor)
    return True


def _write(ws: Workspace, text: str, verb: str, summary: str, actor: str) -> None:
    cs = ChangeSet(Commit("edit", actor, "approved", "recall", summary, subject=f"memory: {summary}"),
                   Writes(meta_files={SAVED_FILE: text}),
                   audit=Audit(extra=[(verb, f"memory/meta/{SAVED_FILE}", summary)]))
    apply_changeset(ws, cs)
