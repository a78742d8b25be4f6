"""A unified diff as coloured text (the Vault's topic-copy difference, History's commit diff)."""
from __future__ import annotations

from rich.text import Text

from dreamdeck.core.formats.terminal_text import terminal_text


def diff_text(diff: str) -> Text:
    """A unified diff, coloured line by line (+ green, - red, @@ cyan); what a terminal would
    obey in it shown as its escape."""
    out = Text()
    for line in diff.splitlines():
        if line.startswith(("+++", "---", "diff --git", "index ", "new file", "deleted file")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("\\"):
            style = "dim"
        else:
            style = ""
        out.append(terminal_text(line) + "\n", style=style)
    return out
