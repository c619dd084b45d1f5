"""The landlock tier: confines the process that runs a submission's code.

Sent to the harness at start (like tagged.py) and called in each child after
it has dropped its privileges and written main.py, before student code runs.
The child enters a nested Landlock domain of its own, so its supervisor and
the zygote stay outside it, then installs a seccomp filter. Both come from the
kernel through ctypes (the harness is stdlib only).

Landlock (Linux 5.13+, no privilege needed, works inside containers):
  files    read and execute beneath the interpreter's folders and the system
           libraries; read, write and create beneath the submission's own
           folder; nothing else (no corpus, no other submission, no home,
           no /proc);
  TCP      bind and connect refused (ABI >= 4);
  scopes   signals and abstract UNIX sockets only within the domain (ABI >= 6):
           the child cannot signal its supervisor or another worker.
seccomp refuses sockets other than AF_UNIX stream and seqpacket ones (made
by socketpair: connect is refused, and a datagram could be sent to any path),
ptrace, process_vm_readv/writev,
io_uring, bpf, perf_event_open, keyrings, userfaultfd, System V and POSIX
IPC objects (shmget, semget, msgget, mq_open), mount and namespace
calls (mount, umount2, pivot_root, chroot, unshare, setns, the new mount API,
clone with CLONE_NEW* flags; clone3 answers ENOSYS so libc falls back to
clone), and every syscall of another ABI (i386 int 0x80, x32). It also keeps
the child off every other process (NEIGHBOURS): signals, resource limits,
priorities and SIGIO ownership only for itself (every ABI; without a uid of
its own the child shares its uid with the grader), and refuses every call
that changes a file's metadata (METADATA: mode, owner, times, extended and
inode attributes; Landlock has no right for them). The bwrap and rlimits
tiers get those two parts alone (`scope_only`).

`confine()` raises OSError when a rule cannot be put in place: the harness then
reports a sandbox failure instead of running student code under less.
"""

import ctypes
import os
import stat
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_prctl = _libc.prctl

_NR_CREATE_RULESET = 444  # the same number on every architecture
_NR_ADD_RULE = 445
_NR_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_EXECUTE = 1 << 0
_WRITE_FILE = 1 << 1
_READ_FILE = 1 << 2
_READ_DIR = 1 << 3
_REMOVE_DIR = 1 << 4
_REMOVE_FILE = 1 << 5
_MAKE_CHAR = 1 << 6
_MAKE_DIR = 1 << 7
_MAKE_REG = 1 << 8
_MAKE_SOCK = 1 << 9
_MAKE_FIFO = 1 << 10
_MAKE_BLOCK = 1 << 11
_MAKE_SYM = 1 << 12
_REFER = 1 << 13  # ABI 2
_TRUNCATE = 1 << 14  # ABI 3
_IOCTL_DEV = 1 << 15  # ABI 5
# Rights that apply to a file (a rule on a file with any other is refused).
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV

_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

