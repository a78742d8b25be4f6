"""Screen 7, Dream control: the watcher, its gates, the lock, and the last runs.

Everything shown is read from core in the load worker: the watcher's `status()` when it runs
(else the same facts read directly), the settings' gates and what they would decide for a
watched change right now, the dream lock's holder and the receipts in `memory/meta/receipts/`.
The screen re-reads on every watcher event and every few seconds while it is shown.
"""
from __future__ import annotations

import json
from collections import deque
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from dreamdeck.core.formats.counts import counted
from dreamdeck.tui.screens.base import MemoryScreen, failure_toast
from dreamdeck.tui.widgets.panes import ScrollPane
from dreamdeck.tui.widgets.responsive_table import ResponsiveTable
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable

REFRESH_SECONDS = 5.0
EVENTS_SHOWN = 6

STATUS_STYLE = {
    "applied": "green", "pending": "yellow", "mixed": "yellow", "failed": "bold red", "reverted": "bold red",
    "dry-run": "cyan", "skipped": "dim", "nothing": "dim",
}
REVIEW_HELP = {
    "judgement": "mechanical changes apply, the rest waits",
    "all": "every change waits for you",
    "none": "everything applies (review after the fact)",
}

RECEIPT_COLUMNS = [
    Column("time", "time", width=11, sortable=False),
    Column("trigger", "trigger", width=8, sortable=False),
    Column("status", "status", width=8, sortable=False),
    Column("fragments", "frags", width=5, align="right", sortable=False),
    Column("applied", "applied", width=7, align="right", sortable=False),
    Column("reflection", "review", width=9, sortable=False),
    Column("dropped", "dropped", width=7, align="right", sortable=False),
    Column("commit", "commit", width=8, sortable=False),
    Column("message", "message", width=20, sortable=False),  # FitTable widens it to fit
]


def _local(iso: str | None, fmt: str = "%m-%d %H:%M") -> str:
    if not iso:
        return ""
    try:
        return datetime.fromisoformat(iso).astimezone().strftime(fmt)
    except ValueError:
        return str(iso)


# A reflection decided since its dream: its id and this mark (an open one is its id alone).
DECIDED_MARK = {"approved": "✓", "partial": "½", "rejected": "✗", "stale": "stale"}


def receipt_row(r: dict, outcome: tuple[str, set[str]] | None = None) -> dict[str, Any]:
    """A dream's line. `outcome`, its reflection's status now and the files a person's approvals
    of it wrote: those count as applied beside what the review policy applied at once."""
    status, approved = outcome or ("pending", set())
    rid = r.get("reflection")
    return {
        "id": r.get("id", ""),
        "time": _local(r.get("started")),
        "trigger": r.get("trigger", ""),
        "status": r.get("status", ""),
        "fragments": r.get("fragments_seen", 0),
        "applied": len(set(r.get("auto_applied") or []) | approved),
        "reflection": f"{rid} {DECIDED_MARK[status]}" if rid and status in DECIDED_MARK else rid or "-",
        "open": bool(rid) and status not in DECIDED_MARK,
        "dropped": len(r.get("fragments_dropped") or []),
        "commit": (r.get("commit") or "-")[:8],
        "message": r.get("message", ""),
        "receipt": r,
    }


def reflection_outcomes(ws, receipts: list[dict]) -> dict[str, tuple[str, set[str]]]:
    """Reflection id -> (its status, the files a person's approvals of it wrote), for the
    receipts' reflections (read in the load thread; an unreadable one is left out)."""
    from dreamdeck.core.store.reflections import load_reflection

    out: dict[str, tuple[str, set[str]]] = {}
    for rid in {str(r["reflection"]) for r in receipts if r.get("reflection")}:
        try:
            reflection = load_reflection(ws, rid)
        except Exception:  # a broken reflection file is said on the Reflections screen
            continue
        out[rid] = (reflection.status, reflection.applied_files())
    return out


