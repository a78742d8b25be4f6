"""User preferences (theme, keymap, watcher) in the user config directory, never the workspace.

`$DREAMDECK_CONFIG_DIR`, else `$XDG_CONFIG_HOME/dreamdeck`, else `~/.config/dreamdeck`;
the file is `config.toml`:

    theme = "textual-dark"
    watcher = true            # start the background watcher with the app
    [keymap]                  # binding id = "keys", e.g.
    "topics.pin" = "P"
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


def config_dir() -> Path:
    if os.environ.get("DREAMDECK_CONFIG_DIR"):
        return Path(os.environ["DREAMDECK_CONFIG_DIR"])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dreamdeck"


@dataclass
class UserConfig:
    theme: str | None = None
    watcher: bool | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    problem: str | None = None  # a broken file is reported in the app, never fatal

    @property
    def path(self) -> Path:
        return config_dir() / "config.toml"


def load_user_config() -> UserConfig:
    cfg = UserConfig()
    try:
        raw = tomllib.loads(cfg.path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return cfg
    except (OSError, tomllib.TOMLDecodeError) as exc:
        cfg.problem = f"{cfg.path}: {exc}"
        return cfg
    if isinstance(raw.get("theme"), str):
        cfg.theme = raw["theme"]
    if isinstance(raw.get("watcher"), bool):
        cfg.watcher = raw["watcher"]
    if isinstance(raw.get("keymap"), dict):
        cfg.keymap = {str(k): str(v) for k, v in raw["keymap"].items()}
    return cfg


def save_theme(theme: str) -> None:
    """Persist the theme, keeping the rest of the file as the user wrote it."""
    path = UserConfig().path
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    kept = [ln for ln in lines if not ln.strip().startswith("theme")]
    # top-level keys must come before the first table
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([f'theme = "{theme}"', *kept]) + "\n", encoding="utf-8")
