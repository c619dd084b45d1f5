# A test (src/runner/harness.rs): the seccomp filters keep a child off every
# other process by themselves, whatever the Landlock ABI or the uid (run as
# root here, where the kernel would let every call through). For each
# tier's filter a forked child tries each call on itself, on its own process
# group, on its parent and on every process (-1); under the landlock tier's
# it also tries the UNIX sockets that could reach a host socket. Under both,
# every call that changes a file's metadata must answer EPERM. Prints
# "ok <calls>". Run with confine.py's source on stdin.
import ctypes
import fcntl
import os
import resource
import signal
import socket
import sys
import tempfile
import threading

C = {"__name__": "autograder_confine_check"}
exec(compile(sys.stdin.read(), "confine.py", "exec"), C)


LIBC = ctypes.CDLL(None, use_errno=True)
COL = 0 if os.uname().machine == "x86_64" else 1
EXTRA_NR = {"sched_getattr": (315, 275), "ioprio_get": (252, 31)}


def syscall(name, *args):
    """The raw call (no libc wrapper for some); OSError on failure."""
    nr = (C["_NR"].get(name) or EXTRA_NR[name])[COL]
    LIBC.syscall.restype = ctypes.c_long
    v = LIBC.syscall(nr, *args)
    if v < 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (name, os.strerror(e)))
    return v


def queued():
    """A siginfo for rt_(tg)sigqueueinfo: signal 0, si_code SI_QUEUE."""
    info = ctypes.create_string_buffer(128)
    ctypes.c_int.from_buffer(info, 8).value = -1
    return info


def same_attr(pid):
    attr = ctypes.create_string_buffer(56)
    syscall("sched_getattr", pid, attr, 56, 0)
    syscall("sched_setattr", pid, attr, 0)


def same_ioprio(pid):
    syscall("ioprio_set", 1, pid, syscall("ioprio_get", 1, pid))


def probes(me, parent):
    """(what, target, call): target is "own" (on itself, must work) or
    "other" (on another process, must be refused)."""
    r, w = os.pipe()
    a, b = socket.socketpair()
    return [
        ("tkill", "own", lambda: syscall("tkill", me, 0)),
        ("tgkill", "own", lambda: syscall("tgkill", me, me, 0)),
        ("rt_sigqueueinfo", "own", lambda: syscall("rt_sigqueueinfo", me, 0, queued())),
        ("rt_tgsigqueueinfo", "own", lambda: syscall("rt_tgsigqueueinfo", me, me, 0, queued())),
        ("sched_setparam", "own", lambda: os.sched_setparam(0, os.sched_getparam(0))),
        ("sched_setattr", "own", lambda: same_attr(0)),
        ("ioprio_set", "own", lambda: same_ioprio(0)),
        ("tkill", "other", lambda: syscall("tkill", parent, 0)),
        ("tgkill", "other", lambda: syscall("tgkill", parent, parent, 0)),
        ("rt_sigqueueinfo", "other", lambda: syscall("rt_sigqueueinfo", parent, 0, queued())),
        ("rt_tgsigqueueinfo", "other", lambda: syscall("rt_tgsigqueueinfo", parent, parent, 0, queued())),
        ("sched_setparam", "other", lambda: os.sched_setparam(parent, os.sched_getparam(parent))),
        ("sched_setattr", "other", lambda: same_attr(parent)),
        ("ioprio_set", "other", lambda: same_ioprio(parent)),
        # Not for a process: refused even for its own group (a user's, with
        # who 0, would reach every process of the uid).
        ("ioprio_set group", "other", lambda: syscall("ioprio_set", 2, 0, syscall("ioprio_get", 2, 0))),
        ("kill", "own", lambda: os.kill(me, 0)),
        ("kill group", "own", lambda: os.kill(0, 0)),
        ("killpg own", "own", lambda: os.killpg(me, 0)),
        ("pthread_kill", "own", lambda: signal.pthread_kill(threading.get_ident(), 0)),
        ("setrlimit", "own", lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0))),
        ("prlimit", "own", lambda: resource.prlimit(me, resource.RLIMIT_NOFILE)),
        ("nice", "own", lambda: os.nice(0)),
        ("setpriority", "own", lambda: os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0))),
        ("affinity", "own", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0))),
        ("F_GETFL", "own", lambda: fcntl.fcntl(r, fcntl.F_GETFL)),
        ("kill", "other", lambda: os.kill(parent, 0)),
        ("kill all", "other", lambda: os.kill(-1, 0)),
        ("killpg", "other", lambda: os.killpg(os.getpgid(parent), 0)),
        ("prlimit", "other", lambda: resource.prlimit(parent, resource.RLIMIT_NOFILE)),
        ("setpriority", "other", lambda: os.setpriority(os.PRIO_PROCESS, parent, os.getpriority(os.PRIO_PROCESS, parent))),
        ("setpriority user", "other", lambda: os.setpriority(os.PRIO_USER, 0, os.getpriority(os.PRIO_PROCESS, 0))),
        ("affinity", "other", lambda: os.sched_setaffinity(parent, os.sched_getaffinity(parent))),
        ("sched_setscheduler", "other", lambda: os.sched_setscheduler(parent, os.sched_getscheduler(parent), os.sched_getparam(parent))),
        ("F_SETOWN", "other", lambda: fcntl.fcntl(r, fcntl.F_SETOWN, parent)),
        ("FIOSETOWN", "other", lambda: fcntl.ioctl(a, 0x8901, parent.to_bytes(4, "little"))),
    ] + (
        [("pidfd_send_signal", "other", lambda: signal.pidfd_send_signal(os.pidfd_open(parent), 0))]
        if hasattr(signal, "pidfd_send_signal") and hasattr(os, "pidfd_open")
        else []
    )