def folded_texts(ws, receipts: list[dict]) -> dict[str, str]:
    """"DATE#ID" -> the fragment's text, for every fragment the receipts name as folded or as the
    citation one duplicates (a collected fragment is absent). Read in the load thread."""
    from dreamdeck.core.index.fragment_index import FragmentIndex

    index = FragmentIndex(ws)
    texts: dict[str, str] = {}
    for r in receipts:
        for folded, cited in (r.get("folded") or {}).items():
            for key in (folded, cited):
                day, _, fid = str(key).partition("#")
                if key not in texts and fid:
                    fragment = index.get(day, fid)
                    if fragment is not None:
                        texts[key] = fragment.body
    return texts


def folded_text(r: dict | None, texts: dict[str, str]) -> Text:
    """The duplicates a run folded (left uncited because another fragment's citation says the same):
    each folded fragment with its text, and the citation it duplicates."""
    folded = (r or {}).get("folded") or {}
    t = Text()
    if not folded:
        return t
    t.append(f"Folded duplicates in {r.get('id', '') if r else ''} ({len(folded)})", style="bold")
    for key, cited in sorted(folded.items()):
        t.append("\n")
        t.append(f"streams/{key}", style="cyan")
        body = texts.get(key)
        t.append(f" “{' '.join(body.split())}”" if body is not None else " (no longer in its stream)",
                 style="" if body is not None else "dim italic")
        t.append("\n   = duplicate of ", style="dim")
        t.append(f"streams/{cited}", style="cyan")
        cited_body = texts.get(cited)
        if cited_body is not None:
            t.append(f" “{' '.join(cited_body.split())}”", style="dim")
    return t


def receipt_style(key: str, row) -> str | None:
    if key == "status":
        return STATUS_STYLE.get(str(row.get("status")))
    if key == "reflection" and row.get("open"):
        return "yellow"  # still waits for a person
    if key in ("commit", "time"):
        return "dim"
    return None


