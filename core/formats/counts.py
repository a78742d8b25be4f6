"""A count with its noun in a person's words: `counted(1, "shard")` is "1 shard", `counted(2, "shard")` "2 shards"."""
from __future__ import annotations


def counted(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")
