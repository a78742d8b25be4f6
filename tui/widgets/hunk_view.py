"""HunkView: a reflection's diff, file by file and hunk by hunk, with a cursor and decision badges.

A Line API widget (ScrollView + render_line): the whole diff is laid out once into rows
(re-laid on resize or when decisions change) and only the visible rows are painted, so a
reflection with a hundred hunks scrolls as fast as one with two. The widget owns no decision:
the screen hands it `decisions` (hunk id → "approve" | "reject") and reads `current` back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from dreamdeck.core.formats.terminal_text import terminal_text
from dreamdeck.tui.widgets.diff_text import CONTINUATION

GUTTER = "┃ "
BADGE_WIDTH = 12
BADGES = {
    "approve": ("✓ approve", "hunk-view--approve"),
    "reject": ("✗ reject", "hunk-view--reject"),
    None: ("· undecided", "hunk-view--undecided"),
}
LINE_CLASS = {"+": "hunk-view--added", "-": "hunk-view--removed", " ": "hunk-view--context"}


@dataclass(frozen=True)
class HunkEntry:
    """One hunk as the view shows it (plain data, built off the UI thread)."""

    id: str
    path: str
    header: str
    lines: tuple[tuple[str, str], ...]  # (tag, text) with tag in "+- "
    added: int = 0
    removed: int = 0
    conflict: bool = False  # its base changed and this hunk does not merge onto the current file
    rebased: bool = False  # its base changed and it merges cleanly


@dataclass(frozen=True)
class FileEntry:
    path: str  # relative to memory/
    status: str  # added | modified | deleted
    pinned: bool = False
    stale: str = ""  # "" (base unchanged) | "clean" (rebases cleanly) | "conflict"
    hunks: tuple[HunkEntry, ...] = field(default_factory=tuple)
    claim: str = ""  # what the change does to the shard's claim, one line (core.ops.claim_review)
    mechanical: bool = False  # its hunks are mechanical (a pure reinforcement, a clean new claim)


@dataclass(frozen=True)
class _Row:
    hunk: int | None  # index of the hunk this row belongs to (None: file header / blank)
    parts: tuple[tuple[str, str], ...]  # (text, component class or "")
    fill: str = ""  # component class for the rest of the line
    kind: str = "line"  # file | claim | header (badge drawn at paint time) | note | line | blank | empty


def _printable(text: str) -> str:
    """Tabs become spaces and what a terminal would obey its escape (`\\x1b`), so cells line up."""
    return terminal_text(text.expandtabs(4))


_TOKEN = re.compile(r"\S+\s*|\s+")


def wrap_words(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken after a space where there is one (a word
    longer than a line is cut); the spaces at a break are dropped, nothing else is."""
    if cell_len(text) <= width:
        return [text]
    lines: list[str] = []
    line, used = "", 0
    for token in _TOKEN.findall(text):
        size = cell_len(token)
        if used + size <= width:
            line, used = line + token, used + size
            continue
        word = token.rstrip()
        if word and used + cell_len(word) <= width:  # the word fits; its trailing spaces end the line
            lines.append(line + word)
            line, used = "", 0
            continue
        if line:
            lines.append(line.rstrip() or line)
            line, used = "", 0
        token = token if word else ""  # spaces at the start of a new line are the break's
        while cell_len(token) > width:
            head = chop_cells(token, width)[0]
            lines.append(head)
            token = token[len(head):]
        line, used = token, cell_len(token)
    if line or not lines:
        lines.append(line)
    return lines


