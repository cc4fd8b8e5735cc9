#!/usr/bin/python3
# bench/series/history_archive.py - a pmlogger-like archive of one host's
# stackprof.oncpu.history, written with libpcp_import (PCP's python pmi):
# the PMDA's history format (docs/design.md, "History value"), one value a
# second: the first defines the host's threads, frames and stacks, every
# one after gives the counts of that second's drain.
#
#   history_archive.py ARCHIVE HOST START SECONDS [SEED [KEYFRAME_S [PHASE|aligned]]]
#
# With KEYFRAME_S, the first value and others are keyframes (stackprof.
# control.keyframe_s): every definition again, the header ending in
# " key".  "aligned", as the PMDA writes them now: the first value whose
# drain is past each multiple of KEYFRAME_S seconds since the epoch, the
# header saying "period KEYFRAME_S key"; PHASE (a number), as PMDAs
# before that did: each one PHASE + n * KEYFRAME_S seconds in, saying
# " key" alone.
#
# Each host has 10 processes of 4 threads and 1500 stacks 8-30 frames deep
# over 800 frame names, each stack a prefix of an earlier one and frames of
# its own (so stacks share prefixes, as real ones do); each second 150 (thread, stack) pairs ran
# 1-5 times.  A SEED of its own gives each host its own choice.
import random
import sys
from pcp import pmi
from cpmapi import PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_INSTANT

path, host, start, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(sys.argv[5] if len(sys.argv) > 5 else host)
keyframe_s = int(sys.argv[6]) if len(sys.argv) > 6 else 0
aligned = len(sys.argv) > 7 and sys.argv[7] == "aligned"
phase = int(sys.argv[7]) if len(sys.argv) > 7 and not aligned else 0

threads = []
for p in range(10):
    pid = 1000 + p
    for k in range(4):
        threads.append((len(threads) + 1, pid, pid + k, "proc%d" % p))
nframes = 800
stacks = []
seen = set()
while len(stacks) < 1500:
    depth = rng.randint(8, 30)
    base = list(rng.choice(stacks)) if stacks else []
    path_ = base[:rng.randint(0, min(len(base), depth - 1))]
    while len(path_) < depth:
        path_.append(rng.randint(1, nframes))
    key = tuple(path_)
    if key not in seen:
        seen.add(key)
        stacks.append(key)

log = pmi.pmiLogImport(path)
log.pmiSetHostname(host)
log.pmiSetTimezone("UTC")
log.pmiAddMetric("stackprof.oncpu.history", log.pmiID(170, 1, 3), PM_TYPE_STRING,
                 PM_INDOM_NULL, PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
for i in range(seconds):
    t = start + i
    if aligned:	# the drain (at t - 1) entered a new period
        key = keyframe_s > 0 and (i == 0 or (t - 1) // keyframe_s != (t - 2) // keyframe_s)
        mark = " period %d key" % keyframe_s
    else:
        key = keyframe_s > 0 and (i == 0 or (i >= phase and (i - phase) % keyframe_s == 0))
        mark = " key"
    lines = ["drains 1 %d.900000 hz 99%s" % (t - 1, mark if key else "")]
    if i == 0 or key:
        lines += ["t %d %d %d %s\t%s" % (tid, pid, tt, name, name) for tid, pid, tt, name in threads]
        lines += ["f %d fn_%d_%s" % (f, f, "x" * (f % 17)) for f in range(1, nframes + 1)]
        lines += ["s %d %s" % (s + 1, ",".join(map(str, st))) for s, st in enumerate(stacks)]
    ran = {}
    for _ in range(150):
        key = (rng.randrange(len(threads)), rng.randrange(len(stacks)) + 1)
        ran[key] = ran.get(key, 0) + rng.randint(1, 5)
    for th in range(len(threads)):
        sids = sorted(s for (t_, s) in ran if t_ == th)
        if sids:
            lines.append("%d %s" % (threads[th][0], " ".join(
                "%d:%d" % (s, ran[(th, s)]) if ran[(th, s)] > 1 else "%d" % s for s in sids)))
    log.pmiPutValue("stackprof.oncpu.history", "", "\n".join(lines))
    log.pmiWrite(t, 0)
log.pmiEnd()
