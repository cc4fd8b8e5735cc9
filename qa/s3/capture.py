#!/usr/bin/python3
"""capture.py PORTFILE LOGFILE - a loopback HTTP server that answers every
request 200 and logs it (method, path, headers in order, body) as one JSON
line, so a test can check a client's requests independently of any S3
server.  Writes the port it chose to PORTFILE."""
import base64
import http.server
import json
import sys


class Capture(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _handle(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        with open(sys.argv[2], "a") as log:
            log.write(json.dumps({
                "method": self.command,
                "path": self.path,
                "headers": list(self.headers.items()),
                "body": base64.b64encode(body).decode(),
            }) + "\n")
        self.send_response(200)
        self.send_header("ETag", '"0"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = do_GET = do_POST = _handle

    def log_message(self, *args):
        pass


srv = http.server.HTTPServer(("127.0.0.1", 0), Capture)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
