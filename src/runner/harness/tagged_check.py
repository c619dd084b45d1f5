# A test (src/runner/harness.rs): the tagged encoder's fast paths agree with
# the general ones on seeded hostile values, within the run's limits. Run
# with the harness's sources and limits on stdin (worker::check_input);
# prints "ok <values on the fast path> <values>".
import json
import json.encoder
import random
import sys

sources = json.loads(sys.stdin.read())
T = {}
exec(compile(sources["tagged"], "tagged.py", "exec"), T)
for name in T["LIMITS"]:
    T[name] = sources["limits"][name]
esc = json.encoder.c_encode_basestring_ascii
enc = json.encoder.c_make_encoder(None, None, esc, None, ":", ",", False, False, False)
rng = random.Random(11)


class S(str):
    pass


class I(int):
    pass


class F(float):
    pass


class L(list):
    pass


class D(dict):
    def items(self):
        raise AssertionError("student code ran")


SCALARS = [
    None, True, False, 0, 1, -1, 2 ** 63 - 1, 2 ** 63, -(2 ** 63), -(2 ** 63) - 1, 10 ** 40,
    0.0, -0.0, 1.5, 1e308, 5e-324, float("nan"), float("inf"), float("-inf"),
    "", "a", "$", "$int", "é", "\x00\t\n\"\\/", "\u2028", "\U0001f600", "\ud800", "a\udfff",
    S("s"), I(3), F(1.0), b"x", bytearray(b"y"), 1j, range(2), frozenset([1]), {1, 2}, object(),
]
KEYS = ["k", "", "$", "$k", "é", "\ud800", 1, True, None, 1.5, (1, 2), S("k")]


def value(depth):
    r = rng.random()
    if depth > 4 or r < 0.4:
        return rng.choice(SCALARS)
    items = [value(depth + 1) for _ in range(rng.randrange(4))]
    if r < 0.6:
        return items
    if r < 0.7:
        return tuple(items)
    if r < 0.75:
        return L(items)
    d = {}
    for x in items:
        d[rng.choice(KEYS[:5]) if rng.random() < 0.85 else rng.choice(KEYS)] = x
    if r < 0.8:
        return D(d)
    return d


def nested(n, leaf):
    v = leaf
    for _ in range(n):
        v = [v] if n % 2 else {"k": v}
    return v


def general(v):
    try:
        j = T["encode"](v)
    except T["TooLarge"]:
        return "too large"
    try:
        return "".join(enc(j, 0))
    except ValueError:
        return None


def containers(v, found, refs, depth=0):
    """Every list and dict in `v` (id -> object), and how often the others
    hold each (each one's items counted once)."""
    if type(v) in (list, dict) and depth < 200 and id(v) not in found:
        found[id(v)] = v
        for x in (v if type(v) is list else dict.values(v)):
            if type(x) in (list, dict):
                refs[id(x)] = refs.get(id(x), 0) + 1
            containers(x, found, refs, depth + 1)


def same(a, b):
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return repr(a) == repr(b)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a) and all(same(x, y) for x, y in zip(a, b))
    return a == b


values = [value(0) for _ in range(4000)] + SCALARS
cycle = [1]
cycle.append(cycle)
shared = ["x"]
pair = [shared, [shared], {"s": shared}]
values += [
    cycle, [shared, shared], {"a": shared, "b": [shared]}, [pair, pair, {"p": pair}],
    nested(98, 1), nested(99, 1), nested(100, 1), nested(101, 1), nested(99, [1]), nested(99, {}),
    list(range(T["MAX_NODES"] - 1)), list(range(T["MAX_NODES"])), [[0] * 1000] * 200,
    "x" * T["MAX_TEXT"], "x" * (T["MAX_TEXT"] + 1), ["x" * (T["MAX_TEXT"] // 2)] * 2,
    {"x" * T["MAX_TEXT"]: 1}, {"x" * (T["MAX_TEXT"] - 1): "y"},
]
fast = 0
for v in values:
    found, refs = {}, {}
    got = T["plain_json"](v, enc, found, refs)
    want = general(v)
    if got is not None:
        fast += 1
        assert got == want, (v, got, want)
        found_want, refs_want = {}, {}
        containers(v, found_want, refs_want)
        assert found.keys() == found_want.keys() and refs == refs_want, v
    if want not in (None, "too large"):
        j = json.loads(want)
        try:
            built = T["decode"](j)
        except ValueError:
            continue  # an opaque value
        assert same(json.loads(want, object_hook=T["object_hook"]), built), want
assert fast > 1000, fast
print("ok", fast, len(values))
