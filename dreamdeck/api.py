"""The Python API an agent runtime calls in-process: `Memory(workspace)`, `recall`, `inject`.

    from dreamdeck import Memory

    memory = Memory("/path/to/agent")            # the agent folder (memory/ inside)
    memory.remember("User prefers pnpm", topic="package manager")
    for block in memory.recall("which package manager?", budget="lean"):
        print(block.kind, block.key, block.heading, block.excerpt, block.score, block.why)
    text = memory.inject("which package manager?")   # TypeClaw's `# Memory` block for this turn

One call in, a bounded list of blocks (or one block of text) out. A `Memory` keeps its search
index open between calls (a warm recall is a query, not a rebuild), follows memory/ with a change
feed so a warm recall need not stat every file when nothing changed (`watch=False` to do without;
`close()` or `with Memory(...)` stops it), and is one injection session:
an excerpt already injected unchanged is named instead of repeated, as TypeClaw does within a
session (`new_session()` starts another). Every recall and injection is recorded in the access
record (`record=False` for a preview): the line is written before the call returns and fsynced
on a thread of the `Memory`'s own soon after (`io.append.Flusher`; `close()` waits for it). Errors a caller can fix are `dreamdeck.core.errors`
kinds (`BadInput`, `NotFound`); `str(error)` is one line for a person.
"""
from __future__ import annotations

import weakref
from os import PathLike
from typing import Any

from dreamdeck.core.index.search import open_index
from dreamdeck.core.index.search_feed import ChangeFeed
from dreamdeck.core.io.append import Flusher
from dreamdeck.core.ops.inject import DEFAULT_BUDGET, Injection, InjectSession
from dreamdeck.core.ops.inject import inject as _inject
from dreamdeck.core.ops.recall import RecallBlock
from dreamdeck.core.ops.recall import recall as _recall
from dreamdeck.core.store.access import AccessRecord, read_access
from dreamdeck.core.workspace import Workspace

__all__ = ["Memory", "recall", "inject"]


class Memory:
    """One agent folder's memory, for a runtime that asks it questions turn after turn."""

    def __init__(self, workspace: str | PathLike[str] | Workspace = ".", today: str | None = None,
                 watch: bool = True):
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace.open(workspace, today=today)
        self.session = InjectSession()
        self._flusher = Flusher()
        self._stop_flusher = weakref.finalize(self, self._flusher.close)  # at exit too: every line synced
        self._stop_feed: weakref.finalize | None = None
        self._feed: ChangeFeed | None = None
        if watch:  # a change feed lets a warm recall or injection skip proving every file unchanged
            self._feed = feed = ChangeFeed(self.workspace).start()
            open_index(self.workspace).feed = feed
            self._stop_feed = weakref.finalize(self, _stop_feed, self.workspace, feed)

    def close(self) -> None:
        """Stop following memory/ (recall then proves the index fresh file by file again) and
        wait until every access line recorded so far is synced (later ones are synced at once)."""
        self._stop_flusher()
        if self._stop_feed is not None:
            self._stop_feed()
        self._feed = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def recall(self, query: str, budget: str = "balanced", limit: int | None = None, include_dormant: bool = False,
               max_bytes: int | None = None, record: bool = True) -> list[RecallBlock]:
        """What to remember for `query`: ranked, decay-aware blocks within the budget
        (lean 2–3, balanced 5–7, deep 10–15, auto; `max_bytes` caps their size)."""
        return _recall(self.workspace, query, budget, limit, include_dormant, max_bytes, record, flusher=self._flusher)

    def inject(self, query: str = "", origin: Any = "main", budget: int = DEFAULT_BUDGET, record: bool = True) -> str:
        """The `# Memory` block TypeClaw v0.45.1 puts into a turn whose user text is `query`
        ("" when nothing is injected). `origin`: "main", "channel", or a SessionOrigin dict."""
        return self.injection(query, origin, budget, record).text

    def injection(self, query: str = "", origin: Any = "main", budget: int = DEFAULT_BUDGET,
                  record: bool = True) -> Injection:
        """`inject` with its plan: mode, bytes, shards, results, TypeClaw's log line."""
        return _inject(self.workspace, query, origin=origin, budget=budget, session=self.session, record=record,
                       feed=self._feed, flusher=self._flusher)

    def new_session(self) -> None:
        """Forget what was injected: the next turn shows every excerpt again."""
        self.session = InjectSession()

    def remember(self, text: str, topic: str, source: str = "dreamdeck:api", who: str | None = None) -> str:
        """Append a fragment to today's stream; its citation (`streams/DATE#ID`)."""
        from dreamdeck.core.store.streams import append_fragment

        return append_fragment(self.workspace, topic, text, source=source, who=who, day=self.workspace.today_override).citation

    def access(self, limit: int | None = None) -> list[AccessRecord]:
        """What the agent was shown, newest first."""
        return read_access(self.workspace, limit)


def _stop_feed(ws: Workspace, feed: ChangeFeed) -> None:
    index = open_index(ws)
    if index.feed is feed:
        index.feed = None
    feed.close()


def recall(workspace: str | PathLike[str] | Workspace, query: str, **options: Any) -> list[RecallBlock]:
    """`Memory(workspace).recall(query, **options)` in one call."""
    with Memory(workspace, watch=False) as memory:
        return memory.recall(query, **options)


def inject(workspace: str | PathLike[str] | Workspace, query: str = "", **options: Any) -> str:
    """`Memory(workspace).inject(query, **options)` in one call (a session of one turn)."""
    with Memory(workspace, watch=False) as memory:
        return memory.inject(query, **options)
