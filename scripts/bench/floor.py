"""The runnable floor: the least work that runs every case on every submission.

    python3 floor.py CALLS_MARSHAL LIST_FILE

A warm parent loads the calls once (calls.marshal from prepare_cases.py), then
forks one child per submission (LIST_FILE: one main.py path per line, run in
order, one at a time). The child imports that main.py (no bytecode written)
and runs every call on a fresh copy of its arguments (marshal.loads), keeping
nothing: no sandbox, no limits beyond a 60 s alarm per submission, no
encoding, no comparison. Prints one JSON line: the submissions run, the
parent's own CPU seconds before the first fork (to subtract), and how many
children died by a signal.
"""

import json
import marshal
import os
import sys
import time

sys.dont_write_bytecode = True


def run(path, calls):
    import importlib.util

    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("main", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["main"] = module
    try:
        spec.loader.exec_module(module)
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
    with open(sys.argv[1], "rb") as f:
        calls = marshal.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    setup = time.process_time()
    killed = 0
    for path in paths:
        pid = os.fork()
        if pid == 0:
            try:
                import signal

                signal.alarm(60)
                run(path, calls)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            killed += 1
    print(json.dumps({"submissions": len(paths), "setup_cpu": setup, "killed": killed}))


if __name__ == "__main__":
    main()
