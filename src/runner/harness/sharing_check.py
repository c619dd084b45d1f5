# A test (src/runner/harness.rs): the child's check that a result
# is new (sharing.py, used by _run_case: shares_with_args,
# shares_with_state, shared). A list or dict of the result that the
# arguments, the module's globals or an earlier result hold is reported
# with where it is on both sides; a fresh result is not; the walks never
# run student code (spies in every method they could call), end on cycles
# and stay within their budgets on huge modules. Run with a JSON object of
# the harness's sources and limits (runner::harness_check_input) on stdin;
# prints "ok <checks>".
import json
import os
import sys
import time
import types

sources = json.loads(sys.stdin.read())
H = {"__name__": "autograder_harness_check"}
exec(compile(sources["harness"], "harness.py", "exec"), H)
H["_load"](sources, *H["_compile_programs"](json.dumps(sources))[:2])
T = H["T"]
H["_plain_json"] = T.plain_json
H["_PID"][0] = os.getpid()
checks = [0]


def student(src):
    """A fresh module `main` from `src`; the child's state reset."""
    H["_forget_earlier"]()
    mod = types.ModuleType("main")
    exec(compile(src, "main.py", "exec"), mod.__dict__)
    return mod.__dict__


def run(mod_dict, name, *args, **kwargs):
    case = H["_checked_case"]((name, H["_marshal_dumps"]((list(args), dict(kwargs)), 2)))
    line = H["_run_case"](mod_dict, case)
    assert all(0x20 <= b < 0x7F for b in line.encode("utf-8")), line
    out = json.loads(line)
    assert out["kind"] == "returned", out
    return out


def expect(out, shared=None, state=False, args=False):
    checks[0] += 1
    got = (out.get("shared"), out.get("shares_with_state", False), out["shares_with_args"])
    assert got == (shared, state, args), "expected %r, got %r" % ((shared, state, args), out)
    if not state:
        assert "shares_with_state" not in out, out  # written only when true
    if shared is None:
        assert "shared" not in out, out


# Fresh results are not flagged, however often the same values come back.
m = student(
    """
FILES = {'a.txt': 'x', 'b.txt': 'y'}
def fresh(path):
    return {'path': path, 'files': list(FILES), 'pair': ([1], {'k': [2]})}
def twice_inside(path):
    shared = [path]
    return {'a': shared, 'b': shared}
def tagged(path):
    inner = [float('nan'), 2 ** 70]
    return {'t': (inner, inner, [path]), 's': {1}, 'd': {(1, 2): [inner]}, 7: chr(0xD800)}
"""
)
for _ in range(3):
    expect(run(m, "fresh", "a.txt"))
    expect(run(m, "twice_inside", "a.txt"))
    expect(run(m, "tagged", "a.txt"))

# Fresh results are told apart by reference counts alone: the module is
# not walked for them (the probe calibrated the counts on this interpreter).
assert H["_REF_BASE"] is not None, "the reference counts did not calibrate"
walks = [0]
module_holder = H["_module_holder"]


def counting(mod_dict, targets):
    walks[0] += 1
    return module_holder(mod_dict, targets)


H["_module_holder"] = counting
for _ in range(3):
    expect(run(m, "fresh", "b.txt"))
    expect(run(m, "twice_inside", "b.txt"))
    expect(run(m, "tagged", "b.txt"))
assert walks[0] == 0, walks
m["fresh2"] = eval("lambda p: [KEEP.append(r) or r for r in [{'p': p}]][0]", m)
m["KEEP"] = []
expect(run(m, "fresh2", 1), "got is main.KEEP[0]", True)
assert walks[0] == 1, walks
H["_module_holder"] = module_holder

