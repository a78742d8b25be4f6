"""Screen 5, History: every memory commit with who and why, its diff, and rollback with a preview.

Below the commit list: the selected commit's memory diff, the audit log (newest first) and the
critical-file alerts (SOUL.md and friends changed outside dreamdeck), which `A` acknowledges.
A rollback is a forward commit; `r` first computes its blast radius (files, later commits on
them, pins affected, fragments returned to the undreamed tail) and asks.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static, TabbedContent, TabPane

from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.widgets.diff_text import Gutter, diff_text
from dreamdeck.tui.widgets.panes import ScrollPane
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable

# Lines of a commit's diff the pane shows: a Static lays out every line of its text when the
# screen is shown, so a 3,000-line dream diff cost a switch to History ~0.5 s; the rest is
# one `git show` away (the pane says so).
MAX_DIFF_LINES = 400
KIND_STYLE = {"dream": "cyan", "approval": "green", "rollback": "bold yellow", "pin": "magenta",
              "unpin": "magenta", "forget": "red", "unforget": "red", "reject": "dark_orange",
              "proposal": "blue", "defer": "blue", "edit": "bold"}
APPROVAL_STYLE = {"auto": "dim", "approved": "green", "partial": "yellow", "rejected": "red", "pending": "cyan"}
ACTION_STYLE = {"ALERT": "bold red", "ACK": "green", "REVERT": "bold yellow", "PIN": "magenta", "UNPIN": "magenta",
                "FORGET": "red", "REJECT": "dark_orange", "COMMIT": "green", "DREAM": "cyan", "PROPOSE": "blue"}

COMMIT_COLUMNS = [
    Column("when", "date", width=16),
    Column("short", "sha", width=7),
    Column("kind", "kind", width=8),
    Column("actor", "actor", width=18, min_width=12),
    Column("approval", "approval", width=8),
    Column("trigger", "trigger", width=8),
    Column("ref", "ref", width=9, min_width=5),
    Column("subject", "subject", width=30, min_width=20, fill=True),
]
AUDIT_COLUMNS = [
    Column("timestamp", "time (UTC)", width=17),
    Column("action", "action", width=7),
    Column("file", "file", width=30, min_width=16, fill=True),
    Column("actor", "actor", width=22, min_width=12),
    Column("approval", "approval", width=8),
    Column("summary", "summary", width=30, min_width=20, fill=True),
]
EMPTY_COMMITS = ("No memory commits yet. Every dream, approval, pin, forget and rollback becomes one — "
                 "dream on the Dream screen (7, then d).")
NO_REPO = ("This folder is not a git repository: changes are applied but never committed, so there is no "
           "history and no rollback. `dreamdeck init` starts one.")
EMPTY_AUDIT = "The audit log (memory/meta/audit.log) is empty: nothing has changed memory through dreamdeck yet."
_VERB = re.compile(r"^memory: (\w+)")
_ROLLBACK_REF = re.compile(r"^memory: (?:rollback|restore to) ([0-9a-f]{4,40})\b")
VERB_KIND = {"commit": "approval", "approve": "approval", "restore": "rollback", "doctor": "doctor",
             "expire": "expiry"}


def commit_kind(c: Mapping[str, Any]) -> str:
    subject = str(c.get("subject", ""))
    if c.get("trigger") == "rollback" or subject.startswith(("memory: rollback", "memory: restore")):
        return "rollback"
    if c.get("trigger") == "review" and str(c.get("ref", "")).startswith("r-"):
        return "approval" if c.get("approval") in ("approved", "partial") else "reject"
    if subject.startswith("dream:"):
        return "dream"
    m = _VERB.match(subject)
    if not m:
        return "other"
    return VERB_KIND.get(m.group(1), m.group(1))


def commit_row(c: dict) -> dict:
    date = str(c.get("date", ""))
    ref = c.get("ref") or ""
    if not ref and (m := _ROLLBACK_REF.match(str(c.get("subject", "")))):
        ref = m.group(1)[:7]
    return {**c, "when": date[:16].replace("T", " "), "short": c["sha"][:7], "kind": commit_kind(c), "ref": ref}


def commit_style(key: str, row: Mapping[str, object]) -> str | None:
    if key == "kind":
        return KIND_STYLE.get(str(row.get("kind")))
    if key == "approval":
        return APPROVAL_STYLE.get(str(row.get("approval")))
    if key == "short":
        return "dim"
    return None


def audit_style(key: str, row: Mapping[str, object]) -> str | None:
    if key == "action":
        return ACTION_STYLE.get(str(row.get("action")))
    if key == "approval":
        return APPROVAL_STYLE.get(str(row.get("approval")))
    return None


def describe_plan(plan) -> str:
    """The blast radius of a rollback, as core describes it (or from its fields)."""
    describe = getattr(plan, "describe", None)
    if callable(describe):
        return describe()
    data = plan.to_json()
    lines = [f"Roll back {data['short']} ({data['subject']}) as a new commit:", "", "Files:"]
    for f in data["files"]:
        lines.append(f"  {f['action']:<8} memory/{f['path']}"
                     + ("  (later changes overlap)" if f.get("overlap") else "")
                     + ("  📌 pinned" if f.get("pinned") else ""))
    later = data["later_commits"]
    lines += ["", f"Later commits touching these files: {len(later)}"]
    lines += [f"  {c['sha'][:7]} {c['subject']}" for c in later]
    lines += ["", "Pins affected: " + (", ".join(data["pins_affected"]) or "none")]
    lines += [f"Fragments returned to the undreamed tail: {len(data['released'])}"]
    if data["restored"]:
        lines.append(f"Fragments restored into their streams: {len(data['restored'])}")
    return "\n".join(lines)


def _file_order(path: str) -> tuple[int, str]:
    for rank, prefix in enumerate(("memory/vault/", "memory/topics/", "memory/archive/", "memory/skills/",
                                   "memory/streams/", "memory/")):
        if path.startswith(prefix):
            return (rank, path)
    return (9, path)


def split_patch(patch: str) -> list[tuple[str, str, list[str]]]:
    """(path, status, hunk lines) per file of a `git show` patch, shards first, bookkeeping last."""
    files: list[tuple[str, str, list[str]]] = []
    path, status, body = "", "modified", []  # type: ignore[var-annotated]
    in_header = False
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            if path or body:
                files.append((path, status, body))
            m = re.match(r"^diff --git a/(.*) b/(.*)$", line)
            path, status, body, in_header = (m.group(2) if m else line[11:]), "modified", [], True
            continue
        if in_header:
            if line.startswith("new file"):
                status = "new file"
                continue
            if line.startswith("deleted file"):
                status = "deleted"
                continue
            if line.startswith(("index ", "--- ", "+++ ", "old mode", "new mode", "similarity", "Binary")):
                if line.startswith("Binary"):
                    body.append(line)
                continue
            in_header = False
        body.append(line)
    if path or body:
        files.append((path, status, body))
    return sorted(files, key=lambda f: _file_order(f[0]))


def render_patch(patch: str, max_lines: int | None = None, rest_hint: str = "") -> Text:
    """A commit's memory diff: one header per file (+/- counts of the whole file), coloured hunks;
    with `max_lines`, the lines shown (file headers included: a dream at 100,000 topics changes as
    many files) stop there, in the order shown, and a last line says how many more lines and files
    there are, with `rest_hint` (where to see them)."""
    out = Text()
    budget = max_lines
    hidden = hidden_files = 0
    for path, status, body in split_patch(patch):
        if budget is not None and budget <= 0:
            hidden += len(body)
            hidden_files += 1
            continue
        added = sum(1 for ln in body if ln.startswith("+"))
        removed = sum(1 for ln in body if ln.startswith("-"))
        out.append(f" {path} ", style="bold reverse")
        out.append(f"  {status}  ", style="italic")
        out.append(f"+{added}", style="green")
        out.append(" ")
        out.append(f"-{removed}", style="red")
        out.append("\n")
        shown = body if budget is None else body[:max(budget - 2, 0)]
        if budget is not None:
            budget -= len(shown) + 2  # the header and the blank line after the file
            hidden += len(body) - len(shown)
        if shown:
            out.append_text(diff_text("\n".join(shown)))
        out.append("\n")
    if hidden or hidden_files:
        files = f" in {hidden_files} more files" if hidden_files else ""
        out.append(f"… {hidden} more lines{files}{rest_hint}", style="dim")
    return out


def _critical_files(root) -> list[str] | None:
    """The `[critical] files` of dreamdeck.toml; None (the defaults) when it cannot be read."""
    try:
        from dreamdeck.core.store.settings import load_settings

        return list(load_settings(root).critical.files)
    except Exception:  # a broken dreamdeck.toml is said elsewhere
        return None


class HistoryScreen(MemoryScreen):
    MODE = "history"
    FILTER_TABLES = ("#commits", "#audit",)
    AUTO_FOCUS = "#commits"
    PURPOSE = ("Every memory commit, who made it and why; its diff; the audit log and critical-file alerts. "
               "r rolls back.")
    HELP = (
        "Each row is a git commit that touched `memory/`: dreams, approvals, proposals, pins, forgets, "
        "rollbacks. **actor** is who (a dreamer, `human:<login>`, a sub-agent), **approval** how it was "
        "decided (auto, approved, partial…), **trigger** what started it, **ref** the reflection (`r-…`), "
        "proposal (`p-…`) or reverted commit.\n\n"
        "**Rollback** (`r`) undoes the selected commit as a *new* commit (never a reset). It first "
        "shows the blast radius: the files, later commits that touched them, pins affected and the "
        "fragments that go back to the undreamed tail so the next dream reconsiders them.\n\n"
        "The tabs below show the selected commit's diff, `memory/meta/audit.log` (newest first) and "
        "critical-file alerts: a change to SOUL.md, IDENTITY.md, AGENTS.md or typeclaw.json "
        "(`[critical] files`) that you have not accepted yet. `A` acknowledges them. `[`/`]` switch tabs."
    )
    BINDINGS = [
        Binding("r", "rollback", "Rollback", id="history.rollback"),
        Binding("A", "acknowledge", "Acknowledge alerts", id="history.acknowledge"),
        Binding("right_square_bracket", "next_tab", "Next tab", key_display="]", id="history.next_tab"),
        Binding("left_square_bracket", "previous_tab", "Previous tab", key_display="[", show=False,
                id="history.previous_tab"),
        Binding("slash", "filter", "Filter", key_display="/", id="history.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="history.clear_filter"),
    ]
    PANES = ("#commits", "#panels Tabs", "#diff-scroll", "#audit", "#alerts-scroll")
    DEFAULT_CSS = """
    HistoryScreen #alert-banner { display: none; height: auto; max-height: 3; background: $error 30%; color: $text;
        text-style: bold; padding: 0 1; }
    HistoryScreen #alert-banner.-visible { display: block; }
    HistoryScreen #commits { height: 2fr; min-height: 5; }
    HistoryScreen #panels { height: 3fr; min-height: 8; border-top: solid $panel-lighten-1; }
    HistoryScreen #panels:focus-within { border-top: solid $accent; }
    HistoryScreen #diff-head { height: auto; padding: 0 1; background: $boost; }
    HistoryScreen #diff { height: auto; padding: 0 1; }
    HistoryScreen #alerts { height: auto; padding: 0 1; }
    HistoryScreen TabPane { padding: 0; }
    """

    def compose_body(self) -> ComposeResult:
        yield self.filter_box("filter commits and audit lines (actor, kind, subject, file…)")
        yield SafeStatic("", id="alert-banner", markup=False)
        # Narrow: actor, approval, trigger and ref are on the diff's first line; the subject keeps its room.
        yield VirtualTable(COMMIT_COLUMNS, ListRowSource([]), cell_style=commit_style, id="commits",
                           empty_message=EMPTY_COMMITS, frozen=1, select_on_enter=False,
                           optional=("actor", "approval", "trigger", "ref"))
        with TabbedContent(id="panels", initial="tab-diff"):
            with TabPane("Diff", id="tab-diff"):
                with ScrollPane(id="diff-scroll"):
                    yield SafeStatic("", id="diff-head", markup=False)
                    yield SafeStatic("", id="diff", markup=False)
            with TabPane("Audit log", id="tab-audit"):
                # Narrow: the file and the summary share the room; the filter still finds an actor.
                yield VirtualTable(AUDIT_COLUMNS, ListRowSource([]), cell_style=audit_style, id="audit",
                                   empty_message=EMPTY_AUDIT, frozen=1, select_on_enter=False,
                                   optional=("actor", "approval"))
            with TabPane("Alerts", id="tab-alerts"):
                with ScrollPane(id="alerts-scroll"):
                    yield SafeStatic("", id="alerts")

    # --- data ----------------------------------------------------------------------------
    # Built in the background like every screen (a long history's first visit painted slowly),
    # but checking the critical files records what changed (an ALERT line, the first baseline):
    # a write that follows the person's visit. Until then its load only peeks.
    _visited = False

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.premounted and not self._visited:
            self._visited = True
            self.call_after_refresh(self._record_alerts)  # after the first paint

    @work(thread=True, exclusive=True, group="alerts", exit_on_error=False)
    def _record_alerts(self) -> None:
        from dreamdeck.core.errors import DreamdeckError
        from dreamdeck.core.ops.alerts import check_alerts

        try:
            alerts = [a.__dict__ for a in check_alerts(self.ws.root, _critical_files(self.ws.root))]
        except (DreamdeckError, OSError):
            alerts = None  # the reload says why
        if alerts != getattr(self, "_alerts", None):
            self.app.call_from_thread(self.reload)

    def load(self) -> Any:
        from dreamdeck.core.errors import DreamdeckError
        from dreamdeck.core.git.history import list_memory_commits
        from dreamdeck.core.ops.alerts import check_alerts, peek_alerts
        from dreamdeck.core.store.audit import read_log

        root = self.ws.root
        commits = [commit_row(c.to_json()) for c in list_memory_commits(root, limit=1000)]
        problem = None
        files = _critical_files(root)
        try:
            if self.premounted and not self._visited:
                alerts = [a.__dict__ for a in peek_alerts(root, files) or []]
            else:
                alerts = [a.__dict__ for a in check_alerts(root, files)]
        except (DreamdeckError, OSError) as exc:
            alerts, problem = [], str(exc)
        entries, problems = read_log(root)
        audit = [e.__dict__ for e in reversed(entries)]
        from dreamdeck.core.git.init import has_history

        return {"commits": commits, "repo": has_history(root), "alerts": alerts, "alert_problem": problem, "audit": audit,
                "audit_problems": [str(p) for p in problems]}

    def show(self, data: dict) -> None:
        self._alerts = data["alerts"]
        commits = self.query_one("#commits", VirtualTable)
        commits.empty_message = EMPTY_COMMITS if data.get("repo", True) else NO_REPO
        commits.set_source(ListRowSource(data["commits"], filter_keys=("short", "kind", "actor", "approval", "trigger",
                                                                       "ref", "subject", "when")),
                           keep_cursor_key="sha")
        select = getattr(self, "_select_sha", None)
        at = commits.source.find("sha", select) if select else None  # type: ignore[attr-defined]
        if at is not None:  # a rollback made here: its commit, not the one rolled back
            self._select_sha = None
            commits.move_cursor(at)
        audit = self.query_one("#audit", VirtualTable)
        audit.set_source(ListRowSource(data["audit"], filter_keys=("timestamp", "action", "file", "actor", "summary")))
        panels = self.query_one("#panels", TabbedContent)
        panels.get_tab("tab-audit").label = f"Audit log ({len(data['audit'])})"  # type: ignore[assignment]
        n = len(data["alerts"])
        panels.get_tab("tab-alerts").label = f"⚠ Alerts ({n})" if n else "Alerts"  # type: ignore[assignment]
        banner = self.query_one("#alert-banner", Static)
        if n:
            what = ", ".join(f"{a['path']} ({a['kind']})" for a in data["alerts"])
            banner.update(f"⚠ {n} critical file{'s' if n != 1 else ''} changed and not yet accepted: {what} — "
                          "A acknowledges, ] shows the alerts")
            banner.add_class("-visible")
        elif data["alert_problem"]:
            banner.update(f"⚠ critical-file alerts cannot be checked: {data['alert_problem']}")
            banner.add_class("-visible")
        else:
            banner.remove_class("-visible")
        self._show_alerts(data)
        if not data["commits"]:
            self._show_diff(None, None)
        else:
            self._load_diff(commits.current_row())
        self.refresh_bindings()

    def _show_alerts(self, data: dict) -> None:
        out = Text()
        if data["alert_problem"]:
            out.append(f"⚠ {data['alert_problem']}\nRun `dreamdeck doctor` to look at the baseline.\n\n",
                       style="bold red")
        if not data["alerts"]:
            out.append("No critical-file alerts.\n\n", style="green")
            out.append("dreamdeck keeps a checksum of the files that define the agent (SOUL.md, IDENTITY.md, "
                       "AGENTS.md, typeclaw.json; `[critical] files` in dreamdeck.toml). When one changes, the change is "
                       "logged and shown here until you acknowledge it.", style="dim")
        for a in data["alerts"]:
            out.append(f"⚠ {a['path']} {a['kind']}", style="bold red")
            out.append(f"   detected {a['detected']}\n")
            old, new = (a["old_sha"] or "absent")[:16], (a["new_sha"] or "absent")[:16]
            out.append(f"   accepted sha256 {old}  →  now {new}\n", style="dim")
        if data["alerts"]:
            out.append("\nA shows each change as a diff and asks before accepting it as the new baseline (one "
                       "ACK line each in the audit log). If the change was not yours, restore the file first.",
                       style="italic")
        if data["audit_problems"]:
            out.append("\n\naudit.log lines that cannot be read:\n", style="bold yellow")
            for p in data["audit_problems"][:20]:
                out.append(f"  {p}\n", style="yellow")
        self.query_one("#alerts", Static).update(out)

    @on(VirtualTable.RowHighlighted, "#commits")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._load_diff(event.row)
        self.refresh_bindings()

    def _load_diff(self, row: Mapping[str, object] | None) -> None:
        if row is not None:
            self._diff_worker(dict(row))

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def _diff_worker(self, row: dict) -> None:
        from dreamdeck.core.git.history import commit_patch

        try:
            patch = commit_patch(self.ws.root, str(row["sha"]))
        except Exception as exc:
            patch = f"(cannot show {row['short']}: {exc})"
        # Rendered here, off the screen's thread: a commit of 100,000 files is a big patch to split.
        rest = f" (git show {row['short']} -- memory/)"
        body = (render_patch(patch, MAX_DIFF_LINES, rest) if patch.strip()
                else Text("(no changes under memory/)", style="dim"))
        self.app.call_from_thread(self._show_diff, row, body)

    def _show_diff(self, row: Mapping[str, object] | None, diff: Text | None) -> None:
        head = self.query_one("#diff-head", Static)
        body = self.query_one("#diff", Static)
        if row is None:
            head.update("")
            body.update(Text("Nothing to show yet: memory has no commits. A dream, an approval or a pin makes "
                             "the first one.", style="dim italic"))
            return
        current = self.query_one("#commits", VirtualTable).current_row()
        if current is not None and current.get("sha") != row.get("sha"):
            return  # an older diff arriving after the cursor moved on
        meta = Text()
        meta.append(f"{row['short']} ", style="bold")
        meta.append(f"{row['when']} · {row['kind']} · actor {row['actor']} · approval {row['approval']} · "
                    f"trigger {row['trigger']}" + (f" · {row['ref']}" if row["ref"] else "") + "\n")
        meta.append(str(row["subject"]), style="bold")
        head.update(meta)
        body.update(Gutter(diff) if diff is not None else "")

    # --- tabs and filter -------------------------------------------------------------------
    def _cycle(self, step: int) -> None:
        panels = self.query_one("#panels", TabbedContent)
        order = ["tab-diff", "tab-audit", "tab-alerts"]
        panels.active = order[(order.index(panels.active or "tab-diff") + step) % len(order)]

    def action_next_tab(self) -> None:
        self._cycle(1)

    def action_previous_tab(self) -> None:
        self._cycle(-1)

    # --- actions -----------------------------------------------------------------------------
    def _current(self) -> Mapping[str, object] | None:
        if not self.is_mounted:
            return None
        try:
            return self.query_one("#commits", VirtualTable).current_row()
        except Exception:
            return None

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "rollback":
            return self._current() is not None
        if action == "acknowledge":
            return bool(getattr(self, "_alerts", None))
        if action == "clear_filter":
            return self.filter_visible()
        return True

    def action_rollback(self) -> None:
        row = self._current()
        if row is None:
            return
        self.query_one("#commits", VirtualTable).loading = True  # the preview reads git: it may take a moment
        self._preview_worker(dict(row))

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _preview_worker(self, row: dict) -> None:
        from dreamdeck.core.ops.rollback import preview_rollback

        try:
            plan = preview_rollback(self.ws, str(row["sha"]))
            text = describe_plan(plan)
            problem = None
            if getattr(plan, "would_lose", None):
                problem = "it would drop citations that existed before this commit"
            elif getattr(plan, "empty", False):
                problem = "memory already matches the state before this commit"
        except Exception as exc:  # Refused, GitError: one line for a person
            self.app.call_from_thread(self._preview_done)
            self.app.call_from_thread(self.notify, str(exc) or type(exc).__name__, title="Rollback refused",
                                      severity="error", timeout=10)
            return
        self.app.call_from_thread(self._preview_done)
        if problem:
            self.app.call_from_thread(self.notify, f"cannot roll back {row['short']}: {problem}",
                                      title="Rollback refused", severity="error", timeout=10)
            return
        self.app.call_from_thread(self._confirm_rollback, row, text)

    def _preview_done(self) -> None:
        self.query_one("#commits", VirtualTable).loading = False

    def _confirm_rollback(self, row: dict, text: str) -> None:
        from dreamdeck.tui.modals import ConfirmModal

        sha, short = str(row["sha"]), str(row["short"])

        def go(ok: bool | None) -> None:
            if ok:
                from dreamdeck.core.ops.rollback import rollback

                def done(r) -> str:
                    self._select_sha = getattr(r, "sha", None)  # the next reload selects the new commit
                    return f"rolled back {short}" + (f" in {r.sha[:7]}" if self._select_sha else "")

                self.act("Rollback", lambda: rollback(self.ws, sha, actor=self.actor), done)

        self.app.push_screen(ConfirmModal(
            f"Roll back {short}?",
            text + "\n\nThis is a new commit (nothing is reset); you can roll the rollback back.",
            confirm_label="Roll back"), go)

    def action_acknowledge(self) -> None:
        alerts = getattr(self, "_alerts", None)
        if not alerts:
            return
        from dreamdeck.tui.alert_review import review_alerts

        review_alerts(self, [a["path"] for a in alerts])  # the diff first, then a confirm
