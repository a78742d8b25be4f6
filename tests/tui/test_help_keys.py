"""`?` names each direction's keys on the side of the "/" its word is on, and the help and text
modals scroll with the keys every other pane of the app scrolls with (j, k, g, G)."""
from __future__ import annotations

from textual.containers import VerticalScroll

from dreamdeck.tui.modals import HelpModal, TextModal
from tests.support.tui import make_app
from tests.support.waits import settle
from tests.tui.apps import topics_app


async def test_each_movement_row_lists_its_keys_in_the_order_of_its_words(ws):
    topics_app.build_topics(ws.root)
    app = make_app(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        rows = dict(app.screen.keys)
        assert rows["↑ k / ↓ j"] == "Up / down"
        assert rows["pgup / pgdn"] == "Page up / down"
        assert rows["^d / ^u"] == "Half a page down / up"
        assert rows["home g / end G"] == "First / last"
        assert rows["← h / → l"] == "Column left / right"
        assert rows["tab / shift+tab"] == "Next / previous pane"


async def _scrolls_with_vim_keys(pilot, box: VerticalScroll) -> None:
    assert box.max_scroll_y > 2, "the text must not fit, or nothing scrolls"
    await pilot.press("j", "j")
    await pilot.pause()
    assert box.scroll_y == 2
    await pilot.press("k")
    await pilot.pause()
    assert box.scroll_y == 1
    await pilot.press("G")
    await pilot.pause()
    assert box.scroll_y == box.max_scroll_y
    await pilot.press("g")
    await pilot.pause()
    assert box.scroll_y == 0


async def test_help_scrolls_with_j_k_g_and_G_when_it_does_not_fit(ws):
    topics_app.build_topics(ws.root)
    app = make_app(ws)
    async with app.run_test(size=(80, 14)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        await _scrolls_with_vim_keys(pilot, app.screen.query_one(VerticalScroll))
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpModal)


async def test_a_text_modal_scrolls_with_j_k_g_and_G(ws):
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.push_screen(TextModal("Receipt d-1", "\n".join(f"line {n}" for n in range(60))))
        await pilot.pause()
        await _scrolls_with_vim_keys(pilot, app.screen.query_one(VerticalScroll))


def _bindings_by_verb() -> dict[str, set[tuple[str, str]]]:
    """verb (what the footer and help call it) -> {(key, screen)}, over every screen's own
    bindings and those of its ancestors."""
    from importlib import import_module

    from dreamdeck.tui.app import SCREENS

    verbs: dict[str, set[tuple[str, str]]] = {}
    for mode, spec in SCREENS.items():
        module, name = spec.split(":")
        for klass in getattr(import_module(module), name).__mro__:
            for b in klass.__dict__.get("BINDINGS", []):
                verbs.setdefault(b.description, set()).add((b.key, mode))
    return verbs


def test_one_verb_has_one_key_on_every_screen():
    """Forget was `f` on Topics and `x` on Stream, edit `e` on Topics and `E` on Reflections: a
    verb learnt on one screen must do the same thing on the next."""
    for verb, where in _bindings_by_verb().items():
        assert len({key for key, _ in where}) == 1, f"{verb} has several keys: {sorted(where)}"


def test_no_key_means_forget_on_one_screen_and_something_else_on_another():
    """`f` forgot a topic on Topics and followed the tail on Stream."""
    forget = {key for key, _ in _bindings_by_verb()["Forget"]}
    clashes = {verb: where for verb, where in _bindings_by_verb().items()
               if verb != "Forget" and {key for key, _ in where} & forget}
    assert not clashes
