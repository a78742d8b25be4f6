"""Benchmark: building the demo agent folder (a script, not a test).

    .venv/bin/python bench/bench_demo.py [--repeat 3]

`dreamdeck demo` builds Pico's folder: 60 days of streams, shards and one TypeClaw-style dream
commit per dreamed day. Reported in one run: the build's time (best of --repeat), the number of
commits it made, and its ratio to the floor of making that many commits with plain git (one
small file changed per commit). The tests once asserted "under 10 s"; that is a number to watch
here, not a test (it depends on the machine and its load).
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from dreamdeck.demo.build import build_demo

TODAY = "2026-07-20"
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "core.hooksPath=/dev/null",
       "-c", "commit.gpgsign=false"]


def build_seconds(parent: Path, n: int) -> tuple[float, Path]:
    root = parent / f"pico-{n}"
    started = time.perf_counter()
    build_demo(root, today=TODAY, seed=7)
    return time.perf_counter() - started, root


def git_floor(parent: Path, commits: int) -> float:
    """Plain `git add` + `git commit` of one changed file, `commits` times."""
    root = parent / "floor"
    root.mkdir()
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    started = time.perf_counter()
    for i in range(commits):
        (root / "note.md").write_text(f"commit {i}\n")
        subprocess.run([*GIT, "add", "note.md"], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-qm", f"commit {i}"], cwd=root, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dreamdeck-bench-demo-") as tmp:
        parent = Path(tmp)
        runs = [build_seconds(parent, n) for n in range(args.repeat)]
        best, root = min(runs, key=lambda r: r[0])
        commits = int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root, check=True,
                                     capture_output=True, text=True).stdout)
        floor = git_floor(parent, commits)
    print(f"demo build      {best:6.2f} s  (best of {args.repeat}; {commits} commits)")
    print(f"git floor       {floor:6.2f} s  ({commits} plain commits)")
    print(f"ratio           {best / floor:6.2f}x")


if __name__ == "__main__":
    main()
