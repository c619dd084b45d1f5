"""The reaper: kills what a child left (its process group, then every
process of the worker uid), removes its files and IPC objects, and
collects the zygote's dead descendants.

Run in harness.py's namespace by its `_load`, after the run's limits are
set; it defines names only."""


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


def _reap_at_start():
    """What a run that was killed left of the worker uid (processes, files)
    must not meet the first submission: reaped under landlock and rlimits.
    Under bwrap every place it could be is this sandbox's own and new (its
    PID and IPC namespaces, /tmp, /dev, /dev/mqueue; the host's shared
    folders are not mounted), so there is nothing to reap and no process of
    the uid yet. Under landlock neither is there when the uid's last worker
    ended with nothing of it left (the init line's "reaped", which Rust
    gives only then: see the zygote's end)."""
    if INIT["tier"] == "bwrap" or (INIT["tier"] == "landlock" and INIT.get("reaped") is True):
        _DIRTY[0] = False
        return
    _reap(None, None, leftovers=True)


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
    _cgroup_joined()  # nothing is forked outside the worker's cgroup
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
    limits = INIT["rlimits"]
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


def _kill_uid(uid):
    """Kills every process of the worker uid, wherever it is, until /proc
    shows none."""
    return _kill_until_none(lambda: _uid_processes(uid), lambda _: _reap_orphans(), KILL_SECONDS)


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
        elif depth < LEFTOVER_DEPTH and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
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
            time.sleep(ORPHAN_POLL)


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
