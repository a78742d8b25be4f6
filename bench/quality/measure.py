"""What the benchmark measures, from the shards on disk and the truth labels of the fragments.

A *unit* is one distinct observation: a claim at one version on one day, stated by one statement
of a fragment (a fragment of several statements is cited for each by the belief holding it: the
shard whose heading holds that statement's truth value) (the same claim twice on
a day is one observation, the second a true duplicate). Every figure is computed per scenario
(a shard belongs to the scenario of the claim most of its active citations support) and overall.
- cited: units with a fragment still cited, active, or under `superseded:` in a shard whose
  active evidence is a later version of the same claim (a real update);
- contradiction precision: superseded fragments that a later version of their own claim
  overturned, over all superseded fragments; recall: real updates (a claim's version i to
  i+1, both logged) whose older evidence is superseded by the newer and active nowhere;
- updates that became the belief: claims with a real update whose latest version is the
  active evidence of a shard that states its value, with no older version active anywhere;
- ladder: shards whose strength word (the offline dreamer's prefix, or an inline ladder word)
  is the tier of the days the shard's claim was really observed at its current value, with
  the days it shows right and no second tier word stacked on it. A claim back to a value it
  had (a status ok, failed one day, ok again) holds that value on its earlier days too, back
  past the value it replaced to the first third value (`held_days`): those are its support,
  active again, never an update that must stay superseded;
- folded: fragments shown and cited nowhere whose observation is cited through another
  fragment (true duplicates); lost: the same with no fragment of the observation cited.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from corpus import Truth
from logger import LoggedFragment

from dreamdeck.core.formats.citations import sectioned_citations
from dreamdeck.core.formats.shards import parse_loose_shard
from dreamdeck.core.index.strength import ladder_tier

Key = tuple[str, str]
Pair = tuple[Key, str]  # a fragment and the claim (one of its statements) it is cited for

_PREFIX = re.compile(
    r"^\s*(mentioned once|observed on (\d+) days?|consistently \((\d+) days?\)|always \((\d+) days?\))\s*:\s*", re.I)
_INLINE = re.compile(r"\b(mentioned|observed|consistently|always)\b", re.I)
_UNREADABLE = re.compile(r"^(untitled-[0-9a-f]{6}(-\d+)?|[0-9]+(-[0-9]+)*)$")


@dataclass
class ShardView:
    slug: str
    heading: str
    active: set[Key]
    superseded: set[Key]


def read_shards(root: Path) -> list[ShardView]:
    out = []
    for path in sorted((root / "memory" / "topics").glob("*.md")):
        loose = parse_loose_shard(path.read_text(encoding="utf-8"))
        sections = sectioned_citations(loose.body)
        out.append(ShardView(path.stem, loose.heading, sections.active_keys(), sections.superseded_keys()))
    return out


def tier_of(heading: str) -> tuple[str | None, int | None, bool]:
    """(tier word, days shown or None, stacked?) of a belief's heading."""
    m = _PREFIX.match(heading)
    if m:
        word = m.group(1).split()[0].lower()
        tier = {"mentioned": "mentioned", "observed": "observed"}.get(word, word)
        shown = next((int(g) for g in m.groups()[1:] if g), 1 if tier == "mentioned" else None)
        rest = heading[m.end():]
        stacked = bool(_PREFIX.match(rest)) or bool(re.search(r"\b(observed|mentioned)\b", rest, re.I))
        return tier, shown, stacked
    words = {w.lower() for w in _INLINE.findall(heading)}
    if len(words) == 1:
        return words.pop(), None, False
    return None, None, len(words) > 1


