"""`dreamdeck.toml` at the workspace root. Every key is optional; defaults are documented here."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.io.no_links import read_bytes_nofollow

DEFAULT_MODEL = "claude-sonnet-4-5"
REVIEW_POLICIES = ("none", "all", "judgement")
DREAMERS = ("auto", "offline", "anthropic")
# The share of the fragments one LLM run is shown that it may leave unaccounted for (neither cited,
# folded as a named duplicate, nor declared noise) before its finish is refused.
DEFAULT_LOSS_BOUND = 0.25


class SettingsError(BadFile):
    pass


@dataclass(frozen=True)
class DreamingSettings:
    dreamer: str = "auto"  # auto picks anthropic when ANTHROPIC_API_KEY is set
    review: str = "judgement"  # none | all | judgement
    schedule: str = "*/30 * * * *"  # cron, TypeClaw's default
    min_fragments: int = 1  # undreamed fragments needed before a scheduled/watched run
    min_interval_minutes: int = 0  # quiet time after a run
    model: str = DEFAULT_MODEL
    max_output_tokens: int = 8000  # Moltbot's reflection budget
    timeout_seconds: float = 120.0
    max_retries: int = 3
    stale_lock_minutes: int = 60  # a lock record older than this, from a dead holder, is cleared
    dream_timeout_seconds: float = 900.0  # a whole dream (all turns); past it the dream changes nothing
    # The loss bound: a run whose applied changes would leave more than this share of the distinct
    # fragments it was shown to be collected with no reason (neither cited, nor a named duplicate,
    # nor declared noise) is held for review whatever the policy, and an LLM dreamer's finish past
    # it is refused back to the model. One setting for both.
    loss_bound: float = DEFAULT_LOSS_BOUND  # 0..1


@dataclass(frozen=True)
class DecaySettings:
    # Moltbot §9: relevance = base * e^(-lambda * age) * log2(days + 1) * type_weight
    lambda_: float = 0.03
    archive_threshold: float = 0.05
    type_weight: float = 1.2  # topic shards are semantic memory


@dataclass(frozen=True)
class ReviewSettings:
    expire_days: int = 14  # pending reflections/proposals older than this are marked stale


@dataclass(frozen=True)
class CriticalSettings:
    files: tuple[str, ...] = ("SOUL.md", "IDENTITY.md", "AGENTS.md", "typeclaw.json")


@dataclass(frozen=True)
class StreamsSettings:
    # A stream file written to within this many minutes is never rewritten by a compaction: a
    # writer may hold it open (a logging handler, `tee -a`, a long-lived Node write stream), and
    # whatever it writes after a rewrite lands on the replaced inode. Today's file never is.
    quiet_minutes: float = 5.0


@dataclass(frozen=True)
class AppSettings:
    watcher: bool = True  # the TUI starts the background watcher


@dataclass(frozen=True)
class Settings:
    dreaming: DreamingSettings = field(default_factory=DreamingSettings)
    decay: DecaySettings = field(default_factory=DecaySettings)
    review: ReviewSettings = field(default_factory=ReviewSettings)
    critical: CriticalSettings = field(default_factory=CriticalSettings)
    streams: StreamsSettings = field(default_factory=StreamsSettings)
    app: AppSettings = field(default_factory=AppSettings)


_TABLES = {
    "dreaming": DreamingSettings, "decay": DecaySettings, "review": ReviewSettings,
    "critical": CriticalSettings, "streams": StreamsSettings, "app": AppSettings,
}


def _coerce(table: str, name: str, default: object, value: object) -> object:
    where = f"dreamdeck.toml [{table}] {name}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise SettingsError(f"{where}: expected true or false, got {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SettingsError(f"{where}: expected a non-negative integer, got {value!r}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise SettingsError(f"{where}: expected a non-negative number, got {value!r}")
        return float(value)
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingsError(f"{where}: expected a list of strings")
        return tuple(value)
    if not isinstance(value, str):
        raise SettingsError(f"{where}: expected a string, got {value!r}")
    return value


def parse_settings(text: str) -> Settings:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"dreamdeck.toml: {exc}") from None
    built: dict[str, object] = {}
    for table, cls in _TABLES.items():
        values = raw.get(table, {})
        if not isinstance(values, dict):
            raise SettingsError(f"dreamdeck.toml: [{table}] must be a table")
        known = {f.name.rstrip("_"): f for f in fields(cls)}
        kwargs = {}
        for key, value in values.items():
            if key not in known:
                raise SettingsError(f"dreamdeck.toml [{table}]: unknown key {key!r} (known: {', '.join(sorted(known))})")
            f = known[key]
            kwargs[f.name] = _coerce(table, key, f.default, value)
        built[table] = cls(**kwargs)
    unknown = set(raw) - set(_TABLES)
    if unknown:
        raise SettingsError(f"dreamdeck.toml: {counted(len(unknown), 'unknown table')}: {', '.join(sorted(unknown))}")
    settings = Settings(**built)  # type: ignore[arg-type]
    _check(settings)
    return settings


def _check(s: Settings) -> None:
    if s.dreaming.review not in REVIEW_POLICIES:
        raise SettingsError(f"dreamdeck.toml [dreaming] review: expected one of {', '.join(REVIEW_POLICIES)}")
    if s.dreaming.dreamer not in DREAMERS:
        raise SettingsError(f"dreamdeck.toml [dreaming] dreamer: expected one of {', '.join(DREAMERS)}")
    from croniter import croniter  # here, not at import: it costs a fresh `dreamdeck recall` a tenth of a second

    if len(s.dreaming.schedule.split()) != 5 or not croniter.is_valid(s.dreaming.schedule):
        raise SettingsError(f"dreamdeck.toml [dreaming] schedule: {s.dreaming.schedule!r} is not a 5-field cron expression")
    # Values that pass the type check but would only fail later, mid-dream, with a worse message.
    if not s.dreaming.model.strip():
        raise SettingsError("dreamdeck.toml [dreaming] model: must not be empty")
    if s.dreaming.max_output_tokens < 1:
        raise SettingsError("dreamdeck.toml [dreaming] max_output_tokens: must be at least 1")
    if s.dreaming.dream_timeout_seconds <= 0:
        raise SettingsError("dreamdeck.toml [dreaming] dream_timeout_seconds: must be more than 0")
    if s.dreaming.timeout_seconds <= 0:
        raise SettingsError("dreamdeck.toml [dreaming] timeout_seconds: must be more than 0")
    if not 0 <= s.dreaming.loss_bound <= 1:
        raise SettingsError("dreamdeck.toml [dreaming] loss_bound: a share of the fragments shown, from 0 to 1 (0.25 is 25%)")
    if not 0 <= s.streams.quiet_minutes < float("inf"):
        raise SettingsError("dreamdeck.toml [streams] quiet_minutes: must be a finite number of minutes")
    if s.decay.archive_threshold > 1:
        raise SettingsError("dreamdeck.toml [decay] archive_threshold: scores run from 0 to 1, so it must be at most 1")


def load_settings(root: Path) -> Settings:
    path = root / "dreamdeck.toml"
    try:
        data = read_bytes_nofollow(path, sole_name=False)  # a FIFO or a folder is one line, never a wait
    except FileNotFoundError:
        return Settings()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"dreamdeck.toml: not UTF-8 text (byte {exc.start})") from None
    return parse_settings(text)
