"""autograder harness: runs students' main.py in a sandbox, one outcome per case.

Embedded in the Rust binary (src/runner/harness/harness.py) and run by
boot.py (`<python> -s -S -c <boot.py>`, which reads this file's source, or
its code as an earlier run compiled it, on stdin) with a cleared
environment. This file reads
the init line, sets the run's limits and runs its programs (PROGRAMS: one
file each, sent in the init line) in its own namespace. Three kinds of
process, all stdlib only:

* the zygote (long-lived): says hello, compiles its programs, reads the init
  line from Rust, builds the tagged-JSON module, imports what students
  commonly use (a batch's workers only), forks its first child (the
  sandbox self-test) and the supervisor, answers "ready", then forks every
  child the supervisor asks for (over a socket, with the child's ends of
  its pipes), waits for it, kills whatever it left
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

Wire protocol (JSON lines on stdin/stdout: the programs line, the init line
and "ready" with the zygote, every job after with the supervisor, which
inherits them; src/runner/protocol.rs):
  argv: -c <boot.py> <warm|cold> <probe source> <bwrap check source or "">
        <fd of the worker's cgroup.procs or "">
  -> boot.py's line, this file's source and the code an earlier run
     compiled, if any (see boot.py)
  <- {"hello": true, "facts": hex, "bwrap_check": bool|null} (before any import)
  -> programs {"programs": [[name, src], ...], "tagged": src, "confine": src,
               "send_back": bool}
     (written as the harness starts; compiled while the grader reads its
     corpus, unless boot.py read them as an earlier run compiled them,
     for this interpreter, see _code_tag)
  -> init  {"cases_bytes": n, "uid", "gid", "reaped" (nothing of the uid is
            left: its last worker ended clean), "scratch",
            "limits": {NAME: number} (every limit the harness goes by,
            src/runner/limits.rs), "rlimits": {...}, "timeout", "wall",
            "tier", "read_roots", "must_not_read"}, then n bytes: the
     visible cases' inputs, the marshal bytes of [(function, marshal bytes
     of (args, kwargs)), ...] (src/runner/inputs.rs)
  <- {"ready": true, "python": "3.x.y", "self_test": {"ok": bool, ...},
      "compiled": [tag, hex] | null}   (the programs compiled here, when
                                        "send_back": for the grader's cache)
  -> "job\n" then {"source_hex": ..., "pyc_hex": ..., "visible": [i, ...], "hidden": n,
                     "groups": [k, ...], "last": true}
     ("pyc_hex": main.py compiled by an earlier session, when the store
     has it; "visible" and "hidden" only for a subset of the cases: the
     positions of its visible cases among the init line's, and how many
     hidden cases it runs; without them every case runs; "last" when the
     worker is stopped after this job: see _supervise; "groups": how many
     cases each process group runs, in order, each in children of its own
     and a folder of its own: see _Run.run; without it, one group)
  <- {"need": "hidden"}   (as the job starts, when it runs hidden cases and
                           the supervisor does not hold their inputs yet:
                           it checks them while the visible cases run)
  -> the hex of the hidden cases' inputs, as the visible ones' (the
     chosen ones only)
  <- {"part": k} then, for each of the cases k.. that are final (before
     the one a child is on), a tab and its outcome object: sent ahead of
     the answer once PART_CASES are, any number of times
  <- {"n": cases run, "first": k, "output": str, "integrity": [...], "pyc": hex}
     then, for each case run from k on (those before came in parts; k is 0
     when an import error changed every outcome), a tab and its outcome
     object as the child wrote it (the supervisor checks the framing and
     that it is printable ASCII, never decodes it; Rust parses each on its
     own). On the grader's failure: {"n": 0, "output": "", "error": str}
The init line holds only the visible cases' inputs; the hidden ones follow
them in the outcome order. No process of a submission holds a hidden input
before all its visible cases are answered, so no visible result can carry
one.
Supervisor -> child, on a pipe of its own (JOB_FD), read once the child
is in its sandbox: b"<source bytes> <compiled bytes, or -1> <end>\n", the
source, then the compiled code (from the job's hex, raw); it runs cases
up to `end`, its process group's. The first job's
first child, for every case, is the zygote's first: it does the sandbox
self-test in its sandbox (on CHECK_FD, to the zygote, before "ready") and
waits there for its job; a first job for a subset ends it and has the
zygote fork its own.
Child -> supervisor, on fd 3: "S" (in its sandbox; student code runs from
here on) or "X <json str>" (could not enter it: the grader's failure, the
reply carries "error"), then, without "pyc_hex", "K <hex>" (main.py
compiled, before any of it ran; "K" alone when it does not compile; the
reply's "pyc"), then "I" (imported), "E <json>" (import error),
"C <i> <json>" (case outcome; a new, plain result as
{"kind": "returned", "marshal": hex, "shares_with_args": false,
"args_changed": bool}, see child.py's _fast_returned), "V" (every visible case answered:
the supervisor then writes the hidden inputs on fd 4, marshal bytes of the
list of their inputs, and closes it), "R" (stops after an out-of-memory or a
too-large result), "D" (done, its output flushed: the supervisor answers
then, and reaps the child after). The supervisor reads each case's CPU time
from /proc itself. Cases' arguments come as marshal bytes, built by Rust and
checked once by the supervisor, which children never start from (the
visible ones while its first job runs, their shape in the zygote before
any fork; the hidden ones once per worker when every case runs, once per
job for a subset), before any answer; each call gets fresh copies.
"""

