"""doctor's fast path over shards (`doctor_memory._canonical_shard`): a shard in the canonical
shape is judged without TypeClaw's line rules or a recompute, and the judgment — unparseable,
stale frontmatter, whether it depends on today, its citation keys — is exactly the strict one,
for the canonical shape and its near misses."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats import shards
from dreamdeck.core.ops import doctor_memory
from dreamdeck.core.ops.doctor_memory import examine_shard

TODAY = "2026-11-22"
REL = "topics/s.md"


def strict(text: str) -> tuple:
    """The strict path alone: TypeClaw's parse and recompute decide."""
    fast = doctor_memory._canonical_shard
    doctor_memory._canonical_shard = lambda *_args: None
    try:
        return examine_shard(REL, "s", text, TODAY)
    finally:
        doctor_memory._canonical_shard = fast


def check(text: str) -> None:
    assert examine_shard(REL, "s", text, TODAY) == strict(text)


def test_a_shard_gives_its_keys_once_each_on_either_path():
    text = ("---\nheading: See streams/2026-05-19#h\ncites: 3\ndays: 2\nlastReinforced: 2026-05-21\n---\n\n"
            "fragments:\n- streams/2026-05-20#a\n- streams/2026-05-20#b\n- memory/2026-05-21#c\n- streams/2026-05-20#a\n")
    keys = {"2026-05-19#h", "2026-05-20#a", "2026-05-20#b", "2026-05-21#c"}
    assert examine_shard(REL, "s", text, TODAY)[2] == strict(text)[2] == keys
    bare = "no frontmatter: streams/2026-05-20#a, streams/2026-05-20#a and memory/2026-05-22#d"
    assert examine_shard(REL, "s", bare, TODAY)[2] == {"2026-05-20#a", "2026-05-22#d"}


def test_a_canonical_shard_is_judged_without_the_line_rules_or_a_recompute(monkeypatch):
    def refuse(*_args):
        raise AssertionError("the strict path ran for a canonical shard")

    text = ("---\nheading: Uses pnpm\ncites: 3\ndays: 2\nlastReinforced: 2026-05-21\n---\n\nfragments:\n"
            "- streams/2026-05-20#a\n- streams/2026-05-20#b\n- memory/2026-05-21#c\n")
    monkeypatch.setattr(doctor_memory, "parse_shard", refuse)
    monkeypatch.setattr(doctor_memory, "recompute_shard_text", refuse)
    monkeypatch.setattr(shards, "parse_frontmatter", refuse)
    assert examine_shard(REL, "s", text, TODAY) == ([], False, {"2026-05-20#a", "2026-05-20#b", "2026-05-21#c"})
    stale = text.replace("cites: 3", "cites: 4")
    assert examine_shard(REL, "s", stale, TODAY)[0][0][0] == "stale-frontmatter"


_HEADING = st.one_of(st.just("Uses pnpm"), st.just("See streams/2026-01-01#h"),
                     st.lists(st.sampled_from(list("ab :-\t\xa0\u2028\ufeffx1é") + ["streams/2026-01-01#h", "\r"]),
                              min_size=0, max_size=5).map("".join))
_COUNT = st.sampled_from(["", "01", "-1", " 3", "1e3", "9999999999999999", "0", "2"])
_DATE = st.sampled_from(["2026-05-20", TODAY, "2026-1-22", "x", ""])
_CITE = st.sampled_from(["- streams/2026-05-20#a", "- streams/2026-05-20#b", "- memory/2026-05-21#a",
                         "streams/2026-05-21#a inline", "- Streams/2026-05-20#z", "- streams/2026-05-2#q",
                         "fragments:", "superseded:", "", "text", "\r", "---"])
_CLOSE = st.sampled_from(["\n---\n", "\n---", "\n----\n", "\n--- \n", "\r\n---\r\n", "\n---x"])


@settings(max_examples=300, deadline=None)
@given(_HEADING, st.lists(st.one_of(st.none(), _COUNT), min_size=2, max_size=2),
       st.one_of(st.none(), _DATE), st.sampled_from(["", "", "", "\ntags: [a]", "\nheading: again", "\n"]),
       st.one_of(st.just("\n---\n"), _CLOSE), st.lists(_CITE, max_size=6).map("\n".join))
def test_the_canonical_shape_and_its_near_misses_are_judged_as_the_strict_path(heading, counts, date, tail,
                                                                                close, body):
    """None: the value the recompute would write (so the shape is often exactly canonical)."""
    right = shards.strength_of(body, TODAY)
    cites, days = (str(right[i]) if given is None else given for i, given in enumerate(counts))
    date = right[2] if date is None else date
    check(f"---\nheading: {heading}\ncites: {cites}\ndays: {days}\nlastReinforced: {date}{tail}{close}{body}")


def test_current_and_stale_counts_agree_with_the_recompute():
    body = "\nfragments:\n- streams/2026-05-20#a\n- streams/2026-05-20#a\n- memory/2026-05-20#a\n- streams/2026-05-22#b\n"
    for cites in range(4):
        for days in range(3):
            for date in ("2026-05-20", "2026-05-22", TODAY):
                check(f"---\nheading: H\ncites: {cites}\ndays: {days}\nlastReinforced: {date}\n---\n{body}")
    for date in ("2026-05-20", TODAY):  # a shard citing nothing is reinforced today
        check(f"---\nheading: H\ncites: 0\ndays: 0\nlastReinforced: {date}\n---\nno citations\n")


def test_near_misses_of_the_canonical_shape_are_judged_as_the_strict_path():
    head = "---\nheading: H\ncites: 1\ndays: 1\nlastReinforced: 2026-05-20"
    cite = "- streams/2026-05-20#a"
    for text in (
        f"{head}\n---\n{cite}\r\n",  # a CRLF in the body: TypeClaw's recompute writes LF
        f"{head}\n---\n{cite}\rmore\n",  # a lone CR
        f"{head}\r\n---\r\n{cite}\n",
        f"{head}\n---x{cite}\n",  # the character after the closing dashes is dropped by the recompute
        f"{head}\n----\n{cite}\n",
        f"{head}\n---",  # closed at the very end
        f"{head}\n---\n",  # cites nothing: stale against today's date
        f"{head.replace('H', 'See streams/2026-01-01#h')}\n---\n{cite}\n",  # a citation in the heading
        f"{head.replace('H', ' H')}\n---\n{cite}\n",  # a heading JavaScript trims
        f"\ufeff{head}\n---\n{cite}\n",
    ):
        check(text)
