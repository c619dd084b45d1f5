"""One fresh interpreter per submission: python3 -B run_calls.py CALLS_MARSHAL MAIN_PY

Imports MAIN_PY and runs every call of calls.marshal (from prepare_cases.py) on
a fresh copy of its arguments, keeping nothing: the work of floor.py, plus an
interpreter start-up per submission."""

import marshal
import sys

from floor import run

sys.dont_write_bytecode = True
with open(sys.argv[1], "rb") as f:
    calls = marshal.load(f)
run(sys.argv[2], calls)
