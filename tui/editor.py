"""Handing texts to the person's editor (`$VISUAL`, else `$EDITOR`, else `vi`) and reading them back.

The one editor launcher for the command line (`dreamdeck edit`, `dreamdeck approve --edit`) and the
app (`e` on Topics and Reflections). No Textual here: the command line imports it as it is. The app
passes `run`, which suspends the app around the editor and gives focus back afterwards
(`DreamdeckApp.hand_over_terminal`).
"""
from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

# Runs the editor's command line; its exit status, or None when the terminal could not be handed
# over (nothing was edited).
Runner = Callable[[list[str]], "int | None"]


def editor_command(paths: list[Path]) -> list[str]:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return [*shlex.split(editor), *map(str, paths)]


@dataclass(frozen=True)
class EditorResult:
    status: int  # the editor's exit status: anything but 0 means "do not save"
    texts: dict[str, str]  # name -> the text as the editor left it (every name given)

    def emptied_as_deleted(self) -> dict[str, str | None]:
        """The texts, with a file the person emptied meaning "delete it" (None)."""
        return {name: text if text.strip() else None for name, text in self.texts.items()}


def edit_texts(texts: Mapping[str, str | None], run: Runner = subprocess.call) -> EditorResult | None:
    """Open every text in one editor session and read them all back, byte for byte.

    Each text is a file named after its key (`/` becomes `__`), so the editor shows which shard it
    is; None starts as an empty file. None when `run` could not hand the terminal over.
    """
    with tempfile.TemporaryDirectory(prefix="dreamdeck-edit-") as tmp:
        paths: dict[str, Path] = {}
        for name, text in texts.items():
            path = Path(tmp) / name.replace("/", "__")
            path.write_bytes((text or "").encode("utf-8"))
            paths[name] = path
        status = run(editor_command(list(paths.values())))
        if status is None:
            return None
        return EditorResult(status, {name: path.read_bytes().decode("utf-8", "replace")
                                     for name, path in paths.items()})
