"""core.slugs: TypeClaw's SLUG_REGEX, topicShardPath guard and headingToSlug (slug/paths tests)."""
from __future__ import annotations

import hashlib

import pytest

from core.slugs import InvalidSlug, heading_to_slug, is_valid_slug, require_slug
from core.workspace import Workspace


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
    from core.workspace import WorkspaceError, parse_date

    with pytest.raises(WorkspaceError, match="bad date"):
        parse_date(value)


def test_a_real_date_passes_unchanged():
    from core.workspace import parse_date

    assert parse_date("2024-02-29") == "2024-02-29"