def socket_probes(listening):
    """The landlock tier's: only UNIX stream and seqpacket sockets, made by
    socketpair (connect refused, even to a listener that would accept)."""
    def connect():
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(listening)

    return [
        ("socketpair", "own", lambda: socket.socketpair()),
        ("seqpacket socketpair", "own", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)),
        ("stream socket", "own", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)),
        ("connect to a listening socket", "other", connect),
        ("datagram socket", "other", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)),
        ("raw socket (a datagram one)", "other", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_RAW)),
        ("datagram socketpair", "other", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)),
        ("inet socket", "other", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
    ]


def run(tier):
    """Forks a child that installs `tier`'s filter and reports what was
    refused that should work, and what worked that should be refused."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        wrong = []
        try:
            os.setsid()
            me, parent = os.getpid(), os.getppid()
            calls = probes(me, parent)
            if tier == "landlock":
                calls += socket_probes(LISTENING)
            # The metadata probe finds every call open before the filter
            # (it tells the filter's EPERM from the kernel's answer)...
            folder = tempfile.mkdtemp()
            before = C["metadata_unrefused"](folder)
            assert set(C["METADATA"]) <= set(C["_NR"]), "a metadata call has no number"
            here = [n for n in C["METADATA"] if C["_NR"][n][COL] is not None]
            if len(before) != len(here) + len(C["_METADATA_IOCTLS"]):
                wrong.append("metadata probe: refused without the filter: %s" % before)
            C["seccomp"](tier)
            # ...and none after it, on every architecture's calls.
            wrong += ["metadata: %s" % w for w in C["metadata_unrefused"](folder)]
            calls.append(("chmod of the folder", "other", lambda: os.chmod(folder, 0o755)))
            for what, target, call in calls:
                try:
                    call()
                    if target == "other":
                        wrong.append("%s: worked, must be refused" % what)
                except OSError as e:
                    if target == "own":
                        wrong.append("%s: refused, must work (%s)" % (what, e))
            os.rmdir(folder)
            wrong.append("probes %d" % len(calls))
        except BaseException as e:
            wrong.append("error: %r" % e)
        os.write(w, "\n".join(wrong).encode())
        os._exit(0)
    os.close(w)
    out = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    lines = out.decode().split("\n")
    assert lines[-1].startswith("probes "), lines
    assert lines[:-1] == [], "%s tier: %s" % (tier, lines[:-1])
    return int(lines[-1].split()[1])


# A listener the landlock tier's child must not reach (an abstract name:
# nothing on disk to clean up).
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
LISTENING = "\0autograder-confine-check-%d" % os.getpid()
listener.bind(LISTENING)
listener.listen(8)
n = sum(run(tier) for tier in ("landlock", "scope"))
print("ok %d" % n)
