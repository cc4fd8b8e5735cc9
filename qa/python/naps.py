# A workload for qa/059 (Debian's /usr/bin/python3): six threads that nap
# 0.2 ms at a time 21 Python calls deep, and a main thread spinning 21
# calls deep, for argv[1] seconds: thousands of off-CPU blocks a second,
# each counted (its user stack walked) as the thread returns from its
# syscall, while the CPUs are busy enough that samples come meanwhile.
import sys, threading, time

END = time.time() + float(sys.argv[1])

def nap(d):
    return nap(d - 1) if d else time.sleep(0.0002)

def napper():
    while time.time() < END:
        nap(20)

def spin(d):
    if d:
        return spin(d - 1)
    n = 0
    while time.time() < END:
        n += 1

threads = [threading.Thread(target=napper) for i in range(6)]
for t in threads:
    t.start()
spin(20)
for t in threads:
    t.join()