# The module's own objects, at any depth, by the global's name and the path.
m = student(
    """
NAMES = ['a.txt', 'b.txt']
CACHE = {'x': {'deep': [NAMES, {'in': []}]}}
PAIR = ([], {'t': {}})
def names(path):
    return NAMES
def holds_names(path):
    return {'error': True, 'available_files': NAMES}
def deep(path):
    return {'wrapper': [CACHE['x']['deep'][1]['in']]}
def in_tuple(path):
    return PAIR[1]['t']
def cached(path):
    if path not in CACHE:
        CACHE[path] = {'path': path}
    return CACHE[path]
"""
)
expect(run(m, "names", "p"), "got is main.NAMES", True)
expect(run(m, "holds_names", "p"), "got['available_files'] is main.NAMES", True)
expect(run(m, "deep", "p"), "got['wrapper'][0] is main.CACHE['x']['deep'][1]['in']", True)
expect(run(m, "in_tuple", "p"), "got is main.PAIR[1]['t']", True)
# Memoised: already the first call's result is the module's.
expect(run(m, "cached", "q"), "got is main.CACHE['q']", True)

# Globals that are not identifiers, and long keys, are shown cut.
m = student(
    """
globals()[7] = []
globals()['not an identifier'] = {}
LONG = {'k' * 100: []}
def seven(p):
    return globals()[7]
def spaced(p):
    return {'v': globals()['not an identifier']}
def long_key(p):
    return LONG['k' * 100]
"""
)
expect(run(m, "seven", 1), "got is vars(main)[7]", True)
expect(run(m, "spaced", 1), "got['v'] is vars(main)['not an identifier']", True)
out = run(m, "long_key", 1)
expect(out, "got is main.LONG['%s...']" % ("k" * H["KEY_CHARS"]), True)

# An earlier call's result, held where the globals' walk does not look (a
# closure, a default): the first call passes, the later ones are flagged.
m = student(
    """
def _make():
    result = {'lines': []}
    def same(path):
        result['lines'] = result['lines'] + [path]
        return result
    return same
same = _make()
def inner(path, _seen=[]):
    return {'path': path, 'seen': _seen}
"""
)
expect(run(m, "same", "a"))
expect(run(m, "same", "b"), "got is an earlier call's result", True)
expect(run(m, "inner", "a"))
expect(run(m, "inner", "b"), "got['seen'] is an earlier call's result['seen']", True)

# The arguments: where the shared object is in the result and in them.
m = student(
    """
def validate_tool_call(call):
    return {'id': call['id'], 'name': call['name'], 'arguments': call['arguments']}
def whole(call):
    return call
def kw(a, b=None):
    return [b[0]]
"""
)
call = {"id": "c1", "name": "multiply", "arguments": {"x": 6, "y": 7}}
expect(run(m, "validate_tool_call", call), "got['arguments'] is args[0]['arguments']", False, True)
expect(run(m, "whole", call), "got is args[0]", False, True)
expect(run(m, "kw", 1, b=[{"z": 1}]), "got[0] is kwargs['b'][0]", False, True)
# The harness's own list and dict of them, taken from its frame: what they
# hold is still the arguments' (no outside holder is left to see).
m = student(
    """
import sys
def own_args(call):
    return sys._getframe(1).f_locals['args']
def own_kwargs(b=None):
    return sys._getframe(1).f_locals['kwargs']
"""
)
expect(run(m, "own_args", [1]), "got[0] is args[0]", False, True)
expect(run(m, "own_kwargs", b={"c": []}), "got['b'] is kwargs['b']", False, True)

# The encoder's fast path meets the result's lists and dicts as the walk
# does: the same objects, the same references to each.
shared = ["x"]
pair = [shared, [shared], {"s": shared}]
for v in ([], {}, [pair, pair, {"p": pair}], {"a": shared, "b": [shared, shared]}, [[[]], [{}], 1, "s"]):
    found, refs = {}, {}
    assert T.plain_json(v, H["_C_ENCODER"], found, refs) is not None, v
    want_found, want_refs = {}, {}
    assert H["_containers"](v, want_found, want_refs)
    assert found == want_found and refs == want_refs, v
    checks[0] += 1

