"""autograder harness: runs students' main.py in a sandbox, one outcome per case.

Embedded in the Rust binary (src/record/harness/harness.py) and run as
`<python> -s -S -c <this file>` with a cleared environment. Three
kinds of process, all stdlib only:

* the zygote (long-lived): reads the init line from Rust, builds the tagged-JSON
  module, imports what students commonly use, answers "ready", forks the
  supervisor, then forks every child the supervisor asks for (over a socket,
  with the child's ends of its pipes), waits for it, kills whatever it left
  (the zygote is their subreaper) and says how it ended. It never sees a
  submission's source, outcomes or hidden inputs, so no child can find
  another submission's in its memory; one fork per child, none per
  submission besides;
* the supervisor (long-lived, not dumpable, no child starts from its
  memory): reads each job from Rust, has a child forked, writes it the job,
  watches its result pipe against per-case and per-submission deadlines,
  drains its stdout/stderr into a capped buffer, kills the child's whole
  tree (its process group, then every process of the worker uid until none
  is left), has a fresh child forked after a crash or timeout, cleans up as
  the worker uid and answers Rust with one JSON line;
* the child: own session, rlimits, unprivileged uid, scratch directory with
  only main.py; imports it and calls each case's function on fresh arguments.

Wire protocol (JSON lines on stdin/stdout: the init line and "ready" with
the zygote, every job after with the supervisor, which inherits them):
  -> init  {"tagged": src, "cases": [{"f", "a", "k"}], "uid", "gid", "scratch",
            "limits": {...}, "timeout", "wall", "tier", "read_roots",
            "must_not_read", "confine": src (landlock tier)}
  <- {"ready": true, "python": "3.x.y", "self_test": {"ok": bool, ...}}
  -> "job\n" then {"source_hex": ..., "pyc_hex": ..., "visible": [i, ...], "hidden": n}
     ("pyc_hex": main.py compiled by an earlier session, when the store
     has it; "visible" and "hidden" only for a subset of the cases: the
     positions of its visible cases among the init line's, and how many
     hidden cases it runs; without them every case runs)
  <- {"need": "hidden"}   (once every visible case is answered; not at all
                           when the submission never gets that far or
                           runs no hidden case)
  -> [the hidden cases' inputs: the chosen ones only]
  <- {"n": cases run, "output": str, "integrity": [...], "pyc": hex} then, for each
     case run, a tab and its outcome object as the child wrote it (the
     supervisor checks the framing and that it is printable ASCII, never
     decodes it; Rust parses each on its own). On the grader's failure:
     {"n": 0, "output": "", "error": str}
The init line holds only the visible cases' inputs; the hidden ones follow
them in the outcome order. No process of a submission holds a hidden input
before all its visible cases are answered, so no visible result can carry
one.
Supervisor -> child, on a pipe of its own, before the child enters its
sandbox: b"<source bytes> <compiled bytes, or -1>\n", the source, then the
compiled code (from the job's hex, raw).
Child -> supervisor, on fd 3: "S" (in its sandbox; student code runs from
here on) or "X <json str>" (could not enter it: the grader's failure, the
reply carries "error"), then, without "pyc_hex", "K <hex>" (main.py
compiled, before any of it ran; "K" alone when it does not compile; the
reply's "pyc"), then "I" (imported), "E <json>" (import error),
"C <i> <json>" (case outcome), "V" (every visible case answered:
the supervisor then writes the hidden inputs on fd 4, marshal bytes of the
list of their prepared inputs, and closes it), "R" (stops after an out-of-memory or a
too-large result), "D" (done). The supervisor reads each case's CPU time
from /proc itself. Cases' arguments are built once (the visible ones in the
zygote before any fork, the hidden ones by the supervisor, which children
never start from: once per worker when every case runs, once per job for a
subset) as marshal bytes; each call gets fresh copies.
"""

import sys

# The folder the harness starts in is never an import source (`-P` exists
# only from CPython 3.11; the harness runs on 3.8 and later).
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

import builtins  # noqa: E402
import gc
import os
import select
import signal
import stat
import fcntl
import time
import types
import resource
import _imp
import importlib
import importlib.util
import json
import json.encoder
import marshal
import socket
import array

# Warm the modules students commonly import, so children do not pay for them.
# (scripts/bench/floor.py warms the runnable floor from these lines.)
import re  # noqa: F401
import math  # noqa: F401
import copy  # noqa: F401
import collections  # noqa: F401
import itertools  # noqa: F401
import functools  # noqa: F401
import string  # noqa: F401
import typing  # noqa: F401
import enum  # noqa: F401
import dataclasses  # noqa: F401
import unicodedata  # noqa: F401

# ---------------------------------------------------------------------------
# Everything the harness needs is captured here, before any student code runs
# (students replace builtins.print, json.dumps, sys.stdout, even builtins.type).
# ---------------------------------------------------------------------------

_BUILTINS = dict(builtins.__dict__)
_REAL_CLASSES = {}
for _k, _v in _BUILTINS.items():
    # By the class's own name: IOError and EnvironmentError are OSError.
    if isinstance(_v, type) and issubclass(_v, BaseException) and _v.__name__ == _k:
        _REAL_CLASSES[id(_v)] = (_k, _v)
_REAL_CLASSES[id(object)] = ("object", object)


def _shadow_builtins(namespace):
    """Module-level copies of the real builtins: a student replacing
    builtins.len or builtins.type does not reach harness code."""
    for k, v in _BUILTINS.items():
        if not k.startswith("__"):
            namespace.setdefault(k, v)


_shadow_builtins(globals())

_write = os.write
_read = os.read
_exit = os._exit
_getpid = os.getpid
_esc = json.encoder.c_encode_basestring_ascii or json.encoder.py_encode_basestring_ascii
_loads = json.loads
_marshal_dumps = marshal.dumps
_marshal_loads = marshal.loads
_float_repr = float.__repr__
_int_repr = int.__repr__
_type_getattr = type.__getattribute__
_obj_getattr = object.__getattribute__
_exc_str = BaseException.__str__
_setrecursionlimit = sys.setrecursionlimit
_RECURSION_LIMIT = sys.getrecursionlimit()
_monotonic = time.monotonic
_PRINTABLE = bytes(range(0x20, 0x7F))
_PRINTABLE_NL = _PRINTABLE + b"\n"
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_stdout = sys.stdout
_stderr = sys.stderr

MESSAGE_LIMIT = 1024
OUTPUT_LIMIT = 64 * 1024
LINE_LIMIT = 48 * 1024 * 1024
# What a submission may write to its folder in all (landlock: the only place
# it may write; bwrap's /tmp is a tmpfs of its own size), and how often the
# supervisor looks while a case runs.
DISK_LIMIT = 64 * 1024 * 1024
DISK_ENTRIES = 10000
DISK_EVERY = 0.05
# After taking what the child wrote, the supervisor lets it run this long
# before it reads again (unless the child exits first), so it wakes up a few
# hundred times a second at most instead of once per case: a case's CPU and
# wall limits count from when its start was seen, at most this much late.
READ_EVERY = 0.002
# Room for what the child writes while the supervisor waits (the kernel
# caps it; a smaller pipe only makes the child wait).
PIPE_BYTES = 1 << 20
# Largest compiled main.py (.pyc) reported for the store (a source is at most 1 MiB).
PYC_LIMIT = 4 * 1024 * 1024
# Largest source or compiled code a job carries (Rust sends a source of at
# most 1 MiB; a compiled main.py is at most PYC_LIMIT).
JOB_LIMIT = 2 * PYC_LIMIT
REPLY_LIMIT = 128 * 1024 * 1024
RESULT_FD = 3
HIDDEN_FD = 4
# A case times out after `timeout` seconds of CPU time, or WALL_FACTOR times
# that in wall time (a sleeping call): a busy neighbour slows a case down but
# does not time it out.
WALL_FACTOR = 3

T = None  # the tagged-JSON module, built from the init line
C = None  # the landlock tier's confine module, likewise
INIT = None


def _dump(v, out):
    """JSON text of harness-built data (exact types only), appended to `out`."""
    t = type(v)
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif t is int:
        out.append(_int_repr(v))
    elif t is float:
        out.append(_float_repr(v) if v == v and v not in (float("inf"), float("-inf")) else "null")
    elif t is str:
        out.append(_esc(v))
    elif t is list:
        out.append("[")
        first = True
        for x in v:
            if not first:
                out.append(",")
            first = False
            _dump(x, out)
        out.append("]")
    elif t is dict:
        out.append("{")
        first = True
        for k, x in dict.items(v):
            if not first:
                out.append(",")
            first = False
            out.append(_esc(k))
            out.append(":")
            _dump(x, out)
        out.append("}")
    else:
        out.append("null")


_c_make_encoder = json.encoder.c_make_encoder
_C_ENCODER = (
    _c_make_encoder(None, None, _esc, None, ":", ",", False, False, False)
    if _c_make_encoder is not None and _esc is json.encoder.c_encode_basestring_ascii
    else None
)


def dumps(v):
    """Compact ASCII JSON of harness-built data, with the C encoder built
    above (students may replace json.dumps or JSONEncoder; not this object)."""
    if _C_ENCODER is not None:
        try:
            return "".join(_C_ENCODER(v, 0))
        except ValueError:  # a non-finite float: _dump writes null
            pass
    out = []
    _dump(v, out)
    return "".join(out)


def _text(s, limit=MESSAGE_LIMIT):
    """A str safe for plain JSON: cut to `limit` code points, lone
    surrogates written as backslash escapes."""
    if type(s) is not str:
        s = "<not a str>"
    s = s[:limit]
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def _write_all(fd, data):
    while data:
        n = _write(fd, data)
        data = data[n:]


# ---------------------------------------------------------------------------
# The child: runs student code.
# ---------------------------------------------------------------------------


def _class_name(cls):
    try:
        name = _type_getattr(cls, "__name__")
    except BaseException:
        name = "?"
    return _text(name if type(name) is str else "?", 200)


