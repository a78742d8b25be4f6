"""Forgotten screen (8): tombstones with reason, actor and date, archived topics, and unforget
after a confirm; reachable by its key and from the palette. Files and git are the truth."""
from __future__ import annotations

import json
from pathlib import Path

from dreamdeck.core.ops.forget import forget_fragment, forget_topic
from dreamdeck.core.workspace import Workspace
from tests.support.git import git
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.waits import settle, wait_for

TODAY = "2026-05-22"
D1 = "2026-05-21"


def build(agent_dir: Path) -> Workspace:
    write_stream(agent_dir, D1, [
        fragment_line(D1, 1, "deploys", "Deploy freeze starts on the 28th."),
        fragment_line(D1, 2, "secrets", "Shared a token by mistake; it was rotated."),
        fragment_line(D1, 3, "coffee", "Drinks oat flat whites."),
    ])
    write_shard(agent_dir, "deploys", shard_text("Deploys freeze at quarter close", [f"streams/{D1}#{uuid_at(D1, 1)}"]))
    write_shard(agent_dir, "coffee", shard_text("Drinks oat flat whites", [f"streams/{D1}#{uuid_at(D1, 3)}"]))
    ws = Workspace.open(agent_dir, today=TODAY)
    forget_fragment(ws, D1, uuid_at(D1, 2), reason="a secret, not a memory", actor="human:dana")
    forget_topic(ws, "coffee", reason="not about work", actor="human:marco")
    return ws


def make_app(agent_dir: Path):
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.config import UserConfig

    return DreamdeckApp(Workspace.open(agent_dir, today=TODAY), watcher=False, user_config=UserConfig())


def pin_times(agent_dir: Path) -> None:
    """For a snapshot: the forgets happened at a fixed time (the verbs stamp the wall clock)."""
    import re

    for rel, pattern in (("memory/meta/tombstones.jsonl", r'"ts":\s*"[^"]+"'), ("memory/meta/audit.log", r"^\S+")):
        path = agent_dir / rel
        fixed = '"ts": "2026-05-22T09:30:00+02:00"' if rel.endswith("jsonl") else "2026-05-22T07:31:00Z"
        path.write_text(re.sub(pattern, fixed, path.read_text(), flags=re.M))


async def open_forgotten(pilot):
    app = pilot.app
    await pilot.press("8")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ForgottenScreen", what="the Forgotten screen")
    screen = app.screen
    await wait_for(pilot, lambda: screen.query_one("#fragments").row_count == 1, what="the tombstone")
    await settle(app, pilot)
    return screen


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def rows(screen, selector: str) -> list[dict]:
    table = screen.query_one(selector)
    return [dict(table.source.row(i)) for i in range(table.row_count)]


async def test_tombstones_and_archived_topics_show_who_when_and_why(agent_dir):
    build(agent_dir)
    stone = json.loads((agent_dir / "memory/meta/tombstones.jsonl").read_text().splitlines()[0])
    async with make_app(agent_dir).run_test(size=(120, 36)) as pilot:
        screen = await open_forgotten(pilot)
        (frag,) = rows(screen, "#fragments")
        assert (frag["date"], frag["topic"], frag["actor"], frag["reason"]) == (D1, "secrets", "human:dana",
                                                                              "a secret, not a memory")
        assert frag["when"] == stone["ts"][:16].replace("T", " ")
        assert "Shared a token by mistake" in text(screen, "#forgotten-text")
        assert f"streams/{D1}#{uuid_at(D1, 2)}" in text(screen, "#forgotten-title")
        (topic,) = rows(screen, "#archived")
        assert (topic["slug"], topic["actor"], topic["reason"], topic["cites"]) == ("coffee", "human:marco",
                                                                                   "not about work", 1)
        await pilot.press("tab")
        assert "memory/archive/coffee.md" in text(screen, "#forgotten-title")
        assert "Drinks oat flat whites" in text(screen, "#forgotten-text")


async def test_tab_goes_through_every_pane_and_the_keys_act_on_the_list_focused_last(agent_dir):
    build(agent_dir)
    async with make_app(agent_dir).run_test(size=(80, 24)) as pilot:
        screen = await open_forgotten(pilot)
        order = []
        for _ in range(3):
            order.append(screen.focused.id)
            await pilot.press("tab")
        assert order == ["fragments", "archived", "forgotten-detail"]
        assert screen.focused.id == "fragments"  # round again
        await pilot.press("shift+tab")
        assert screen.focused.id == "forgotten-detail"
        await pilot.press("shift+tab")
        assert screen.focused.id == "archived" and screen.query_one("#archived").has_class("-last")
        await pilot.press("tab")  # the detail pane: it still shows, and the keys act on, the archived topic
        assert screen.focused.id == "forgotten-detail"
        assert "memory/archive/coffee.md" in text(screen, "#forgotten-title")
        await pilot.press("u")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmModal", what="the confirm")
        assert "memory/topics/coffee.md" in str(pilot.app.screen.query_one("#confirm-body").render())
        await pilot.press("n")
        await settle(pilot.app, pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "TextModal", what="the whole text")
        assert "Drinks oat flat whites" in " ".join(str(s.render()) for s in pilot.app.screen.query("Static"))
        await pilot.press("escape")
        await settle(pilot.app, pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "HelpModal", what="help")
        helptext = " ".join(str(s.render()) for s in pilot.app.screen.query("Static, Markdown"))
        assert "focused last" in helptext or "focused last" in screen.HELP


