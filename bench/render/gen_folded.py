#!/usr/bin/env python3
"""gen_folded.py - a deterministic, realistic folded-stacks profile.

    gen_folded.py [STACKS [SEED]] > profile.folded

Shaped like a host-wide on-CPU profile: 12 processes with a few threads
each, user frames ([l] library and application), kernel frames ([k]) at the
leaf end of a third of the stacks.  Real stacks share long prefixes, so each
new stack takes a previous stack, cuts it at a random depth (biased deep)
and grows a new tail: STACKS distinct stacks (default 100000), counts drawn
from an exponential distribution with mean ~10, so ~1M samples.

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
    libs = ["libc.so.6", "libssl.so.3", "libz.so.1", "libstdc++.so.6", "libpthread.so.0"]
    app = ["%s::%s_%d" % (modules[i % len(modules)],
                          ["handle", "parse", "encode", "lookup", "flush", "poll"][i % 6], i)
           for i in range(3000)]
    lib = ["[l] %s_%d" % (["memcpy", "malloc", "read", "write", "SSL_read", "inflate"][i % 6], i)
           for i in range(600)]
    kern = ["[k] %s" % n for n in (
        "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "ksys_read", "ksys_write",
        "vfs_read", "vfs_write", "tcp_sendmsg", "tcp_recvmsg", "__schedule",
        "copy_user_enhanced_fast_string", "ext4_file_read_iter", "filemap_read",
        "sock_sendmsg", "ip_output", "dev_queue_xmit", "irq_exit_rcu")]
    procs = ["nginx", "postgres", "redis-server", "java", "python3", "node",
             "envoy", "mysqld", "kafka", "etcd", "grafana", "pmcd"]

    def tail(length):
        frames = []
        for _ in range(length):
            frames.append(lib[pick(len(lib))] if rng.random() < 0.2 else app[pick(len(app))])
        if rng.random() < 0.33:
            frames += [kern[0], kern[1]] + [kern[2 + pick(len(kern) - 2)]
                                            for _ in range(1 + pick(5))]
        return frames

    seen = set()
    stacks = []
    while len(stacks) < nstacks:
        if not stacks or rng.random() < 0.02:
            p = procs[pick(len(procs))]
            stack = [p, "[t] %s-%d" % (p[:10], pick(6)), "main"] + tail(8 + pick(20))
        else:
            base = stacks[pick(len(stacks))]
            cut = max(3, int(len(base) * (0.5 + 0.5 * math.sqrt(rng.random()))))
            stack = base[:cut] + tail(1 + pick(8))
        key = ";".join(stack)
        if key in seen:
            continue
        seen.add(key)
        stacks.append(stack)
    out = sys.stdout
    for s in stacks:
        count = 1 + int(-math.log(1.0 - rng.random()) * 9.0)
        out.write("%s %d\n" % (";".join(s), count))


if __name__ == "__main__":
    main()
