"""A small app around VirtualTable for snapshot tests (and a manual look:
python -m tests.tui.apps.table_app)."""
from __future__ import annotations

from textual.app import App, ComposeResult

from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable

TIERS = ("always", "often", "sometimes", "rarely")
TIER_STYLES = {"always": "green", "often": "cyan", "rarely": "red"}


def shard_rows(count: int) -> list[dict[str, object]]:
    rows = []
    for i in range(count):
        rows.append(
            {
                "topic": f"topic-{i:03d}" + ("-with-a-rather-long-descriptive-slug" if i % 7 == 3 else ""),
                "tier": TIERS[i % len(TIERS)],
                "strength": ((i * 37) % 101) / 100,
                "hits": (i * 7919) % 1000,
                "updated": f"2025-01-{1 + i % 28:02d}",
            }
        )
    return rows


COLUMNS = [
    Column("topic", "Topic", width=28),
    Column("tier", "Tier"),
    Column("strength", "Strength", align="right"),
    Column("hits", "Hits", align="right"),
    Column("updated", "Updated", sortable=False),
]


def tier_style(key: str, row) -> str | None:
    if key == "tier":
        return TIER_STYLES.get(str(row.get("tier")))
    return None


class TableApp(App):
    def __init__(self, count: int = 60) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, ListRowSource(shard_rows(self.count)), cell_style=tier_style, id="table")

    def on_mount(self) -> None:
        self.query_one(VirtualTable).focus()


class EmptyTableApp(App):
    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, ListRowSource([]), empty_message="No topics yet", id="table")


if __name__ == "__main__":
    TableApp(count=100_000).run()