async def test_u_unforgets_a_fragment_after_a_confirm_and_it_is_back_in_the_stream(agent_dir):
    build(agent_dir)
    fid = uuid_at(D1, 2)
    async with make_app(agent_dir).run_test(size=(120, 36)) as pilot:
        screen = await open_forgotten(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmModal", what="the confirm")
        body = str(pilot.app.screen.query_one("#confirm-body").render())
        assert "undreamed tail" in body and "a secret, not a memory" in body
        await pilot.press("n")  # cancel: nothing changes
        await settle(pilot.app, pilot)
        assert '"op":"unforget"' not in (agent_dir / "memory/meta/tombstones.jsonl").read_text().replace(" ", "")
        await pilot.press("u")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmModal", what="the confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.query_one("#fragments").row_count == 0, what="the row to go")
        records = [json.loads(line) for line in (agent_dir / "memory/meta/tombstones.jsonl").read_text().splitlines()]
        assert records[-1]["op"] == "unforget" and records[-1]["id"] == fid and records[-1]["actor"] == "human:tester"
        assert git(agent_dir, "log", "-1", "--format=%s").strip() == f"memory: unforget streams/{D1}#{fid}"
        await pilot.press("6")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "StreamScreen"
                       and pilot.app.screen.view is not None, what="the stream")
        stream = pilot.app.screen
        await wait_for(pilot, lambda: any(stream.table.source.row(i)["id"] == fid for i in range(stream.table.row_count)),
                       what="the fragment back in the stream")


async def test_u_moves_an_archived_topic_back_to_topics(agent_dir):
    build(agent_dir)
    archived = (agent_dir / "memory/archive/coffee.md").read_bytes()
    async with make_app(agent_dir).run_test(size=(120, 36)) as pilot:
        screen = await open_forgotten(pilot)
        await pilot.press("tab", "u")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmModal", what="the confirm")
        assert "memory/topics/coffee.md" in str(pilot.app.screen.query_one("#confirm-body").render())
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.query_one("#archived").row_count == 0, what="the row to go")
        assert (agent_dir / "memory/topics/coffee.md").read_bytes() == archived
        assert not (agent_dir / "memory/archive/coffee.md").exists()
        assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: unforget coffee"


async def test_a_hard_forgotten_fragment_is_listed_but_cannot_come_back(agent_dir):
    ws = build(agent_dir)
    forget_fragment(ws, D1, uuid_at(D1, 1), reason="wrong", actor="human:dana", hard=True)
    head = git(agent_dir, "rev-parse", "HEAD")
    async with make_app(agent_dir).run_test(size=(120, 36)) as pilot:
        await pilot.press("8")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ForgottenScreen", what="the screen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.query_one("#fragments").row_count == 2, what="both tombstones")
        first = rows(screen, "#fragments")[0]
        assert first["hard"] and first["reason"] == "hard · wrong"
        assert "its bytes are gone" in text(screen, "#forgotten-text")
        await pilot.press("u")
        await settle(pilot.app, pilot)
        assert type(pilot.app.screen).__name__ == "ForgottenScreen"  # no confirm for what cannot be done
    assert git(agent_dir, "rev-parse", "HEAD") == head


async def test_the_palette_and_the_forget_dialogs_lead_to_the_forgotten_screen(agent_dir):
    build(agent_dir)
    async with make_app(agent_dir).run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"forgotten")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ForgottenScreen", what="the screen")
        await pilot.press("1")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "TopicsScreen", what="topics")
        await settle(pilot.app, pilot)
        await pilot.press("f")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReasonModal", what="the forget dialog")
        detail = " ".join(str(s.render()) for s in pilot.app.screen.query("Static"))
        assert "Forgotten screen (8)" in detail


def test_snapshot_forgotten_120x36(snap_compare, agent_dir, utc):
    build(agent_dir)
    pin_times(agent_dir)

    async def run_before(pilot):
        await open_forgotten(pilot)

    assert snap_compare(make_app(agent_dir), terminal_size=(120, 36), run_before=run_before)


def test_snapshot_forgotten_80x24(snap_compare, agent_dir, utc):
    build(agent_dir)
    pin_times(agent_dir)

    async def run_before(pilot):
        await open_forgotten(pilot)

    assert snap_compare(make_app(agent_dir), terminal_size=(80, 24), run_before=run_before)
