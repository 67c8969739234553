"""HTTP mechanics: read a request, hand it to the routes, answer JSON, log one line.

Whatever goes wrong inside is answered as JSON with a status code and logged to stderr;
a client never sees a traceback, and no request can take the server down.
"""

from __future__ import annotations

import json
import socket
import sys
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlsplit

from ops_service.errors import BadRequest, ServiceError, TooLarge
from ops_service.routes import Reply, Request, dispatch

MAX_BODY_BYTES = 1 << 20


class OpsRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a client's requests share one connection
    server_version = "ops-service/1"
    # An idle keep-alive connection holds a thread; drop it after this many seconds.
    timeout = 30

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; with Nagle's algorithm the second waits for
        # the client's delayed ACK, and every request takes 40 ms instead of 1.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _handle(self) -> None:
        started = time.perf_counter()
        try:
            reply = dispatch(self.server.database, self._read())  # type: ignore[attr-defined]
        except ServiceError as error:
            reply = Reply(error.status, {"error": str(error)})
        except Exception:
            self.log_message("internal error:\n%s", traceback.format_exc().rstrip())
            reply = Reply(500, {"error": "internal error"})
        self._send(reply)
        elapsed_ms = (time.perf_counter() - started) * 1000
        tenant = self.headers.get("X-Tenant") or "-"
        self.log_message("%s %s tenant=%s %d %.1fms", self.command, self.path, tenant, reply.status, elapsed_ms)

    def _read(self) -> Request:
        raw_length = self.headers.get("Content-Length") or "0"
        if self.headers.get("Transfer-Encoding") or not raw_length.isdigit():
            # Without a length the body's end is unknown, so the connection cannot be reused.
            self.close_connection = True
            raise BadRequest("send the body with a Content-Length header")
        length = int(raw_length)
        if length > MAX_BODY_BYTES:
            self.close_connection = True  # the unread body would be taken for the next request
            raise TooLarge(f"the body is larger than {MAX_BODY_BYTES} bytes")
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        return Request(
            method=self.command,
            path=url.path,
            query=dict(parse_qsl(url.query)),
            tenant_header=self.headers.get("X-Tenant"),
            key_header=self.headers.get("Idempotency-Key"),
            raw_body=body,
        )

    def _send(self, reply: Reply) -> None:
        data = json.dumps(reply.body, separators=(",", ":")).encode("utf-8")
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            self.close_connection = True  # the client went away; nobody is left to answer

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # The base class answers malformed requests (bad request line, oversized headers,
        # unknown methods) with an HTML page; clients of this service read JSON.
        self.close_connection = True
        # A request line too broken to parse leaves the base class assuming HTTP/0.9, which
        # has no status line or headers: answer as HTTP/1.1 so the client sees the status.
        if not self.request_version.startswith("HTTP/1."):
            self.request_version = "HTTP/1.1"
        self._send(Reply(code, {"error": message or HTTPStatus(code).phrase}))
        self.log_message("%s %d %s", (self.requestline or "-")[:200], code, message or "")

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass  # _handle logs one line per request, with the tenant and the time taken

    def log_message(self, format: str, *args: object) -> None:
        sys.stderr.write(f"{self.log_date_time_string()} {self.address_string()} {format % args}\n")
