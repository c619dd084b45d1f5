"""The runnable floor of recording: what running the submissions costs with
nothing else (no sandbox, no encoding, no supervisor), to compare the
harness's CPU per submission with (issue 11, item 3).

    python3 scripts/floor.py [--fresh] INPUTS_JSON SUBMISSION...

INPUTS_JSON: every case's input as the harness gets it, a JSON array of
`{"f": function, "a": [args], "k": [[name, value]]}` in tagged JSON (see
docs/recording-format.md); write it with

    cargo run --release --example case_inputs -- cases > inputs.json

SUBMISSION: a main.py, a folder holding one, or a folder of such folders
(one level; taken in name order).

Default (the floor): one warm parent decodes every case's arguments once
(tagged JSON -> Python values -> marshal bytes), then per submission forks a
child that compiles main.py, runs it in a fresh module dict, calls every
case's function on fresh copies of its arguments (marshal.loads of the bytes
made once), ignores what it returns or raises, and exits; the parent waits.
`--fresh`: one fresh interpreter per submission instead (`sys.executable
-s -S` running this file's child part: start-up, decoding, then the same
calls), the baseline a pre-forked design is measured against.

Prints one JSON line on stdout: submissions, cases, the CPU seconds of the
loop (this process after its warm-up plus every descendant, from
getrusage), CPU milliseconds per submission, wall seconds. Run it with the
interpreter the recorder uses (`/usr/bin/python3 scripts/floor.py ...`).
"""

import json
import marshal
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TAGGED = os.path.join(HERE, "..", "src", "record", "harness", "tagged.py")


def load_cases(path):
    """[(function, marshal bytes of (args list, kwargs dict))] in corpus order."""
    tagged = {}
    with open(TAGGED) as f:
        exec(compile(f.read(), TAGGED, "exec"), tagged)
    decode = tagged["decode"]
    with open(path, "rb") as f:
        cases = json.loads(f.read())
    out = []
    for c in cases:
        args = [decode(a) for a in c["a"]]
        kwargs = {k: decode(v) for k, v in c["k"]}
        out.append((c["f"], marshal.dumps((args, kwargs), 2)))
    return out


def run_submission(path, cases):
    """Runs main.py and every call; returns nothing (the floor encodes nothing)."""
    with open(path, "rb") as f:
        source = f.read()
    sys.path.insert(0, os.path.dirname(path))
    module = {"__name__": "main", "__file__": path, "__builtins__": __builtins__}
    try:
        exec(compile(source, path, "exec"), module)
    except BaseException:
        return
    loads = marshal.loads
    get = module.get
    for f, blob in cases:
        fn = get(f)
        if fn is None:
            continue
        args, kwargs = loads(blob)
        try:
            fn(*args, **kwargs)
        except BaseException:
            pass


def submissions(paths):
    found = []
    for p in paths:
        if os.path.isfile(p):
            found.append(os.path.abspath(p))
        elif os.path.isfile(os.path.join(p, "main.py")):
            found.append(os.path.abspath(os.path.join(p, "main.py")))
        elif os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                m = os.path.join(p, name, "main.py")
                if os.path.isfile(m):
                    found.append(os.path.abspath(m))
    return found


def cpu():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main(argv):
    fresh = "--fresh" in argv
    args = [a for a in argv if a != "--fresh"]
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    subs = submissions(args[1:])
    devnull = os.open(os.devnull, os.O_WRONLY)
    if fresh:
        n_cases = len(json.loads(open(args[0], "rb").read()))
        start_cpu, start = cpu(), time.monotonic()
        for path in subs:
            subprocess.run(
                [sys.executable, "-s", "-S", os.path.abspath(__file__), "--child", args[0], path],
                stdin=subprocess.DEVNULL, stdout=devnull, stderr=devnull, check=False,
            )
    else:
        cases = load_cases(args[0])
        n_cases = len(cases)
        import gc

        gc.collect()
        gc.freeze()
        sys.stdout.flush()
        start_cpu, start = cpu(), time.monotonic()
        for path in subs:
            pid = os.fork()
            if pid == 0:
                try:
                    os.dup2(devnull, 1)
                    os.dup2(devnull, 2)
                    run_submission(path, cases)
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)
    used, wall = cpu() - start_cpu, time.monotonic() - start
    print(json.dumps({
        "mode": "fresh" if fresh else "floor",
        "python": "%d.%d.%d" % sys.version_info[:3],
        "submissions": len(subs),
        "cases": n_cases,
        "cpu_seconds": round(used, 4),
        "cpu_ms_per_submission": round(1000 * used / max(len(subs), 1), 3),
        "wall_seconds": round(wall, 4),
    }))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        # A fresh interpreter's part in --fresh: decode, then run.
        run_submission(sys.argv[3], load_cases(sys.argv[2]))
        os._exit(0)
    sys.exit(main(sys.argv[1:]))