class Measure:
    def __init__(self, fragments: list[LoggedFragment], shards: list[ShardView]):
        self.truths: dict[Key, tuple[Truth, ...]] = {(f.day, f.id): f.statements for f in fragments}
        self.fragments = fragments
        self.shards = shards
        # What each shard cites each fragment for: the statement its belief holds.
        self.read: dict[str, dict[Key, Truth]] = {
            s.slug: {k: self.truth_in(s, k) for k in s.active | s.superseded if k in self.truths} for s in shards}
        self.active: set[Pair] = {(k, self.read[s.slug][k].claim) for s in shards for k in s.active if k in self.truths}
        self.units: dict[tuple, list[Key]] = defaultdict(list)
        self.days: dict[tuple[str, int], set[str]] = defaultdict(set)
        for f in fragments:
            for t in f.statements:
                self.units[(t.claim, t.version, f.day)].append((f.day, f.id))
                self.days[(t.claim, t.version)].add(f.day)
        self.values: dict[tuple[str, int], str] = {
            (t.claim, t.version): t.value for f in fragments for t in f.statements}
        self.good_superseded: set[Pair] = set()
        self.bad_superseded: set[Pair] = set()
        for s in shards:
            newest = defaultdict(lambda: -1)
            for k in s.active & self.truths.keys():
                t = self.read[s.slug][k]
                newest[t.claim] = max(newest[t.claim], t.version)
            for k in s.superseded & self.truths.keys():
                t = self.read[s.slug][k]
                (self.good_superseded if newest[t.claim] > t.version else self.bad_superseded).add((k, t.claim))

    def held_days(self, claim: str, version: int) -> set[str]:
        """The days the claim held its value at `version`: that version's, and those of earlier
        versions with the same value, back past the value it replaced to the first third one."""
        value = self.values.get((claim, version))
        replaced = self.values.get((claim, version - 1))
        days = set(self.days[(claim, version)])
        v = version - 1
        while v >= 0 and self.values.get((claim, v)) in (value, replaced):
            if self.values.get((claim, v)) == value:
                days |= self.days[(claim, v)]
            v -= 1
        return days

    def returned(self, claim: str, version: int, top: int) -> bool:
        """Version `version` has the value the claim is back to at `top` (its days are held)."""
        return version < top and self.values.get((claim, version)) == self.values.get((claim, top)) and \
            self.held_days(claim, top) >= self.days[(claim, version)]

    def truth_in(self, shard: ShardView, key: Key) -> Truth:
        """The statement of fragment `key` that `shard` cites it for: the one whose value its
        belief holds, else (overturned evidence) one of a claim the shard's belief holds; a
        fragment of one statement: that one."""
        truths = self.truths[key]
        if len(truths) == 1:
            return truths[0]
        heading = shard.heading.casefold()
        held = [t for t in truths if t.value and t.value.casefold() in heading]
        if held or key in shard.active:
            return (held or truths)[0]
        claims = {self.truth_in(shard, k).claim for k in shard.active if k in self.truths}
        return next((t for t in truths if t.claim in claims), truths[0])

    def truth_of(self, pair: Pair) -> Truth:
        return next(t for t in self.truths[pair[0]] if t.claim == pair[1])

    def active_truths(self, shard: ShardView) -> list[Truth]:
        return [self.read[shard.slug][k] for k in sorted(shard.active) if k in self.truths]

    def scenario_of(self, shard: ShardView) -> str:
        claims = Counter(t.scenario for t in self.active_truths(shard))
        return claims.most_common(1)[0][0] if claims else "?"

    def report(self, scenario: str | None) -> dict:
        def mine(t: Truth) -> bool:
            return scenario is None or t.scenario == scenario

        cited_ok = self.active | self.good_superseded
        units = [(u, keys) for u, keys in self.units.items() if mine(self.truth_of((keys[0], u[0])))]
        cited = sum(1 for (claim, _v, _d), keys in units if any((k, claim) in cited_ok for k in keys))
        all_cited = self.active | self.good_superseded | self.bad_superseded
        shown = [(k, u[0]) for u, keys in units for k in keys]
        uncited = [p for p in shown if p not in all_cited]
        unit_of = {(k, u[0]): u for u, keys in units for k in keys}
        folded = [p for p in uncited if any((o, p[1]) in cited_ok for o in self.units[unit_of[p]])]
        good = [p for p in self.good_superseded if mine(self.truth_of(p))]
        bad = [p for p in self.bad_superseded if mine(self.truth_of(p))]

        versions: dict[str, int] = defaultdict(int)
        for (claim, version, _day), _keys in units:
            versions[claim] = max(versions[claim], version)
        transitions = detected = 0
        updates = became = 0
        for claim, top in versions.items():
            if top == 0:
                continue
            updates += 1
            for v in range(1, top + 1):
                older = [k for (c, ver, _d), keys in units if c == claim and ver == v - 1 for k in keys]
                if not older or not self.days.get((claim, v)):
                    continue
                transitions += 1
                if self.returned(claim, v - 1, top):  # the value it is back to: its evidence is active again
                    detected += any((k, claim) in self.active for k in older) and not any(
                        (k, claim) in self.good_superseded | self.bad_superseded for k in older)
                elif not any((k, claim) in self.active for k in older) and any((k, claim) in self.good_superseded for k in older):
                    detected += 1
            became += self._became(claim, top)

        ladder_ok = ladder_n = stacked = mixed = 0
        shard_count = 0
        for s in self.shards:
            if self.scenario_of(s) != (scenario or self.scenario_of(s)):
                continue
            shard_count += 1
            truths = self.active_truths(s)
            claims = Counter(t.claim for t in truths)
            if not claims:
                continue
            mixed += len(claims) > 1
            claim = claims.most_common(1)[0][0]
            version = max(t.version for t in truths if t.claim == claim)
            truth_days = len(self.held_days(claim, version))
            tier, shown_days, is_stacked = tier_of(s.heading)
            stacked += is_stacked
            ladder_n += 1
            right = tier == ladder_tier(truth_days) and not is_stacked
            if shown_days is not None and tier in ("observed", "consistently", "always"):
                right = right and shown_days == truth_days
            ladder_ok += right
        slugs = [s.slug for s in self.shards if scenario is None or self.scenario_of(s) == scenario]
        return {
            "fragments": len(shown),
            "observations": len(units),
            "cited_pct": _pct(cited, len(units)),
            "lost": len(uncited) - len(folded),
            "folded": len(folded),
            "superseded": len(good) + len(bad),
            "contradiction_precision_pct": _pct(len(good), len(good) + len(bad)),
            "contradiction_recall_pct": _pct(detected, transitions),
            "real_updates": transitions,
            "updates_became_belief_pct": _pct(became, updates),
            "updated_claims": updates,
            "ladder_pct": _pct(ladder_ok, ladder_n),
            "stacked_tiers": stacked,
            "shards": shard_count,
            "shards_per_100_obs": round(100 * shard_count / max(1, len(shown)), 1),
            "mixed_claim_shards": mixed,
            "unreadable_slugs": sum(1 for slug in slugs if _UNREADABLE.match(slug)),
        }

    def problems(self) -> list[str]:
        """One line per shard that mixes claims, words its strength wrongly, or holds evidence
        superseded by something that is not a later version of it."""
        out = []
        for s in self.shards:
            truths = self.active_truths(s)
            claims = Counter(t.claim for t in truths)
            if not claims:
                continue
            claim = claims.most_common(1)[0][0]
            version = max(t.version for t in truths if t.claim == claim)
            days = len(self.held_days(claim, version))
            tier, shown, stacked = tier_of(s.heading)
            if len(claims) > 1:
                out.append(f"mixed   {s.slug}: {dict(claims)}")
            if tier != ladder_tier(days) or stacked or (shown is not None and tier != "mentioned" and shown != days):
                out.append(f"ladder  {s.slug}: {s.heading[:70]!r} but {claim} v{version} seen on {days} days")
            for k in sorted(s.superseded & self.truths.keys()):
                t = self.read[s.slug][k]
                if (k, t.claim) in self.bad_superseded:
                    out.append(f"falsely superseded in {s.slug}: {t.claim} v{t.version}")
        for (claim, version, _day) in sorted(self.units):
            top = max(v for (c, v, _d) in self.units if c == claim)
            if version and any((k, claim) in self.active for (c, v, _d), ks in self.units.items()
                               if c == claim and v < version and not self.returned(claim, v, top) for k in ks):
                out.append(f"missed update {claim} -> v{version}")
        return sorted(set(out))

    def _became(self, claim: str, top: int) -> int:
        versions = [(k, t) for k, ts in self.truths.items() for t in ts if t.claim == claim]
        latest = {k for k, t in versions if t.version == top}
        if any((k, claim) in self.active for k, t in versions if t.version < top and not self.returned(claim, t.version, top)):
            return 0
        value = next(t.value for _k, t in versions if t.version == top)
        for s in self.shards:
            if any((k, claim) in self.active for k in s.active & latest) and value.casefold() in s.heading.casefold():
                return 1
        return 0


def _pct(n: int, d: int) -> float | None:
    return None if d == 0 else round(100.0 * n / d, 1)
