# A test (src/runner/harness.rs): the job the supervisor writes a child
# (_Run.job_bytes and its header) is read back by the child (_read_job)
# exactly, through a real pipe and with the writer's pauses, with and without
# compiled code; and a job cut short, too long, or with a bad head is refused
# (the child then reports the grader's failure, never runs student code).
# The source handed ahead to the first child (_read_early_source) is read
# whole or not at all, compiled ahead only when compiling it says nothing
# (_compiled_ahead), and used only for a job of the very same bytes
# (_bytecode). Run with the harness's sources and limits on stdin
# (worker::check_input); prints "ok <jobs>".
import json
import os
import random
import sys
import threading

sources = json.loads(sys.stdin.read())
H = {"__name__": "autograder_harness_check"}
exec(compile(sources["harness"], "harness.py", "exec"), H)
H["_load"](sources, *H["_compile_programs"](json.dumps(sources))[:2])
Run = H["_Run"]
H["INIT"] = {"cases": [], "timeout": 2, "wall": 60, "scratch": "/nonexistent", "tier": "none"}
rng = random.Random(11)


def through_pipe(data, pieces):
    """What _read_job makes of `data`, written in `pieces` with pauses."""
    r, w = os.pipe()

    def write():
        at = 0
        for cut in sorted(pieces) + [len(data)]:
            H["_write_all"](w, data[at:cut])
            at = cut
        os.close(w)

    t = threading.Thread(target=write)
    t.start()
    try:
        return H["_read_job"](r)
    except ValueError as e:
        return e
    finally:
        t.join()


def random_bytes(n):
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def head(src, pyc, end):
    return b"%d %d %d\n" % (len(src), -1 if pyc is None else len(pyc), end)


jobs = 0
for i in range(300):
    src = random_bytes(rng.choice([0, 1, 50, 5000, 200000]))
    pyc = None if rng.random() < 0.4 else random_bytes(rng.choice([0, 3, 70000]))
    job = {"source_hex": src.hex()}
    if pyc is not None:
        job["pyc_hex"] = pyc.hex()
    run = Run(job)
    end = rng.randrange(2000)
    data = run.job_bytes(end)
    assert data == head(src, pyc, end) + src + (pyc or b""), "job_bytes"
    pieces = [rng.randrange(len(data) + 1) for _ in range(rng.randrange(4))]
    assert through_pipe(data, pieces) == (src, pyc, end), "read back"
    # Cut short, one byte too many, or a head that does not parse: refused.
    if len(data) > len(head(src, pyc, end)):
        assert isinstance(through_pipe(data[: rng.randrange(len(head(src, pyc, end)), len(data))], []), ValueError)
    assert isinstance(through_pipe(data + b"x", []), ValueError)
    jobs += 1
for bad in [b"", b"\n", b"12\n", b"1 2\n", b"1 2 3\n", b"-1 -1 0\n", b"x 1 0\n", b"1 -2 0\n", b"--1 0 0\n", b"0 -1 -1\n", b"9" * 70, b"%d -1 0\n" % (H["JOB_LIMIT"] + 1)]:
    assert isinstance(through_pipe(bad, []), ValueError), bad
    jobs += 1
# The compiled code a child reports (hex, on its "K" line) is what later
# children get, raw.
run = Run({"source_hex": b"x = 1\n".hex()})
assert run.job_bytes(0) == b"6 -1 0\nx = 1\n"
run.job["pyc_hex"] = b"\x00\xffcode".hex()
assert run.job_bytes(5) == b"6 6 5\nx = 1\n\x00\xffcode"


# The source handed ahead: read whole from its pipe (which is then closed
# and forgotten), or None for no pipe, an empty one or one past JOB_LIMIT.
def early(data):
    r, w = os.pipe()
    t = threading.Thread(target=lambda: (H["_write_all"](w, data), os.close(w)))
    t.start()
    H["_EARLY_SOURCE"][0] = r
    try:
        return H["_read_early_source"]()
    finally:
        t.join()
        assert H["_EARLY_SOURCE"][0] is None
        try:
            os.fstat(r)
            raise AssertionError("the early source's pipe is left open")
        except OSError:
            pass


assert early(b"def f():\n    return 1\n" * 9000) == b"def f():\n    return 1\n" * 9000
assert early(b"") is None
assert early(b"#" * (H["JOB_LIMIT"] + 1)) is None
H["_EARLY_SOURCE"][0] = None
assert H["_read_early_source"]() is None

# Compiled ahead: the .pyc the job's own compile makes (whatever the folder),
# or None when compiling fails or prints anything (a warning, which the
# job's compile then prints as without it); sys.stderr is given back.
stderr = sys.stderr
fine = b"def parse_contract_json(s):\n    return [s]\n"
ahead = H["_compiled_ahead"](fine, "/ahead/0/main.py")
assert ahead == (fine, H["_pyc_of"](fine, "/job/3/main.py")), ahead
assert H["_compiled_ahead"](b"x = 1 is 1\n", "/ahead/0/main.py") is None  # SyntaxWarning
assert H["_compiled_ahead"](b"def (:\n", "/ahead/0/main.py") is None
assert sys.stderr is stderr

# Used for the same bytes only, said on the "K" line as if compiled here.
said = []
H["_report"] = said.append
pyc_of = H["_pyc_of"]


def no_compile(source, path):
    raise AssertionError("compiled again")


H["_pyc_of"] = no_compile
assert H["_bytecode"](None, "/job/3/main.py", fine, ahead) == ahead[1]
assert said == ["K " + ahead[1].hex()], said
H["_pyc_of"] = pyc_of
other = fine + b"X = 1\n"
assert H["_bytecode"](None, "/job/3/main.py", other, ahead) == pyc_of(other, "main.py")
# Given the store's code, neither is used and nothing is said.
assert H["_bytecode"](b"stored", "/job/3/main.py", fine, ahead) == b"stored"
assert len(said) == 2
jobs += 1
print("ok %d" % jobs)
