"""A local HTTP server that speaks the Anthropic Messages API, driven by a script.

Point the official SDK at it with `base_url=server.base_url`. Each POST /v1/messages
consumes the next step of the script:
- `Reply(content, stop_reason)`: a 200 message with those content blocks;
- `Fail(status, type, message, headers)`: an API error body with that status;
- `Stall(seconds, then)`: wait (to trip client timeouts), then answer with `then`.
Every request is recorded (path, headers, parsed body) before it is validated, so tests
can assert exactly what left the process. Like the real API, it refuses requests without
a key (`x-api-key`, or `Authorization: Bearer` as SDK 2.x sends it) or `anthropic-version`,
malformed bodies, and tool_use blocks not answered by tool_result blocks in the next turn.
"""
from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ids = itertools.count(1)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(name: str, input: dict[str, Any] | None = None, id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": id or f"toolu_fake_{next(_ids):05d}", "name": name, "input": input or {}}


@dataclass
class Reply:
    content: list[dict[str, Any]]
    stop_reason: str | None = None  # default: tool_use if any block is one, else end_turn
    input_tokens: int = 100
    output_tokens: int = 20


@dataclass
class Fail:
    status: int
    type: str
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Stall:
    seconds: float
    then: Reply | None = None


Step = Reply | Fail | Stall


def rate_limited(retry_after_ms: int = 10) -> Fail:
    return Fail(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit",
                {"retry-after-ms": str(retry_after_ms), "retry-after": "0"})


def overloaded(retry_after_ms: int = 10) -> Fail:
    return Fail(529, "overloaded_error", "Overloaded", {"retry-after-ms": str(retry_after_ms)})


def unauthorized() -> Fail:
    return Fail(401, "authentication_error", "invalid x-api-key")


def bad_request(message: str = "invalid request") -> Fail:
    return Fail(400, "invalid_request_error", message)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or the raw text when it did not parse

    @property
    def api_key(self) -> str | None:
        """The credential sent: `x-api-key`, or the `Authorization: Bearer` form that
        SDK 2.x uses for API keys (both are accepted, like the real API)."""
        if self.headers.get("x-api-key"):
            return self.headers["x-api-key"]
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        return (token.strip() or None) if scheme.lower() == "bearer" else None


class FakeMessagesAPI:
    """Context manager: `with FakeMessagesAPI([Reply(...), ...]) as api: ... api.base_url`."""

    def __init__(self, script: Iterable[Step] = ()):
        self._script: list[Step] = list(script)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._served = itertools.count(1)
        self.requests: list[RecordedRequest] = []
        self.model_name = "claude-fake"
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- script and records ---------------------------------------------------------
    def add(self, *steps: Step) -> None:
        with self._lock:
            self._script.extend(steps)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def bodies(self) -> list[Any]:
        with self._lock:
            return [r.body for r in self.requests]

    def wire_text(self) -> str:
        """Every request body as received, for 'did X ever leave the process' checks."""
        with self._lock:
            return "\n".join(json.dumps(r.body, ensure_ascii=False) for r in self.requests)

    def _next_step(self) -> Step | None:
        with self._lock:
            return self._script.pop(0) if self._script else None

    # --- lifecycle ------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeMessagesAPI:
        fake = self

        class Handler(_Handler):
            api = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True  # a stalled handler must not block shutdown
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes stalled handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the API ---------------------------------------------------------------------
    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, str], Any]:
        try:
            body: Any = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest(method, path, headers, body)
        with self._lock:
            self.requests.append(request)

        if method != "POST" or path.split("?")[0] != "/v1/messages":
            return _error(404, "not_found_error", f"{method} {path} not found")
        if not request.api_key:
            return _error(401, "authentication_error", "x-api-key header is required")
        if not headers.get("anthropic-version"):
            return _error(400, "invalid_request_error", "anthropic-version header is required")
        problem = _validate(body)
        if problem:
            return _error(400, "invalid_request_error", problem)

        step = self._next_step()
        if step is None:
            # 400, not 5xx: the SDK must not retry a test that ran past its script.
            return _error(400, "invalid_request_error", "fake script exhausted")
        if isinstance(step, Stall):
            if self._stop.wait(step.seconds):
                return _error(400, "invalid_request_error", "server stopping")
            step = step.then or Reply([text("(late reply)")])
        if isinstance(step, Fail):
            return _error(step.status, step.type, step.message, step.headers)

        stop_reason = step.stop_reason or (
            "tool_use" if any(b.get("type") == "tool_use" for b in step.content) else "end_turn"
        )
        message = {
            "id": f"msg_fake_{next(self._served):05d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", self.model_name),
            "content": step.content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        }
        return 200, {}, message


def _error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    return status, dict(headers or {}), {"type": "error", "error": {"type": kind, "message": message}}


def _validate(body: Any) -> str | None:
    """The subset of the real API's request checks a dreamer can get wrong."""
    if not isinstance(body, dict):
        return "body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return "messages: first message must use the user role"
    for i, msg in enumerate(messages):
        if msg.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: must be user or assistant"
        content = msg.get("content")
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "text" and not block.get("text"):
                    return f"messages.{i}: text content blocks must be non-empty"
        if msg.get("role") != "assistant" or not isinstance(content, list):
            continue
        uses = {b["id"] for b in content if b.get("type") == "tool_use"}
        if not uses or i == len(messages) - 1:
            continue
        reply = messages[i + 1].get("content")
        answered = {b.get("tool_use_id") for b in reply if isinstance(b, dict) and b.get("type") == "tool_result"} \
            if isinstance(reply, list) else set()
        if uses - answered:
            return ("messages.%d: tool_use ids were found without tool_result blocks immediately after: %s"
                    % (i, ", ".join(sorted(uses - answered))))
        if answered - uses:
            return f"messages.{i + 1}: unexpected tool_use_id in tool_result blocks"
    return None


class _Handler(BaseHTTPRequestHandler):
    api: FakeMessagesAPI
    protocol_version = "HTTP/1.1"

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, extra, payload = self.api.handle(self.command, self.path, headers, raw)
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", f"req_fake_{id(payload):x}")
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout); nothing to tell it

    do_POST = _serve
    do_GET = _serve

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass
