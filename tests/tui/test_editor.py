"""The one editor launcher (`tui/editor.py`): the command line and the app both use it."""
from __future__ import annotations

import subprocess
import sys

from dreamdeck.tui.editor import edit_texts


def script(tmp_path, body: str) -> str:
    path = tmp_path / "edit.sh"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_the_launcher_imports_no_textual_so_the_command_line_can_use_it():
    code = "import sys, dreamdeck.tui.editor; print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_text_opens_in_one_editor_session_and_comes_back_byte_for_byte(tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    log = tmp_path / "argv"
    monkeypatch.setenv("EDITOR", script(tmp_path, f'for f in "$@"; do basename "$f" >> {log}; done\n'
                                                  'printf "new\\r\\ntext\\r\\n" > "$1"\n: > "$2"'))
    result = edit_texts({"topics/a.md": "old\r\n", "topics/b.md": "keep me\n", "topics/c.md": None})
    assert log.read_text().split() == ["topics__a.md", "topics__b.md", "topics__c.md"]  # one session
    assert result.status == 0
    assert result.texts == {"topics/a.md": "new\r\ntext\r\n", "topics/b.md": "", "topics/c.md": ""}
    assert result.emptied_as_deleted() == {"topics/a.md": "new\r\ntext\r\n", "topics/b.md": None, "topics/c.md": None}


def test_visual_wins_over_editor_and_the_exit_status_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", "false")
    monkeypatch.setenv("VISUAL", script(tmp_path, "exit 7"))
    assert edit_texts({"x.md": "x\n"}).status == 7


def test_a_terminal_that_cannot_be_handed_over_edits_nothing(tmp_path):
    ran = []
    assert edit_texts({"x.md": "x\n"}, run=lambda command: ran.append(command) and None) is None
    assert len(ran) == 1
