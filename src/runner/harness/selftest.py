"""The sandbox self-test, done by the first child (set up exactly as every
submission's) from inside its sandbox before any job reaches it.

Run in harness.py's namespace by its `_load`, after the run's limits are
set; it defines names only."""


def _first_child():
    """Forks the first job's child, which is also the sandbox self-test: set
    up exactly as every submission's child (limits, uid, folder, and the
    landlock tier's domain), it checks what holds from inside its sandbox
    before any job reaches it (the interpreter's library readable, every
    call that changes a file's metadata refused, and under landlock the
    host's files, TCP and the zygote out of reach) and
    says so on its own pipe, then waits for the first job (see _child).
    Rust refuses to record when what must hold does not, and then sends
    no job. Returns the pipe the child says what it found on (read it with
    _self_test_said); the child and the supervisor's ends of its pipes are
    left in _FIRST, for the supervisor to take (_adopt_first)."""
    _ZYGOTE_PID[0] = _getpid()
    request = {"start": 0, "attempt": 0, "jobdir": _job_folder(1), "n": len(INIT["cases"]) + INIT.get("hidden_count", 0), "visible": None}
    _Run.make_jobdir_for(request["jobdir"])
    check_r, check_w = os.pipe()
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    hid_r, hid_w = os.pipe()
    job_r, job_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        _PID[0] = _getpid()
        for fd in (check_r, res_r, out_r, hid_w, job_w):
            os.close(fd)
        _child(request, res_w, out_w, hid_r, job_r, check_w)
    for fd in (check_w, res_w, out_w, hid_r, job_r):
        os.close(fd)
    if _EARLY_SOURCE[0] is not None:
        os.close(_EARLY_SOURCE[0])
        _EARLY_SOURCE[0] = None
    _FIRST[0] = [request, pid, res_r, out_r, hid_w, job_w]
    return check_r


def _self_test_said(check_r):
    """What the first child found (see _first_child), read whole from
    `check_r`, which is then closed."""
    data = bytearray()
    while True:
        chunk = _read(check_r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(check_r)
    try:
        return _loads(bytes(data).decode("utf-8"))
    except ValueError:
        return {"ok": False, "error": "the self-test child answered nothing"}


def _check_sandbox(here, fd):
    """The self-test's checks, in the first child once it is in its sandbox
    (its folder `here`), said on `fd` (then closed): JSON, {"ok": true, and
    what held} or {"ok": false, "error": why}. Leaves nothing behind."""
    zygote = _ZYGOTE_PID[0]
    out = {}
    try:
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
        probe = os.path.join(here, "probe")
        with open(probe, "w") as f:
            f.write("ok")
        os.unlink(probe)
        out["host_files_hidden"] = all(
            denied(p, (lambda p=p: open(p, "rb").close())) for p in INIT["must_not_read"]
        )
        out["root_hidden"] = denied("/", lambda: os.listdir("/"))

        def connect():
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
        # No call may change a file's metadata (mode, owner, times,
        # extended and inode attributes): tried on its own folder, where the
        # kernel would allow each, so only the filter's EPERM passes (it
        # sees no path: refused here, refused on the user's files too).
        unrefused = C.metadata_unrefused(here)
        out["metadata_refused"] = not unrefused
        if unrefused:
            out["metadata_unrefused"] = unrefused
        out["ok"] = True
    except BaseException as e:
        out = {"ok": False, "error": _text("%s: %s" % (type(e).__name__, e))}
    _check_said(fd, out)


def _check_said(fd, out):
    """The self-test's answer written on `fd`, then closed."""
    try:
        _write_all(fd, dumps(out).encode("utf-8"))
    finally:
        os.close(fd)


# The zygote's pid (its children's folders are named after it), and the
# first child as _first_child forked it: [its request, its pid, the
# supervisor's ends of its result, output, hidden-input and job pipes].
_ZYGOTE_PID = [None]
_FIRST = [None]
