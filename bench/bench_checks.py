"""Benchmark: `dreamdeck doctor --json` and `dreamdeck verify` on a year of memory (issue 10 item 14).

The workspace is bench_memory's: 10,000 shards citing 1,000,000 fragments over a year. Reported
in one run, as seconds and as ratios against the floor of merely reading every shard file:
- `verify` (HEAD), and `verify` after 50 shards changed (one citation moved between two shards
  in each, so nothing is lost but every changed file is checked on both sides);
- `doctor --json` the first time (nothing projected yet: every stream line parsed once), then
  again with nothing changed (the stamp-keyed projection answers), then after one shard changed.
Each is the whole command in a fresh process. Target (issue 10): both at most 2 s.
Run: `.venv/bin/python bench/bench_checks.py [--keep DIR] [--shards N] [--fragments N]`
(`--keep` reuses a workspace already built there). Nothing here is a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_memory import TODAY, build, read_floor  # noqa: E402

from dreamdeck.core.workspace import Workspace  # noqa: E402


def command(root: Path, *args: str) -> float:
    exe = Path(sys.executable).with_name("dreamdeck")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "dreamdeck"]
    os.sync()
    started = time.perf_counter()
    proc = subprocess.run([*cmd, "-w", str(root), "--today", TODAY, *args], capture_output=True, text=True)
    took = time.perf_counter() - started
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise SystemExit(f"{args} failed: {proc.stderr[-2000:]}")
    return took


def change_50_shards(ws: Workspace) -> None:
    """Move one citation from each of 50 shards to its neighbour (nothing is lost)."""
    for i in range(0, 100, 2):
        a, b = ws.topics_dir / f"topic-{i:05d}.md", ws.topics_dir / f"topic-{i + 1:05d}.md"
        ta, tb = a.read_text(), b.read_text()
        line = next(ln for ln in ta.splitlines() if ln.startswith("- streams/"))
        a.write_text(ta.replace(line + "\n", "", 1))
        b.write_text(tb.replace("fragments:\n", f"fragments:\n{line}\n", 1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shards", type=int, default=10_000)
    ap.add_argument("--fragments", type=int, default=1_000_000)
    ap.add_argument("--keep", help="build into this folder (or reuse the workspace there) and keep it")
    args = ap.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dreamdeck-bench-")) / "agent"
    if not (root / "memory" / "topics").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        build(root, args.shards, args.fragments, undreamed=60)
        print(f"built in {time.perf_counter() - started:.1f}s at {root}")
    os.environ.setdefault("DREAMDECK_CACHE_DIR", tempfile.mkdtemp(prefix="dreamdeck-bench-cache-"))
    ws = Workspace.open(root, today=TODAY)
    floor = read_floor(ws)
    rows = [("read every shard file (floor)", floor)]
    rows.append(("`verify` (HEAD, nothing changed)", command(root, "verify")))
    rows.append(("`doctor --json`, first run (no projection)", command(root, "doctor", "--json")))
    time.sleep(2.1)  # past the racy window, so the first run's findings could be recorded
    rows.append(("`doctor --json`, nothing changed since", command(root, "doctor", "--json")))
    change_50_shards(ws)
    rows.append(("`verify` after 50 shards changed", command(root, "verify")))
    rows.append(("`doctor --json` after 50 shards changed", command(root, "doctor", "--json")))
    print(f"\n{'measure':48} {'seconds':>8} {'x floor':>8}")
    for name, seconds in rows:
        print(f"{name:48} {seconds:8.3f} {seconds / floor:8.1f}")
    print("target: verify and doctor at most 2 s (issue 10 item 14)")
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "--", "memory/topics"], check=False)


if __name__ == "__main__":
    main()