import sys

# The folder the harness starts in is never an import source (`-P` exists
# only from CPython 3.11; the harness runs on 3.8 and later).
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

from time import monotonic as _clock  # noqa: E402

# When each start-up step ended (CLOCK_MONOTONIC seconds, the grader's
# clock too), sent in the ready line for `grade --timings`.
_STEPS = [["interpreter started", _clock()]]

import os  # noqa: E402


def _hello(probe, bwrap_check):
    """The first line out, before any import: the interpreter's facts (the
    grader's probe, `probe`: its source defining `facts()`) and, started in
    bwrap, whether bwrap's check (`bwrap_check`: its source) passes here, so
    a harness started ahead settles both without processes of their own.
    Hex: file names are bytes."""
    space = {}
    exec(probe, space)
    facts = space["facts"]().hex()
    held = "null"
    if bwrap_check:
        try:
            exec(bwrap_check, {})
            held = "true"
        except BaseException:
            held = "false"
    line = '{"hello": true, "facts": "%s", "bwrap_check": %s}\n' % (facts, held)
    os.write(1, line.encode("ascii"))


# The worker's memory cgroup (src/runner/cgroup.rs), joined by a thread
# while the harness starts: the kernel's first move into a cgroup waits for
# an RCU grace period (~10 ms). [lock held until joined, why it failed].
_CGROUP = None


def _join_cgroup(fd):
    try:
        try:
            # An interpreter wrapper may have closed it (and the number
            # been reused): only the file the grader opened is written.
            if not os.readlink("/proc/self/fd/%d" % fd).endswith("/cgroup.procs"):
                raise OSError("descriptor %d is not the cgroup's" % fd)
            os.write(fd, b"0")  # this process, every thread of it
        finally:
            os.close(fd)
    except OSError as e:
        _CGROUP[1] = "cannot join the worker's cgroup: %s" % e
    finally:
        _CGROUP[0].release()


def _cgroup_joined():
    """Waits until the harness is in its cgroup (before it forks anything,
    so every process of a submission is): None, or why it is not. Any
    number of times."""
    if _CGROUP is None:
        return None
    _CGROUP[0].acquire()
    _CGROUP[0].release()
    return _CGROUP[1]


# Started by the grader (src/runner/worker.rs) as `-c <boot.py> <warm|cold>
# <probe source> <bwrap check source or ""> <cgroup.procs fd or "">
# <early source fd or "">`; the harness's self-check scripts run this file
# without those arguments, nor boot.py's _BOOT.
_BOOT = globals().get("_BOOT")
_STARTED = len(sys.argv) == 6 and sys.argv[0] == "-c"
# The pipe the first child reads a source handed ahead on
# (src/runner/early_source.rs): never read here, closed once that child is
# forked (_first_child), so no later child has it. Taken only when it is
# open now, as a pipe: a descriptor this process opens later may get its
# number (a wrapper of the interpreter may not pass it on).
_EARLY_SOURCE = [None]
if _STARTED and sys.argv[5].isdigit():
    try:
        import stat

        if stat.S_ISFIFO(os.fstat(int(sys.argv[5])).st_mode):
            _EARLY_SOURCE[0] = int(sys.argv[5])
    except OSError:
        pass
if _STARTED:
    # No collections while the harness starts: they cost ~1 ms of every
    # run, and the harness leaves ~100 objects unreachable. The zygote
    # freezes what it holds and turns the collector back on (_zygote).
    import gc

    gc.disable()
    if sys.argv[4]:
        import _thread

        _CGROUP = [_thread.allocate_lock(), None]
        _CGROUP[0].acquire()
        _thread.start_new_thread(_join_cgroup, (int(sys.argv[4]),))
    _hello(sys.argv[2], sys.argv[3])
    _STEPS.append(["hello written", _clock()])

