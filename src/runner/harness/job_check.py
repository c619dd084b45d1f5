# A test (src/runner/harness.rs): the job the supervisor writes a child
# (_Run.job_bytes and its header) is read back by the child (_read_job)
# exactly, through a real pipe and with the writer's pauses, with and without
# compiled code; and a job cut short, too long, or with a bad head is refused
# (the child then reports the grader's failure, never runs student code). Run
# with the harness's sources and limits on stdin (worker::check_input); prints
# "ok <jobs>".
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


def head(src, pyc):
    return b"%d %d\n" % (len(src), -1 if pyc is None else len(pyc))


jobs = 0
for i in range(300):
    src = random_bytes(rng.choice([0, 1, 50, 5000, 200000]))
    pyc = None if rng.random() < 0.4 else random_bytes(rng.choice([0, 3, 70000]))
    job = {"source_hex": src.hex()}
    if pyc is not None:
        job["pyc_hex"] = pyc.hex()
    run = Run(job)
    got_src, got_pyc = run.job_bytes()
    assert (got_src, got_pyc) == (src, pyc), "job_bytes"
    data = head(src, pyc) + src + (pyc or b"")
    pieces = [rng.randrange(len(data) + 1) for _ in range(rng.randrange(4))]
    assert through_pipe(data, pieces) == (src, pyc), "read back"
    # Cut short, one byte too many, or a head that does not parse: refused.
    if len(data) > len(head(src, pyc)):
        assert isinstance(through_pipe(data[: rng.randrange(len(head(src, pyc)), len(data))], []), ValueError)
    assert isinstance(through_pipe(data + b"x", []), ValueError)
    jobs += 1
for bad in [b"", b"\n", b"12\n", b"1 2 3\n", b"-1 -1\n", b"x 1\n", b"1 -2\n", b"--1 0\n", b"9" * 70, b"%d -1\n" % (H["JOB_LIMIT"] + 1)]:
    assert isinstance(through_pipe(bad, []), ValueError), bad
    jobs += 1
# The compiled code a child reports (hex, on its "K" line) is what later
# children get, raw.
run = Run({"source_hex": b"x = 1\n".hex()})
assert run.job_bytes() == (b"x = 1\n", None)
run.job["pyc_hex"] = b"\x00\xffcode".hex()
assert run.job_bytes() == (b"x = 1\n", b"\x00\xffcode")
print("ok %d" % jobs)
