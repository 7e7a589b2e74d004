"""A counting HTTP reverse proxy for an S3 server (tests/s3_server.py's moto), for tests and
benches that need to know how many requests, and how many bytes, an operation costs.

API::

    from s3_proxy import S3Proxy          # tests/ on sys.path (bench: ``tests.s3_proxy``)

    proxy = S3Proxy.start(upstream="http://127.0.0.1:PORT", strip_conditional=False)
    proxy.endpoint          # "http://127.0.0.1:<proxy port>": give it to the client instead
    proxy.reset()           # zero every counter
    proxy.counts()          # snapshot: {"GET", "HEAD", "PUT", "POST", "DELETE", "LIST",
                            #   "OTHER", "requests", "request_bytes", "response_bytes",
                            #   "get_bytes"}  (ints)
    proxy.requests()        # the recorded requests since the last reset (record=True only):
                            #   [{"method", "kind", "path", "range", "status",
                            #     "request_bytes", "response_bytes"}]
    proxy.catalog_options(server, warehouse_uri)  # server.catalog_options with this endpoint
    proxy.stop()            # also: ``with S3Proxy.start(...) as proxy:``

Every request is forwarded unchanged: same method, path and query, same headers (the Host
header too, as the client sent it, so a SigV4 signature still matches what moto checks), same
body. Hop-by-hop headers (Connection, Keep-Alive, Transfer-Encoding, Expect, ...) are the
proxy's own business on each leg; a chunked request body is forwarded de-chunked with a
Content-Length.

Counting: one request of kind ``LIST`` for a GET with ``list-type`` in its query or a GET of a
bucket (``/bucket`` or ``/bucket/``), otherwise its method (``GET``, ``HEAD``, ``PUT``, ``POST``,
``DELETE``; anything else ``OTHER``). ``request_bytes`` / ``response_bytes``: body bytes only
(headers not counted), summed over all requests; ``get_bytes``: response bytes of object GETs.
A request is counted once its upstream answer is in, before the client receives it.

Counters of another process: ``GET /__s3proxy__/counts`` on the proxy returns ``counts()`` as
JSON, ``POST /__s3proxy__/reset`` resets them (neither is forwarded nor counted). The bench's
worker subprocesses use this to count exactly around their timed operation
(``remote_counts(endpoint)``, ``remote_reset(endpoint)``).

``strip_conditional=True`` removes the ``If-None-Match`` header from every PUT before
forwarding it, emulating a store that ignores conditional writes (a second
``put_object(IfNoneMatch="*")`` of one key then succeeds). Stripping a header the client
signed breaks its SigV4 signature in principle; moto does not verify signatures by default,
so the request is still accepted. ``proxy.strip_conditional`` may be changed while running.

Standalone: ``python tests/s3_proxy.py --upstream http://127.0.0.1:PORT [--port N]
[--strip-conditional]`` prints its endpoint on the first stdout line and serves until killed.
Python standard library only.
"""
from __future__ import annotations

import http.client
import json
import socket
import sys
import threading
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional

CONTROL_PREFIX = "/__s3proxy__/"
KINDS = ("GET", "HEAD", "PUT", "POST", "DELETE", "LIST", "OTHER")
# Headers that describe one connection, not the request: never forwarded.
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
               "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "expect"}
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def request_kind(method: str, target: str) -> str:
    """The counter a request goes to (see the module docstring)."""
    method = method.upper()
    parsed = urllib.parse.urlsplit(target)
    if method == "GET":
        query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        segments = [s for s in parsed.path.split("/") if s]
        if "list-type" in query or len(segments) <= 1:
            return "LIST"
        return "GET"
    return method if method in KINDS else "OTHER"


def _zero() -> Dict[str, int]:
    counts = {kind: 0 for kind in KINDS}
    counts.update(requests=0, request_bytes=0, response_bytes=0, get_bytes=0)
    return counts


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive towards the client, as S3 clients expect
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to many responses.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # quiet: a bench sends tens of thousands of requests

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                size_line = self.rfile.readline()
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()  # CRLF after the chunk
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _control(self) -> None:
        proxy = self.server.proxy
        if self.path.startswith(CONTROL_PREFIX + "counts"):
            payload = json.dumps(proxy.counts()).encode()
        elif self.path.startswith(CONTROL_PREFIX + "reset"):
            self._read_body()
            proxy.reset()
            payload = b"{}"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _forward(self) -> None:
        if self.path.startswith(CONTROL_PREFIX):
            self._control()
            return
        proxy = self.server.proxy
        method = self.command
        body = self._read_body()
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP]
        if method == "PUT" and proxy.strip_conditional:
            headers = [(k, v) for k, v in headers if k.lower() != "if-none-match"]
        if body or method in ("PUT", "POST"):
            headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
            headers.append(("Content-Length", str(len(body))))
        status, reason, response_headers, payload = proxy._send_upstream(method, self.path,
                                                                         headers, body)
        # Counted before the client sees the answer, so a caller reading the counts right
        # after its call returns finds it there.
        proxy._count(method, self.path, self.headers.get("Range"), status, len(body),
                     0 if method == "HEAD" else len(payload))
        self.send_response_only(status, reason)
        for key, value in response_headers:
            if key.lower() in _HOP_BY_HOP or key.lower() == "content-length":
                continue
            self.send_header(key, value)
        if method == "HEAD":
            length = next((v for k, v in response_headers if k.lower() == "content-length"), None)
            if length is not None:
                self.send_header("Content-Length", length)
        else:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if method != "HEAD" and payload:
            self.wfile.write(payload)
        self.wfile.flush()

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = do_PATCH = do_OPTIONS = _forward


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    proxy: S3Proxy


