"""Benchmark: a year of memory (10,000 shards citing 1,000,000 fragments) in one run.

Reports, as ratios against the floor of merely reading the shard files:
- the strength table built in-process, and `dreamdeck topics --json` as a command (issue: table
  within 3x the read floor; the command under 1.5 s);
- one dream run with a dreamer that changes 50 shards, minus the dreamer's own time (under 1.5 s):
  the first ever (which builds the projections), then the median of several as the watcher runs
  them, and one in a fresh process;
- applying a 50-shard approval through the one door, split into git's own commit of memory/ and
  everything else (under 300 ms), in the app's process and in a fresh one.
Each timed step starts after `os.sync()`: on a shared machine a flush still pending from the
previous step would otherwise be charged to the next one's first fsync.
Run: `.venv/bin/python bench/bench_memory.py [--shards 10000] [--fragments 1000000] [--repeat 5] [--keep DIR]`.
Nothing here is a test: numbers vary with the machine; the ratios are what to watch.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dreamdeck.core.formats.events import serialize_event  # noqa: E402
from dreamdeck.core.workspace import Workspace  # noqa: E402

TODAY = "2026-11-22"
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "core.hooksPath=/dev/null"]


def uid(ms: int, n: int) -> str:
    h = f"{ms:012x}"
    return f"{h[:8]}-{h[8:12]}-7{n % 4096:03x}-8{(n >> 12) % 4096:03x}-{n:012x}"


def build(root: Path, shards: int, fragments: int, undreamed: int) -> dict:
    """Write streams, shards and state in TypeClaw's exact formats, fast (plain writes)."""
    rng = random.Random(1)
    mem = root / "memory"
    (mem / "streams").mkdir(parents=True)
    (mem / "topics").mkdir()
    end = date.fromisoformat(TODAY)
    days = [(end - timedelta(days=365 - i)).isoformat() for i in range(366)]
    per_day = fragments // (len(days) - 1)
    cites: list[list[str]] = [[] for _ in range(shards)]
    dreamed: dict[str, list[str]] = {}
    n = 0
    for _di, day in enumerate(days):
        last_day = day == TODAY
        count = undreamed if last_day else per_day
        base_ms = int(datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp() * 1000) + 3_600_000
        lines = []
        ids = []
        for k in range(count):
            n += 1
            fid = uid(base_ms + k, n)
            ms = base_ms + k
            ts = datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
            shard = rng.randrange(shards)
            ev = {"type": "fragment", "id": fid, "ts": ts, "source": "019e0000-0000-7000-8000-000000000001",
                  "entry": f"{n:08x}", "topic": f"topic {shard}", "body": f"Observation number {n} about topic {shard}."}
            lines.append(serialize_event(ev))
            ids.append(fid)
            if not last_day:
                cites[shard].append(f"streams/{day}#{fid}")
        (mem / "streams" / f"{day}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        if not last_day:
            dreamed[day] = {"dreamedIds": sorted(ids), "ts": f"{day}T04:00:00+00:00"}
    for i in range(shards):
        lines = cites[i]
        cite_days = {c[8:18] for c in lines}
        heading = f"The user consistently does thing {i}"
        body = f"{heading}.\n\nfragments:\n" + "".join(f"- {c}\n" for c in lines)
        text = (f"---\nheading: {heading}\ncites: {len(lines)}\ndays: {len(cite_days)}\n"
                f"lastReinforced: {max(cite_days) if cite_days else TODAY}\n---\n{body}")
        (mem / "topics" / f"topic-{i:05d}.md").write_text(text, encoding="utf-8")
    (mem / ".dreaming-state.json").write_text(json.dumps({"version": 2, "dreamedThrough": dreamed}, indent=2) + "\n")
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / ".gitignore").write_text("memory/\n")
    subprocess.run([*GIT, "add", "-f", "."], cwd=root, check=True)
    subprocess.run([*GIT, "-c", "gc.auto=0", "commit", "-qm", "bench: a year of memory"], cwd=root, check=True)
    # A year-old repository is packed. Left as 10,000 loose objects, every commit the benchmark
    # times would start `git gc --auto` in the background and charge its repacking to what follows.
    subprocess.run([*GIT, "gc", "-q"], cwd=root, check=True)
    return {"fragments": n}


