#!/usr/bin/python3
"""
bench/archive-range/write.py - a pmlogger-like archive of gen's stream,
written by PCP's own archive writer (libpcp_import, pcp.pmi):

    gen ... | write.py ARCHIVE

stackprof.oncpu.history (170.1.3, a string without instances) at each
value's time, as pmlogger logging it every second writes it.
"""
import sys
import cpmapi as api
from pcp import pmi

log = pmi.pmiLogImport(sys.argv[1])
log.pmiSetHostname("bench-host")
log.pmiSetTimezone("UTC")
log.pmiAddMetric("stackprof.oncpu.history", log.pmiID(170, 1, 3), api.PM_TYPE_STRING,
                 api.PM_INDOM_NULL, api.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
handle = log.pmiGetHandle("stackprof.oncpu.history", "")
inp = sys.stdin.buffer
while True:
    head = inp.readline()
    if not head:
        break
    sec, usec, length = (int(x) for x in head.split())
    log.pmiPutValueHandle(handle, inp.read(length))
    # pmlogger fetches a moment after the drain
    log.pmiWrite(sec, usec + 200000)
log.pmiEnd()
