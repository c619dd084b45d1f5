"""The child: runs student code (one process per submission, forked by the
zygote, again after a crash or timeout).

Run in harness.py's namespace by its `_load`, after the run's limits are
set; it defines names only."""


def _class_name(cls):
    try:
        name = _type_getattr(cls, "__name__")
    except BaseException:
        name = "?"
    return _text(name if type(name) is str else "?", NAME_CHARS)


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
        names.append(_text(module, NAME_CHARS) + "." + _text(qual, NAME_CHARS))
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
    once, when first raised (its name and MRO cannot change)."""
    cls = type(e)
    known = _RAISED_HEADS.get(id(cls))
    if known is None:
        real = _REAL_CLASSES.get(id(cls))
        if real is None or real[1] is not cls or cls is object:
            return dumps(_raised(e))
        text = dumps({"kind": "raised", "class": _class_name(cls), "mro": _mro_names(cls), "message": ""})
        known = _RAISED_HEADS[id(cls)] = (cls, text[: -len('""}')])
    if known[0] is cls:
        return known[1] + _esc(_message(e)) + "}"
    return dumps(_raised(e))


def _checked_case(case):
    """One case's input as the grader sends it (src/runner/inputs.rs): the
    tuple (function name, marshal bytes of (args list, kwargs dict)), whose
    bytes must be exactly what marshal.dumps(..., 2) makes of the values
    they hold (C, exact for the value model: dict order, bool vs int, -0.0
    and NaN, big ints, tuples vs lists, lone surrogates; no shared objects
    at version 2). Each call gets fresh copies from `marshal.loads`, and
    an untouched copy dumps to the same bytes again: one snapshot after
    the call tells whether the call changed its arguments. Raises
    ValueError for anything else."""
    call = _marshal_loads(_case_shape(case)[1])
    if type(call) is not tuple or len(call) != 2 or type(call[0]) is not list or type(call[1]) is not dict:
        raise ValueError("a case's arguments are not (args list, kwargs dict)")
    if _marshal_dumps(call, 2) != case[1]:
        raise ValueError("a case's arguments are not as marshal writes them")
    return case


def _case_shape(case):
    """`case`, when it is a tuple (function name, bytes) as _checked_case
    wants it, without a look inside the bytes; raises ValueError else."""
    if type(case) is not tuple or len(case) != 2 or type(case[0]) is not str or type(case[1]) is not bytes:
        raise ValueError("a case's input is not (function name, arguments)")
    return case


def _case_list(data):
    """The list of cases' inputs in `data` (marshal bytes, as the grader
    sends them), unchecked: see _checked_case."""
    cases = _marshal_loads(data)
    if type(cases) is not list:
        raise ValueError("the cases' inputs are not a list")
    return cases


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
    t = type(result)
    if (t is dict or t is list) and _NEW_BASE is not None:
        text = _fast_returned(result, args, kwargs, blob)
        if text is not None:
            return text
    found = {}  # id -> every list and dict of the result
    refs = {}  # id -> the result's own references to it
    ids = None  # the fast path's: every list and dict in the result, by id
    try:
        value = _plain_json(result, _C_ENCODER, found, refs) if _C_ENCODER is not None else None
        if value is None:
            value = dumps(T.encode(result))
        else:
            ids = found
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
    # The fast path met every list and dict of the result, as _containers
    # counts them: its walk stands for that one when within its budget.
    whole = ids is not None and len(found) + sum(map(len, found.values())) <= RESULT_BUDGET
    if not whole:
        found = {}
        refs = {}
        try:
            if _items_of(result, type(result)) is not None:
                whole = _containers(result, found, refs)
        except BaseException:
            found = {}
    # A plain result (lists, dicts, scalars: no tuple) none of whose lists
    # and dicts is held from outside it shares nothing: one it shared with
    # the arguments would be held by a list, dict or tuple of theirs outside
    # the result (nor may it hold this call's own args list or kwargs dict).
    # Then neither the arguments nor the module need a walk.
    fresh = False
    if whole and ids is not None and _REF_BASE is not None and id(args) not in found and id(kwargs) not in found:
        try:
            fresh = not any(n > 0 for n in _outside_refs(result, found, refs).values())
        except BaseException:
            fresh = False
    try:
        # Only a list, dict or tuple can hold the arguments' objects.
        if fresh:
            shares = False
        elif ids is not None:
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
        if not fresh:
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
    if changed:
        where = _arg_change(args, kwargs, blob)
        if where is not None:
            extra = ',"changed":' + where
    if state:
        extra += ',"shares_with_state":true'
    if shared is not None:
        extra += ',"shared":' + _esc(_text(shared, 2 * PATH_CHARS + 8))
    return (
        '{"kind":"returned","value":%s,"shares_with_args":%s,"args_changed":%s%s}'
        % (value, "true" if shares else "false", "true" if changed else "false", extra)
    )


def _fast_returned(result, args, kwargs, blob):
    """The outcome of a call that returned a new, plain list or dict, when
    C walks tell: its marshal bytes, which Rust reads
    (runner::protocol::expand_marshalled), or None (then _run_case checks
    it as any result). Called as _run_case calls it (see _new_base).

    _plain_kinds first finds, a level at a time and within the depth and
    the budget, that every object the result holds is an exact list, dict,
    tuple, str, int, float, bool or None: marshal then meets no other class
    (it would write a bytes-like as bytes, and from 3.12 ask a class for
    its buffer: student code) and takes no longer than the result is
    small. marshal flags an object for a back-reference when something else
    holds it too: no flagged list, dict or tuple below the root, and the
    root held only by _run_case, means that the result shares nothing with
    the arguments, the module or an earlier result (what sharing.py would
    find). What marshal writes plainly but tagged JSON does not (tuples,
    keys that are not text or start with "$", wide ints, lone surrogates,
    NaN) Rust tells from the bytes. The bytes bound what the encoder's
    budgets count (nodes, text, an int's bits): within them, tagged.py
    would encode it whole. It is kept for the later calls' checks as
    _keep_result would keep it (_keep_new_result)."""
    if _getrefcount(result) != _NEW_BASE:
        return None
    held = _plain_kinds(result)
    if held is None:
        return None
    try:
        if _marshal_dumps((args, kwargs), 2) != blob:
            return None  # _run_case says where they changed
    except BaseException:
        return None
    try:
        data = _marshal_dumps(result, 4)
    except BaseException:  # out of memory, or a student's thread changed it
        return None
    if (
        len(data) > _NEW_BYTES
        or data.find(b"\xdb", 1) >= 0  # a flagged list ("[" | 0x80)
        or data.find(b"\xfb", 1) >= 0  # a flagged dict
        or data.find(b"\xa8") >= 0  # a flagged tuple, or a small one
        or data.find(b"\xa9") >= 0
        or not _keep_new_result(result, held, len(data))
    ):
        return None
    return '{"kind":"returned","marshal":"%s","shares_with_args":false,"args_changed":false}' % data.hex()


def _plain_kinds(result):
    """How many lists and dicts `result` (an exact list or dict) holds, its
    own self too, met once each (marshal's flags tell when one is met
    twice), when everything in it is of a kind marshal writes as that kind
    (exact lists, dicts, tuples, text, ints, floats, bools, None), at most
    T.MAX_DEPTH deep and _NEW_BYTES objects in all; None otherwise.
    A level at a time, in C: gc.get_referents reads the slots of exact
    lists, dicts (their keys too, but those of an instance's own __dict__,
    which are exact text) and tuples as the collector does, running no
    student code, and each level's length is summed before it is read."""
    level = [result]
    depth = count = held = 0
    while True:
        depth += 1
        held += sum(map(_LIST_OR_DICT.__contains__, map(type, level)))
        count += len(level) + sum(map(len, level))
        if depth >= T.MAX_DEPTH or count > _NEW_BYTES:
            return None
        items = _get_referents(*level)
        kinds = set(map(type, items))
        if not kinds <= _PLAIN_KINDS:
            return None
        if kinds.isdisjoint(_CONTAINER_KINDS):
            return held
        level = list(_compress(items, map(_CONTAINER_KINDS.__contains__, map(type, items))))


_PLAIN_KINDS = frozenset((list, dict, tuple, str, int, float, bool, type(None)))
_CONTAINER_KINDS = frozenset((list, dict, tuple))
_LIST_OR_DICT = frozenset((list, dict))


def _probe_new(result, args, kwargs, blob):
    return _getrefcount(result)


def _new_base():
    """The reference count _fast_returned sees for a result only _run_case
    holds, probed as it is called; None (no fast path) when this
    interpreter's marshal does not flag exactly the objects held twice."""
    result = {"a": [1], "b": {"c": ()}}
    args, kwargs, blob = [], {}, b""
    base = _probe_new(result, args, kwargs, blob)
    held = [1]
    twice = {"a": held}
    if _marshal_dumps(result, 4).find(b"\xdb", 1) >= 0 or _marshal_dumps(twice, 4).find(b"\xdb", 1) < 0:
        return None
    del held
    return base


def _import_error(e, path, source):
    """The import error's outcome: its class, message and line in main.py,
    and that line of `source` (main.py's bytes) as text, for the student
    to find."""
    line = None
    if isinstance(e, SyntaxError):
        if type(e.lineno) is int and e.filename == path:
            line = e.lineno
    else:
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == path:
                line = tb.tb_lineno
            tb = tb.tb_next
    text = None
    if line is not None and 0 < line <= source.count(b"\n") + 1:
        text = source.split(b"\n")[line - 1].decode("utf-8", "replace").rstrip("\r")
        text = _text(text, SOURCE_LINE_CHARS)
    outcome = {"kind": "import-error", "exc_type": _class_name(type(e)), "message": _message(e), "line": line}
    if text is not None:
        outcome["source_line"] = text
    return outcome


def _report(line):
    _write_all(RESULT_FD, line.encode("utf-8") + b"\n")


def _bytecode(pyc, path, source, ahead=None):
    """main.py's compiled code, an unchecked hash-based .pyc (None when it
    does not compile): `pyc`, the code a previous session of the same source
    compiled (the job's "pyc_hex", from the grader's store), else what this
    child compiled ahead (`ahead`: see _compiled_ahead) when it is of these
    very bytes, else compiled here. Compiling runs no student code.

    Without "pyc_hex" the child always says "K <hex>" (or "K" when it could
    not compile) before import: the supervisor takes that one line only,
    so what student code writes later cannot stand in for it."""
    data = pyc
    if pyc is None:
        if ahead is not None and ahead[0] == source:
            data = ahead[1]
        else:
            try:
                data = _pyc_of(source, path)
            except BaseException:
                data = None
        _report("K " + data.hex() if data is not None and len(data) <= PYC_LIMIT else "K")
    return data


def _pyc_of(source, path):
    """`source` compiled as main.py at `path`, as the .pyc _bytecode gives."""
    code = compile(source, path, "exec", dont_inherit=True)
    # The same bytes whatever the folder (import sets the real path back,
    # as for any .pyc), so a store file is reproducible.
    _imp._fix_co_filename(code, "main.py")
    return _bootstrap_external._code_to_hash_pyc(code, _imp.source_hash(_bootstrap_external._RAW_MAGIC_NUMBER, source), False)


def _read_early_source():
    """The source Rust handed the first child ahead of its job
    (src/runner/early_source.rs), or None: the pipe is written whole and
    closed before this child is forked, so the reads never wait."""
    fd, _EARLY_SOURCE[0] = _EARLY_SOURCE[0], None
    if fd is None:
        return None
    buf = bytearray()
    try:
        while len(buf) <= JOB_LIMIT:
            chunk = _read(fd, 1 << 20)
            if not chunk:
                break
            buf += chunk
    except OSError:
        return None
    finally:
        os.close(fd)
    return bytes(buf) if 0 < len(buf) <= JOB_LIMIT else None


class _Said:
    """sys.stderr while main.py is compiled ahead: whether compiling it
    printed anything (a warning)."""

    said = False

    def write(self, text):
        self.said = True
        return len(text)

    def flush(self):
        pass


def _compiled_ahead(source, path):
    """(source, its .pyc) for the source handed ahead, compiled in this
    child's sandbox once its self-test is done and before its job arrives
    (nothing of it runs), or None: when it does not compile, or compiling
    it printed a warning, the job's own compile does it again, as without
    it, so what a submission prints and how it fails do not change."""
    said = _Said()
    saved = sys.stderr
    sys.stderr = said
    try:
        data = _pyc_of(source, path)
    except BaseException:
        data = None
    finally:
        sys.stderr = saved
    return None if data is None or said.said else (source, data)


# An unchecked hash-based .pyc: the interpreter's magic, then flags 0b01.
_PYC_HEAD = _bootstrap_external.MAGIC_NUMBER + b"\x01\x00\x00\x00"


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
    spec = _bootstrap_external.spec_from_file_location("main", path)
    module = _bootstrap.module_from_spec(spec)
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
    _set_limits(INIT["rlimits"])
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
    b"<source bytes> <compiled bytes, or -1> <end>\n", the source, then the
    compiled code. Returns (source, compiled code or None, end: the case
    after the last this child runs, the end of its process group)."""
    try:
        head = bytearray()
        while b"\n" not in head and len(head) < 64:
            chunk = _read(fd, 64)
            if not chunk:
                break
            head += chunk
        first, _, rest = bytes(head).partition(b"\n")
        sizes = first.split(b" ")
        if len(sizes) != 3 or not all(x.lstrip(b"-").isdigit() for x in sizes):
            raise ValueError("the supervisor wrote no job")
        n_source, n_pyc, end = int(sizes[0]), int(sizes[1]), int(sizes[2])
        total = n_source + max(n_pyc, 0)
        if not (0 <= n_source <= JOB_LIMIT and -1 <= n_pyc <= JOB_LIMIT and end >= 0) or len(rest) > total:
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
    return source, (bytes(view[n_source:]) if n_pyc >= 0 else None), end


def _child(request, res_w, out_w, hid_r, job_r, check_w=None):
    """Never returns: runs cases start..end of the request and exits (end,
    from its job, closes its process group: the next group's cases run in a
    fresh child). It
    enters its sandbox first, then reads its job (source, compiled code)
    from the supervisor on job_r, so a child forked before its job arrives
    (the zygote's first, see _first_child) waits in its sandbox; the
    hidden cases' inputs arrive on HIDDEN_FD only once the visible ones are
    answered. Given `check_w`, it is the first child, and does the sandbox
    self-test's checks (_check_sandbox) before it waits for its job."""
    try:
        start, attempt, jobdir, n = request["start"], request["attempt"], request["jobdir"], request["n"]
        chosen = request["visible"]
        cases = INIT["cases"] if chosen is None else [INIT["cases"][i] for i in chosen]
        # Read before the descriptors are moved: the first child's only.
        early = _read_early_source() if check_w is not None else None
        os.setsid()
        _own_ipc_namespace()
        _name(b"ag-child")
        # Out of the way of the numbers they are moved to.
        fd3 = fcntl.fcntl(res_w, fcntl.F_DUPFD, 16)
        fd4 = fcntl.fcntl(hid_r, fcntl.F_DUPFD, 16)
        fd5 = fcntl.fcntl(job_r, fcntl.F_DUPFD, 16)
        fd6 = fcntl.fcntl(check_w, fcntl.F_DUPFD, 16) if check_w is not None else None
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd3, RESULT_FD)
        os.dup2(fd4, HIDDEN_FD)
        os.dup2(fd5, JOB_FD)
        if fd6 is not None:
            os.dup2(fd6, CHECK_FD)
        os.closerange((JOB_FD if fd6 is None else CHECK_FD) + 1, 1 << 16)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            try:
                here = _enter_sandbox(jobdir, str(attempt))
            except BaseException as e:
                if fd6 is not None:
                    _check_said(CHECK_FD, {"ok": False, "error": _text("%s: %s" % (type(e).__name__, e))})
                raise
            if fd6 is not None:
                _check_sandbox(here, CHECK_FD)
                # Frozen in the zygote only after this child was forked.
                gc.freeze()
                gc.enable()
                if early is not None:
                    early = _compiled_ahead(early, os.path.join(here, "main.py"))
            # Closed once read: student code never holds it.
            source, pyc, end = _read_job(JOB_FD)
            end = min(end, n)
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
        pyc = _bytecode(pyc, path, source, early)
        early = None
        try:
            module = _import_main(path, pyc)
            mod_dict = _obj_getattr(module, "__dict__")
            if type(mod_dict) is not dict:
                raise ImportError("main has no module dictionary")
        except MemoryError as e:
            _report("E " + dumps(_import_error(e, path, source)))
            _exit(0)
        except BaseException as e:
            if _getpid() != _PID[0]:
                _exit(0)
            _setrecursionlimit(_RECURSION_LIMIT)
            _report("E " + dumps(_import_error(e, path, source)))
            _exit(0)
        del source
        if _getpid() != _PID[0]:
            _exit(0)
        _report("I")
        visible = len(cases)
        for i in range(start, end):
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
        # Flushed before "D": the supervisor answers on "D", with the
        # output it holds then.
        for f in (_stdout, _stderr):
            try:
                f.flush()
            except BaseException:
                pass
        _report("D")
    finally:
        _exit(0)


_PID = [0]
_KEEP = []
_HIDDEN_ALL = [None]  # the supervisor's: every hidden case's input, checked (marshal bytes of their list)
# Built-in exception classes -> (class, the start of their "raised" outcome).
_RAISED_HEADS = {}
_plain_json = None
# The largest marshal bytes _fast_returned takes: within it, no result
# can exceed the encoder's budgets (a node is at least a byte, a character
# of text at least a byte and a wide int's decimal digit at least a third
# of one, 15 bits take 2 bytes) nor _run_case's walk.
_NEW_BYTES = min(T.MAX_NODES, T.MAX_TEXT // 3, T.MAX_INT_BITS // 8, RESULT_BUDGET)
_NEW_BASE = _new_base()
