#!/usr/bin/python3
"""
bench/archive/alternatives.py - the stack-history designs we did not pick,
sized on the drains of one bench run (docs/design.md, "PMDA": History).

    alternatives.py HISTORY_ARCHIVE RECORDS_ARCHIVE SECONDS WORKDIR

Reads the history archive pmlogger wrote in bench/archive/run (every
(thread, stack) count of every drain, every definition) and:

- writes, with PCP's own archive writer (libpcp_import, pcp.pmi), the
  instance-domain dictionary: one u64 counter per (thread, stack), the
  folded line as the instance name, values only for pairs sampled since
  the previous fetch, as a v2 archive (an instance domain logged whole
  each time it changes, as pmlogger does in v2); then pmlogrewrite -V 3
  turns it into a v3 archive, whose metadata holds instance-domain deltas
  (libpcp_import 6.0.3 writes whole instance domains even in v3).
- models event records that carry ids instead of strings (a record per
  (thread, stack) and drain: thread id, stack id and count as u32
  parameters; each definition once, as a record with its strings), with
  PCP's event-record layout; the same model applied to today's records is
  checked against the records archive measured in the same run.

Prints "name bytes MB/hour" lines.
"""
import os
import re
import subprocess
import sys

from pcp import pmapi, pmi

HDR = 4 + 8 + 4 + 4        # v2 log record: len, timestamp, numpmid, trailing len
VSET = 4 + 4 + 4           # pmid, numval, valfmt
VALUE = 4 + 4              # inst, offset of the value block
RECORD = 8 + 4 + 4         # event record: timestamp, flags, nparams
ARRAY = 4 + 4              # event array value block: header, nrecords


def pad4(n):
    return (n + 3) & ~3


def string_param(s):
    return 4 + 4 + pad4(len(s.encode()) + 1)    # pmid, type/len, bytes + NUL


def u32_param():
    return 4 + 4 + 4


def u64_param():
    return 4 + 4 + 8


def dump_values(archive, metric):
    """The string values of metric, one per fetch, in order."""
    out = subprocess.run(["pmdumplog", archive, metric], capture_output=True,
                         text=True, check=True).stdout
    values, cur = [], None
    for line in out.split("\n"):
        if cur is None:
            m = re.search(r'value "(.*)$', line)
            if m is None:
                continue
            cur = [m.group(1)]
        else:
            cur.append(line)
        if cur[-1].endswith('"'):
            cur[-1] = cur[-1][:-1]
            values.append("\n".join(cur))
            cur = None
    return values


def parse(values):
    """Per value: (time, [(tid, sid, count)]), and the definitions."""
    threads, frames, stacks, fetches = {}, {}, {}, []
    for v in values:
        lines = v.split("\n")
        time = float(lines[0].split()[2])
        pairs, prev = [], []
        for line in lines[1:]:
            if line.startswith("t "):
                tid, rest = line[2:].split(" ", 1)
                threads[int(tid)] = rest
            elif line.startswith("f "):
                fid, rest = line[2:].split(" ", 1)
                frames[int(fid)] = rest
            elif line.startswith("s "):
                sid, rest = line[2:].split(" ", 1)
                first = []
                if rest.startswith("^"):        # the first K frames of the stack before
                    k, rest = rest[1:].split(" ", 1)
                    first = prev[:int(k)]
                prev = first + [frames[int(f)] for f in rest.split(",")]
                stacks[int(sid)] = ";".join(prev)
            elif line.startswith("h "):
                continue    # the heat map: the same in every design
            elif line:
                toks, sid = line.split(" "), 0
                for tok in toks[1:]:
                    f = tok.split(":")
                    sid = sid + int(f[0][1:]) if f[0].startswith("+") else int(f[0])
                    pairs.append((int(toks[0]), sid, int(f[1]) if len(f) > 1 else 1))
        fetches.append((time, pairs))
    return threads, stacks, fetches


def folded(threads, stacks, tid, sid):
    """An instance name: PCP wants names unique up to their first space,
    so the pair's ids lead, then the folded line."""
    names = threads[tid].split(" ", 2)[2]
    comm, process = names.split("\t")
    return "%d.%d:%s;[t] %s;%s" % (tid, sid, process, comm, stacks[sid])


