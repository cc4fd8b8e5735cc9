# qa/unit/pmda/python_lines_gen.py - run by each CPython 3.9-3.13 to write
# python_lines_vectors.h (see its head); prints one C initializer: the version, firstlineno, table bytes, and
# (byte offset, line) per code unit, CPython's own answer (co_lines()
# from 3.10, dis.findlinestarts over co_lnotab in 3.9)
import sys, dis
SRC = '''

def known(n):
    t = 0
    for i in range(n):
        if i % 3:
            t += i
        else:
            t -= 1
    x = [
        i * 2
        for i in range(n)
    ]
''' + '\n' * 300 + '''
    try:
        with open("/dev/null") as f:
            t += len(x)
    except Exception:
        t = None
    return t
'''
code = compile(SRC, "lines.py", "exec")
f = [c for c in code.co_consts if hasattr(c, "co_code")][0]
v = sys.version_info
tab = f.co_lnotab if v < (3, 10) else f.co_linetable
n = len(f.co_code) // 2
lines = [-1] * n
if v < (3, 10):
    starts = list(dis.findlinestarts(f))
    for off in range(0, len(f.co_code), 2):
        l = -1
        for o, ln in starts:
            if o <= off: l = ln
        lines[off // 2] = l
else:
    if v >= (3, 11):
        n = len(f._co_code_adaptive if hasattr(f, "_co_code_adaptive") else f.co_code) // 2
        lines = [-1] * n
    for s, e, ln in f.co_lines():
        for off in range(s, e, 2):
            if off // 2 < n:
                lines[off // 2] = -1 if ln is None else ln
print("\t{ %d, %d, %d, \"%s\", %d, { %s } }," % (v[1], f.co_firstlineno, len(tab),
      "".join("\\x%02x" % b for b in tab), n, ", ".join(map(str, lines))))
