"""A workspace: an agent folder with `memory/` inside, and the places dreamdeck keeps things."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.io.private import private_dir

DATE_RE = lazy_re(r"^\d{4}-\d{2}-\d{2}$")


class WorkspaceError(BadInput):
    """Bad input about the workspace itself: reported as one line, never a traceback."""


def parse_date(value: str) -> str:
    """Validate a YYYY-MM-DD calendar date and return it unchanged."""
    if not isinstance(value, str) or not DATE_RE.match(value):
        raise WorkspaceError(f"bad date {value!r}: expected YYYY-MM-DD")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise WorkspaceError(f"bad date {value!r}: no such day") from None
    return value


def local_today() -> str:
    """The local calendar date, as TypeClaw's `formatLocalDate()` names stream files."""
    return datetime.now().astimezone().strftime("%Y-%m-%d")


def local_datetime_iso(now: datetime | None = None) -> str:
    """`formatLocalDateTime()`: local time with a ±HH:MM offset, no milliseconds."""
    now = (now or datetime.now()).astimezone()
    return now.isoformat(timespec="seconds")


def lock_file(root: Path | str, name: str) -> str:
    """A cross-process lock file for `root`, kept outside the agent folder (see Workspace.lock_dir)."""
    return str(Workspace(Path(root).resolve()).lock_dir / f"{name}.lock")


@dataclass(frozen=True)
class Workspace:
    root: Path
    today_override: str | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str] = ".", today: str | None = None) -> Workspace:
        root = Path(path).expanduser()
        if not root.exists():
            raise WorkspaceError(f"workspace {str(root)!r} does not exist")
        if not root.is_dir():
            raise WorkspaceError(f"workspace {str(root)!r} is not a folder")
        if today is not None:
            parse_date(today)
        return cls(root=root.resolve(), today_override=today)

    # --- places -------------------------------------------------------------------
    @property
    def memory(self) -> Path:
        return self.root / "memory"

    @property
    def topics_dir(self) -> Path:
        return self.memory / "topics"

    @property
    def vault_dir(self) -> Path:
        return self.memory / "vault"

    @property
    def archive_dir(self) -> Path:
        return self.memory / "archive"

    @property
    def references_dir(self) -> Path:
        return self.memory / "references"

    @property
    def skills_dir(self) -> Path:
        return self.memory / "skills"

    @property
    def meta_dir(self) -> Path:
        return self.memory / "meta"

    @property
    def state_path(self) -> Path:
        return self.memory / ".dreaming-state.json"

    @property
    def settings_path(self) -> Path:
        return self.root / "dreamdeck.toml"

    @property
    def lock_dir(self) -> Path:
        """This workspace's locks and projections: in dreamdeck's private per-user folder
        (`core.io.private`), outside the agent folder, so `git add -f memory/` never sees them."""
        digest = hashlib.sha256(str(self.root).encode()).hexdigest()[:16]
        return private_dir("workspaces", digest)

    def rel(self, path: Path) -> str:
        """Path relative to the agent folder, with forward slashes (as git and the audit log show it).
        Normalized, never resolved: a link under the folder must not turn a path inside it into one
        outside (a message naming a file crashed instead of naming it). ValueError for a path
        outside the folder."""
        return Path(os.path.abspath(path)).relative_to(self.root).as_posix()

    def today(self) -> str:
        return self.today_override or local_today()

    def topic_path(self, slug: str) -> Path:
        from dreamdeck.core.formats.slugs import require_slug

        return self.topics_dir / f"{require_slug(slug)}.md"

    def vault_path(self, slug: str) -> Path:
        from dreamdeck.core.formats.slugs import require_slug

        return self.vault_dir / f"{require_slug(slug)}.md"
