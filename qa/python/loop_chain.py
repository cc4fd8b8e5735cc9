# A workload for qa/055 (Debian's /usr/bin/python3, 3.11): a real
# interpreter whose own frame chain is made into a loop while it runs.
# outer calls inner, which points outer's _PyInterpreterFrame.previous
# back at inner's frame (through ctypes) and spins for argv[1] seconds:
# the chain a walker reads is spin, inner, outer, inner, outer, ... with
# no end.  The interpreter reads previous only when outer returns, so
# inner puts it back first and the program ends normally (exit 0).
# Offsets: CPython 3.11's PyFrameObject.f_frame and
# _PyInterpreterFrame.previous, as pmda/symbolizer/sym_python_offsets.c.
import ctypes, sys, time

if sys.version_info[:2] != (3, 11):
    sys.exit("loop_chain.py: needs CPython 3.11, not " + sys.version.split()[0])
F_FRAME, PREVIOUS = 24, 48

def iframe(f):
    return ctypes.c_void_p.from_address(id(f) + F_FRAME).value

def spin(end):
    n = 0
    while time.time() < end:
        n += 1
    return n

def inner(end, outer_frame):
    slot = ctypes.c_void_p.from_address(outer_frame + PREVIOUS)
    saved = slot.value
    slot.value = iframe(sys._getframe())
    try:
        return spin(end)
    finally:
        slot.value = saved

def outer(end):
    return inner(end, iframe(sys._getframe()))

outer(time.time() + float(sys.argv[1]))
print("chain restored")
