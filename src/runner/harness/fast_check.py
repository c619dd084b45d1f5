# A test (src/runner/harness.rs): the child's marshalled outcomes for new,
# plain results (_fast_returned in child.py). Each student function below
# runs twice through _run_case, once as the child runs it and once with
# the marshalled outcome off; the check asserts which take it (every new
# result of plain values: lists, dicts, text, numbers, bools, None, tuples,
# any keys, NaN and infinities) and which never do (a list, dict or tuple
# held from elsewhere, a root held twice, a subclass, bytes and bytes-likes,
# sets, complex, past the depth or the budget), then prints each pair, and Rust reads the
# marshalled one as the other (runner::protocol::expand_marshalled). Run
# with a JSON object of the harness's sources and limits
# (runner::harness_check_input) on stdin; prints "ok <checks>" first.
import array
import json
import os
import random
import sys
import types

sources = json.loads(sys.stdin.read())
H = {"__name__": "autograder_harness_check"}
exec(compile(sources["harness"], "harness.py", "exec"), H)
H["_load"](sources, *H["_compile_programs"](json.dumps(sources))[:2])
H["_plain_json"] = H["T"].plain_json
H["_PID"][0] = os.getpid()
assert H["_NEW_BASE"] is not None, "the marshalled outcome did not calibrate"
NEW_BASE = H["_NEW_BASE"]

mod = types.ModuleType("main")
exec(
    compile(
        """
HELD = [1, 2]
KEPT = {'k': 'v'}
LAST = [None]
def call(make):
    return make()
def held_global():
    return {'a': HELD}
def root_global():
    return KEPT
def root_kept():
    r = {'x': [1]}
    LAST[0] = r
    return r
def echo(x):
    return x
def inside_args(x):
    return {'got': x}
""",
        "main.py",
        "exec",
    ),
    mod.__dict__,
)
d = mod.__dict__


class Sub(dict):
    pass


class L(list):
    pass


class S(str):
    pass


class I(int):
    pass


def scalars(rng):
    return rng.choice(
        [
            None,
            True,
            False,
            0,
            -1,
            7,
            2**31 - 1,
            2**31,
            -(2**31),
            -(2**31) - 1,
            2**63 - 1,
            2**63,
            -(2**63),
            -(2**63) - 1,
            2**200,
            -(3**150),
            0.0,
            -0.0,
            1.5,
            1e16,
            1e-7,
            5e-324,
            1.7976931348623157e308,
            "",
            "plain",
            "$dollar",
            "\u00fcber \u0416",
            "\U0001f600 emoji",
            "\ud800 lone",
            "\udfff",
            "tab\tnl\n\"quote\" \\ back",
            "\x00\x7f",
            "x" * 300,
        ]
    )


def keys(rng):
    k = rng.choice(["k", "name", "$k", "", "\ud83d", 1, -2, 2**70, 1.5, -0.0, True, False, None, "tuple"])
    return tuple([1, rng.choice(["a", 2, None])]) if k == "tuple" else k


def plain(rng, depth):
    """A random new value of plain kinds (every node fresh)."""
    r = rng.random()
    if depth > 4 or r < 0.35:
        return scalars(rng)
    n = rng.randrange(0, 5)
    if r < 0.6:
        return [plain(rng, depth + 1) for _ in range(n)]
    if r < 0.75:
        return tuple(plain(rng, depth + 1) for _ in range(n + 1))
    return {keys(rng): plain(rng, depth + 1) for _ in range(n)}


def nested(n):
    v = []
    for _ in range(n):
        v = [v]
    return v


def shared_inner():
    x = [1]
    return {"a": x, "b": x}


def shared_tuple():
    t = ([1],)
    return [t, t]


def cycle():
    v = [1]
    v.append(v)
    return v


out = []
checks = [0]


def both(fn, *args):
    """The outcome line with the marshalled outcome on, then off."""
    case = H["_checked_case"]((fn, H["_marshal_dumps"]((list(args), {}), 2)))
    H["_forget_earlier"]()
    fast = H["_run_case"](d, case)
    H["_NEW_BASE"] = None
    H["_forget_earlier"]()
    try:
        slow = H["_run_case"](d, case)
    finally:
        H["_NEW_BASE"] = NEW_BASE
    assert all(0x20 <= b < 0x7F for b in fast.encode("utf-8")), fast
    return fast, slow


def expect(make, marshalled):
    """Runs `make` (as the student's `make`) both ways: marshalled (True),
    not (False), or either (None: whichever it was, returned)."""
    d["make"] = make
    fast, slow = both("call_make")
    got = fast.startswith('{"kind":"returned","marshal":"')
    assert marshalled is None or got == marshalled, (marshalled, fast[:300], slow[:300])
    if got:
        out.append(fast + "\t" + slow)
    else:
        assert fast == slow, (fast[:300], slow[:300])
    checks[0] += 1
    return got


