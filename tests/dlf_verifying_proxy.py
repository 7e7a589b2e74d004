"""A REST catalog proxy that checks every request's DLF signature with pypaimon's own signers
(run in the pypaimon oracle's interpreter), then forwards it to a bearer-token REST server.

    python dlf_verifying_proxy.py <upstream-url> <upstream-token> <key-id> <secret> <region>

Prints "@@URL@@ <url>" once it listens. For each request it rebuilds what pypaimon 2.1.0's
DLFDefaultSigner / DLFOpenApiSigner / DLFOpenApiV4Signer (picked by the Authorization's
scheme) send for the same method, path, query, body, key and security token, at the time and
with the nonce the request carries, and answers 401 unless every header pypaimon would send,
Authorization included, is sent with the same value. End of stdin stops it; a line "count"
on stdin is answered with the number of requests verified so far.
"""
from __future__ import annotations

import json
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pypaimon.api.auth.dlf_signer import (
    DLFDefaultSigner,
    DLFOpenApiSigner,
    DLFOpenApiV4Signer,
)
from pypaimon.api.token_loader import DLFToken
from pypaimon.api.typedef import RESTAuthParameter

UPSTREAM, UPSTREAM_TOKEN, KEY_ID, SECRET, REGION = sys.argv[1:6]
LOCK = threading.Lock()
VERIFIED = [0]


def _expected(method, path, query, body, headers):
    """pypaimon's headers for this request, or None when its scheme is unknown."""
    sent = headers.get("authorization", "")
    host = headers.get("host", "")
    if sent.startswith("DLF4-HMAC-SHA256 "):
        signer = DLFDefaultSigner(REGION)
        now = datetime.strptime(headers.get("x-dlf-date", ""), "%Y%m%dT%H%M%SZ")
        token_header = "x-dlf-security-token"
    elif sent.startswith("acs "):
        signer = DLFOpenApiSigner()
        now = parsedate_to_datetime(headers.get("date", ""))
        token_header = "x-acs-security-token"
    elif sent.startswith("ACS4-HMAC-SHA256 "):
        signer = DLFOpenApiV4Signer(REGION)
        now = datetime.strptime(headers.get("x-acs-date", ""), "%Y-%m-%dT%H:%M:%SZ")
        token_header = "x-acs-security-token"
    else:
        return None
    now = now.replace(tzinfo=timezone.utc)
    nonce = headers.get("x-acs-signature-nonce", "")
    signer._generate_unique_nonce = lambda *args: nonce
    security_token = headers.get(token_header)
    token = DLFToken(KEY_ID, SECRET, security_token)
    signed = signer.sign_headers(body, now, security_token, host)
    parameter = RESTAuthParameter(method=method, path=path, data=body, parameters=dict(query))
    signed["Authorization"] = signer.authorization(parameter, token, host, signed)
    return signed


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _handle(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8") if length else ""
        path, _, query_text = self.path.partition("?")
        query = dict(urllib.parse.parse_qsl(query_text, keep_blank_values=True))
        headers = {k.lower(): v for k, v in self.headers.items()}
        with LOCK:
            try:
                expected = _expected(self.command, path, query, body, headers)
            except Exception as error:  # a malformed date or header: not what pypaimon signs
                expected, problem = None, f"unusable request: {type(error).__name__}"
            else:
                problem = "unknown scheme" if expected is None else None
            if expected is not None:
                wrong = sorted(k for k, v in expected.items() if headers.get(k.lower()) != v)
                if wrong:
                    problem = "differs from pypaimon in " + ", ".join(wrong)
                else:
                    VERIFIED[0] += 1
        if problem is not None:
            self._answer(401, json.dumps({"message": problem, "code": 401}).encode())
            return
        request = urllib.request.Request(
            UPSTREAM + self.path, data=body.encode() if body else None, method=self.command,
            headers={"Authorization": "Bearer " + UPSTREAM_TOKEN,
                     "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                self._answer(answer.status, answer.read())
        except urllib.error.HTTPError as error:
            self._answer(error.code, error.read())

    def _answer(self, status, data):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _handle

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"@@URL@@ http://127.0.0.1:{server.server_address[1]}", flush=True)
    for line in sys.stdin:
        if line.strip() == "count":
            with LOCK:
                print(VERIFIED[0], flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
