"""The sandbox self-test: a child set up exactly as a submission's, without
student code, reporting what held.

Run in harness.py's namespace by its `_load`, after the run's limits are
set; it defines names only."""


def _self_test(meanwhile):
    """Runs a child exactly as a submission's would be set up (limits, uid,
    folder, and the landlock tier's domain), without student code, and
    reports what held: the interpreter's library readable, and under
    landlock the host's files, TCP and the zygote out of reach. Rust refuses
    to record when what must hold does not. The zygote runs `meanwhile`
    while the child tests (a failure there kills the child first)."""
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
                import _socket

                s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
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
    try:
        meanwhile()
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
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