class S3Proxy:
    """A running counting proxy; see the module docstring."""

    def __init__(self, upstream: str, host: str = "127.0.0.1", port: int = 0,
                 strip_conditional: bool = False, record: bool = False) -> None:
        parsed = urllib.parse.urlsplit(upstream)
        if parsed.scheme != "http" or not parsed.hostname:
            raise ValueError(f"upstream must be http://host:port, not {upstream!r}")
        self.upstream = upstream
        self._up_host = parsed.hostname
        self._up_port = parsed.port or 80
        self.strip_conditional = strip_conditional
        self.record = record
        self._lock = threading.Lock()
        self._counts = _zero()
        self._log: List[Dict[str, Any]] = []
        self._local = threading.local()
        self._server = _Server((host, port), _Handler)
        self._server.proxy = self
        self.host = host
        self.port = int(self._server.server_address[1])
        self.endpoint = f"http://{host}:{self.port}"
        self._thread: Optional[threading.Thread] = None

    @classmethod
    def start(cls, upstream: str, host: str = "127.0.0.1", port: int = 0,
              strip_conditional: bool = False, record: bool = False) -> S3Proxy:
        proxy = cls(upstream, host, port, strip_conditional, record)
        proxy._thread = threading.Thread(target=proxy._server.serve_forever,
                                         name="s3-proxy", daemon=True)
        proxy._thread.start()
        return proxy

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> S3Proxy:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- counters ------------------------------------------------------------------------------

    def reset(self) -> None:
        with self._lock:
            self._counts = _zero()
            self._log = []

    def counts(self) -> Dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def requests(self) -> List[Dict[str, Any]]:
        with self._lock:
            return list(self._log)

    def _count(self, method: str, path: str, byte_range: Optional[str], status: int,
               request_bytes: int, response_bytes: int) -> None:
        kind = request_kind(method, path)
        with self._lock:
            c = self._counts
            c[kind] += 1
            c["requests"] += 1
            c["request_bytes"] += request_bytes
            c["response_bytes"] += response_bytes
            if kind == "GET":
                c["get_bytes"] += response_bytes
            if self.record:
                self._log.append({"method": method, "kind": kind, "path": path,
                                  "range": byte_range, "status": status,
                                  "request_bytes": request_bytes,
                                  "response_bytes": response_bytes})

    # -- upstream ------------------------------------------------------------------------------

    def _connection(self, fresh: bool = False) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None or fresh:
            if conn is not None:
                conn.close()
            conn = http.client.HTTPConnection(self._up_host, self._up_port, timeout=120)
            conn.connect()
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._local.conn = conn
        return conn

    def _send_upstream(self, method: str, path: str, headers: List[Any], body: bytes):
        for attempt in range(2):
            conn = self._connection(fresh=attempt > 0)
            try:
                conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
                for key, value in headers:
                    conn.putheader(key, value)
                conn.endheaders(body if body else None)
                response = conn.getresponse()
                payload = response.read()
                result = (response.status, response.reason, response.getheaders(), payload)
                if response.will_close:
                    conn.close()
                    self._local.conn = None
                return result
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # A kept-alive upstream connection the server closed meanwhile: retry once on
                # a new one (the request never reached it).
                if attempt:
                    raise
        raise AssertionError("unreachable")

    # -- helpers -------------------------------------------------------------------------------

    def catalog_options(self, server: Any, warehouse_uri: str) -> Dict[str, str]:
        """``server.catalog_options(warehouse_uri)`` with this proxy as the endpoint."""
        return {**server.catalog_options(warehouse_uri), "fs.s3.endpoint": self.endpoint}


def remote_counts(endpoint: str) -> Dict[str, int]:
    """``counts()`` of the proxy at ``endpoint`` (possibly in another process)."""
    with _DIRECT.open(endpoint + CONTROL_PREFIX + "counts", timeout=30) as response:
        return json.loads(response.read())


def remote_reset(endpoint: str) -> None:
    """``reset()`` of the proxy at ``endpoint``."""
    request = urllib.request.Request(endpoint + CONTROL_PREFIX + "reset", data=b"",
                                     method="POST")
    with _DIRECT.open(request, timeout=30):
        pass


def main(argv: List[str]) -> int:
    import argparse
    import signal
    import time

    parser = argparse.ArgumentParser(description="Counting reverse proxy for an S3 server.")
    parser.add_argument("--upstream", required=True, help="http://host:port of the server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--strip-conditional", action="store_true")
    args = parser.parse_args(argv)
    proxy = S3Proxy.start(args.upstream, args.host, args.port, args.strip_conditional)
    stop: List[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: stop.append(signum))
    signal.signal(signal.SIGINT, lambda signum, _frame: stop.append(signum))
    print(proxy.endpoint, flush=True)
    while not stop:
        time.sleep(0.2)
    proxy.stop()
    return 0


if __name__ == "__main__":
    socket.setdefaulttimeout(None)
    sys.exit(main(sys.argv[1:]))
