"""Scripted (and hostile) dreamers shared by the dream tests and the fault-injection
subprocesses. A scripted dreamer speaks only the tool protocol: it calls
`scratch.write_shard` / `scratch.delete_shard` / `scratch.finish`, exactly as an LLM would.
"""
from __future__ import annotations

import zlib
from collections.abc import Callable

from dreamdeck.core.dreaming.protocol import DreamerError, DreamInput, DreamScratch

Script = Callable[[DreamInput, DreamScratch], None]


def finish_accounting(inp, scratch, summary: str, **finish) -> None:
    """Finish, declaring every shown fragment left uncited noise with a reason, as a dreamer
    must (what it leaves unaccounted counts against the run's loss bound)."""
    from dreamdeck.core.dreaming.protocol import unaccounted

    noise = [{"cite": f"streams/{key}", "reason": "scripted: not cited"} for key in unaccounted(inp, scratch)]
    scratch.finish(summary, noise=noise, **finish)


class Scripted:
    """Runs `script(inp, scratch)`, records what it was shown, finishes with a summary."""

    def __init__(self, script: Script | None = None, name: str = "scripted", summary: str | None = None,
                 accounts: bool = True):
        self.script = script or (lambda inp, scratch: None)
        self.name = name
        self.summary = summary
        # A finished dream gives a reason for every fragment it leaves uncited; with `accounts`
        # the script's leftovers are declared noise ("scripted"), without it they stay unaccounted
        # and count against the run's loss bound ([dreaming] loss_bound).
        self.accounts = accounts
        self.seen: list[list[str]] = []  # citations shown, per call

    @property
    def calls(self) -> int:
        return len(self.seen)

    def dream(self, inp: DreamInput, scratch: DreamScratch):
        self.seen.append([f.citation for f in inp.fragments])
        self.script(inp, scratch)
        if not scratch.outcome.finished:
            summary = self.summary if self.summary is not None else f"scripted: {len(inp.fragments)} fragment(s)"
            if self.accounts:
                finish_accounting(inp, scratch, summary)
            else:
                scratch.finish(summary)
        return scratch.outcome


class Exploding:
    """Writes to the scratch, then fails the way a network/LLM dreamer fails."""

    name = "exploding"

    def __init__(self):
        self.calls = 0

    def dream(self, inp: DreamInput, scratch: DreamScratch):
        self.calls += 1
        scratch.write_shard("half-written", "Half a thought.\n\nfragments:\n" + "".join(
            f"- {f.citation}\n" for f in inp.fragments))
        raise DreamerError("the model went away mid-dream")


def body(belief: str, cites: list[str], superseded: list[str] = ()) -> str:
    """A shard body in TypeClaw's contract (belief, `fragments:`, optional `superseded:`)."""
    text = f"{belief}\n\nfragments:\n" + "".join(f"- {c}\n" for c in cites)
    if superseded:
        text += "\nsuperseded:\n" + "".join(f"- {c}\n" for c in superseded)
    return text


def draft(belief: str, cites: list[str], superseded: list[str] = (), tags: str | None = None) -> str:
    """What the dreaming prompt's template asks for: placeholder counts the runtime fixes.

    Heading and sentence follow `tests.support.memory.shard_text` ("X" / "X."), so a draft that only adds
    citations to a shard_text shard is a pure citation addition.
    """
    heading = belief.rstrip(".")
    fm = f"---\nheading: {heading}\ncites: 0\ndays: 0\nlastReinforced: 2000-01-01\n" + (f"tags: {tags}\n" if tags else "") + "---\n"
    return fm + body(heading + ".", cites, superseded)


def citations_in(text: str) -> list[str]:
    from dreamdeck.core.formats.citations import CITATION

    return sorted({f"streams/{d}#{i}" for _, d, i in CITATION.findall(text)})


def cite_all(slug: str, belief: str) -> Script:
    """Create or extend `slug` so it cites every fragment shown (keeping what it cited)."""

    def script(inp: DreamInput, scratch: DreamScratch) -> None:
        old = citations_in(scratch.files.get(slug, ""))
        new = [f.citation for f in inp.fragments if f.citation not in old]
        scratch.write_shard(slug, draft(belief, old + new))

    return script


def merge_into(target: str, sources: list[str], belief: str, extra: Callable[[DreamInput], list[str]] = lambda inp: []) -> Script:
    """A legitimate merge: write `target` with the union of the sources' citations, delete them."""

    def script(inp: DreamInput, scratch: DreamScratch) -> None:
        union: list[str] = []
        for s in sources:
            union += [c for c in citations_in(scratch.files[s]) if c not in union]
        scratch.write_shard(target, draft(belief, union + [c for c in extra(inp) if c not in union]))
        for s in sources:
            scratch.delete_shard(s)

    return script


def cites_half(inp, scratch) -> None:
    """Cite roughly half of what it sees (by a hash of the id), one shard per source: a dream
    that leaves the rest dreamed and uncited, for the GC to take."""
    by_source: dict[str, list[str]] = {}
    for f in inp.fragments:
        if zlib.crc32(f.id.encode()) % 2 == 0:
            by_source.setdefault(f.source, []).append(f.citation)
    for source, new in by_source.items():
        slug = "from-" + source
        old = citations_in(scratch.files.get(slug, ""))
        scratch.write_shard(slug, draft(f"Things {source} observed", old + new))
