"""A unified diff as coloured text (the Vault's topic-copy difference, History's commit diff,
critical-file alerts), and `Gutter`, which shows it wrapped at words, each wrapped line going on
after a continuation mark in the +/- gutter."""
from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from dreamdeck.core.formats.terminal_text import terminal_text
from dreamdeck.tui.widgets.safe_static import safe_text

# Marks a diff body line (+, - or context) in a diff_text, so `Gutter` can find it again in a
# Text that also holds headers; meta draws nothing.
_BODY = Style(meta={"diff-body": True})
# Where a wrapped diff line goes on, in the +/- gutter: not a second sign, which as plain text (a
# copy, `tmux capture-pane -p`) reads as a new added or removed line. The Reflections hunks use it too.
CONTINUATION = "↳"


def diff_text(diff: str) -> Text:
    """A unified diff, coloured line by line (+ green, - red, @@ cyan); what a terminal would
    obey in it shown as its escape."""
    out = Text()
    for line in diff.splitlines():
        body = False
        if line.startswith(("+++", "---", "diff --git", "index ", "new file", "deleted file")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("\\"):
            style = "dim"
        else:
            style, body = {"+": "green", "-": "red"}.get(line[:1], ""), True
        out.append(terminal_text(line), style=Style.parse(style) + _BODY if body else style)
        out.append("\n")
    return out


def _is_body(line: Text) -> bool:
    return any(span.start == 0 and isinstance(span.style, Style) and span.style.meta.get("diff-body")
               for span in line.spans)


class Gutter:
    """A Text holding diff_text lines, wrapped at words to the width it is drawn at: a wrapped
    body line goes on after a CONTINUATION mark in the gutter, in its line's colour, so it reads as
    the rest of that line both on screen and as plain text. Other lines wrap as usual."""

    def __init__(self, text: Text):
        self.text = safe_text(text)  # a pane's text is terminal-safe, as SafeStatic makes a Text
        self._drawn: tuple[int, list[Text]] | None = None  # (width, its lines at that width)

    def __str__(self) -> str:  # its text, as str() of a Text is
        return self.text.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Textual renders a Static's content once to measure its height and again to draw it, at
        # one width: the lines are kept for that width (a 400-line diff took 0.2 s of a first paint).
        width = max(options.max_width, 2)
        if self._drawn is None or self._drawn[0] != width:
            self._drawn = (width, self._lines(console, width))
        for line in self._drawn[1]:
            yield from line.render(console)  # each fits already: no second wrap of the whole text
            yield Segment.line()

    def _lines(self, console: Console, width: int) -> list[Text]:
        out: list[Text] = []
        for line in self.text.split("\n", allow_blank=True):  # a last blank line, as a Static draws it
            fits = line.cell_len <= width
            if fits and "\t" not in line.plain:
                out.append(line)
            elif fits or not _is_body(line):  # a tab is expanded by wrap
                out.extend(line.wrap(console, width))
            else:
                sign = line[:1]
                again = Text(CONTINUATION, style=sign.get_style_at_offset(console, 0) + Style(dim=True))
                for n, piece in enumerate(line[1:].wrap(console, width - 1)):
                    piece.rstrip()
                    out.append((again if n else sign) + piece)
        return out
