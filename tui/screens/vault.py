"""Screen 4, Vault: the pinned shards (`memory/vault/<slug>.md`), what they say, and unpin.

A pinned shard is the human's frozen version of a belief: it never decays, a dream that touches
its topic always waits for review, and its citations keep their fragments. When the topic copy
has moved on since the pin, the difference is shown under the vault text.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.widgets.diff_text import Gutter, diff_text
from dreamdeck.tui.widgets.panes import ScrollPane
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable

TOPIC_LABEL = {"same": "= same", "differs": "≠ diverged", "none": "— none", "drift": "⚠ outside"}
TOPIC_STYLE = {"same": "green", "differs": "bold yellow", "none": "dim", "drift": "bold red"}

COLUMNS = [
    Column("slug", "slug", width=23, min_width=14),
    Column("cites", "cites", width=5, align="right"),
    Column("topic_label", "topic copy", width=10),
    Column("pinned", "pinned", width=10),
    Column("heading", "heading", width=18, min_width=10, fill=True),
]

EMPTY = "Nothing pinned yet: press p on a topic (screen 1), or `dreamdeck pin SLUG`."


def cell_style(key: str, row: Mapping[str, object]) -> str | None:
    if key == "topic_label":
        return TOPIC_STYLE.get("drift" if row.get("drift") else str(row.get("topic")))
    if key == "slug":
        return "bold magenta"
    if key == "kind" and row.get("kind") == "fragment":
        return "cyan"
    return None


class VaultScreen(MemoryScreen):
    MODE = "vault"
    FILTER_TABLES = ("#vault",)
    AUTO_FOCUS = "#vault"
    PURPOSE = "Pinned memories: what must never change. Unpin with u (asks first)."
    HELP = (
        "Each row is a pinned shard in `memory/vault/`. A pinned *topic* is a byte copy of "
        "`memory/topics/<slug>.md` taken when you pinned it; a pinned *fragment* is a one-line belief citing "
        "that fragment. Pinned shards never decay, a dream that touches them always waits for your review, "
        "and their citations protect their fragments.\n\n"
        "**topic copy** compares the topic with the vault copy: `= same`, `≠ diverged` (dreams have changed "
        "the topic since; the diff is shown) or `— none`. `⚠ outside`: the topic copy was changed outside "
        "dreamdeck (TypeClaw's own dream, an editor); it is an alert (a toast and a badge on this tab, also "
        "while the app runs), and `r` reviews it: the diff, then *restore from the vault* (`dreamdeck pin "
        "SLUG --restore`) or *accept* it into the vault (`dreamdeck pin SLUG --refresh`).\n\n"
        "**Unpin** (`u` or `delete`) removes the vault copy in a new commit after you confirm; a citation "
        "only the vault holds is never lost (the copy moves to `topics/` or `archive/`). "
        "**Re-pin** (`P`) takes the topic's current version into the vault."
    )
    BINDINGS = [
        Binding("u,delete", "unpin", "Unpin", key_display="u", id="vault.unpin"),
        Binding("P", "repin", "Re-pin from topic", id="vault.repin"),
        Binding("r", "review_drift", "Review outside change", id="vault.review_drift"),
        Binding("slash", "filter", "Filter", key_display="/", id="vault.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="vault.clear_filter"),
    ]
    PANES = ("#vault", "#vault-pane")
    DEFAULT_CSS = """
    VaultScreen #vault-body { height: 1fr; }
    VaultScreen #vault { width: 1fr; min-width: 60; max-width: 100; }
    VaultScreen #vault-pane { width: 1fr; border-left: solid $panel-lighten-1; padding: 0 1; }
    VaultScreen #vault-pane:focus { border-left: solid $accent; }
    VaultScreen.-narrow #vault-body { layout: vertical; }
    VaultScreen.-narrow #vault { width: 1fr; min-width: 0; max-width: 100%; height: 1fr; min-height: 4; }
    VaultScreen.-narrow #vault-pane { width: 1fr; height: 2fr; min-height: 6; border-left: none;
        border-top: solid $panel-lighten-1; }
    VaultScreen.-narrow #vault-pane:focus { border-left: none; border-top: solid $accent; }
    VaultScreen #vault-title { text-style: bold; height: auto; }
    VaultScreen #vault-meta { color: $text-muted; height: auto; }
    VaultScreen #vault-text { height: auto; margin: 1 0; background: $boost; }
    VaultScreen #vault-diverged { height: auto; }
    """

    def compose_body(self) -> ComposeResult:
        yield self.filter_box("filter pinned shards (slug, heading, kind)")
        with Horizontal(id="vault-body"):
            yield VirtualTable(COLUMNS, ListRowSource([]), cell_style=cell_style, id="vault", empty_message=EMPTY,
                               frozen=1, select_on_enter=False)
            with ScrollPane(id="vault-pane"):
                yield SafeStatic("", id="vault-title", markup=False)
                yield SafeStatic("", id="vault-meta", markup=False)
                yield SafeStatic("", id="vault-text", markup=False)
                yield SafeStatic("", id="vault-diverged")

    # --- data ----------------------------------------------------------------------------
    def load(self) -> Any:
        from dreamdeck.core.git.diff import diff_texts
        from dreamdeck.core.ops.protected import pinned_drift
        from dreamdeck.core.ops.vault import list_vault

        ws = self.ws
        try:
            drifts = {d.slug: d.why for d in pinned_drift(ws)}
        except Exception:  # git missing: no drift can be told apart from a dream's change
            drifts = {}
        rows = []
        for entry in list_vault(ws):
            row = entry.to_json()
            try:
                text = (ws.vault_dir / f"{entry.slug}.md").read_bytes().decode("utf-8", "replace")
            except OSError:
                text = ""
            diff = ""
            if entry.topic == "differs":
                try:
                    topic = (ws.topics_dir / f"{entry.slug}.md").read_bytes().decode("utf-8", "replace")
                    fd = diff_texts(f"{entry.slug}.md", text, topic)
                    diff = "".join(h.text() for h in fd.hunks)
                except Exception as exc:  # git missing, file vanished: say so, don't fail the screen
                    diff = f"(cannot diff: {exc})"
            drift = drifts.get(entry.slug, "")
            row.update(text=text, diff=diff, drift=drift,
                       topic_label=TOPIC_LABEL["drift"] if drift else TOPIC_LABEL.get(entry.topic, entry.topic),
                       pinned=(entry.pinned_at or "")[:10])
            rows.append(row)
        return rows

    def show(self, rows: list[dict]) -> None:
        table = self.query_one("#vault", VirtualTable)
        table.set_source(ListRowSource(rows, filter_keys=("slug", "heading", "kind", "topic_label")),
                         keep_cursor_key="slug")
        self._show_entry(table.current_row())
        self.refresh_bindings()

    @on(VirtualTable.RowHighlighted, "#vault")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._show_entry(event.row)
        self.refresh_bindings()

    def _show_entry(self, row: Mapping[str, object] | None) -> None:
        title = self.query_one("#vault-title", Static)
        meta = self.query_one("#vault-meta", Static)
        text = self.query_one("#vault-text", Static)
        diverged = self.query_one("#vault-diverged", Static)
        if row is None:
            title.update("The vault is empty")
            meta.update("")
            text.update(
                "Pin what must never change: a belief you have checked, a rule the agent must keep.\n\n"
                "• Topics screen (1): select a topic and press p\n"
                "• Command line: dreamdeck pin SLUG, or dreamdeck pin 2026-05-22#<fragment id>\n\n"
                "A pinned shard never decays, and a dream that touches it always waits for your review."
            )
            diverged.update("")
            return
        title.update(f"📌 {row['heading']}")
        meta.update(f"memory/vault/{row['slug']}.md · {row['kind']} · cites {row['cites']}"
                    + (f" · pinned {row['pinned']}" if row["pinned"] else ""))
        text.update(str(row["text"]))
        if row.get("drift"):
            out = Text()
            out.append(f"⚠ memory/topics/{row['slug']}.md was changed outside dreamdeck ({row['drift']}). ",
                       style="bold red")
            out.append("r reviews it: restore from the vault, or accept.\n", style="red")
            out.append_text(diff_text(str(row["diff"])))
            diverged.update(Gutter(out))
        elif row["topic"] == "differs":
            out = Text()
            out.append("≠ The topic copy has moved on since the pin ", style="bold yellow")
            out.append(f"(vault → memory/topics/{row['slug']}.md). P takes it into the vault.\n", style="yellow")
            out.append_text(diff_text(str(row["diff"])))
            diverged.update(Gutter(out))
        elif row["topic"] == "none":
            diverged.update(Text(f"No topic copy: memory/topics/{row['slug']}.md does not exist.", style="dim"))
        else:
            diverged.update(Text("= The topic copy is identical to the vault copy.", style="green"))

    # --- filter ----------------------------------------------------------------------------
    # --- actions -----------------------------------------------------------------------------
    def _current(self) -> Mapping[str, object] | None:
        if not self.is_mounted:
            return None
        try:
            return self.query_one("#vault", VirtualTable).current_row()
        except Exception:
            return None

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "unpin":
            return self._current() is not None
        if action == "repin":
            row = self._current()
            return row is not None and row.get("topic") == "differs"
        if action == "review_drift":
            row = self._current()
            return row is not None and bool(row.get("drift"))
        if action == "clear_filter":
            return self.filter_visible()
        return True

    def action_review_drift(self) -> None:
        row = self._current()
        if row is None or not row.get("drift"):
            return
        from dreamdeck.tui.modals import ConfirmModal

        slug = str(row["slug"])
        body = Text()
        body.append(f"--- memory/vault/{slug}.md (what you pinned)\n+++ memory/topics/{slug}.md (now)\n", style="bold")
        body.append_text(diff_text(str(row["diff"])))

        def go(choice: object) -> None:
            if choice == "restore":
                from dreamdeck.core.ops.protected import restore_pinned

                self.act("Restore from the vault", lambda: restore_pinned(self.ws, slug, actor=self.actor),
                         lambda r: f"restored memory/topics/{slug}.md from the vault")
            elif choice is True:
                from dreamdeck.core.ops.vault import pin_topic

                self.act("Accept", lambda: pin_topic(self.ws, slug, actor=self.actor, refresh=True),
                         lambda r: r.message)

        self.app.push_screen(ConfirmModal(
            f"memory/topics/{slug}.md changed outside dreamdeck ({row['drift']})", Gutter(body), "Accept",
            hint="Restore puts the vault copy back into topics/ (dreamdeck pin --restore). Accept takes the "
                 "changed topic into the vault as the pinned version (dreamdeck pin --refresh). Either is a commit.",
            cancel_label="Leave pending", tone="error", wide=True, other=("r", "Restore from the vault", "restore"),
            body_id="drift-diff"), go)

    def action_unpin(self) -> None:
        row = self._current()
        if row is None:
            return
        from dreamdeck.tui.modals import ConfirmModal

        slug = str(row["slug"])
        if row["topic"] == "none":
            what = (f"There is no memory/topics/{slug}.md, so the shard moves there (its citations keep their "
                    "fragments) and dreams and decay can change it again.")
        else:
            what = (f"memory/topics/{slug}.md stays as it is; from now on dreams may change it without review, "
                    "and it can decay. A citation only the vault holds is kept (the copy moves to archive/).")
        body = (f"{row['heading']}\n\nmemory/vault/{slug}.md is removed in a new commit (actor {self.actor}). "
                f"{what}\n\nUndo: pin it again, or roll the commit back on the History screen.")

        def go(ok: bool | None) -> None:
            if ok:
                from dreamdeck.core.ops.vault import unpin

                self.act("Unpin", lambda: unpin(self.ws, slug, actor=self.actor), lambda r: r.message)

        self.app.push_screen(ConfirmModal(f"Unpin {slug}?", body, confirm_label="Unpin"), go)

    def action_repin(self) -> None:
        row = self._current()
        if row is None or row.get("topic") != "differs":
            return
        from dreamdeck.tui.modals import ConfirmModal

        slug = str(row["slug"])

        def go(ok: bool | None) -> None:
            if ok:
                from dreamdeck.core.ops.vault import pin_topic

                self.act("Re-pin", lambda: pin_topic(self.ws, slug, actor=self.actor, refresh=True),
                         lambda r: r.message)

        self.app.push_screen(ConfirmModal(
            f"Re-pin {slug} from its topic?",
            f"The vault copy is replaced by memory/topics/{slug}.md as it is now (the diff under the vault "
            "text), in a new commit.", confirm_label="Re-pin"), go)
