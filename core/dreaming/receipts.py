"""Dream receipts: what one run saw, did and collected (memory/meta/receipts/<id>.json)."""
from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass, field
from datetime import datetime

from dreamdeck.core.workspace import Workspace


@dataclass
class DreamReceipt:
    id: str
    started: str
    dreamer: str
    trigger: str
    review: str
    status: str = "skipped"  # skipped | applied | pending | mixed | reverted | failed | dry-run | nothing
    fragments_seen: int = 0
    days: list[str] = field(default_factory=list)
    shards_created: list[str] = field(default_factory=list)
    shards_changed: list[str] = field(default_factory=list)
    shards_deleted: list[str] = field(default_factory=list)
    auto_applied: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    citations_added: int = 0
    superseded_added: int = 0
    fragments_dropped: list[str] = field(default_factory=list)
    watermarks_dropped: int = 0
    reverted: bool = False
    lost: list[str] = field(default_factory=list)
    reflection: str | None = None
    commit: str | None = None
    summary: str = ""
    questions: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    elapsed_ms: int = 0
    dreamer_ms: int = 0
    message: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def new_receipt_id(now: datetime) -> str:
    return "d-" + now.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def receipt_text(receipt: DreamReceipt) -> str:
    return json.dumps(receipt.to_json(), ensure_ascii=False, indent=2) + "\n"


def receipt_message(r: DreamReceipt) -> str:
    parts = [f"{r.fragments_seen} fragment(s) from {len(r.days)} day(s)"]
    if r.auto_applied:
        parts.append(f"{len(r.auto_applied)} change(s) applied")
    if r.pending:
        parts.append(f"{len(r.pending)} held for review in {r.reflection}")
    if r.fragments_dropped:
        parts.append(f"{len(r.fragments_dropped)} uncited fragment(s) collected")
    return ", ".join(parts)


def list_receipts(ws: Workspace, limit: int = 20) -> list[dict]:
    folder = ws.meta_dir / "receipts"
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("d-*.json"), reverse=True)[:limit]:
        try:
            out.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError):
            continue
    return out
