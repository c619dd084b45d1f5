"""The zygote: forks the supervisor, answers "ready", then forks every
child the supervisor asks for, waits for it and kills whatever it left.

Run in harness.py's namespace by its `_load`, after the run's limits are
set; it defines names only."""

# Its last line on stderr when nothing of the worker uid is left as it ends
# (Rust's Worker::stop looks for it: ENDED_CLEAN in src/runner/worker.rs).
ENDED_CLEAN = "autograder zygote: nothing of the worker uid is left\n"


def _serve(sock, supervisor, first):
    """The zygote's loop, once the supervisor runs: tends the first child
    (forked before the supervisor, see _first_child), then forks a child
    for each request (with the pipes it was sent); it waits for each,
    kills whatever it left below the zygote, and says how it ended. It
    never sees a job's source, outcomes or hidden inputs."""
    me = _getpid()
    if not _tend(sock, me, supervisor, first):
        return
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
        if not _tend(sock, me, supervisor, cpid):
            return


def _tend(sock, me, supervisor, cpid):
    """Says when the child `cpid` has exited and how, reaps it when the
    supervisor says so, then kills whatever it left; False when the
    supervisor is gone."""
    # Exited, not reaped: the supervisor may still signal its group.
    try:
        status = _wait_status(os.waitid(os.P_PID, cpid, os.WEXITED | os.WNOWAIT))
    except ChildProcessError:
        status = 0
    try:
        # The supervisor may be gone: it ends with its stdin, and the
        # first child, waiting for a job that never came, ends after it.
        sock.send(b"exit %d" % status)
    except OSError:
        return False
    try:
        if sock.recv(64) != b"reap":
            return False
    except OSError:
        return False
    try:
        os.waitpid(cpid, 0)
    except ChildProcessError:
        pass
    left = not _kill_until_none(lambda: [p for p in _children(me) if p != supervisor], _wait_each, STRAYS_SECONDS)
    _reap_orphans()
    sock.send(b"done dirty" if left else b"done")
    return True


def _prepare_cases():
    """The visible cases' inputs as a list, each of the shape a child runs
    (a malformed one fails here). What their bytes hold is checked by the
    supervisor while the first submission runs (_VisibleCheck), not before
    it starts."""
    INIT["cases"] = [_case_shape(case) for case in _case_list(INIT["cases"])]
    _STEPS.append(["case arguments prepared", _clock()])


def _zygote(check_r):
    """The zygote, once the harness is set up, its cases' arguments built
    and its first child forked (it tests the sandbox and says what it found
    on `check_r`): forks the supervisor while that child tests, answers
    "ready" with what it found, and serves the supervisor until it ends."""
    # Everything so far lives as long as the zygote: keep the collector off
    # it, so forked children do not copy-on-write the whole heap. (It was
    # off while the harness started: nothing worth a collection is left.
    # The first child, forked before, does the same for itself.)
    gc.freeze()
    gc.enable()
    _STEPS.append(["collector frozen", _clock()])
    zsock, ssock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    _stdout.flush()
    # Forked while the first child tests (its fork is off the way from
    # "ready" to the first job): the supervisor waits for the first job,
    # which Rust sends only once it has judged "ready".
    spid = os.fork()
    if spid == 0:
        zsock.close()
        os.close(check_r)
        _supervise(ssock)
    ssock.close()
    first = _FIRST[0][1]
    for fd in _FIRST[0][2:]:  # the supervisor's
        os.close(fd)
    _FIRST[0] = None
    check = _self_test_said(check_r)
    _STEPS.append(["sandbox self-test", _clock()])
    ready = {
        "ready": True,
        "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
        "self_test": check,
        "cgroup_error": INIT["cgroup_error"],
        "steps": _STEPS,
        "compiled": _COMPILED,
    }
    _write_all(1, dumps(ready).encode("utf-8") + b"\n")
    del ready
    # Rust's pipes are the supervisor's alone: when it ends, Rust sees it.
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    try:
        _serve(zsock, spid, first)
    finally:
        none_left = _kill_until_none(lambda: _children(_getpid()), _wait_each, STRAYS_SECONDS)
    # Under landlock and bwrap every process of the worker uid descends from
    # this one, and the uid can make nothing (no file, no IPC object) that
    # outlives it but in the worker's scratch: with none left below it,
    # nothing of the uid is left, which Rust passes on to the uid's next
    # worker (src/runner/sandbox/uid.rs) once it has removed that scratch.
    if none_left and INIT["tier"] in ("landlock", "bwrap"):
        _stderr.write(ENDED_CLEAN)
    # Its stderr closes with it: Rust waits for that before it kills what
    # is left of the worker (Worker::stop). Nothing else is left to do.
    try:
        _stderr.flush()
    except BaseException:
        pass
    _exit(0)
