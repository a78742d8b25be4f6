"""`import dreamdeck.core` and every core module never load textual or rich (DESIGN: core has no terminal).

Runs in a fresh interpreter: this test process has textual loaded already by the TUI tests.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import REPO

PROBE = r"""
import importlib, json, pkgutil, sys

UI = ("textual", "rich")

def ui_loaded():
    return sorted({name.split(".")[0] for name in sys.modules if name.split(".")[0] in UI})

import dreamdeck.core
report = {"after import core": ui_loaded(), "culprits": {}, "modules": [], "errors": {}}
for info in pkgutil.walk_packages(dreamdeck.core.__path__, "dreamdeck.core."):
    before = set(ui_loaded())
    try:
        importlib.import_module(info.name)
    except Exception as exc:  # a broken module is its own failure, reported below
        report["errors"][info.name] = f"{type(exc).__name__}: {exc}"
        continue
    report["modules"].append(info.name)
    new = sorted(set(ui_loaded()) - before)
    if new:
        report["culprits"][info.name] = new
report["at the end"] = ui_loaded()
import textual  # the probe must be able to see a UI import, or it proves nothing
report["after importing textual"] = ui_loaded()
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def report() -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, check=True, timeout=120,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_core_and_every_core_module_never_loads_textual_or_rich(report):
    assert report["after import core"] == []
    assert report["culprits"] == {}, f"these core modules pulled in a UI library: {report['culprits']}"
    assert report["at the end"] == []
    assert report["errors"] == {}, f"core modules that do not import: {report['errors']}"


def test_the_probe_walks_every_core_module_file(report):
    names = {
        "dreamdeck." + ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for p in (REPO / "core").rglob("*.py")
        if p.name != "__init__.py" or p.parent != REPO / "core"
    }
    assert names <= set(report["modules"]) | set(report["errors"])


def test_the_probe_would_notice_a_ui_import(report):
    assert "textual" in report["after importing textual"]
