"""Batch driver for tests/differential.rs: runs the model solution on many inputs.

Usage: python3 driver.py TAGGED_PY MAIN_PY INPUTS
INPUTS holds one JSON line per call: {"f": name, "args": [tagged...],
"kwargs": [[name, tagged], ...]}. For each line, prints one JSON line:
  {"returns": tagged, "shares": bool, "mutated": bool}
  {"raises": class name, "mro": [class names]}
"shares" is whether the result holds a list or dict object of the arguments;
"mutated" whether the arguments' tagged encoding changed during the call.
"""

import importlib.util
import json
import sys


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def container_ids(v, out):
    """ids of every list and dict reachable from v (tuples are walked)."""
    if isinstance(v, (list, dict)):
        if id(v) in out:
            return out
        out.add(id(v))
    if isinstance(v, dict):
        for k, x in v.items():
            container_ids(k, out)
            container_ids(x, out)
    elif isinstance(v, (list, tuple)):
        for x in v:
            container_ids(x, out)
    return out


def main():
    tagged = load("tagged", sys.argv[1])
    model = load("model_solution", sys.argv[2])
    write = sys.stdout.write
    with open(sys.argv[3], encoding="utf-8") as inputs:
        for line in inputs:
            job = json.loads(line)
            args = [tagged.decode(a) for a in job["args"]]
            kwargs = {k: tagged.decode(v) for k, v in job["kwargs"]}
            # Decoding an int of more than 4300 digits may lift CPython's
            # int/str conversion limit: the call runs with the default limit,
            # the encodings around it without one (so they compare alike).
            sys.set_int_max_str_digits(0)
            before = json.dumps(tagged.encode([args, kwargs]))
            sys.set_int_max_str_digits(4300)
            try:
                result = getattr(model, job["f"])(*args, **kwargs)
            except BaseException as e:  # reported, judged on the Rust side
                mro = [c.__name__ for c in type(e).__mro__]
                out = {"raises": type(e).__name__, "mro": mro, "message": str(e)[:200]}
            else:
                sys.set_int_max_str_digits(0)
                ours = container_ids([args, kwargs], set())
                shares = bool(container_ids(result, set()) & ours)
                after = json.dumps(tagged.encode([args, kwargs]))
                out = {
                    "returns": tagged.encode(result),
                    "shares": shares,
                    "mutated": before != after,
                }
            write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
