"""Screen 1, Topics: the strength table beside the selected shard with its citations resolved."""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from dreamdeck.core.formats.terminal_text import terminal_text
from dreamdeck.core.ops.report import shard_report
from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.widgets.panes import NavList, ScrollPane
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable, cell_text

if TYPE_CHECKING:
    from dreamdeck.core.index.strength import StrengthRow

TIER_STYLE = {"mentioned": "dim", "observed": "cyan", "consistently": "green", "always": "bold green"}
STATUS_STYLE = {"active": "green", "fading": "yellow", "dormant": "dark_orange", "archived": "red", "pinned": "bold magenta"}

SHARD_SETTLE = 0.1  # seconds the cursor rests on a row before its shard is read and drawn

# Widths leave room for the label and the sort mark ("cites ▼"), so a sorted header is never cut.
# Below 100 cells the optional columns go (see compose_body), "cites" reads "cit", and the slug is
# as wide as the slugs on the first page: the heading, the belief itself, takes the room left.
COLUMNS = [
    Column("slug", "slug", width=None, min_width=14, max_width=28),  # frozen: it stays when → scrolls the rest
    Column("cites", "cites", width=7, align="right", short_label="cit"),
    Column("days", "days", width=6, align="right", short_label="day"),
    Column("last_reinforced", "last", width=10),
    Column("age", "age", width=5, align="right"),
    Column("tier", "tier", width=13),  # "consistently" and a space: never run into the score or status
    Column("score", "score", width=7, align="right", format=lambda v: f"{v:.2f}" if isinstance(v, float) else str(v)),
    Column("status", "status", width=8),
    # it takes what is left; without the offline dreamer's tier prefix ("Always (7 days): "), which
    # the tier column says and which was all a narrow cell showed (the shard pane has it whole)
    Column("heading", "heading", width=24, min_width=10, fill=True, format=lambda v: cell_text(_claim(str(v)))),
]


def _claim(heading: str) -> str:
    from dreamdeck.core.index.ladder import strip_prefix

    claim, _ = strip_prefix(heading)
    return claim or heading


def cell_style(key: str, row) -> str | None:
    if key == "tier":
        return TIER_STYLE.get(str(row.get("tier")))
    if key == "status":
        return STATUS_STYLE.get(str(row.get("status")))
    if key == "slug" and row.get("parse_error"):
        return "bold red"
    return None


def _text_markdown():
    """Markdown without inline HTML: a belief such as `<type>/<PLAT-key>` is text, not tags."""
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like", {"html": False})


def split_sections(body: str) -> tuple[str, str]:
    """(the prose before the first `fragments:`/`superseded:`/`references:` heading, the rest)."""
    from dreamdeck.core.formats.citations import REFERENCES_HEADING, SECTION_HEADING

    lines = body.splitlines(keepends=True)
    for n, line in enumerate(lines):
        if SECTION_HEADING.match(line.rstrip("\r\n")) or REFERENCES_HEADING.match(line.rstrip("\r\n")):
            return "".join(lines[:n]).rstrip("\r\n"), "".join(lines[n:]).rstrip("\r\n")
    return body, ""


class CitationList(NavList):
    """The shard's citations, each resolved to its fragment; `enter` opens it on the Stream screen."""

    BINDINGS = [Binding("enter", "select", "Open in Stream", key_display="⏎", id="topics.open_citation")]


class StrengthRows(Sequence[Mapping[str, object]]):
    """The strength table's rows as the table's dicts, each built the first time it is asked for:
    the first paint at 100,000 topics builds the rows on screen, not 100,000 dicts (a sort or a
    filter by a column builds the rest)."""

    def __init__(self, rows: Sequence[StrengthRow], proven: bool = True, painted: threading.Event | None = None):
        self._rows = rows
        self.proven = proven  # False: rows as the projection recorded them (see TopicsScreen.load)
        self.painted = painted  # set once they are on screen
        self._dicts: list[dict[str, object] | None] = [None] * len(rows)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def built(self) -> int:
        """How many rows have been turned into dicts so far."""
        return len(self._dicts) - self._dicts.count(None)

    @overload
    def __getitem__(self, index: int) -> Mapping[str, object]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Mapping[str, object]]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        row = self._dicts[index]
        if row is None:
            r = self._rows[index]
            row = r.to_json()  # filled in place: a merged copy per row costs a tenth of a second at 100k
            row["score"] = r.score
            row["heading"] = r.heading or "(untitled)"  # as `dreamdeck topics` prints it
            self._dicts[index] = row
        return row


# Each fits in 80 columns; with a dream waiting, how to add fragments was the wrong next step.
EMPTY = "No topics yet: add fragments (dreamdeck remember TEXT), then dream: 7, d."
EMPTY_WAITING = "No topics yet: a dream waits for your review on 2 (Reflections)."

