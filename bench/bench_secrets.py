"""Benchmark: what the disguise work (look-alikes, spacing, base64/hex/% runs) adds to redaction.

    .venv/bin/python bench/bench_secrets.py [--texts N]

Generates N shard-sized texts (default 2,000, ~2 KB each) of six kinds — plain ASCII prose,
ASCII notes with git shas, sha256 sums and URLs, Chinese prose, Russian prose, Greek capitals,
JSON with `\\u` escapes (accents and CJK) — and times
`redact_secrets` on each kind against the literal rules alone (the same redaction without any
disguise work). Best of 5, CPU seconds (`time.process_time`) beside wall time, and the ratio
full / literal: the fast path keeps plain ASCII near 1.0. Runs unchanged on older code.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from timing import best  # noqa: E402

from dreamdeck.core.formats import secrets  # noqa: E402

WORDS = ("the user prefers", "during the standup", "after the deploy", "Dana said that", "the build",
         "was green again", "we moved the staging database", "on Tuesday", "and the tests pass", "in the review")
CJK = ("数据库迁移到法兰克福", "用户喜欢喝茶", "周二上线", "测试通过了", "代码审查")
GREEK = ("Η ΟΜΑΔΑ ΜΕΤΑΚΙΝΕΙ", "ΤΗΝ ΚΥΚΛΟΦΟΡΙΑ ΣΤΗΝ ΤΡΙΤΗ", "ΚΑΙ Ο ΠΕΛΑΤΗΣ ΣΥΜΦΩΝΗΣΕ", "ΟΙ ΕΛΕΓΧΟΙ ΠΕΡΑΣΑΝ")
ESCAPED = ('"caf\\u00e9 cr\\u00e8me"', '"Z\\u00fcrich"', '"\\u6570\\u636e\\u5e93\\u8fc1\\u79fb"', '"na\\u00efve r\\u00e9sum\\u00e9"')
RUSSIAN = ("Сергей предпочитает чай", "встреча в среду", "база данных переехала", "тесты прошли", "Анна сказала")


def text_of(kind: str, rng: random.Random) -> str:
    parts: list[str] = []
    while sum(len(p) for p in parts) < 2000:
        if kind == "ascii":
            parts.append(" ".join(rng.choice(WORDS) for _ in range(6)) + ".")
        elif kind == "hashes":
            digest = hashlib.sha256(str(rng.random()).encode()).hexdigest()
            parts.append(f"{rng.choice(WORDS)} commit {digest[:40]} sha256 {digest} see "
                         f"https://example.com/builds/{digest[:12]}?page=2.")
        elif kind == "json":
            parts.append("{" + ", ".join(f'"k{i}": {rng.choice(ESCAPED)}' for i in range(5)) + "}")
        else:
            words = {"chinese": CJK, "russian": RUSSIAN, "greek": GREEK}[kind]
            parts.append("，".join(rng.choice(words) for _ in range(5)) + "。")
    return "\n".join(parts)


def literal_redact(text: str) -> str:
    """The same redaction with the literal rules only (no disguise work): the floor."""
    out, pos = [], 0
    for f in secrets._literal_findings(text):
        if f.start < pos:
            pos = max(pos, f.end)
            continue
        out += [text[pos:f.start], secrets.REDACTED.format(family=f.family)]
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=2000)
    args = parser.parse_args()
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    rng = random.Random(7)
    for kind in ("ascii", "hashes", "chinese", "russian", "greek", "json"):
        texts = [text_of(kind, rng) for _ in range(args.texts)]
        floor_cpu, _ = best(lambda texts=texts: [literal_redact(t) for t in texts])
        cpu, wall = best(lambda texts=texts: [secrets.redact_secrets(t) for t in texts])
        print(f"{kind:8s} {args.texts} texts: literal {floor_cpu * 1000:7.1f} ms cpu, full {cpu * 1000:7.1f} ms cpu "
              f"({wall * 1000:7.1f} ms wall)  x{cpu / floor_cpu:4.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
