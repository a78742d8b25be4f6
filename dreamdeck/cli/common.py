"""Shared pieces of the command line: workspace opening, output, and one-line errors."""
from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.terminal_text import terminal_json, terminal_line, terminal_text
from dreamdeck.core.workspace import Workspace


class CliError(BadInput):
    """Bad input to a command (or a refusal it makes itself): one line on stderr, `status`."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message, status=status)


def open_ws(args) -> Workspace:
    return Workspace.open(args.workspace, today=getattr(args, "today", None))


def emit_json(data: Any) -> None:
    # Indented for people; a long list is written compact (the indenting encoder is pure Python).
    indent = None if isinstance(data, list) and len(data) > 500 else 2
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    # A lone surrogate (TypeClaw's 80-unit previews can cut a pair) is written as its `\udXXX`
    # escape, as JSON.stringify does; UTF-8 cannot carry it raw. So are the characters a terminal
    # would act on (C1 controls, bidi overrides): the same JSON once parsed.
    sys.stdout.write(terminal_json(text))
    sys.stdout.write("\n")


def table(rows: Sequence[Sequence[object]], headers: Sequence[str], align: str = "") -> str:
    """A plain aligned text table (pipes and scripts read it; people can too). A cell is one line:
    a slug or heading holding a newline is shown escaped, never as a forged row."""
    cells = [[str(h) for h in headers]] + [["" if c is None else terminal_line(str(c)) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for n, r in enumerate(cells):
        parts = []
        for i, c in enumerate(r):
            right = i < len(align) and align[i] == "r"
            parts.append(c.rjust(widths[i]) if right else c.ljust(widths[i]))
        out.append("  ".join(parts).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def say(*lines: str) -> None:
    """Lines to stdout, terminal-safe: a reason, a note or a fragment's text is shown, never obeyed."""
    for line in lines:
        print(terminal_text(line))


def warn(line: str) -> None:
    """One line to stderr (a warning, a refusal), terminal-safe: it may name a hostile file, whose
    newline is shown escaped too (one warning is one line)."""
    print(terminal_line(line), file=sys.stderr)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def truncate(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def keys_text(keys: Iterable[tuple[str, str]]) -> list[str]:
    return [f"streams/{d}#{i}" for d, i in keys]


def warn_linked(rel: str, why: str) -> None:
    """One warning for a shard file a read view left out for a link (`rel`: its path under memory/)."""
    warn(f"dreamdeck: warning: skipped memory/{rel} ({why}): a linked shard is never read; replace it with a "
         "copy of its own (cp, then mv over it)")