class FiftyShards:
    """A dreamer that reinforces 50 shards with today's fragments (its own time is subtracted)."""

    name = "bench"

    def dream(self, inp, scratch):
        slugs = sorted(scratch.files)[:50]
        for slug, frag in zip(slugs, inp.fragments):
            text = scratch.files[slug]
            scratch.write_shard(slug, text.replace("fragments:\n", f"fragments:\n- {frag.citation}\n", 1))
        scratch.finish("bench reinforcement")
        return scratch.outcome


def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float]) -> str:
    return f"{min(values):.3f}-{max(values):.3f}"


def timed(fn):
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def read_floor(ws: Workspace) -> float:
    def read_all():
        for p in sorted(ws.topics_dir.iterdir()):
            p.read_bytes()
    return min(timed(read_all)[0] for _ in range(3))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shards", type=int, default=10_000)
    ap.add_argument("--fragments", type=int, default=1_000_000)
    ap.add_argument("--keep", help="build into this folder and keep it")
    ap.add_argument("--repeat", type=int, default=5, help="timed dream runs and approvals (medians are reported)")
    args = ap.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dreamdeck-bench-")) / "agent"
    root.mkdir(parents=True, exist_ok=True)
    t_build, info = timed(lambda: build(root, args.shards, args.fragments, undreamed=60))
    print(f"built {args.shards} shards citing {info['fragments']:,} fragments over a year in {t_build:.1f}s at {root}")
    ws = Workspace.open(root, today=TODAY)

    from dreamdeck.core.index.strength import strength_table
    from dreamdeck.core.store.settings import DecaySettings

    floor = read_floor(ws)
    t_table = min(timed(lambda: strength_table(ws.topics_dir, TODAY, DecaySettings()))[0] for _ in range(3))
    exe = Path(sys.executable).with_name("dreamdeck")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "dreamdeck"]
    t_cli = min(timed(lambda: subprocess.run([*cmd, "-w", str(root), "--today", TODAY, "topics", "--json"],
                                              check=True, capture_output=True))[0] for _ in range(2))
    print()
    print(f"{'measure':48} {'seconds':>8} {'x floor':>8}")
    print(f"{'read every shard file (floor)':48} {floor:8.3f} {1:8.1f}")
    print(f"{'strength table in-process':48} {t_table:8.3f} {t_table / floor:8.1f}   target <= 3x")
    print(f"{'`dreamdeck topics --json` (whole command)':48} {t_cli:8.3f} {t_cli / floor:8.1f}   target < 1.5 s")

    from dreamdeck.core.dreaming.run import run_dream
    from dreamdeck.core.ops.reflections import approve
    from dreamdeck.core.store.streams import append_fragment

    batch = iter(range(10**6))
    stamp = time.time_ns()  # a kept workspace benched again gets new fragments, not duplicates

    def append_60() -> None:
        k = next(batch)
        for i in range(60):
            append_fragment(ws, f"topic {i}", f"bench {stamp} batch {k} fragment {i}", source="bench")
        os.sync()  # each timed step starts with the disk flushed, as it would minutes after the last one

    def dream_minus_dreamer() -> tuple[float, object]:
        t, receipt = timed(lambda: run_dream(ws, dreamer=FiftyShards(), review="none", trigger="bench"))
        assert receipt.status == "applied" and len(receipt.shards_changed) == 50, receipt.message
        return t - receipt.dreamer_ms / 1000, receipt

    os.sync()
    first, _ = dream_minus_dreamer()
    print(f"{'first dream run ever, 50 shards, minus dreamer':48} {first:8.3f} {first / floor:8.1f}"
          "   (scans the whole year once; builds the projections)")
    runs = []
    for _ in range(args.repeat):
        append_60()
        runs.append(dream_minus_dreamer()[0])
    print(f"{'next dream run, 50 shards, minus dreamer':48} {median(runs):8.3f} {median(runs) / floor:8.1f}"
          f"   target < 1.5 s  (median of {len(runs)}: {spread(runs)}; as the watcher runs it)")
    append_60()
    cold = _in_fresh_process(root, "dream")
    print(f"{'  the same in a fresh process (`dreamdeck dream`)':48} {cold:8.3f} {cold / floor:8.1f}"
          "   (state index and projections read from disk; interpreter start not counted)")
    git_commit = median([_git_commit_time(root) for _ in range(3)])
    print(f"{'  git commit of a one-line memory/ change':48} {git_commit:8.3f}")

    # A 50-shard approval through the door, each reflection prepared by a dream with review=all.
    totals, gits = [], []
    for _ in range(args.repeat):
        append_60()
        pending = run_dream(ws, dreamer=FiftyShards(), review="all", trigger="bench")
        os.sync()  # a person decides minutes after the dream, not while its writes are in flight
        t, result = timed(lambda pending=pending: approve(ws, pending.reflection, actor="bench"))
        totals.append(t)
        gits.append(result.commit_seconds)
    rest = [t - g for t, g in zip(totals, gits)]
    if os.environ.get("BENCH_DEBUG"):
        print("approvals", [f"{t:.3f}/{g:.3f}" for t, g in zip(totals, gits)])
    print(f"{'approve a 50-shard reflection (the one door)':48} {median(totals):8.3f} {median(totals) / floor:8.1f}"
          f"   (median of {len(totals)}; in the app)")
    print(f"{'  of which git commits memory/ (git alone)':48} {median(gits):8.3f}")
    print(f"{'  of which everything else':48} {median(rest):8.3f} {median(rest) / floor:8.1f}"
          f"   target < 0.300 s  ({spread(rest)})")
    append_60()
    pending = run_dream(ws, dreamer=FiftyShards(), review="all", trigger="bench")
    os.sync()
    cold_apply = _in_fresh_process(root, "approve", pending.reflection)
    print(f"{'  the whole approval in a fresh process':48} {cold_apply:8.3f} {cold_apply / floor:8.1f}"
          "   (`dreamdeck approve`; interpreter start not counted)")
    if not args.keep:
        shutil.rmtree(root.parent, ignore_errors=True)


