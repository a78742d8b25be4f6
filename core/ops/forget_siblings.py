"""The siblings of a forgotten fragment: the same statement under other ids (another topic,
written another way), which its tombstone hides from every view and from the dreamer.

A shard that already cites a sibling still says the forgotten thing, so `forget` names each
sibling a shard cites, the shards, and the command that forgets it too. It does not strip them
itself: a sibling is another fragment, under another topic, in beliefs the person did not name;
each forget is its own decision, with its own reason and tombstone, and `unforget` of one does
not bring back another (README, *What you can trust it with*).
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass

from dreamdeck.core.formats.citations import Key
from dreamdeck.core.index.citation_ranges import file_keys
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.store.tombstones import Forgotten, Tombstone, load_tombstones
from dreamdeck.core.workspace import Workspace


@dataclass
class Sibling:
    fragment: str  # DATE#ID
    topic: str
    shards: list[str]  # paths under the agent folder (memory/…) citing it
    command: str  # the forget that strips it too

    def to_json(self) -> dict:
        return {"fragment": self.fragment, "topic": self.topic, "shards": self.shards, "command": self.command}

    def warning(self) -> str:
        return (f"the same statement is still cited as streams/{self.fragment} (topic {self.topic!r}) by "
                f"{', '.join(self.shards)}; hidden everywhere else now; `{self.command}` strips it too")


def cited_siblings(ws: Workspace, stones: list[Tombstone], *, reason: str, hard: bool) -> list[Sibling]:
    """The fragments, other than theirs, that `stones` forget by content and a shard (topics,
    archive, vault) cites, each with the shards citing it. Only cited fragments are looked up,
    one line each."""
    stones = [s for s in stones if s.hash or s.loose or s.body]  # none: it holds by identity only
    if not stones:
        return []
    held = Forgotten.of({s.key: s for s in stones})
    live = load_tombstones(ws)  # a fragment forgotten itself is no sibling to name
    citing: dict[Key, list[str]] = {}
    for rel, path in shard_area_files(ws):
        for key in file_keys(path):
            if key[1] not in held.ids and key not in live:
                citing.setdefault(key, []).append(f"memory/{rel}")
    index = FragmentIndex(ws)
    out: list[Sibling] = []
    for key in sorted(citing):
        fragment = index.get(*key)
        if fragment is None or not held.holds(None, fragment.topic, fragment.body):
            continue
        name = f"{key[0]}#{key[1]}"
        command = f"dreamdeck forget {name} --reason {shlex.quote(reason)}" + (" --hard" if hard else "")
        out.append(Sibling(name, fragment.topic, sorted(citing[key]), command))
    return out
