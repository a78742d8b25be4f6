"""Does a newer claim contradict an older one? The one contradiction rule of dreamdeck.

Both the offline dreamer and the proposals inbox (`store.proposals_file.find_conflicts`) ask
this module. A contradiction needs the same subject and a different value; a temporal word
("now", "currently") alone never makes one, and sibling bullets or table rows about different
subjects never do. `contradiction_reason(old, new)` names the rule that fired:

- **value**: the same setting with another value: `key: value` lines or table rows with the
  same key, "X is Y" copulas with the same subject, a change ("X moved/switched/raised ... to
  Z", "disabled X", "X 从 Y 改为 Z", "X을 Y에서 Z으로 변경") of the same subject; or the same
  verb on the same subject whose object differs only in a number, time or day ("uses Node 18"
  / "uses Node 20"); two bans on other weekdays are two rules, not an update ("never deploy on
  Fridays" / "never deploy on Mondays"), unless the newer carries a change marker; or the same noun-phrase subject with a measured value of the same kind
  that differs (`measures`: "Keep Slack replies under five sentences" / "Slack replies: three
  sentences at most"; "keep logs 30 days" / "delete logs after 30 days" name two subjects). Values must really differ: neither includes the other ("March 15" /
  "March 15, 2026" is a refinement). A value that is a sentence ("Dana: approved the budget",
  "Next step: ask Dana") is a report, not a setting, and never takes part; a one-word key
  ("Bob: backend" / "Bob: out sick") names the same setting only within one topic.
- **negation**: one claim rules out what the other affirms ("use pnpm, not bun" / "uses bun";
  "no longer using Notion" / "notes app: Notion"; "X instead of Y"), with a word besides the
  ruled-out one in common; or the same verb on the same subject, negated on one side only
  ("prefers pnpm" / "no longer prefers pnpm").
- **state**: a task's checkbox changed ("- [ ] update the handbook" / "- [x] update the
  handbook"): the same words with another state (`cleaning.task_state`).
- **correction**: the same verb and subject with another object, and the newer claim carries an
  explicit change marker ("actually", "instead", "switched", "moved", "anymore"), or only "now"
  when both objects are short ("prefers tabs" / "now prefers spaces"); or, within one topic, an
  explicit change marker, at least two shared words and a number, time or day that differs
  ("the release train has moved: releases are cut every Thursday" / "... every Tuesday").

Additive claims ("also uses Node 20") add a fact and contradict nothing but a ruled-out value.
Events (past-tense reports: "Deployed v2.3", "Met with Dana") never contradict each other, and
a question ("Dana: can we move standup to 10?") states no value: it contradicts nothing and
nothing contradicts it (its answer, "standup moved to 10:00", is a claim of its own).
`same_topic` says whether the two come from the same topic (label or shard): it lets a
one-word subject include another and allows the **correction** rule on overlapping words.
"""
from __future__ import annotations

from dreamdeck.core.claims.cleaning import is_question
from dreamdeck.core.claims.extract import Claim, extract
from dreamdeck.core.claims.measures import measure_relation, only_days
from dreamdeck.core.claims.sameness import NEAR_DUPLICATE, jaccard, subjects_match
from dreamdeck.core.claims.tokens import STOPWORDS, stem

__all__ = ["STOPWORDS", "contradiction_reason", "contradicts", "stem"]

_SHORT_OBJECT = 3


def _claim(c: str | Claim) -> Claim:
    return c if isinstance(c, Claim) else extract(c)


def _differ(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a) and bool(b) and not (a <= b or b <= a)


def _ruled_out(old: Claim, new: Claim, same_topic: bool) -> bool:
    """`new` rules out what `old` affirms, and they share a word besides it."""
    hit = new.rejected & old.affirmed
    if not hit or hit <= old.rejected:
        return False
    shared = (old.terms & new.terms) - new.rejected
    return bool(shared) or subjects_match(old.subject, new.subject, same_topic)


