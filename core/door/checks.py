"""The door's checks, made before anything is written: containment (invariant 10), the citation
superset (invariant 1) and tombstones (invariant 9: a citation of a forgotten identity — its id
under any date, or a fragment whose content was forgotten — is refused). `lost_citations` is also the dream run's
check of what its dreamer wrote.
"""
from __future__ import annotations

from collections.abc import Iterable, Set

from dreamdeck.core.door.changeset import Evidence, Plan
from dreamdeck.core.errors import BadInput, Refused
from dreamdeck.core.formats.citations import Key, citation_keys, summarize_missing
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.slugs import is_valid_slug
from dreamdeck.core.index.evidence import SHARD_AREAS, shard_area_files
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.tombstones import forgotten
from dreamdeck.core.workspace import Workspace, parse_date


def validate_path(rel: str, allow_vault: bool) -> tuple[str, str]:
    """(area, slug) of a shard path, or Refused: containment for anything an LLM or proposal names."""
    parts = rel.split("/")
    if len(parts) != 2 or parts[0] not in SHARD_AREAS or not parts[1].endswith(".md"):
        raise Refused(f"refused: {rel!r} is not memory/<topics|vault|archive>/<slug>.md")
    slug = parts[1][:-3]
    if not is_valid_slug(slug):
        raise Refused(f"refused: {slug!r} is not a valid slug")
    if parts[0] == "vault" and not allow_vault:
        raise Refused(f"refused: {rel} is in the vault, which changes only by an explicit human pin/unpin")
    return parts[0], slug


def lost_citations(
    changes: Iterable[tuple[str | None, str | None]], elsewhere: Iterable[str], allow_drop: Set[Key] = frozenset(),
) -> list[Key]:
    """The (date, id)s the changed files cited before and nothing cites after, sorted.

    `changes` holds each changed file's (before, after) text. A citation that leaves them is not
    lost while a text in `elsewhere` (the files the change leaves alone) still holds it; those
    are taken one at a time and only while something is missing, so a change that keeps its
    citations reads none of them. `allow_drop`: citations an explicit forget removes.
    """
    before: set[Key] = set()
    after: set[Key] = set()
    for old, new in changes:
        before |= citation_keys(old or "")
        after |= citation_keys(new or "")
    candidates = before - after - allow_drop
    texts = iter(elsewhere)
    while candidates:  # the next text is read only while something is still missing
        text = next(texts, None)
        if text is None:
            break
        candidates -= citation_keys(text)
    return sorted(candidates)


def check_superset(ws: Workspace, plan: Plan, allow_drop: Set[Key]) -> None:
    """Refused, naming the ids, when the plan drops a citation that no other shard file holds."""
    untouched = (
        path.read_bytes().decode("utf-8", "replace") for rel, path in shard_area_files(ws) if rel not in plan
    )
    missing = lost_citations(plan.values(), untouched, allow_drop)
    if missing:
        raise Refused(
            f"refused: would drop {counted(len(missing), 'cited fragment')}: {summarize_missing(missing)}",
            missing=missing,
        )


def check_tombstones(ws: Workspace, plan: Plan) -> None:
    """No change may add a citation of a forgotten fragment (e.g. an old proposal)."""
    added: set[Key] = set()
    for current, target in plan.values():
        added |= citation_keys(target or "") - citation_keys(current or "")
    if not added:
        return
    stones = forgotten(ws)
    if not stones:
        return
    index = FragmentIndex(ws)

    def refused(key: Key) -> bool:
        if key[1] in stones.ids:
            return True
        frag = index.get(*key) if stones.by_content else None  # the same text under a new id
        return frag is not None and stones.holds(frag.id, frag.topic, frag.body)

    bad = sorted(k for k in added if refused(k))
    if bad:
        raise Refused(
            f"refused: would cite {counted(len(bad), 'forgotten fragment')}: {summarize_missing(bad)} "
            "(tombstoned; `dreamdeck unforget` first)"
        )


def check_state_readable(ws: Workspace, evidence: Evidence) -> None:
    """A change that advances or releases ids writes the dreaming state: never over one that
    cannot be read (a fresh state would forget every dreamed id and let the GC and the dreamer
    see a year of evidence again). The damaged file is left as it is, for `doctor`."""
    if not (evidence.advance or evidence.release):
        return
    _state, problem = load_state(ws.state_path)
    if problem is not None:
        raise Refused(f"the dreaming state cannot be read ({problem}); nothing was changed — "
                      "`dreamdeck doctor` says what is wrong with it")


def check_evidence_days(evidence: Evidence) -> None:
    """Every day the change names for the streams is a calendar date, before anything is written.
    A day comes from data a person or another program can write (a GC note's `date`, a journal):
    `../../x` would name a file outside `streams/`, and a day that fails only at the append, after
    the shards were written, left a journal every later change replayed and failed on."""
    days = (set(evidence.restore_lines) | set(evidence.advance) | set(evidence.release) | set(evidence.gc_days)
            | {day for day, _ in evidence.purge})
    for day in sorted(days, key=str):
        try:
            parse_date(day)
        except BadInput as exc:
            raise Refused(f"refused: the change names a stream day that is not a date ({exc}); nothing was changed") from None
