"""TypeClaw's own dreaming handler, as far as it touches evidence, written from the spec
(/work/research/typeclaw-spec.md §7, `createDreamingSubagent().handler`, `compactDailyStreams`,
`loadCitedIds`), independent of dreamdeck's code, so a test can let "TypeClaw" dream the same
folder between dreamdeck's steps:

1. undreamed = fragments whose id is not in the day's `dreamedIds` (a corrupt state: all of them);
   none → skip (no commit);
2. its LLM runs (`llm(undreamed, topics_dir)`: writes flat `topics/*.md`, returns whether it did);
3. the state is advanced with every undreamed id it was shown;
4. only the dates that had undreamed fragments are compacted: the last watermark per source is
   kept; when shards were rewritten, a fragment dreamed and not cited by (date, id) in the body of
   a flat `memory/topics/*.md` is dropped (vault, archive, meta, nested files never pin); a file
   is rewritten only when something is dropped;
5. `git add -f memory/` and a `dream: N fragments 🌙` commit.
"""
from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# parseCitations (citations.ts): anywhere in the body, `streams/` or legacy `memory/` prefix.
CITATION = re.compile(r"(streams|memory)/(\d{4}-\d{2}-\d{2})#([\w-]+)")
STATE_TS = "2026-05-22T23:30:00.000+00:00"

Llm = Callable[[list[dict], Path], bool]


@dataclass
class TypeClawRun:
    skipped: bool = False
    shown: list[tuple[str, str]] = field(default_factory=list)
    fragments_dropped: list[tuple[str, str]] = field(default_factory=list)


def _streams_dir(root: Path) -> Path:
    folder = root / "memory" / "streams"
    return folder if folder.is_dir() else root / "memory"


def _events(path: Path) -> list[dict | None]:
    out: list[dict | None] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            ev = None  # malformed: skipped by readers, vanishes only when the file is rewritten
        out.append(ev if isinstance(ev, dict) and ev.get("type") in ("fragment", "watermark", "legacy_prose") else None)
    return out


def _load_state(root: Path) -> dict:
    try:
        data = json.loads((root / "memory/.dreaming-state.json").read_text(encoding="utf-8"))
        if data.get("version") == 2 and isinstance(data.get("dreamedThrough"), dict):
            return data
    except (OSError, ValueError, AttributeError):
        pass
    return {"version": 2, "dreamedThrough": {}}


def _cited(root: Path) -> set[tuple[str, str]]:
    """loadCitedIds: flat topics/*.md, body only (after the frontmatter)."""
    keys: set[tuple[str, str]] = set()
    for path in sorted((root / "memory/topics").glob("*.md")):
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        if text.startswith("---\n") and (close := text.find("\n---", 4)) != -1:
            text = text[close + 5:]
        keys |= {(m.group(2), m.group(3)) for m in CITATION.finditer(text)}
    return keys


def typeclaw_dream(root: Path, llm: Llm = lambda undreamed, topics: False, *, commit: bool = True) -> TypeClawRun:
    run = TypeClawRun()
    folder = _streams_dir(root)
    state = _load_state(root)
    through = state["dreamedThrough"]
    undreamed: list[dict] = []
    for path in sorted(folder.glob("????-??-??.jsonl")):
        day = path.stem
        dreamed = set(through.get(day, {}).get("dreamedIds", []))
        undreamed += [dict(ev, date=day) for ev in _events(path)
                      if ev and ev["type"] == "fragment" and ev.get("id") and ev["id"] not in dreamed]
    if not undreamed:
        run.skipped = True
        return run
    run.shown = [(f["date"], f["id"]) for f in undreamed]
    (root / "memory/topics").mkdir(parents=True, exist_ok=True)
    rewritten = llm(undreamed, root / "memory/topics")
    touched = sorted({f["date"] for f in undreamed})
    for day in touched:
        ids = through.get(day, {}).get("dreamedIds", [])
        through[day] = {"dreamedIds": ids + [f["id"] for f in undreamed if f["date"] == day and f["id"] not in ids],
                        "ts": STATE_TS}
    (root / "memory/.dreaming-state.json").write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    cited = _cited(root)
    for day in touched:
        run.fragments_dropped += _compact(folder / f"{day}.jsonl", day, set(through[day]["dreamedIds"]), cited, rewritten)
    if commit:
        _git(root, "add", "-f", "--sparse", "--", "memory/")  # (past skip-worktree entries)
        subprocess.run(["git", "-c", "user.name=typeclaw", "-c", "user.email=agent@typeclaw.local", "commit", "-q",
                        "-m", f"dream: {len(undreamed)} fragments 🌙"], cwd=root, check=False, capture_output=True)
    return run


def _git(root: Path, *args: str) -> None:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if proc.returncode:
        raise AssertionError(f"git {' '.join(args)}: {proc.stderr}")


def _compact(path: Path, day: str, dreamed: set[str], cited: set[tuple[str, str]], fragment_gc: bool) -> list:
    events = _events(path)
    last: dict[str, str] = {}
    for ev in events:
        if ev and ev["type"] == "watermark":
            last[ev.get("source", "")] = ev["id"]
    kept, dropped = [], []
    for ev in events:
        if ev is None:
            continue  # a malformed line vanishes, but only when the file is rewritten
        if ev["type"] == "watermark" and last.get(ev.get("source", "")) != ev["id"]:
            dropped.append(None)
            continue
        if ev["type"] == "fragment" and fragment_gc and ev["id"] in dreamed and (day, ev["id"]) not in cited:
            dropped.append((day, ev["id"]))
            continue
        kept.append(ev)
    if dropped:
        path.write_text("".join(json.dumps(ev, ensure_ascii=False, separators=(",", ":")) + "\n" for ev in kept),
                        encoding="utf-8")
    return [k for k in dropped if k is not None]


def cite_new_shard(slug: str, heading: str, pick: Callable[[dict], bool], keep: tuple[tuple[str, str], ...] = ()) -> Llm:
    """An LLM that writes one flat shard citing the undreamed fragments `pick` chooses (and the
    (date, id) pairs in `keep`, as a rewrite of an existing belief would)."""

    def llm(undreamed: list[dict], topics: Path) -> bool:
        chosen = [{"date": d, "id": i} for d, i in keep] + [f for f in undreamed if pick(f)]
        body = f"{heading}.\n\nfragments:\n" + "".join(f"- streams/{f['date']}#{f['id']}\n" for f in chosen)
        days = len({f["date"] for f in chosen})
        last = max((f["date"] for f in chosen), default="2026-05-22")
        (topics / f"{slug}.md").write_text(
            f"---\nheading: {heading}\ncites: {len(chosen)}\ndays: {days}\nlastReinforced: {last}\n---\n{body}",
            encoding="utf-8")
        return True

    return llm
