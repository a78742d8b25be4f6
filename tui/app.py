"""The dreamdeck app: seven screens over one workspace, a background watcher, and a palette.

Threading: every core call runs in a thread worker; results come back as messages; after any
action (ours or the watcher's) `memory_changed()` makes the views re-read core.
"""
from __future__ import annotations

from functools import partial
from importlib import import_module
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.reactive import reactive

from dreamdeck.core.workspace import Workspace
from dreamdeck.tui.config import UserConfig, load_user_config, save_theme
from dreamdeck.tui.critical_watch import start_critical_watch
from dreamdeck.tui.dream_notice import receipt_notice
from dreamdeck.tui.no_history import offer_git_init
from dreamdeck.tui.screens.base import MemoryScreen, failure_toast
from dreamdeck.tui.widgets.tab_bar import TABS, TabBar


SCREENS = {
    "topics": "dreamdeck.tui.screens.topics:TopicsScreen", "reflections": "dreamdeck.tui.screens.reflections:ReflectionsScreen",
    "proposals": "dreamdeck.tui.screens.proposals:ProposalsScreen", "vault": "dreamdeck.tui.screens.vault:VaultScreen",
    "history": "dreamdeck.tui.screens.history:HistoryScreen", "stream": "dreamdeck.tui.screens.stream:StreamScreen",
    "control": "dreamdeck.tui.screens.control:ControlScreen",
    "forgotten": "dreamdeck.tui.screens.forgotten:ForgottenScreen",
    "recall": "dreamdeck.tui.screens.recall:RecallScreen",
}


def _screen_factory(mode: str):
    """The mode's screen, its module imported on the first visit: importing all seven at once
    is launch time spent on screens nobody has opened yet."""
    def make():
        module, name = SCREENS[mode].split(":")
        return getattr(import_module(module), name)()
    return make


class DreamdeckCommands(Provider):
    """Every action in the palette: screens, app actions, and the current screen's bindings."""

    def _entries(self) -> list[tuple[str, Any, str]]:
        app: DreamdeckApp = self.app  # type: ignore[assignment]
        out: list[tuple[str, Any, str]] = []
        for mode, key, label in TABS:
            out.append((f"Go to {label}", partial(app.switch_mode, mode), f"screen {key}"))
        out += [
            ("Dream now", app.action_dream_now, "run a dream with the configured dreamer and review policy"),
            ("Dream dry run", partial(app.action_dream_now, True), "show what a dream would change, write nothing"),
            ("Pause or resume the watcher", app.action_toggle_watcher, "background dreaming on new fragments"),
        ]
        # The screen the palette was opened on (app.screen is the palette itself by now).
        screen = self.screen
        seen = set()
        for key, active in screen.active_bindings.items():
            b = active.binding
            if not b.description or b.action in seen or b.action.startswith("switch_mode"):
                continue
            seen.add(b.action)
            out.append((f"{b.description}", partial(screen.run_action, b.action), f"key {b.key_display or key}"))
        return out

    async def discover(self) -> Hits:
        for name, cb, help_text in self._entries():
            yield DiscoveryHit(name, cb, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, cb, help_text in self._entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), cb, help=help_text)


