"""core.slugs: TypeClaw's SLUG_REGEX, topicShardPath guard and headingToSlug (slug/paths tests)."""
from __future__ import annotations

import hashlib

import pytest

from dreamdeck.core.formats.slugs import InvalidSlug, heading_to_slug, is_valid_slug, require_slug
from dreamdeck.core.workspace import Workspace


# --- heading_to_slug -------------------------------------------------------------------------------
def test_accents_are_stripped_cafe_resume():
    assert heading_to_slug("café résumé") == "cafe-resume"


def test_runs_of_non_alphanumerics_collapse_and_edges_are_trimmed():
    assert heading_to_slug("  --The User's  *PNPM* policy!!  ") == "the-user-s-pnpm-policy"


def test_digits_are_kept():
    assert heading_to_slug("Node 22 LTS") == "node-22-lts"


def test_a_heading_with_no_latin_letters_becomes_untitled_with_a_hash():
    heading = "배포 정책"
    assert heading_to_slug(heading) == "untitled-" + hashlib.sha256(heading.encode()).hexdigest()[:6]


def test_an_empty_heading_becomes_untitled_xxxxxx():
    slug = heading_to_slug("")
    assert slug == "untitled-" + hashlib.sha256(b"").hexdigest()[:6]
    assert is_valid_slug(slug)


def test_slugs_are_cut_to_64_characters():
    slug = heading_to_slug("word " * 40)
    assert len(slug) == 64
    assert is_valid_slug(slug)


def test_a_case_insensitive_collision_gets_a_numeric_suffix():
    assert heading_to_slug("Foo", taken={"foo"}) == "foo-2"
    assert heading_to_slug("Foo", taken={"FOO"}) == "foo-2"


def test_collisions_count_up():
    assert heading_to_slug("foo", taken={"foo", "foo-2", "Foo-3"}) == "foo-4"


def test_no_collision_keeps_the_slug():
    assert heading_to_slug("foo", taken={"food", "foo-2"}) == "foo"


def test_a_suffixed_slug_still_fits_in_64_characters():
    base = heading_to_slug("x" * 80)
    slug = heading_to_slug("x" * 80, taken={base})
    assert len(slug) == 64 and slug.endswith("-2")
    assert is_valid_slug(slug)



@pytest.mark.parametrize("heading", [
    "\x1b[1mbold evil\x1b[31m red\x1b[0m",  # SGR: bold, red, reset
    "\x1b]0;retitled\x07bold evil red",  # OSC: the window's title, ended by BEL
    "\x1b]8;;https://x.example\x1b\\bold evil\x1b]8;;\x1b\\ red",  # OSC 8 link, ended by ST
    "bold\x9b31m evil red",  # C1 CSI on its own
    "\x1bcbold evil red",  # a two-byte escape (RIS)
])
def test_a_heading_with_terminal_control_sequences_slugs_by_its_words_alone(heading):
    """The escape's letters ("1m", "31m", "0;retitled") are no words of the heading: the slug
    is the one the visible text gives."""
    assert heading_to_slug(heading) == "bold-evil-red"


# --- validation -------------------------------------------------------------------------------------
@pytest.mark.parametrize("slug", ["a", "pnpm-policy", "0day", "a" * 64, "a-"])
def test_valid_slugs(slug):
    assert is_valid_slug(slug)
    assert require_slug(slug) == slug


@pytest.mark.parametrize("slug", ["", "-a", "A", "Foo", "a_b", "a.b", "a" * 65, "café", "a b", "a\n"])
def test_invalid_slugs_fail_the_regex(slug):
    assert not is_valid_slug(slug)
    with pytest.raises(InvalidSlug):
        require_slug(slug)


@pytest.mark.parametrize("slug", ["..", "../etc", "a/b", "/abs", "a\\b", "..\\x", ".hidden", "a..b"])
def test_path_shaped_slugs_are_rejected_as_paths(slug):
    with pytest.raises(InvalidSlug, match="is a path, not a slug"):
        require_slug(slug)


@pytest.mark.parametrize("value", [None, 3, b"abc"])
def test_non_strings_are_rejected(value):
    assert not is_valid_slug(value)
    with pytest.raises(InvalidSlug):
        require_slug(value)


def test_the_workspace_builds_shard_paths_only_from_valid_slugs(tmp_path):
    ws = Workspace.open(tmp_path)
    assert ws.topic_path("pnpm") == ws.topics_dir / "pnpm.md"
    assert ws.vault_path("pnpm") == ws.vault_dir / "pnpm.md"
    for bad in ("../SOUL", "a/b", "Upper", ".x"):
        with pytest.raises(InvalidSlug):
            ws.topic_path(bad)
        with pytest.raises(InvalidSlug):
            ws.vault_path(bad)


# --- dates in paths ---------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-01", "2026-5-01", "26-05-01", "../2026-05-01", "2026-05-01.jsonl", "２０２６-05-01", "", None])
def test_bad_dates_are_rejected_before_they_become_paths(value):
    from dreamdeck.core.workspace import WorkspaceError, parse_date

    with pytest.raises(WorkspaceError, match="bad date"):
        parse_date(value)


def test_a_real_date_passes_unchanged():
    from dreamdeck.core.workspace import parse_date

    assert parse_date("2024-02-29") == "2024-02-29"


# --- the workspace's own paths ------------------------------------------------------------------------
def test_a_workspace_must_be_an_existing_folder(tmp_path):
    from dreamdeck.core.workspace import WorkspaceError

    with pytest.raises(WorkspaceError, match="does not exist"):
        Workspace.open(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(WorkspaceError, match="is not a folder"):
        Workspace.open(tmp_path / "file")
    with pytest.raises(WorkspaceError, match="bad date"):
        Workspace.open(tmp_path, today="2026-02-30")


def test_the_workspace_places_follow_typeclaws_layout(tmp_path):
    ws = Workspace.open(tmp_path)
    assert ws.root == tmp_path.resolve()
    assert ws.memory == ws.root / "memory"
    assert (ws.topics_dir, ws.references_dir, ws.skills_dir, ws.state_path) == (
        ws.memory / "topics", ws.memory / "references", ws.memory / "skills", ws.memory / ".dreaming-state.json",
    )
    assert ws.settings_path == ws.root / "dreamdeck.toml"


def test_locks_live_outside_the_agent_folder_one_folder_per_workspace(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = Workspace.open(tmp_path / "a"), Workspace.open(tmp_path / "b")
    assert a.lock_dir.is_dir() and a.lock_dir != b.lock_dir
    assert a.root not in a.lock_dir.parents


def test_rel_gives_forward_slash_paths_inside_the_workspace(tmp_path):
    ws = Workspace.open(tmp_path)
    assert ws.rel(ws.topics_dir / "pnpm.md") == "memory/topics/pnpm.md"
    with pytest.raises(ValueError):
        ws.rel(tmp_path.parent)


def test_today_is_the_override_or_the_local_date(tmp_path):
    from datetime import datetime

    assert Workspace.open(tmp_path, today="2026-05-22").today() == "2026-05-22"
    assert Workspace.open(tmp_path).today() == datetime.now().astimezone().strftime("%Y-%m-%d")


def test_local_datetime_has_an_offset_and_no_milliseconds():
    import re
    from datetime import datetime, timedelta, timezone

    from dreamdeck.core.workspace import local_datetime_iso

    moment = datetime(2026, 5, 16, 14, 30, 2, 999_000, tzinfo=timezone(timedelta(hours=9)))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}", local_datetime_iso(moment))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}", local_datetime_iso())
