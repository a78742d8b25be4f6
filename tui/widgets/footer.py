"""The footer: what the keys do here, the screen's own actions first.

Textual's Footer lists the focused widget's keys, then the screen's, then the app's; on a narrow
terminal the screen's actions (the reason to be on it) fell off the right edge behind `s Sort`.
This one orders them: the screen's actions, the focused widget's, then help and quit; it is
compact below 120 columns, and below 100 it leaves out the palette's key. Keys that do not fit
are left out whole, last first, rather than cut at the edge (`i` with no word, `q` with no
`Quit`): help and quit always stay, and `?` lists every key.
"""
from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

COMPACT_BELOW = 120
PALETTE_KEY_FROM = 100  # narrower, `^p palette` gives its 12 cells to the screen's keys (? says ctrl+p)
LAST = ("help", "quit")  # actions shown at the end, whoever binds them
PALETTE_CELLS = 13  # "▏^p palette " docked at the right


def key_cells(key_display: str, description: str, compact: bool) -> int:
    """The cells a FooterKey takes with Textual's footer CSS: compact "key desc" and a margin of
    one; otherwise " key desc " with no margin."""
    return cell_len(key_display) + 1 + cell_len(description) + (1 if compact else 2)


def fitting(keys: list[tuple[bool, int]], room: int) -> list[int]:
    """Indexes of the (always kept, cells) keys that fit in `room`: the kept ones, and the others
    in order while they fit."""
    left = room - sum(cells for kept, cells in keys if kept)
    chosen = []
    for i, (kept, cells) in enumerate(keys):
        if kept or cells <= left:
            chosen.append(i)
            left -= 0 if kept else cells
        else:
            left = -1  # one left out: none after it, so the order never skips ahead
    return chosen


class DeckFooter(Footer):
    def __init__(self) -> None:
        # Born as wide as the app is: a footer born compact and widened on its first resize
        # restyled itself and every key, twice (a third of a first visit at 120 columns).
        try:
            width = self.app.size.width
        except Exception:  # built outside a running app
            width = 0
        super().__init__(compact=not width or width < COMPACT_BELOW)

    def on_resize(self) -> None:
        self.compact = self.size.width < COMPACT_BELOW
        palette = self.size.width >= PALETTE_KEY_FROM
        if palette != self.show_command_palette or self.size.width != getattr(self, "_fitted_to", None):
            self.show_command_palette = palette
            self.refresh(recompose=True)  # which keys fit depends on the width

    def bindings_changed(self, screen: Screen) -> None:
        """As Textual's, but one recompose however many changes arrive: overlapping recomposes
        (a load, a focus change and a resize at once) could leave the older keys on screen. Behind
        a modal the keys are not recomposed (nobody can read or press them; it was a fifth of a
        modal's opening) until the screen is on top again (`shown_again`)."""
        self._bindings_ready = True
        if not (screen.app.app_focus and self.is_attached and screen is self.screen):
            return
        top = screen.app.screen
        if top is not screen and top.is_modal:
            self._keys_stale = True
            return
        self._keys_stale = False
        self.refresh(recompose=True)

    def shown_again(self) -> None:
        """Its screen is on top again: the keys that changed behind a modal, unless a change since did it."""
        if getattr(self, "_keys_stale", False):
            self.bindings_changed(self.screen)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        screen = self.screen
        active = screen.active_bindings
        shown: dict[str, tuple] = {}  # action -> (rank, order, binding, enabled, tooltip)
        for order, (node, binding, enabled, tooltip) in enumerate(active.values()):
            if not binding.show or binding.action in shown:
                continue
            rank = 3 if binding.action in LAST else 0 if isinstance(node, Screen) else 1 if node is not self.app else 2
            shown[binding.action] = (rank, order, binding, enabled, tooltip)
        # Each key is born with the class and the value its `compact` watcher would set on mount:
        # otherwise every key of every recompose restyles itself once more (a third of a screen
        # switch's time), and twice at 120 columns and more (compact, then not).
        compact = "-compact" if self.compact else ""
        ordered = sorted(shown.values(), key=lambda v: (v[0], v[1]))
        width = self.size.width or self.app.size.width
        self._fitted_to = width
        room = width - (PALETTE_CELLS if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE else 0)
        cells = [(b.action in LAST, key_cells(self.app.get_key_display(b), b.description, self.compact))
                 for _r, _o, b, _e, _t in ordered]
        for i in fitting(cells, room):
            _rank, _order, binding, enabled, tooltip = ordered[i]
            key = FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip, classes=compact)
            key.set_reactive(FooterKey.compact, self.compact)  # its watcher on mount then changes nothing
            yield key.data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            try:
                _node, binding, enabled, tooltip = active[self.app.COMMAND_PALETTE_BINDING]
            except KeyError:
                return
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            classes="-command-palette", disabled=not enabled,
                            tooltip=binding.tooltip or binding.description)