def _in_fresh_process(root: Path, what: str, rid: str = "") -> float:
    """Time one dream run (minus the dreamer) or one approval inside a new interpreter, after its
    imports: what a `dreamdeck dream` / `dreamdeck approve` command pays beyond starting Python."""
    code = f"""
import sys, time
sys.path[:0] = [{str(Path(__file__).resolve().parent.parent)!r}, {str(Path(__file__).resolve().parent)!r}]
from bench_memory import FiftyShards, TODAY
from dreamdeck.core.workspace import Workspace
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.reflections import approve
ws = Workspace.open({str(root)!r}, today=TODAY)
t = time.perf_counter()
if {what!r} == "dream":
    r = run_dream(ws, dreamer=FiftyShards(), review="none", trigger="bench")
    print(time.perf_counter() - t - r.dreamer_ms / 1000)
else:
    approve(ws, {rid!r}, actor="bench")
    print(time.perf_counter() - t)
"""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _git_commit_time(root: Path) -> float:
    """git's own cost of committing memory/ as TypeClaw does (skip-worktree off, add -f, commit,
    skip-worktree on) for a one-line change: what every memory commit pays, for comparison."""
    from dreamdeck.core.git.commit import Trailers, commit_memory

    p = root / "memory" / "meta" / "bench-touch.txt"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(str(time.time()))
    t = time.perf_counter()
    commit_memory(root, "bench: git alone", Trailers("bench", "auto", "bench"))
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
