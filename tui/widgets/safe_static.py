"""The app's text pane: a Static whose text, a string or a rich Text, is terminal-safe.

What a pane shows often comes from memory (a body, a topic, an agent's name, a reason, a file
name); whatever a terminal would obey in it (ESC, C1, bidi overrides) is shown as its escape by
`core.formats.terminal_text`, with a Text's styles kept on the same characters.
"""
from __future__ import annotations

from rich.text import Span, Text
from textual.widgets import Static

from dreamdeck.core.formats.terminal_text import terminal_text
from dreamdeck.tui.widgets.word_cut import cut_at_word


def safe_text(text: Text) -> Text:
    """`text` with its unsafe characters escaped, each styled piece keeping its styles."""
    if terminal_text(text.plain) == text.plain:
        return text
    cuts = sorted({0, len(text.plain), *(s.start for s in text.spans), *(s.end for s in text.spans)})
    out = Text(style=text.style, justify=text.justify, overflow=text.overflow, no_wrap=text.no_wrap,
               end=text.end, tab_size=text.tab_size)
    for piece in text.divide(cuts):
        shown = terminal_text(piece.plain)
        out.append_text(Text(shown, spans=[Span(0, len(shown), s.style) for s in piece.spans]))
    return out


def safe(value):
    """A pane's content made terminal-safe (anything but a string or a Text is left as it is)."""
    if isinstance(value, str):
        return terminal_text(value)
    if isinstance(value, Text):
        return safe_text(value)
    return value


class SafeStatic(Static):
    """Static, with its content passed through `safe` on creation and on every update."""

    def __init__(self, content="", **kwargs):
        super().__init__(safe(content), **kwargs)

    def update(self, content="", *, layout: bool = True) -> None:
        super().update(safe(content), layout=layout)


class PurposeLine(SafeStatic):
    """A screen's one-line purpose (or state): cut at a word's end when the terminal is narrow,
    where the stylesheet's ellipsis would cut inside one."""

    def __init__(self, content="", **kwargs):
        super().__init__(content, **kwargs)
        self._line = safe(content)

    def update(self, content="", *, layout: bool = True) -> None:
        self._line = safe(content)
        super().update(content, layout=layout)

    @property
    def line(self) -> str:
        """The whole line, as set (what is drawn may be cut)."""
        return str(self._line)

    def render(self):
        width = self.content_region.width
        line = self._line if isinstance(self._line, Text) else Text(str(self._line))
        if width <= 0 or line.cell_len <= width:
            return super().render()
        kept = cut_at_word(line.plain, width)
        return line[:len(kept) - 1] + Text("…")
