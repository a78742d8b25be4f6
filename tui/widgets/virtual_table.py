"""A virtual table: renders only the visible rows, whatever the number of rows.

Textual's ``DataTable`` measures every cell when rows are added, which takes
seconds at 10,000 rows.  :class:`VirtualTable` is a Line API widget (a
:class:`~textual.scroll_view.ScrollView` with ``render_line``): it asks its
:class:`RowSource` for ``len()`` and for the rows that are on screen, and
nothing else.  Column widths are either given or fixed from the first visible
page of rows plus the label; all rows are never scanned.

Rows come from a source object, not from a list copied into the widget:

* :class:`ListRowSource` wraps a list of dicts and keeps sort / filter as an
  index permutation (used for the strength table of topic shards);
* any object with ``__len__`` and ``row(index)`` works (e.g. a log read lazily
  from disk by offset).  Optional methods a source may provide, each used when
  present (duck typing):

  - ``sort(key, reverse)``: reorder (otherwise :class:`VirtualTable.SortChanged`
    is still posted so the owner can reorder and call ``set_source``);
  - ``filter(text)``: narrow the rows;
  - ``find(key, value) -> int | None``: position of the row whose ``key`` is
    ``value`` (otherwise the table scans outward from the old cursor);
  - ``source_index(position) -> int`` and ``view_index(source_index) -> int | None``:
    let the table keep the cursor on the same row across sort / filter.

After the rows of a source change (appended log lines, refreshed data), call
:meth:`VirtualTable.refresh_rows` or :meth:`VirtualTable.set_source`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, ClassVar, Protocol, runtime_checkable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size, clamp
from textual.message import Message
from textual.reactive import reactive, var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from dreamdeck.core.formats.terminal_text import terminal_text
from dreamdeck.tui.widgets.word_cut import cut_at_word

__all__ = [
    "Column",
    "RowSource",
    "ListRowSource",
    "VirtualTable",
    "cell_text",
]

AUTO_WIDTH_MAX = 80
NARROW = 100  # below this many cells a table leaves out its optional columns
"""Upper bound for a width measured from the first page of rows."""

SORT_INDICATORS = {False: "▲", True: "▼"}

_CONTROL_TO_SPACE = {c: " " for c in (*range(32), 127)}


# ---------------------------------------------------------------------------
# Columns and cell text
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """A column of a :class:`VirtualTable`.

    Attributes:
        key: Key of the value in each row mapping.
        label: Header text.
        width: Width in cells; ``None`` fixes it from the label and the first
            page of rows shown (never from scanning all rows).
        align: ``"left"`` or ``"right"``.
        sortable: Whether clicking the header / pressing ``s`` sorts by it.
        format: Optional ``value -> str`` used instead of :func:`cell_text`.
        min_width: The column may narrow down to this when the table is
            wider than the widget (``None``: it keeps its width).
        fill: The column takes the width the others leave (at least
            ``width``, or ``min_width`` when the table is too narrow).
        short_label: The header below NARROW cells; the column is then as
            wide as it and the sort mark (a number's header gives way to text).
        max_width: Upper bound for a width measured from the first page.
    """

    key: str
    label: str
    width: int | None = None
    align: str = "left"
    sortable: bool = True
    format: Callable[[object], str] | None = None
    min_width: int | None = None
    fill: bool = False
    short_label: str | None = None
    max_width: int | None = None

    def narrowed(self) -> Column:
        """The column as a table below NARROW cells shows it."""
        if self.short_label is None:
            return self
        return replace(self, label=self.short_label, width=cell_len(self.short_label) + (2 if self.sortable else 0))

    def __post_init__(self) -> None:
        if self.align not in ("left", "right"):
            raise ValueError(f"align must be 'left' or 'right', not {self.align!r}")
        if self.width is not None and self.width < 1:
            raise ValueError("width must be at least 1")
        if self.min_width is not None and self.min_width < 1:
            raise ValueError("min_width must be at least 1")


def fit_widths(columns: Sequence[Column], natural: Sequence[int], available: int) -> list[int]:
    """Column widths for a widget ``available`` cells wide (each column also has one cell of
    padding on either side): fill columns share what is left over. When the columns are too
    wide, fill columns and then the other narrowable ones (right to left) give way down to
    their ``min_width``, if that makes them fit; if it cannot, only the fill columns give way
    and the rest keep their widths and scroll (cutting them would show less of everything)."""
    widths = list(natural)
    if available <= 0:
        return widths
    room = available - sum(w + 2 for w in widths)
    fills = [i for i, c in enumerate(columns) if c.fill]
    if room > 0 and fills:
        share, extra = divmod(room, len(fills))
        for n, i in enumerate(fills):
            widths[i] += share + (1 if n < extra else 0)
        return widths
    if room >= 0:
        return widths

    def slack(i: int) -> int:
        floor = columns[i].min_width
        return 0 if floor is None else max(0, widths[i] - floor)

    others = [i for i in reversed(range(len(columns))) if not columns[i].fill]
    order = fills + (others if sum(slack(i) for i in fills + others) >= -room else [])
    for i in order:
        give = min(-room, slack(i))
        widths[i] -= give
        room += give
        if room >= 0:
            break
    return widths


def cell_text(value: object) -> str:
    """The text a cell shows for a value (``None`` is blank, floats get 3 decimals)."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, float):
        text = f"{value:.3f}"
    else:
        text = str(value)
    if not text.isprintable():  # what a terminal would obey shown as its escape; a line break as a space
        text = terminal_text(text).translate(_CONTROL_TO_SPACE)
    return text


def _fit(text: str, width: int, align: str) -> str:
    """Cut ``text`` to ``width`` cells with an ellipsis (at a word's end: `cut_at_word`), or pad it."""
    length = cell_len(text)
    if length > width:
        text = cut_at_word(text, width)
        length = cell_len(text)
    if length == width:
        return text
    padding = " " * (width - length)
    return padding + text if align == "right" else text + padding


@lru_cache(maxsize=256)
def _parse_style(style: str) -> Style:
    return Style.parse(style)


# ---------------------------------------------------------------------------
# Row sources
# ---------------------------------------------------------------------------


@runtime_checkable
class RowSource(Protocol):
    """Where a :class:`VirtualTable` gets its rows: a length and cheap random access."""

    def __len__(self) -> int: ...

    def row(self, index: int) -> Mapping[str, object]: ...


def _rank_key(value: object) -> tuple[int, Any]:
    """A key ordering mixed types: numbers, then strings, then everything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value)
    if isinstance(value, str):
        return (1, value.casefold())
    return (2, str(value))


class ListRowSource:
    """A :class:`RowSource` over a list of dicts, with sort and filter.

    Sort and filter never copy the rows: they produce a list of indices into
    the list (a permutation, narrowed by the filter).  The list is held by
    reference, so rows appended to it (or through :meth:`append` /
    :meth:`extend`) show up on the next ``len()``; with a sort active the
    permutation is recomputed, with only a filter active only the new rows are
    tested.

    Args:
        rows: The rows (held by reference).
        filter_keys: Keys whose cell texts the filter searches; ``None``
            searches every value of the row.
        formatter: ``(key, value) -> str`` giving the text the filter matches;
            defaults to :func:`cell_text`, i.e. the text the table renders.
    """

    def __init__(
        self,
        rows: Sequence[Mapping[str, object]] | None = None,
        *,
        filter_keys: Iterable[str] | None = None,
        formatter: Callable[[str, object], str] | None = None,
    ) -> None:
        # Any sequence: a list, or rows built as they are asked for (append/extend need a list).
        self._rows: Sequence[Mapping[str, object]] = rows if rows is not None else []
        self.filter_keys: tuple[str, ...] | None = (
            tuple(filter_keys) if filter_keys is not None else None
        )
        self._formatter = formatter
        self._sort_key: str | None = None
        self._sort_reverse = False
        self._filter_text = ""
        self._view: list[int] | None = None  # None: identity
        self._seen = len(self._rows)

    # -- RowSource ---------------------------------------------------------

    def __len__(self) -> int:
        self._sync()
        return len(self._rows) if self._view is None else len(self._view)

    def row(self, index: int) -> Mapping[str, object]:
        self._sync()
        if self._view is None:
            return self._rows[index]
        return self._rows[self._view[index]]

    # -- data --------------------------------------------------------------

    @property
    def rows(self) -> Sequence[Mapping[str, object]]:
        """The underlying list (unsorted, unfiltered)."""
        return self._rows

    @property
    def sort_key(self) -> str | None:
        return self._sort_key

    @property
    def sort_reverse(self) -> bool:
        return self._sort_reverse

    @property
    def filter_text(self) -> str:
        return self._filter_text

    def append(self, row: Mapping[str, object]) -> None:
        self._rows.append(row)  # type: ignore[attr-defined]  # a list's rows

    def extend(self, rows: Iterable[Mapping[str, object]]) -> None:
        self._rows.extend(rows)  # type: ignore[attr-defined]  # a list's rows

    def set_rows(self, rows: Sequence[Mapping[str, object]]) -> None:
        """Replace the rows, keeping the current sort and filter."""
        self._rows = rows
        self._seen = len(rows)
        self._recompute()

    # -- sort / filter -------------------------------------------------------

    def sort(self, key: str | None, reverse: bool = False) -> None:
        """Order by ``key`` (``None``: original order). Rows without the key go last."""
        self._sort_key = key
        self._sort_reverse = reverse
        self._recompute()

    def filter(self, text: str) -> None:
        """Keep rows whose cell texts contain ``text`` (case-insensitive); ``""`` clears."""
        self._filter_text = text
        self._recompute()

    def source_index(self, position: int) -> int:
        """Index in :attr:`rows` of the row at ``position``."""
        self._sync()
        return position if self._view is None else self._view[position]

    def view_index(self, source_index: int) -> int | None:
        """Position of ``rows[source_index]``, or ``None`` if filtered out."""
        self._sync()
        if self._view is None:
            return source_index if 0 <= source_index < len(self._rows) else None
        try:
            return self._view.index(source_index)
        except ValueError:
            return None

    def find(self, key: str, value: object) -> int | None:
        """Position of the first visible row whose ``key`` equals ``value``."""
        self._sync()
        for index, row in enumerate(self._rows):
            if row.get(key) == value:
                position = self.view_index(index)
                if position is not None:
                    return position
        return None

    # -- internals -----------------------------------------------------------

    def _sync(self) -> None:
        count = len(self._rows)
        if count == self._seen:
            return
        if count > self._seen and self._sort_key is None:
            if self._filter_text and self._view is not None:
                self._view.extend(self._matching(range(self._seen, count)))
            self._seen = count
            return
        self._seen = count
        self._recompute()

    def _recompute(self) -> None:
        rows = self._rows
        self._seen = len(rows)
        order: Sequence[int] | None = None
        if self._sort_key is not None:
            order = self._sorted_indices(self._sort_key, self._sort_reverse)
        if self._filter_text:
            self._view = self._matching(order if order is not None else range(len(rows)))
        else:
            self._view = list(order) if order is not None else None

    def _sorted_indices(self, key: str, reverse: bool) -> list[int]:
        values = [row.get(key) for row in self._rows]
        present = [i for i, v in enumerate(values) if v is not None]
        missing = [i for i, v in enumerate(values) if v is None]
        try:
            present.sort(key=values.__getitem__, reverse=reverse)
        except TypeError:  # mixed types
            ranked = [_rank_key(v) for v in values]
            present.sort(key=ranked.__getitem__, reverse=reverse)
        return present + missing

    def _matching(self, indices: Iterable[int]) -> list[int]:
        needle = self._filter_text.casefold()
        rows = self._rows
        keys = self.filter_keys
        fmt = self._formatter
        result: list[int] = []
        append = result.append
        for index in indices:
            row = rows[index]
            if fmt is not None:
                items = row.items() if keys is None else [(k, row.get(k)) for k in keys]
                texts = [fmt(k, v) for k, v in items]
            else:
                values = row.values() if keys is None else [row.get(k) for k in keys]
                # Plain strings are their own cell text (bar control characters, which
                # cannot be typed into a filter anyway).
                texts = [v if type(v) is str else cell_text(v) for v in values]
            if needle in "\0".join(texts).casefold():
                append(index)
        return result


# ---------------------------------------------------------------------------
# The widget
# ---------------------------------------------------------------------------


CellStyle = Callable[[str, Mapping[str, object]], "str | None"]


class VirtualTable(ScrollView, can_focus=True):
    """A table that renders only the visible rows of a :class:`RowSource`.

    Line 0 of the widget is a fixed header; rows follow.  ``cursor_row`` is a
    position in the source; ``cursor_column`` is the header column that ``s``
    sorts by (moved with left/right).
    """

    ALLOW_SELECT = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "cursor_down", "Down", show=False, id="virtual_table.cursor_down"),
        Binding("k,up", "cursor_up", "Up", show=False, id="virtual_table.cursor_up"),
        Binding("g,home", "cursor_top", "Top", show=False, id="virtual_table.cursor_top"),
        Binding("G,end", "cursor_bottom", "Bottom", show=False, id="virtual_table.cursor_bottom"),
        Binding("pagedown", "page_down", "Page down", show=False, id="virtual_table.page_down"),
        Binding("pageup", "page_up", "Page up", show=False, id="virtual_table.page_up"),
        Binding("ctrl+d", "half_page_down", "Half page down", show=False, id="virtual_table.half_page_down"),
        Binding("ctrl+u", "half_page_up", "Half page up", show=False, id="virtual_table.half_page_up"),
        Binding("left,h", "column_left", "Column left", show=False, id="virtual_table.column_left"),
        Binding("right,l", "column_right", "Column right", show=False, id="virtual_table.column_right"),
        Binding("enter", "select_row", "Select", show=False, id="virtual_table.select"),
        Binding("s", "sort_column", "Sort", id="virtual_table.sort"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--header-cursor",
        "virtual-table--cursor",
        "virtual-table--empty",
    }

    DEFAULT_CSS = """
    VirtualTable {
        height: 1fr;
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .virtual-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .virtual-table--header-cursor {
                background: $block-cursor-blurred-background;
                text-style: bold underline;
            }
        }
        & > .virtual-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        & > .virtual-table--header-cursor {
            text-style: bold underline;
        }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .virtual-table--empty {
            color: $text-muted;
            text-style: italic;
        }
        &:ansi > .virtual-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
    }
    """

    cursor_row: reactive[int] = reactive(0)
    """Position of the highlighted row in the source."""

    cursor_column: reactive[int] = reactive(0)
    """Index of the header column that ``s`` sorts by."""

    follow: var[bool] = var(False)
    """Tail mode: when rows are appended the cursor stays on the last row.

    Moving the cursor off the last row pauses it (``follow`` becomes False);
    going back to the bottom (G / end) resumes it."""

    empty_message: reactive[str] = reactive("No rows")
    """Shown in the body when the source is empty."""

    # -- messages ------------------------------------------------------------

    class _RowMessage(Message):
        """A message about one row (its position in the source and its values)."""

        def __init__(self, table: VirtualTable, index: int, row: Mapping[str, object]) -> None:
            super().__init__()
            self.table = table
            self.index = index
            self.row = row

        @property
        def control(self) -> VirtualTable:
            return self.table

    class RowHighlighted(_RowMessage):
        """The cursor moved to a row."""

    class RowSelected(_RowMessage):
        """Enter was pressed (or the row double-clicked)."""

    class SortChanged(Message):
        """The sort column or direction changed."""

        def __init__(self, table: VirtualTable, key: str | None, reverse: bool) -> None:
            super().__init__()
            self.table = table
            self.key = key
            self.reverse = reverse

        @property
        def control(self) -> VirtualTable:
            return self.table

    # -- construction ----------------------------------------------------------

    def __init__(
        self,
        columns: Sequence[Column],
        source: RowSource | None = None,
        *,
        cell_style: CellStyle | None = None,
        empty_message: str = "No rows",
        follow: bool = False,
        frozen: int = 0,
        select_on_enter: bool = True,
        optional: tuple[str, ...] = (),
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        if not columns:
            raise ValueError("a VirtualTable needs at least one column")
        self._columns: tuple[Column, ...] = tuple(columns)
        # Columns left out below NARROW cells (a detail pane shows them), so the others keep their room.
        self._all_columns = self._columns
        self._optional = frozenset(optional)
        self._source: RowSource = source if source is not None else ListRowSource([])
        self._cell_style = cell_style
        self._row_count = len(self._source)
        self._frozen = max(0, min(frozen, len(self._columns) - 1))
        # False: `enter` is not the table's (RowSelected is never posted); it goes on to the screen.
        self.select_on_enter = select_on_enter
        self._natural: list[int] = self._label_widths()  # before fitting to the widget's width
        self._widths: list[int] = list(self._natural)
        self._widths_fixed = all(c.width is not None for c in self._columns)
        self._flexible = bool(optional) or any(c.fill or c.min_width is not None or c.short_label
                                               for c in self._columns)
        self._fitted_for = -1
        self._sort_key: str | None = None
        self._sort_reverse = False
        self._filter_text = ""
        self._follow_paused = False
        self._line_cache: LRUCache[tuple[int, bool], Strip] = LRUCache(256)
        self._base_style: Style | None = None
        self.set_reactive(VirtualTable.empty_message, empty_message)
        self.set_reactive(VirtualTable.follow, follow)
        if follow and self._row_count:
            self.set_reactive(VirtualTable.cursor_row, self._row_count - 1)
        self._update_virtual_size()

    # -- public API ------------------------------------------------------------

    @property
    def columns(self) -> tuple[Column, ...]:
        return self._columns

    @property
    def source(self) -> RowSource:
        return self._source

    @property
    def row_count(self) -> int:
        """Number of rows as of the last refresh."""
        return self._row_count

    @property
    def sort_key(self) -> str | None:
        return self._sort_key

    @property
    def sort_reverse(self) -> bool:
        return self._sort_reverse

    @property
    def filter_text(self) -> str:
        return self._filter_text

    @property
    def column_widths(self) -> tuple[int, ...]:
        return tuple(self._widths)

    def current_row(self) -> Mapping[str, object] | None:
        """The row under the cursor, or ``None`` when there are no rows."""
        if not self._row_count:
            return None
        return self._source.row(min(self.cursor_row, self._row_count - 1))

    def set_source(self, source: RowSource, keep_cursor_key: str | None = None) -> None:
        """Show ``source`` (or the same source after its rows changed).

        The table's sort and filter are re-applied to the source when it
        supports them.  With ``keep_cursor_key`` the cursor stays on the row
        whose value for that column equals the current row's, at the same
        line of the screen when possible.  In follow mode the cursor goes to
        the last row instead.
        """
        old_row = self.current_row() if keep_cursor_key is not None else None
        old_cursor = self.cursor_row
        same_source = source is self._source
        self._source = source
        if self._sort_key is not None and hasattr(source, "sort"):
            source.sort(self._sort_key, self._sort_reverse)  # type: ignore[attr-defined]
        if self._filter_text and hasattr(source, "filter"):
            source.filter(self._filter_text)  # type: ignore[attr-defined]
        target: int | None = None
        if old_row is not None and keep_cursor_key is not None and keep_cursor_key in old_row:
            count = len(source)
            target = self._find_row(keep_cursor_key, old_row[keep_cursor_key], old_cursor, count)
        # A new source (or a kept row that vanished) means a new row under the cursor.
        changed = target is None and (not same_source or keep_cursor_key is not None)
        self._rows_changed(target, old_cursor, always_highlight=changed)

    def refresh_rows(self) -> None:
        """Re-read the source's length and repaint (call after rows were appended or changed)."""
        self._rows_changed(None, self.cursor_row, always_highlight=False)

    def sort_by(self, key: str | None, reverse: bool | None = None) -> None:
        """Sort by column ``key``; same key with ``reverse=None`` toggles the direction.

        ``None`` clears the sort.  The cursor stays on the same row when the
        source can say where it went (``source_index`` / ``view_index``).
        Posts :class:`SortChanged`.
        """
        if key is not None:
            column = self._column(key)
            if not column.sortable:
                return
            self.cursor_column = self._columns.index(column)
        if reverse is None:
            reverse = (not self._sort_reverse) if key == self._sort_key else False
        anchor = self._anchor()
        self._sort_key = key
        self._sort_reverse = reverse
        if hasattr(self._source, "sort"):
            self._source.sort(key, reverse)  # type: ignore[attr-defined]
        self._reordered(anchor)
        self.post_message(self.SortChanged(self, key, reverse))

    def set_filter(self, text: str) -> None:
        """Narrow the rows to those matching ``text`` (the source does the matching); ``""`` clears."""
        self._filter_text = text
        anchor = self._anchor()
        if hasattr(self._source, "filter"):
            self._source.filter(text)  # type: ignore[attr-defined]
        self._reordered(anchor, fallback_top=True)

    def move_cursor(self, row: int, *, scroll: bool = True) -> None:
        """Move the cursor to ``row`` (clamped)."""
        self.cursor_row = row
        if scroll:
            self._scroll_cursor_into_view()

    # -- geometry --------------------------------------------------------------

    @property
    def _body_height(self) -> int:
        """Rows visible below the header."""
        return max(0, self.scrollable_content_region.height - 1)

    @property
    def _total_width(self) -> int:
        return sum(w + 2 for w in self._widths)

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._total_width, self._row_count + 1)

    def _label_widths(self) -> list[int]:
        widths = []
        for column in self._columns:
            if column.width is not None:
                widths.append(column.width)
            else:
                widths.append(self._label_width(column))
        return widths

    @staticmethod
    def _label_width(column: Column) -> int:
        return max(1, cell_len(column.label) + (2 if column.sortable else 0))

    def _ensure_widths(self) -> None:
        """Fix auto widths from the first visible page of rows (once), then fit them to the width."""
        if not self._widths_fixed:
            self._measure_auto_widths()
        if self._flexible:
            width = self.scrollable_content_region.width
            if width and width != self._fitted_for:
                self._fitted_for = width
                self._show_columns_for(width)
                self._widths = fit_widths(self._columns, self._natural, width)
                self._line_cache.clear()
                self._update_virtual_size()
                self.call_after_refresh(self._keep_cursor_column_in_view)

    def _show_columns_for(self, width: int) -> None:
        """Below NARROW cells the optional columns go and short labels replace long ones; at or
        above it they come back."""
        narrow = width < NARROW
        shown = tuple(c.narrowed() if narrow else c for c in self._all_columns
                      if not narrow or c.key not in self._optional)
        if shown == self._columns:
            return
        natural = {c: w for c, w in zip(self._columns, self._natural)}
        current = self._columns[self.cursor_column].key if self._columns else None
        self._columns = shown
        self._natural = [natural.get(c, c.width or self._label_width(c)) for c in shown]
        keys = [c.key for c in shown]
        self.cursor_column = keys.index(current) if current in keys else min(self.cursor_column, len(keys) - 1)

    def _measure_auto_widths(self) -> None:
        page = self._body_height
        if not self._row_count or not page:
            return
        start = min(self.scroll_offset.y, self._row_count - 1)
        stop = min(self._row_count, start + page)
        rows = [self._source.row(i) for i in range(start, stop)]
        widths = []
        for column, width in zip(self._columns, self._label_widths()):
            if column.width is None:
                fmt = column.format or cell_text
                for row in rows:
                    width = max(width, cell_len(fmt(row.get(column.key))))
                width = min(width, max(column.max_width or AUTO_WIDTH_MAX, self._label_width(column)))
            widths.append(width)
        self._natural = widths
        self._widths = list(widths)
        self._widths_fixed = True
        self._fitted_for = -1
        self._line_cache.clear()
        self._update_virtual_size()

    @property
    def _frozen_width(self) -> int:
        """Cells of the leading columns that stay on screen when the rest scrolls sideways."""
        return sum(w + 2 for w in self._widths[: self._frozen])

    def _column(self, key: str) -> Column:
        for column in self._columns:
            if column.key == key:
                return column
        raise KeyError(f"no column {key!r}")

    def _column_at(self, x: int) -> int | None:
        """Index of the column drawn at virtual x, if any."""
        left = 0
        for index, width in enumerate(self._widths):
            left += width + 2
            if x < left:
                return index
        return None

    def _column_span(self, index: int) -> tuple[int, int]:
        left = sum(w + 2 for w in self._widths[:index])
        return left, left + self._widths[index] + 2

    # -- cursor and scrolling ----------------------------------------------------

    def validate_cursor_row(self, value: int) -> int:
        return clamp(value, 0, max(0, self._row_count - 1))

    def validate_cursor_column(self, value: int) -> int:
        return clamp(value, 0, len(self._columns) - 1)

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self._post_highlighted()

    def watch_cursor_column(self) -> None:
        self._keep_cursor_column_in_view()
        self.refresh_line(0)
        self.refresh()

    def _keep_cursor_column_in_view(self) -> None:
        if self.cursor_column < self._frozen:
            return  # always on screen
        left, right = self._column_span(self.cursor_column)
        frozen = self._frozen_width
        width = self.scrollable_content_region.width
        if width:
            x = self.scroll_offset.x
            if left < frozen + x:
                self.scroll_to(x=max(0, left - frozen), animate=False)
            elif right > x + width:
                self.scroll_to(x=right - width, animate=False)

    def watch_follow(self, follow: bool) -> None:
        self._follow_paused = False
        if follow and self._row_count:
            self.cursor_row = self._row_count - 1
            self._scroll_cursor_into_view()

    def _post_highlighted(self) -> None:
        row = self.current_row()
        if row is not None:
            self.post_message(self.RowHighlighted(self, self.cursor_row, row))

    def _scroll_cursor_into_view(self) -> None:
        body = self._body_height
        if not body:
            return
        top = round(self.scroll_y)
        cursor = self.cursor_row
        if cursor < top:
            self.scroll_to(y=cursor, animate=False)
        elif cursor >= top + body:
            self.scroll_to(y=cursor - body + 1, animate=False)

    def _anchor(self) -> tuple[int | None, int, int]:
        """(source index of the cursor row, cursor, cursor's line on screen)."""
        cursor = self.cursor_row
        screen_line = cursor - round(self.scroll_y)
        source_index = None
        if self._row_count and hasattr(self._source, "source_index"):
            source_index = self._source.source_index(cursor)  # type: ignore[attr-defined]
        return source_index, cursor, screen_line

    def _reordered(self, anchor: tuple[int | None, int, int], fallback_top: bool = False) -> None:
        source_index, old_cursor, screen_line = anchor
        target = None
        if source_index is not None and hasattr(self._source, "view_index"):
            target = self._source.view_index(source_index)  # type: ignore[attr-defined]
        to_top = target is None and fallback_top
        if to_top:
            target = 0
            screen_line = 0
        self._rows_changed(target, old_cursor, always_highlight=True, screen_line=screen_line)
        if to_top:
            self.scroll_to(y=0, animate=False)

    def _rows_changed(
        self,
        target: int | None,
        old_cursor: int,
        *,
        always_highlight: bool,
        screen_line: int | None = None,
    ) -> None:
        """Re-read the row count and place the cursor on ``target`` (or keep its index)."""
        if screen_line is None:
            screen_line = old_cursor - round(self.scroll_y)
        old_count = self._row_count
        self._row_count = count = len(self._source)
        self._line_cache.clear()
        self._update_virtual_size()
        if self.follow and count:
            target = count - 1
            grew = count > old_count
        else:
            grew = False
        if target is None:
            target = min(old_cursor, max(0, count - 1))
        moved = target != self.cursor_row
        body = self._body_height
        # Keep the cursor on the same line of the screen; but rows that arrive above a table seen
        # from its top (History's newest commit) are shown, not hidden above it, while the
        # cursor's row still fits below them.
        at_top = round(self.scroll_y) == 0 and target < body
        if moved and body and not at_top:
            screen_line = clamp(screen_line, 0, body - 1)
            self.scroll_to(y=target - screen_line, animate=False)
        self.set_reactive(VirtualTable.cursor_row, target)
        if moved:
            self._scroll_cursor_into_view()
        if self.follow and grew and body:
            self.scroll_to(y=self.max_scroll_y, animate=False)
        if moved or grew:
            # The new virtual size only counts for scrolling after the next layout: a scroll
            # made now is clamped to the old height (a first load would stay at the top).
            self.call_after_refresh(self._settle_scroll)
        if moved or always_highlight:
            self._post_highlighted()
        self.refresh()

    def _settle_scroll(self) -> None:
        if self.follow and self._row_count:
            self.scroll_to(y=self.max_scroll_y, animate=False)
        else:
            self._scroll_cursor_into_view()

    def _find_row(self, key: str, value: object, near: int, count: int) -> int | None:
        find = getattr(self._source, "find", None)
        if find is not None:
            return find(key, value)
        row = self._source.row
        near = clamp(near, 0, max(0, count - 1))
        for distance in range(count):
            below = near + distance
            if below < count and row(below).get(key) == value:
                return below
            above = near - distance - 1
            if above >= 0 and row(above).get(key) == value:
                return above
            if below >= count and above < 0:
                break
        return None

    def _user_moved(self, target: int) -> None:
        """Move the cursor for a key or click; pause / resume follow mode."""
        last = self._row_count - 1
        if self.follow and target < last:
            self.follow = False
            self._follow_paused = True
        elif self._follow_paused and target >= last:
            self.follow = True
        self.cursor_row = target
        self._scroll_cursor_into_view()

    # -- actions ---------------------------------------------------------------

    def action_cursor_down(self) -> None:
        self._user_moved(self.cursor_row + 1)

    def action_cursor_up(self) -> None:
        self._user_moved(self.cursor_row - 1)

    def action_cursor_top(self) -> None:
        self._user_moved(0)

    def action_cursor_bottom(self) -> None:
        self._user_moved(max(0, self._row_count - 1))

    def _page(self, delta: int) -> None:
        self.scroll_to(y=self.scroll_y + delta, animate=False)
        self._user_moved(self.cursor_row + delta)
        self._scroll_cursor_into_view()

    def action_page_down(self) -> None:
        self._page(max(1, self._body_height))

    def action_page_up(self) -> None:
        self._page(-max(1, self._body_height))

    def action_half_page_down(self) -> None:
        self._page(max(1, self._body_height // 2))

    def action_half_page_up(self) -> None:
        self._page(-max(1, self._body_height // 2))

    def action_column_left(self) -> None:
        self.cursor_column -= 1

    def action_column_right(self) -> None:
        self.cursor_column += 1

    def action_sort_column(self) -> None:
        self.sort_by(self._columns[self.cursor_column].key)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_row" and not self.select_on_enter:
            return False
        return super().check_action(action, parameters)

    def action_select_row(self) -> None:
        row = self.current_row()
        if row is not None:
            self.post_message(self.RowSelected(self, self.cursor_row, row))

    # -- events ----------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._ensure_widths()
        self._scroll_cursor_into_view()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        event.stop()
        if offset.y == 0:
            x = offset.x if offset.x < self._frozen_width else offset.x + self.scroll_offset.x
            index = self._column_at(x)
            if index is not None:
                column = self._columns[index]
                self.cursor_column = index
                if column.sortable:
                    self.sort_by(column.key)
            return
        row = self.scroll_offset.y + offset.y - 1
        if row >= self._row_count:
            return
        if row == self.cursor_row and event.chain >= 2:
            self.action_select_row()
        self._user_moved(row)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line_cache.clear()
        self.refresh()

    def _on_focus(self, event: events.Focus) -> None:
        self._line_cache.clear()

    def _on_blur(self, event: events.Blur) -> None:
        self._line_cache.clear()

    def watch_empty_message(self) -> None:
        self.refresh()

    # -- rendering -------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # ``rich_style`` walks the ancestors; work it out once per paint, not per line.
        self._base_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base_style = None

    def render_line(self, y: int) -> Strip:
        self._ensure_widths()
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base = self._base_style or self.rich_style
        if y == 0:
            header_style = base + self.get_component_rich_style("virtual-table--header")
            return self._scrolled(self._render_header(base), scroll_x, width, header_style)
        if not self._row_count:
            return self._render_empty_line(y, width, base)
        index = scroll_y + y - 1
        if index >= self._row_count:
            return Strip.blank(width, base)
        is_cursor = index == self.cursor_row
        key = (index, is_cursor)
        strip = self._line_cache.get(key)
        if strip is None:
            strip = self._render_row(index, is_cursor, base)
            self._line_cache[key] = strip
        row_style = base + self.get_component_rich_style("virtual-table--cursor") if is_cursor else base
        return self._scrolled(strip, scroll_x, width, row_style)

    def _scrolled(self, strip: Strip, scroll_x: int, width: int, style: Style) -> Strip:
        """The part of a full-width line on screen: the frozen columns, then the rest from scroll_x."""
        frozen = min(self._frozen_width, width)
        if not frozen or not scroll_x:
            return strip.crop_extend(scroll_x, scroll_x + width, style)
        return Strip.join([strip.crop_extend(0, frozen, style),
                           strip.crop_extend(frozen + scroll_x, scroll_x + width, style)])

    def _render_header(self, base: Style) -> Strip:
        header_style = base + self.get_component_rich_style("virtual-table--header")
        cursor_style = header_style + self.get_component_rich_style("virtual-table--header-cursor")
        segments: list[Segment] = []
        for index, (column, width) in enumerate(zip(self._columns, self._widths)):
            label = column.label
            if column.key == self._sort_key and self._sort_key is not None:
                indicator = SORT_INDICATORS[self._sort_reverse]
                if width > 2:
                    label = f"{_fit(label, width - 2, 'left').rstrip()} {indicator}"
                else:
                    label = indicator
            text = _fit(label, width, column.align)
            style = cursor_style if index == self.cursor_column else header_style
            segments.append(Segment(f" {text} ", style))
        return Strip(segments, self._total_width)

    def _render_row(self, index: int, is_cursor: bool, base: Style) -> Strip:
        row = self._source.row(index)
        cursor_style = self.get_component_rich_style("virtual-table--cursor") if is_cursor else None
        row_style = base + cursor_style if cursor_style is not None else base
        cell_style = self._cell_style
        segments: list[Segment] = []
        for column, width in zip(self._columns, self._widths):
            value = row.get(column.key)
            text = (column.format or cell_text)(value)
            style = row_style
            if cell_style is not None:
                extra = cell_style(column.key, row)
                if extra:
                    style = row_style + _parse_style(extra)
                    if cursor_style is not None and cursor_style.bgcolor is not None:
                        style += Style(bgcolor=cursor_style.bgcolor)
            segments.append(Segment(" ", row_style))
            segments.append(Segment(_fit(text, width, column.align), style))
            segments.append(Segment(" ", row_style))
        return Strip(segments, self._total_width)

    def _render_empty_line(self, y: int, width: int, base: Style) -> Strip:
        body = self._body_height or 1
        if y != 1 + (body - 1) // 3:
            return Strip.blank(width, base)
        message = _fit(self.empty_message, width, "left").rstrip()
        left = max(0, (width - cell_len(message)) // 2)
        style = base + self.get_component_rich_style("virtual-table--empty")
        return Strip(
            [Segment(" " * left, base), Segment(message, style)],
            left + cell_len(message),
        ).extend_cell_length(width, base)
