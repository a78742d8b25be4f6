"""The tab bar on top of every screen: `dreamdeck · agent │ 1 Topics 2 Reflections (2) …`."""
from __future__ import annotations

from textual.widgets import Static

# (mode, key, label) of the screens, in tab order
TABS = [
    ("topics", "1", "Topics"), ("reflections", "2", "Reflections"), ("proposals", "3", "Proposals"),
    ("vault", "4", "Vault"), ("history", "5", "History"), ("stream", "6", "Stream"), ("control", "7", "Dream"),
    ("forgotten", "8", "Forgotten"), ("recall", "9", "Recall"),
]


class TabBar(Static):
    """`dreamdeck · agent │ 1 Topics 2 Reflections (2) …` with counts that need attention."""

    DEFAULT_CSS = """
    TabBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    def __init__(self, current: str):
        super().__init__("", markup=True)
        self.current = current

    def on_mount(self) -> None:
        self.refresh_bar()

    def refresh_bar(self) -> None:
        app = self.app
        counts = getattr(app, "counts", {}) or {}
        parts = [f"[b]dreamdeck[/b] · {getattr(app, 'workspace_name', '')} │"]
        for mode, key, label in TABS:
            badge = ""
            n = counts.get(mode, 0)
            if n:
                badge = f" [reverse $warning] {n} [/]"
            text = f" {key} {label}{badge} "
            parts.append(f"[reverse]{text}[/reverse]" if mode == self.current else text)
        status = counts.get("status", "")
        if status:
            parts.append(f"│ {status}")
        self.update(" ".join(parts))
