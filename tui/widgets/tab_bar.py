"""The tab bar on top of every screen, fitted to the terminal's width.

Widest: `dreamdeck · agent │ 1 Topics  2 Reflections⚑1 to review  … 9 Recall │ ● watching · 6 undreamed`.
As the terminal narrows, it gives up, in this order: the workspace name's tail (shortened with
`…`), the badges' words, the `dreamdeck ·` brand, the undreamed count and the watcher's word,
the second space between tabs, so that at 120 columns every tab's name reads whole beside its
badges; then the other tabs' names are shortened (`2 Refl`, `5 Hist`), and last they go
altogether (the brand and the words come back if that leaves room for them). What always stays:
every tab's number, the current tab's full name, each badge (a flag and a count, drawn as a pill
so it never reads as a tab number) and the watcher's dot.

The way of drawing is chosen so that it fits whichever tab is current, so switching tabs moves
only the highlight: the other tabs never change from whole to shortened to bare numbers.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widget import Widget

# (mode, key, label) of the screens, in tab order
TABS = [
    ("topics", "1", "Topics"), ("reflections", "2", "Reflections"), ("proposals", "3", "Proposals"),
    ("vault", "4", "Vault"), ("history", "5", "History"), ("stream", "6", "Stream"), ("control", "7", "Dream"),
    ("forgotten", "8", "Forgotten"), ("recall", "9", "Recall"),
]
LABELS = {mode: label for mode, _key, label in TABS}
# The names of the tabs that are not current when the full names do not fit: short enough that at
# 120 columns the brand, the three badges and the watcher's word fit beside the current full name.
SHORT_LABELS = {"topics": "Topc", "reflections": "Refl", "proposals": "Prop", "vault": "Vault",
                "history": "Hist", "stream": "Strm", "control": "Dream", "forgotten": "Forg", "recall": "Recl"}

# What a badge counts, in words (one, many)
BADGE_WORDS = {"reflections": ("to review", "to review"), "proposals": ("open", "open"),
               "vault": ("changed outside", "changed outside"), "history": ("alert", "alerts"),
               "control": ("linked shard", "linked shards")}
WATCHER_DOT = {"on": "●", "paused": "⏸", "off": "○"}
WATCHER_WORD = {"on": "watching", "paused": "paused", "off": "watcher off"}
WATCHER_STYLE = {"on": "bold green", "paused": "bold yellow", "off": "dim"}
BADGE_STYLE = "bold reverse yellow"
MIN_NAME = 8  # a workspace name shorter than this is dropped rather than cut


@dataclass(frozen=True)
class _Fit:
    """One way of drawing the bar, from the richest to the barest."""

    brand: bool  # "dreamdeck · " before the workspace name
    labels: str  # the names of the tabs that are not current: "full", "short" or "none"
    badge_words: bool  # "⚑1 to review" rather than "⚑1"
    status: str  # "long" ("● watching · 6 undreamed"), "word" ("● watching"), "short" ("● 6 undreamed"), "dot"
    gap: int = 2  # spaces between two tabs
    named: bool = True  # False: the workspace name may go altogether


FITS = [
    _Fit(True, "full", True, "long"),
    _Fit(True, "full", False, "long"),
    _Fit(False, "full", False, "long"),
    _Fit(False, "full", False, "word"),
    _Fit(False, "full", False, "word", gap=1),
    _Fit(False, "full", False, "word", gap=1, named=False),  # "● watching" says more than "dreamd…"
    _Fit(False, "full", False, "dot", gap=1),
    _Fit(False, "full", False, "dot", gap=1, named=False),
    _Fit(True, "short", False, "long"),
    _Fit(True, "short", False, "word"),
    _Fit(True, "short", False, "short"),
    _Fit(False, "short", False, "short"),
    _Fit(True, "none", True, "long"),
    _Fit(True, "none", False, "short"),
    _Fit(False, "none", True, "short"),
    _Fit(False, "none", False, "short"),
    _Fit(False, "none", False, "dot"),
]


def watcher_state(counts: Mapping[str, object]) -> str:
    return str(counts.get("watcher") or "off")


def _badge(mode: str, counts: Mapping[str, object], words: bool) -> str:
    n = counts.get(mode) or 0
    if not isinstance(n, int) or n <= 0 or mode not in BADGE_WORDS:
        return ""
    one, many = BADGE_WORDS[mode]
    return f"⚑{n} {one if n == 1 else many}" if words else f"⚑{n}"


def _status(counts: Mapping[str, object], how: str) -> list[tuple[str, str]]:
    state = watcher_state(counts)
    parts = [(WATCHER_DOT[state], WATCHER_STYLE[state])]
    undreamed = counts.get("undreamed") or 0
    if how in ("long", "word"):
        parts.append((f" {WATCHER_WORD[state]}", ""))
        if undreamed and how == "long":
            parts.append((f" · {undreamed} undreamed", ""))
    elif how == "short" and undreamed:
        parts.append((f" {undreamed} undreamed", ""))
    return parts


def _pieces(current: str, counts: Mapping[str, object], fit: _Fit) -> list[tuple[str, str]]:
    """The tabs and the status as (text, style) pieces; the name goes in front of them."""
    pieces: list[tuple[str, str]] = [(" │", "dim")]
    for mode, key, label in TABS:
        is_current = mode == current
        name = label if is_current or fit.labels == "full" else SHORT_LABELS[mode] if fit.labels == "short" else ""
        style = "reverse bold" if is_current else ""
        pieces.append((f" {key} {name}" if name else f" {key}", style))
        badge = _badge(mode, counts, fit.badge_words)
        if badge:  # against its tab, the space after it: "2 Refl⚑1  3 Prop" never reads as 3's
            pieces += [(badge, BADGE_STYLE), (" ", "")]
        elif is_current or fit.gap > 1:  # the current tab's own margin, drawn in its highlight
            pieces.append((" ", style))
    pieces.append(("│ " if pieces[-1][0].endswith(" ") else " │ ", "dim"))
    pieces.extend(_status(counts, fit.status))
    return pieces


def _name(workspace: str, brand: bool, room: int) -> str | None:
    """The brand and workspace name in `room` cells (the name cut with `…`); None if it cannot fit."""
    head = "dreamdeck · " if brand else ""
    if room >= cell_len(head + workspace):
        return head + workspace
    left = room - cell_len(head)
    if left >= MIN_NAME or (left > 0 and cell_len(workspace) <= left):
        return head + set_cell_size(workspace, left - 1) + "…"
    return None


def _widest(counts: Mapping[str, object], fit: _Fit) -> int:
    """The cells the tabs and the status take in `fit` with the tab whose whole name is longest
    current: the room left for the name, the same whichever tab is current."""
    return max(sum(cell_len(t) for t, _ in _pieces(mode, counts, fit)) for mode, _key, _label in TABS)


def tab_line(current: str, counts: Mapping[str, object], workspace: str, width: int) -> Text:
    """The bar for a terminal `width` cells wide, as rich Text (plain text: what is shown)."""
    for fit in FITS:
        room = width - _widest(counts, fit) - 1  # one cell of left margin
        name = _name(workspace, fit.brand, room)
        if name is None and not fit.named and room >= 0:
            name = ""
        if name is not None:
            break
    else:
        name = ""  # the barest fit without a name; whatever does not fit is cut at the right edge
    pieces = _pieces(current, counts, fit)
    text = Text(no_wrap=True, overflow="crop", end="")
    if name:
        text.append(" ")
    else:  # no name: no margin and no bar after it, the tabs start the line
        pieces = pieces[1:]
    if name.startswith("dreamdeck · "):
        text.append("dreamdeck", style="bold")
        text.append(name[len("dreamdeck"):])
    else:
        text.append(name)
    for piece, style in pieces:
        text.append(piece, style=style or None)
    text.truncate(max(0, width))
    return text


class TabBar(Widget):
    """The tab bar: see the module's docstring for what it shows at which width."""

    DEFAULT_CSS = """
    TabBar { height: 1; background: $panel; color: $foreground; }
    """

    def __init__(self, current: str):
        super().__init__()
        self.current = current

    def refresh_bar(self) -> None:
        self.refresh()

    def render(self) -> Text:
        app = self.app
        return tab_line(self.current, getattr(app, "counts", {}) or {}, getattr(app, "workspace_name", ""),
                        self.size.width or app.size.width)
