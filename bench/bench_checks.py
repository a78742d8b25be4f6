"""Benchmark: `dreamdeck doctor --json` and `dreamdeck verify` on a year of memory (issue 10 item 14).

The workspace is bench_memory's: 10,000 shards citing 1,000,000 fragments over a year. Reported
in one run, as seconds and as ratios against the floor of merely reading every shard file:
- `verify` (HEAD), and `verify` after 50 shards changed (one citation moved between two shards
  in each, so nothing is lost but every changed file is checked on both sides);
- `doctor --json` the first time (no record yet: every stream line and shard read once; the
  record removed before each of `--first-runs` runs, and its size reported; once more with no
  bytecode kept, every module compiled as PYTHONDONTWRITEBYTECODE leaves it), then again with
  nothing changed (the per-file record answers), after 50 shards changed, and after one stream
  file got 100 new lines (only the changed files are read; only their citations checked again);
- in-process, from cold caches: `held_keys` and doctor's protection check (`missing_protected`,
  `pinned_drift`) with 20 pending reflections holding 2,000 fragments and 50 pinned topics, once
  doctor's record exists (`missing_protected` asks it whether the streams still hold them);
- the start-up of doctor's stream worker (`ops.doctor_streams`) given nothing to read: what the
  first run pays for reading the streams on the second core.
Each command is the whole command in a fresh process; its CPU seconds include its worker's.
Target (issue 10): both at most 2 s. `uptime` is printed before and after: on a shared machine,
compare the CPU seconds. Run: `.venv/bin/python bench/bench_checks.py [--keep DIR] [--shards N] [--fragments N] [--first-runs N]`
(`--keep` reuses a workspace already built there). Nothing here is a test.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_memory import TODAY, build, read_floor  # noqa: E402

from dreamdeck.core.formats.events import serialize_event  # noqa: E402
from dreamdeck.core.io.cache import clear_all  # noqa: E402
from dreamdeck.core.ops import doctor_record, doctor_streams  # noqa: E402
from dreamdeck.core.ops.protected import missing_protected, pinned_drift  # noqa: E402
from dreamdeck.core.store.reflections import Reflection, held_keys, reflections_dir  # noqa: E402
from dreamdeck.core.workspace import Workspace  # noqa: E402

CPU: dict[str, float] = {}  # measure -> CPU seconds of its process (the machine may be shared)


def command(root: Path, *args: str, compiled: bool = True) -> float:
    """Wall seconds of the whole command in a fresh process (its CPU seconds kept in `CPU`).
    `compiled`: with the bytecode Python keeps (as installed); else every module compiled
    again, as on a machine with PYTHONDONTWRITEBYTECODE set and no bytecode written yet."""
    exe = Path(sys.executable).with_name("dreamdeck")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "dreamdeck"]
    os.sync()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: bytecode kept
    with tempfile.TemporaryDirectory(prefix="dreamdeck-bench-nopyc-") as no_bytecode:
        if not compiled:  # a cache folder with nothing in it, and nothing written there
            env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=no_bytecode)
        proc = subprocess.run([*cmd, "-w", str(root), "--today", TODAY, *args], capture_output=True, text=True, env=env)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[" ".join(args)] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise SystemExit(f"{args} failed: {proc.stderr[-2000:]}")
    return took


def run(rows: list[tuple[str, float]], name: str, root: Path, *args: str, compiled: bool = True) -> None:
    rows.append((name, command(root, *args, compiled=compiled)))
    CPU[name] = CPU.pop(" ".join(args))


def change_50_shards(ws: Workspace) -> None:
    """Move one citation from each of 50 shards to its neighbour (nothing is lost)."""
    for i in range(0, 100, 2):
        a, b = ws.topics_dir / f"topic-{i:05d}.md", ws.topics_dir / f"topic-{i + 1:05d}.md"
        ta, tb = a.read_text(), b.read_text()
        line = next(ln for ln in ta.splitlines() if ln.startswith("- streams/"))
        a.write_text(ta.replace(line + "\n", "", 1))
        b.write_text(tb.replace("fragments:\n", f"fragments:\n{line}\n", 1))


def append_100_lines(ws: Workspace) -> None:
    """One stream file (a day in the middle of the year) gets 100 new fragment lines."""
    day = sorted(p.stem for p in (ws.memory / "streams").glob("*.jsonl"))[180]
    lines = [serialize_event({"type": "fragment", "id": f"0190ffff-0000-7000-8000-{k:012x}", "ts": f"{day}T23:00:00.000Z",
                              "source": "bench", "entry": f"{k:08x}", "topic": "late", "body": f"Late note {k}."})
             for k in range(100)]
    with open(ws.memory / "streams" / f"{day}.jsonl", "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def add_protection(ws: Workspace) -> None:
    """50 pinned topics (their vault copies) and 20 pending reflections holding 100 fragments each,
    shown the fragments cited by 20 other topics (what a held dream would have been shown)."""
    ws.vault_dir.mkdir(exist_ok=True)
    for i in range(200, 250):
        (ws.vault_dir / f"topic-{i:05d}.md").write_bytes((ws.topics_dir / f"topic-{i:05d}.md").read_bytes())
    folder = reflections_dir(ws)
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(20):
        text = (ws.topics_dir / f"topic-{300 + r:05d}.md").read_text()
        keys = [ln[10:].split("#") for ln in text.splitlines() if ln.startswith("- streams/")][:100]
        refl = Reflection(id=f"r-{r + 1:04d}", created=f"{TODAY}T03:00:00Z", summary="bench held dream",
                          fragments=[{"date": d, "id": f, "topic": "t", "body": "b"} for d, f in keys],
                          held=[f"{d}#{f}" for d, f in keys])
        (folder / f"{refl.id}.json").write_text(refl.to_json(), encoding="utf-8")


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def worker_start_up(ws: Workspace) -> float:
    """Wall seconds to start doctor's stream worker and have its answer for one day (its CPU
    seconds kept in `CPU`)."""
    path = sorted((ws.memory / "streams").glob("*.jsonl"))[0]
    doctor_streams.WORKER_BYTES = 0  # a worker for any job
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with doctor_streams.Reads([(path.stem, str(path))]) as reads:
        reads.day(str(path))
        answered = reads.by_worker
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not answered:
        raise SystemExit("the stream worker did not answer")
    CPU[WORKER] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return took


WORKER = "doctor's stream worker: start-up, one day read"


def in_process(fn) -> float:
    clear_all()
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shards", type=int, default=10_000)
    ap.add_argument("--fragments", type=int, default=1_000_000)
    ap.add_argument("--keep", help="build into this folder (or reuse the workspace there) and keep it")
    ap.add_argument("--first-runs", type=int, default=2, help="doctor's first run, measured this many times")
    args = ap.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dreamdeck-bench-")) / "agent"
    if not (root / "memory" / "topics").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        build(root, args.shards, args.fragments, undreamed=60)
        print(f"built in {time.perf_counter() - started:.1f}s at {root}")
    os.environ.setdefault("DREAMDECK_CACHE_DIR", tempfile.mkdtemp(prefix="dreamdeck-bench-cache-"))
    ws = Workspace.open(root, today=TODAY)
    if not any(reflections_dir(ws).glob("r-*.json")):  # a workspace built elsewhere may have the folder, empty
        add_protection(ws)
    floor = read_floor(ws)
    rows = [("read every shard file (floor)", floor)]
    run(rows, "`verify` (HEAD, nothing changed)", root, "verify")
    print(f"before: {load()}")
    for n in range(1, args.first_runs + 1):
        doctor_record.discard(ws)
        run(rows, f"`doctor --json`, first run (no record) #{n}", root, "doctor", "--json")
    doctor_record.discard(ws)
    run(rows, "`doctor --json`, first run, no bytecode kept", root, "doctor", "--json", compiled=False)
    size = sum(p.stat().st_size for p in doctor_record.record_path(ws).parent.glob(doctor_record.RECORD + "*"))
    print(f"doctor's record after its first run: {size / 1e6:.1f} MB")
    time.sleep(2.1)  # past the racy window, so the first run's findings could be recorded
    run(rows, "`doctor --json`, nothing changed since", root, "doctor", "--json")
    held = len(held_keys(ws))
    rows.append((f"`held_keys` ({held} held by 20 reflections)", in_process(lambda: held_keys(ws))))
    rows.append(("protection: `missing_protected` (50 pinned, 20 held)", in_process(lambda: missing_protected(ws))))
    rows.append(("protection: `pinned_drift` (50 pinned)", in_process(lambda: pinned_drift(ws))))
    change_50_shards(ws)
    run(rows, "`verify` after 50 shards changed", root, "verify")
    run(rows, "`doctor --json` after 50 shards changed", root, "doctor", "--json")
    time.sleep(2.1)
    append_100_lines(ws)
    run(rows, "`doctor --json` after 100 lines appended to a day", root, "doctor", "--json")
    rows.append((WORKER, worker_start_up(ws)))
    print(f"\n{'measure':52} {'seconds':>8} {'x floor':>8} {'cpu s':>8}")
    for name, seconds in rows:
        cpu = f"{CPU[name]:8.3f}" if name in CPU else ""
        print(f"{name:52} {seconds:8.3f} {seconds / floor:8.1f} {cpu}")
    print("target: verify and doctor at most 2 s (issue 10 item 14)")
    print(f"after: {load()}")
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "--", "memory/topics", "memory/streams"], check=False)


if __name__ == "__main__":
    main()