def _mro_names(cls):
    names = []
    try:
        mro = _type_getattr(cls, "__mro__")
    except BaseException:
        mro = (cls,)
    for c in tuple.__iter__(mro) if type(mro) is tuple else (cls,):
        real = _REAL_CLASSES.get(id(c))
        if real is not None and real[1] is c:
            names.append(real[0])
            continue
        try:
            module = _type_getattr(c, "__module__")
        except BaseException:
            module = "?"
        try:
            qual = _type_getattr(c, "__qualname__")
        except BaseException:
            qual = "?"
        module = module if type(module) is str else "?"
        qual = qual if type(qual) is str else "?"
        names.append(_text(module, 200) + "." + _text(qual, 200))
    return names


def _message(e):
    try:
        m = str(e)
        if type(m) is not str:
            m = _exc_str(e)
    except BaseException:
        try:
            m = _exc_str(e)
        except BaseException:
            m = "<unprintable exception>"
    return _text(m if type(m) is str else "<unprintable exception>")


def _raised(e):
    cls = type(e)
    return {"kind": "raised", "class": _class_name(cls), "mro": _mro_names(cls), "message": _message(e)}


def _raised_text(e):
    """dumps(_raised(e)), with the head of a built-in class's outcome made
    once (its name and MRO cannot change)."""
    cls = type(e)
    known = _RAISED_HEADS.get(id(cls))
    if known is not None and known[0] is cls:
        return known[1] + _esc(_message(e)) + "}"
    return dumps(_raised(e))


def _shares(v, arg_ids, seen, depth=0):
    if depth > 200:
        return False
    t = type(v)
    if t is tuple:
        return any(_shares(x, arg_ids, seen, depth + 1) for x in tuple.__iter__(v))
    if isinstance(v, list) or isinstance(v, dict):
        if id(v) in arg_ids:
            return True
        if id(v) in seen:
            return False
        seen.add(id(v))
        if isinstance(v, list):
            return any(_shares(x, arg_ids, seen, depth + 1) for x in list.__iter__(v))
        return any(
            _shares(k, arg_ids, seen, depth + 1) or _shares(x, arg_ids, seen, depth + 1)
            for k, x in dict.items(v)
        )
    return False


def _prepare(case, built=False):
    """A case's input, built once (visible: in the zygote, before any fork;
    hidden: in the supervisor, see _Run.send_hidden): (function name, marshal bytes of (args,
    kwargs)). Each call gets fresh copies from `marshal.loads` (C, exact for
    the value model: dict order, bool vs int, -0.0 and NaN, big ints, tuples
    vs lists, lone surrogates; no shared objects at version 2). The bytes
    are a fixed point of loads/dumps, so an untouched copy dumps to them
    again: one snapshot after the call tells whether the call changed its
    arguments."""
    if built:  # parsed with T.object_hook: the values themselves
        args = case["a"]
        kwargs = {k: v for k, v in case["k"]}
    else:
        args = [T.decode(a) for a in case["a"]]
        kwargs = {k: T.decode(v) for k, v in case["k"]}
    blob = _marshal_dumps((args, kwargs), 2)
    for _ in range(4):
        again = _marshal_dumps(_marshal_loads(blob), 2)
        if again == blob:
            return (case["f"], blob)
        blob = again
    raise ValueError("a case's arguments do not marshal to a fixed point")


def _container_ids(v, ids, depth=0):
    """The ids of every list and dict inside `v` (fresh from marshal: exact
    types, no cycles; a dict's keys are hashable, so they hold none)."""
    t = type(v)
    if t is list:
        ids.add(id(v))
    elif t is dict:
        ids.add(id(v))
        v = dict.values(v)
    elif t is not tuple:
        return
    for x in v:
        t = type(x)
        if t is list or t is dict or t is tuple:
            _container_ids(x, ids, depth + 1)


# ---------------------------------------------------------------------------
# Fresh results: a result's lists and dicts must be new objects. Besides the
# arguments' (shares_with_args), none may be one that, after the call, the
# module holds (reachable from its globals through lists, tuples and dicts)
# or one an earlier call of this child returned (kept alive here, so that no
# id can be reused by a new object). Walked by exact type, through
# list.__iter__, tuple.__iter__ and dict.values, so no student code runs;
# dict keys are hashable and hold no list or dict. Which checkpoints this
# fails is the grader's to decide (reference::RETURNS_NEW): the harness
# reports it for every call.
# ---------------------------------------------------------------------------

# Nodes (containers and items) walked in the module's globals per call, and
# in a result: past the budget the rest is not searched (nothing is failed).
GLOBALS_BUDGET = 20000
RESULT_BUDGET = 400000
# What a child keeps of earlier results, in all: lists and dicts, and the
# size of their encoded values (so that big results cannot fill its memory).
EARLIER_LIMIT = 200000
EARLIER_TEXT = 4 * 1024 * 1024
# The longest path text the harness writes for each side of `shared`, and
# the longest key repr in it.
PATH_CHARS = 160
KEY_CHARS = 40

_EARLIER = {}  # id -> every list and dict an earlier call of this child returned
_EARLIER_ROOTS = []  # those results, oldest first
_EARLIER_SIZE = [0]  # the length of their encoded values, in all
_getrefcount = sys.getrefcount
def _scalar(t):
    """Whether `t` (a type) is one no list or dict hides in. By identity:
    `t in (str, ...)` would compare, and a student's metaclass may define
    `__eq__`."""
    return t is str or t is int or t is float or t is bool or t is _NONE_TYPE


_NONE_TYPE = type(None)


def _items_of(x, t):
    """The items of a list, tuple or dict (subclasses too: their own
    methods are never called), or None for anything else."""
    if t is list or t is tuple or t is dict:
        return list.__iter__(x) if t is list else (tuple.__iter__(x) if t is tuple else dict.values(x))
    if _scalar(t):
        return None
    if issubclass(t, list):
        return list.__iter__(x)
    if issubclass(t, tuple):
        return tuple.__iter__(x)
    if issubclass(t, dict):
        return dict.values(x)
    return None


def _containers(v, found, refs, budget=RESULT_BUDGET):
    """Every list and dict in `v` (subclasses too, through tuples), by id,
    into `found`, and into `refs` how many references the result itself
    holds to each (its parents' slots). False when the budget ran out
    before the walk ended (then both are partial)."""
    tuples = set()
    stack = [v]
    while stack:
        x = stack.pop()
        t = type(x)
        items = _items_of(x, t)
        if items is None:
            continue
        if t is tuple or (t is not list and t is not dict and issubclass(t, tuple)):
            if id(x) in tuples:
                continue
            tuples.add(id(x))
        else:
            if id(x) in found:
                continue
            found[id(x)] = x
        budget -= 1
        for y in items:
            budget -= 1
            if budget < 0:
                return False
            if not _scalar(type(y)):
                refs[id(y)] = refs.get(id(y), 0) + 1
                stack.append(y)
    return True


def _outside_refs(root, found, refs):
    """For each list and dict of the result (`root`, held by one local of
    its caller), by id: its reference count less the result's own
    references to it, less what holding it here costs (_REF_BASE: one base
    for the root, one for the rest). Above 0: something else holds it.
    Called straight from the function that holds the result, as the
    calibration (_ref_bases) calls it."""
    out = {}
    root_base, base = _REF_BASE
    for i in found:
        x = found[i]
        out[i] = _getrefcount(x) - refs.get(i, 0) - (root_base if x is root else base)
    return out


def _ref_bases():
    """The (root, other) bases of _outside_refs, from a probe built and held
    as _run_case holds a result; None when the interpreter's counts do not
    show one more holder of any one object as exactly one more (then every
    result is searched for in the module and the earlier results)."""
    global _REF_BASE
    _REF_BASE = (0, 0)
    probe = {"a": [[], {"b": ((), [{}])}], "c": ([{}],), "d": [1, "x"]}
    found, refs = {}, {}
    if not _containers(probe, found, refs) or len(found) != 9:
        return None
    counts = _outside_refs(probe, found, refs)
    root_base = counts.pop(id(probe))
    bases = set(counts.values())
    if len(bases) != 1:
        return None
    _REF_BASE = (root_base, bases.pop())
    for i in list(found):
        holder = [found[i]]
        counts = _outside_refs(probe, found, refs)
        if counts.pop(i) != 1 or any(counts.values()):
            return None
        del holder
    if any(_outside_refs(probe, found, refs).values()):
        return None
    return _REF_BASE


def _key_text(k):
    """A dict key as a path shows it: the repr of a str (cut), an int, a
    float, a bool or None; `...` for anything else (never its own repr)."""
    t = type(k)
    if t is str:
        text = str.__repr__(k[:KEY_CHARS])
        return text if len(k) <= KEY_CHARS else text[:-1] + "..." + text[-1]
    if t is int:
        return _int_repr(k) if -(10**20) < k < 10**20 else "<int>"
    if t is float:
        return _float_repr(k)
    if k is None:
        return "None"
    if k is True or k is False:
        return "True" if k is True else "False"
    return "..."


def _path_to(root, target, budget=RESULT_BUDGET):
    """The steps (`[0]`, `['key']`) from `root` to the list or dict whose id
    is `target`, depth first; None when not found within `budget` nodes."""
    stack = [(root, ())]
    seen = set()
    while stack and budget > 0:
        x, steps = stack.pop()
        if id(x) == target:
            return steps
        t = type(x)
        if _scalar(t) or id(x) in seen:
            continue
        keyed = t is dict or (t is not list and t is not tuple and issubclass(t, dict))
        items = dict.items(x) if keyed else _items_of(x, t)
        if items is None:
            continue
        seen.add(id(x))
        budget -= 1
        children = []
        for i, y in enumerate(items):
            budget -= 1
            if budget < 0:
                break
            if keyed:
                i, y = y
            if not _scalar(type(y)):
                children.append((y, i))
        for y, i in reversed(children):
            stack.append((y, steps + ("[%s]" % _key_text(i) if keyed else "[%d]" % i,)))
    return None


def _path_text(head, steps):
    text = head + "".join(steps or ())
    return text if len(text) <= PATH_CHARS else text[: PATH_CHARS - 3] + "..."


