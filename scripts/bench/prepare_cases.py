"""Turns the case corpus into the inputs of the benchmark's baselines.

    python3 prepare_cases.py CASES_DIR CASES_JSONL OUT_DIR

CASES_JSONL is `autograder cases list --json` (the case ids, their order and
the reference core's expected outcomes). The calls are evaluated here, as
tests/cpython/corpus_cpython.rs does: each case file's [let] names in order, then the
call with the checkpoint bound to a function that captures its arguments
(corpus text, never student code). Writes:

    OUT_DIR/calls.marshal  [(function, marshal.dumps((args, kwargs))), ...]:
                           what floor.py and run_calls.py run, each call on a
                           fresh copy of its arguments (marshal.loads)
    OUT_DIR/cases.json     [{"id", "f", "args", "kwargs", "expected"}, ...] in
                           tagged JSON (docs/recording-format.md), for the
                           pytest baseline's test file

Needs Python 3.11+ (tomllib).
"""

import json
import marshal
import os
import sys
import tomllib
import warnings

warnings.simplefilter("ignore")  # '\d' in the corpus's strings warns, as it should
sys.set_int_max_str_digits(0)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "runner", "harness"))
import tagged  # noqa: E402


def capture(*args, **kwargs):
    return args, kwargs


class Matcher:
    """Stands in for any_str(...) and friends in lets used by `expect`; the
    expected values come from CASES_JSONL, so these are never written out."""

    def __init__(self, **kw):
        self.kw = kw


MATCHERS = {n: Matcher for n in ("any", "any_str", "any_int", "any_float")}
BUILTINS = {"float": float, "chr": chr}


def main():
    cases_dir, listing, out_dir = sys.argv[1:4]
    calls = {}
    for root, _, files in os.walk(cases_dir):
        for name in sorted(files):
            if not name.endswith(".toml") or name == "course.toml":
                continue
            with open(os.path.join(root, name), "rb") as f:
                doc = tomllib.load(f)
            cp = doc["checkpoint"]
            env = {}
            for let, text in doc.get("let", {}).items():
                env[let] = eval(text, {"__builtins__": dict(BUILTINS, **MATCHERS)}, dict(env))
            for case in doc.get("case", []):
                scope = dict(env)
                scope[cp] = capture
                args, kwargs = eval(case["call"], {"__builtins__": BUILTINS}, scope)
                calls[cp + "/" + case["id"]] = (cp, args, kwargs)
    marshalled, cases = [], []
    with open(listing, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            c = json.loads(line)
            f_, args, kwargs = calls[c["id"]]
            marshalled.append((f_, marshal.dumps((args, kwargs))))
            cases.append(
                {
                    "id": c["id"],
                    "f": f_,
                    "args": [tagged.encode(a) for a in args],
                    "kwargs": {k: tagged.encode(v) for k, v in kwargs.items()},
                    "expected": c["expected"],
                }
            )
    if not cases:
        sys.exit("no cases in %s" % listing)
    with open(os.path.join(out_dir, "calls.marshal"), "wb") as f:
        marshal.dump(marshalled, f)
    with open(os.path.join(out_dir, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f)
    print(len(cases))


main()
