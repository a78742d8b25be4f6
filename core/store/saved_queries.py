"""Saved recall queries: the questions a person wants checked before approving a reflection.

`memory/meta/saved-queries.txt`, one query per line (blank lines and `#` comments are skipped).

Where they live, and why: in `memory/meta/`, not in `dreamdeck.toml`. They are questions about
this agent's memory ("which package manager do we use?"), so they travel with the agent folder
and its history like the reflections they are replayed against, and every person and process
using the folder sees the same list. `dreamdeck.toml` says how dreamdeck behaves and is the
person's own hand-written file (dreamdeck never rewrites it, and would lose its comments if it
did); the per-user config holds only preferences (theme, keys). Plain lines, so a person or the
agent can add one with any editor; dreamdeck's own saves go through the door (`ops.saved_queries`:
a commit and an audit line).
"""
from __future__ import annotations

from dreamdeck.core.workspace import Workspace

SAVED_FILE = "saved-queries.txt"
HEADER = "# Recall queries replayed before approving a reflection (dreamdeck review r-N --impact)\n"


def normal_query(query: str) -> str:
    """The form two spellings of one question share: words single-spaced, case folded."""
    return " ".join(query.split()).casefold()


def saved_text(ws: Workspace) -> str | None:
    try:
        return (ws.meta_dir / SAVED_FILE).read_bytes().decode("utf-8", "replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def parse_saved(text: str | None) -> list[str]:
    """The queries of the file's text, in its order, each once."""
    out: list[str] = []
    seen: set[str] = set()
    for line in (text or "").splitlines():
        query = " ".join(line.split())
        if not query or query.startswith("#") or normal_query(query) in seen:
            continue
        seen.add(normal_query(query))
        out.append(query)
    return out


def load_saved_queries(ws: Workspace) -> list[str]:
    return parse_saved(saved_text(ws))


def with_query(text: str | None, query: str) -> str:
    """The file's text with `query` added at the end (unchanged when it is there already)."""
    query = " ".join(query.split())
    if normal_query(query) in {normal_query(q) for q in parse_saved(text)}:
        return text or HEADER
    base = text if text else HEADER
    return base + ("" if base.endswith("\n") else "\n") + query + "\n"


def without_query(text: str | None, query: str) -> str:
    """The file's text without any line holding `query`."""
    target = normal_query(query)
    lines = (text or "").splitlines(keepends=True)
    return "".join(ln for ln in lines if ln.strip().startswith("#") or normal_query(ln) != target)
