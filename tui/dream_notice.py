"""How the app announces a dream run: the toast's title, message and severity from its receipt.

One place for the words, so a skipped run is never "Dream finished", a failed one is an error,
and a dry run never points to a reflection it did not create (it creates none).
"""
from __future__ import annotations

TITLES = {"skipped": "Dream skipped", "failed": "Dream failed", "reverted": "Dream reverted", "dry-run": "Dry run"}


def receipt_notice(receipt: dict) -> tuple[str, str, str]:
    """(title, message, severity) for a finished run's receipt."""
    status = str(receipt.get("status") or "")
    message = str(receipt.get("message") or status)
    if receipt.get("reflection") and status in ("pending", "mixed"):
        message += f" — review {receipt['reflection']} on screen 2"
    severity = "error" if status in ("failed", "reverted") else "information"
    return TITLES.get(status, "Dream finished"), message, severity