def _negation(old: Claim, new: Claim, same_topic: bool) -> bool:
    if _ruled_out(old, new, same_topic) or _ruled_out(new, old, same_topic):
        return True
    if old.predicate is None and new.predicate is None and old.negated != new.negated:
        return bool(old.terms) and old.terms == new.terms  # the same words, negated on one side
    if old.predicate is None or old.predicate != new.predicate or old.negated == new.negated:
        return False
    if not subjects_match(old.subject, new.subject, same_topic):
        return False
    a, b = old.value - old.rejected, new.value - new.rejected
    return a <= b or b <= a


def _value(old: Claim, new: Claim, same_topic: bool) -> bool:
    if new.additive or old.event or new.event:
        return False
    measured = measure_relation(old, new) if old.negated == new.negated else None
    if measured == "changed" and old.negated and new.negated and not new.marker and only_days(old, new):
        # A setting holds one day at a time; a ban can hold many: "never deploy on Fridays" and
        # "never deploy on Mondays" are two rules ("... on Mondays instead" is a correction).
        return False
    if measured in ("same", "changed"):
        return measured == "changed"  # the same subject: its measured value decides
    # Another kind of value ("30 days" / "30 MB") is left to the forms below: a key keeps its rule.
    if old.predicate == "=" and new.predicate == "=":
        return (
            old.setting and new.setting
            and (same_topic or len(old.subject or ()) > 1)  # one word ("Bob:") is no subject alone
            and subjects_match(old.subject, new.subject, same_topic)
            and old.negated == new.negated
            and _differ(old.value, new.value)
        )
    if old.predicate is None or old.predicate != new.predicate:
        return False
    if not subjects_match(old.subject, new.subject, same_topic):
        return False
    old_values, new_values = old.value & old.values, new.value & new.values
    return (old.value - old_values) == (new.value - new_values) and _differ(old_values, new_values)


def _correction(old: Claim, new: Claim, same_topic: bool) -> bool:
    if new.additive or new.event or old.event or not (new.marker or new.soft_marker):
        return False
    same_verb = old.predicate not in (None, "=") and old.predicate == new.predicate
    if same_verb and subjects_match(old.subject, new.subject, same_topic) and _differ(old.value, new.value):
        if new.marker:
            return True
        return len(old.value) <= _SHORT_OBJECT and len(new.value) <= _SHORT_OBJECT
    if not (same_topic and new.marker):
        return False
    shared = (old.terms & new.terms) - new.rejected
    return len(shared) >= 2 and bool(old.values - new.values) and bool(new.values - old.values)


def _same_task(a: Claim, b: Claim) -> bool:
    """Two checkbox lines for one task: the same words (or nearly)."""
    return a.text.casefold() == b.text.casefold() or jaccard(a.terms, b.terms) >= NEAR_DUPLICATE


def _summary_changed(old: Claim, new: Claim) -> bool:
    """A topic summary's place, tool, person or number replaced by an explicit change."""
    if new.additive or not new.marker:
        return False
    before, after = old.values | old.names, new.values | new.names
    return bool(before - after) and bool(after - before)


def contradiction_reason(
    old: str | Claim, new: str | Claim, *, same_topic: bool = True, old_is_summary: bool = False,
) -> str | None:
    """'state', 'value', 'negation' or 'correction' when `new` overturns `old`, else None.
    `old_is_summary`: `old` is a topic shard a person or an LLM wrote (a summary of its topic,
    not one claim); within that topic, an explicit change ("moved to Lisbon") that replaces one
    of its names or numbers is a correction too ("The user mentioned living in Berlin")."""
    a, b = _claim(old), _claim(new)
    if a.state and b.state and a.state != b.state:
        return "state" if _same_task(a, b) else None
    if a.text.casefold() == b.text.casefold() or is_question(a.text) or is_question(b.text):
        return None
    if _value(a, b, same_topic):
        return "value"
    if _negation(a, b, same_topic):
        return "negation"
    if _correction(a, b, same_topic):
        return "correction"
    if old_is_summary and same_topic and _summary_changed(a, b):
        return "correction"
    return None


def contradicts(old: str | Claim, new: str | Claim, *, same_topic: bool = True, old_is_summary: bool = False) -> bool:
    """True when the newer claim corrects or overturns the older one (see the module doc)."""
    return contradiction_reason(old, new, same_topic=same_topic, old_is_summary=old_is_summary) is not None
