"""Benchmark: a busy week of real-looking notes (forty bullets a day), English and Chinese.

`busy_notes.py` writes seven daily notes per agent with timestamps in bullets, links, code
spans, emoji, a jobs table whose last-run times change daily, TODO and checkbox lines, quoted
chat and paragraph lines of two sentences. They are logged as TypeClaw fragments (`logger.py`)
and dreamed once at the week's end (`--daily`: after each day, as the watcher does) by the real
`run_dream(ws, dreamer_name="offline")`. Nothing
in the week changes a setting, so the checks are: no statement lost (cited, or folded as a
same-day duplicate), no superseded fragment (each would be a false contradiction), no flagged
contradiction, and readable slugs (not `untitled-<hash>`, not all digits, no link debris).
Run: `.venv/bin/python bench/quality/bench_busy_week.py [--problems] [--shards]`.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from bench_quality import _agent_folder  # noqa: E402
from busy_notes import AGENTS, DAYS  # noqa: E402
from corpus import day_of  # noqa: E402
from logger import log_note, write_day  # noqa: E402
from measure import Measure, read_shards  # noqa: E402

from dreamdeck.core.dreaming.run import run_dream  # noqa: E402
from dreamdeck.core.workspace import Workspace  # noqa: E402

_UNREADABLE = re.compile(r"^(untitled-[0-9a-f]{6}(-\d+)?|[0-9]+(-[0-9]+)*|[0-9a-f]{6})$|(^|-)(https?|www|com)(-|$)")


def run_agent(name: str, base: Path, daily: bool) -> dict:
    days = [log_note(note, f"session-{name}") for note in AGENTS[name]()]
    root = base / name
    _agent_folder(root)
    flagged = dreamer_ms = 0
    for d, day in enumerate(days):
        write_day(root, day, f"session-{name}")
        if daily or d == DAYS - 1:
            receipt = run_dream(Workspace.open(root, today=day_of(d)), dreamer_name="offline", review="none")
            flagged += len(receipt.contradictions or [])
            dreamer_ms += receipt.dreamer_ms or 0
    shards = read_shards(root)
    fragments = [f for day in days for f in day]
    measure = Measure(fragments, shards)
    row = measure.report(None)
    unreadable = [s.slug for s in shards if _UNREADABLE.search(s.slug)]
    superseded = sorted(f"{s.slug}: {k[0]}#{k[1]}" for s in shards for k in s.superseded)
    return {
        "row": row | {"flagged": flagged, "unreadable": len(unreadable),
                      "dreamer_ms": dreamer_ms, "fragments_logged": len(fragments)},
        "problems": [*measure.problems(), *(f"unreadable slug {u}" for u in unreadable),
                     *(f"superseded {x}" for x in superseded), *_lost(measure, fragments)],
        "shards": [(s.slug, s.heading) for s in shards],
    }


def _lost(measure: Measure, fragments) -> list[str]:
    cited = measure.active | measure.good_superseded | measure.bad_superseded
    out = []
    for f in fragments:
        for t in f.statements:
            unit = measure.units[(t.claim, t.version, f.day)]
            if not any((k, t.claim) in cited for k in unit):
                out.append(f"lost {f.day} [{f.topic}] {f.body!r} ({t.claim})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problems", action="store_true")
    parser.add_argument("--shards", action="store_true")
    parser.add_argument("--daily", action="store_true", help="dream after each day (as the watcher does), not once")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="dreamdeck-busy-"))
    try:
        results = {name: run_agent(name, base, args.daily) for name in AGENTS}
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("| agent | fragments | statements | cited % | lost | folded | superseded (false) | flagged contradictions "
          "| shards | unreadable slugs | dreamer ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        row = r["row"]
        print(f"| {name} | {row['fragments_logged']} | {row['fragments']} | {row['cited_pct']} | {row['lost']} | "
              f"{row['folded']} | {row['superseded']} | {row['flagged']} | {row['shards']} | {row['unreadable']} | "
              f"{row['dreamer_ms']} |")
    for name, r in results.items():
        if args.problems:
            print(f"\n## {name}: problems")
            print("\n".join(f"- {line}" for line in r["problems"]))
        if args.shards:
            print(f"\n## {name}: shards")
            print("\n".join(f"- {slug}: {heading}" for slug, heading in r["shards"]))


if __name__ == "__main__":
    main()