# The C modules behind signal and socket, and importlib's own loaders
# rather than importlib.util: their Python wrappers import enum, selectors
# and contextlib (~5 ms of a run's start), which students rarely need.
import builtins  # noqa: E402
import gc
import select
from itertools import compress as _compress
import _signal as signal
import stat
import fcntl
import time
import types
import resource
import _imp
import importlib
import json
import json.encoder
import marshal
import _socket as socket
import array

_bootstrap = importlib._bootstrap
_bootstrap_external = importlib._bootstrap_external

# The modules students commonly import, warmed in the zygote (`warm`) when
# the worker may record more than one submission, so its children do not
# pay for them; a worker for one submission leaves them to its child.
# (scripts/bench/floor.py warms the runnable floor from this list.)
WARM = (
    "re",
    "math",
    "copy",
    "collections",
    "itertools",
    "functools",
    "string",
    "typing",
    "enum",
    "dataclasses",
    "unicodedata",
)

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
_get_referents = gc.get_referents
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

RESULT_FD = 3
HIDDEN_FD = 4
JOB_FD = 5  # the child's end of its job pipe, until it has read its job
CHECK_FD = 6  # the first child's end of its self-test pipe, until it has checked

# Every number the harness goes by is the run's, sent by Rust in the init
# line (src/runner/limits.rs) and set as these names by `_load`; tagged.py
# reads its own likewise (its LIMITS).
LIMITS = (
    "MESSAGE_LIMIT",
    "NAME_CHARS",
    "OUTPUT_LIMIT",
    "OUTPUT_CHARS",
    "LINE_LIMIT",
    "DISK_LIMIT",
    "DISK_ENTRIES",
    "DISK_EVERY",
    "READ_EVERY",
    "PIPE_BYTES",
    "PYC_LIMIT",
    "JOB_LIMIT",
    "REPLY_LIMIT",
    "PART_CASES",
    "WALL_FACTOR",
    "NPROC_MARGIN",
    "GLOBALS_BUDGET",
    "RESULT_BUDGET",
    "EARLIER_LIMIT",
    "EARLIER_TEXT",
    "PATH_CHARS",
    "KEY_CHARS",
    "CHANGE_CHARS",
    "CPU_SHARE",
    "CPU_EVERY",
    "EXIT_WAIT",
    "KILL_SECONDS",
    "STRAYS_SECONDS",
    "SHARES_DEPTH",
    "LEFTOVER_DEPTH",
    "DRAIN_READS",
    "IMPORT_ERROR_BYTES",
    "SOURCE_LINE_CHARS",
    "ORPHAN_POLL",
)

# The harness's programs, run in this namespace in this order by `_load`
# (each defines names only): the child's check that a result is new; the
# child, which runs student code; the reaper, which kills and removes what a
# child left; the supervisor, one per worker, which runs each submission's
# children and answers Rust; the zygote's fork server; the sandbox self-test.
PROGRAMS = ("sharing", "child", "reaper", "supervisor", "zygote", "selftest")

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


def _text(s, limit=None):
    """A str safe for plain JSON: cut to `limit` code points (by default
    MESSAGE_LIMIT), lone surrogates written as backslash escapes."""
    if limit is None:
        limit = MESSAGE_LIMIT
    if type(s) is not str:
        s = "<not a str>"
    s = s[:limit]
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def _write_all(fd, data):
    while data:
        n = _write(fd, data)
        data = data[n:]


def _read_line(fd, one_byte=False):
    buf = bytearray()
    while True:
        chunk = _read(fd, 1 if one_byte else 1 << 20)
        if not chunk:
            return None if not buf else bytes(buf)
        buf += chunk
        if buf.endswith(b"\n"):
            return bytes(buf[:-1])


_stdin_left = _BOOT[0] if _BOOT is not None else b""


def _read_stdin_line():
    """One line of stdin (without its newline), or None at its end; what a
    read brought past the line is kept for the next one (the programs line
    and the init line may arrive in one read)."""
    global _stdin_left
    buf = bytearray(_stdin_left)
    while b"\n" not in buf:
        chunk = _read(0, 1 << 20)
        if not chunk:
            return None
        buf += chunk
    i = buf.index(b"\n")
    _stdin_left = bytes(buf[i + 1 :])
    return bytes(buf[:i])


def _read_stdin_exact(n):
    """The next `n` bytes of stdin (after what _read_stdin_line kept)."""
    global _stdin_left
    buf = bytearray(_stdin_left[:n])
    _stdin_left = _stdin_left[n:]
    while len(buf) < n:
        chunk = _read(0, min(n - len(buf), 1 << 20))
        if not chunk:
            raise SystemExit("harness: stdin ended inside the init line's cases")
        buf += chunk
    return bytes(buf)