SUPERSEDED_HEADING = "⊘ superseded: no longer believed"
CHECKING = "Checking each row against its file… pin, forget and edit wait until it is done."


class TopicsScreen(MemoryScreen):
    MODE = "topics"
    FILTER_TABLES = ("#strength",)
    AUTO_FOCUS = "#strength"
    PURPOSE = "How strong is each belief? The strength table, and the selected shard with the fragments behind it."
    HELP = (
        "Each row is a topic shard in `memory/topics/`: **cites** counts the fragments it cites, **days** "
        "the distinct days they came from (as TypeClaw counts them, what it superseded included). **tier** "
        "is the wording ladder by the distinct days of the belief's own evidence (mentioned → observed → "
        "consistently → always; what it superseded never counts); **score/status** is its decay since it "
        "was last reinforced (active, fading, dormant, archived). Red slugs are shards TypeClaw cannot parse. "
        "Below 100 columns the days, tier, last, age and score columns give their room to the heading "
        "(the shard's line below says the days and the date).\n\n"
        "Below, the belief and the fragments behind it; the ones marked ⊘, listed last, are what it "
        "superseded (no longer believed).\n\n"
        "Sort with `s` on a column (←/→ to pick it; the slug stays in view) or by clicking a header; "
        "filter with `/`. `enter` (or tab) goes to the shard's citations; `enter` on a citation opens "
        "that fragment in the Stream screen."
    )
    BINDINGS = [
        Binding("p", "pin", "Pin", id="topics.pin"),
        Binding("f", "forget", "Forget", id="topics.forget"),
        Binding("e", "edit", "Edit", id="topics.edit"),
        Binding("slash", "filter", "Filter", key_display="/", id="topics.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="topics.clear_filter"),
        Binding("enter", "citations", "Citations", key_display="⏎", id="topics.citations"),
    ]
    PANES = ("#strength", "#shard-body", "#citations")
    DEFAULT_CSS = """
    TopicsScreen #topics-body { height: 1fr; }
    TopicsScreen #strength { height: 1fr; min-height: 5; }
    TopicsScreen #shard-pane { height: 1fr; min-height: 7; border-top: solid $panel-lighten-1; }
    TopicsScreen #shard-pane:focus-within { border-top: solid $accent; }
    TopicsScreen #shard-title { text-style: bold; padding: 0 1; height: auto; max-height: 2; }
    TopicsScreen #shard-meta { color: $text-muted; padding: 0 1; height: auto; max-height: 2; }
    TopicsScreen.-short #shard-title, TopicsScreen.-short #shard-meta { height: 1;
        text-wrap: nowrap; text-overflow: ellipsis; }
    TopicsScreen #shard-meta.-error { color: $error; }
    TopicsScreen #shard-split { height: 1fr; }
    TopicsScreen #shard-body { width: 1fr; }
    TopicsScreen #shard-md { height: auto; }
    TopicsScreen #shard-sections { height: auto; padding: 0 2; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    TopicsScreen #citations { width: 1fr; height: 1fr; border-left: solid $panel-lighten-1; }
    TopicsScreen #citations:focus { border-left: solid $accent; }
    TopicsScreen.-wide #citations { width: 3fr; }
    TopicsScreen.-wide #shard-body { width: 2fr; }
    """

    def compose_body(self) -> ComposeResult:
        yield self.filter_box("filter topics (slug, heading, tier, status)")
        # Stacked like History: the table keeps every column at 140 cells; the shard sits below,
        # its text beside the citations resolved to fragments.
        with Vertical(id="topics-body"):
            # Narrow: days, last, age, tier and score go, so the heading (what a person reads
            # first) gets forty cells, not seventeen: the meta line says the days and the date,
            # the heading's own words the tier ("always", "consistently"), the status the score.
            yield VirtualTable(COLUMNS, ListRowSource([]), cell_style=cell_style, id="strength", frozen=1,
                               select_on_enter=False,
                               optional=("days", "last_reinforced", "age", "tier", "score"),
                               empty_message=EMPTY)
            with Vertical(id="shard-pane"):
                yield SafeStatic("", id="shard-title", markup=False)
                yield SafeStatic("", id="shard-meta", markup=False)
                with Horizontal(id="shard-split"):
                    with ScrollPane(id="shard-body"):
                        yield Markdown("", id="shard-md", parser_factory=_text_markdown)
                        yield SafeStatic("", id="shard-sections", markup=False)
                    yield CitationList(id="citations")

    # --- data ----------------------------------------------------------------------------
    # The rule for a fresh app: the table is first painted from the head projection (the rows as
    # the last table recorded them, in its order: one file read, no shard listed or opened), then
    # proven against the files by `strength_table` in the same worker and repainted. Until it is
    # proven, pin, forget and edit are disabled; the shard pane is always read from the file. So a
    # row is never acted on as the projection pictured it. Later loads are proven from the start.
    proven = False

    def load(self) -> Any:
        from dreamdeck.core.index.shard_heads import ShardHeads
        from dreamdeck.core.index.strength import projected_table
        from dreamdeck.core.store.access import access_summary
        from dreamdeck.core.store.settings import load_settings
        from dreamdeck.core.store.shard_files import list_shard_files

        ws = self.ws
        today, decay, heads = ws.today(), load_settings(ws.root).decay, ShardHeads.of(ws)
        pinned = frozenset(slug for slug, _ in list_shard_files(ws.vault_dir))
        access = access_summary(ws.topics_dir.parent)
        if not self.proven and heads is not None and len(heads):
            painted = threading.Event()
            self.post_message(self.Loaded(StrengthRows(projected_table(heads, today, decay, pinned, access),
                                                       proven=False, painted=painted)))
            # The first page on screen before the proof takes the interpreter's lock in turns with
            # the UI thread (it would halve the paint's share); never longer than a second.
            painted.wait(1.0)
        rows = StrengthRows(self.proven_rows(ws.topics_dir, today, decay, pinned, access, heads))
        self._note_links(heads)
        return rows

    def _note_links(self, heads) -> None:
        """The Dream tab's badge from the links this pass's listing found (no listing of its own)."""
        from dreamdeck.core.errors import DreamdeckError
        from dreamdeck.core.index.shard_links import listed_linked_shards

        try:
            links = listed_linked_shards(self.ws.root / "memory", topics=None if heads is None else heads.linked)
        except (DreamdeckError, OSError):
            return  # a linked folder: the Dream screen says so
        if links is not None:
            self.app.call_from_thread(self.app.note_linked_shards, len(links))  # type: ignore[attr-defined]

    def proven_rows(self, *args, **kwargs) -> list[StrengthRow]:
        """The strength table read against the files (`strength_table`'s arguments)."""
        from dreamdeck.core.index.strength import strength_table

        return strength_table(*args, **kwargs)

    def counts_changed(self, counts: Mapping[str, object]) -> None:
        """The app's badges were re-read: the empty table's hint follows the reflections waiting."""
        self.query_one("#strength", VirtualTable).empty_message = EMPTY_WAITING if counts.get("reflections") else EMPTY

    def show(self, rows: StrengthRows) -> None:
        table = self.query_one("#strength", VirtualTable)
        self.counts_changed(getattr(self.app, "counts", {}))
        table.set_source(ListRowSource(rows, filter_keys=("slug", "heading", "tier", "status")), keep_cursor_key="slug")
        self.proven = rows.proven
        # Say why pin, forget and edit are dimmed while the rows are the projection's picture.
        self.query_one(".purpose", Static).update(self.PURPOSE if self.proven else CHECKING)
        self.refresh_bindings()
        if rows.painted is not None:
            self.call_after_refresh(rows.painted.set)
        if not rows:
            self._show_shard(None)
        else:
            self._load_shard(table.current_row())

    @on(VirtualTable.RowHighlighted, "#strength")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._load_shard(event.row)

    def _load_shard(self, row) -> None:
        if row:
            self._shard_worker(str(row["slug"]))

    @work(thread=True, exclusive=True, group="shard", exit_on_error=False)
    def _shard_worker(self, slug: str) -> None:
        # Holding `j` highlights a row per key: each highlight cancels the previous worker, so
        # only the row the cursor rests on is read and drawn (drawing a shard costs the UI
        # thread far more than a key).
        worker = get_current_worker()
        time.sleep(SHARD_SETTLE)
        if worker.is_cancelled:
            return
        try:
            rep = shard_report(self.ws, slug)
        except Exception as exc:  # the shard vanished between the table read and now
            rep = {"error": str(exc), "slug": slug}
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_shard, rep)

    def _show_shard(self, rep: dict | None) -> None:
        title = self.query_one("#shard-title", Static)
        meta = self.query_one("#shard-meta", Static)
        md = self.query_one("#shard-md", Markdown)
        cites = self.query_one("#citations", OptionList)
        cites.clear_options()
        meta.set_class(bool(rep) and not rep.get("parse_ok", True), "-error")
        if rep is None or "error" in rep:
            title.update("" if rep is None else rep["error"])
            meta.update("")
            md.update("")
            self.query_one("#shard-sections", Static).update("")
            return
        self.current_slug = rep["slug"]
        title.update(("📌 " if rep["pinned"] else "") + (rep["heading"] or rep["slug"]))
        if rep["parse_ok"]:
            meta.update(f"{rep['path']} · cites {rep['cites']} · days {rep['days']} · last {rep['lastReinforced']}"
                        + (f" · tags {', '.join(rep['tags'])}" if rep["tags"] else ""))
        else:
            meta.update(f"{rep['path']} · ⚠ TypeClaw cannot parse it: {rep['parse_error']}")
        # The belief is prose, drawn as Markdown; its citation sections are drawn as the plain
        # lines they are (as Markdown a hundred citations are ~500 widgets and a second of layout).
        prose, sections = split_sections(terminal_text(rep["body"]))  # prose goes to Markdown, not a SafeStatic
        md.update(prose)
        self.query_one("#shard-sections", Static).update(sections)
        options: list[Option] = []
        # The evidence first, then what the belief replaced (by date it came first, so the pane
        # opened on the fragment the belief contradicts), under a heading that says what it is.
        supporting = [f for f in rep["fragments"] if f["section"] != "superseded"]
        replaced = [f for f in rep["fragments"] if f["section"] == "superseded"]
        for f in supporting + replaced:
            if f is (replaced[0] if replaced else None):
                options.append(Option(SUPERSEDED_HEADING, disabled=True))
            label = f"{'⊘ ' if f['section'] == 'superseded' else ''}{f['date']} "
            if f["forgotten"]:
                text = label + "(forgotten)"
            elif not f["found"]:
                text = label + "⚠ fragment not found"
            else:
                text = label + f"[{f['topic']}] {' '.join(f['body'].split())[:160]}"
            options.append(Option(Text(terminal_text(text)), id=f"{f['date']}#{f['id']}"))
        cites.add_options(options)  # at once: one layout, not one per citation
        if cites.option_count:
            cites.highlighted = 0  # tab, enter: the first citation opens without a cursor key first
        self.refresh_bindings()

    @on(OptionList.OptionSelected, "#citations")
    def _jump(self, event: OptionList.OptionSelected) -> None:
        day, fid = str(event.option.id).split("#", 1)
        self.app.pending_jump = (day, fid)  # type: ignore[attr-defined]
        self.app.switch_mode("stream")

    def action_citations(self) -> None:
        """`enter` off the citation list: go to it (the first citation is highlighted)."""
        cites = self.query_one("#citations", OptionList)
        if cites.option_count:
            cites.focus()

    # --- actions -----------------------------------------------------------------------------
    def _slug(self) -> str | None:
        row = self.query_one("#strength", VirtualTable).current_row()
        return str(row["slug"]) if row else None

    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("pin", "forget", "edit"):
            if not self.is_mounted:
                return True
            return None if not self.proven else self._slug() is not None  # None: shown, disabled
        if action == "citations":
            return self.is_mounted and self.query_one("#citations", OptionList).option_count > 0
        return super().check_action(action, parameters)

    def action_pin(self) -> None:
        slug = self._slug()
        if not slug:
            return
        from dreamdeck.core.ops import vault

        self.act("Pin", lambda: vault.pin_topic(self.ws, slug, actor=self.actor),
                 lambda r: r.message if r.noop else f"pinned {slug} to the vault")

    def action_forget(self) -> None:
        slug = self._slug()
        if not slug:
            return
        from dreamdeck.tui.modals import ReasonModal

        def go(reason: str | None) -> None:
            if reason:
                from dreamdeck.core.ops import forget

                self.act("Forget", lambda: forget.forget_topic(self.ws, slug, reason=reason, actor=self.actor),
                         lambda r: f"forgot {slug} (archived; its evidence stays protected)")

        self.app.push_screen(ReasonModal(
            f"Forget topic {slug}?",
            detail="The shard moves to memory/archive/ (soft forget); its citations keep protecting their "
                   "fragments. Undo on the Forgotten screen (8) with u, or `dreamdeck unforget " + slug + "`.",
            placeholder="reason (required)"), go)

    def action_edit(self) -> None:
        """The shard in $EDITOR (the app suspended around it), then saved by the core verb."""
        slug = self._slug()
        if not slug:
            return
        from dreamdeck.core.errors import DreamdeckError
        from dreamdeck.core.ops.edit import edit_shard, read_shard_text
        from dreamdeck.tui.editor import edit_texts

        try:
            base = read_shard_text(self.ws, slug)
        except DreamdeckError as exc:  # gone since the table was read
            self.notify(str(exc), title="Edit", severity="error")
            return
        name = f"{slug}.md"
        edited = edit_texts({name: base}, run=self.app.hand_over_terminal)  # type: ignore[attr-defined]
        if edited is None:
            return
        if edited.status != 0:
            self.notify(f"the editor exited with status {edited.status}: nothing was saved", title="Edit",
                        severity="warning")
            return
        new = edited.texts[name]
        if new == base:
            self.notify("edit cancelled: nothing changed", title="Edit")
            return
        self.act("Edit", lambda: edit_shard(self.ws, slug, new, actor=self.actor, base=base),
                 lambda r: f"saved {slug}" + (f" ({r.sha[:8]})" if r.sha else ""))
