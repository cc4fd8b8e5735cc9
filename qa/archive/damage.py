#!/usr/bin/python3
"""damage.py - damage a copy of a pmlogger archive file the ways disks and
crashes do, and say where, for qa/231.

Every PCP archive file (label, data volume, metadata) is a sequence of
records that start and end with their length (32-bit, big-endian), so the
damage lands on known records whatever the archive's version.

  damage.py records FILE             "offset length" of each record
  damage.py cut FILE                 truncate FILE inside its middle data record
  damage.py crash FILE PMID          give the first event parameter PMID (e.g.
                                     170.1.12, a u32) in the middle data record
                                     a length of 8 MiB: one flipped bit that
                                     libpcp 6.0.3 dies on (SIGSEGV)
  damage.py crashend FILE PMID       the same in the last data record that has
                                     the parameter, and a bit in the length
                                     of any record after it: libpcp looks for
                                     the archive's end there when it opens
                                     it, and dies
  damage.py flip FILE SEED NBITS     flip NBITS random bits after the label
  damage.py lengths FILE             flip a bit in the length of every data
                                     record: in the last volume, libpcp cannot
                                     find the archive's end (pmGetArchiveEnd)
                                     and fails to open it
Each damaging command prints the offset of the record the damage starts
in: the file cut cleanly there holds exactly the intact records.
"""
import random
import struct
import sys


def records(data):
    out, off = [], 0
    while off + 8 <= len(data):
        (n,) = struct.unpack(">i", data[off:off + 4])
        if n < 8 or off + n > len(data):
            break
        out.append((off, n))
        off += n
    return out


def record_at(recs, offset):
    for off, n in recs:
        if off <= offset < off + n:
            return off
    return recs[-1][0] + recs[-1][1]


def middle(recs):
    data_recs = recs[1:]            # the first one is the label
    if not data_recs:
        sys.exit("no data records")
    return data_recs[len(data_recs) // 2]


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    data = bytearray(open(path, "rb").read())
    recs = records(data)
    if cmd == "records":
        for off, n in recs:
            print(off, n)
        return
    if cmd == "cut":
        off, n = middle(recs)
        del data[off + n // 2:]
        start = off
    elif cmd in ("crash", "crashend"):
        dom, cluster, item = (int(x) for x in sys.argv[3].split("."))
        header = struct.pack(">II", (dom << 22) | (cluster << 10) | item, 0x01000008)
        off, n = middle(recs)
        order = [r for r in recs if r[0] >= off] + recs[1:]
        if cmd == "crashend":
            order = list(reversed(recs[1:]))
        for off, n in order:
            at = data.find(header, off, off + n)
            if at >= 0:
                break
        else:
            sys.exit("no event parameter %s in %s" % (sys.argv[3], path))
        data[at + 4:at + 8] = struct.pack(">I", 0x01800008)
        start = off
        if cmd == "crashend" and (off, n) != recs[-1]:
            # a last record that does not decode (pmlogger's own, at its
            # exit) sends pmGetArchiveEnd back to the one damaged above
            last_off = recs[-1][0]
            data[last_off + 1] ^= 0x40
    elif cmd == "flip":
        rng = random.Random(int(sys.argv[3]))
        label_end = recs[0][1]
        offsets = sorted(rng.randrange(label_end, len(data)) for _ in range(int(sys.argv[4])))
        for o in offsets:
            data[o] ^= 1 << rng.randrange(8)
        start = record_at(recs, offsets[0])
    elif cmd == "lengths":
        if len(recs) < 2:
            sys.exit("no data records")
        for off, n in recs[1:]:
            data[off + 1] ^= 0x40
        start = recs[1][0]
    else:
        sys.exit(__doc__)
    open(path, "wb").write(data)
    print(start)


main()
