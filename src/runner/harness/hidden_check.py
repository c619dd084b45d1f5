# A test (src/runner/harness.rs): the supervisor never blocks giving a child
# its hidden inputs. With a child that reads nothing (a student's thread
# holding the interpreter lock stops the harness from reading), send_hidden
# returns at once, keeping what the pipe did not take; write_hidden writes
# more as the child reads, every byte exactly once and in order, then closes
# the pipe; a child that is gone ends the writing. Asked for ahead, the
# inputs are checked exactly as the whole line is; the visible ones are
# checked while the supervisor waits for its first job, never delaying it.
# Run with the harness's
# sources and limits on stdin (worker::check_input); prints "ok <bytes>
# <lines>".
import fcntl
import json
import os
import signal
import socket
import sys

sources = json.loads(sys.stdin.read())
H = {"__name__": "autograder_harness_check"}
exec(compile(sources["harness"], "harness.py", "exec"), H)
H["_load"](sources, *H["_compile_programs"](json.dumps(sources))[:2])
H["INIT"] = {"cases": [], "timeout": 2, "wall": 60, "scratch": "/nonexistent", "tier": "none"}
run = H["_Run"]({"source_hex": ""})
# The inputs as the supervisor holds them (given here, not asked for):
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

# Asked for ahead, the inputs are read and checked a case at a time, in
# naps and in pieces as they arrive: exactly what checking the whole line
# gives, or the same error.
def whole(line):
    try:
        try:
            data = bytes.fromhex(line.decode("ascii"))
        except BaseException:
            raise ValueError("the hidden inputs' line is not hex")
        for c in H["_case_list"](data):
            H["_checked_case"](c)
        return data
    except BaseException as e:
        return "%s: %s" % (type(e).__name__, e)


dumps = H["_marshal_dumps"]
case = ("g", dumps(([1, (1, 12345678901234567890), "\u00e9"], {"x": {1: "\ud800"}}), 2))
plain = ("h", dumps(([[{"m": "x" * 300}] * 3], {}), 2))
# 5 as TYPE_LONG: marshal reads it, but writes it as TYPE_INT.
long_five = b"(\x02\x00\x00\x00[\x01\x00\x00\x00l\x01\x00\x00\x00\x05\x00{0"
lines = [
    dumps([case, plain] * 200, 2).hex().encode(),
    dumps([], 2).hex().encode(), b"", b"5b", b"zz", b"5b000000", dumps({}, 2).hex().encode(),
    dumps([case, ("f", long_five)], 2).hex().encode(), dumps([case, ("f", b"junk")], 2).hex().encode(),
    dumps([case, ("f", dumps(([], {}), 2), 3)], 2).hex().encode(), dumps([case, (1, dumps(([], {}), 2))], 2).hex().encode(),
    dumps([case, ("f", dumps(((), {}), 2))], 2).hex().encode(), dumps([case], 2).hex().encode() + b" x",
    dumps([case], 2).hex().upper().encode(),
]
saved_out = os.dup(1)
exit_r, exit_w = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
fetched = 0
for line in lines + [None]:
    for piece in (60000, 4096) if line is not None and len(line) > 1000 else (60000, 7):
        fetch = H["_HiddenFetch"]()
        asked_r, asked_w = os.pipe()
        os.dup2(asked_w, 1)
        fetch.ask()
        os.dup2(saved_out, 1)
        assert os.read(asked_r, 100) == b'{"need":"hidden"}\n'
        r, w = os.pipe()
        os.dup2(r, 0)
        data = (line + b"\n") if line is not None else b""
        for i in range(0, len(data), piece):
            os.write(w, data[i : i + piece])
            fetch.nap(exit_r.fileno(), H["_monotonic"]() + 0.0005)
        if line is None:
            os.close(w)
            fetch.nap(exit_r.fileno(), H["_monotonic"]() + 0.0005)
        try:
            got = fetch.finish()
        except BaseException as e:
            got = "%s: %s" % (type(e).__name__, e)
        assert got == whole(line), (line, piece, got)
        fetched += 1
        for fd in (r, asked_r, asked_w) + (() if line is None else (w,)):
            os.close(fd)

# The visible inputs, checked while the supervisor waits for its first job:
# all of them when no job comes, none once one is waiting (it is read at
# once), and one that does not check stops there and fails the job's
# answer exactly as checking them all at its end does.
H["INIT"]["cases"] = [case, plain] * 100
idle_r, idle_w = os.pipe()
check = H["_VisibleCheck"]()
check.until_readable(idle_r)
assert check.at == 200 and not check.left() and check.failed is None
check.finish()
H["INIT"]["cases"] = [case] * 40 + [("f", long_five)] + [case] * 40
check = H["_VisibleCheck"]()
check.until_readable(idle_r)
assert check.at == 41 and not check.left() and check.failed.startswith("case input 40:"), check.failed
try:
    check.finish()
    raise AssertionError("a case that does not check is let through")
except ValueError as e:
    assert str(e) == check.failed
os.write(idle_w, b"job\n")
check = H["_VisibleCheck"]()
check.until_readable(idle_r)
assert check.at == 0 and check.left(), "a job waiting is read before any check"
for fd in (idle_r, idle_w):
    os.close(fd)
print("ok %d %d" % (total, fetched))
