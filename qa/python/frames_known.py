# A known Python workload for qa/056 (run by Debian's /usr/bin/python3):
# the main thread serves requests (nested functions, a class method, a
# generator, json's and hashlib's C code) for argv[1] seconds; a thread
# sleeps in time.sleep, another blocks in queue.get (given an
# item every 50 ms, so that its blocks end and are recorded).  The threads' native
# ids go to argv[2]: "main TID", "sleeper TID", "waiter TID".
import hashlib, json, queue, sys, threading, time

END = time.time() + float(sys.argv[1])
ready = threading.Barrier(3)

def sleeper():
    ready.wait()
    while time.time() < END:
        time.sleep(0.05)

def waiter(q):
    ready.wait()
    while q.get() is not None:
        pass

class Handler:
    def handle_request(self, doc):
        return parse_config(doc) + hash_blobs(doc)

def parse_config(doc):
    return len(json.loads(json.dumps(doc, sort_keys=True)))

def blobs(doc):
    for k in doc:
        yield k.encode() * 200

def hash_blobs(doc):
    n = 0
    for b in blobs(doc):
        n += hashlib.sha256(b).digest()[0]
    return n

def serve(h, doc, q):
    wake = 0
    while time.time() < END:
        h.handle_request(doc)
        if time.time() >= wake:		# the waiter's block ends, to be recorded
            q.put(1)
            wake = time.time() + 0.05

q = queue.Queue()
threads = {"sleeper": threading.Thread(target=sleeper),
           "waiter": threading.Thread(target=waiter, args=(q,))}
for t in threads.values():
    t.start()
ready.wait()
with open(sys.argv[2], "w") as f:
    print("main", threading.get_native_id(), file=f)
    for name, t in threads.items():
        print(name, t.native_id, file=f)
serve(Handler(), {"k%d" % i: [i, str(i) * 3, {"x": i * 1.5}] for i in range(200)}, q)
q.put(None)
for t in threads.values():
    t.join()
