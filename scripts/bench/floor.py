"""The runnable floor: the least work that runs every case on every submission.

    python3 floor.py CALLS_MARSHAL LIST_FILE [--bytecode]

A warm parent (the modules students commonly import already imported, as in
the harness's zygote) loads the calls once (calls.marshal from
prepare_cases.py), then forks one child per submission (LIST_FILE: one
main.py path per line, run in order, one at a time). The child imports that
main.py (no bytecode written) and runs every call on a fresh copy of its arguments (marshal.loads), keeping
nothing: no sandbox, no limits beyond a 60 s alarm per submission, no
encoding, no comparison. Prints one JSON line: the submissions run, the
parent's own CPU and wall seconds before the first fork (to subtract), and
how many children died by a signal.

With --bytecode the parent compiles every main.py beforehand into a file of
marshalled code (counted in its set-up, not per submission), and the child
reads and unmarshals it, as a .pyc is, instead of compiling the source: the
floor of a session that, like a corpus change, imports a submission compiled
before.
"""

import importlib.util
import json
import marshal
import os
import signal
import sys
import time

sys.dont_write_bytecode = True
STARTED = time.perf_counter()


HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "runner", "harness", "harness.py")


def warm():
    """Warms the parent as a batch's zygote is: the modules students
    commonly import, read from harness.py's own list (its `WARM = (...)`
    tuple), so no child pays for them. Not done on import, so run_calls.py
    (a fresh interpreter) pays only for what main.py imports."""
    import ast

    with open(HARNESS, encoding="utf-8") as f:
        source = f.read()
    try:
        text = "(" + source.split("\nWARM = (", 1)[1].split(")", 1)[0] + ")"
        names = ast.literal_eval(text)
    except (IndexError, ValueError, SyntaxError):
        sys.exit("floor.py: no warm-up list found in " + HARNESS)
    for name in names:
        importlib.import_module(name)


def run(path, calls, pyc=None):
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("main", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["main"] = module
    try:
        if pyc is None:
            spec.loader.exec_module(module)
        else:
            with open(pyc, "rb") as f:
                exec(marshal.loads(f.read()), module.__dict__)
    except BaseException:
        return
    namespace = module.__dict__
    for f, blob in calls:
        fn = namespace.get(f)
        if fn is None:
            continue
        args, kwargs = marshal.loads(blob)
        try:
            fn(*args, **kwargs)
        except BaseException:
            pass


def main():
    warm()
    with open(sys.argv[1], "rb") as f:
        calls = marshal.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    compiled = {}
    if sys.argv[3:] == ["--bytecode"]:
        import tempfile

        pycs = tempfile.TemporaryDirectory()
        for i, path in enumerate(paths):
            with open(path, "rb") as f:
                code = compile(f.read(), path, "exec")
            compiled[path] = os.path.join(pycs.name, "%d.pyc" % i)
            with open(compiled[path], "wb") as f:
                marshal.dump(code, f)
    elif sys.argv[3:]:
        sys.exit("usage: floor.py CALLS_MARSHAL LIST_FILE [--bytecode]")
    setup = time.process_time()
    setup_wall = time.perf_counter() - STARTED
    killed = 0
    for path in paths:
        pid = os.fork()
        if pid == 0:
            try:
                signal.alarm(60)
                run(path, calls, compiled.get(path))
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            killed += 1
    print(
        json.dumps(
            {"submissions": len(paths), "setup_cpu": setup, "setup_wall": setup_wall, "killed": killed}
        )
    )


if __name__ == "__main__":
    main()
