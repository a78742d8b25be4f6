"""A `Claim` as JSON text and back, exactly: what a projection keeps of a claim it extracted.

The fields go in the dataclass's order; a frozenset is a sorted list (None stays None). A text
that is not such a list (another field count, a wrong type) reads as None: the caller
extracts the claim again.
"""
from __future__ import annotations

import json
from dataclasses import fields

from dreamdeck.core.claims.extract import Claim

__all__ = ["claim_from_json", "claim_to_json"]

_FIELDS = fields(Claim)
_SETS = tuple(str(f.type).startswith("frozenset") for f in _FIELDS)


def claim_to_json(claim: Claim) -> str:
    values = (sorted(v) if isinstance(v, frozenset) else v for v in (getattr(claim, f.name) for f in _FIELDS))
    return json.dumps(list(values), ensure_ascii=True, separators=(",", ":"))


def claim_from_json(text: str) -> Claim | None:
    try:
        values = json.loads(text)
    except ValueError:
        return None
    if not isinstance(values, list) or len(values) != len(_FIELDS):
        return None
    out = []
    for value, is_set in zip(values, _SETS, strict=True):
        if is_set and isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                return None
            value = frozenset(value)
        elif value is not None and not isinstance(value, (str, bool)):
            return None
        out.append(value)
    try:
        return Claim(*out)
    except TypeError:
        return None
