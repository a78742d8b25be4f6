"""Benchmark: how well the offline dreamer keeps, groups, supersedes and words real-looking notes.

For each agent of `corpus.py`, three weeks of daily notes are logged into a fresh git agent
folder (one fragment per bullet, paragraph line or table row) and dreamed one simulated week at
a time with the real `run_dream(ws, dreamer_name="offline", review=...)`:
- under `none`, and the shards on disk are then measured against the truth labels
  (`measure.py`: cited observations, contradiction precision and recall, updates that became
  the belief, ladder, folded duplicates, shards per 100 observations);
- under `judgement` in a second folder, a person approving each week's reflection whole before
  the next dream: hunks and flagged contradictions per reflection.
Dreamer time per week is the run's own `dreamer_ms`.

Targets: cited >= 98%, contradiction precision >= 90% and recall >= 80%, updates that became the
belief >= 90%, ladder 100%, dreamer time per week <= 1 s.
Run: `.venv/bin/python bench/quality/bench_quality.py [--json OUT] [--keep DIR]`.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from corpus import AGENTS, DAYS, day_of  # noqa: E402
from logger import LoggedFragment, log_note, write_day  # noqa: E402
from measure import Measure, read_shards  # noqa: E402

from dreamdeck.core.dreaming.run import run_dream  # noqa: E402
from dreamdeck.core.workspace import Workspace  # noqa: E402

WEEK = 7
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "core.hooksPath=/dev/null"]


def _agent_folder(root: Path) -> None:
    root.mkdir(parents=True)
    (root / ".gitignore").write_text("# system-managed roots\nmemory/\n")
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", ".gitignore"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "agent"], cwd=root, check=True)


def _dream_weeks(root: Path, days: list[list[LoggedFragment]], review: str, source: str) -> list[dict]:
    from dreamdeck.core.ops.reflections import approve
    from dreamdeck.core.store.reflections import load_reflection

    weeks = []
    for start in range(0, DAYS, WEEK):
        for d in range(start, min(DAYS, start + WEEK)):
            write_day(root, days[d], source)
        today = day_of(min(DAYS, start + WEEK) - 1)
        ws = Workspace.open(root, today=today)
        receipt = run_dream(ws, dreamer_name="offline", review=review)
        week = {"fragments": receipt.fragments_seen, "dreamer_ms": receipt.dreamer_ms, "status": receipt.status}
        if receipt.reflection:
            reflection = load_reflection(ws, receipt.reflection)
            week["hunks"] = sum(len(diff.hunks) for _f, diff in reflection.hunks())
            week["contradictions"] = len(reflection.contradictions)
            approve(ws, receipt.reflection, actor="human:bench")
        weeks.append(week)
    return weeks


def run_agent(name: str, base: Path) -> dict:
    notes = AGENTS[name]()
    days = [log_note(note, f"session-{name}") for note in notes]
    fragments = [f for day in days for f in day]
    auto = base / f"{name}-none"
    _agent_folder(auto)
    weeks = _dream_weeks(auto, days, "none", f"session-{name}")
    judged = base / f"{name}-judgement"
    _agent_folder(judged)
    judgement = _dream_weeks(judged, days, "judgement", f"session-{name}")
    measure = Measure(fragments, read_shards(auto))
    scenarios = sorted({f.truth.scenario for f in fragments})
    return {
        "overall": measure.report(None),
        "scenarios": {s: measure.report(s) for s in scenarios},
        "weeks": weeks,
        "judgement": judgement,
        "shards": [(s.slug, s.heading) for s in read_shards(auto)],
        "problems": measure.problems(),
    }


COLUMNS = [
    ("cited_pct", "cited %"), ("lost", "lost"), ("folded", "folded"),
    ("contradiction_precision_pct", "contr. prec %"), ("contradiction_recall_pct", "contr. recall %"),
    ("updates_became_belief_pct", "updates→belief %"), ("ladder_pct", "ladder %"),
    ("shards_per_100_obs", "shards/100 obs"), ("mixed_claim_shards", "mixed shards"),
    ("unreadable_slugs", "unreadable slugs"),
]


def _cell(value) -> str:
    return "—" if value is None else str(value)


def render(results: dict) -> str:
    lines = ["| agent / scenario | frags | " + " | ".join(label for _, label in COLUMNS) + " |",
             "|---|---:|" + "---:|" * len(COLUMNS)]
    for agent, result in results.items():
        rows = [(f"**{agent}**", result["overall"])] + [(f"{agent} / {s}", r) for s, r in result["scenarios"].items()]
        for label, row in rows:
            lines.append(f"| {label} | {row['fragments']} | " + " | ".join(_cell(row[k]) for k, _ in COLUMNS) + " |")
    lines.append("")
    lines.append("| agent | week | fragments | dreamer ms | judgement: hunks | judgement: contradictions |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for agent, result in results.items():
        for i, (week, judged) in enumerate(zip(result["weeks"], result["judgement"]), 1):
            lines.append(f"| {agent} | {i} | {week['fragments']} | {week['dreamer_ms']} | "
                         f"{judged.get('hunks', 0)} | {judged.get('contradictions', 0)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, help="write the full results here")
    parser.add_argument("--keep", type=Path, help="build the agent folders here and keep them")
    parser.add_argument("--shards", action="store_true", help="list every shard's heading")
    parser.add_argument("--problems", action="store_true", help="list mixed, mis-worded and falsely superseded shards")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="dreamdeck-quality-"))
    if args.keep and base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True, exist_ok=True)
    try:
        results = {name: run_agent(name, base) for name in AGENTS}
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(render(results))
    if args.shards:
        for agent, result in results.items():
            print(f"\n## {agent}")
            for slug, heading in result["shards"]:
                print(f"- {slug}: {heading}")
    if args.problems:
        for agent, result in results.items():
            print(f"\n## {agent}: problems")
            for line in result["problems"]:
                print(f"- {line}")
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n")


if __name__ == "__main__":
    main()
