"""Benchmark: the offline dreamer's own time on a big memory (target: 2,000 new fragments against
10,000 shards in <= 2 s).

10,000 shards are written the way the offline dreamer writes them (one claim each: settings as
`key: value`, habits, rules, events; a few hundred topic labels), then 2,000 undreamed fragments
arrive over two days under 400 labels: restatements of existing claims, new values for existing
settings, same-day duplicates, and new claims. Only `OfflineDreamer().dream(...)` is timed (the
run's `dreamer_ms`), on an in-memory scratch: the first run in a fresh process, then the best warm run (the
watcher's process keeps what it read of unchanged shards). Wall and CPU time are both shown: on
a shared machine the CPU time is the steadier figure.
Run: `.venv/bin/python bench/quality/bench_dreamer_speed.py [--shards 10000] [--fragments 2000]`.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from dreamdeck.core.dreaming.offline import OfflineDreamer  # noqa: E402
from dreamdeck.core.dreaming.protocol import DreamInput, DreamScratch, UndreamedFragment  # noqa: E402
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


def build(shards: int, fragments: int, seed: int = 5) -> tuple[dict[str, str], list[UndreamedFragment]]:
    rng = random.Random(seed)
    claims = _claims(rng, shards)
    files = {}
    for i, (label, text, _key) in enumerate(claims):
        files[f"s{i:05d}-{'-'.join(label.split())}"[:64]] = _shard(text, [("2026-10-01", f"old-{i:05d}")])
    frags = []
    new_claims = _claims(random.Random(seed + 1), fragments)
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
        frags.append(UndreamedFragment(date=day, id=f"new-{n:05d}", topic=label, body=text))
    return files, frags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shards", type=int, default=10_000)
    parser.add_argument("--fragments", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files, frags = build(args.shards, args.fragments)
    runs = []
    for _ in range(args.repeat):
        scratch = DreamScratch(dict(files))
        started, cpu = time.perf_counter(), time.process_time()
        outcome = OfflineDreamer().dream(DreamInput(TODAY, list(frags), ""), scratch)
        runs.append((time.perf_counter() - started, time.process_time() - cpu))
    written = sum(1 for slug, text in scratch.files.items() if files.get(slug) != text)
    (cold, cold_cpu), warm = runs[0], min(runs[1:], default=runs[0])
    print(f"{args.fragments} fragments against {args.shards} shards: dreamer {cold:.2f} s in a fresh process "
          f"(CPU {cold_cpu:.2f} s), {warm[0]:.2f} s warm as the watcher runs it (CPU {warm[1]:.2f} s, "
          f"best of {len(runs) - 1 or 1}); {written} shards written; {outcome.summary}")


if __name__ == "__main__":
    main()
