"""Dream receipts: what one run saw, did and collected (memory/meta/receipts/<id>.json)."""
from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass, field
from datetime import datetime

from dreamdeck.core.door.changeset import collection_said
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.json_data import load_json
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
    # Fragments left uncited as true duplicates: "DATE#ID" -> the "DATE#ID" whose citation it repeats.
    folded: dict[str, str] = field(default_factory=dict)
    # Fragments an LLM dreamer left uncited as noise: "DATE#ID" -> the reason its finish gave.
    noise: dict[str, str] = field(default_factory=dict)
    # What the apply's compaction removed from the streams: "DATE#ID" -> why (door.collection).
    collected: dict[str, str] = field(default_factory=dict)
    watermarks_dropped: int = 0
    # stream day -> why its compaction waits (a writer may hold the file open: invariant 8)
    compaction_waiting: dict[str, str] = field(default_factory=dict)
    # the loss bound: the share of the fragments seen this run would leave uncited, when it was
    # over `[dreaming] loss_bound` and everything was held for review instead
    held_over_bound: float | None = None
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
    """What the run did; then the meter, in the words the door ends an applied run's receipt with
    (`door.changeset.collection_said`: the door writes the committed receipt)."""
    said = run_message(r)
    if r.fragments_dropped or r.status in ("applied", "mixed", "pending", "nothing"):
        said += ", " + collection_said(len(r.fragments_dropped), r.compaction_waiting)  # the meter, 0 included
    return said


def run_message(r: DreamReceipt) -> str:
    """What the run saw and decided, before its apply collects anything."""
    parts = [f"{counted(r.fragments_seen, 'fragment')} from {counted(len(r.days), 'day')}"]
    if r.auto_applied:
        parts.append(f"{counted(len(r.auto_applied), 'change')} applied")
    if r.pending:
        parts.append(f"{len(r.pending)} held for review in {r.reflection}")
    if r.held_over_bound is not None:
        parts.append(f"held for review: it would leave {r.held_over_bound:.0%} of them uncited, over the loss bound")
    if r.folded:
        parts.append(f"{counted(len(r.folded), 'duplicate')} folded")
    if r.noise:
        parts.append(f"{counted(len(r.noise), 'noise fragment')} left uncited")
    return ", ".join(parts)


def list_receipts(ws: Workspace, limit: int = 20) -> list[dict]:
    folder = ws.meta_dir / "receipts"
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("d-*.json"), reverse=True)[:limit]:
        try:
            out.append(load_json(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError):
            continue
    return out