def indom_archive(path, version, threads, stacks, fetches):
    for ext in (".0", ".meta", ".index"):
        if os.path.exists(path + ext):
            os.unlink(path + ext)
    log = pmi.pmiLogImport(path)
    log.pmiSetVersion(version)
    indom = log.pmiInDom(170, 9)
    log.pmiAddMetric("stackprof.alt.samples", log.pmiID(170, 9, 0), pmapi.c_api.PM_TYPE_U64,
                     indom, pmapi.c_api.PM_SEM_COUNTER, log.pmiUnits(0, 0, 1, 0, 0, 0))
    inst, total = {}, {}
    for time, pairs in fetches:
        for tid, sid, count in pairs:
            key = (tid, sid)
            if key not in inst:
                inst[key] = len(inst)
                log.pmiAddInstance(indom, folded(threads, stacks, tid, sid), inst[key])
            total[key] = total.get(key, 0) + count
            log.pmiPutValue("stackprof.alt.samples", folded(threads, stacks, tid, sid),
                            str(total[key]))
        if pairs:
            log.pmiWrite(int(time), int((time - int(time)) * 1e6))
    del log     # pmiEnd
    return sum(os.path.getsize(path + e) for e in (".0", ".meta", ".index"))


def records_model(values_per_fetch):
    """Bytes of pmlogger's data records holding event arrays."""
    return sum(HDR + VSET + (VALUE + ARRAY + sum(r) if r else 0) for r in values_per_fetch)


def todays_records(threads, stacks, fetches):
    per_fetch = []
    for _, pairs in fetches:
        recs = []
        for tid, sid, _ in pairs:
            pid_tid, names = threads[tid].split(" ", 2)[0:2], threads[tid].split(" ", 2)[2]
            comm, process = names.split("\t")
            recs.append(RECORD + string_param(stacks[sid]) + u64_param() + 2 * u32_param() +
                        string_param(comm) + string_param(process) + string_param("on-cpu") +
                        u64_param())
        per_fetch.append(recs)
    return records_model(per_fetch)


def id_records(threads, stacks, fetches):
    per_fetch, told_t, told_s = [], set(), set()
    for _, pairs in fetches:
        recs = []
        for tid, sid, _ in pairs:
            if tid not in told_t:
                told_t.add(tid)
                pid_tid, names = threads[tid].split(" ", 2)[0:2], threads[tid].split(" ", 2)[2]
                comm, process = names.split("\t")
                recs.append(RECORD + 3 * u32_param() + string_param(comm) + string_param(process))
            if sid not in told_s:
                told_s.add(sid)
                recs.append(RECORD + u32_param() + string_param(stacks[sid]))
            recs.append(RECORD + 3 * u32_param())
        per_fetch.append(recs)
    return records_model(per_fetch)


def archive_bytes(path):
    return sum(os.path.getsize(path + e) for e in (".0", ".meta", ".index"))


def main():
    hist, recs, secs, work = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    threads, stacks, fetches = parse(dump_values(hist, "stackprof.oncpu.history"))

    def show(name, nbytes):
        print("%-44s %12d %10.2f" % (name, nbytes, nbytes * 3600 / secs / 1e6))

    measured = os.path.getsize(recs + ".0")
    show("records (measured .0 only)", measured)
    show("records (model of the same drains, .0 only)", todays_records(threads, stacks, fetches))
    show("event records carrying ids (model, .0 only)", id_records(threads, stacks, fetches))
    show("indom dictionary, v2 archive (written)",
         indom_archive(os.path.join(work, "indom-v2"), 2, threads, stacks, fetches))
    v3 = os.path.join(work, "indom-v3")
    subprocess.run([os.path.join(os.environ.get("PCP_BINADM_DIR", "/usr/lib/pcp/bin"),
                                 "pmlogrewrite"), "-V", "3", os.path.join(work, "indom-v2"), v3],
                   check=True)
    show("indom dictionary, v3 (pmlogrewrite -V 3)", archive_bytes(v3))
    show("history (measured)", archive_bytes(hist))


main()
