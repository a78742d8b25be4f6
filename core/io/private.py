"""dreamdeck's private per-user folder, for locks and projections (never inside `memory/`).

Where: `$DREAMDECK_CACHE_DIR`, else `$XDG_CACHE_HOME/dreamdeck`, else `~/.cache/dreamdeck`; when
none of those can be made, `<system temp>/dreamdeck-<uid>`. Every folder dreamdeck makes there is
created 0700, and before it is used it must be a real folder (not a link), owned by this user and
closed to group and others: a folder of ours left more open is closed (chmod 0700), anything else
is refused with one line naming it. A world-shared temp folder that someone else created first
could otherwise hand dreamdeck planted locks or projections.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from dreamdeck.core.errors import Refused

__all__ = ["private_dir", "ensure_private"]


def _base_candidates() -> list[Path]:
    explicit = os.environ.get("DREAMDECK_CACHE_DIR")
    if explicit:
        return [Path(explicit).expanduser()]
    xdg = os.environ.get("XDG_CACHE_HOME")
    home_cache = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return [home_cache / "dreamdeck", Path(tempfile.gettempdir()) / f"dreamdeck-{os.getuid()}"]


def ensure_private(folder: Path) -> Path:
    """Create `folder` (0700) if needed and check it is ours and closed; Refused otherwise."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise Refused(f"refused: {folder} must be a folder, not a link or a file; remove it and try again")
    if st.st_uid != os.getuid():
        raise Refused(f"refused: {folder} belongs to another user (uid {st.st_uid}); dreamdeck keeps its locks only in a folder of its own")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return folder


def _base() -> Path:
    last: Exception | None = None
    for base in _base_candidates():
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
            return ensure_private(base)
        except PermissionError as exc:  # a read-only home: try the next place
            last = exc
        except OSError as exc:
            last = exc
    raise Refused(f"refused: no private folder for dreamdeck's locks could be made ({last})")


def private_dir(*parts: str) -> Path:
    """`<private base>/<parts...>`, each level created 0700 and checked."""
    folder = _base()
    for part in parts:
        folder = ensure_private(folder / part)
    return folder