class DreamdeckApp(App):
    TITLE = "dreamdeck"
    COMMANDS = App.COMMANDS | {DreamdeckCommands}
    BINDINGS = [
        *[Binding(key, f"switch_mode('{mode}')", label, show=False, id=f"app.screen.{mode}") for mode, key, label in TABS],
        Binding("q", "quit", "Quit", id="app.quit"),
    ]
    CSS = """
    MemoryScreen { background: $background; }
    """

    counts: reactive[dict] = reactive(dict, always_update=True)

    MODES = {mode: _screen_factory(mode) for mode in SCREENS}

    def __init__(self, ws: Workspace, *, watcher: bool | None = None, user_config: UserConfig | None = None):
        super().__init__()
        self.ws = ws
        self.workspace_name = ws.root.name
        self.user_config = user_config or load_user_config()
        settings_watcher = True
        try:
            from dreamdeck.core.store.settings import load_settings

            settings_watcher = load_settings(ws.root).app.watcher
        except Exception as exc:  # a broken dreamdeck.toml is shown, not fatal
            self._settings_problem = str(exc)
        self.watcher_wanted = watcher if watcher is not None else (
            self.user_config.watcher if self.user_config.watcher is not None else settings_watcher)
        self.watcher = None
        self.last_receipt: dict | None = None
        self.pending_jump: tuple[str, str] | None = None
        self.mode_screens: dict[str, MemoryScreen] = {}  # filled by each screen as it mounts
        self._counts_after_first_load = True
        self._unmounted = False

    # --- lifecycle -------------------------------------------------------------------------
    def on_mount(self) -> None:
        if self.user_config.theme and self.user_config.theme in self.available_themes:
            self.theme = self.user_config.theme
        self.theme_changed_signal.subscribe(self, self._persist_theme)
        if self.user_config.keymap:
            self.set_keymap(self.user_config.keymap)
        if self.user_config.problem:
            self.notify(self.user_config.problem, title="user config ignored", severity="warning")
        if getattr(self, "_settings_problem", None):
            self.notify(self._settings_problem, title="dreamdeck.toml", severity="error", timeout=15)
        self.switch_mode("topics")

    def first_load_finished(self) -> None:
        """A screen's load worker is done (or failed): the first time, start the watcher and count
        the badges. Both at launch would share the interpreter lock with the first screen's read
        (the watcher's start counts the undreamed fragments of the year), and its rows are what
        the user is waiting for."""
        if self._counts_after_first_load:
            self._counts_after_first_load = False
            self.critical_watch = start_critical_watch(self)
            offer_git_init(self)
            if self.watcher_wanted:
                self._start_watcher_worker()  # then the counts, with the watcher's status
            else:
                self.refresh_counts()

    @work(thread=True, group="watcher-start", exit_on_error=False)
    def _start_watcher_worker(self) -> None:
        try:
            self.start_watcher()
        except Exception as exc:  # a broken dreamdeck.toml: said, not fatal
            self.call_from_thread(self.notify, str(exc) or type(exc).__name__, title="Watcher not started",
                                  severity="error", timeout=15)
        if self._unmounted:  # the app closed while the watcher was starting
            if self.watcher is not None:
                self.watcher.stop(timeout=2)
            return
        self.call_from_thread(self.refresh_counts)

    def _persist_theme(self, theme) -> None:
        try:
            save_theme(theme.name)
        except OSError:
            pass

    def on_unmount(self) -> None:
        self._unmounted = True
        if self.watcher is not None:
            self.watcher.stop(timeout=2)
        if getattr(self, "critical_watch", None) is not None:
            self.critical_watch.stop()

    # --- watcher ---------------------------------------------------------------------------
    def start_watcher(self) -> None:
        from dreamdeck.core.dreaming.watcher import Watcher

        if self.watcher is None:
            self.watcher = Watcher(self.ws, on_event=self._watch_event_from_thread)
            self.watcher.start()

    def _watch_event_from_thread(self, event) -> None:
        try:
            self.call_from_thread(self._on_watch_event, event)
        except RuntimeError:  # the app is shutting down
            pass

    def _on_watch_event(self, event) -> None:
        if event.kind == "run-done" and event.receipt:
            self.last_receipt = event.receipt
            title, msg, severity = receipt_notice(event.receipt)
            self.notify(msg, title=title, severity=severity, timeout=8)  # type: ignore[arg-type]
            self.memory_changed()
        elif event.kind == "error":
            self.notify(event.message, title="Watcher", severity="error")
        elif event.kind in ("run-start", "decision"):
            self.refresh_counts()  # a decision follows each append: the undreamed count moved
        screen = self.screen
        if hasattr(screen, "on_watch_event"):
            screen.on_watch_event(event)  # type: ignore[attr-defined]

    def action_toggle_watcher(self) -> None:
        if self.watcher is None:
            self.start_watcher()
            self.notify("watcher started")
        elif self.watcher.status().paused:
            self.watcher.resume()
            self.notify("watcher resumed")
        else:
            self.watcher.pause()
            self.notify("watcher paused")
        self.refresh_counts()

    def action_dream_now(self, dry_run: bool = False) -> None:
        self._dream_worker(dry_run)

    @work(thread=True, group="dream", exclusive=True, exit_on_error=False)
    def _dream_worker(self, dry_run: bool) -> None:
        from dreamdeck.core.dreaming.run import run_dream

        self.call_from_thread(self.notify, "dry run…" if dry_run else "dreaming…", title="Dream")
        try:
            receipt = run_dream(self.ws, trigger="manual", dry_run=dry_run).to_json()
        except Exception as exc:
            title, message = failure_toast("Dry run" if dry_run else "Dream", exc)
            self.call_from_thread(self.notify, message, title=title, severity="error", timeout=10)
            return
        self.last_receipt = receipt
        title, msg, severity = receipt_notice(receipt)
        self.call_from_thread(self.notify, msg, title=title, severity=severity, timeout=8)
        self.call_from_thread(self.memory_changed)

    # --- handing the terminal to an editor ----------------------------------------------------
    def hand_over_terminal(self, command: list[str]) -> int | None:
        """Run `command` (the editor) with the app suspended around it; its exit status, or None
        when this terminal cannot be handed over (said in a toast). The runner `tui.editor` takes."""
        import subprocess

        from textual.app import SuspendNotSupported

        screen, focused = self.screen, self.screen.focused
        try:
            with self.suspend():
                return subprocess.call(command)
        except SuspendNotSupported:
            if not self.is_headless:
                self.notify("this terminal cannot hand over to an editor: nothing was edited", title="Edit",
                            severity="error")
                return None
            return subprocess.call(command, stdin=subprocess.DEVNULL)  # headless: nothing to share
        finally:
            self._give_focus_back(screen, focused)

    def _give_focus_back(self, screen, widget) -> None:
        """Focus on the widget that had it before the editor, now and once the app has redrawn
        (terminals report focus out and in around a hand-over; keys must work at once after it)."""

        def restore() -> None:
            if widget is not None and widget.is_attached and self.screen is screen and screen.focused is not widget:
                screen.set_focus(widget, scroll_visible=False)

        restore()
        self.call_after_refresh(restore)

    # --- refresh ---------------------------------------------------------------------------
    def memory_changed(self) -> None:
        """Memory changed (our action, the watcher, another process): every view re-reads core."""
        self.refresh_counts()
        current = self.screen
        for screen in self.mode_screens.values():
            if screen is current:
                screen.reload()
            else:
                screen.mark_stale()

    def refresh_counts(self) -> None:
        self._counts_worker()

    @work(thread=True, group="counts", exclusive=True, exit_on_error=False)
    def _counts_worker(self) -> None:
        counts = compute_counts(self.ws, self.watcher)
        self.call_from_thread(self._set_counts, counts)

    def _set_counts(self, counts: dict) -> None:
        self.counts = counts
        for bar in self.screen.query(TabBar):
            bar.refresh_bar()


def compute_counts(ws: Workspace, watcher=None) -> dict:
    """Badges: pending reflections, open proposals, vault size, alerts; plus a status line."""
    from dreamdeck.core.store.proposals_file import read_pending
    from dreamdeck.core.store.reflections import list_reflections

    counts: dict[str, Any] = {}
    counts["reflections"] = len(list_reflections(ws)[0])
    try:
        counts["proposals"] = sum(1 for p in read_pending(ws.root).proposals if p.is_open)
    except Exception:
        counts["proposals"] = 0
    try:
        from dreamdeck.core.ops.alerts import pending_alerts

        counts["history"] = len(pending_alerts(ws.root))
    except Exception:
        counts["history"] = 0
    status = []
    if watcher is not None:
        st = watcher.status()
        status.append("watcher ⏸" if st.paused else "watcher ●")
        counts["undreamed"] = st.undreamed
        if st.undreamed:
            status.append(f"{st.undreamed} undreamed")
    else:
        status.append("watcher off")
    counts["status"] = " · ".join(status)
    return counts


def run_app(ws: Workspace) -> int:
    app = DreamdeckApp(ws)
    app.run()
    return 0
