"""The `anthropic` dreamer: Claude through the official SDK, speaking the protocol's tools.

It only ever writes to the `DreamScratch` it is given; any failure raises `DreamerError`
and the run throws the scratch away, so a failed or partial dream changes nothing.
`anthropic` is imported inside `dream()`: it takes over a second to import, and most
callers (the TUI, the offline dreamer, `auto` without a key) never need it.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

from dreamdeck.core.dreaming.prompt import SYSTEM_PROMPT, build_user_prompt, redact_for_llm
from dreamdeck.core.dreaming.protocol import (
    TOOL_SCHEMAS,
    DreamerError,
    DreamInput,
    DreamOutcome,
    DreamScratch,
)
from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.secrets import redact_secrets
from dreamdeck.core.store.settings import DEFAULT_LOSS_BOUND

_CACHE = {"type": "ephemeral"}


def _one_line(text: str, limit: int = 300) -> str:
    text = re.sub(r"\s+", " ", str(text)).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_result_text(result: str) -> tuple[str, bool]:
    """The result as sent back (through `redact_for_llm`) and whether it is an error."""
    try:
        data = load_json(result)
    except ValueError:
        return redact_for_llm(result), True
    is_error = not (isinstance(data, dict) and data.get("ok") is True)
    return json.dumps(redact_for_llm(data), ensure_ascii=False), is_error


def _assistant_blocks(content: list[Any]) -> list[dict[str, Any]]:
    """The model's turn as it is sent back. Its text and tool inputs pass the same redaction as
    everything else; thinking blocks go back untouched (the API checks their signature)."""
    blocks: list[dict[str, Any]] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            if block.text:  # the API rejects empty text blocks when they are sent back
                blocks.append({"type": "text", "text": redact_for_llm(block.text)})
        elif kind == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": redact_for_llm(block.input)})
        elif hasattr(block, "model_dump"):
            blocks.append(block.model_dump(exclude_none=True))
    return blocks


def _tool_results(scratch: DreamScratch, tool_uses: list[Any]) -> list[dict[str, Any]]:
    """Each tool call run against the scratch (non-dict input is refused there), answered in order."""
    results = []
    for use in tool_uses:
        text, is_error = _tool_result_text(scratch.dispatch(use.name, use.input))
        results.append({"type": "tool_result", "tool_use_id": use.id, "content": text, "is_error": is_error})
    return results


def _with_cache_breakpoint(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy whose last user block is a cache breakpoint, so each turn re-reads the prefix
    from cache. Only one moving breakpoint (plus the system one): the API allows four."""
    last = messages[-1]
    content = last["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    content = [*content[:-1], {**content[-1], "cache_control": _CACHE}]
    return [*messages[:-1], {**last, "content": content}]


class AnthropicDreamer:
    name = "anthropic"

    def __init__(
        self,
        model: str,
        max_output_tokens: int = 8000,
        timeout_seconds: float = 120.0,
        max_retries: int = 3,
        max_turns: int = 40,
        loss_bound: float = DEFAULT_LOSS_BOUND,
        api_key: str | None = None,
        base_url: str | None = None,
    ):
        if not model:
            raise BadInput("a model is required (no model is hardcoded)")
        self.model = model
        self.max_output_tokens = max_output_tokens
        self.timeout_seconds = timeout_seconds
        self.max_retries = max_retries
        self.max_turns = max_turns
        self.loss_bound = loss_bound
        self._api_key = api_key
        self.base_url = base_url  # None: the SDK reads ANTHROPIC_BASE_URL itself

    def _key(self) -> str:
        key = self._api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise DreamerError("anthropic: no API key (set ANTHROPIC_API_KEY)")
        return key

    def dream(self, inp: DreamInput, scratch: DreamScratch) -> DreamOutcome:
        import anthropic  # lazy: see the module docstring

        key = self._key()
        outcome = scratch.outcome
        scratch.bound_loss(inp, self.loss_bound)  # finish is refused back to the model past the bound
        messages: list[dict[str, Any]] = [{"role": "user", "content": build_user_prompt(inp)}]

        with anthropic.Anthropic(
            api_key=key, base_url=self.base_url,
            timeout=self.timeout_seconds, max_retries=self.max_retries,
        ) as client:
            for _turn in range(self.max_turns):
                resp = self._ask(anthropic, client, messages)
                self._count(outcome, resp.usage)
                self._refuse_cut_turn(resp.stop_reason)
                tool_uses = [b for b in resp.content if isinstance(b, anthropic.types.ToolUseBlock)]
                messages.append({"role": "assistant", "content": _assistant_blocks(resp.content)})
                if not tool_uses:
                    if resp.stop_reason == "pause_turn":
                        continue  # the API asks us to send the turn back as is
                    # end_turn (or a stop sequence) without finish: a terse but normal end,
                    # unless it leaves more unaccounted for than the loss bound allows.
                    over = scratch.over_loss_bound()
                    if over:
                        raise DreamerError(f"anthropic: the dream ended with {over}; nothing changed")
                    return outcome
                results = _tool_results(scratch, tool_uses)
                if outcome.finished:
                    return outcome
                messages.append({"role": "user", "content": results})

        raise DreamerError(f"anthropic: no finish after {self.max_turns} turns")

    def _ask(self, anthropic: Any, client: Any, messages: list[dict[str, Any]]) -> Any:
        """One turn of the conversation; an API failure becomes one line a reviewer can act on."""
        try:
            # Plain dicts in the wire shape: the SDK's TypedDicts describe them, but our
            # builders are checked by the wire tests, not by the SDK's type unions.
            return client.messages.create(
                model=self.model,
                max_tokens=self.max_output_tokens,
                system=[{"type": "text", "text": SYSTEM_PROMPT, "cache_control": _CACHE}],
                tools=TOOL_SCHEMAS,
                messages=_with_cache_breakpoint(messages),
            )
        except anthropic.AnthropicError as err:
            raise DreamerError(self._describe(anthropic, err)) from err

    def _refuse_cut_turn(self, stop_reason: str | None) -> None:
        """A turn that did not end on its own terms is never acted on."""
        if stop_reason == "max_tokens":
            # The last block may be a tool call cut in half: never execute it.
            raise DreamerError(
                f"anthropic: output hit max_tokens ({self.max_output_tokens}) before the dream finished"
            )
        if stop_reason == "refusal":
            raise DreamerError("anthropic: the model refused to dream")
        if stop_reason == "model_context_window_exceeded":
            raise DreamerError("anthropic: the conversation outgrew the model's context window")

    @staticmethod
    def _count(outcome: DreamOutcome, usage: Any) -> None:
        if usage is None:
            return
        # Cached prompt tokens are still input the run consumed.
        outcome.input_tokens += (
            (getattr(usage, "input_tokens", 0) or 0)
            + (getattr(usage, "cache_creation_input_tokens", 0) or 0)
            + (getattr(usage, "cache_read_input_tokens", 0) or 0)
        )
        outcome.output_tokens += getattr(usage, "output_tokens", 0) or 0

    def _describe(self, anthropic: Any, err: Exception) -> str:
        """One line a reviewer can act on; never the key, never a multi-line body."""
        retries = f"after {self.max_retries} retries"
        if isinstance(err, anthropic.APITimeoutError):
            return f"anthropic: request timed out ({self.timeout_seconds:g}s) {retries}"
        if isinstance(err, anthropic.APIConnectionError):
            return _one_line(f"anthropic: cannot reach the API {retries}: {err}")
        if isinstance(err, anthropic.APIStatusError):
            status = err.status_code
            detail = ""
            body = err.body
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                detail = str(body["error"].get("message") or "")
            detail = redact_secrets(detail or str(err))
            if status == 429:
                return f"anthropic: rate limited (429) {retries}"
            if status == 529:
                return f"anthropic: API overloaded (529) {retries}"
            if status >= 500:
                return f"anthropic: server error ({status}) {retries}"
            if status == 401:
                return "anthropic: authentication failed (401); check ANTHROPIC_API_KEY"
            if status == 403:
                return _one_line(f"anthropic: permission denied (403): {detail}")
            return _one_line(f"anthropic: request rejected ({status}): {detail}")
        return _one_line(f"anthropic: {type(err).__name__}: {redact_secrets(str(err))}")