def _module_holder(mod_dict, targets):
    """(global name, its value, id) of the first list or dict reachable from
    the module's globals (`__builtins__` aside) whose id is in `targets`,
    within GLOBALS_BUDGET nodes; None otherwise."""
    budget = GLOBALS_BUDGET
    seen = set()
    for name, v in list(dict.items(mod_dict)):
        if type(name) is str and name == "__builtins__":
            continue
        stack = [v]
        while stack:
            x = stack.pop()
            t = type(x)
            items = _items_of(x, t)
            if items is None:
                continue
            if t is not tuple and not (t is not list and t is not dict and issubclass(t, tuple)):
                if id(x) in targets:
                    return name, v, id(x)
                if id(x) in seen:
                    continue
                seen.add(id(x))
            budget -= 1
            for y in items:
                budget -= 1
                if budget < 0:
                    return None
                if not _scalar(type(y)):
                    stack.append(y)
    return None


def _global_name(name):
    if type(name) is str and name.isascii() and name.isidentifier() and len(name) <= KEY_CHARS:
        return "main." + name
    return "vars(main)[%s]" % _key_text(name)


def _first_in(result, found, targets):
    """The id of the first of the result's lists and dicts (`found`) that is
    in `targets`, depth first from the root (so the outermost); None when
    there is none."""
    hits = [i for i in found if i in targets]
    if len(hits) <= 1:
        return hits[0] if hits else None
    hit = set(hits)
    stack = [result]
    seen = set()
    while stack:
        x = stack.pop()
        if id(x) in hit:
            return id(x)
        if id(x) in seen:
            continue
        seen.add(id(x))
        items = _items_of(x, type(x))
        if items is not None:
            stack.extend(reversed([y for y in items if not _scalar(type(y))]))
    return hits[0]


def _shared_with_args(result, found, args, kwargs, arg_ids):
    """`got[...] is args[i][...]`: where the first object the result shares
    with the arguments is, in both; None when it cannot be found."""
    hit = _first_in(result, found, arg_ids)
    if hit is None:
        return None
    heads = [("args[%d]" % i, a) for i, a in enumerate(args)]
    heads += [("kwargs[%s]" % _key_text(k), a) for k, a in dict.items(kwargs)]
    for head, a in heads:
        where = _path_to(a, hit)
        if where is not None:
            return "%s is %s" % (_path_text("got", _path_to(result, hit)), _path_text(head, where))
    return None


def _shared_with_state(mod_dict, result, found):
    """Where the result shares a list or dict with the module's globals or
    an earlier result (`got['a'] is main.CACHE['a']`, `got is an earlier
    call's result`); None when it shares none."""
    held = _module_holder(mod_dict, found)
    if held is not None:
        name, value, hit = held
        where = _path_to(value, hit)
        head = _global_name(name)
    else:
        hit = _first_in(result, found, _EARLIER)
        if hit is None:
            return None
        where = None
        for root in reversed(_EARLIER_ROOTS):
            where = _path_to(root, hit)
            if where is not None:
                break
        head = "an earlier call's result"
    return "%s is %s" % (_path_text("got", _path_to(result, hit)), _path_text(head, where))


def _keep_result(result, found, size):
    """Keeps the result's lists and dicts alive for the later calls' check
    (`size`: the length of its encoded value), within EARLIER_LIMIT and
    EARLIER_TEXT; past them, later results are not kept."""
    if len(_EARLIER) + len(found) <= EARLIER_LIMIT and _EARLIER_SIZE[0] + size <= EARLIER_TEXT:
        _EARLIER.update(found)
        _EARLIER_ROOTS.append(result)
        _EARLIER_SIZE[0] += size


_REF_BASE = None
_REF_BASE = _ref_bases()


def _run_case(mod_dict, case):
    """One call; returns the outcome's JSON text, or None for out-of-memory."""
    name, blob = case
    fn = dict.get(mod_dict, name)
    if fn is None:
        return '{"kind":"missing"}'
    args, kwargs = _marshal_loads(blob)
    pid = _PID[0]
    try:
        result = fn(*args, **kwargs)
    except MemoryError:
        if _getpid() != pid:
            _exit(0)
        return None
    except BaseException as e:
        if _getpid() != pid:
            _exit(0)
        _setrecursionlimit(_RECURSION_LIMIT)
        return _raised_text(e)
    if _getpid() != pid:  # a process the student forked returned from the call
        _exit(0)
    _setrecursionlimit(_RECURSION_LIMIT)
    ids = []  # the fast path's: every list and dict in the result
    try:
        value = _plain_json(result, _C_ENCODER, ids) if _C_ENCODER is not None else None
        if value is None:
            ids = None
            value = dumps(T.encode(result))
    except T.TooLarge:
        _KEEP.append(result)  # freed by the process exit, not one object at a time
        return '{"kind":"output-too-large"}'
    except MemoryError:
        return None
    except BaseException:
        ids = None
        value = '{"$opaque":{"type":"object","repr":"<could not be encoded>"}}'
    shared = None
    state = False
    found = {}  # id -> every list and dict of the result
    refs = {}  # id -> the result's own references to it
    whole = False
    try:
        if _items_of(result, type(result)) is not None:
            whole = _containers(result, found, refs)
    except BaseException:
        found = {}
    try:
        # Only a list, dict or tuple can hold the arguments' objects.
        if ids is not None:
            # The fast path saw every list and dict the result holds.
            shares = False
            if ids:
                arg_ids = set()
                _container_ids(args, arg_ids)
                arg_ids.discard(id(args))
                for x in kwargs.values():
                    _container_ids(x, arg_ids)
                shares = not arg_ids.isdisjoint(ids)
        elif type(result) is tuple or isinstance(result, list) or isinstance(result, dict):
            arg_ids = set()
            _container_ids(args, arg_ids)
            arg_ids.discard(id(args))
            for x in kwargs.values():
                _container_ids(x, arg_ids)
            shares = bool(arg_ids) and _shares(result, arg_ids, set())
        else:
            shares = False
    except BaseException:
        shares = True
    if found:
        try:
            if shares:
                shared = _shared_with_args(result, found, args, kwargs, arg_ids)
            elif not whole or _REF_BASE is None or any(n > 0 for n in _outside_refs(result, found, refs).values()):
                shared = _shared_with_state(mod_dict, result, found)
                state = shared is not None
        except BaseException:  # a thread of the student's changed what was walked
            shared = None
        _keep_result(result, found, len(value))
    try:
        changed = _marshal_dumps((args, kwargs), 2) != blob
    except BaseException:  # something marshal refuses was put in them
        changed = True
    extra = ""
    if state:
        extra = ',"shares_with_state":true'
    if shared is not None:
        extra += ',"shared":' + _esc(_text(shared, 2 * PATH_CHARS + 8))
    return (
        '{"kind":"returned","value":%s,"shares_with_args":%s,"args_changed":%s%s}'
        % (value, "true" if shares else "false", "true" if changed else "false", extra)
    )


def _import_error(e, path):
    line = None
    if isinstance(e, SyntaxError):
        line = e.lineno if type(e.lineno) is int else None
    else:
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == path:
                line = tb.tb_lineno
            tb = tb.tb_next
    return {"kind": "import-error", "exc_type": _class_name(type(e)), "message": _message(e), "line": line}


def _report(line):
    _write_all(RESULT_FD, line.encode("utf-8") + b"\n")


def _bytecode(pyc, path, source):
    """main.py's compiled code, an unchecked hash-based .pyc (None when it
    does not compile): `pyc`, the code a previous session of the same source
    compiled (the job's "pyc_hex", from the grader's store), else compiled
    here. Compiling runs no student code.

    Without "pyc_hex" the child always says "K <hex>" (or "K" when it could
    not compile) before import: the supervisor takes that one line only,
    so what student code writes later cannot stand in for it."""
    data = pyc
    if pyc is None:
        try:
            code = compile(source, path, "exec", dont_inherit=True)
            # The same bytes whatever the folder (import sets the real path
            # back, as for any .pyc), so a store file is reproducible.
            _imp._fix_co_filename(code, "main.py")
            data = importlib._bootstrap_external._code_to_hash_pyc(code, importlib.util.source_hash(source), False)
            del code
        except BaseException:
            data = None
        _report("K " + data.hex() if data is not None and len(data) <= PYC_LIMIT else "K")
    return data


# An unchecked hash-based .pyc: the interpreter's magic, then flags 0b01.
_PYC_HEAD = importlib.util.MAGIC_NUMBER + b"\x01\x00\x00\x00"


def _import_main(path, pyc):
    """`import main` for main.py at `path`, with `pyc` (see _bytecode) as the
    .pyc import would read from __pycache__: the steps of importlib's own
    load (the spec a path finder makes, the module in sys.modules while its
    code runs and removed if it raises, whatever sys.modules then holds
    returned), without writing the .pyc to disk and finding it again,
    which was a third of the import (0.5 ms a session). Code that is not a
    .pyc of this interpreter is left to import, which compiles main.py and
    reports what it finds."""
    code = None
    if pyc is not None and pyc[:8] == _PYC_HEAD:
        try:
            code = _marshal_loads(memoryview(pyc)[16:])
        except BaseException:
            code = None
    if type(code) is not types.CodeType:
        return importlib.import_module("main")
    # As importlib's SourceLoader.get_code: the code's file names are the
    # real main.py's.
    _imp._fix_co_filename(code, path)
    spec = importlib.util.spec_from_file_location("main", path)
    module = importlib.util.module_from_spec(spec)
    # As importlib._bootstrap._load_unlocked.
    spec._initializing = True
    try:
        sys.modules["main"] = module
        try:
            exec(code, module.__dict__)
        except BaseException:
            try:
                del sys.modules["main"]
            except KeyError:
                pass
            raise
        module = sys.modules.pop("main")
        sys.modules["main"] = module
    finally:
        spec._initializing = False
    return module


def _set_limits(limits):
    for name, key in (
        ("RLIMIT_AS", "as"),
        ("RLIMIT_CPU", "cpu"),
        ("RLIMIT_FSIZE", "fsize"),
        ("RLIMIT_NOFILE", "nofile"),
        ("RLIMIT_NPROC", "nproc"),
        ("RLIMIT_CORE", "core"),
    ):
        value = limits.get(key)
        if value is not None:
            try:
                resource.setrlimit(getattr(resource, name), (value, value))
            except (ValueError, OSError):
                pass


