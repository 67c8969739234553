"""A small OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benchmarks.

It answers from a queue of scripted replies (a completion, an error, a slow answer), records
every request it receives, and checks each request's shape; a request that does not fit is
answered 400 and its problem kept in `problems`, so a test can assert there were none.

    with FakeOpenAIServer(api_key="sk-test") as server:
        server.answer({"action": {"kind": "finish", "thought": "done"}})
        ... ProviderConfig(kind="openai", base_url=server.base_url, model="fake") ...
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REQUEST_ID = "req-fake-0001"


@dataclass(frozen=True)
class Scripted:
    status: int = 200
    content: str = ""
    finish_reason: str = "stop"
    input_tokens: int = 100
    output_tokens: int = 20
    # Sent as is instead of a completion (an error's body, or a 200 that is not a completion).
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeOpenAIServer:
    def __init__(self, *, api_key: str | None = None, model: str = "fake") -> None:
        self.api_key = api_key
        self.model = model
        self.requests: list[Received] = []
        self.problems: list[str] = []
        # Answered when the queue is empty (a benchmark's endless supply), else a 500.
        self.default: Scripted | None = None
        self._queue: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "the server is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answer(self, content: dict[str, Any] | str, **options: Any) -> None:
        text = content if isinstance(content, str) else json.dumps(content)
        self.enqueue(Scripted(content=text, **options))

    def error(self, status: int, message: str, *, headers: dict[str, str] | None = None, **options: Any) -> None:
        body = {"error": {"message": message, "type": "error", "param": None, "code": None}}
        self.enqueue(Scripted(status=status, body=body, headers=headers or {}, **options))

    def enqueue(self, reply: Scripted) -> None:
        with self._lock:
            self._queue.append(reply)

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def start(self) -> FakeOpenAIServer:
        self._stopping.clear()
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()  # wakes slow answers
        self._server.shutdown()
        self._server.server_close()
        assert self._thread is not None
        self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self) -> Scripted | None:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default

    def _check(self, headers: dict[str, str], body: dict[str, Any]) -> list[str]:
        problems = []
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            problems.append("missing or wrong bearer token")
        if not isinstance(body.get("model"), str) or not body["model"]:
            problems.append("no model")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            problems.append("no messages")
        elif not all(isinstance(m, dict) and set(m) == {"role", "content"} for m in messages):
            problems.append("a message is not {role, content}")
        elif messages[0]["role"] != "system" or messages[-1]["role"] != "user":
            problems.append("messages do not open with the system and end with the user")
        if not isinstance(body.get("max_tokens"), int) or not isinstance(body.get("seed"), int):
            problems.append("max_tokens and seed must be integers")
        problems.extend(_format_problems(body.get("response_format")))
        return problems


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 resets a burst of concurrent clients


def _format_problems(response_format: Any) -> list[str]:
    if not isinstance(response_format, dict):
        return ["no response_format"]
    if response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema", {})
        if not (spec.get("name") and spec.get("strict") is True and isinstance(spec.get("schema"), dict)):
            return ["json_schema needs a name, strict: true and a schema"]
        return _strict_problems(spec["schema"], "schema")
    if response_format.get("type") == "json_object":
        return [] if isinstance(response_format.get("schema"), dict) else ["json_object without a schema"]
    return [f"unknown response_format type {response_format.get('type')!r}"]


_UNSUPPORTED_STRICT = {"default", "title", "minLength", "maxLength", "allOf", "oneOf", "not", "if", "then", "else"}


def _strict_problems(schema: Any, where: str) -> list[str]:
    """OpenAI's documented rules for strict schemas, the ones our schemas could break."""
    if not isinstance(schema, dict):
        return []
    problems = [f"{where}: {key!r} is not supported" for key in sorted(_UNSUPPORTED_STRICT & set(schema))]
    if where == "schema" and (schema.get("type") != "object" or "anyOf" in schema):
        problems.append("schema: the root must be an object, not anyOf")
    properties = schema.get("properties")
    if isinstance(properties, dict):
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        if sorted(schema.get("required", [])) != sorted(properties):
            problems.append(f"{where}: every property must be required")
        for name, sub in properties.items():
            problems.extend(_strict_problems(sub, f"{where}.{name}"))
    for index, sub in enumerate(schema.get("anyOf", [])):
        problems.extend(_strict_problems(sub, f"{where}.anyOf[{index}]"))
    problems.extend(_strict_problems(schema.get("items"), f"{where}.items"))
    return problems


def _handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: clients reuse connections
        disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            headers = {name.lower(): value for name, value in self.headers.items()}
            received = Received(self.path, headers, body)
            with server._lock:
                server.requests.append(received)
            if not self.path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            problems = server._check(headers, body)
            if problems:
                with server._lock:
                    server.problems.extend(problems)
                self._send(400, {"error": {"message": "; ".join(problems), "type": "invalid_request_error"}})
                return
            reply = server._next()
            if reply is None:
                self._send(500, {"error": {"message": "the fake server has no scripted reply left"}})
                return
            if reply.delay_s and server._stopping.wait(reply.delay_s):
                return
            if reply.status != 200 or reply.body is not None:
                self._send(reply.status, reply.body or {}, reply.headers)
                return
            self._send(200, _completion(body, reply), {"x-request-id": REQUEST_ID, **reply.headers})

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _completion(request: dict[str, Any], reply: Scripted) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
        },
    }