def _when(at: datetime | None, now: datetime) -> str:
    """`10:30 (in 23 min)`, with the date when it is not today."""
    if at is None:
        return "unknown"
    at_naive = at.astimezone().replace(tzinfo=None) if at.tzinfo else at
    now_naive = now.astimezone().replace(tzinfo=None) if now.tzinfo else now
    minutes = int((at_naive - now_naive).total_seconds() // 60)
    stamp = f"{at_naive:%H:%M}" if at_naive.date() == now_naive.date() else f"{at_naive:%Y-%m-%d %H:%M}"
    if minutes < 1:
        return f"{stamp} (due now)"
    if minutes < 120:
        return f"{stamp} (in {minutes} min)"
    if minutes < 48 * 60:
        return f"{stamp} (in {minutes // 60} h {minutes % 60} min)"
    return f"{stamp} (in {minutes // (24 * 60)} days)"


def last_run_text(last_run: datetime | None, commit) -> str:
    """The newest of dreamdeck's last run (its receipt) and the newest dream commit in git: a
    dream made by TypeClaw, or committed without a receipt, is a run too."""
    committed = datetime.fromisoformat(commit.date) if commit is not None else None
    if committed is not None and (last_run is None or committed > last_run):
        return f"{_local(commit.date, '%Y-%m-%d %H:%M')} (dream commit by {commit.actor})"
    if last_run is not None:
        return _local(last_run.isoformat(), "%Y-%m-%d %H:%M")
    return "never"


def dry_run_text(r: dict) -> str:
    """What a dry run would do, for the modal."""
    lines = [r.get("message") or r.get("status", ""), ""]
    lines.append(f"dreamer {r.get('dreamer')} · review {r.get('review')} · "
                 f"{counted(r.get('fragments_seen', 0), 'undreamed fragment')} from {counted(len(r.get('days') or []), 'day')}")
    for label, key in (("new shards", "shards_created"), ("changed shards", "shards_changed"),
                       ("deleted shards", "shards_deleted"), ("would apply now", "auto_applied"),
                       ("would wait for review", "pending")):
        items = r.get(key) or []
        if items:
            lines.append(f"{label}: {', '.join(items)}")
    if r.get("citations_added") or r.get("superseded_added"):
        lines.append(f"citations added: {r.get('citations_added', 0)} · superseded: {r.get('superseded_added', 0)}")
    if r.get("lost"):
        lines.append(f"would lose citations (refused): {', '.join(r['lost'])}")
    if r.get("summary"):
        lines += ["", "summary:", r["summary"]]
    for label in ("questions", "contradictions", "tool_errors"):
        if r.get(label):
            lines += ["", f"{label.replace('_', ' ')}:"] + [f"- {q}" for q in r[label]]
    lines += ["", "Nothing was written: no shard, no state, no receipt, no commit. Press d to dream for real."]
    return "\n".join(lines)


class ControlScreen(MemoryScreen):
    MODE = "control"
    AUTO_FOCUS = "#receipts"
    PURPOSE = "Dreaming: the watcher, its gates, the lock, and the last runs."
    HELP = (
        "The **watcher** follows `memory/streams/` and the cron schedule in the background and asks the "
        "**gates** whether to dream: at least `min_fragments` undreamed fragments, `min_interval_minutes` "
        "since the last run, and nobody holding the dream lock. A manual dream (`d`) only needs something "
        "undreamed. The **review policy** decides what a dream applies by itself and what waits on "
        "screen 2 (Reflections).\n\n"
        "`D` runs a dry run: the dreamer runs on a scratch copy and you see what it would change; "
        "nothing is written. `w` pauses or resumes automatic dreaming (starts the watcher when it is off). "
        "`enter` on a receipt shows all of it. In **Last dreams**, *applied* counts the files a dream "
        "changed, by itself or through your approvals since; *review* is the reflection it left for you "
        "(yellow while it waits; then ✓ approved, ½ partly approved, ✗ rejected). Settings live in "
        "`dreamdeck.toml` `[dreaming]`."
    )
    BINDINGS = [
        Binding("d", "dream", "Dream now", id="control.dream"),
        Binding("D", "dry_run", "Dry run", key_display="D", id="control.dry_run"),
        Binding("w", "toggle_watcher", "Pause/resume watcher", id="control.watcher"),
    ]
    DEFAULT_CSS = """
    ControlScreen #control-top { height: auto; }
    ControlScreen #link-alert { display: none; height: auto; max-height: 4; padding: 0 1; background: $error 30%;
        color: $text; }
    ControlScreen #link-alert.-visible { display: block; }
    ControlScreen .panel { width: 1fr; height: auto; min-height: 8; padding: 0 1;
        border: round $panel-lighten-2; border-title-color: $text; border-title-style: bold; }
    ControlScreen #decision { height: auto; padding: 0 1; }
    ControlScreen #receipts { height: 1fr; min-height: 6; border: round $panel-lighten-2; border-title-color: $text;
        border-title-style: bold; }
    ControlScreen #events { height: auto; max-height: 8; padding: 0 1; color: $text-muted;
        border-top: solid $panel-lighten-1; }
    ControlScreen.-short .panel { min-height: 0; max-height: 9; }
    ControlScreen.-short #events { max-height: 3; }
    ControlScreen #receipts:focus { border: round $accent; }
    ControlScreen #folded { height: auto; max-height: 9; padding: 0 1; display: none; }
    ControlScreen #folded.-shown { display: block; }
    ControlScreen.-short #folded { max-height: 3; }
    """
    PANES = ("#receipts", "#folded")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.data: dict[str, Any] | None = None
        self.events: deque = deque(maxlen=EVENTS_SHOWN)
        self.in_run = False
        self._dry_running = False

    def now(self) -> datetime:
        """The clock for "next run in N min" (a snapshot test pins it)."""
        return datetime.now()

    def compose_body(self) -> ComposeResult:
        yield SafeStatic("", id="link-alert", markup=False)
        with Horizontal(id="control-top"):
            yield SafeStatic("", id="watcher-panel", classes="panel")
            yield SafeStatic("", id="gates-panel", classes="panel")
        yield SafeStatic("", id="decision")
        # On a narrow terminal the message keeps its room; trigger, dropped and commit are in the receipt (enter).
        yield ResponsiveTable(RECEIPT_COLUMNS, ListRowSource([]), cell_style=receipt_style, id="receipts",
                              optional=("trigger", "dropped", "commit"),
                              empty_message="No dreams yet. Press d to dream now, or D for a dry run.")
        with ScrollPane(id="folded"):
            yield SafeStatic("", id="folded-text")
        yield SafeStatic("", id="events")

    def on_mount(self) -> None:
        self.query_one("#watcher-panel").border_title = "Watcher"
        self.query_one("#gates-panel").border_title = "Gates"
        self.query_one("#receipts").border_title = "Last dreams"
        super().on_mount()
        self._refresh_timer = self.set_interval(REFRESH_SECONDS, self._periodic)
        self.show_events()

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if hasattr(self, "_refresh_timer"):
            self._refresh_timer.resume()
            self.reload()

    def on_screen_suspend(self) -> None:
        if hasattr(self, "_refresh_timer"):
            self._refresh_timer.pause()

    def _periodic(self) -> None:
        if self.is_current:
            self.reload()

    # --- data ----------------------------------------------------------------------------
    def load(self) -> dict[str, Any]:  # thread: core reads only
        from dreamdeck.core.dreaming.gates import count_undreamed, evaluate_gates, last_run_time, next_run
        from dreamdeck.core.dreaming.lock import DreamLock
        from dreamdeck.core.dreaming.run import choose_dreamer, list_receipts
        from dreamdeck.core.git.history import newest_dream_commit
        from dreamdeck.core.store.settings import Settings, SettingsError, load_settings

        ws = self.ws
        now = self.now()
        out: dict[str, Any] = {"now": now, "settings_error": None}
        try:
            settings = load_settings(ws.root)
        except SettingsError as exc:
            settings, out["settings_error"] = Settings(), str(exc)
        d = settings.dreaming
        out["settings"] = d
        watcher = getattr(self.app, "watcher", None)
        if watcher is not None:
            st = watcher.status()
            out["state"] = "paused" if st.paused else "running" if st.running else "stopped"
            out.update(in_run=st.in_run, runs=st.runs + getattr(self.app, "dreams_run", 0), last_decision=st.last_decision, undreamed=st.undreamed,
                       lock=st.lock_holder, watching=st.watching, next=st.next_scheduled)
        else:
            holder = DreamLock(ws, stale_minutes=d.stale_lock_minutes).holder()
            out.update(state="off", in_run=False, runs=0, last_decision="", undreamed=count_undreamed(ws),
                       lock=holder.describe() if holder else None, watching=None)
            try:
                out["next"] = next_run(d.schedule, now)
            except Exception:
                out["next"] = None
        last_run = last_run_time(ws)
        out["last_run"] = last_run
        out["last_commit"] = newest_dream_commit(ws.root)
        try:
            gate = evaluate_gates(ws, now=now, last_run_at=last_run, trigger="watch", settings=settings,
                                  undreamed=out["undreamed"])
            out["gate"] = gate.reason
        except Exception as exc:
            out["gate"] = f"cannot evaluate: {exc}"
        try:
            dreamer, why = choose_dreamer(d.dreamer, ws)
            if d.dreamer != "auto":
                why = "set in dreamdeck.toml [dreaming] dreamer"
            out["dreamer"], out["dreamer_why"] = dreamer.name, why
        except Exception as exc:
            out["dreamer"], out["dreamer_why"] = d.dreamer, f"unavailable: {exc}"
        receipts = list_receipts(ws, 50)
        if any(not r.get("commit") for r in receipts):
            from dreamdeck.core.git.history import receipt_commits

            shas = receipt_commits(ws.root)
            receipts = [r if r.get("commit") or r.get("id") not in shas else {**r, "commit": shas[r["id"]]}
                        for r in receipts]
        out["receipts"] = receipts
        out["outcomes"] = reflection_outcomes(ws, receipts)
        out["folded_texts"] = folded_texts(ws, receipts)
        from dreamdeck.core.ops.alerts import linked_shard_alerts

        out["links"] = [f"⚠ {alert.text()}" for alert in linked_shard_alerts(ws.root)]
        return out

    def show(self, data: dict[str, Any]) -> None:
        self.data = data
        self.in_run = data["in_run"]
        self._show_link_alerts(data.get("links") or [])
        self.app.note_linked_shards(len(data.get("links") or []))  # type: ignore[attr-defined]
        self._show_watcher(data)
        self._show_gates(data)
        self._show_decision(data.get("last_decision") or "")
        self.show_events()
        table = self.query_one("#receipts", VirtualTable)
        outcomes = data.get("outcomes") or {}
        rows = [receipt_row(r, outcomes.get(str(r.get("reflection")))) for r in data["receipts"]]
        table.set_source(ListRowSource(rows), keep_cursor_key="id")
        current = table.current_row()
        self._show_folded(current.get("receipt") if current else None)

    @on(VirtualTable.RowHighlighted, "#receipts")
    def _receipt_highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._show_folded(event.row.get("receipt") if event.row else None)

    def _show_folded(self, receipt: dict | None) -> None:
        text = folded_text(receipt, (self.data or {}).get("folded_texts") or {})
        self.query_one("#folded-text", Static).update(text)
        self.query_one("#folded").set_class(bool(text.plain), "-shown")

    def _show_link_alerts(self, lines: list[str]) -> None:
        """A linked shard stops every change and every dream: said first, with how to clear it."""
        banner = self.query_one("#link-alert", Static)
        banner.update("\n".join(lines))
        banner.set_class(bool(lines), "-visible")

    def _show_watcher(self, data: dict[str, Any]) -> None:
        t = Text()
        state = data["state"]
        if state == "running":
            t.append("● on", style="bold green")
            t.append(" · watching " + (data.get("watching") or "memory/"))
        elif state == "paused":
            t.append("‖ paused", style="bold yellow")
            t.append(" · automatic dreams skipped; d still dreams")
        elif state == "stopped":
            t.append("○ stopped", style="bold red")
        else:
            t.append("○ off", style="bold")
            t.append(" · press w to start it")
        if self.in_run:
            t.append("\n")
            t.append("☾ dreaming now…", style="bold magenta")
        t.append("\nundreamed  ")
        n = data["undreamed"]
        t.append(f"{n} fragment" + ("" if n == 1 else "s"), style="bold" if n else "dim")
        t.append("\nlock       ")
        if data.get("lock"):
            t.append(f"held by {data['lock']}", style="yellow")
        else:
            t.append("free", style="green")
        t.append("\nlast run   ")
        t.append(last_run_text(data.get("last_run"), data.get("last_commit")))
        if state != "off":
            t.append(f"\nruns       {data['runs']} since the app started")
        self.query_one("#watcher-panel", Static).update(t)

    def _show_gates(self, data: dict[str, Any]) -> None:
        d = data["settings"]
        t = Text()
        if data.get("settings_error"):
            t.append(f"⚠ {data['settings_error']} (defaults shown)\n", style="bold red")
        t.append("schedule      ")
        t.append(d.schedule, style="bold")
        t.append(f" · next {_when(data.get('next'), data['now'])}")
        t.append(f"\nmin_fragments {d.min_fragments}")
        t.append(f" · min_interval {d.min_interval_minutes} min")
        t.append("\nreview        ")
        t.append(d.review, style="bold")
        t.append(f" · {REVIEW_HELP.get(d.review, '')}")
        t.append("\ndreamer       ")
        t.append(data["dreamer"], style="bold")
        t.append(f" · {data['dreamer_why']}")
        t.append("\nnow           ")
        gate = data.get("gate", "")
        t.append(gate, style="green" if gate.startswith("run") else "dim")
        self.query_one("#gates-panel", Static).update(t)

    def _show_decision(self, decision: str) -> None:
        t = Text("last decision  ", style="bold")
        t.append(decision or "none yet", style="" if decision else "dim")
        self.query_one("#decision", Static).update(t)

    def _recent_events(self) -> list:
        """The watcher keeps its own history (events that came while another screen was shown);
        without a watcher, what was forwarded here. Dreams started with `d` are the app's."""
        watcher = getattr(self.app, "watcher", None)
        events = list(self.events)
        if watcher is not None:
            for _ in range(3):
                try:
                    events = list(watcher.events)
                    break
                except RuntimeError:  # appended to by the watcher's thread meanwhile
                    continue
        events += list(getattr(self.app, "dream_events", ()))
        return sorted(events, key=lambda ev: ev.at.timestamp())[-EVENTS_SHOWN:]  # naive or aware clocks alike

    def show_events(self) -> None:
        t = Text()
        events = self._recent_events()
        if not events:
            t.append("no watcher events yet" if getattr(self.app, "watcher", None) else
                     "watcher off: automatic dreaming is not running (w starts it)")
        for i, ev in enumerate(reversed(events)):  # newest first: a short pane shows the latest
            if i:
                t.append("\n")
            t.append(f"{ev.at:%H:%M:%S} ", style="dim")
            t.append(ev.kind, style="bold red" if ev.kind == "error" else "bold")
            t.append(" " * max(1, 10 - len(ev.kind)) + ev.message)  # always a space: "run-start dream started"
        self.query_one("#events", Static).update(t)

    # --- watcher events (the app forwards them on its own thread) -----------------------------
    def on_watch_event(self, event) -> None:
        self.events.append(event)
        self.show_events()
        if event.kind == "decision":
            self._show_decision(event.message)
        elif event.kind == "run-start":
            self.in_run = True
            if self.data is not None:
                self._show_watcher(self.data)
        elif event.kind in ("run-done", "error"):
            self.in_run = False
        self.reload()  # a decision follows an append: the undreamed count moved (paused or not)

    # --- actions ---------------------------------------------------------------------------
    def action_dream(self) -> None:
        self.app.action_dream_now()  # type: ignore[attr-defined]

    def action_toggle_watcher(self) -> None:
        try:
            self.app.action_toggle_watcher()  # type: ignore[attr-defined]
        except Exception as exc:  # a bad dreamdeck.toml stops the watcher from starting
            self.notify(str(exc), title="Watcher", severity="error", timeout=10)
        self.show_events()
        self.reload()

    def action_dry_run(self) -> None:
        if self._dry_running:
            self.notify("a dry run is already running")
            return
        self._dry_running = True
        self.notify("dry run…", title="Dream")
        self._dry_run_worker()

    @work(thread=True, group="dry-run", exit_on_error=False)
    def _dry_run_worker(self) -> None:
        from dreamdeck.core.dreaming.run import run_dream

        try:
            receipt, error = run_dream(self.ws, trigger="manual", dry_run=True).to_json(), None
        except Exception as exc:
            receipt, error = None, failure_toast("Dry run", exc)
        self.app.call_from_thread(self._dry_run_done, receipt, error)

    def _dry_run_done(self, receipt: dict | None, error: tuple[str, str] | None) -> None:
        from dreamdeck.tui.modals import TextModal

        self._dry_running = False
        if error is not None:
            title, message = error
            self.notify(message, title=title, severity="error", timeout=10)
            return
        self.app.push_screen(TextModal("Dry run: what a dream would do now", dry_run_text(receipt)))

    @on(VirtualTable.RowSelected, "#receipts")
    def _receipt_selected(self, event: VirtualTable.RowSelected) -> None:
        from dreamdeck.tui.modals import TextModal

        r = event.row.get("receipt") or {}
        self.app.push_screen(TextModal(f"Receipt {r.get('id', '')}", json.dumps(r, indent=2, ensure_ascii=False)))
