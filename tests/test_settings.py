"""core.settings: `dreamdeck.toml` (every key optional, documented defaults, bad values named)."""
from __future__ import annotations

import pytest

from dreamdeck.core.store.settings import Settings, SettingsError, load_settings, parse_settings


def test_no_file_gives_the_documented_defaults(tmp_path):
    s = load_settings(tmp_path)
    assert s == Settings()
    assert (s.dreaming.dreamer, s.dreaming.review, s.dreaming.schedule) == ("auto", "judgement", "*/30 * * * *")
    assert (s.dreaming.min_fragments, s.dreaming.min_interval_minutes, s.dreaming.max_output_tokens) == (1, 0, 8000)
    assert (s.decay.lambda_, s.decay.archive_threshold) == (0.03, 0.05)
    assert s.review.expire_days == 14
    assert s.critical.files == ("SOUL.md", "IDENTITY.md", "AGENTS.md", "typeclaw.json")
    assert s.app.watcher is True


def test_an_empty_file_gives_the_defaults(tmp_path):
    (tmp_path / "dreamdeck.toml").write_text("")
    assert load_settings(tmp_path) == Settings()


def test_every_documented_key_is_read(tmp_path):
    (tmp_path / "dreamdeck.toml").write_text(
        '[dreaming]\ndreamer = "offline"\nreview = "all"\nschedule = "0 3 * * *"\nmin_fragments = 5\n'
        'min_interval_minutes = 30\nmodel = "claude-x"\nmax_output_tokens = 4000\n'
        "[decay]\nlambda = 0.1\narchive_threshold = 0.2\n"
        "[review]\nexpire_days = 3\n"
        '[critical]\nfiles = ["SOUL.md"]\n'
        "[app]\nwatcher = false\n"
    )
    s = load_settings(tmp_path)
    assert (s.dreaming.dreamer, s.dreaming.review, s.dreaming.schedule) == ("offline", "all", "0 3 * * *")
    assert (s.dreaming.min_fragments, s.dreaming.min_interval_minutes, s.dreaming.model, s.dreaming.max_output_tokens) == (5, 30, "claude-x", 4000)
    assert (s.decay.lambda_, s.decay.archive_threshold) == (0.1, 0.2)
    assert s.review.expire_days == 3
    assert s.critical.files == ("SOUL.md",)
    assert s.app.watcher is False


def test_an_integer_is_accepted_where_a_number_is_expected():
    s = parse_settings("[decay]\nlambda = 1\n[dreaming]\ntimeout_seconds = 30\n")
    assert s.decay.lambda_ == 1.0 and isinstance(s.decay.lambda_, float)
    assert s.dreaming.timeout_seconds == 30.0


def test_zero_is_a_meaningful_value_where_it_means_off():
    s = parse_settings("[dreaming]\nmin_fragments = 0\nmin_interval_minutes = 0\nmax_retries = 0\n[decay]\nlambda = 0\narchive_threshold = 0")
    assert (s.dreaming.min_fragments, s.dreaming.max_retries, s.decay.lambda_, s.decay.archive_threshold) == (0, 0, 0.0, 0.0)


def test_unset_keys_keep_their_defaults_next_to_set_ones():
    s = parse_settings('[dreaming]\nreview = "none"\n')
    assert s.dreaming.review == "none"
    assert s.dreaming.dreamer == "auto"


@pytest.mark.parametrize(
    "toml,named",
    [
        ('[dreaming]\nreview = "sometimes"', "[dreaming] review"),
        ('[dreaming]\ndreamer = "gpt"', "[dreaming] dreamer"),
        ('[dreaming]\nschedule = "every minute"', "[dreaming] schedule"),
        ('[dreaming]\nschedule = "* * * *"', "[dreaming] schedule"),
        ('[dreaming]\nschedule = "0 0 * * * *"', "[dreaming] schedule"),
        ('[dreaming]\nschedule = "61 * * * *"', "[dreaming] schedule"),
        ("[dreaming]\nmin_fragments = -1", "[dreaming] min_fragments"),
        ("[dreaming]\nmin_fragments = 1.5", "[dreaming] min_fragments"),
        ('[dreaming]\nmin_fragments = "3"', "[dreaming] min_fragments"),
        ("[dreaming]\nmin_fragments = true", "[dreaming] min_fragments"),
        ("[dreaming]\nmax_output_tokens = -5", "[dreaming] max_output_tokens"),
        ("[dreaming]\nmax_output_tokens = 0", "[dreaming] max_output_tokens"),
        ('[dreaming]\nmodel = "  "', "[dreaming] model"),
        ("[dreaming]\ntimeout_seconds = 0", "[dreaming] timeout_seconds"),
        ("[decay]\narchive_threshold = 1.5", "[decay] archive_threshold"),
        ("[dreaming]\nmodel = 3", "[dreaming] model"),
        ("[dreaming]\ntimeout_seconds = -1.0", "[dreaming] timeout_seconds"),
        ('[decay]\nlambda = "fast"', "[decay] lambda"),
        ("[decay]\nlambda = -0.1", "[decay] lambda"),
        ("[decay]\narchive_threshold = true", "[decay] archive_threshold"),
        ("[review]\nexpire_days = 2.5", "[review] expire_days"),
        ('[critical]\nfiles = "SOUL.md"', "[critical] files"),
        ("[critical]\nfiles = [1, 2]", "[critical] files"),
        ('[app]\nwatcher = "yes"', "[app] watcher"),
        ("[app]\nwatcher = 1", "[app] watcher"),
    ],
)
def test_a_bad_value_is_a_settings_error_naming_the_key(toml, named):
    with pytest.raises(SettingsError, match=rf"dreamdeck\.toml {__import__('re').escape(named)}"):
        parse_settings(toml)


def test_an_unknown_key_is_named_with_the_known_ones():
    with pytest.raises(SettingsError, match=r"\[dreaming\]: unknown key 'reveiw' \(known: .*review.*\)"):
        parse_settings('[dreaming]\nreveiw = "all"')


def test_the_python_spelling_of_lambda_is_not_a_key():
    with pytest.raises(SettingsError, match="unknown key 'lambda_'"):
        parse_settings("[decay]\nlambda_ = 0.1")


def test_an_unknown_table_is_named():
    with pytest.raises(SettingsError, match="unknown table.*dreams"):
        parse_settings("[dreams]\nx = 1")


def test_a_table_that_is_a_value_is_refused():
    with pytest.raises(SettingsError, match=r"\[dreaming\] must be a table"):
        parse_settings('dreaming = "offline"')


def test_invalid_toml_is_a_settings_error_not_a_traceback(tmp_path):
    (tmp_path / "dreamdeck.toml").write_text("[dreaming\nreview = ")
    with pytest.raises(SettingsError, match="dreamdeck.toml"):
        load_settings(tmp_path)


def test_settings_are_immutable():
    s = Settings()
    with pytest.raises(AttributeError):
        s.dreaming.review = "none"  # type: ignore[misc]