class HunkView(ScrollView, can_focus=True):
    """Per file a header, per hunk a badge line and its +/- lines; `┃` marks the current hunk."""

    ALLOW_SELECT = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "scroll_down", "Scroll down", show=False, id="hunk_view.scroll_down"),
        Binding("k,up", "scroll_up", "Scroll up", show=False, id="hunk_view.scroll_up"),
        Binding("g,home", "first_hunk", "First hunk", show=False, id="hunk_view.first"),
        Binding("G,end", "last_hunk", "Last hunk", show=False, id="hunk_view.last"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "hunk-view--file", "hunk-view--path", "hunk-view--pinned", "hunk-view--stale", "hunk-view--conflict",
        "hunk-view--header", "hunk-view--id", "hunk-view--added", "hunk-view--removed", "hunk-view--context",
        "hunk-view--gutter", "hunk-view--approve", "hunk-view--reject", "hunk-view--undecided",
        "hunk-view--note", "hunk-view--refused", "hunk-view--empty", "hunk-view--claim",
    }

    DEFAULT_CSS = """
    HunkView {
        height: 1fr;
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        & > .hunk-view--file { background: $panel; text-style: bold; }
        & > .hunk-view--path { background: $panel; color: $accent; text-style: bold; }
        & > .hunk-view--pinned { background: $panel; color: $secondary; }
        & > .hunk-view--stale { background: $panel; color: $warning; text-style: not bold; }
        & > .hunk-view--conflict { color: $error; text-style: bold; }
        & > .hunk-view--header { color: $text-muted; }
        & > .hunk-view--claim { color: $text-primary; }
        & > .hunk-view--id { color: $text-muted; text-style: italic; }
        & > .hunk-view--added { color: $text-success; background: $success 10%; }
        & > .hunk-view--removed { color: $text-error; background: $error 10%; }
        & > .hunk-view--context { color: $foreground 80%; }
        & > .hunk-view--gutter { color: $foreground 40%; }
        & > .hunk-view--approve { color: $text-success; text-style: bold; }
        & > .hunk-view--reject { color: $text-error; text-style: bold; }
        & > .hunk-view--undecided { color: $text-muted; }
        & > .hunk-view--note { color: $warning; }
        & > .hunk-view--refused { color: $error; text-style: bold; }
        & > .hunk-view--empty { color: $text-muted; text-style: italic; }
        &:focus > .hunk-view--gutter { color: $accent; text-style: bold; }
    }
    """

    class CursorMoved(Message):
        """The current hunk changed."""

        def __init__(self, view: HunkView, hunk: HunkEntry | None) -> None:
            super().__init__()
            self.view = view
            self.hunk = hunk

        @property
        def control(self) -> HunkView:
            return self.view

    def __init__(self, *, empty_message: str = "Nothing to show.", name: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.empty_message = empty_message
        self._files: tuple[FileEntry, ...] = ()
        self._hunks: list[HunkEntry] = []
        self._decisions: dict[str, str] = {}
        self._flagged: dict[str, str] = {}  # hunk id → what the last refusal says about it
        self._cursor = 0
        self._rows: list[_Row] = []
        self._spans: list[tuple[int, int]] = []  # per hunk: [first row, end row)
        self._laid_width = 0
        self._styles: dict[str, Style] = {}

    # --- public API -------------------------------------------------------------------------
    @property
    def hunks(self) -> list[HunkEntry]:
        return list(self._hunks)

    @property
    def files(self) -> tuple[FileEntry, ...]:
        return self._files

    @property
    def cursor(self) -> int:
        return self._cursor

    @property
    def current(self) -> HunkEntry | None:
        return self._hunks[self._cursor] if self._hunks else None

    def set_files(self, files: list[FileEntry] | tuple[FileEntry, ...], decisions: dict[str, str] | None = None,
                  flagged: dict[str, str] | None = None) -> None:
        """Show a new diff; the cursor stays on the same hunk id when it is still there."""
        old = self.current.id if self.current else None
        self._files = tuple(files)
        self._hunks = [h for f in self._files for h in f.hunks]
        self._decisions = dict(decisions or {})
        self._flagged = dict(flagged or {})
        ids = [h.id for h in self._hunks]
        self._cursor = ids.index(old) if old in ids else 0
        if old not in ids:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self._layout()
        self._scroll_to_cursor()
        self.post_message(self.CursorMoved(self, self.current))

    def set_decisions(self, decisions: dict[str, str], flagged: dict[str, str] | None = None) -> None:
        """New badges (painted, no re-layout); new refusal notes re-lay the rows."""
        self._decisions = dict(decisions)
        if flagged is not None and flagged != self._flagged:
            self._flagged = dict(flagged)
            self._layout()
        else:
            self.refresh()

    def move(self, delta: int) -> bool:
        """Move the cursor by `delta` hunks; False when it cannot move (already at an end)."""
        if not self._hunks:
            return False
        target = max(0, min(len(self._hunks) - 1, self._cursor + delta))
        if target == self._cursor:
            return False
        self.go_to(target)
        return True

    def go_to(self, index: int) -> None:
        if not self._hunks:
            return
        self._cursor = max(0, min(len(self._hunks) - 1, index))
        self.refresh()
        self._scroll_to_cursor()
        self.post_message(self.CursorMoved(self, self.current))

    def row_texts(self) -> list[str]:
        """Every laid-out row as plain text, gutter included (for tests and debugging)."""
        return [self._row_strip(i, Style()).text for i in range(len(self._rows))]

    # --- actions ----------------------------------------------------------------------------
    def action_first_hunk(self) -> None:
        self.go_to(0)

    def action_last_hunk(self) -> None:
        self.go_to(len(self._hunks) - 1)

    # --- layout -----------------------------------------------------------------------------
    def _content_width(self) -> int:
        width = self.scrollable_content_region.width
        return width if width > 0 else 80

    def _layout(self) -> None:
        width = self._content_width()
        self._laid_width = width
        rows: list[_Row] = []
        spans: list[tuple[int, int]] = []
        index = 0
        text_width = max(10, width - len(GUTTER) - 1)
        for f in self._files:
            parts = [(f" {f.path}", "hunk-view--path"), (f" — {f.status}", "hunk-view--file")]
            if f.pinned:
                parts.append(("  📌 pinned", "hunk-view--pinned"))
            if f.stale == "clean":
                parts.append(("  stale: base changed · rebases cleanly", "hunk-view--stale"))
            elif f.stale == "conflict":
                parts.append(("  stale: base changed · ⚠ conflict", "hunk-view--stale"))
            rows.append(_Row(None, tuple(parts), "hunk-view--file", "file"))
            if f.claim:  # the claim's summary line(s) under its file, wrapped
                for line in (("✓ " if f.mechanical else "") + f.claim).split("\n"):
                    for chunk in wrap_words(_printable(line), max(10, width - 3)):
                        rows.append(_Row(None, (("   " + chunk, "hunk-view--claim"),), kind="claim"))
            if not f.hunks:
                rows.append(_Row(None, (("   (no line changes: an empty file)", "hunk-view--empty"),), kind="line"))
            for h in f.hunks:
                start = len(rows)
                parts = [(h.header, "hunk-view--header"), (f"  {h.id}", "hunk-view--id")]
                notes = []
                if h.conflict:
                    notes.append(("⚠ conflict: changed here since the dream", "hunk-view--conflict"))
                elif h.rebased:
                    notes.append(("rebases cleanly", "hunk-view--note"))
                if h.id in self._flagged:
                    notes.append((f"⊘ {self._flagged[h.id]}", "hunk-view--refused"))
                used = BADGE_WIDTH + sum(cell_len(t) for t, _ in parts)
                kind = "header"
                for note, cls in notes:  # on the header line while they fit, then one line each
                    if used + 2 + cell_len(note) <= text_width + 1:
                        parts.append((f"  {note}", cls))
                        used += 2 + cell_len(note)
                    else:
                        rows.append(_Row(index, tuple(parts), kind=kind))
                        parts, kind = [(" " * BADGE_WIDTH + note, cls)], "note"
                        used = BADGE_WIDTH + cell_len(note)
                rows.append(_Row(index, tuple(parts), kind=kind))
                for tag, text in h.lines:
                    cls = LINE_CLASS.get(tag, "hunk-view--context")
                    chunks = wrap_words(_printable(text), text_width)
                    # A wrapped line goes on after ↳, not a second sign: copied, that read as a new line.
                    for n, chunk in enumerate(chunks):
                        rows.append(_Row(index, (((CONTINUATION if n else tag) + chunk, cls),), cls))
                spans.append((start, len(rows)))
                index += 1
            rows.append(_Row(None, (), kind="blank"))
        if not self._files:
            rows = [_Row(None, ((f" {self.empty_message}", "hunk-view--empty"),), kind="empty")]
        self._rows, self._spans = rows, spans
        self.virtual_size = Size(width, len(rows))
        self.refresh()

    def _scroll_to_cursor(self) -> None:
        if not self._spans:
            return
        start, end = self._spans[self._cursor]
        while start > 0 and self._rows[start - 1].kind in ("file", "claim"):
            start -= 1  # show the file header (and its claim line) with the file's first hunk
        height = max(1, self.scrollable_content_region.height)
        span = min(end - start, height)
        self.scroll_to_region(Region(0, start, 1, span), animate=False, immediate=True)

    # --- events -----------------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        if self._content_width() != self._laid_width:
            self._layout()
            self._scroll_to_cursor()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self.refresh()

    def _on_focus(self, event: events.Focus) -> None:
        self._styles.clear()
        self.refresh()

    def _on_blur(self, event: events.Blur) -> None:
        self._styles.clear()
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = self.scroll_offset.y + offset.y
        if 0 <= row < len(self._rows) and self._rows[row].hunk is not None:
            self.go_to(self._rows[row].hunk)  # type: ignore[arg-type]

    # --- rendering --------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self.get_component_rich_style(name) if name else Style()
            self._styles[name] = style
        return style

    def _row_strip(self, index: int, base: Style) -> Strip:
        row = self._rows[index]
        segments: list[Segment] = []
        rejected = row.hunk is not None and self._decisions.get(self._hunks[row.hunk].id) == "reject"
        dim = Style(dim=True) if rejected and row.kind == "line" else None
        if row.kind in ("header", "note", "line") and row.hunk is not None:
            mark = GUTTER if row.hunk == self._cursor else " " * len(GUTTER)
            segments.append(Segment(mark, base + self._style("hunk-view--gutter")))
        elif row.kind == "line":
            segments.append(Segment(" " * len(GUTTER), base))
        if row.kind == "header" and row.hunk is not None:
            label, badge_class = BADGES.get(self._decisions.get(self._hunks[row.hunk].id), BADGES[None])
            segments.append(Segment(label.ljust(BADGE_WIDTH), base + self._style(badge_class)))
        for text, cls in row.parts:
            style = base + self._style(cls)
            if dim is not None:
                style += dim
            segments.append(Segment(text, style))
        length = sum(cell_len(s.text) for s in segments)
        strip = Strip(segments, length)
        fill = base + self._style(row.fill) if row.fill else base
        if dim is not None and row.fill:
            fill += dim
        return strip.crop_extend(0, max(self._laid_width, 1), fill)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        base = self.rich_style
        index = self.scroll_offset.y + y
        if index >= len(self._rows):
            return Strip.blank(width, base)
        return self._row_strip(index, base).crop_extend(0, width, base)
