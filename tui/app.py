"""The dreamdeck app: seven screens over one workspace, a background watcher, and a palette.

Threading: every core call runs in a thread worker; results come back as messages; after any
action (ours or the watcher's) `memory_changed()` makes the views re-read core.

Speed: the first screen is built at launch; once its rows are painted, the other six are built
and loaded one after another in the background (each after the previous one's load), so a
number key only shows a screen that is already there.
"""
from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import tempfile
from collections import deque
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.reactive import reactive
from textual.screen import Screen

from dreamdeck.core.formats.actors import human_actor
from dreamdeck.core.formats.terminal_text import terminal_text
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


def screenshot_folder() -> Path:
    """Where "Screenshot" saves: the Downloads folder when there is one, else the home folder,
    else the system's temporary folder (never the agent folder)."""
    try:
        from platformdirs import user_downloads_path

        downloads = user_downloads_path()
    except Exception:  # no platformdirs, or no answer from it: the next candidate
        downloads = None
    for folder in (downloads, Path.home(), Path(tempfile.gettempdir())):
        if folder is not None and folder.is_dir() and os.access(folder, os.W_OK):
            return folder
    return Path(tempfile.gettempdir())


class DreamdeckCommands(Provider):
    """Every action in the palette: screens, app actions, and the current screen's bindings."""

    def _entries(self) -> list[tuple[str, Any, str]]:
        """Each action once: the screens, the app's actions, then the current screen's keys that
        are neither of those nor one of Textual's system commands (Quit, Theme, …)."""
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
        names = {name.casefold() for name, _, _ in out}
        names |= {c.title.casefold() for c in app.get_system_commands(screen)}
        seen = set()
        for active in screen.active_bindings.values():
            b = active.binding
            name = b.tooltip or b.description
            if (not name or b.action in seen or active.node is app or name.casefold() in names
                    or b.action.startswith("switch_mode")):
                continue
            seen.add(b.action)
            names.add(name.casefold())
            out.append((name, partial(screen.run_action, b.action), f"key {app.get_key_display(b)}"))
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
    # Screens lay themselves out by these classes (`-narrow` panes stack; `-short` boxes shrink).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (160, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]

    counts: reactive[dict] = reactive(dict, always_update=True)

    def __init__(self, ws: Workspace, *, watcher: bool | None = None, user_config: UserConfig | None = None,
                 premount: bool = True):
        super().__init__()
        for mode in SCREENS:
            if mode not in self.MODES:  # a subclass may give a mode its own screen class (tests do)
                self.add_mode(mode, partial(self._new_screen, mode))
        self.premount = premount
        self.actor = human_actor()
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
        self.dreams_run = 0  # dreams (not dry runs) started from the app with d; the watcher counts its own
        self.dream_events: deque = deque(maxlen=20)  # their run-start/run-done lines, for the Dream screen's log
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
        the user is waiting for. Every time, build the next screen nobody has opened yet."""
        if self._counts_after_first_load:
            # Imported here, not at the top: the pinned-topic watch pulls in most of the door
            # (~0.15 s), which a fresh app would otherwise pay before its first paint.
            from dreamdeck.tui.drift_watch import start_drift_watch

            self._counts_after_first_load = False
            self.critical_watch = start_critical_watch(self)
            self.drift_watch = start_drift_watch(self)
            offer_git_init(self)
            if self.watcher_wanted:
                self._start_watcher_worker()  # then the counts, with the watcher's status
            else:
                self.refresh_counts()
        # What a load built (100,000 rows, a year's day indexes) lives until the next load: out of
        # the collector's way, or each full collection walks it on the UI thread (0.3-0.9 s
        # pauses during screen switches at 10,000 topics and a year of streams). Young garbage is
        # collected first (cheap), so a dismissed modal's cycles are not frozen with the data;
        # acyclic garbage is freed by reference counting anyway, and the app unfreezes on exit.
        gc.collect(1)
        gc.freeze()
        # The modals' module (and the rich Markdown and tables they draw with) before a first `?` or
        # confirm would pay for the import: a third of a first help's opening.
        import_module("dreamdeck.tui.modals")
        self.call_after_refresh(self._premount_next)

    # --- screens -----------------------------------------------------------------------------
    def _new_screen(self, mode: str) -> Screen:
        """The screen of a mode, built the first time it is shown or premounted."""
        override = self.MODES.get(mode)
        if callable(override):
            screen = override()
        else:
            module, name = SCREENS[mode].split(":")
            screen = getattr(import_module(module), name)()
        # Its widgets take their styles from the current stylesheet as they mount. Without this,
        # Textual treats a new mode's screen as out of date and re-parses every rule and restyles
        # every widget of every screen, twice: most of a first visit's time. (A theme change
        # still bumps the app's count, and every screen is restyled then.)
        screen._css_update_count = self._css_update_count
        return screen

    def _premount_next(self) -> None:
        """Build the next screen not yet built, off screen (its load follows, then this again).
        It goes into its mode's stack as switch_mode would put it there, minus being shown."""
        stacks = getattr(self, "_screen_stacks", None)
        # Not while the app shuts down: Textual is closing every stack then, and a new one breaks it.
        if (not self.premount or self._unmounted or not self.is_running or not isinstance(stacks, dict)
                or not hasattr(self, "_get_screen")):
            return
        mode = next((m for m in SCREENS if m not in stacks), None)
        if mode is not None:
            self._premount(mode)

    def _premount(self, mode: str) -> Screen:
        """Build the screen of `mode` off screen and put it in its mode's stack."""
        new = self._new_screen(mode)
        new.premounted = True  # type: ignore[attr-defined]  # its load writes nothing until it is shown (History)
        screen, _mounted = self._get_screen(new)
        self._screen_stacks[mode] = [screen]
        return screen

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

    # --- closing: never while a screen is half built -------------------------------------------
    # Once the app exits (`exit()` sets Textual's flag: no widget counts as attached) or shuts down
    # (no new widget starts), a widget that has not composed yet mounts no children, and its
    # parent's mount handler runs over children that are not there: History's tabs raised
    # "No Tab with id '--content-tab-tab-diff'" when a quit came while it was premounting. So
    # both wait for every widget already started to finish mounting (milliseconds; never more
    # than two seconds, so a stuck build cannot hold the exit).
    BUILD_WAIT = 2.0

    def _building(self) -> list:
        return [w for w in list(self._registry) if w._task is not None and not w.is_mounted]

    async def _until_built(self) -> None:
        building = self._building()
        if building:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(w._mounted_event.wait() for w in building)), self.BUILD_WAIT)

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        if not self._building() or self._exit:
            super().exit(result, return_code, message)
            return

        async def when_built() -> None:
            await self._until_built()
            super(DreamdeckApp, self).exit(result, return_code, message)

        self.run_worker(when_built(), group="exit", exclusive=True)

    async def _shutdown(self) -> None:
        if self._running:  # a test's end, or the loop's end after `exit`
            await self._until_built()
        await super()._shutdown()

    def on_unmount(self) -> None:
        self._unmounted = True
        gc.unfreeze()  # what was frozen after the loads is the collector's again (an app in a test run)
        if self.watcher is not None:
            self.watcher.stop(timeout=2)
        if getattr(self, "critical_watch", None) is not None:
            self.critical_watch.stop()
        if getattr(self, "drift_watch", None) is not None:
            self.drift_watch.stop()

    # --- quitting, the palette's system commands -------------------------------------------
    async def action_quit(self) -> None:
        """Quit; when hunk decisions on the Reflections screen were never applied, ask first."""
        screen = self.mode_screens.get("reflections")
        unapplied = screen.unapplied() if screen is not None else []  # type: ignore[attr-defined]
        if not unapplied:
            self.exit()
            return
        from dreamdeck.tui.modals import ConfirmModal

        lines = [f"  {rid}: {ok} approved, {no} rejected" for rid, ok, no in unapplied]
        body = "\n".join(["These choices were made but not applied (enter applies them):", *lines, "",
                          "Quitting forgets them; nothing has been written."])
        self.push_screen(ConfirmModal("Quit without applying your hunk decisions?", body, "Quit"),
                         lambda ok: self.exit() if ok else None)

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every toast, the screens' included (they notify through the app): its text is never
        parsed as markup and what a terminal would obey is shown as its escape, since a refusal
        can name a hostile file."""
        super().notify(terminal_text(message), title=terminal_text(title), severity=severity, timeout=timeout,
                       markup=False)

    def get_system_commands(self, screen: Screen):
        """Textual's, less "Keys" (the `?` help is ours) and with a Screenshot that says where it went."""
        for command in super().get_system_commands(screen):
            if command.title == "Keys":
                continue
            if command.title == "Screenshot":
                yield SystemCommand("Screenshot", f"Save an SVG picture of the screen in {screenshot_folder()}",
                                    lambda: self.set_timer(0.1, self.save_screenshot_here))
                continue
            yield command

    def save_screenshot_here(self) -> None:
        folder = screenshot_folder()
        try:
            path = self.save_screenshot(path=str(folder))
        except OSError as exc:
            self.notify(f"{exc.strerror or exc}: {folder}", title="Screenshot: failed", severity="error")
            return
        self.notify(f"saved {path}", title="Screenshot")

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
        if not dry_run:
            self._dream_event("run-start", "dream started (manual, d)")
        try:
            receipt = run_dream(self.ws, trigger="manual", dry_run=dry_run).to_json()
        except Exception as exc:
            self.dreams_run += 0 if dry_run else 1  # a failed run is a run, as the watcher counts it
            title, message = failure_toast("Dry run" if dry_run else "Dream", exc)
            if not dry_run:
                self._dream_event("error", message)
            self.call_from_thread(self.notify, message, title=title, severity="error", timeout=10)
            return
        self.last_receipt = receipt
        if not dry_run:
            self.dreams_run += 1  # the Dream screen's "runs since the app started": the watcher's and these
            self._dream_event("run-done", f"dream {receipt.get('status')}: {receipt.get('message')} [{receipt.get('id')}]")
        title, msg, severity = receipt_notice(receipt)
        self.call_from_thread(self.notify, msg, title=title, severity=severity, timeout=8)
        self.call_from_thread(self.memory_changed)

    def _dream_event(self, kind: str, message: str) -> None:
        """A dream started here, in the Dream screen's event log beside the watcher's own lines."""
        from dreamdeck.core.dreaming.watch_events import WatchEvent

        self.dream_events.append(WatchEvent(kind, message))
        self.call_from_thread(self._show_dream_events)

    def _show_dream_events(self) -> None:
        show = getattr(self.screen, "show_events", None)
        if show is not None:
            show()

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
        counts = compute_counts(self.ws, self.watcher, linked=self.counts.get("control", 0))
        self.call_from_thread(self._set_counts, counts)

    def note_linked_shards(self, n: int) -> None:
        """The linked shard files a screen's own listing found (Topics, Dream): the Dream tab's badge."""
        if self.counts.get("control", 0) != n:
            self._set_counts({**self.counts, "control": n})

    def _set_counts(self, counts: dict) -> None:
        self.counts = counts
        for bar in self.screen.query(TabBar):
            bar.refresh_bar()
        topics = self.mode_screens.get("topics")
        if topics is not None and topics.is_mounted and hasattr(topics, "counts_changed"):
            topics.counts_changed(counts)


def compute_counts(ws: Workspace, watcher=None, linked: int = 0) -> dict:
    """Badges: pending reflections, open proposals, pinned topics changed outside dreamdeck, alerts,
    linked shard files (`linked`, the last count, while the topics folder's listing is not at
    hand: never a stat of every shard here); the watcher's state and undreamed count."""
    from dreamdeck.core.index.shard_links import listed_linked_shards
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
    try:
        from dreamdeck.core.ops.protected import pinned_drift

        counts["vault"] = len(pinned_drift(ws))
    except Exception:  # git missing, an unreadable vault: the Vault screen says so
        counts["vault"] = 0
    try:
        links = listed_linked_shards(ws.root / "memory")
    except Exception:  # memory itself unreadable: every screen says so
        links = None
    counts["control"] = linked if links is None else len(links)
    if watcher is not None:
        st = watcher.status()
        counts["watcher"] = "paused" if st.paused else "on"
        counts["undreamed"] = st.undreamed
    else:
        counts["watcher"] = "off"
    return counts


def run_app(ws: Workspace) -> int:
    app = DreamdeckApp(ws)
    app.run()
    return 0
