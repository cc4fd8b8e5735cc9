#!/usr/bin/python3
"""stub.py PORTFILE LOGFILE MODE [BUILDID=FILE ...] - a loopback HTTP server
that misbehaves as a debuginfod server may, for the qa tests.

  hang   accept every connection, read the request, never answer
  serve  GET /buildid/BUILDID/debuginfo answers the bytes of FILE (200, with
         a Content-Length), whatever FILE is: another binary, garbage;
         anything else 404

Each request's path is appended to LOGFILE as it arrives.  Writes the port
it chose to PORTFILE."""
import http.server
import os
import socketserver
import sys
import time

portfile, logfile, mode = sys.argv[1:4]
files = dict(arg.split("=", 1) for arg in sys.argv[4:])


class Stub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        with open(logfile, "a") as log:
            log.write(self.path + "\n")
        if mode == "hang":
            while True:
                time.sleep(3600)
        parts = self.path.split("/")
        path = files.get(parts[2]) if len(parts) == 4 and parts[1] == "buildid" \
            and parts[3] == "debuginfo" else None
        if path is None:
            self.send_error(404)
            return
        with open(path, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Stub)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