exec("def call_make():\n    return make()\n", d)

# New results of plain values, whatever their keys, tuples and numbers.
rng = random.Random(20261204)
taken = [0]
for i in range(600):
    seed = rng.random()

    def make(seed=seed):
        r = random.Random(seed)
        return [plain(r, 1) for _ in range(r.randrange(0, 4))] if r.random() < 0.5 else {keys(r): plain(r, 1) for _ in range(r.randrange(0, 4))}

    taken[0] += expect(make, None)
# Not every one: tuple keys are not JSON, and a byte of a number (the digit
# count of a negative int of 5 digits, 0xfb) or of text may look like a flag.
assert taken[0] >= 300, taken
# Nor a result that holds the empty tuple (one object, held everywhere)
# or text whose UTF-8 holds such a byte (\xe9 is c3 a9): walked instead.
expect(lambda: {"t": ()}, False)
expect(lambda: ["caf\u00e9"], False)
expect(lambda: {}, True)
expect(lambda: [], True)
expect(lambda: {"t": ([1], {"k": [2]})}, True)
expect(lambda: nested(90), True)

# Never marshalled: what is held from elsewhere, or not plain.
expect(shared_inner, False)
expect(shared_tuple, False)
expect(cycle, False)
expect(lambda: d["held_global"](), False)
expect(lambda: d["root_global"](), False)
expect(lambda: nested(101), False)
expect(lambda: {"a": float("nan"), "b": [float("inf"), float("-inf")]}, True)
expect(lambda: [[1] * 20] + [{"k%d" % i: (i, [i])} for i in range(150)], True)
# Within the depth and the budget, and walked a level at a time, so a
# result too large for it is left to the walks at once.
expect(lambda: [0] * (H["_NEW_BYTES"] + 1), False)
expect(lambda: [[0] * 1000 for _ in range(H["_NEW_BYTES"] // 1000 + 1)], False)
for odd in (b"x", bytearray(b"x"), memoryview(b"x"), array.array("b", [1]), {1}, frozenset(), 1j, ..., range(2)):
    expect(lambda odd=odd: {"v": [odd]}, False)
# Nor one that holds an object with a buffer: marshal (3.12 and later) would
# ask it for its bytes, student code, had the walk let it through.
asked = []


class Buffer:
    def __buffer__(self, flags):
        asked.append(flags)
        return memoryview(b"x")


expect(lambda: {"v": [Buffer()]}, False)
expect(lambda: [Buffer()], False)
assert not asked, asked
for sub in (Sub(a=1), L([1]), S("s"), I(3)):
    expect(lambda sub=sub: [{"v": sub}], False)
    expect(lambda sub=sub: {"v": sub}, False)
expect(lambda: Sub(a=[1]), False)

# A root the module keeps is reported by the walks, not marshalled.
fast, slow = both("root_kept")
assert fast == slow and '"shares_with_state":true' in fast, fast
checks[0] += 1

# The arguments: a result holding them is walked; one that changed them
# too, which the general checks say where.
fast, slow = both("inside_args", [1, {"k": "v"}])
assert fast == slow and '"shares_with_args":true' in fast, fast
fast, slow = both("echo", [1])
assert fast == slow and '"shares_with_args":true' in fast, fast
exec("def grows(x):\n    x.append(1)\n    return {'n': len(x)}\n", d)
fast, slow = both("grows", [0])
assert fast == slow and '"changed":{"path":"args[0]","before":[0],"after":[0,1]}' in fast, fast
checks[0] += 3

# A later result that shares with an earlier marshalled one (found through
# the collector) is reported as sharing with it: the earlier result was
# kept, its lists and dicts listed once a check needs them.
exec(
    """
import gc
def first():
    return {'mark': 'earlier-one', 'inner': [1, 2]}
def second():
    for o in gc.get_objects():
        if type(o) is dict and o.get('mark') == 'earlier-one' and o is not globals():
            return {'again': o['inner']}
    return None
""",
    d,
)
H["_forget_earlier"]()
one = H["_run_case"](d, H["_checked_case"](("first", H["_marshal_dumps"](([], {}), 2))))
assert '"marshal"' in one, one
two = H["_run_case"](d, H["_checked_case"](("second", H["_marshal_dumps"](([], {}), 2))))
assert json.loads(two).get("shared") == "got['again'] is an earlier call's result['inner']", two
checks[0] += 1

print("ok %d" % checks[0])
for line in out:
    print(line)