def _drop_privileges():
    uid = INIT.get("uid")
    if uid is None:
        return
    gid = INIT.get("gid", uid)
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError("could not drop privileges")


def _enter_sandbox(jobdir, name):
    """Limits, the worker uid, the submission's folder, then the child's
    own Landlock domain and seccomp filter (landlock tier) or the scope-only
    domain and the filter that keeps it off other processes (the others);
    returns the folder `name` made in jobdir for this child. Raises when any
    of it fails."""
    try:
        # The worker's own processes are the OOM killer's last choice
        # (-1000, set by Rust); the submission's are its first.
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
    except OSError:
        pass
    _set_limits(INIT["limits"])
    _drop_privileges()
    os.umask(0o077)
    os.makedirs(jobdir, mode=0o700, exist_ok=True)
    here = os.path.join(jobdir, name)
    os.mkdir(here, 0o700)
    os.chdir(here)
    if INIT["tier"] == "landlock":
        C.confine(INIT["read_roots"], jobdir)
        # tempfile would try /tmp and /var/tmp first, now unwritable.
        os.environ["TMPDIR"] = here
    else:
        # The other tiers still keep the child from tracing (where the
        # kernel has Landlock), signalling, re-limiting or renicing what is
        # outside it.
        C.scope_only()
    return here


def _read_job(fd):
    """The job the supervisor writes a child, until it closes the pipe:
    b"<source bytes> <compiled bytes, or -1>\n", the source, then the
    compiled code. Returns (source, compiled code or None)."""
    try:
        head = bytearray()
        while b"\n" not in head and len(head) < 64:
            chunk = _read(fd, 64)
            if not chunk:
                break
            head += chunk
        first, _, rest = bytes(head).partition(b"\n")
        sizes = first.split(b" ")
        if len(sizes) != 2 or not all(x.lstrip(b"-").isdigit() for x in sizes):
            raise ValueError("the supervisor wrote no job")
        n_source, n_pyc = int(sizes[0]), int(sizes[1])
        total = n_source + max(n_pyc, 0)
        if not (0 <= n_source <= JOB_LIMIT and -1 <= n_pyc <= JOB_LIMIT) or len(rest) > total:
            raise ValueError("the supervisor wrote no job")
        # Read straight into one buffer of the job's size (no copy per read).
        job = bytearray(total)
        job[: len(rest)] = rest
        view = memoryview(job)
        got = len(rest)
        while got < total:
            n = os.readv(fd, [view[got:]])
            if n == 0:
                raise ValueError("the supervisor's job ended early")
            got += n
        if _read(fd, 1):
            raise ValueError("the supervisor wrote more than its job")
    finally:
        os.close(fd)
    source = bytes(view[:n_source])
    return source, (bytes(view[n_source:]) if n_pyc >= 0 else None)


def _child(request, res_w, out_w, hid_r, job_r):
    """Never returns: runs cases start..n of the request and exits. The job
    (source, compiled code) comes from the supervisor on job_r; the hidden
    cases' inputs arrive on HIDDEN_FD only once the visible ones are
    answered."""
    try:
        start, attempt, jobdir, n = request["start"], request["attempt"], request["jobdir"], request["n"]
        chosen = request["visible"]
        cases = INIT["cases"] if chosen is None else [INIT["cases"][i] for i in chosen]
        try:
            (source, pyc), unread = _read_job(job_r), None
        except BaseException as e:  # reported below, once the channel is set up
            source = pyc = None
            unread = e
        os.setsid()
        _own_ipc_namespace()
        _name(b"ag-child")
        # Out of the way of the numbers they are moved to.
        fd3 = fcntl.fcntl(res_w, fcntl.F_DUPFD, 16)
        fd4 = fcntl.fcntl(hid_r, fcntl.F_DUPFD, 16)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd3, RESULT_FD)
        os.dup2(fd4, HIDDEN_FD)
        os.closerange(HIDDEN_FD + 1, 1 << 16)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            if unread is not None:
                raise unread
            here = _enter_sandbox(jobdir, str(attempt))
            path = os.path.join(here, "main.py")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            _write_all(fd, source)
            os.close(fd)
        except BaseException as e:
            # The grader's failure, not the student's: no student code has run.
            _report("X " + dumps(_text("%s: %s" % (type(e).__name__, e))))
            _exit(0)
        # From here on student code runs: the supervisor takes no "X" line.
        _report("S")
        sys.path.insert(0, here)
        sys.dont_write_bytecode = True
        sys.argv = [path]
        sys.modules.pop("main", None)
        pyc = _bytecode(pyc, path, source)
        del source
        try:
            module = _import_main(path, pyc)
            mod_dict = _obj_getattr(module, "__dict__")
            if type(mod_dict) is not dict:
                raise ImportError("main has no module dictionary")
        except MemoryError as e:
            _report("E " + dumps(_import_error(e, path)))
            _exit(0)
        except BaseException as e:
            if _getpid() != _PID[0]:
                _exit(0)
            _setrecursionlimit(_RECURSION_LIMIT)
            _report("E " + dumps(_import_error(e, path)))
            _exit(0)
        if _getpid() != _PID[0]:
            _exit(0)
        _report("I")
        visible = len(cases)
        for i in range(start, n):
            if i == max(start, visible):
                # Every visible case is answered (by this child or an
                # earlier one): only now do the hidden inputs come.
                if start < visible:
                    _report("V")
                hidden = _read_hidden(HIDDEN_FD)
                cases = cases + _marshal_loads(hidden)
                del hidden
            text = _run_case(mod_dict, cases[i])
            restart = text is None
            if text is None:
                text = '{"kind":"out-of-memory"}'
            elif len(text) > LINE_LIMIT - 64:
                text = '{"kind":"output-too-large"}'
                restart = True
            elif text == '{"kind":"output-too-large"}':
                restart = True
            _report("C %d %s" % (i, text))
            if restart:
                # The heap may be huge: a fresh process is faster than freeing it.
                _report("R")
                _exit(0)
        _report("D")
        for f in (_stdout, _stderr):
            try:
                f.flush()
            except BaseException:
                pass
    finally:
        _exit(0)


_PID = [0]
_KEEP = []
_HIDDEN_ALL = [None]  # the supervisor's: every hidden case's prepared input (marshal bytes)
# Built-in exception classes -> (class, the start of their "raised" outcome).
_RAISED_HEADS = {}
_plain_json = None


# ---------------------------------------------------------------------------
# The supervisor: one per submission.
# ---------------------------------------------------------------------------


def _reap(cpid, jobdir, leftovers=None):
    """Kills the child's whole tree (whatever sessions it made) and removes
    its scratch directory, and (by default with it) whatever the worker uid
    left elsewhere."""
    if cpid is not None:
        try:
            os.killpg(cpid, signal.SIGKILL)
        except OSError:
            pass
    uid = INIT.get("uid")
    if uid is not None:
        # Killed from outside the uid (this process is root, or holds
        # CAP_KILL under bwrap): nothing of the uid can interrupt it, and it
        # goes on until /proc shows no process of the uid. Only then does a
        # process of that uid remove its files: nothing is left to stop it.
        # Under bwrap (own PID namespace) and landlock (no socket to a
        # daemon that could start one) every process of the uid descends
        # from this process (their subreaper), so when none is left below
        # it, /proc need not be searched (it is after a kill, under
        # rlimits, at start, and whenever a kill did not finish).
        if (
            cpid is not None
            or INIT["tier"] not in ("bwrap", "landlock")
            or _SUBREAPER[0] is not True
            or _DIRTY[0]
            or _strays()
        ):
            _DIRTY[0] = not _kill_uid(uid)

        def clean():
            if jobdir is not None:
                _rmtree(jobdir)
            if leftovers if leftovers is not None else jobdir is not None:
                _remove_leftovers(uid)

        _as_worker_uid(clean)
        if (leftovers if leftovers is not None else jobdir is not None) and _sysv_owned(uid):
            # System V objects are removed by their owner's effective uid (a
            # filesystem uid does not count): in a child that is the uid.
            _as_worker_uid(lambda: _remove_sysv_ipc(uid), fork=True)
    if jobdir is not None:
        # As root (rlimits) the submission's folder sits in a root-owned
        # scratch root, where only the supervisor can remove it.
        _rmtree(jobdir)


def _clear(jobdir):
    """Empties a submission's folder, keeping the folder: as the worker uid
    when there is one (under bwrap the supervisor may not remove the uid's
    files; as root it must not follow what the uid made), once nothing of
    the uid is running."""
    def clear():
        try:
            names = os.listdir(jobdir)
        except OSError:
            names = []
        for name in names:
            _rmtree(os.path.join(jobdir, name))

    if INIT.get("uid") is None:
        clear()
    else:
        _as_worker_uid(clear)


def _as_worker_uid(fn, fork=False):
    """Runs `fn` as the worker uid (as root), so what the uid made is
    removed as the uid and nothing is followed where the uid could not go:
    in this process with the filesystem uid and gid of the worker (no
    supplementary groups; the kernel drops the file capabilities while the
    filesystem uid is not 0) where that holds, else in a child that is the
    uid. Called once no process of the uid is left."""
    uid = INIT["uid"]
    gid = INIT.get("gid", uid)
    libc = _libc()
    if libc is not None and _FS_IDS_OK[0] and not fork:
        try:
            os.setgroups([])
            libc.setfsgid(gid)
            libc.setfsuid(uid)
            if libc.setfsuid(uid) == uid and libc.setfsgid(gid) == gid:
                try:
                    fn()
                finally:
                    libc.setfsuid(0)
                    libc.setfsgid(0)
                if libc.setfsuid(0) == 0 and libc.setfsgid(0) == 0:
                    return
                raise OSError("the filesystem ids did not come back")
            libc.setfsuid(0)
            libc.setfsgid(0)
        except OSError:
            pass
        _FS_IDS_OK[0] = False
    r = os.fork()
    if r == 0:
        try:
            os.setgroups([])
            os.setgid(INIT.get("gid", uid))
            os.setuid(uid)
            fn()
        finally:
            _exit(0)
    os.waitpid(r, 0)


