"""What a person forgot, as one read: tombstoned fragments and archived topics, with who and why.

The tombstones carry their own reason, actor and time; an archived topic's are in the audit
log line its forget wrote (`FORGET | memory/topics/<slug>.md | … | topic <slug> archived: <why>`).
A soft-forgotten fragment's bytes are still in its stream (so its text is shown and `unforget`
can bring it back); a hard-forgotten one has only the topic its tombstone kept.
"""
from __future__ import annotations

from dataclasses import dataclass

from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.formats.shards import parse_loose_shard
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.store.audit import read_entries
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.core.store.tombstones import load_tombstones
from dreamdeck.core.workspace import Workspace


@dataclass(frozen=True)
class ForgottenFragment:
    date: str
    id: str
    topic: str
    reason: str
    actor: str
    when: str  # ISO time of the forget
    hard: bool
    body: str | None  # None: the bytes are gone (hard forget, or collected outside dreamdeck)

    @property
    def key(self) -> str:
        return f"{self.date}#{self.id}"


@dataclass(frozen=True)
class ArchivedTopic:
    slug: str
    heading: str
    cites: int
    reason: str  # "" when no audit line says (archived by hand, or the log was trimmed)
    actor: str
    when: str
    text: str


def forgotten_fragments(ws: Workspace) -> list[ForgottenFragment]:
    """The live tombstones, newest forget first (two in the same second: the later record first)."""
    index = FragmentIndex(ws)
    out = []
    for stone in sorted(reversed(list(load_tombstones(ws).values())), key=lambda t: t.ts, reverse=True):
        frag = None if stone.hard else index.get(stone.date, stone.id)
        out.append(ForgottenFragment(stone.date, stone.id, frag.topic if frag else stone.topic, stone.reason,
                                     stone.actor, stone.ts, stone.hard, frag.body if frag else None))
    return out


def archived_topics(ws: Workspace) -> list[ArchivedTopic]:
    """Every shard in memory/archive/, the most recently archived first."""
    forgets = {e.file: e for e in read_entries(ws.root, action="FORGET", file="memory/topics/*.md")}
    out = []
    for slug, path in list_shard_files(ws.archive_dir):
        text = path.read_bytes().decode("utf-8", "replace")
        entry = forgets.get(f"memory/topics/{slug}.md")
        reason = ""
        if entry is not None:
            reason = entry.summary.split(": ", 1)[1] if ": " in entry.summary else entry.summary
        heading = parse_loose_shard(text).heading or slug
        out.append(ArchivedTopic(slug, heading, len(citation_keys(text)), reason,
                                 entry.actor if entry else "", entry.timestamp if entry else "", text))
    return sorted(out, key=lambda t: (t.when, t.slug), reverse=True)
