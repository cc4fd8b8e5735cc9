#!/usr/bin/python3
# bench/live/contexts.py N SECONDS - what N live pages ask of pmcd, without
# pmproxy: N pmapi contexts to the local pmcd, each fetching the three
# histories once a second, as pmproxy does for a page's web context (one
# pmcd client each, docs/design.md "Live page").  Prints "open" on stderr
# once every context has fetched, "closing" before they close, and the
# history bytes a context took per second on stdout.
import sys
import time
from pcp import pmapi
import cpmapi as c_api

n, seconds = int(sys.argv[1]), float(sys.argv[2])
names = ["stackprof.%s.history" % e for e in ("oncpu", "offcpu", "pagefault")]
contexts = [pmapi.pmContext(c_api.PM_CONTEXT_HOST, "local:") for _ in range(n)]
pmids = [ctx.pmLookupName(names) for ctx in contexts]
got = 0


def fetch_all():
    global got
    for ctx, ids in zip(contexts, pmids):
        result = ctx.pmFetch(ids)
        for i in range(result.contents.numpmid):
            vset = result.contents.get_vset(i)
            for j in range(vset.contents.numval):
                got += vset.contents.vlist[j].value.pval.contents.vlen
        ctx.pmFreeResult(result)


fetch_all()		# each context's first fetch starts its cursor
print("open", file=sys.stderr, flush=True)
got = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    fetch_all()
    time.sleep(1)
print("closing", file=sys.stderr, flush=True)
print("%.2f KB/s per context" % (got / 1024 / seconds / n))
