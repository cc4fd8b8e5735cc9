#!/usr/bin/env python3
"""gen_folded.py - the random host profile of issue 16, deterministic.

    gen_folded.py [STACKS [SEED]] > profile.folded

STACKS distinct stacks (default 100000), each a process (one of 12), a
thread, then 20 to 40 frames drawn at random from ~5,000 function names
(application, [l] library and [k] kernel frames): 32 frames a line on
average, about 71 MB.  Counts are exponential with mean ~10.5, so ~1.05 M
samples.  The lines come in generation order (unsorted); random stacks
share little beyond their first frames, so the tree has ~3 M nodes: the
worst case for a renderer, where sorted stackcollapse output lets prefix
caches do most of the work.

Only random.random() is used, whose sequence for a given seed is stable
across Python 3 versions, so the output is the same everywhere.
"""
import math
import random
import sys


def main():
    nstacks = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 42)

    def pick(n):
        return int(rng.random() * n)

    modules = ["net", "http", "db", "cache", "json", "sched", "io", "auth", "log", "rpc"]
    verbs = ["handle", "parse", "encode", "lookup", "flush", "poll"]
    names = ["%s::%s_request_%d" % (modules[i % len(modules)], verbs[i % len(verbs)], i)
             for i in range(4000)]
    names += ["[l] %s_impl_%d" % (["memcpy", "malloc", "read", "write", "SSL_read",
                                     "inflate"][i % 6], i) for i in range(700)]
    names += ["[k] %s_%d" % (["do_syscall_64", "vfs_read", "tcp_sendmsg", "__schedule",
                               "filemap_read"][i % 5], i) for i in range(300)]
    procs = ["nginx", "postgres", "redis-server", "java", "python3", "node",
             "envoy", "mysqld", "kafka", "etcd", "grafana", "pmcd"]

    seen = set()
    out = sys.stdout
    while len(seen) < nstacks:
        p = procs[pick(len(procs))]
        stack = [p, "[t] %s-%d" % (p[:10], pick(4))]
        stack += [names[pick(len(names))] for _ in range(20 + pick(21))]
        key = ";".join(stack)
        if key in seen:
            continue
        seen.add(key)
        count = 1 + int(-math.log(1.0 - rng.random()) * 10.0)
        out.write("%s %d\n" % (key, count))


if __name__ == "__main__":
    main()
