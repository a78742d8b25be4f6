"""Benchmark: the offline dreamer's own time on a big memory (target: 2,000 new fragments against
10,000 shards in <= 2 s, in a fresh process).

10,000 shards are written the way the offline dreamer writes them (one claim each: settings as
`key: value`, habits, rules, events; a few hundred topic labels), then 2,000 undreamed fragments
arrive over two days under 400 labels: restatements of existing claims, new values for existing
settings, same-day duplicates, and new claims. Only `OfflineDreamer().dream(...)` is timed (the
run's `dreamer_ms`), on an in-memory scratch, each time in a new process (a child of this one
that reads the generated shards from a pickle, imports, then dreams):
- fresh, no projection: the first run ever (the projection of the shards' index in the private
  folder, `dreaming.offline_projection`, is written after the run, `DreamOutcome.settle`: timed
  apart, as `run_dream` calls it once the run's changes are applied);
- fresh, with the projection an earlier dream of the same shards kept (another day's 2,000
  fragments): what a later `dreamdeck dream` pays;
- fresh, with the projection this very dream kept (the same dream again, as when its reflection
  is still waiting), then warm: the best later run in that process (the watcher's process).
Wall and CPU seconds are both shown: on a shared machine the CPU time is the steadier figure.
Every run must write the same shards byte for byte (checked). Run with and without
PYTHONDONTWRITEBYTECODE to see what compiling the modules costs the child (its import time).
Run: `.venv/bin/python bench/quality/bench_dreamer_speed.py [--shards 10000] [--fragments 2000]`.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from dreamdeck.core.dreaming.protocol import UndreamedFragment  # noqa: E402
from dreamdeck.core.formats.shards import ShardMeta, render_shard, strength_of  # noqa: E402

TODAY = "2026-11-22"
_SYLLABLES = ["ka", "lo", "mi", "ren", "tu", "vas", "qui", "dor", "pel", "zan", "fo", "bri", "sto", "mux", "ga", "hel"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))


def _claims(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """(label, claim text, setting key or "") for n distinct claims."""
    labels = [" ".join(_word(rng) for _ in range(rng.randint(1, 2))) for _ in range(300)]
    out = []
    for i in range(n):
        label = rng.choice(labels)
        a, b, c = _word(rng), _word(rng), _word(rng)
        kind = i % 4
        if kind == 0:
            key = f"{a} {b}"
            out.append((label, f"{key}: {rng.randint(1, 90)}{rng.choice(['s', 'm', ' jobs', '%'])}", key))
        elif kind == 1:
            out.append((label, f"The user prefers {a} {b} for {c} work.", ""))
        elif kind == 2:
            out.append((label, f"Never run {a} against the {b} {c} cluster.", ""))
        else:
            out.append((label, f"Deployed {a} {b} to the {c} environment.", ""))
    return out


def _shard(claim: str, keys: list[tuple[str, str]]) -> str:
    body = f"Mentioned once: {claim.rstrip('.')}.\n\nfragments:\n" + "".join(f"- streams/{d}#{i}\n" for d, i in keys)
    cites, days, last = strength_of(body, TODAY)
    return render_shard(ShardMeta(f"Mentioned once: {claim.rstrip('.')}", cites, days, last), body)


def build(shards: int, fragments: int, seed: int = 5, other_day: bool = False) -> tuple[dict[str, str], list[UndreamedFragment]]:
    """The shards, and the new fragments (`other_day`: another day's, against the same shards)."""
    rng = random.Random(seed)
    claims = _claims(rng, shards)
    files = {}
    for i, (label, text, _key) in enumerate(claims):
        files[f"s{i:05d}-{'-'.join(label.split())}"[:64]] = _shard(text, [("2026-10-01", f"old-{i:05d}")])
    frags = []
    if other_day:
        rng = random.Random(seed + 100)
    new_claims = _claims(random.Random(seed + (101 if other_day else 1)), fragments)
    for n in range(fragments):
        day = "2026-11-20" if n < fragments // 2 else "2026-11-21"
        roll = n % 10
        if roll < 5:  # restates an existing claim
            label, text, _ = claims[rng.randrange(shards)]
        elif roll == 5:  # a new value for an existing setting
            label, _text, key = claims[4 * rng.randrange(shards // 4)]
            text = f"{key}: {rng.randint(91, 200)}s"
        elif roll == 6 and frags:  # a same-day duplicate of the previous fragment
            label, text = frags[-1].topic, frags[-1].body
        else:  # a new claim
            label, text, _ = new_claims[n]
        frags.append(UndreamedFragment(date=day, id=f"{'earlier' if other_day else 'new'}-{n:05d}", topic=label, body=text))
    return files, frags


def _child(data: Path, cache: Path, repeat: int) -> None:
    """One process: import (timed apart), read the generated input, dream `repeat` times."""
    started, cpu = time.perf_counter(), time.process_time()
    from dreamdeck.core.dreaming.offline import OfflineDreamer
    from dreamdeck.core.dreaming.protocol import DreamInput, DreamScratch
    imported = (time.perf_counter() - started, time.process_time() - cpu)
    files, frags = pickle.loads(data.read_bytes())
    runs, settled, digest = [], [], ""
    for _ in range(repeat):
        scratch = DreamScratch(dict(files))
        started, cpu = time.perf_counter(), time.process_time()
        outcome = OfflineDreamer().dream(DreamInput(TODAY, list(frags), "", cache_dir=cache), scratch)
        runs.append((time.perf_counter() - started, time.process_time() - cpu))
        started, cpu = time.perf_counter(), time.process_time()
        if outcome.settle is not None:  # what `run_dream` does once the run's changes are applied
            outcome.settle()
        settled.append((time.perf_counter() - started, time.process_time() - cpu))
        digest = hashlib.sha256(repr(sorted(scratch.files.items())).encode()).hexdigest()
    written = sum(1 for slug, text in scratch.files.items() if files.get(slug) != text)
    print(json.dumps({"import": imported, "runs": runs, "settled": settled, "digest": digest, "written": written, "summary": outcome.summary}))


def _spawn(data: Path, cache: Path, repeat: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(data), "--cache", str(cache), "--repeat", str(repeat)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _fmt(run: list[float]) -> str:
    return f"{run[0]:.2f} s wall / {run[1]:.2f} s CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shards", type=int, default=10_000)
    parser.add_argument("--fragments", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs in the process with the projection (the first is fresh)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.cache, args.repeat)
        return
    with tempfile.TemporaryDirectory(prefix="dreamer-speed-") as tmp:
        data, earlier = Path(tmp) / "input.pickle", Path(tmp) / "earlier.pickle"
        data.write_bytes(pickle.dumps(build(args.shards, args.fragments)))
        earlier.write_bytes(pickle.dumps(build(args.shards, args.fragments, other_day=True)))
        caches = [Path(tmp) / f"cache-{n}" for n in range(2)]
        for cache in caches:
            cache.mkdir(mode=0o700)
        cold = _spawn(data, caches[0], 1)  # builds caches[0] for this very dream
        _spawn(earlier, caches[1], 1)  # caches[1]: kept by another day's dream of the same shards
        day_after = _spawn(data, caches[1], 1)
        again = _spawn(data, caches[0], max(args.repeat, 2))
    assert cold["digest"] == day_after["digest"] == again["digest"], "a run with the projection wrote other shards"
    load = os.getloadavg()
    print(f"{args.fragments} fragments against {args.shards} shards (load average {load[0]:.1f}, "
          f"PYTHONDONTWRITEBYTECODE={'set' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'unset'}):")
    print(f"  fresh process, no projection:                 {_fmt(cold['runs'][0])} (imports {_fmt(cold['import'])}; "
          f"then, after the run, the projection kept: {_fmt(cold['settled'][0])})")
    print(f"  fresh process, projection of an earlier dream: {_fmt(day_after['runs'][0])} (imports {_fmt(day_after['import'])})")
    print(f"  fresh process, projection of this same dream:  {_fmt(again['runs'][0])}")
    warm = min(again["runs"][1:], key=lambda r: r[1])
    print(f"  warm (the watcher's process):                  {_fmt(warm)} (best of {len(again['runs']) - 1})")
    print(f"  {again['written']} shards written, the same bytes in every run; {again['summary']}")


if __name__ == "__main__":
    main()
