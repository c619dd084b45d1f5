# A test (src/runner/harness.rs): the supervisor never blocks giving a child
# its hidden inputs. With a child that reads nothing (a student's thread
# holding the interpreter lock stops the harness from reading), send_hidden
# returns at once, keeping what the pipe did not take; write_hidden writes
# more as the child reads, every byte exactly once and in order, then closes
# the pipe; a child that is gone ends the writing. Run with the harness's
# sources and limits on stdin (worker::check_input); prints "ok <bytes>".
import fcntl
import json
import os
import signal
import sys

sources = json.loads(sys.stdin.read())
H = {"__name__": "autograder_harness_check"}
exec(compile(sources["harness"], "harness.py", "exec"), H)
H["_load"](sources, *H["_compile_programs"](json.dumps(sources))[:2])
H["INIT"] = {"cases": [], "timeout": 2, "wall": 60, "scratch": "/nonexistent", "tier": "none"}
run = H["_Run"]({"source_hex": ""})
# The inputs as the supervisor prepares them (given here, not asked for):
# marshal bytes of (function, marshal bytes of (args, kwargs)) pairs.
run.hidden = H["_marshal_dumps"]([("f", H["_marshal_dumps"](([i, "x" * 40], {}), 2)) for i in range(5000)], 2)
assert len(run.hidden) > 200000


def alarm(signum, frame):
    raise AssertionError("the supervisor blocked writing the hidden inputs")


signal.signal(signal.SIGALRM, alarm)
total = 0
for reads in ([], [1000], [4096] * 3, [1 << 20] * 2):
    r, w = os.pipe()
    fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: the smallest pipe
    st = {"hid_w": w, "hidden_left": None}
    signal.setitimer(signal.ITIMER_REAL, 5)
    run.send_hidden(st)  # nobody reads yet
    signal.setitimer(signal.ITIMER_REAL, 0)
    assert st["hid_w"] == w and len(st["hidden_left"]) > 0, "a pipe smaller than the inputs is left open"
    got = bytearray()
    for n in reads:  # the child reads a little, then stops again
        got += os.read(r, n)
        signal.setitimer(signal.ITIMER_REAL, 5)
        run.write_hidden(st)
        signal.setitimer(signal.ITIMER_REAL, 0)
    if reads:
        assert st["hid_w"] == w, "closed before every byte was written"
    # Then it reads to the end: every byte, once, in order, and the pipe closed.
    while st["hid_w"] is not None:
        chunk = os.read(r, 1 << 16)
        got += chunk
        run.write_hidden(st)
    got += os.read(r, 1 << 20)
    assert os.read(r, 1) == b"", "the pipe is closed once all is written"
    assert bytes(got) == run.hidden, "the hidden inputs arrive exactly"
    os.close(r)
    total += len(got)
# The child is gone: writing ends, the pipe is closed, nothing is raised.
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)
st = {"hid_w": w, "hidden_left": None}
run.send_hidden(st)
os.close(r)
run.write_hidden(st)
assert st["hid_w"] is None and st["hidden_left"] is None
try:
    os.fstat(w)
    raise AssertionError("the write end is left open")
except OSError:
    pass
print("ok %d" % total)