_LIBC = []
_FS_IDS_OK = [True]


def _libc():
    if not _LIBC:
        try:
            import ctypes

            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        except BaseException:
            _LIBC.append(None)
    return _LIBC[0]


def _name(name):
    """Names this process (what ps and perf show: the zygote stays
    python3), where ctypes can."""
    try:
        _libc().prctl(15, name, 0, 0, 0)  # PR_SET_NAME
    except BaseException:
        pass


def _read_proc(path):
    """A small /proc file's bytes, in four system calls (a Python file
    object makes eight; the supervisor reads one per batch of results).
    Raises OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = b""
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return data
            data += chunk
    finally:
        os.close(fd)


def _statuses():
    """(pid, /proc/<pid>/status bytes) of every process /proc shows and
    lets this process read."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if name.isdigit():
            try:
                yield int(name), _read_proc("/proc/" + name + "/status")
            except OSError:
                continue


def _uid_processes(uid):
    """Pids of the live (not zombie) processes whose real, effective or saved
    uid is `uid`, from /proc."""
    found = []
    me = _getpid()
    for pid, status in _statuses():
        if pid == me:
            continue
        try:
            state = status.split(b"\nState:", 1)[1].split()[0]
            uids = [int(u) for u in status.split(b"\nUid:", 1)[1].split()[:3]]
        except (IndexError, ValueError):
            continue
        if state != b"Z" and uid in uids:
            found.append(pid)
    return found


def _uid_tasks(uid):
    """Tasks (threads included) whose real uid is `uid`, as /proc shows
    them: what RLIMIT_NPROC counts when a process of that uid forks."""
    total = 0
    for _, status in _statuses():
        try:
            if int(status.split(b"\nUid:", 1)[1].split()[0]) == uid:
                total += int(status.split(b"\nThreads:", 1)[1].split()[0])
        except (IndexError, ValueError):
            continue
    return total


# Tasks the grader's uid may gain after a worker counted it (its other
# workers starting, their reader threads), besides the submissions'.
NPROC_MARGIN = 16


def _share_nproc():
    """RLIMIT_NPROC counts every task of the forking process's uid (in its
    user namespace). With a uid of its own (root) or bwrap's namespace per
    worker, that is the submission's processes and the worker's own few, and
    `nproc` stands. Otherwise (landlock or rlimits without root) it is also
    every thread of the grader and of whatever else that user runs, and the
    other workers' submissions: the limit becomes that count now, plus
    `nproc` for each worker, so that how many threads the grader runs (one
    per core) never decides whether a student's fork succeeds. The workers'
    submissions still share that room: documented."""
    limits = INIT["limits"]
    nproc = limits.get("nproc")
    if nproc is None or INIT.get("uid") is not None:
        return
    if INIT["tier"] == "bwrap":
        limits["nproc"] = _uid_tasks(os.getuid()) + nproc
        return
    workers = max(int(INIT.get("workers", 1)), 1)
    limits["nproc"] = _uid_tasks(os.getuid()) + NPROC_MARGIN + nproc * workers


def _kill_until_none(find, reap, limit_seconds):
    """SIGKILLs every pid `find()` lists, round after round, until it lists
    none (True) or the time is up (False). A process forking as fast as it
    can still loses: each round kills all there are, and a process that
    received SIGKILL forks no more. `reap(pids)` collects what was killed."""
    end = _monotonic() + limit_seconds
    while _monotonic() < end:
        pids = find()
        if not pids:
            return True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap(pids)
    return False


def _kill_uid(uid, limit_seconds=10.0):
    """Kills every process of the worker uid, wherever it is, until /proc
    shows none."""
    return _kill_until_none(lambda: _uid_processes(uid), lambda _: _reap_orphans(), limit_seconds)


# World-writable places a submission could leave files in for the next one
# run by the same worker uid (which could read them). /dev/mqueue lists POSIX
# message queues (mounted there under bwrap).
_SHARED_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock", "/dev/mqueue")


def _remove_leftovers(uid):
    """Removes what the worker uid owns in the scratch root, the shared
    temporary folders (and the world-writable folders inside them, such as
    /tmp/.X11-unix) (runs as that uid, after everything it ran is dead; its
    System V IPC objects go in `_reap`)."""
    seen = set()
    for d in (INIT["scratch"],) + _SHARED_DIRS:
        _remove_owned(d, uid, seen, 0)


