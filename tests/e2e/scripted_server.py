"""The HTTP plumbing the scripted model servers share (stdlib only): a threaded server on
127.0.0.1 and a free port that records every request, JSON and server-sent-event answers,
and start/stop as a context manager. Each model API's server (anthropic_server.py,
responses_server.py, gemini_server.py) subclasses it and says only what its API answers.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, List, NamedTuple, Optional, Tuple


class Request(NamedTuple):
    """One request as it arrived: its method, path (with the query) and JSON body ({} when
    it had none or it was not JSON)."""

    method: str
    path: str
    body: Any


def send_json(handler: BaseHTTPRequestHandler, obj: Any, status: int = 200) -> None:
    data = json.dumps(obj).encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def send_empty(handler: BaseHTTPRequestHandler, status: int) -> None:
    handler.send_response(status)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


def send_sse(handler: BaseHTTPRequestHandler, events: Iterable[Tuple[Optional[str], Any]], eol: str = "\n") -> None:
    """A whole server-sent-event stream, then the connection closes: ``events`` are
    (name, data) pairs, a name of None writing a data-only event (Gemini's form)."""
    chunks = []
    for name, data in events:
        head = "event: %s%s" % (name, eol) if name is not None else ""
        chunks.append("%sdata: %s%s%s" % (head, json.dumps(data), eol, eol))
    payload = "".join(chunks).encode("utf-8")
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Content-Length", str(len(payload)))
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(payload)
    handler.wfile.flush()
    handler.close_connection = True


class ScriptedHTTPServer(object):
    """``with Subclass(...) as server:`` serves on ``server.url`` until the block ends;
    ``server.received`` is every request, in arrival order. A subclass answers in
    ``answer(handler, request, n)`` (n: the request's 0-based place in ``received``) and,
    if its client asks for them, in ``answer_get``."""

    protocol_version = "HTTP/1.1"

    def __init__(self) -> None:
        self.received: List[Request] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = owner.protocol_version

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                owner._record(self, "HEAD", {})
                send_empty(self, 200)

            def do_GET(self) -> None:
                owner._record(self, "GET", {})
                owner.answer_get(self)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw.decode("utf-8")) if raw else {}
                except ValueError:
                    body = {}
                request, n = owner._record(self, "POST", body)
                owner.answer(self, request, n)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def _record(self, handler: BaseHTTPRequestHandler, method: str, body: Any) -> Tuple[Request, int]:
        request = Request(method, handler.path, body)
        with self.lock:
            self.received.append(request)
            return request, len(self.received) - 1

    def answer(self, handler: BaseHTTPRequestHandler, request: Request, n: int) -> None:
        raise NotImplementedError

    def answer_get(self, handler: BaseHTTPRequestHandler) -> None:
        send_empty(handler, 404)

    def __enter__(self) -> "ScriptedHTTPServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