def _code_tag():
    """Which interpreter build compiled a marshalled code object: the
    grader's cache of compiled programs (src/runner/compiled.rs) is used
    only by the build that made it (boot.py tells it likewise)."""
    return "%s|%d|%s" % (sys.version, sys.flags.optimize, sys.implementation.cache_tag)


# The programs as compiled here, for the grader's cache ([tag, hex]), when
# it asked for them ("send_back") and had none of this interpreter's:
# sent in the ready line.
_COMPILED = None


def _cached_programs(cached):
    """The compiled programs boot.py read (the values of a run's cached
    code, for this interpreter), when they are code objects of exactly the
    harness's programs; None otherwise."""
    if cached is None:
        return None
    code, tagged, confine = cached[:3]
    names = [name + ".py" for name in PROGRAMS] + ["tagged.py", "confine.py"]
    every = (list(code) if type(code) is tuple else []) + [tagged, confine]
    if len(every) != len(names) or any(type(c) is not types.CodeType or c.co_filename != n for c, n in zip(every, names)):
        return None
    return list(code), tagged, confine


def _compile_programs(line):
    """The programs line (sent as the harness starts, before the run knows
    its corpus): each program compiled, not yet run, in PROGRAMS's order,
    then tagged.py's and confine.py's, and whether they came compiled by an
    earlier run (boot.py's cache, used when it holds exactly them)."""
    global _COMPILED
    sources = _loads(line)
    programs = sources["programs"]
    if [name for name, _ in programs] != list(PROGRAMS):
        raise SystemExit("harness: the programs line's programs are not the harness's")
    got = _cached_programs(_BOOT[2] if _BOOT is not None else None)
    if got is not None:
        return got + (True,)
    code = [compile(source, name + ".py", "exec") for name, source in programs]
    tagged = compile(sources["tagged"], "tagged.py", "exec")
    confine = compile(sources["confine"], "confine.py", "exec")
    if sources.get("send_back") and _BOOT is not None:
        # With this file's own code, which boot.py runs next time.
        harness = _BOOT[3] if _BOOT[3] is not None else _BOOT[2][3]
        _COMPILED = [_code_tag(), _marshal_dumps((tuple(code), tagged, confine, harness)).hex()]
    return code, tagged, confine, False


def _load(init, programs, tagged):
    """Sets the run's limits (init's "limits": exactly the names LIMITS and
    tagged.py's LIMITS list), runs the programs (compiled, in PROGRAMS's
    order) in this namespace and builds the tagged-JSON module."""
    global T
    limits = init.pop("limits")
    T = types.ModuleType("autograder_tagged")
    exec(tagged, T.__dict__)
    _shadow_builtins(T.__dict__)
    if sorted(limits) != sorted(LIMITS + T.LIMITS):
        raise SystemExit("harness: the init line's limits are not the harness's: %r" % sorted(limits))
    g = globals()
    for name in LIMITS:
        g[name] = limits[name]
    for name in T.LIMITS:
        T.__dict__[name] = limits[name]
    for code in programs:
        exec(code, g)


def main():
    global C, INIT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.argv[1] == "warm":
        for name in WARM:
            importlib.import_module(name)
        _STEPS.append(["warm imports", _clock()])
    line = _read_stdin_line()
    if line is None:
        return
    programs, tagged, confine, cached = _compile_programs(line)
    del line
    # The confine module (it imports ctypes) does not wait for the init
    # line, which waits for the grader's corpus.
    C = types.ModuleType("autograder_confine")
    exec(confine, C.__dict__)
    _STEPS.append(["programs loaded" if cached else "programs compiled", _clock()])
    line = _read_stdin_line()
    if line is None:
        return
    INIT = _loads(line)
    del line
    INIT["cases"] = _read_stdin_exact(INIT.pop("cases_bytes"))
    if _stdin_left:
        raise SystemExit("harness: bytes after the init line before the ready line")
    _STEPS.append(["init line read", _clock()])
    _load(INIT, programs, tagged)
    _STEPS.append(["programs and tagged module run", _clock()])
    _become_subreaper()
    _prepare_unshare()
    _share_nproc()
    _reap_at_start()
    C.prepare(INIT["tier"], INIT["read_roots"])
    global _plain_json
    _plain_json = T.plain_json
    _STEPS.append(["confinement prepared", _clock()])
    _prepare_cases()
    # Waited for as late as it can be: the join's grace period passes
    # while the harness sets up (the uid's leftovers reaped among it).
    INIT["cgroup_error"] = _cgroup_joined()
    _zygote(_first_child())


if _STARTED:
    main()
