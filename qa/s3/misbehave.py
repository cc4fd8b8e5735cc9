#!/usr/bin/python3
"""misbehave.py PORTFILE LOGFILE UPSTREAM PLANFILE - a loopback HTTP proxy in
front of an S3 server (UPSTREAM, "http://127.0.0.1:PORT") that misbehaves
as PLANFILE says, for the publishing tests.  Writes the port it chose to
PORTFILE and one line per request to LOGFILE: "METHOD PATH ACTION".

PLANFILE is read at every request; each line is

    METHOD PATH-REGEX ACTION COUNT

and the first COUNT requests matching METHOD (or "*") and the regex (searched
in the path) get ACTION; the rest are passed through.  A missing file or
line passes everything.  ACTIONs:

    500       answer 500 InternalError, S3's "try again", without asking UPSTREAM
    hang      a GET: UPSTREAM's answer, headers and half the body, then
              nothing for 60 s; a PUT: read half the body, then nothing
    truncate  UPSTREAM's answer with its whole Content-Length but half the
              body (at least one byte short), then the connection closed
    pass      UPSTREAM's answer as it is
"""
import http.client
import http.server
import os
import re
import sys
import threading
import time
import urllib.parse

PORTFILE, LOGFILE, UPSTREAM, PLANFILE = sys.argv[1:5]
lock = threading.Lock()
used = {}           # plan line -> requests it took


def action_for(method, path):
    try:
        lines = open(PLANFILE).read().splitlines()
    except OSError:
        return "pass"
    with lock:
        for line in lines:
            f = line.split()
            if len(f) != 4 or f[0].startswith("#"):
                continue
            if f[0] not in ("*", method) or not re.search(f[1], path):
                continue
            if used.get(line, 0) < int(f[3]):
                used[line] = used.get(line, 0) + 1
                return f[2]
    return "pass"


def log(method, path, action):
    with lock, open(LOGFILE, "a") as f:
        f.write("%s %s %s\n" % (method, path, action))


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def upstream(self, body):
        u = urllib.parse.urlparse(UPSTREAM)
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        headers["Host"] = u.netloc
        c.request(self.command, self.path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        hdrs = [(k, v) for k, v in r.getheaders()
                if k.lower() not in ("content-length", "transfer-encoding", "connection")]
        c.close()
        return r.status, hdrs, data

    def answer(self, status, headers, body, send=None, close=False):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body if send is None else body[:send])
        self.wfile.flush()

    def _handle(self):
        n = int(self.headers.get("Content-Length") or 0)
        action = action_for(self.command, self.path)
        log(self.command, self.path, action)
        if action == "hang" and self.command == "PUT":
            self.rfile.read(n // 2)
            time.sleep(60)
            self.close_connection = True
            return
        body = self.rfile.read(n) if n else b""
        if action == "500":
            doc = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code>'
                   b'<Message>We encountered an internal error. Please try again.</Message></Error>')
            self.answer(500, [("Content-Type", "application/xml")], doc)
            return
        status, headers, data = self.upstream(body)
        if action == "hang":
            self.answer(status, headers, data, send=len(data) // 2)
            time.sleep(60)
            self.close_connection = True
        elif action == "truncate":
            if not data:        # a PUT's empty answer: claim a body, send part
                data = b"<truncated-by-misbehave.py/>"
            self.answer(status, headers, data, send=min(len(data) // 2, len(data) - 1),
                        close=True)
            self.close_connection = True
        else:
            self.answer(status, headers, data)

    do_PUT = do_GET = do_HEAD = do_POST = do_DELETE = _handle

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
srv.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
