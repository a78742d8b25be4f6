"""Screen 3, Proposals: the sub-agent inbox, grouped by agent; commit, reject or defer each one.

Sub-agents never write memory: they append proposals to `memory/meta/pending-memories.md`
(`dreamdeck propose …`). Here a person decides. When the selected proposal contradicts another
proposal or an existing topic, the two are shown side by side under a ⚠ CONFLICT label.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.widgets import Label, Static

from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.widgets.panes import ScrollPane
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.table_variants import GroupedRows
from dreamdeck.tui.widgets.virtual_table import Column, VirtualTable

STATUS_STYLE = {"pending": "yellow", "deferred": "cyan", "conflict": "bold red", "committed": "green",
                "rejected": "dim red"}
CONFIDENCE_STYLE = {"high": "green", "medium": "yellow", "low": "dark_orange"}
STORE_STYLE = {"semantic": "cyan", "vault": "bold magenta", "episodic": "blue", "procedural": "green"}

COLUMNS = [
    Column("group", "agent", width=16, min_width=10),
    Column("id", "id", width=5),
    Column("store", "store", width=10, min_width=8),
    Column("confidence", "conf", width=6),
    Column("age", "age", width=4, align="right"),
    Column("state", "status", width=11),
    Column("summary", "content", width=16, min_width=12, fill=True),
]

EMPTY = "No proposals waiting. Sub-agents send them with `dreamdeck propose …`."


def status_word(status: str) -> str:
    return (status.split() or ["pending"])[0].lower()


def status_text(status: str) -> str:
    """The file's status in the app's words: `conflict — see #1` names its rival, `conflict with p-1`."""
    return re.sub(r"#(\d+)", r"p-\1", status).replace("conflict — see", "conflict with")


def cell_style(key: str, row: Mapping[str, object]) -> str | None:
    if key == "group":
        return "bold"
    if key == "state":
        return STATUS_STYLE.get(str(row.get("word")))
    if key == "confidence":
        return CONFIDENCE_STYLE.get(str(row.get("confidence")))
    if key == "store":
        return STORE_STYLE.get(str(row.get("store")))
    if key == "age" and row.get("stale"):
        return "bold red"
    return None


def queue_now(ws) -> datetime:
    """The moment ages are measured at: now, or the end of `--today` when the day is fixed."""
    if ws.today_override:
        day = date.fromisoformat(ws.today_override)
        return datetime(day.year, day.month, day.day, 23, 59, tzinfo=UTC)
    return datetime.now(UTC)


def _row(item: dict, counts: dict[str, int]) -> dict:
    word = status_word(item["status"])
    conflicts = item["conflicts_with"] + [f"topic {s}" for s in item["conflicts_with_topic"]]
    rivals = ",".join(item["conflicts_with"]) or ("topic" if item["conflicts_with_topic"] else "")
    state = (f"⚠ vs {rivals}" if conflicts and item["status"].lower().startswith(("pending", "deferred", "conflict"))
             else word)
    if word == "deferred" and conflicts:
        state = f"⚠ deferred vs {rivals}"
    age = item["age_days"]
    return {
        **item,
        "word": "conflict" if state.startswith("⚠") else word,
        "state": state,
        "agent_label": f"{item['agent']} ({counts[item['agent']]})",
        "age": ("?" if age is None else f"{age}d") + ("!" if item["stale"] else ""),
        "summary": " ".join(item["content"].split()),
        "conflicts": conflicts,
    }


class ProposalsScreen(MemoryScreen):
    MODE = "proposals"
    FILTER_TABLES = ("#proposals",)
    AUTO_FOCUS = "#proposals"
    PURPOSE = "What sub-agents propose, grouped by agent: commit (c), reject with a reason (x) or defer (d) each one."
    HELP = (
        "Sub-agents cannot write memory; they propose (`dreamdeck propose …`, or by appending to "
        "`memory/meta/pending-memories.md`). Each row is one proposal, grouped by the agent that made it, "
        "with the store it asks for, its confidence and its age (a `!` marks one older than "
        "`[review] expire_days`).\n\n"
        "**Commit** (`c`) writes the content as a fragment in today's stream; a *semantic* proposal also "
        "lands in a topic shard, a *vault* proposal in the vault. **Reject** (`x`) asks for a reason. "
        "**Defer** (`d`) keeps it open for later.\n\n"
        "When the selected proposal contradicts another proposal (or a belief already in a topic) — its status "
        "says `⚠ vs p-N` — both are "
        "shown side by side under **⚠ CONFLICT**: committing one rejects the other in the same commit."
    )
    BINDINGS = [
        Binding("c", "commit", "Commit", id="proposals.commit"),
        Binding("x", "reject", "Reject", id="proposals.reject"),
        Binding("d", "defer", "Defer", id="proposals.defer"),
        Binding("a", "toggle_decided", "Show decided", id="proposals.toggle_decided"),
        Binding("slash", "filter", "Filter", key_display="/", id="proposals.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="proposals.clear_filter"),
    ]
    PANES = ("#proposals", "#proposal-pane", "#side-this", "#side-other")
    DEFAULT_CSS = """
    ProposalsScreen #proposals-body { height: 1fr; min-height: 8; layout: vertical; }
    ProposalsScreen #proposals { height: 1fr; min-height: 4; }
    ProposalsScreen #proposal-pane { height: 1fr; min-height: 4; border-top: solid $panel-lighten-1; padding: 0 1; }
    ProposalsScreen #proposal-pane:focus { border-top: solid $accent; }
    ProposalsScreen.-wide #proposals-body { layout: horizontal; }
    ProposalsScreen.-wide #proposals { width: 3fr; height: 1fr; }
    ProposalsScreen.-wide #proposal-pane { width: 2fr; height: 1fr; border-top: none;
        border-left: solid $panel-lighten-1; }
    ProposalsScreen.-wide #proposal-pane:focus { border-left: solid $accent; }
    ProposalsScreen #proposal-title { text-style: bold; height: auto; }
    ProposalsScreen #proposal-meta { color: $text-muted; height: auto; }
    ProposalsScreen #proposal-content { height: auto; margin: 1 0; }
    ProposalsScreen #proposal-extra { height: auto; }
    ProposalsScreen #problems { display: none; height: auto; color: $warning; padding: 0 1; }
    ProposalsScreen #problems.-visible { display: block; }
    ProposalsScreen #conflict { display: none; height: auto; max-height: 45%; border-top: heavy $error; }
    ProposalsScreen #conflict.-visible { display: block; }
    ProposalsScreen #conflict-label { color: $error; text-style: bold; padding: 0 1; height: auto; width: 1fr; }
    ProposalsScreen #conflict-sides { height: 8; }
    /* Short: the sides are as tall as their text (a fixed 5 rows showed one line of it at 80×24),
       and the detail above gives up rows first: the conflict is what needs deciding. */
    ProposalsScreen.-short #conflict { max-height: 65%; }
    ProposalsScreen.-short #conflict-sides { height: auto; }
    ProposalsScreen.-short .side { height: auto; }
    ProposalsScreen .side { width: 1fr; height: 100%; border: round $error 60%;
        padding: 0 1; margin: 0 1; }
    ProposalsScreen .side:focus { border: round $accent; }
    ProposalsScreen .side-title { text-style: bold; height: auto; }
    """

    show_decided: var[bool] = var(False, bindings=True)

    def compose_body(self) -> ComposeResult:
        yield self.filter_box("filter proposals (agent, id, store, status, content)")
        yield SafeStatic("", id="problems", markup=False)
        with Horizontal(id="proposals-body"):
            # Narrow: store, confidence and age are in the pane's meta line; the content keeps its room.
            yield VirtualTable(COLUMNS, GroupedRows([]), cell_style=cell_style, id="proposals", empty_message=EMPTY,
                               frozen=1, select_on_enter=False, optional=("store", "confidence", "age"))
            with ScrollPane(id="proposal-pane"):
                yield SafeStatic("", id="proposal-title", markup=False)
                yield SafeStatic("", id="proposal-meta", markup=False)
                yield SafeStatic("", id="proposal-content", markup=False)
                yield SafeStatic("", id="proposal-extra")
        with Vertical(id="conflict"):
            yield Label("", id="conflict-label")
            with Horizontal(id="conflict-sides"):
                with ScrollPane(classes="side", id="side-this"):
                    yield SafeStatic("", classes="side-title", id="side-this-title", markup=False)
                    yield SafeStatic("", id="side-this-body", markup=False)
                with ScrollPane(classes="side", id="side-other"):
                    yield SafeStatic("", classes="side-title", id="side-other-title", markup=False)
                    yield SafeStatic("", id="side-other-body", markup=False)

    # --- data ----------------------------------------------------------------------------
    def load(self) -> Any:
        from dreamdeck.core.formats.shards import parse_loose_shard
        from dreamdeck.core.ops.proposals import get_proposal, list_proposals

        ws = self.ws
        now = queue_now(ws)
        items, problems = list_proposals(ws, include_decided=self.show_decided, now=now)
        data = [i.to_json() for i in items]
        known = {i["id"]: i for i in data}
        partners: dict[str, dict] = {}
        topics: dict[str, dict] = {}
        for item in data:
            for pid in item["conflicts_with"]:
                if pid in known:
                    partners[pid] = known[pid]
                elif pid not in partners:
                    try:
                        partners[pid] = get_proposal(ws, pid, now=now).to_json()
                    except Exception:  # the partner block is malformed or gone
                        pass
            for slug in item["conflicts_with_topic"]:
                if slug in topics:
                    continue
                try:
                    text = (ws.topics_dir / f"{slug}.md").read_bytes().decode("utf-8", "replace")
                except OSError:
                    continue
                loose = parse_loose_shard(text)
                topics[slug] = {"slug": slug, "heading": loose.heading, "body": loose.body}
        return {"items": data, "problems": problems, "partners": partners, "topics": topics}

    def show(self, data: dict) -> None:
        self._data = data
        items = sorted(data["items"], key=lambda i: (i["agent"].casefold(), i["number"]))
        counts: dict[str, int] = {}
        for item in items:
            counts[item["agent"]] = counts.get(item["agent"], 0) + 1
        rows = [_row(i, counts) for i in items]
        table = self.query_one("#proposals", VirtualTable)
        table.empty_message = EMPTY if not self.show_decided else "No proposals at all yet. " + EMPTY.split(". ", 1)[1]
        table.set_source(GroupedRows(rows, filter_keys=("agent", "id", "store", "state", "summary", "confidence")),
                         keep_cursor_key="id")
        problems = self.query_one("#problems", Static)
        if data["problems"]:
            problems.update("⚠ pending-memories.md: " + "; ".join(data["problems"][:3])
                            + (f" (+{len(data['problems']) - 3} more)" if len(data["problems"]) > 3 else ""))
            problems.add_class("-visible")
        else:
            problems.remove_class("-visible")
        self._show_detail(table.current_row())
        self.refresh_bindings()

    @on(VirtualTable.RowHighlighted, "#proposals")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._show_detail(event.row)
        self.refresh_bindings()

    def _show_detail(self, row: Mapping[str, object] | None) -> None:
        title = self.query_one("#proposal-title", Static)
        meta = self.query_one("#proposal-meta", Static)
        content = self.query_one("#proposal-content", Static)
        extra = self.query_one("#proposal-extra", Static)
        conflict = self.query_one("#conflict")
        if row is None:
            title.update("Nothing to decide")
            meta.update("")
            content.update(
                "Sub-agents write here instead of writing memory. A proposal names the store it wants "
                "(semantic, episodic, procedural, vault), a confidence and the entities it is about.\n\n"
                "Try: dreamdeck propose --from researcher --store semantic --content \"User prefers pnpm\""
            )
            extra.update("")
            conflict.remove_class("-visible")
            return
        title.update(f"{row['id']} from {row['agent']}")
        days = row["age_days"]
        age = ("age unknown" if days is None else "proposed today" if days == 0
               else f"{days} day{'s' if days != 1 else ''} old")
        meta.update(f"{row['store']} · confidence {row['confidence']} · {age}"
                    + (" (stale)" if row["stale"] else "") + f" · {row['timestamp']}")
        content.update(str(row["content"]))
        lines = Text()

        def field_line(label: str, value: str, style: str = "") -> None:
            lines.append(f"{label:<11}", style="dim")
            lines.append(value + "\n", style=style)

        field_line("status", status_text(str(row["status"])), STATUS_STYLE.get(status_word(str(row["status"])), ""))
        if row.get("reason"):
            field_line("reason", str(row["reason"]))
        field_line("entities", ", ".join(row["entities"]) or "—")  # type: ignore[arg-type]
        field_line("trigger", str(row["trigger"]) or "—")
        if row["slug"]:
            where = "vault + topic" if row["store"] == "vault" else "topic"
            field_line("lands in", f"{where} {row['slug']}")
        else:
            field_line("lands in", "a fragment in today's stream (the next dream decides)")
        if row["core_worthy"]:
            field_line("core", "yes — the agent marked it core-worthy", "bold")
        extra.update(lines)
        self._show_conflict(row)

    def _show_conflict(self, row: Mapping[str, object]) -> None:
        conflict = self.query_one("#conflict")
        data = getattr(self, "_data", {"partners": {}, "topics": {}})
        others: list[tuple[str, str, str]] = []
        for pid in row["conflicts_with"]:  # type: ignore[union-attr]
            other = data["partners"].get(pid)
            if other is None:
                others.append((pid, f"{pid} (cannot be read)", ""))
                continue
            others.append((
                pid,
                f"{pid} from {other['agent']} · {other['store']} · confidence {other['confidence']}"
                f" · {status_text(other['status'])}",
                other["content"],
            ))
        for slug in row["conflicts_with_topic"]:  # type: ignore[union-attr]
            topic = data["topics"].get(slug)
            body = topic["body"].split("\nfragments:")[0].strip() if topic else ""
            others.append((f"topic {slug}", f"topic {slug} — what memory believes now",
                           body or (topic or {}).get("heading", "")))
        is_open = str(row["status"]).lower().startswith(("pending", "deferred", "conflict"))
        if not others or not is_open:
            conflict.remove_class("-visible")
            return
        names = ", ".join(o[0] for o in others)
        if row["conflicts_with"]:
            advice = "commit one (its rival is rejected in the same commit), or reject with a reason"
        else:
            advice = "committing adds it as evidence to that topic; reject it if memory is right"
        self.query_one("#conflict-label", Label).update(f"⚠ CONFLICT  {row['id']} contradicts {names} — {advice}")
        self.query_one("#side-this-title", Static).update(
            f"{row['id']} from {row['agent']} · {row['store']} · confidence {row['confidence']}")
        self.query_one("#side-this-body", Static).update(str(row["content"]))
        self.query_one("#side-other-title", Static).update(others[0][1])
        body = others[0][2]
        for _name, head, text in others[1:]:
            body += f"\n\n— {head}\n{text}"
        self.query_one("#side-other-body", Static).update(body)
        conflict.add_class("-visible")

    # --- filter ----------------------------------------------------------------------------
    # --- actions -----------------------------------------------------------------------------
    def _current(self) -> Mapping[str, object] | None:
        if not self.is_mounted:
            return None
        try:
            return self.query_one("#proposals", VirtualTable).current_row()
        except Exception:
            return None

    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("commit", "reject", "defer"):
            row = self._current()
            if row is None:
                return False
            word = status_word(str(row["status"]))
            if word not in ("pending", "deferred", "conflict"):
                return False
            if action == "defer" and word == "deferred":
                return None  # shown, greyed: it is already deferred
            return True
        if action == "clear_filter":
            return self.filter_visible()
        return True

    def watch_show_decided(self, value: bool) -> None:
        if self.is_mounted:
            self.reload()

    def action_toggle_decided(self) -> None:
        self.show_decided = not self.show_decided
        self.notify("showing every proposal, decided ones too" if self.show_decided else "showing open proposals only")

    def action_commit(self) -> None:
        row = self._current()
        if row is None:
            return
        from dreamdeck.core.ops.proposals import approve_proposal

        pid = str(row["id"])

        def done(r) -> str:
            msg = f"committed {pid}" + (f" → {', '.join(r.files)}" if r.files else f" → {r.fragment}")
            if r.also_rejected:
                msg += f"; rejected {', '.join(r.also_rejected)} (conflict)"
            return msg

        self.act("Commit", lambda: approve_proposal(self.ws, pid, actor=self.actor), done)

    def action_reject(self) -> None:
        row = self._current()
        if row is None:
            return
        from dreamdeck.tui.modals import ReasonModal

        pid = str(row["id"])

        def go(reason: str | None) -> None:
            if reason:
                from dreamdeck.core.ops.proposals import reject_proposal

                self.act("Reject", lambda: reject_proposal(self.ws, pid, reason=reason, actor=self.actor),
                         lambda r: f"rejected {pid}" + (f"; {', '.join(r.conflicts_cleared)} no longer in conflict"
                                                        if r.conflicts_cleared else ""))

        self.app.push_screen(ReasonModal(
            f"Reject {pid} from {row['agent']}?",
            detail=" ".join(str(row["content"]).split())[:300] + "\n\nNothing reaches memory; the reason is kept "
                   "in pending-memories.md and the audit log.",
            placeholder="reason (required)"), go)

    def action_defer(self) -> None:
        row = self._current()
        if row is None:
            return
        from dreamdeck.core.ops.proposals import defer_proposal

        pid = str(row["id"])
        self.act("Defer", lambda: defer_proposal(self.ws, pid, actor=self.actor),
                 lambda r: f"deferred {pid}: it stays in the inbox")