# No student code runs in any walk: every method they could reach is a spy.
m = student(
    """
SPIED = []
class Meta(type):
    def __eq__(cls, other):
        SPIED.append('meta eq')
        return False
    def __hash__(cls):
        SPIED.append('meta hash')
        return 1
class L(list):
    def __iter__(self):
        SPIED.append('list iter')
        return iter([])
    def __len__(self):
        SPIED.append('list len')
        return 0
class D(dict):
    def __iter__(self):
        SPIED.append('dict iter')
        return iter([])
    def values(self):
        SPIED.append('dict values')
        return []
    def items(self):
        SPIED.append('dict items')
        return []
    def __getitem__(self, k):
        SPIED.append('dict getitem')
        return None
class Key:
    def __hash__(self):
        SPIED.append('key hash')
        return 1
    def __eq__(self, other):
        SPIED.append('key eq')
        return False
    def __repr__(self):
        SPIED.append('key repr')
        return 'k'
class Weird(metaclass=Meta):
    @property
    def __class__(self):
        SPIED.append('__class__')
        return list
    def __getattribute__(self, name):
        SPIED.append('getattribute ' + name)
        return object.__getattribute__(self, name)
HELD = L([1, 2])
GLOBAL_D = D(a=[3])
THINGS = (Weird(), Weird, Meta, {Key(): L([D(x=1)])})
globals()[Key()] = D(b=HELD)
def spy_global(p):
    return HELD
def spy_fresh(p):
    return {'w': Weird(), 't': (Weird, Weird()), 'l': L([Weird()]), 'd': D(k=[Weird()])}
def spy_key(p):
    return {'v': THINGS[3]}
del SPIED[:]  # what building these called
"""
)
out = run(m, "spy_global", 1)
assert out["shares_with_state"] is True and out["shared"] == "got is main.HELD", out
expect(run(m, "spy_key", 1), "got['v'] is main.THINGS[3]", True)
checks[0] += 1
# The walks themselves, on values the encoder meets too (tagged.py's
# isinstance and `type(v) in (...)` may run a `__class__` property or a
# metaclass's `__eq__`: that is the encoder's business, not the walks').
fresh = m["spy_fresh"](1)
found = {}
H["_containers"](fresh, found, {})
assert len(found) == 4, len(found)  # the dict, L([...]), D(k=[...]) and its list
for walk in (
    lambda: H["_shared_with_state"](m, fresh, found),
    lambda: H["_module_holder"](m, found),
    lambda: H["_path_to"](m["THINGS"], id(next(iter(dict.values(m["THINGS"][3]))))),
    lambda: H["_shared_with_args"](fresh, found, [m["THINGS"], fresh], {"k": m["THINGS"]}, set(found)),
    lambda: H["_first_in"](fresh, found, set(found)),
    lambda: [H["_key_text"](k) for k in (m["Weird"], m["Weird"](), m["Meta"], next(iter(dict.keys(m["THINGS"][3]))))],
    lambda: H["_global_name"](m["Weird"]()),
):
    walk()
assert H["_shared_with_args"](fresh, found, [fresh], {}, set(found)) == "got is args[0]"
assert m["SPIED"] == [], m["SPIED"]
checks[0] += 1

# Cycles end; a huge module costs at most the budget per call, and what lies
# beyond the budget is not searched (never a failure).
m = student(
    """
LOOP = []
LOOP.append(LOOP)
DLOOP = {}
DLOOP['self'] = DLOOP
TLOOP = ([],)
TLOOP[0].append(TLOOP)
BIG = [[i] for i in range(300000)]
AFTER = []
def fresh(p):
    return {'p': [p]}
def loop(p):
    return DLOOP
def after(p):
    return AFTER
"""
)
start = time.process_time()
for i in range(50):
    expect(run(m, "fresh", i))
per_call = (time.process_time() - start) / 50
assert per_call < 0.05, "a call costs %.3f s with a huge module" % per_call
checks[0] += 1
expect(run(m, "loop", 1), "got is main.DLOOP", True)
expect(run(m, "after", 1))

# Earlier results are kept within their budget: past it, no more are kept.
m = student(
    """
def big(n):
    return ['x' * 1000 for _ in range(n)]
"""
)
limit = H["EARLIER_TEXT"]
for _ in range(limit // 1_000_000 + 2):
    run(m, "big", 1000)
assert H["_EARLIER_SIZE"][0] <= limit, H["_EARLIER_SIZE"][0]
checks[0] += 1

print("ok %d" % checks[0])
