"""The one tool protocol every dreamer speaks.

A dreamer never touches the disk. It receives a `DreamInput` (the undreamed fragments, the
strength table, read access to the current shards) and works on a `DreamScratch`: an
in-memory copy of `memory/topics/`. Its only verbs are the tools below. The run diffs the
scratch against the snapshot afterwards, so a dreamer that fails half-way changes nothing.

Tool results are JSON text shaped like TypeClaw's delete tool:
`{"ok": true, ...}` or `{"ok": false, "reason": "...", "message": "..."}`; a refusal is
reported back to the model, never raised through it.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.core.formats.citations import CITATION
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.secrets import new_secret_families, redact_secrets
from dreamdeck.core.formats.slugs import SLUG_REGEX
from dreamdeck.core.index.strength import StrengthRow
from dreamdeck.core.index.undreamed import UndreamedFragment

# A shard is one belief with citations; anything near this size is a runaway write.
MAX_SHARD_BYTES = 64 * 1024
MAX_FINISH_ITEMS = 50
MAX_LISTED_UNACCOUNTED = 20  # named in a loss-bound refusal; the count says the rest
MAX_NOISE_ITEMS = 2000  # one per shown fragment at most; a run shows a few thousand at a time

_TOPIC_PATH = re.compile(r"^(?:memory/)?topics/([^/\\]+)\.md$")


@dataclass
class DreamInput:
    today: str  # YYYY-MM-DD, the workspace's local day
    fragments: list[UndreamedFragment]  # oldest day first, file order within a day
    strength_rows: list[StrengthRow]  # TypeClaw's strength table, a row per topic shard (empty: none)
    pinned: frozenset[str] = frozenset()  # slugs whose vault copy is human-owned
    references: frozenset[str] = frozenset()  # slugs under memory/references/
    # A private folder where a dreamer may keep projections of the shards between runs (None:
    # keep none); the offline dreamer keeps its index there (`dreaming.offline_projection`).
    cache_dir: Path | None = None
    # The body of a fragment a shard cites, by day and id (None: not in the streams); the offline
    # dreamer reads a reading's superseded evidence when the reading returns to an old value.
    evidence: Callable[[str, str], str | None] | None = None


@dataclass
class DreamOutcome:
    summary: str = ""
    questions: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    archive: list[str] = field(default_factory=list)  # slugs proposed for archival
    finished: bool = False  # the dreamer called finish (a run without it is partial)
    input_tokens: int = 0
    output_tokens: int = 0
    tool_errors: list[str] = field(default_factory=list)  # refusals reported to the model
    # Evidence a dreamer leaves uncited on purpose, each with its reason, for the run's receipt:
    folded: dict[str, str] = field(default_factory=dict)  # "DATE#ID" -> the "DATE#ID" it duplicates
    noise: dict[str, str] = field(default_factory=dict)  # "DATE#ID" -> why it carries nothing durable
    changes: dict[str, str] = field(default_factory=dict)  # slug -> one line: what happened to its claim
    # Work the dreamer leaves for after the run (keeping a projection in `cache_dir`), so the
    # run's changes never wait for it; it changes no shard and fails silently. The run calls it
    # once its changes are applied, still under the dream lock.
    settle: Callable[[], None] | None = field(default=None, repr=False, compare=False)


class DreamerError(DreamdeckError):
    """The dreamer could not complete (network, timeout, refusal). The run changes nothing."""


class Dreamer(Protocol):
    name: str
    # A dreamer that never reads the strength table (the offline one) sets this False, and the
    # run skips building it: parsing every shard's frontmatter is a large share of a run.
    reads_strength_table: bool

    def dream(self, inp: DreamInput, scratch: DreamScratch) -> DreamOutcome: ...


def _ok(**kw: Any) -> str:
    return json.dumps({"ok": True, **kw}, ensure_ascii=False)


def _refuse(reason: str, message: str) -> str:
    return json.dumps({"ok": False, "reason": reason, "message": message}, ensure_ascii=False)


class DreamScratch:
    """In-memory `topics/` the dreamer edits. `files` maps slug -> full shard text."""

    def __init__(self, shards: dict[str, str], pinned: frozenset[str] = frozenset()):
        self.original: dict[str, str] = dict(shards)
        self.files: dict[str, str] = dict(shards)
        self.pinned = pinned
        self.outcome = DreamOutcome()
        self.log: list[tuple[str, str, str]] = []  # (tool, target, result reason or "ok")
        self._bound: tuple[DreamInput, float] | None = None  # see bound_loss

    def bound_loss(self, inp: DreamInput, bound: float) -> None:
        """From now on `finish` refuses while more than `bound` (a share of the fragments shown
        in `inp`) is unaccounted for: neither cited, folded as a named duplicate, nor noise."""
        self._bound = (inp, bound)

    def over_loss_bound(self) -> str | None:
        """Why the dream so far leaves too much unaccounted for (None: within the bound, or unbounded)."""
        if self._bound is None:
            return None
        inp, bound = self._bound
        missing = unaccounted(inp, self)
        if len(missing) <= bound * len(inp.fragments):
            return None
        shown = ", ".join(f"streams/{m}" for m in missing[:MAX_LISTED_UNACCOUNTED])
        more = len(missing) - MAX_LISTED_UNACCOUNTED
        return (f"{len(missing)} of {len(inp.fragments)} fragments shown are neither cited, folded as a named "
                f"duplicate, nor declared noise (the loss bound is {bound:.0%}): {shown}"
                + (f" (+{more} more)" if more > 0 else ""))

    # --- reading -------------------------------------------------------------------
    def list_shards(self) -> str:
        return _ok(slugs=sorted(self.files))

    def read_shard(self, target: str) -> str:
        slug, err = self._resolve(target, for_write=False)
        if err:
            return err
        if slug not in self.files:
            return self._note("read", slug, _refuse("not_found", f"no topic shard {slug!r}"))
        return _ok(slug=slug, content=self.files[slug])

    # --- writing -------------------------------------------------------------------
    def write_shard(self, target: str, content: object) -> str:
        slug, err = self._resolve(target, for_write=True)
        if err:
            return err
        if not isinstance(content, str):
            return self._note("write", slug, _refuse("invalid_content", "content must be text"))
        if "\x00" in content:
            return self._note("write", slug, _refuse("invalid_content", "content holds a NUL byte"))
        size = len(content.encode("utf-8", "surrogatepass"))
        if size > MAX_SHARD_BYTES:
            return self._note(
                "write", slug,
                _refuse("too_large", f"{size} bytes exceeds the {MAX_SHARD_BYTES}-byte shard limit"),
            )
        secrets = new_secret_families(content, [self.original.get(slug)])
        if secrets:  # the dreamer only ever saw redacted text: a secret here is made up or leaked
            return self._note("write", slug, _refuse(
                "secret", f"the content holds a secret ({', '.join(secrets)}); write the fact without the value"))
        self.files[slug] = content
        return self._note("write", slug, _ok(path=f"memory/topics/{slug}.md"))

    def delete_shard(self, target: str) -> str:
        slug, err = self._resolve(target, for_write=True)
        if err:
            return err
        if slug not in self.files:
            return self._note("delete", slug, _refuse("not_found", f"no topic shard {slug!r}"))
        del self.files[slug]
        return self._note("delete", slug, _ok(path=f"memory/topics/{slug}.md"))

    def finish(
        self,
        summary: object = "",
        questions: object = (),
        contradictions: object = (),
        archive: object = (),
        noise: object = (),
    ) -> str:
        def strings(value: object) -> list[str]:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, (list, tuple)):
                return []
            return [redact_secrets(str(v))[:2000] for v in value if str(v).strip()][:MAX_FINISH_ITEMS]

        # These reach receipts, the review queue and commit messages: never a secret.
        self.outcome.summary = redact_secrets(str(summary or ""))[:2000]
        self.outcome.questions = strings(questions)
        self.outcome.contradictions = strings(contradictions)
        self.outcome.archive = [s for s in strings(archive) if SLUG_REGEX.fullmatch(s)]
        self.outcome.noise, ignored = _noise(noise)
        over = self.over_loss_bound()
        if over:
            return self._note("finish", "", _refuse(
                "loss_bound", f"{over}. Cite each distinct observation in the shard of its claim, or list it under "
                              "noise with the reason it carries nothing durable, then call finish again."))
        self.outcome.finished = True
        if ignored:
            return _ok(finished=True, noise=len(self.outcome.noise), ignored=ignored)
        if noise:
            return _ok(finished=True, noise=len(self.outcome.noise))
        return _ok(finished=True)

    # --- helpers -------------------------------------------------------------------
    def _resolve(self, target: object, *, for_write: bool) -> tuple[str, str | None]:
        """Accept a bare slug or `memory/topics/<slug>.md`; refuse every other place."""
        verb = "write" if for_write else "read"
        if not isinstance(target, str) or not target.strip():
            return "", self._note(verb, str(target), _refuse("invalid_path", "a slug is required"))
        t = target.strip()
        if t.startswith(("memory/vault/", "vault/")):
            return "", self._note(verb, t, _refuse("forbidden", "the vault is human-owned; dreams may not write it"))
        if t.startswith(("memory/references/", "references/")):
            return "", self._note(verb, t, _refuse("forbidden", "references are verbatim artifacts; dreams may not write them"))
        m = _TOPIC_PATH.match(t)
        slug = m.group(1) if m else t
        if "/" in slug or "\\" in slug or ".." in slug or slug.startswith("."):
            return "", self._note(verb, t, _refuse("invalid_path", f"{t!r} is outside memory/topics/"))
        if not SLUG_REGEX.fullmatch(slug):
            return "", self._note(verb, t, _refuse("invalid_slug", f"slug {slug!r} must match {SLUG_REGEX.pattern}"))
        return slug, None

    def _note(self, tool: str, target: str, result: str) -> str:
        data = load_json(result)
        reason = "ok" if data.get("ok") else data.get("reason", "error")
        self.log.append((tool, target, reason))
        if not data.get("ok"):
            self.outcome.tool_errors.append(f"{tool} {target}: {data.get('message', reason)}")
        return result

    def dispatch(self, name: str, args: dict[str, Any]) -> str:
        """Run one tool call by its protocol name (used by LLM dreamers)."""
        if not isinstance(args, dict):
            return _refuse("invalid_arguments", "tool input must be an object")
        target = args.get("slug", args.get("path"))
        if name == "list_topic_shards":
            return self.list_shards()
        if name == "read_topic_shard":
            return self.read_shard(target)  # type: ignore[arg-type]
        if name == "write_topic_shard":
            return self.write_shard(target, args.get("content"))  # type: ignore[arg-type]
        if name == "delete_topic_shard":
            return self.delete_shard(target)  # type: ignore[arg-type]
        if name == "finish":
            return self.finish(
                args.get("summary", ""), args.get("questions", ()),
                args.get("contradictions", ()), args.get("archive", ()), args.get("noise", ()),
            )
        return _refuse("unknown_tool", f"no tool named {name!r}")

    def changed(self) -> bool:
        return self.files != self.original


def _noise(value: object) -> tuple[dict[str, str], list[str]]:
    """finish's `noise` as {"DATE#ID": reason}, and what could not be read as a cited fragment
    with a reason (each shown back to the model as it was given)."""
    found: dict[str, str] = {}
    ignored: list[str] = []
    items = value if isinstance(value, (list, tuple)) else [value] if value else []
    for item in list(items)[:MAX_NOISE_ITEMS]:
        cite = item.get("cite") if isinstance(item, dict) else None
        reason = item.get("reason") if isinstance(item, dict) else None
        m = CITATION.fullmatch(cite.strip()) if isinstance(cite, str) else None
        if m is None or not isinstance(reason, str) or not reason.strip():
            ignored.append(str(cite if isinstance(item, dict) and cite is not None else item)[:200])
            continue
        # the reason reaches the committed receipt and `dreams`: one line, never a secret
        found[f"{m.group(2)}#{m.group(3)}"] = redact_secrets(" ".join(reason.split()))[:500]
    return found, ignored


def unaccounted(inp: DreamInput, scratch: DreamScratch) -> list[str]:
    """The shown fragments ("DATE#ID", in the order shown) that the dream neither cites in a
    shard, nor folded as a named duplicate, nor declared noise with a reason: evidence the run
    would collect without a recorded reason (invariant 2 bounds how much)."""
    cited = {(m.group(2), m.group(3)) for text in scratch.files.values() for m in CITATION.finditer(text)}
    explained = set(scratch.outcome.folded) | set(scratch.outcome.noise)
    out: list[str] = []
    for f in inp.fragments:
        key = f"{f.date}#{f.id}"
        if (f.date, f.id) not in cited and key not in explained and key not in out:
            out.append(key)
    return out


# JSON schemas the LLM sees; the names are the protocol's, `dispatch` routes them.
TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "name": "list_topic_shards",
        "description": "List the slugs of every topic shard in memory/topics/.",
        "input_schema": {"type": "object", "properties": {}},
    },
    {
        "name": "read_topic_shard",
        "description": "Read one topic shard (frontmatter and body) by slug.",
        "input_schema": {
            "type": "object",
            "properties": {"slug": {"type": "string", "description": "e.g. package-manager"}},
            "required": ["slug"],
        },
    },
    {
        "name": "write_topic_shard",
        "description": (
            "Create or overwrite memory/topics/<slug>.md with the full shard text "
            "(frontmatter optional; the runtime recomputes cites/days/lastReinforced)."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "slug": {"type": "string", "pattern": SLUG_REGEX.pattern},
                "content": {"type": "string"},
            },
            "required": ["slug", "content"],
        },
    },
    {
        "name": "delete_topic_shard",
        "description": "Delete memory/topics/<slug>.md (only after its citations moved elsewhere).",
        "input_schema": {
            "type": "object",
            "properties": {"slug": {"type": "string"}},
            "required": ["slug"],
        },
    },
    {
        "name": "finish",
        "description": (
            "End the dream with a summary for the human reviewer. Every fragment shown must end up "
            "cited by some shard, or listed under noise with the reason it carries nothing durable."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "summary": {"type": "string"},
                "questions": {"type": "array", "items": {"type": "string"}},
                "contradictions": {"type": "array", "items": {"type": "string"}},
                "archive": {"type": "array", "items": {"type": "string"},
                            "description": "slugs proposed for archival"},
                "noise": {
                    "type": "array",
                    "description": "fragments left uncited on purpose, each with its reason",
                    "items": {
                        "type": "object",
                        "properties": {
                            "cite": {"type": "string", "description": "streams/YYYY-MM-DD#<id>, as given"},
                            "reason": {"type": "string", "description": "e.g. small talk; a duplicate of streams/…#…"},
                        },
                        "required": ["cite", "reason"],
                    },
                },
            },
            "required": ["summary"],
        },
    },
]
