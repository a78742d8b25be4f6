"""Benchmark: the stream view's tombstone pre-check on one day file (a script, not a test).

    .venv/bin/python bench/bench_tombstone_precheck.py [--lines N]

Generates one day of N fragment lines (default 40,000) in TypeClaw's line format, in memory,
and times `stream_days.index_bytes` (what the stream view runs on every day it reads) with:
  * no tombstones (the floor);
  * ten content tombstones whose topics the day does not hold (the usual case);
  * ten content tombstones, one of whose topics a fifth of the day's lines hold (parsed);
  * ten tombstones of statements (a body hash: forgotten under any topic, so no needle; every
    line is parsed);
the same three on a day where every tenth line holds non-ASCII text (accents, CJK, emoji).
Each figure is the best of 5 runs, CPU seconds (`time.process_time`) beside wall time, and the
ratio to the floor. It runs unchanged on older code (run it in a checkout of main to compare).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from timing import best  # noqa: E402

from dreamdeck.core.formats.events import build_fragment, fragment_content_hash, serialize_event  # noqa: E402
from dreamdeck.core.formats.ids import iso_from_ms  # noqa: E402
from dreamdeck.core.index.stream_days import index_bytes  # noqa: E402
from dreamdeck.core.store.tombstones import NOTHING_FORGOTTEN, Forgotten, Tombstone  # noqa: E402

TOPICS = ("deploys", "editor", "coffee", "testing", "reviews")
NON_ASCII = ("le café près de la gare", "数据库迁移到法兰克福", "the build is green 🎉")
BASE_MS = 1_779_408_000_000


def day_bytes(lines: int, non_ascii: bool) -> bytes:
    out = []
    for n in range(lines):
        ms = BASE_MS + n * 1000
        h = f"{ms:012x}"
        fid = f"{h[:8]}-{h[8:12]}-7{n % 4096:03x}-8{n % 4096:03x}-{n:012x}"
        body = f"fragment {n}: the agent noticed that build {n * 7919 % 10007} passed"
        if non_ascii and n % 10 == 0:
            body += " " + NON_ASCII[n % 3]
        ev = build_fragment(fid, iso_from_ms(ms), source="sess-1", entry=f"e{n:07x}", topic=TOPICS[n % 5], body=body)
        out.append(serialize_event(ev))
    return ("\n".join(out) + "\n").encode("utf-8")


def stones(topics: list[str], with_bodies: bool = False) -> Forgotten:
    found = {}
    fields = {f.name for f in dataclasses.fields(Tombstone)}
    for i, topic in enumerate(topics):
        body = f"the forgotten text number {i}"  # a statement (four words or more): a body hash
        extra = {}
        if "loose" in fields:  # this branch's records keep the loose hash too
            from dreamdeck.core.formats.loose_text import loose_content_hash

            extra["loose"] = loose_content_hash(topic, body)
        if "body" in fields and with_bodies:  # and the statement's hash under any topic
            from dreamdeck.core.formats.loose_text import loose_body_hash

            extra["body"] = loose_body_hash(body)
        stone = Tombstone("2026-05-01", f"gone-{i}", fragment_content_hash(topic, body), "r", "me", "t",
                          False, topic, **extra)
        found[stone.key] = stone
    return Forgotten.of(found)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=40_000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    absent = stones([f"holiday plan {i}" for i in range(10)])
    present = stones(["deploys", *[f"holiday plan {i}" for i in range(9)]])
    statements = stones([f"holiday plan {i}" for i in range(10)], with_bodies=True)
    for non_ascii in (False, True):
        data = day_bytes(args.lines, non_ascii)
        floor_cpu, _floor_wall = best(lambda data=data: index_bytes(data, 0, NOTHING_FORGOTTEN))
        label = "non-ASCII tenth" if non_ascii else "ASCII"
        print(f"\n{args.lines:,} lines, {label}, {len(data) / 1e6:.1f} MB")
        for name, st in (("no tombstones", NOTHING_FORGOTTEN), ("10 content stones, topics absent", absent),
                         ("10 content stones, one topic on 1/5 of lines", present),
                         ("10 statement stones (any topic: every line parsed)", statements)):
            cpu, wall = best(lambda st=st, data=data: index_bytes(data, 0, st))
            print(f"  {name:46s} cpu {cpu * 1000:8.1f} ms  wall {wall * 1000:8.1f} ms  "
                  f"x{cpu / floor_cpu:5.2f} of the floor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
