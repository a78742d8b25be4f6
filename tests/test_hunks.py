"""core.hunks against real git: ids, partial apply, edge texts, merges, patch parsing."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.git.diff import FileDiff, Hunk, apply_hunks, diff_many, diff_texts, parse_patch
from dreamdeck.core.git.merge import merge3, rebase_change
from tests.support import REPO
from tests.support.git import git


def numbered(n: int, prefix: str = "line") -> list[str]:
    return [f"{prefix} {i}\n" for i in range(1, n + 1)]


# A 12-line shard with two edits far enough apart (line 2 and line 11) for two hunks.
BEFORE_2 = "".join(numbered(12))
AFTER_2 = BEFORE_2.replace("line 2\n", "line two\n").replace("line 11\n", "line 11\nline 11.5\n")


def ids(diff: FileDiff) -> list[str]:
    return [h.id for h in diff.hunks]


# --------------------------------------------------------------------------- ids and hunks


def test_hunk_ids_are_stable_across_calls_and_processes():
    first = ids(diff_texts("topics/a.md", BEFORE_2, AFTER_2))
    second = ids(diff_texts("topics/a.md", BEFORE_2, AFTER_2))
    code = (
        "import sys; from dreamdeck.core.git.diff import diff_texts; "
        "print(' '.join(h.id for h in diff_texts(sys.argv[1], sys.argv[2], sys.argv[3]).hunks))"
    )
    other_process = subprocess.run(
        [sys.executable, "-c", code, "topics/a.md", BEFORE_2, AFTER_2],
        cwd=REPO, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    ).stdout.split()
    assert first == second == other_process
    assert all(i.startswith("h-") and len(i) == 12 for i in first)


def test_different_changes_or_paths_give_different_ids():
    base = ids(diff_texts("topics/a.md", BEFORE_2, AFTER_2))
    other_text = ids(diff_texts("topics/a.md", BEFORE_2, AFTER_2.replace("two", "TWO")))
    other_path = ids(diff_texts("topics/b.md", BEFORE_2, AFTER_2))
    assert base[0] != other_text[0]  # first hunk's added line differs
    assert base[1] == other_text[1]  # second hunk untouched, same id
    assert set(base).isdisjoint(other_path)


def test_two_far_apart_edits_give_two_hunks_with_git_headers():
    # git appends the nearest preceding "function" line (here, any line) to the header.
    diff = diff_texts("topics/a.md", BEFORE_2, AFTER_2)
    assert diff.status == "modified"
    assert [h.header for h in diff.hunks] == ["@@ -1,5 +1,5 @@", "@@ -9,4 +9,5 @@ line 8"]
    first, second = diff.hunks
    assert (first.added, first.removed, second.added, second.removed) == (1, 1, 1, 0)
    assert first.lines == (
        (" ", "line 1"), ("-", "line 2"), ("+", "line two"),
        (" ", "line 3"), (" ", "line 4"), (" ", "line 5"),
    )
    assert first.text() == (
        "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line two\n line 3\n line 4\n line 5\n"
    )


def test_identical_texts_give_no_hunks():
    assert diff_texts("a.md", BEFORE_2, BEFORE_2).hunks == ()


def test_context_zero_gives_bare_hunks_that_still_apply():
    diff = diff_texts("a.md", BEFORE_2, AFTER_2, context=0)
    assert [h.header for h in diff.hunks] == ["@@ -2 +2 @@ line 1", "@@ -11,0 +12 @@ line 11"]
    insert = diff.hunks[1].id
    assert apply_hunks(BEFORE_2, AFTER_2, {insert}, "a.md", context=0) == BEFORE_2.replace(
        "line 11\n", "line 11\nline 11.5\n")


# --------------------------------------------------------------------------- apply_hunks


def test_apply_every_subset_of_two_hunks_gives_hand_written_bytes():
    first, second = ids(diff_texts("topics/a.md", BEFORE_2, AFTER_2))
    only_first = (
        "line 1\nline two\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"
        "line 9\nline 10\nline 11\nline 12\n"
    )
    only_second = (
        "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"
        "line 9\nline 10\nline 11\nline 11.5\nline 12\n"
    )
    both = (
        "line 1\nline two\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"
        "line 9\nline 10\nline 11\nline 11.5\nline 12\n"
    )
    assert apply_hunks(BEFORE_2, AFTER_2, set(), "topics/a.md") == BEFORE_2
    assert apply_hunks(BEFORE_2, AFTER_2, {first}, "topics/a.md") == only_first
    assert apply_hunks(BEFORE_2, AFTER_2, {second}, "topics/a.md") == only_second
    assert apply_hunks(BEFORE_2, AFTER_2, frozenset({first, second}), "topics/a.md") == both
    assert both == AFTER_2


def test_unknown_hunk_id_raises_key_error_naming_it():
    good = ids(diff_texts("topics/a.md", BEFORE_2, AFTER_2))[0]
    with pytest.raises(KeyError, match="h-deadbeef00"):
        apply_hunks(BEFORE_2, AFTER_2, {good, "h-deadbeef00"}, "topics/a.md")


def test_added_file_is_one_hunk_all_or_nothing():
    after = "# New topic\n\nA belief.\n"
    diff = diff_texts("topics/new.md", None, after)
    assert diff.status == "added"
    (hunk,) = diff.hunks
    assert hunk.header == "@@ -0,0 +1,3 @@" and hunk.added == 3
    assert apply_hunks(None, after, {hunk.id}, "topics/new.md") == after
    assert apply_hunks(None, after, set(), "topics/new.md") is None


def test_deleted_file_all_gives_none_and_none_gives_before():
    before = "# Old topic\nA belief.\n"
    diff = diff_texts("topics/old.md", before, None)
    assert diff.status == "deleted"
    (hunk,) = diff.hunks
    assert hunk.header == "@@ -1,2 +0,0 @@" and hunk.removed == 2
    assert apply_hunks(before, None, {hunk.id}, "topics/old.md") is None
    assert apply_hunks(before, None, set(), "topics/old.md") == before


def test_empty_file_created_has_no_hunks_and_applies_as_after():
    diff = diff_texts("topics/empty.md", None, "")
    assert diff == FileDiff("topics/empty.md", "added", ())
    assert apply_hunks(None, "", set(), "topics/empty.md") == ""


def test_both_sides_missing_is_an_error():
    with pytest.raises(ValueError):
        diff_texts("x.md", None, None)


@pytest.mark.parametrize(
    "before, after",
    [
        ("a\nb\nc", "a\nb\nc\n"),  # newline added at end
        ("a\nb\nc\n", "a\nb\nc"),  # newline dropped at end
        ("a\nb\nc", "a\nB\nc"),  # missing on both sides, last line is context
        ("a\nb\nc", "a\nb\nC"),  # missing on both sides, last line changed
    ],
)
def test_missing_trailing_newline_round_trips(before, after):
    diff = diff_texts("t.md", before, after)
    every = {h.id for h in diff.hunks}
    assert apply_hunks(before, after, every, "t.md") == after
    assert apply_hunks(before, after, set(), "t.md") == before
    text = "".join(h.text() for h in diff.hunks)
    assert "\\ No newline at end of file\n" in text
    assert all(h.no_newline_at for h in diff.hunks[-1:])


def test_newline_only_change_is_visible_in_hunk_and_id():
    added = diff_texts("t.md", "a\nb", "a\nb\n").hunks[0]
    assert added.lines == ((" ", "a"), ("-", "b"), ("+", "b"))
    assert added.no_newline_at == (1,)
    dropped = diff_texts("t.md", "a\nb\n", "a\nb").hunks[0]
    assert dropped.no_newline_at == (2,)
    assert added.id != dropped.id


def test_partial_apply_keeps_missing_final_newline():
    before = "".join(numbered(10)) + "tail"
    after = before.replace("line 1\n", "line one\n").replace("tail", "TAIL")
    first, last = ids(diff_texts("t.md", before, after))
    assert apply_hunks(before, after, {first}, "t.md") == before.replace("line 1\n", "line one\n")
    assert apply_hunks(before, after, {last}, "t.md") == before.replace("tail", "TAIL")


def test_crlf_text_is_kept_byte_exact():
    before = "".join(line.replace("\n", "\r\n") for line in numbered(12))
    after = before.replace("line 2\r\n", "line two\r\n").replace("line 12\r\n", "line 12\r\nend\r\n")
    diff = diff_texts("crlf.md", before, after)
    first, second = diff.hunks
    assert ("+", "line two\r") in first.lines  # "\r" is content, only "\n" is stripped
    assert apply_hunks(before, after, {first.id}, "crlf.md") == before.replace(
        "line 2\r\n", "line two\r\n")
    assert apply_hunks(before, after, {second.id}, "crlf.md") == before + "end\r\n"
    assert apply_hunks(before, after, {first.id, second.id}, "crlf.md") == after


def test_line_ending_change_from_crlf_to_lf_is_a_hunk():
    diff = diff_texts("t.md", "a\r\nb\r\n", "a\r\nb\n")
    (hunk,) = diff.hunks
    assert hunk.lines == ((" ", "a\r"), ("-", "b\r"), ("+", "b"))
    assert apply_hunks("a\r\nb\r\n", "a\r\nb\n", {hunk.id}, "t.md") == "a\r\nb\n"


def test_non_ascii_lines_korean_and_accents():
    before = "# 기억\n" + "".join(numbered(8, "café")) + "한국어 믿음\n"
    after = before.replace("# 기억\n", "# 장기 기억\n").replace("한국어 믿음\n", "한국어 믿음 — révisé\n")
    diff = diff_texts("topics/기억.md", before, after)
    first, second = diff.hunks
    assert ("+", "# 장기 기억") in first.lines
    assert ("-", "한국어 믿음") in second.lines
    assert apply_hunks(before, after, {second.id}, "topics/기억.md") == before.replace(
        "한국어 믿음\n", "한국어 믿음 — révisé\n")
    assert apply_hunks(before, after, {first.id, second.id}, "topics/기억.md") == after


def test_unicode_line_separators_are_content_not_line_breaks():
    before = "a\u2028b\x0cc\rd\n" + "".join(numbered(8)) + "x\n"
    after = before.replace("x\n", "y\n")
    diff = diff_texts("t.md", before, after)
    (hunk,) = diff.hunks
    assert hunk.old_start == 7  # the first line counts as one line in git's eyes
    assert apply_hunks(before, after, {hunk.id}, "t.md") == after


def test_user_git_config_cannot_change_hunks(tmp_path, monkeypatch):
    expected = diff_texts("a.md", BEFORE_2, AFTER_2)
    hostile = tmp_path / "gitconfig"
    hostile.write_text(
        "[diff]\n\tnoprefix = true\n\talgorithm = patience\n\tcontext = 9\n"
        "\tsuppressBlankEmpty = true\n\texternal = false\n"
        "[color]\n\tui = always\n\tdiff = always\n[core]\n\tautocrlf = true\n"
    )
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(hostile))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'color.diff'='always'")
    assert diff_texts("a.md", BEFORE_2, AFTER_2) == expected


# --------------------------------------------------------------------------- property test

LINE = st.one_of(
    st.sampled_from(["", "a", "b", "c", "# head", "- [x] 기억", "é", "x\r"]),
    st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=6),
)


def as_text(lines: list[str], trailing_newline: bool) -> str:
    text = "\n".join(lines)
    return text + "\n" if (lines and trailing_newline) else text


@settings(max_examples=60, deadline=None)
@given(
    before=st.lists(LINE, max_size=25), before_nl=st.booleans(),
    after=st.lists(LINE, max_size=25), after_nl=st.booleans(),
    pick=st.randoms(use_true_random=False),
)
def test_property_all_hunks_give_after_and_none_give_before(before, before_nl, after, after_nl, pick):
    old, new = as_text(before, before_nl), as_text(after, after_nl)
    diff = diff_texts("p.md", old, new)
    every = {h.id for h in diff.hunks}
    assert apply_hunks(old, new, every, "p.md") == new
    assert apply_hunks(old, new, set(), "p.md") == old
    # Any subset rebuilds without tripping the guard that copied lines match the hunks.
    subset = {i for i in every if pick.random() < 0.5}
    assert isinstance(apply_hunks(old, new, subset, "p.md"), str)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.lists(LINE, max_size=12)), st.booleans(),
                          st.one_of(st.none(), st.lists(LINE, max_size=12)), st.booleans()),
                min_size=1, max_size=8))
def test_many_files_diffed_in_one_git_run_give_exactly_the_one_file_diffs(files):
    """A 50-shard approval diffs its files in one git process; every file must get the very
    hunks (and ids) that diffing it alone gives: added, deleted, unchanged, no final newline."""
    items = []
    for n, (before, before_nl, after, after_nl) in enumerate(files):
        old = None if before is None else as_text(before, before_nl)
        new = None if after is None else as_text(after, after_nl)
        if old is None and new is None:
            new = ""
        items.append((f"topics/s{n}.md", old, new))
    assert diff_many(items) == [diff_texts(path, old, new) for path, old, new in items]


def test_diffing_many_files_keeps_crlf_non_ascii_and_odd_names_apart():
    items = [
        ("topics/a.md", "one\r\ntwo\r\n", "one\r\nTWO\r\n"),
        ("topics/b b.md", "가나다\n", "가나다라\n"),
        ("topics/c.md", "same\n", "same\n"),
        ("vault/d.md", None, "new file\n"),
        ("topics/e.md", "gone\n", None),
    ]
    many = diff_many(items)
    assert many == [diff_texts(p, o, n) for p, o, n in items]
    assert [d.status for d in many] == ["modified", "modified", "modified", "added", "deleted"]
    assert many[2].hunks == () and all(d.hunks for i, d in enumerate(many) if i != 2)
    assert diff_many([]) == []


# --------------------------------------------------------------------------- merges

MERGE_BASE = "".join(numbered(10))


def test_merge3_merges_non_overlapping_edits_cleanly():
    ours = MERGE_BASE.replace("line 1\n", "line ONE\n")
    theirs = MERGE_BASE.replace("line 10\n", "line TEN\n")
    merged, conflicted = merge3(MERGE_BASE, ours, theirs)
    assert conflicted is False
    assert merged == MERGE_BASE.replace("line 1\n", "line ONE\n").replace("line 10\n", "line TEN\n")


def test_merge3_reports_conflict_with_standard_labelled_markers():
    ours = MERGE_BASE.replace("line 5\n", "line five (human)\n")
    theirs = MERGE_BASE.replace("line 5\n", "line five (dream)\n")
    merged, conflicted = merge3(MERGE_BASE, ours, theirs)
    assert conflicted is True
    assert (
        "<<<<<<< current\nline five (human)\n=======\nline five (dream)\n>>>>>>> proposed\n"
        in merged
    )
    merged, _ = merge3(MERGE_BASE, ours, theirs, labels=("mine", "old", "theirs"))
    assert "<<<<<<< mine\n" in merged and ">>>>>>> theirs\n" in merged


def test_merge3_keeps_non_ascii_and_crlf():
    base = "한\r\n가\r\n" + "".join(line.replace("\n", "\r\n") for line in numbered(6)) + "é\r\n"
    ours = base.replace("한\r\n", "한국\r\n")
    theirs = base.replace("é\r\n", "èé\r\n")
    merged, conflicted = merge3(base, ours, theirs)
    assert not conflicted
    assert merged == base.replace("한\r\n", "한국\r\n").replace("é\r\n", "èé\r\n")


def test_rebase_change_keeps_both_when_base_changed_elsewhere():
    proposed = MERGE_BASE.replace("line 9\n", "line 9\nline 9.5 (dream)\n")
    current = MERGE_BASE.replace("line 2\n", "line 2 (edited by hand)\n")
    rebased, conflicted = rebase_change(MERGE_BASE, current, proposed)
    assert conflicted is False
    assert rebased == current.replace("line 9\n", "line 9\nline 9.5 (dream)\n")


def test_rebase_change_overlapping_edit_is_conflicted():
    proposed = MERGE_BASE.replace("line 4\n", "line 4 (dream)\n")
    current = MERGE_BASE.replace("line 4\n", "line 4 (human)\n")
    rebased, conflicted = rebase_change(MERGE_BASE, current, proposed)
    assert conflicted is True
    assert rebased is not None and "<<<<<<< current" in rebased


@pytest.mark.parametrize(
    "base, current, proposed, expected",
    [
        ("a\n", "a\n", "b\n", ("b\n", False)),  # nothing moved: the proposal as is
        (None, None, "new\n", ("new\n", False)),  # creation, still absent
        ("a\n", "a\n", None, (None, False)),  # deletion, untouched since
        ("a\n", "c\n", "a\n", ("c\n", False)),  # no-op proposal keeps current
        ("a\n", "b\n", "b\n", ("b\n", False)),  # change already made
        ("a\n", None, None, (None, False)),  # already deleted
        ("a\n", "edited\n", None, ("edited\n", True)),  # modify/delete conflict
        ("a\n", None, "b\n", ("b\n", True)),  # delete/modify conflict
    ],
)
def test_rebase_change_absent_file_cases(base, current, proposed, expected):
    assert rebase_change(base, current, proposed) == expected


def test_rebase_change_both_created_merges_against_empty_base():
    rebased, conflicted = rebase_change(None, "human\n", "dream\n")
    assert conflicted is True
    assert "<<<<<<< current\nhuman\n=======\ndream\n>>>>>>> proposed\n" == rebased


# --------------------------------------------------------------------------- parse_patch


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def test_parse_patch_of_real_git_show_matches_diff_texts_ids(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files_before = {
        "memory/topics/a.md": BEFORE_2,
        "memory/topics/기억.md": "한국어\né\n",
        "memory/topics/gone.md": "old belief\n",
    }
    files_after = {
        "memory/topics/a.md": AFTER_2,
        "memory/topics/기억.md": "한국어\né — révisé",
        "memory/topics/gone.md": None,
        "memory/topics/new.md": "# New\nbelief\n",
    }
    for name, text in files_before.items():
        write(repo / name, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "before")
    for name, text in files_after.items():
        if text is None:
            (repo / name).unlink()
        else:
            write(repo / name, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "after")
    patch = git(repo, "show", "--format=", "--no-renames", "HEAD", "--", "memory/")

    parsed = {fd.path: fd for fd in parse_patch(patch)}
    assert set(parsed) == set(files_after)
    assert {p: fd.status for p, fd in parsed.items()} == {
        "memory/topics/a.md": "modified",
        "memory/topics/기억.md": "modified",
        "memory/topics/gone.md": "deleted",
        "memory/topics/new.md": "added",
    }
    for name in files_after:
        expected = diff_texts(name, files_before.get(name), files_after[name])
        assert parsed[name].hunks == expected.hunks, name
    assert len(parsed["memory/topics/a.md"].hunks) == 2
    # Hunk.text() reproduces git's own hunk bytes.
    for fd in parsed.values():
        for hunk in fd.hunks:
            assert hunk.text() in patch


def test_parse_patch_of_two_file_commit_yields_both_file_diffs(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo / "memory/one.md", BEFORE_2)
    write(repo / "memory/two.md", "x\ny\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    write(repo / "memory/one.md", AFTER_2)
    write(repo / "memory/two.md", "x\nY\n")
    git(repo, "commit", "-q", "-am", "two")
    diffs = parse_patch(git(repo, "show", "--format=", "HEAD", "--", "memory/"))
    assert [d.path for d in diffs] == ["memory/one.md", "memory/two.md"]
    assert ids(diffs[0]) == ids(diff_texts("memory/one.md", BEFORE_2, AFTER_2))
    assert ids(diffs[1]) == ids(diff_texts("memory/two.md", "x\ny\n", "x\nY\n"))
    assert all(isinstance(h, Hunk) for d in diffs for h in d.hunks)