# What every interpreter reads, beside its own folders (given by Rust).
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc/ld.so.cache", "/etc/localtime")
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def abi():
    """The kernel's Landlock ABI version; 0 when it has none (or it is off)."""
    v = _syscall(_NR_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return int(v) if v > 0 else 0


def _fail(what):
    err = ctypes.get_errno()
    raise OSError(err, "%s: %s" % (what, os.strerror(err)))


def _handled_fs(v):
    rights = (1 << 13) - 1
    if v >= 2:
        rights |= _REFER
    if v >= 3:
        rights |= _TRUNCATE
    if v >= 5:
        rights |= _IOCTL_DEV
    return rights


def _add_path(ruleset, path, rights):
    """Allows `rights` beneath `path`; a path that does not exist is skipped."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _FILE_RIGHTS
        # The kernel only reads the attribute: a bytes object will do.
        attr = struct.pack("=Qi", rights, fd)
        if _syscall(_NR_ADD_RULE, ruleset, _RULE_PATH_BENEATH, attr, _ZERO) != 0:
            _fail("landlock_add_rule(%s)" % path)
    finally:
        os.close(fd)
    return True


def _landlock_plan(read_roots):
    """What `landlock` does, worked out once (the harness's zygote calls
    `prepare` before it forks): (ABI, ruleset attribute, its size, [(path,
    rights)], rights on the submission's folder, what it restricts)."""
    v = abi()
    if v < 1:
        raise OSError(38, "Landlock is not available in this kernel")
    handled_fs = _handled_fs(v)
    handled_net = (_NET_BIND_TCP | _NET_CONNECT_TCP) if v >= 4 else 0
    scoped = (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if v >= 6 else 0
    fields = [handled_fs]
    if v >= 4:
        fields.append(handled_net)
    if v >= 6:
        fields.append(scoped)
    attr = struct.pack("=%dQ" % len(fields), *fields)
    read = (_EXECUTE | _READ_FILE | _READ_DIR) & handled_fs
    paths = [(root, read) for root in tuple(read_roots) + SYSTEM_READ]
    paths += [(dev, (_READ_FILE | _WRITE_FILE | _IOCTL_DEV) & handled_fs) for dev in DEVICES]
    write = handled_fs & ~(_EXECUTE | _MAKE_CHAR | _MAKE_BLOCK)
    held = ["files"]
    if handled_net:
        held.append("tcp")
    if scoped:
        held += ["signals", "abstract-unix"]
    return (v, attr, ctypes.c_size_t(len(attr)), paths, write, held)


def landlock(read_roots, write_root):
    """Enters a new Landlock domain; returns the names of what it restricts."""
    plan = _PREPARED.get(("landlock", tuple(read_roots)))
    if plan is None:
        plan = _landlock_plan(read_roots)
    v, attr, size, paths, write, held = plan
    ruleset = _syscall(_NR_CREATE_RULESET, attr, size, _ZERO)
    if ruleset < 0:
        _fail("landlock_create_ruleset")
    ruleset = int(ruleset)
    try:
        for path, rights in paths:
            _add_path(ruleset, path, rights)
        if not _add_path(ruleset, write_root, write):
            raise OSError(2, "landlock: the submission's folder %s is missing" % write_root)
        if _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            _fail("prctl(PR_SET_NO_NEW_PRIVS)")
        if _syscall(_NR_RESTRICT_SELF, ruleset, _ZERO) != 0:
            _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return v, list(held)


# ---------------------------------------------------------------------------
# seccomp
# ---------------------------------------------------------------------------

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# name -> (x86_64, aarch64)
_NR = {
    "socket": (41, 198),
    "socketpair": (53, 199),
    "connect": (42, 203),
    "clone": (56, 220),
    "clone3": (435, 435),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "unshare": (272, 97),
    "setns": (308, 268),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "shmget": (29, 194),
    "semget": (64, 190),
    "msgget": (68, 186),
    "mq_open": (240, 180),
    # Calls that act on another process named by its pid (see NEIGHBOURS).
    "kill": (62, 129),
    "tkill": (200, 130),
    "tgkill": (234, 131),
    "rt_sigqueueinfo": (129, 138),
    "rt_tgsigqueueinfo": (297, 240),
    "pidfd_send_signal": (424, 424),
    "prlimit64": (302, 261),
    "sched_setparam": (142, 118),
    "sched_setscheduler": (144, 119),
    "sched_setaffinity": (203, 122),
    "sched_setattr": (314, 274),
    "setpriority": (141, 140),
    "ioprio_set": (251, 30),
    "fcntl": (72, 25),
    "ioctl": (16, 29),
    # Calls that change a file's metadata (see METADATA); None: not on aarch64.
    "chmod": (90, None),
    "fchmod": (91, 52),
    "fchmodat": (268, 53),
    "fchmodat2": (452, 452),
    "chown": (92, None),
    "fchown": (93, 55),
    "lchown": (94, None),
    "fchownat": (260, 54),
    "utime": (132, None),
    "utimes": (235, None),
    "futimesat": (261, None),
    "utimensat": (280, 88),
    "setxattr": (188, 5),
    "lsetxattr": (189, 6),
    "fsetxattr": (190, 7),
    "setxattrat": (463, 463),
    "removexattr": (197, 14),
    "lremovexattr": (198, 15),
    "fremovexattr": (199, 16),
    "removexattrat": (466, 466),
    "file_setattr": (469, 469),
}
DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root", "chroot",
    "unshare", "setns", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
    "mount_setattr", "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # IPC objects outlive the process and, without a uid of its own, could be
    # left for the next submission: Landlock does not cover them.
    "shmget", "semget", "msgget", "mq_open",
    # Landlock does not cover a UNIX socket's path either: connect() would
    # reach the user's D-Bus session (and through it systemd, which runs
    # anything), ssh-agent, X11, docker.sock, and below ABI 6 any abstract
    # socket. Only AF_UNIX sockets exist, so connect() has nothing else to do.
    "connect",
)
# A file's metadata: mode, owner, times, extended attributes (ACLs among
# them), inode attributes. Landlock has no right for any of it, and without a
# uid of its own (no root) the child is the user: it could chmod the user's
# private files 0666, open the user's cache to every uid, set the work dir's
# times or chmod it 0000 (the run then ends with no report); even as its
# own uid, chown(path, -1, -1) moves the ctime of any file it can reach.
# seccomp cannot see a path, and a descriptor-based call works on any file
# the child can open, read-only ones included (beneath the interpreter, the
# libraries): so every tier's filter refuses them all, EPERM, in the
# submission's own folder too. What a student loses: os.chmod, os.chown,
# os.utime, the xattr calls, shutil.copy/copy2/copytree (copymode,
# copystat) raise PermissionError; shutil.copyfile, open(), tempfile,
# os.makedirs(mode=...) and Path.touch (it falls back to open) still work.
METADATA = (
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
    "utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr",
    "setxattrat", "removexattr", "lremovexattr", "fremovexattr", "removexattrat", "file_setattr",
)
# The ioctls that change a file's metadata (refused, with the ones of
# NEIGHBOURS, by the ioctl rule): inode flags (chattr), the fs attributes,
# the inode generation, fs-verity (the file read-only for good) and an
# encryption policy.
_METADATA_IOCTLS = (
    0x40086602,  # FS_IOC_SETFLAGS
    0x40046602,  # FS_IOC32_SETFLAGS
    0x401C5820,  # FS_IOC_FSSETXATTR
    0x40087602,  # FS_IOC_SETVERSION
    0x40047602,  # FS_IOC32_SETVERSION
    0x40806685,  # FS_IOC_ENABLE_VERITY
    0x800C6613,  # FS_IOC_SET_ENCRYPTION_POLICY
)
# Without a uid of its own a child shares its uid with its supervisor, the
# zygote, the other workers and (outside bwrap's PID namespace) the grader:
# the kernel lets it signal them, lower their resource limits (RLIMIT_FSIZE 0
# kills the grader at its next write), renice them or make them a file's
# SIGIO owner. Landlock scopes signals from ABI 6 and nothing else of this.
# So every tier's child may do these only to itself (and, for kill, its own
# process group: it leads a session of its own): {call: (rule, arguments)}.
NEIGHBOURS = {
    "kill": ("pid", 0),
    "tkill": ("self", 0),
    "tgkill": ("self", 0),
    "rt_sigqueueinfo": ("self", 0),
    "rt_tgsigqueueinfo": ("self", 0),
    "pidfd_send_signal": ("never", None),
    "prlimit64": ("self_or_0", 0),
    "sched_setparam": ("self_or_0", 0),
    "sched_setscheduler": ("self_or_0", 0),
    "sched_setaffinity": ("self_or_0", 0),
    "sched_setattr": ("self_or_0", 0),
    "setpriority": ("which", 0),  # PRIO_PROCESS, then who
    "ioprio_set": ("which", 1),  # IOPRIO_WHO_PROCESS, then who
    "fcntl": ("cmd", (8, 15)),  # F_SETOWN, F_SETOWN_EX
    # FIOSETOWN, SIOCSPGRP, and the metadata ioctls (_METADATA_IOCTLS).
    "ioctl": ("cmd", (0x8901, 0x8902) + _METADATA_IOCTLS),
}
_CLONE_NEW = 0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_AF_UNIX = 1
# The socket types whose send calls take no address (a datagram's does, to
# any path: AF_UNIX makes SOCK_RAW a datagram socket too).
_SOCK_STREAM, _SOCK_SEQPACKET, _SOCK_TYPE_MASK = 1, 5, 0xF
_EPERM, _ENOSYS, _EAFNOSUPPORT = 1, 38, 97

_LD_W_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_AND = 0x54
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
# seccomp_data: the call's number, its architecture, then six 64-bit
# arguments; a pid, a `which` or a command is the low half of its argument
# (the kernel takes an int).
_NR_AT, _ARCH_AT = 0, 4
_ARG_AT = (16, 24)
# Stand-ins for the child's own pid, filled in by `_with_pid` in the child.
_PID, _MINUS_PID = "pid", "-pid"


def _assemble(program):
    """Classic BPF from (code, k, jt_label, jf_label) rows and "label"
    strings. Returns (code, rows, [(row, sign)]): where the rows whose k is
    the child's pid (sign 1) or its negation (-1) are."""
    labels = {}
    rows = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(rows)
        else:
            rows.append(item)
    out = b""
    holes = []
    for i, (code, k, jt, jf) in enumerate(rows):
        t = labels[jt] - i - 1 if jt else 0
        f = labels[jf] - i - 1 if jf else 0
        if not (0 <= t < 256 and 0 <= f < 256):
            raise OSError(22, "seccomp: jump out of range")
        if k in (_PID, _MINUS_PID):
            holes.append((i, 1 if k == _PID else -1))
            k = 0
        out += struct.pack("=HBBI", code, t, f, k & 0xFFFFFFFF)
    return out, len(rows), holes


def _neighbour_rules():
    """The bodies of NEIGHBOURS' rules (each ends in "allow" or "eperm")."""
    arg0, arg1 = _ARG_AT
    return [
        "n:pid",
        (_LD_W_ABS, arg0, None, None),
        (_JEQ, _PID, "allow", None),
        (_JEQ, 0, "allow", None),
        (_JEQ, _MINUS_PID, "allow", "eperm"),
        "n:self",
        (_LD_W_ABS, arg0, None, None),
        (_JEQ, _PID, "allow", "eperm"),
        "n:self_or_0",
        (_LD_W_ABS, arg0, None, None),
        (_JEQ, 0, "allow", None),
        (_JEQ, _PID, "allow", "eperm"),
        "n:never",
        (_RET, _ERRNO | _EPERM, None, None),
    ] + [
        row
        for name in sorted(NEIGHBOURS)
        for row in _argument_rule(name, arg0, arg1)
    ] + [
        # After every "which" rule: a BPF jump only goes forward.
        "n:who",
        (_LD_W_ABS, arg1, None, None),
        (_JEQ, 0, "allow", None),
        (_JEQ, _PID, "allow", "eperm"),
    ]


def _argument_rule(name, arg0, arg1):
    """The rows of a "which" or "cmd" rule of NEIGHBOURS (none for the others)."""
    rule, value = NEIGHBOURS[name]
    if rule == "which":  # a process (`value`), then who: see "n:who"
        return [_neighbour_label(name), (_LD_W_ABS, arg0, None, None), (_JEQ, value, "n:who", "eperm")]
    if rule == "cmd":
        return (
            [_neighbour_label(name), (_LD_W_ABS, arg1, None, None)]
            + [(_JEQ, c, "eperm", None) for c in value]
            + [(_RET, _ALLOW, None, None)]
        )
    return []


def _neighbour_label(name):
    """Where `name`'s rule starts: its own rows, or a rule's it shares."""
    rule = NEIGHBOURS[name][0]
    return "n:%s:%s" % (rule, name) if rule in ("which", "cmd") else "n:" + rule


def seccomp_program(machine, tier="landlock"):
    """The filter for `machine` (os.uname().machine); None when unknown.
    The landlock tier's refuses everything the module's doc lists; the other
    tiers' only keeps the child off other processes (NEIGHBOURS) and refuses
    the metadata calls (METADATA). Both
    answer ENOSYS to another ABI's calls. Fill the pid in with `_with_pid`."""
    if machine not in _AUDIT_ARCH:
        return None
    col = 0 if machine == "x86_64" else 1
    nr = {name: pair[col] for name, pair in _NR.items()}
    p = [
        (_LD_W_ABS, _ARCH_AT, None, None),
        (_JEQ, _AUDIT_ARCH[machine], "native", "enosys"),
        "native",
        (_LD_W_ABS, _NR_AT, None, None),
    ]
    if machine == "x86_64":
        p.append((_JGE, 0x40000000, "enosys", None))  # the x32 ABI
    for name in sorted(NEIGHBOURS):
        p.append((_JEQ, nr[name], _neighbour_label(name), None))
    for name in METADATA:
        if nr[name] is not None:
            p.append((_JEQ, nr[name], "eperm", None))
    if tier == "landlock":
        p += [
            (_JEQ, nr["socket"], "domain", None),
            (_JEQ, nr["socketpair"], "domain", None),
            (_JEQ, nr["clone"], "clone", None),
            (_JEQ, nr["clone3"], "enosys", None),
        ]
        for name in DENIED:
            p.append((_JEQ, nr[name], "eperm", None))
    p.append((_RET, _ALLOW, None, None))
    p += _neighbour_rules()
    if tier == "landlock":
        p += [
            "domain",
            (_LD_W_ABS, _ARG_AT[0], None, None),  # the address family
            (_JEQ, _AF_UNIX, None, "eafnosupport"),
            (_LD_W_ABS, _ARG_AT[1], None, None),  # the type, with its flags
            (_AND, _SOCK_TYPE_MASK, None, None),
            (_JEQ, _SOCK_STREAM, "allow", None),
            (_JEQ, _SOCK_SEQPACKET, "allow", "eperm"),
            "clone",
            (_LD_W_ABS, _ARG_AT[0], None, None),  # the flags
            (_JSET, _CLONE_NEW, "eperm", "allow"),
            "eafnosupport",
            (_RET, _ERRNO | _EAFNOSUPPORT, None, None),
        ]
    p += [
        "allow",
        (_RET, _ALLOW, None, None),
        "eperm",
        (_RET, _ERRNO | _EPERM, None, None),
        "enosys",
        (_RET, _ERRNO | _ENOSYS, None, None),
    ]
    return _assemble(p)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _seccomp_plan(tier):
    """(architecture, the filter's code, its rows, where the pid goes)."""
    machine = os.uname().machine
    built = seccomp_program(machine, tier)
    if built is None:
        raise OSError(95, "seccomp: no filter for the %s architecture" % machine)
    return (machine,) + built


def _with_pid(code, holes, pid):
    """The filter's code with the child's own pid where it goes."""
    buf = ctypes.create_string_buffer(code, len(code))
    for row, sign in holes:
        struct.pack_into("=I", buf, row * 8 + 4, (sign * pid) & 0xFFFFFFFF)
    return buf


def seccomp(tier="landlock"):
    """Installs the tier's filter for this process; returns the architecture
    it was built for."""
    plan = _PREPARED.get(("seccomp", tier))
    if plan is None:
        plan = _seccomp_plan(tier)
    machine, code, n, holes = plan
    buf = _with_pid(code, holes, os.getpid())
    prog = _SockFprog(n, ctypes.addressof(buf))
    if _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("prctl(PR_SET_NO_NEW_PRIVS)")
    if _prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        _fail("prctl(PR_SET_SECCOMP)")
    return machine


def scope_only():
    """What the bwrap and rlimits tiers put around a child, where the kernel
    allows: a Landlock domain that confines nothing on the filesystem or
    network but keeps the process's hands off everything outside it (ptrace
    of processes outside the domain refused on every ABI, signals and
    abstract UNIX sockets too from ABI 6), then the seccomp filter that
    keeps it off other processes (NEIGHBOURS) and off every file's metadata
    (METADATA). So a child without a uid of
    its own cannot stop, kill, re-limit or renice its supervisor, the zygote,
    another worker or the grader. Best effort: returns what held, e.g.
    {"landlock_abi": 7, "rules": ["ptrace", "signals", "abstract-unix"],
    "seccomp": True}, with "landlock_abi" None without Landlock."""
    global LAST
    plan = _PREPARED.get("scope")
    if plan is None:
        plan = _scope_plan()
    v, rules = None, []
    if plan is not False:
        v, attr, size, rules = plan
        ruleset = _syscall(_NR_CREATE_RULESET, attr, size, _ZERO)
        if ruleset < 0:
            _fail("landlock_create_ruleset")
        try:
            if _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                _fail("prctl(PR_SET_NO_NEW_PRIVS)")
            if _syscall(_NR_RESTRICT_SELF, int(ruleset), _ZERO) != 0:
                _fail("landlock_restrict_self")
        finally:
            os.close(int(ruleset))
    try:
        seccomp("scope")
        filtered = True
    except OSError:
        filtered = False
    LAST = {"landlock_abi": v, "rules": list(rules), "seccomp": filtered}
    return LAST


def _scope_plan():
    """The Landlock part of `scope_only`, worked out once; False without
    Landlock."""
    v = abi()
    if v < 1:
        return False
    # Device nodes cannot be made without CAP_MKNOD anyway: handling them
    # makes a valid ruleset on every ABI and takes nothing away.
    fields = [_MAKE_CHAR | _MAKE_BLOCK]
    scoped = (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if v >= 6 else 0
    if v >= 4:
        fields.append(0)
    if v >= 6:
        fields.append(scoped)
    attr = struct.pack("=%dQ" % len(fields), *fields)
    rules = ("ptrace",) + (("signals", "abstract-unix") if scoped else ())
    return (v, attr, ctypes.c_size_t(len(attr)), rules)


def prepare(tier, read_roots):
    """Works out once, before the zygote forks, what each child's
    `confine` or `scope_only` would otherwise work out again (the kernel's
    ABI, the rulesets' attributes, the seccomp filter): a child then only
    makes the system calls. Best effort: a child works out what is missing."""
    filter_tier = "landlock" if tier == "landlock" else "scope"
    try:
        if tier == "landlock":
            _PREPARED[("landlock", tuple(read_roots))] = _landlock_plan(read_roots)
        else:
            _PREPARED["scope"] = _scope_plan()
        _PREPARED[("seccomp", filter_tier)] = _seccomp_plan(filter_tier)
    except OSError:
        pass


def confine(read_roots, write_root):
    """Landlock then seccomp; returns what held, e.g.
    {"landlock_abi": 7, "rules": ["files", "tcp", "signals", "abstract-unix", "seccomp"]}."""
    global LAST
    v, held = landlock(read_roots, write_root)
    seccomp("landlock")
    LAST = {"landlock_abi": v, "rules": held + ["seccomp"], "seccomp": True}
    return LAST


def metadata_unrefused(folder):
    """Which metadata calls this process may still make: each of METADATA
    and _METADATA_IOCTLS, made raw on `folder` (a folder of this process's
    own uid, where the kernel itself would let every one through) with
    arguments that change nothing if it goes through (the folder's mode,
    owner -1, UTIME_OMIT, the current times, XATTR_REPLACE or removal of a
    name that is not there, a size or pointer the kernel refuses). seccomp
    sees no path, so what is refused here is refused on every file. Returns
    "<call>: <what it answered>" for each one not refused with EPERM (the
    filter's answer), empty when all were."""
    machine = os.uname().machine
    if machine not in _AUDIT_ARCH:
        return ["no filter for the %s architecture" % machine]
    col = 0 if machine == "x86_64" else 1
    st = os.stat(folder)
    path = os.fsencode(folder)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    L = ctypes.c_long
    at, mode, none = L(-100), L(stat.S_IMODE(st.st_mode)), L(-1)  # AT_FDCWD
    sec, usec = int(st.st_mtime), st.st_mtime_ns // 1000 % 1000000
    utimbuf = struct.pack("=qq", sec, sec)
    timevals = struct.pack("=qqqq", sec, usec, sec, usec)
    omit = struct.pack("=qqqq", 0, (1 << 30) - 2, 0, (1 << 30) - 2)  # UTIME_OMIT
    name, replace = b"user.autograder-self-test", L(2)  # XATTR_REPLACE
    calls = {
        "chmod": (path, mode),
        "fchmod": (L(fd), mode),
        "fchmodat": (at, path, mode),
        "fchmodat2": (at, path, mode, L(0)),
        "chown": (path, none, none),
        "fchown": (L(fd), none, none),
        "lchown": (path, none, none),
        "fchownat": (at, path, none, none, L(0)),
        "utime": (path, utimbuf),
        "utimes": (path, timevals),
        "futimesat": (at, path, timevals),
        "utimensat": (at, path, omit, L(0)),
        "setxattr": (path, name, None, L(0), replace),
        "lsetxattr": (path, name, None, L(0), replace),
        "fsetxattr": (L(fd), name, None, L(0), replace),
        "setxattrat": (at, path, L(0), name, None, L(0)),  # size 0: EINVAL
        "removexattr": (path, name),
        "lremovexattr": (path, name),
        "fremovexattr": (L(fd), name),
        "removexattrat": (at, path, L(0), name),
        "file_setattr": (at, path, None, L(0), L(0)),  # size 0: EINVAL
    }
    tried = [(call, _NR[call][col], args) for call, args in calls.items()]
    tried += [
        ("ioctl %#x" % cmd, _NR["ioctl"][col], (L(fd), ctypes.c_ulong(cmd), None))  # NULL: EFAULT
        for cmd in _METADATA_IOCTLS
    ]
    wrong = []
    try:
        for call, nr, args in tried:
            if nr is None:
                continue
            if _syscall(nr, *args) >= 0:
                wrong.append("%s: went through" % call)
            elif ctypes.get_errno() != _EPERM:
                wrong.append("%s: %s" % (call, os.strerror(ctypes.get_errno())))
    finally:
        os.close(fd)
    return wrong


LAST = None  # what the last confine() or scope_only() put in place (the self-test reports it)
_PREPARED = {}  # see prepare
_ZERO = ctypes.c_uint32(0)
