"""A person's edit of a topic shard: the new text goes through the one door like any other change
(runtime-owned frontmatter recomputed, no cited fragment lost, audited, one commit)."""
from __future__ import annotations

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ApplyResult, ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.errors import BadInput, NotFound
from dreamdeck.core.formats.slugs import require_slug
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.workspace import Workspace

__all__ = ["edit_shard", "read_shard_text"]


def read_shard_text(ws: Workspace, slug: str) -> str:
    """The exact text of `topics/<slug>.md`: what an edit starts from."""
    require_slug(slug)
    path = ws.topics_dir / f"{slug}.md"
    try:
        return read_text_nofollow(path)
    except FileNotFoundError:
        raise NotFound(f"no topic {slug} (memory/topics/{slug}.md)") from None


def edit_shard(ws: Workspace, slug: str, new_text: str, *, actor: str, base: str | None = None) -> ApplyResult:
    """Replace `topics/<slug>.md` with `new_text`, as `actor` wrote it.

    `base` is the text the edit was made from (default: the file as it is now); when the file has
    changed since, the door rebases the edit onto it with a 3-way merge or refuses the conflict.
    An edit that would drop a cited fragment is refused and nothing is written.
    """
    current = read_shard_text(ws, slug)
    base = current if base is None else base
    if new_text == base:
        raise BadInput(f"{slug}: nothing changed")
    cs = ChangeSet(Commit("edit", actor, "approved", "edit", f"edited {slug} by hand", subject=f"memory: edit {slug}"),
                   Writes([FileEdit(f"topics/{slug}.md", base, new_text)]))
    return apply_changeset(ws, cs)
