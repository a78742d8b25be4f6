"""The panes every screen is built from, with one set of keys: `j`/`k` (and the arrows) move,
`g`/`G` go to the ends, and focus is visible (the pane is tinted and its divider lit).

NavList is a list of options (the Reflections list, the Topics citations); ScrollPane is text
that scrolls (a shard, a proposal, a diff).
"""
from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import OptionList


class NavList(OptionList, inherit_bindings=False):
    """An OptionList with the app's list keys. `enter` is left to the screen (whatever its
    footer says `⏎` does); a subclass that selects on enter binds it with its own words.

    The scrollbar's gutter is kept whether it shows or not: OptionList measures an option's
    height once, at the width it has when the option is added, and a scrollbar appearing later
    narrows the text; a wrapped option then lost its last line (cut mid-sentence, no ellipsis)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "cursor_down", "Down", show=False, id="list.down"),
        Binding("k,up", "cursor_up", "Up", show=False, id="list.up"),
        Binding("g,home", "first", "First", show=False, id="list.first"),
        Binding("G,end", "last", "Last", show=False, id="list.last"),
        Binding("pagedown", "page_down", "Page down", show=False, id="list.page_down"),
        Binding("pageup", "page_up", "Page up", show=False, id="list.page_up"),
    ]
    DEFAULT_CSS = """
    NavList { border: none; padding: 0 0 0 1; scrollbar-gutter: stable; }
    NavList:focus { border: none; background-tint: $foreground 4%; }
    """


class ScrollPane(VerticalScroll):
    """A scrolling pane of text: focusable, `j`/`k` scroll a line, `g`/`G` the ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Scroll down", show=False, id="pane.down"),
        Binding("k", "scroll_up", "Scroll up", show=False, id="pane.up"),
        Binding("g", "scroll_home", "Top", show=False, id="pane.top"),
        Binding("G", "scroll_end", "Bottom", show=False, id="pane.bottom"),
    ]
    DEFAULT_CSS = """
    ScrollPane:focus { background-tint: $foreground 4%; }
    """
