"""docs/ARCHITECTURE.md stays true: every package is listed, and every test it names exists."""
from __future__ import annotations

import ast
import re

from tests.support import REPO

DOC = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")


def packages() -> set[str]:
    found = {"dreamdeck"}
    for top, name in (("core", "dreamdeck.core"), ("tui", "dreamdeck.tui")):
        for init in (REPO / top).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / top).parts
            found.add(".".join([name, *rel]))
    for init in (REPO / "dreamdeck").glob("*/__init__.py"):
        if init.parent.name not in ("core", "tui"):
            found.add(f"dreamdeck.{init.parent.name}")
    return found


def test_every_package_of_the_tree_is_listed_and_nothing_else():
    listed = set(re.findall(r"^\| `(dreamdeck[\w.]*)` \|", DOC, re.M))
    assert listed == packages()


def test_every_test_the_invariants_table_names_exists():
    table = DOC.split("<!-- invariant-tests")[1]
    named = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", table)
    assert named, "the invariants table names no tests"
    for path, test in named:
        file = REPO / path
        assert file.is_file(), path
        if test:
            names = {n.name for n in ast.walk(ast.parse(file.read_text())) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            assert test in names, f"{path}::{test}"


def test_every_invariant_from_one_to_twelve_has_a_row():
    rows = re.findall(r"^\| (\d+) \|", DOC.split("<!-- invariant-tests")[1], re.M)
    assert rows == [str(n) for n in range(1, 13)]
