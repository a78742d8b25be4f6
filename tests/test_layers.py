"""The layers contract: core's packages form layers, and no module imports a higher one.

The order (lowest first) is `tests/support/layers.py`'s CORE_LAYERS; outside core, the app and the demo
use core, and the command line is the outermost shell. Imports inside functions count too, and
the whole import graph has no cycle.
"""
from __future__ import annotations

from tests.support import layers


def test_no_module_imports_a_higher_layer_and_there_is_no_cycle():
    problems = layers.violations(layers.graph())
    assert problems == [], "\n".join(problems)


def test_every_core_package_is_a_known_layer():
    packages = {p.name for p in (layers.REPO / "core").iterdir() if (p / "__init__.py").is_file()}
    singles = {p.stem for p in (layers.REPO / "core").glob("*.py") if p.stem != "__init__"}
    assert packages | singles == set(layers.CORE_LAYERS)


def test_the_contract_fails_when_a_lower_layer_imports_a_higher_one():
    sources = {
        "dreamdeck.core.formats.shards": "def f():\n    from dreamdeck.core.door.changeset import ChangeSet\n",
        "dreamdeck.core.door.changeset": "from dreamdeck.core.formats.shards import parse_shard\n",
    }
    problems = layers.violations(layers.graph(sources=sources))
    assert problems == [
        "dreamdeck.core.formats.shards:2 imports dreamdeck.core.door.changeset, a higher layer",
        "import cycle: dreamdeck.core.door.changeset -> dreamdeck.core.formats.shards -> dreamdeck.core.door.changeset",
    ]


def test_the_contract_sees_the_app_reaching_into_the_command_line():
    sources = {"dreamdeck.tui.screens.topics": "import dreamdeck.cli.read\n", "dreamdeck.cli.read": ""}
    assert layers.violations(layers.graph(sources=sources)) == [
        "dreamdeck.tui.screens.topics:1 imports dreamdeck.cli.read, a higher layer",
    ]


def test_the_walk_finds_every_module_of_the_package():
    names = set(layers.module_files())
    assert {"dreamdeck.core.door.changeset", "dreamdeck.tui.app", "dreamdeck.cli.main", "dreamdeck"} <= names
    assert all(name == "dreamdeck" or name.startswith("dreamdeck.") for name in names)