def _remove_owned(d, uid, seen, depth):
    try:
        st = os.stat(d)
        names = os.listdir(d)
    except OSError:
        return
    if (st.st_dev, st.st_ino) in seen:
        return
    seen.add((st.st_dev, st.st_ino))
    for name in names:
        path = os.path.join(d, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_uid == uid:
            _rmtree(path)
        elif depth < 3 and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
            _remove_owned(path, uid, seen, depth + 1)


def _sysv_owned(uid):
    """Whether the uid owns a System V shared memory segment, message queue
    or semaphore set."""
    for kind in ("shm", "msg", "sem"):
        try:
            rows = [line.split() for line in _read_proc("/proc/sysvipc/" + kind).decode("ascii", "replace").splitlines()]
            at_uid = rows[0].index("uid")
            if any(int(row[at_uid]) == uid for row in rows[1:]):
                return True
        except (OSError, ValueError, IndexError):
            return True  # unreadable: let the owner try
    return False


def _remove_sysv_ipc(uid):
    """Removes the shared memory segments, message queues and semaphore sets
    the uid owns: they outlive processes, and the worker's IPC namespace (the
    host's under rlimits without root) outlives its submissions."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except BaseException:
        return
    for kind, key, rm in (
        ("shm", "shmid", lambda i: libc.shmctl(i, 0, None)),
        ("msg", "msqid", lambda i: libc.msgctl(i, 0, None)),
        ("sem", "semid", lambda i: libc.semctl(i, 0, 0)),
    ):
        try:
            rows = [line.split() for line in _read_proc("/proc/sysvipc/" + kind).decode("ascii", "replace").splitlines()]
            head = rows[0]
            at_id, at_uid = head.index(key), head.index("uid")
            for row in rows[1:]:
                if int(row[at_uid]) == uid:
                    rm(int(row[at_id]))  # IPC_RMID
        except (OSError, ValueError, IndexError):
            continue


def _rmtree(path):
    try:
        st = os.lstat(path)
    except OSError:
        return
    if stat.S_ISDIR(st.st_mode):
        try:
            os.chmod(path, 0o700)
        except OSError:
            pass
        try:
            names = os.listdir(path)
        except OSError:
            names = []
        for n in names:
            _rmtree(os.path.join(path, n))
        try:
            os.rmdir(path)
        except OSError:
            pass
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def _cpu_seconds(sid):
    """CPU time used so far (user + system) by the processes of session `sid`
    (the child and whatever it forked without leaving the session), from
    /proc; inf when unreadable, so the wall-clock limit applies."""
    total = 0
    found = False
    try:
        names = os.listdir("/proc")
    except OSError:
        return float("inf")
    for name in names:
        if not name.isdigit():
            continue
        try:
            fields = _read_proc("/proc/" + name + "/stat").rpartition(b")")[2].split()
            if int(fields[3]) == sid:
                total += int(fields[11]) + int(fields[12])
                found = True
        except (OSError, ValueError, IndexError):
            continue
    return total / _CLK_TCK if found else float("inf")


def _tmpfs_used(path="/tmp"):
    """(bytes, inodes) in use on the filesystem holding `path`."""
    try:
        v = os.statvfs(path)
    except OSError:
        return (0, 0)
    return ((v.f_blocks - v.f_bfree) * v.f_frsize, v.f_files - v.f_ffree)


def _usage(path):
    """Bytes a folder takes on disk (allocated blocks, so sparse files count
    what they use); more than the limit when it holds more than DISK_ENTRIES
    entries (inodes are disk too, and counting them must stay cheap)."""
    total = 0
    entries = 0
    stack = [path]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for e in it:
                entries += 1
                if entries > DISK_ENTRIES:
                    return DISK_LIMIT + 1
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += st.st_blocks * 512
                if stat.S_ISDIR(st.st_mode):
                    stack.append(e.path)
    return total


def _proc_cpu(pid):
    """CPU time (user + system) of one process, from /proc, measured here
    rather than reported by the child; 0 when unreadable (then the session's
    total from `_cpu_seconds` and the wall cap still bound the case)."""
    try:
        fields = _read_proc("/proc/%d/stat" % pid).rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / _CLK_TCK
    except (OSError, ValueError, IndexError):
        return 0.0


def _status_outcome(status):
    if status is None:
        return {"kind": "crashed", "exit_code": None, "signal": None}
    if os.WIFSIGNALED(status):
        return {"kind": "crashed", "exit_code": None, "signal": os.WTERMSIG(status)}
    if os.WIFEXITED(status):
        return {"kind": "crashed", "exit_code": os.WEXITSTATUS(status), "signal": None}
    return {"kind": "crashed", "exit_code": None, "signal": None}


class _Run:
    """State of one submission's recording across children."""

    def __init__(self, job):
        self.job = job
        self.source = bytes.fromhex(job["source_hex"])
        # The cases this submission runs: every case, or the job's subset
        # (positions among the visible inputs, and how many of the hidden
        # inputs Rust will send: only the chosen ones).
        chosen = job.get("visible")
        self.chosen = chosen  # the zygote builds the child's cases from these positions
        if chosen is None:
            self.cases = INIT["cases"]
            hidden = INIT.get("hidden_count", 0)
        else:
            every = INIT["cases"]
            if any(type(i) is not int or not 0 <= i < len(every) for i in chosen):
                raise ValueError("a job chose a case that does not exist")
            self.cases = [every[i] for i in chosen]
            hidden = job.get("hidden", 0)
        self.nv = len(self.cases)  # visible cases, run first
        self.n = self.nv + int(hidden)
        self.hidden = None  # the hidden cases' inputs (JSON bytes), asked for once the visible are answered
        self.outcomes = [None] * self.n
        self.output = bytearray()
        self.output_total = 0
        self.reply_bytes = 0
        self.timeout = float(INIT["timeout"])
        self.wall = float(INIT["wall"])
        self.wall_end = _monotonic() + self.wall
        _JOBS[0] += 1
        self.jobdir = os.path.join(INIT["scratch"], "j%d-%d" % (_getpid(), _JOBS[0]))
        self.failure = None  # the grader's own failure: no outcome is valid
        self.pyc = None  # main.py compiled by this session's first child (hex), for the store
        self.findings = []  # runtime integrity findings (see seen)
        # The submission's folder is watched while cases run, in every tier:
        # under landlock it is the only place it may write (on the host's
        # disk), under bwrap it shares a tmpfs with the worker's scratch.
        self.watch_disk = True
        # Under bwrap /tmp is the worker's own tmpfs, which the supervisor
        # (root without CAP_DAC_OVERRIDE there) measures as a whole.
        self.disk_base = _tmpfs_used() if INIT["tier"] == "bwrap" else None

    def take_output(self, data):
        self.output_total += len(data)
        room = OUTPUT_LIMIT - len(self.output)
        if room > 0:
            self.output += data[:room]

    def budget_timeout(self):
        """The outcome of a case the submission's wall budget ended (or left unrun)."""
        return {"kind": "timeout", "seconds": self.timeout, "submission_budget": self.wall}

    def fill(self, start, outcome):
        for i in range(start, self.n):
            if self.outcomes[i] is None:
                self.outcomes[i] = dumps(outcome).encode()

    def make_jobdir(self):
        _Run.make_jobdir_for(self.jobdir)

    @staticmethod
    def make_jobdir_for(jobdir):
        """The submission's folder, made by the supervisor for the worker uid
        where it can (root without bwrap: the scratch root is root's);
        otherwise the child makes it."""
        uid = INIT.get("uid")
        if uid is None:
            return
        try:
            os.mkdir(jobdir, 0o700)
        except OSError:
            return
        try:
            os.chown(jobdir, uid, INIT.get("gid", uid))
        except OSError:  # no CAP_CHOWN (bwrap): /tmp is the child's to use
            os.rmdir(jobdir)

    def run(self):
        self.make_jobdir()
        start = 0
        attempt = 0
        while start < self.n:
            if _monotonic() >= self.wall_end:
                self.fill(start, self.budget_timeout())
                break
            start = self.one_child(start, attempt)
            attempt += 1

    def one_child(self, start, attempt):
        """Has the zygote fork a child for cases start..; returns where the
        next child starts."""
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        hid_r, hid_w = os.pipe()
        job_r, job_w = os.pipe()
        request = {"start": start, "attempt": attempt, "jobdir": self.jobdir, "n": self.n, "visible": self.chosen}
        try:
            cpid = _ZYGOTE.fork_child(request, [res_w, out_w, hid_r, job_r])
        finally:
            for fd in (res_w, out_w, hid_r, job_r):
                os.close(fd)
        # The job (the source, and its compiled code) goes straight to the
        # child: the zygote never holds it.
        try:
            fcntl.fcntl(job_w, 1031, PIPE_BYTES)  # F_SETPIPE_SZ
        except OSError:
            pass
        try:
            source, pyc = self.job_bytes()
            _write_all(job_w, b"%d %d\n" % (len(source), -1 if pyc is None else len(pyc)) + source + (pyc or b""))
        except OSError:  # the child is gone: it will be judged as such
            pass
        finally:
            os.close(job_w)
        os.set_blocking(res_r, False)
        os.set_blocking(out_r, False)
        for fd in (res_r, out_r, hid_w):
            try:
                fcntl.fcntl(fd, 1031, PIPE_BYTES)  # F_SETPIPE_SZ
            except OSError:
                pass
        # The zygote (the child's parent) says when it has exited.
        exit_fd = _ZYGOTE.sock.fileno()
        st = {"pending": start, "sandboxed": False, "imported": False, "compiled": False, "finished": False, "bad": False, "all": False, "scanned": 0}
        st["hid_w"] = hid_w  # closed once the hidden inputs are written, or with the child
        st["hidden_left"] = None  # what of them is still to write (see send_hidden)
        if self.nv <= start < self.n:
            self.send_hidden(st)
        st["cpu"] = 0.0  # the child's CPU time when its current case (or import) began
        st["since"] = _monotonic()  # ... and the wall time
        buf = bytearray()
        deadline = min(_monotonic() + self.timeout, self.wall_end)
        next_disk = _monotonic() + DISK_EVERY
        exited = False
        status = None
        failure = None
        res_open = out_open = True
        while True:
            now = _monotonic()
            if now >= deadline:
                if st["finished"]:
                    break
                used = _cpu_seconds(cpid) - st["cpu"]
                cap = min(st["since"] + WALL_FACTOR * self.timeout, self.wall_end)
                if used >= self.timeout * 0.98 or now >= cap:
                    # The submission's wall budget, not the case's own limit,
                    # when it ended the case before the case's limit did.
                    by_budget = used < self.timeout * 0.98 and now >= self.wall_end and self.wall_end < st["since"] + WALL_FACTOR * self.timeout
                    failure = self.budget_timeout() if by_budget else {"kind": "timeout", "seconds": self.timeout}
                    break
                deadline = min(now + max(self.timeout - used, 0.02), cap)
            fds = [f for f, o in ((res_r, res_open), (out_r, out_open)) if o]
            if exit_fd is not None:
                fds.append(exit_fd)
            if self.watch_disk and now >= next_disk:
                if self.disk_used() > DISK_LIMIT:
                    failure = {"kind": "disk-limit", "bytes": DISK_LIMIT}
                    break
                next_disk = now + DISK_EVERY
            wait = deadline - now
            if self.watch_disk:
                wait = max(min(wait, next_disk - now), 0.0)
            writing = [st["hid_w"]] if st["hidden_left"] is not None else []
            ready, writable, _ = select.select(fds, writing, [], wait)
            if writable:
                self.write_hidden(st)
            if out_r in ready:
                data = self._read(out_r)
                if data == b"":
                    out_open = False
                elif data:
                    self.take_output(data)
            if res_r in ready:
                data = self._read(res_r)
                if data == b"":
                    res_open = False
                elif data:
                    buf += data
                    if self.lines(buf, st):
                        st["since"] = _monotonic()
                        st["cpu"] = _proc_cpu(cpid)
                        deadline = min(st["since"] + (1.0 if st["finished"] else self.timeout), self.wall_end)
            exited = exit_fd in ready
            if st["bad"] or st["all"]:
                break
            if ready and not exited and not st["finished"] and st["hidden_left"] is None:
                # Let the child get on (see READ_EVERY); its exit ends the wait.
                nap = min(READ_EVERY, deadline - _monotonic())
                if nap > 0:
                    select.select([exit_fd], [], [], nap)
            if exited:
                while True:  # what the child wrote before it ended
                    data = self._read(res_r)
                    if not data:
                        break
                    buf += data
                self.lines(buf, st)
                break
        # A child that finished every case and exited leaves its leftovers to
        # the reaper that runs before the answer; any other is reaped now,
        # before the next child starts (one that does not exit after its last
        # case, say a student's sys.stdout.flush that never returns, too).
        kill = not (st["finished"] and st["pending"] >= self.n and exited)
        status = self._finish_child(cpid, res_r, out_r, kill=kill)
        if st["hid_w"] is not None:
            os.close(st["hid_w"])
        if failure is not None and failure["kind"] == "disk-limit":
            # Its processes are dead: what they wrote goes before the next
            # child (which would otherwise start over the limit).
            _clear(self.jobdir)
        if st["all"] or self.failure is not None:
            return self.n
        if st["finished"] and not st["bad"]:
            return st["pending"]
        if st["bad"]:
            failure = {"kind": "crashed", "exit_code": None, "signal": None}
        elif failure is None:
            failure = _status_outcome(status)
        if not st["imported"]:
            self.fill(start, failure)
            return self.n
        if st["pending"] < self.n:
            self.outcomes[st["pending"]] = dumps(failure).encode()
        return st["pending"] + 1

    def job_bytes(self):
        """The job's source and compiled code (None until some session has
        compiled it), as a child is given them: bytes."""
        pyc = self.job.get("pyc_hex")
        return self.source, (bytes.fromhex(pyc) if pyc is not None else None)

    def disk_used(self):
        """What the submission has written so far (bytes)."""
        if self.disk_base is not None:
            used, files = _tmpfs_used()
            if files - self.disk_base[1] > DISK_ENTRIES:
                return DISK_LIMIT + 1
            return used - self.disk_base[0]
        return _usage(self.jobdir)

    def send_hidden(self, st):
        """Starts giving the child the hidden cases' inputs (asking Rust for
        them the first time: until every visible case of the submission is
        answered, no process of it holds them). The pipe does not block:
        what it does not take now is written as the child reads it (see
        write_hidden), so a child that stops reading (a student's thread
        holding the interpreter lock, say) cannot stall the supervisor, whose
        timeouts then end it."""
        if self.hidden is None:
            self.hidden = _HIDDEN_ALL[0] if self.chosen is None else None
        if self.hidden is None:
            _write_all(1, b'{"need":"hidden"}\n')
            line = _read_line(0)
            cases = _loads(line if line is not None else b"[]", object_hook=T.object_hook)
            self.hidden = _marshal_dumps([_prepare(c, True) for c in cases], 2)
            if self.chosen is None:  # every hidden case: the same for every job
                _HIDDEN_ALL[0] = self.hidden
        os.set_blocking(st["hid_w"], False)
        st["hidden_left"] = memoryview(self.hidden)
        self.write_hidden(st)

    @staticmethod
    def write_hidden(st):
        """Writes what the child's pipe takes of the hidden inputs still to
        write; closes it once they are all written (or the child is gone)."""
        left = st["hidden_left"]
        try:
            while left:
                left = left[_write(st["hid_w"], left[:PIPE_BYTES]) :]
        except BlockingIOError:
            st["hidden_left"] = left
            return
        except OSError:  # the child is gone: it will be judged as such
            pass
        st["hidden_left"] = None
        os.close(st["hid_w"])
        st["hid_w"] = None

    @staticmethod
    def _read(fd):
        try:
            return _read(fd, 1 << 16)  # a pipe holds 64 KiB
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def lines(self, buf, st):
        """Consumes the complete lines in buf; True when progress was made."""
        if len(buf) <= LINE_LIMIT and buf.find(b"\n", st["scanned"]) < 0:
            # No line complete yet: only what arrived since is searched next
            # time (a long line, read 64 KiB at a time, costs one pass).
            st["scanned"] = len(buf)
            return False
        st["scanned"] = 0
        progress = st["imported"] and not (st["finished"] or st["bad"] or st["all"]) and self.case_lines(buf, st)
        while not (st["finished"] or st["bad"] or st["all"]):
            nl = buf.find(b"\n")
            if nl < 0:
                if len(buf) > LINE_LIMIT:
                    st["bad"] = True
                    self.seen("result-channel", "more than %d MiB on the result channel without a line end (%s)" % (LINE_LIMIT >> 20, self.where(st)))
                break
            line = bytes(buf[:nl])
            del buf[: nl + 1]
            verdict = self.line(line, st)
            progress = True
            if verdict == "bad":
                st["bad"] = True
                self.seen("result-channel", "a line the harness did not write on the result channel (%s)" % self.where(st))
            elif verdict == "sandboxed":
                st["sandboxed"] = True
            elif verdict == "visible-done":
                self.send_hidden(st)
            elif verdict == "sandbox-failed":
                st["all"] = True
            elif verdict == "imported":
                st["imported"] = True
            elif verdict == "compiled":
                pass
            elif verdict == "import-error":
                st["all"] = True
            elif verdict == "case":
                st["pending"] += 1
            else:
                st["finished"] = True
        return progress

    def case_lines(self, buf, st):
        """The common case, many outcomes at once: consumes the leading run
        of "C <pending> <outcome>" lines that `line` would take as cases,
        judged exactly as it judges them, in one pass over the complete
        lines in buf (not a copy and a shift of buf per line); anything
        else is left to `line`. True when it consumed any."""
        pending = st["pending"]
        n = self.n
        if pending >= n:
            return False
        prefixes = _case_prefixes(n)
        last = buf.rfind(b"\n")
        if last < 0 or not buf.startswith(prefixes[pending]):
            return False
        with memoryview(buf) as view:
            data = bytes(view[: last + 1])  # the complete lines, copied once
        # Whether every one is printable ASCII, in one pass (then no line
        # needs a check of its own).
        printable = not data.translate(None, _PRINTABLE_NL)
        pos = 0
        outcomes = self.outcomes
        reply_bytes = self.reply_bytes
        while pending < n:
            prefix = prefixes[pending]
            if not data.startswith(prefix, pos):
                break
            nl = data.find(b"\n", pos)
            body = data[pos + len(prefix) : nl]
            if not body or (not printable and body.translate(None, _PRINTABLE)):
                break
            if reply_bytes + len(body) > REPLY_LIMIT:
                body = b'{"kind":"output-too-large"}'
            reply_bytes += len(body)
            outcomes[pending] = body
            pending += 1
            pos = nl + 1
        if not pos:
            return False
        del buf[:pos]
        st["pending"] = pending
        self.reply_bytes = reply_bytes
        return True

    def _finish_child(self, cpid, res_r, out_r, kill=True):
        if kill:
            _reap(cpid, None)
        status = _ZYGOTE.exit_status()
        # Reaped only now (its group signalled above while it was, at most,
        # a zombie); the zygote then kills whatever it left (their subreaper).
        _ZYGOTE.release()
        # Whatever was still in the output pipe (bounded: a leftover process
        # may still be writing).
        for _ in range(64):
            try:
                data = _read(out_r, 1 << 20)
            except OSError:
                break
            if not data:
                break
            self.take_output(data)
        for fd in (res_r, out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        return status

    def line(self, line, st):
        """Judges one result line from the child (bytes, never decoded:
        outcome texts are passed on to Rust as they are, which parses and
        validates each, since a student can write anything into this pipe)."""
        pending, imported = st["pending"], st["imported"]
        if line == b"D" and imported:
            return "done"
        if line == b"R" and imported:
            return "restart"
        if line == b"V" and imported and pending == self.nv < self.n and st["hid_w"] is not None and st["hidden_left"] is None:
            return "visible-done"
        if not st["sandboxed"]:
            # Only harness code has run in the child so far.
            if line == b"S":
                return "sandboxed"
            if line.startswith(b"X "):
                try:
                    why = _loads(line[2:])
                except ValueError:
                    why = None
                self.failure = "the child could not enter the sandbox: " + _text(why)
                return "sandbox-failed"
            return "bad"
        if line == b"I" and not imported:
            return "imported"
        if line[:1] == b"K" and line[1:2] in (b"", b" ") and not imported and not st["compiled"] and self.job.get("pyc_hex") is None:
            # main.py compiled, before any of its code ran (see _bytecode):
            # kept for this submission's later children and for the store.
            st["compiled"] = True
            body = line[2:]
            if len(body) > 2 * PYC_LIMIT or len(body) % 2 or body.translate(None, b"0123456789abcdef"):
                return "bad"
            if body:
                self.job["pyc_hex"] = self.pyc = body.decode("ascii")
            return "compiled"
        # What the harness writes is printable ASCII (dumps escapes the
        # rest), and no tab: Rust reads the outcomes separated by tabs.
        if line.startswith(b"E ") and not imported:
            # An import error the harness wrote is short; a longer one would
            # be copied into every case's outcome.
            body = line[2:]
            if len(body) > 64 * MESSAGE_LIMIT or body.translate(None, _PRINTABLE):
                return "bad"
            for i in range(self.n):
                self.outcomes[i] = body
            return "import-error"
        if line.startswith(b"C ") and imported:
            head, _, body = line[2:].partition(b" ")
            if pending >= self.n or head != b"%d" % pending or not body or body.translate(None, _PRINTABLE):
                return "bad"
            if self.reply_bytes + len(body) > REPLY_LIMIT:
                body = b'{"kind":"output-too-large"}'
            self.reply_bytes += len(body)
            self.outcomes[pending] = body
            return "case"
        return "bad"

    def seen(self, kind, what):
        """A runtime integrity finding: what only code reaching into the
        harness does (the supervisor sees the child's result channel, which
        student code shares its process with). Capped."""
        if len(self.findings) < 20:
            self.findings.append({"kind": kind, "what": what})

    def where(self, st):
        if not st["imported"]:
            return "while main.py was imported"
        return "during case %d of %d" % (st["pending"] + 1, self.n)

    def response(self):
        if self.failure is not None:
            return dumps({"n": 0, "output": "", "error": _text(self.failure)}).encode("utf-8")
        crashed = b'{"kind":"crashed","exit_code":null,"signal":null}'
        output = bytes(self.output).decode("utf-8", "replace")
        if self.output_total > len(self.output):
            output += "\n[... %d more bytes of output cut]" % (self.output_total - len(self.output))
        head = {"n": self.n, "output": _text(output, OUTPUT_LIMIT + 100), "integrity": self.findings}
        if self.pyc is not None:
            head["pyc"] = self.pyc
        head = dumps(head)
        # The outcomes follow the head, each after a tab, as the child wrote
        # them (printable ASCII: no tab, no line end).
        return b"\t".join([head.encode("utf-8")] + [o if o is not None else crashed for o in self.outcomes])


def _read_hidden(fd):
    """The hidden inputs the supervisor writes on `fd` (all of it, up to the
    end it closes): marshal bytes of a list of prepared inputs."""
    buf = bytearray()
    while True:
        chunk = _read(fd, 1 << 20)
        if not chunk:
            return bytes(buf) if buf else _marshal_dumps([], 2)
        buf += chunk


def _read_line(fd, one_byte=False):
    buf = bytearray()
    while True:
        chunk = _read(fd, 1 if one_byte else 1 << 20)
        if not chunk:
            return None if not buf else bytes(buf)
        buf += chunk
        if buf.endswith(b"\n"):
            return bytes(buf[:-1])


_CASE_PREFIXES = []  # b"C <i> " for every i up to the most cases a job has had


def _case_prefixes(n):
    """The heads of case lines 0..n-1, made once in the supervisor's life."""
    if len(_CASE_PREFIXES) < n:
        _CASE_PREFIXES.extend(b"C %d " % i for i in range(len(_CASE_PREFIXES), n))
    return _CASE_PREFIXES


class _ZygoteLink:
    """The supervisor's end of its socket to the zygote, which forks every
    child (so a child starts from the zygote's memory, which holds no
    submission's source, outcomes or hidden inputs) and is their parent
    and subreaper."""

    def __init__(self, sock):
        self.sock = sock

    def fork_child(self, request, fds):
        """Sends the request and the child's ends of its pipes; returns its pid."""
        self.sock.sendmsg([dumps(request).encode("ascii")], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        answer = self.sock.recv(64)
        if not answer.startswith(b"pid "):
            raise OSError("the zygote forked no child: %r" % answer[:64])
        return int(answer[4:])

    def exit_status(self):
        """Once the child has exited: its wait status. It stays a zombie
        (its pid, and so its process group's id, cannot be reused) until
        `release`."""
        answer = self.sock.recv(64)
        if not answer.startswith(b"exit "):
            raise OSError("the zygote did not say how the child ended: %r" % answer[:64])
        return int(answer[5:])

    def release(self):
        """Has the zygote reap the exited child and kill whatever it left."""
        self.sock.send(b"reap")
        answer = self.sock.recv(64)
        if not answer.startswith(b"done"):
            raise OSError("the zygote did not reap the child: %r" % answer[:64])
        if answer == b"done dirty":
            # Something outlived its kill: /proc is searched from now on.
            _DIRTY[0] = True


_ZYGOTE = None  # the supervisor's _ZygoteLink
_JOBS = [0]  # submissions this supervisor has run (their folders' names)


def _supervise(sock):
    """The supervisor: one long-lived process that reads jobs from Rust and
    answers each, having the zygote fork the children. Children never start
    from its memory, so it may hold what submissions leave behind; it is not
    dumpable, so no process of the worker uid can read that memory."""
    global _ZYGOTE
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _name(b"ag-supervisor")
        try:
            _libc().prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
        except BaseException:
            pass
        _ZYGOTE = _ZygoteLink(sock)
        while True:
            cmd = _read_line(0, one_byte=True)
            if cmd is None:
                return
            if cmd != b"job":
                raise SystemExit("harness: unknown command %r" % cmd)
            line = _read_line(0)
            if line is None:
                return
            try:
                run = _Run(_loads(line))
                run.run()
                _reap(None, run.jobdir)
                answer = run.response()
            except BaseException as e:
                answer = dumps({"n": 0, "output": "", "error": _text("harness: %r" % (e,))}).encode("utf-8")
            _write_all(1, answer + b"\n")
            run = line = answer = None
    finally:
        _exit(0)


def _serve(sock, supervisor):
    """The zygote's loop, once the supervisor runs: forks a child for each
    request (with the pipes it was sent), waits for it, kills whatever it
    left below the zygote, and says how it ended. It never sees a job's
    source, outcomes or hidden inputs."""
    me = _getpid()
    while True:
        try:
            msg, anc, _, _ = sock.recvmsg(1 << 20, socket.CMSG_SPACE(8 * 4))
        except OSError:
            return
        if not msg:
            return  # the supervisor is gone
        fds = array.array("i")
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
        request = _loads(msg)
        # Killed processes of an earlier child are collected before the
        # uid's process limit counts them against this one.
        _reap_orphans()
        _stdout.flush()
        cpid = os.fork()
        if cpid == 0:
            sock.close()
            _PID[0] = _getpid()
            res_w, out_w, hid_r, job_r = fds
            _child(request, res_w, out_w, hid_r, job_r)
        for fd in fds:
            os.close(fd)
        sock.send(b"pid %d" % cpid)
        # Exited, not reaped: the supervisor may still signal its group.
        try:
            sock.send(b"exit %d" % _wait_status(os.waitid(os.P_PID, cpid, os.WEXITED | os.WNOWAIT)))
        except ChildProcessError:
            sock.send(b"exit 0")
        try:
            if sock.recv(64) != b"reap":
                return
        except OSError:
            return
        try:
            os.waitpid(cpid, 0)
        except ChildProcessError:
            pass
        left = not _kill_until_none(lambda: [p for p in _children(me) if p != supervisor], _wait_each, 5.0)
        _reap_orphans()
        sock.send(b"done dirty" if left else b"done")


def _wait_status(info):
    """A wait status (as os.waitpid gives) from os.waitid's answer."""
    if info is None:
        return 0
    if info.si_code == os.CLD_EXITED:
        return (info.si_status & 0xFF) << 8
    return (info.si_status & 0x7F) | (0x80 if info.si_code == os.CLD_DUMPED else 0)


def _strays():
    """Processes a submission may have left: the zygote's children other
    than the supervisor (the zygote is every child's parent and subreaper);
    in the zygote itself, before the supervisor runs, its own children."""
    me = _getpid()
    if _ZYGOTE is None:
        return _children(me)
    return [p for p in _children(os.getppid()) if p != me]


def _children(pid):
    """The pids whose parent is `pid`."""
    try:
        return [int(p) for p in _read_proc("/proc/%d/task/%d/children" % (pid, pid)).split()]
    except (OSError, ValueError):
        pass
    kids = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return kids
    for name in names:
        if name.isdigit():
            try:
                if int(_read_proc("/proc/" + name + "/stat").rpartition(b")")[2].split()[1]) == pid:
                    kids.append(int(name))
            except (OSError, ValueError, IndexError):
                continue
    return kids


def _wait_each(pids):
    """Waits for each of these children (killed), which re-parents their
    own children to this process (their subreaper) before the next round."""
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _reap_orphans(wait_seconds=0.0):
    """Collects dead descendants (this process is their subreaper), waiting up
    to wait_seconds for killed ones to finish dying."""
    end = _monotonic() + wait_seconds
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if _monotonic() >= end:
                return
            time.sleep(0.001)


def _own_ipc_namespace():
    """A fresh IPC namespace for each child where allowed (root without
    bwrap): its System V objects and POSIX message queues die with its
    processes. Under bwrap the reaper removes them instead."""
    unshare = _UNSHARE[0]
    if unshare is None:
        return
    try:
        unshare(0x08000000)  # CLONE_NEWIPC
    except BaseException:
        pass


def _prepare_unshare():
    """libc's unshare, looked up once in the zygote, not in every child;
    none under bwrap, where it always fails (bwrap keeps no capability but
    CAP_SETUID, CAP_SETGID and CAP_KILL)."""
    if INIT["tier"] == "bwrap":
        return
    try:
        _UNSHARE[0] = _libc().unshare
    except BaseException:
        pass


_UNSHARE = [None]


def _become_subreaper():
    """Orphaned descendants (a student's double fork) are re-parented to this
    process, so it can wait until they are really gone."""
    _SUBREAPER[0] = False
    try:
        if _libc().prctl(36, 1, 0, 0, 0) == 0:  # PR_SET_CHILD_SUBREAPER
            _SUBREAPER[0] = True
    except BaseException:
        pass


# Whether this process is its descendants' subreaper; whether a process of
# the worker uid may have outlived its kill (then /proc is always searched).
_SUBREAPER = [None]
_DIRTY = [True]


def _self_test():
    """Runs a child exactly as a submission's would be set up (limits, uid,
    folder, and the landlock tier's domain), without student code, and
    reports what held: the interpreter's library readable, and under
    landlock the host's files, TCP and the zygote out of reach. Rust refuses
    to record when what must hold does not."""
    r, w = os.pipe()
    zygote = _getpid()
    pid = os.fork()
    if pid == 0:
        out = {}
        try:
            os.close(r)
            os.setsid()
            jobdir = os.path.join(INIT["scratch"], "selftest%d" % zygote)
            _Run.make_jobdir_for(jobdir)
            here = _enter_sandbox(jobdir, "0")
            held = C.LAST or {}
            if held.get("landlock_abi"):
                out["landlock"] = {"landlock_abi": held["landlock_abi"], "rules": held["rules"]}
            out["seccomp"] = bool(held.get("seccomp"))

            def denied(what, fn):
                try:
                    fn()
                except OSError:
                    return True
                except BaseException as e:
                    out.setdefault("errors", []).append("%s: %r" % (what, e))
                    return False
                return False

            stdlib = os.path.dirname(os.__file__)
            if not (os.access(stdlib, os.R_OK | os.X_OK) and os.listdir(stdlib)):
                raise OSError("cannot list the standard library at %s" % stdlib)
            with open(os.path.join(here, "probe"), "w") as f:
                f.write("ok")
            out["host_files_hidden"] = all(
                denied(p, (lambda p=p: open(p, "rb").close())) for p in INIT["must_not_read"]
            )
            out["root_hidden"] = denied("/", lambda: os.listdir("/"))

            def connect():
                import socket

                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.close()

            out["inet_refused"] = denied("socket", connect)
            # Signals, resource limits and priorities: none of the zygote's
            # may be the child's to change (a signal 0, a read, a no-op set).
            out["zygote_unreachable"] = (
                denied("kill", lambda: os.kill(zygote, 0))
                and denied("prlimit", lambda: resource.prlimit(zygote, resource.RLIMIT_NOFILE))
                and denied(
                    "setpriority",
                    lambda: os.setpriority(os.PRIO_PROCESS, zygote, os.getpriority(os.PRIO_PROCESS, zygote)),
                )
            )
            out["ok"] = True
        except BaseException as e:
            out = {"ok": False, "error": _text("%s: %s" % (type(e).__name__, e))}
        try:
            _write_all(w, dumps(out).encode("utf-8"))
        finally:
            _exit(0)
    os.close(w)
    data = bytearray()
    while True:
        chunk = _read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    _reap(None, os.path.join(INIT["scratch"], "selftest%d" % zygote), leftovers=True)
    try:
        return _loads(bytes(data).decode("utf-8"))
    except ValueError:
        return {"ok": False, "error": "the self-test child answered nothing"}


def main():
    global T, C, INIT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    line = _read_line(0)
    if line is None:
        return
    INIT = _loads(line)
    del line
    _become_subreaper()
    _prepare_unshare()
    _share_nproc()
    # A run that was killed may have left processes and files of this uid
    # behind (rlimits): they must not meet the first submission.
    _reap(None, None, leftovers=True)
    T = types.ModuleType("autograder_tagged")
    exec(compile(INIT.pop("tagged"), "tagged.py", "exec"), T.__dict__)
    _shadow_builtins(T.__dict__)
    C = types.ModuleType("autograder_confine")
    exec(compile(INIT.pop("confine"), "confine.py", "exec"), C.__dict__)
    C.prepare(INIT["tier"], INIT["read_roots"])
    global _plain_json
    _plain_json = T.plain_json
    for name, cls in _REAL_CLASSES.values():
        if cls is not object:
            text = dumps({"kind": "raised", "class": _class_name(cls), "mro": _mro_names(cls), "message": ""})
            _RAISED_HEADS[id(cls)] = (cls, text[: -len('""}')])
    check = _self_test()
    # The visible cases' arguments, built once for every submission (a
    # malformed case fails here, not in a child).
    INIT["cases"] = [_prepare(case) for case in INIT["cases"]]
    # Everything so far lives as long as the zygote: keep the collector off
    # it, so forked children do not copy-on-write the whole heap.
    gc.collect()
    gc.freeze()
    ready = {"ready": True, "python": "%d.%d.%d" % tuple(sys.version_info[:3]), "self_test": check}
    _write_all(1, dumps(ready).encode("utf-8") + b"\n")
    zsock, ssock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    _stdout.flush()
    spid = os.fork()
    if spid == 0:
        zsock.close()
        _supervise(ssock)
    ssock.close()
    # Rust's pipes are the supervisor's alone: when it ends, Rust sees it.
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    try:
        _serve(zsock, spid)
    finally:
        _kill_until_none(lambda: _children(_getpid()), _wait_each, 5.0)


main()
