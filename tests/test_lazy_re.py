"""Regular expressions in `core.formats` are compiled on first use, never on import (a fresh
`dreamdeck recall` paid 30-75 ms for expressions it never used), and a lazy pattern answers as
the compiled one does."""
from __future__ import annotations

import json
import re
import subprocess
import sys

from dreamdeck.core.formats.lazy_re import lazy_re
from tests.support import REPO

PROGRAM = """
import json, pkgutil, re, sys
compiled = []
real = re.compile
def counting(pattern, flags=0):
    frame = sys._getframe(1)
    compiled.append(frame.f_globals.get("__name__"))
    return real(pattern, flags)
re.compile = counting
import dreamdeck.core.formats as formats
for info in pkgutil.iter_modules(formats.__path__):
    __import__(f"dreamdeck.core.formats.{info.name}")
import dreamdeck.cli.agent, dreamdeck.cli.main, dreamdeck.core.ops.inject, dreamdeck.core.ops.recall  # the recall path
print(json.dumps([name for name in compiled if name and name.startswith("dreamdeck")]))
"""


def test_importing_every_formats_module_and_the_recall_path_compiles_no_regular_expression():
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, cwd=REPO, timeout=120,
                          check=True)
    assert json.loads(proc.stdout) == []


def test_a_lazy_pattern_answers_as_the_compiled_one():
    text = "Tea at 10:30, coffee at 11:45"
    lazy, real = lazy_re(r"(\w+) at (\d+):(\d+)", re.A), re.compile(r"(\w+) at (\d+):(\d+)", re.A)
    assert lazy.pattern == real.pattern
    assert lazy.findall(text) == real.findall(text)
    assert lazy.sub(r"\1", text) == real.sub(r"\1", text)
    assert lazy.search(text, 5).span() == real.search(text, 5).span()  # type: ignore[union-attr]
    assert lazy.flags == real.flags and lazy.groups == 3
    assert lazy_re(rb"\d+").findall(b"a1b22") == [b"1", b"22"]
