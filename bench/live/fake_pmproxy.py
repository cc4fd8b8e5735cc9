#!/usr/bin/env python3
"""fake_pmproxy.py PORT STACKS - a stand-in for pmproxy's /pmapi for the
live page's bench: one host whose history holds STACKS distinct stacks,
each counted every second, so the page's work per update is measured with
that many stacks on screen whatever the host runs.  The text follows
docs/design.md "History value"; definitions go once per context."""
import json, random, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, nstacks = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(1)
frames = ['f %d fn_%d' % (i, i) for i in range(1, 401)]
stacks = []
for sid in range(1, nstacks + 1):
    depth = rnd.randint(8, 30)
    stacks.append('s %d %s' % (sid, ','.join(str(rnd.randint(1, 400)) for _ in range(depth))))
contexts = {}

def value(ctx):
    now = time.time()
    if not contexts[ctx]:
        contexts[ctx] = True
        return None
    lines = ['drains 1 %.6f hz 99' % now]
    if contexts[ctx] is True:
        lines += ['t 1 4242 4242 bench\tbench'] + frames + stacks
        contexts[ctx] = 2
    lines.append('1 ' + ' '.join('%d:%d' % (s, rnd.randint(1, 9)) for s in range(1, nstacks + 1)))
    lines.append('h %.6f 50 %s' % (now, ' '.join(str(rnd.randint(0, 5)) for _ in range(50))))
    return '\n'.join(lines)

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        path = self.path.split('?')[0]
        if path == '/pmapi/context':
            ctx = len(contexts) + 1
            contexts[ctx] = False
            body = {'context': ctx, 'labels': {'hostname': 'fake'}}
        else:
            ctx = int(path.split('/')[2])
            vals = [{'name': 'stackprof.oncpu.history', 'instances': [{'instance': None, 'value': value(ctx)}]},
                    {'name': 'pmcd.pid', 'instances': [{'instance': None, 'value': 1}]},
                    {'name': 'stackprof.control.interval', 'instances': [{'instance': None, 'value': 1000}]}]
            body = {'context': ctx, 'timestamp': time.time(), 'values': vals}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Access-Control-Allow-Origin', '*')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

ThreadingHTTPServer(('127.0.0.1', port), H).serve_forever()
