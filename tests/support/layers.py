"""The layers contract, as data and a checker (tests/test_layers.py runs it on the real tree).

Every module of the package is given a rank; an import (at module level or inside a function)
may only point to the same rank or a lower one, and the import graph has no cycle at all.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from tests.support import REPO

# Lowest first. `core.errors` and `core.workspace` are single modules with a rank of their own.
CORE_LAYERS = ("errors", "io", "formats", "claims", "workspace", "git", "store", "index", "door", "ops", "dreaming")
# Outside core: the demo builder and the Python API use core only; the app uses core; the
# command line may open the app (it is the outermost shell).
OUTER = {"dreamdeck.demo": 20, "dreamdeck.api": 20, "dreamdeck.tui": 21, "dreamdeck.cli": 22, "dreamdeck": 23}


def rank(module: str) -> int | None:
    """The rank of a dreamdeck module, or None for anything outside the package."""
    parts = module.split(".")
    if parts[:2] == ["dreamdeck", "core"]:
        if len(parts) == 2:
            return 100  # the package's own __init__: a docstring, nothing to import
        return CORE_LAYERS.index(parts[2]) if parts[2] in CORE_LAYERS else -1
    for prefix in sorted(OUTER, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return OUTER[prefix]
    return None


def module_files() -> dict[str, Path]:
    """dreamdeck module name -> its file, for every module of the package."""
    out: dict[str, Path] = {}
    roots = {"dreamdeck.core": REPO / "core", "dreamdeck.tui": REPO / "tui"}
    for name, folder in roots.items():
        for p in folder.rglob("*.py"):
            out[_name(name, p.relative_to(folder))] = p
    for p in (REPO / "dreamdeck").rglob("*.py"):
        rel = p.relative_to(REPO / "dreamdeck")
        if rel.parts[0] not in ("core", "tui"):
            out[_name("dreamdeck", rel)] = p
    return out


def _name(prefix: str, rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([prefix, *parts])


def imports_of(module: str, source: str, known: Iterable[str], is_pkg: bool = False) -> set[tuple[str, int]]:
    """(imported dreamdeck module, line) for every import in `source`, wherever it stands."""
    known = set(known)
    out: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_pkg else module.split(".")[:-1]
                base = ".".join(pkg[: len(pkg) - node.level + 1] + ([node.module] if node.module else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            # the module itself, or the longest known module it is inside of
            target = name
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                out.add((target, node.lineno))
    return out


def graph(files: dict[str, Path] | None = None, sources: dict[str, str] | None = None) -> dict[str, set[tuple[str, int]]]:
    files = module_files() if files is None and sources is None else files or {}
    packages = {m for m, p in files.items() if p.name == "__init__.py"}
    sources = sources or {m: p.read_text(encoding="utf-8") for m, p in files.items()}
    return {m: imports_of(m, src, sources, m in packages) for m, src in sources.items()}


def violations(edges: dict[str, set[tuple[str, int]]]) -> list[str]:
    """Every import from a lower rank to a higher one, and every cycle, as readable lines."""
    out = []
    for module, targets in sorted(edges.items()):
        r = rank(module)
        for target, line in sorted(targets):
            t = rank(target)
            if r is None or t is None:
                continue
            if r == -1 or t == -1:
                out.append(f"{module}:{line} -> {target}: a core module outside every layer")
            elif t > r:
                out.append(f"{module}:{line} imports {target}, a higher layer")
    out += [f"import cycle: {' -> '.join(c)}" for c in cycles(edges)]
    return out


def cycles(edges: dict[str, set[tuple[str, int]]]) -> list[list[str]]:
    """One cycle per strongly connected component that has one (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    adj = {m: sorted({t for t, _ in ts if t in edges}) for m, ts in edges.items()}

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp) + [sorted(comp)[0]])

    for v in sorted(adj):
        if v not in index:
            visit(v)
    return found
