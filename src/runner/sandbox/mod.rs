//! The sandbox around the harness: which isolation this machine offers, the
//! unprivileged uid each worker runs student code as, and the command line
//! that starts a worker's pre-forked harness. Each tier's facts (its name,
//! its scratch folder, what its self-test must prove) are in [`tier`].

pub mod tier;

use super::SandboxError;
use std::fs::File;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

/// The interpreter asked for when neither `--python` nor `AUTOGRADER_PYTHON`
/// names one (then `python3` on PATH).
pub const DEFAULT_PYTHON: &str = "/usr/bin/python3";
/// The oldest CPython the harness runs on (Ubuntu 20.04's).
pub const MIN_PYTHON: (u32, u32) = (3, 8);
/// Arguments that make runs deterministic and independent of user site dirs
/// (`-I` would ignore PYTHONHASHSEED; `-P` exists only from 3.11, so the
/// harness drops the start folder from `sys.path` itself).
pub const PYTHON_FLAGS: &[&str] = &["-s", "-S"];
/// First uid handed to workers when running as root.
pub const FIRST_UID: u32 = 62000;
/// How many uids may be handed out at once (over all concurrent runs).
pub const UID_RANGE: u32 = 2000;
/// Size of the sandbox's /tmp (bwrap), where scratch folders live.
pub const TMPFS_BYTES: u64 = 256 * 1024 * 1024;

/// The CPython that runs the harness, as probed before anything is recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Python {
    /// The interpreter as asked for (for messages).
    pub requested: PathBuf,
    /// The file executed: the real interpreter behind a symlink, a venv or a
    /// version manager's shim.
    pub executable: PathBuf,
    /// `major.minor.micro`.
    pub version: String,
    /// Folders the interpreter reads from (its prefixes and its executable's
    /// folder): bound into bwrap, readable under landlock.
    pub roots: Vec<PathBuf>,
}

impl Python {
    /// The interpreter `--python` (or `AUTOGRADER_PYTHON`) names, else
    /// `/usr/bin/python3`, else `python3` on PATH; refused unless it is
    /// CPython 3.8 or newer. Errors say what was tried and what to do.
    pub fn find(requested: Option<&Path>) -> Result<Python, String> {
        let path = match requested {
            Some(p) if p.as_os_str().is_empty() => return Err("--python is empty".into()),
            Some(p) if p.components().count() == 1 && !p.is_absolute() => on_path(p)
                .ok_or_else(|| format!("--python {}: no such program on PATH", p.display()))?,
            Some(p) => std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()),
            None if Path::new(DEFAULT_PYTHON).exists() => PathBuf::from(DEFAULT_PYTHON),
            None => on_path(Path::new("python3")).ok_or_else(|| {
                format!(
                    "no Python found: {DEFAULT_PYTHON} does not exist and there is no python3 on \
                     PATH; install CPython {}.{} or newer, or pass --python PATH",
                    MIN_PYTHON.0, MIN_PYTHON.1
                )
            })?,
        };
        Python::probe(&path)
    }

    fn probe(path: &Path) -> Result<Python, String> {
        const PROBE: &str = "import json, os, platform, sys\n\
            r = lambda p: os.path.realpath(p) if p else ''\n\
            print(json.dumps({'impl': platform.python_implementation(),\n\
              'version': list(sys.version_info[:3]), 'executable': r(sys.executable),\n\
              'roots': [r(getattr(sys, k, '')) for k in ('prefix', 'base_prefix', 'exec_prefix', 'base_exec_prefix')]\n\
                       + [os.path.dirname(r(sys.executable))]}))\n";
        let fix = format!(
            "pass --python PATH (or set AUTOGRADER_PYTHON) to a CPython {}.{} or newer",
            MIN_PYTHON.0, MIN_PYTHON.1
        );
        let mut cmd = Command::new(path);
        cmd.args(["-E", "-s", "-S", "-c", PROBE])
            .env_clear()
            .stdin(std::process::Stdio::null());
        let out = output_within(cmd, Duration::from_secs(30))
            .map_err(|e| format!("cannot run {}: {e}; {fix}", path.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        #[derive(serde::Deserialize)]
        struct Probe {
            #[serde(rename = "impl")]
            implementation: String,
            version: Vec<u32>,
            executable: String,
            roots: Vec<String>,
        }
        let probe: Probe = match (out.status.success(), serde_json::from_str(text.trim())) {
            (true, Ok(p)) => p,
            _ => {
                let err = String::from_utf8_lossy(&out.stderr);
                let last = err.trim().lines().last().unwrap_or("it printed nothing");
                return Err(format!(
                    "{} does not work as a Python interpreter ({}: {last}); {fix}",
                    path.display(),
                    out.status
                ));
            }
        };
        let version = probe
            .version
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".");
        let too_old = (probe.version.first(), probe.version.get(1))
            < (Some(&MIN_PYTHON.0), Some(&MIN_PYTHON.1));
        if probe.implementation != "CPython" || too_old {
            return Err(format!(
                "{} is {} {version}; the harness needs CPython {}.{} or newer; {fix}",
                path.display(),
                probe.implementation,
                MIN_PYTHON.0,
                MIN_PYTHON.1
            ));
        }
        let executable = if probe.executable.is_empty() {
            path.to_path_buf()
        } else {
            PathBuf::from(probe.executable)
        };
        let mut roots: Vec<PathBuf> = Vec::new();
        for root in probe.roots.into_iter().filter(|r| !r.is_empty()) {
            let root = PathBuf::from(root);
            if root != Path::new("/") && !roots.contains(&root) {
                roots.push(root);
            }
        }
        Ok(Python {
            requested: path.to_path_buf(),
            executable,
            version,
            roots,
        })
    }

    /// `CPython 3.10.13`, as reports show it.
    pub fn label(&self) -> String {
        format!("CPython {}", self.version)
    }
}

/// The first `name` on PATH that is a file.
fn on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Runs `cmd` to completion, killing it after `limit`.
fn output_within(mut cmd: Command, limit: Duration) -> std::io::Result<std::process::Output> {
    use std::process::Stdio;
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out,
        Err(_) => {
            // SAFETY: kill on a pid we spawned and have not reaped.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("it did not answer within {} s", limit.as_secs()),
            ))
        }
    }
}

/// The tier student code actually ran under; recorded in every recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// bubblewrap namespaces (no network, no view of the host's files or
    /// processes) on top of everything `Rlimits` does.
    Bwrap,
    /// A Landlock domain and a seccomp filter per submission (files beyond
    /// the interpreter and the submission's folder, TCP, signals out of the
    /// domain and non-UNIX sockets refused) on top of everything `Rlimits`
    /// does; needs no privilege, so it works in containers.
    Landlock,
    /// rlimits, scratch folder, cleared environment, own uid (when root),
    /// whole-tree kill; the host's world-readable files stay readable.
    Rlimits,
}

/// What the caller asks for (`--isolation`, `AUTOGRADER_ISOLATION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum IsolationChoice {
    /// bwrap when it starts here, else landlock when the kernel has it, else
    /// stop: the weaker rlimits tier runs only when asked for by name.
    #[default]
    Auto,
    /// bubblewrap or stop.
    Bwrap,
    /// Landlock + seccomp or stop.
    Landlock,
    /// rlimits only: host files readable, network reachable.
    Rlimits,
}

/// A name that is no [`IsolationChoice`].
#[derive(Clone, Debug, thiserror::Error)]
#[error("unknown isolation {given:?} (expected auto, bwrap, landlock or rlimits)")]
pub struct UnknownIsolation {
    pub given: String,
}

impl std::str::FromStr for IsolationChoice {
    type Err = UnknownIsolation;
    fn from_str(s: &str) -> Result<Self, UnknownIsolation> {
        IsolationChoice::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| UnknownIsolation { given: s.into() })
    }
}

impl IsolationChoice {
    /// Every choice, as `--isolation` lists them.
    pub const ALL: [IsolationChoice; 4] = [
        IsolationChoice::Auto,
        IsolationChoice::Bwrap,
        IsolationChoice::Landlock,
        IsolationChoice::Rlimits,
    ];

    /// The name `--isolation` and `AUTOGRADER_ISOLATION` take.
    pub fn name(self) -> &'static str {
        match self {
            IsolationChoice::Auto => "auto",
            IsolationChoice::Bwrap => "bwrap",
            IsolationChoice::Landlock => "landlock",
            IsolationChoice::Rlimits => "rlimits",
        }
    }

    /// Reads `AUTOGRADER_ISOLATION` (unset means auto).
    pub fn from_env() -> Result<Self, UnknownIsolation> {
        match std::env::var("AUTOGRADER_ISOLATION") {
            Ok(v) => v.parse(),
            Err(_) => Ok(IsolationChoice::Auto),
        }
    }

    /// The tier to use on this machine with `python`, and what the run must
    /// say about the choice (a fallback, a weaker tier asked for).
    pub fn resolve(self, python: &Python) -> Result<(Isolation, Vec<String>), String> {
        let weak = "the rlimits tier was asked for: student code can read the host's \
                    world-readable files (the corpus among them) and reach the network";
        match self {
            IsolationChoice::Rlimits => Ok((Isolation::Rlimits, vec![weak.to_string()])),
            IsolationChoice::Bwrap => bwrap_self_test(python)
                .map(|()| (Isolation::Bwrap, Vec::new()))
                .map_err(|e| format!("bubblewrap is not usable here: {e}")),
            IsolationChoice::Landlock => landlock_abi()
                .map(|_| (Isolation::Landlock, Vec::new()))
                .map_err(|e| format!("Landlock is not usable here: {e}")),
            IsolationChoice::Auto => match bwrap_self_test(python) {
                Ok(()) => Ok((Isolation::Bwrap, Vec::new())),
                Err(bwrap) => match landlock_abi() {
                    Ok(_) => Ok((
                        Isolation::Landlock,
                        vec![format!(
                            "bubblewrap is not usable here ({bwrap}); using landlock"
                        )],
                    )),
                    Err(landlock) => Err(format!(
                        "no sandbox tier works here: bubblewrap: {bwrap}; landlock: {landlock}. \
                         Allow user namespaces for bubblewrap, run on Linux 5.13 or newer with \
                         Landlock enabled, or pass --isolation rlimits to accept the weaker tier"
                    )),
                },
            },
        }
    }
}

/// The kernel's Landlock ABI version, or why there is none.
pub fn landlock_abi() -> Result<u32, String> {
    const CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute, size 0 and the VERSION flag the call
    // only returns the ABI version; it reads and writes no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if v >= 1 {
        Ok(v as u32)
    } else {
        let e = std::io::Error::last_os_error();
        Err(match e.raw_os_error() {
            Some(libc::ENOSYS) => "the kernel has no Landlock (Linux 5.13 or newer needed)".into(),
            Some(libc::EOPNOTSUPP) => {
                "Landlock is disabled in this kernel (boot option lsm=)".into()
            }
            Some(libc::EPERM) => {
                "the Landlock calls are refused (a container's seccomp profile?)".into()
            }
            _ => format!("landlock_create_ruleset: {e}"),
        })
    }
}

/// Whether this process runs as root (and so can give workers their own uid).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// bubblewrap: the first `bwrap` on PATH, else the usual places.
fn find_bwrap() -> Option<PathBuf> {
    on_path(Path::new("bwrap")).or_else(|| {
        ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
    })
}

/// Runs a tiny Python inside the exact bwrap sandbox workers use (once per
/// interpreter and process) and checks it sees no network and not the
/// host's /etc.
pub fn bwrap_self_test(python: &Python) -> Result<(), String> {
    static RESULTS: Mutex<Vec<(PathBuf, Result<(), String>)>> = Mutex::new(Vec::new());
    let mut results = RESULTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, r)) = results.iter().find(|(p, _)| *p == python.executable) {
        return r.clone();
    }
    let result = run_bwrap_self_test(python);
    results.push((python.executable.clone(), result.clone()));
    result
}

fn run_bwrap_self_test(python: &Python) -> Result<(), String> {
    let bwrap = find_bwrap().ok_or("bwrap is not installed")?;
    let probe = "import os, socket\n\
                 s = socket.socket()\n\
                 s.settimeout(0.5)\n\
                 try:\n    s.connect(('10.255.255.1', 9))\n    raise SystemExit(3)\n\
                 except OSError:\n    pass\n\
                 assert not os.path.exists('/etc/passwd')\n";
    let mut cmd = bwrap_command(&bwrap, python);
    cmd.arg("-c").arg(probe);
    cmd.stdin(std::process::Stdio::null());
    let out = output_within(cmd, Duration::from_secs(30))
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let detail = match err.trim() {
        "" => "it printed nothing".to_string(),
        text => text.lines().last().unwrap_or(text).to_string(),
    };
    Err(format!(
        "{} failed its self-test ({}): {detail}",
        bwrap.display(),
        out.status
    ))
}

/// `bwrap ... <python> -s -S`, ready for `-c <program>`.
fn bwrap_command(bwrap: &Path, python: &Python) -> Command {
    let mut cmd = Command::new(bwrap);
    cmd.env_clear();
    cmd.args([
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv",
        "PYTHONHASHSEED",
        "0",
        "--hostname",
        "sandbox",
    ]);
    if is_root() {
        // The zygote keeps only what it needs to drop its children to the
        // worker uid and to kill them; the children keep nothing.
        cmd.args(["--cap-drop", "ALL"]);
        for cap in ["CAP_SETUID", "CAP_SETGID", "CAP_KILL"] {
            cmd.args(["--cap-add", cap]);
        }
    } else {
        cmd.arg("--unshare-user");
    }
    cmd.args(["--ro-bind", "/usr", "/usr"]);
    for top in ["/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin"] {
        let p = Path::new(top);
        match std::fs::read_link(p) {
            Ok(target) => {
                cmd.arg("--symlink").arg(target).arg(top);
            }
            Err(_) if p.is_dir() => {
                cmd.args(["--ro-bind", top, top]);
            }
            Err(_) => {}
        }
    }
    // An interpreter outside /usr (pyenv, /opt): only its own folders. bwrap
    // makes the folders above them itself, so a 0700 /root on the host does
    // not stop the worker uid.
    let mut made: Vec<&Path> = Vec::new();
    for root in &python.roots {
        if root.starts_with("/usr") || !root.is_dir() {
            continue;
        }
        // bwrap would make the folders above it 0700 (root's).
        let mut above: Vec<&Path> = root.ancestors().skip(1).collect();
        above.reverse();
        for dir in above.into_iter().filter(|d| d.parent().is_some()) {
            if !made.contains(&dir) {
                made.push(dir);
                cmd.args(["--perms", "0755", "--dir"]).arg(dir);
            }
        }
        cmd.arg("--ro-bind").arg(root).arg(root);
    }
    cmd.args([
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        // POSIX message queues listed where the reaper removes leftovers.
        "--mqueue",
        "/dev/mqueue",
        "--perms",
        "01777",
        "--size",
    ])
    .arg(TMPFS_BYTES.to_string())
    .args(["--tmpfs", "/tmp", "--chdir", "/tmp"])
    .arg(&python.executable);
    cmd.args(PYTHON_FLAGS);
    cmd
}

/// The command that starts a worker's harness, and where its scratch lives
/// as the harness sees it.
pub fn harness_command(
    isolation: Isolation,
    scratch: &Path,
    python: &Python,
    cgroup: Option<&std::ffi::CString>,
) -> Result<(Command, PathBuf), SandboxError> {
    match isolation {
        Isolation::Bwrap => {
            let bwrap = find_bwrap().ok_or(SandboxError::NoBwrap)?;
            let mut cmd = bwrap_command(&bwrap, python);
            die_with_parent(&mut cmd, false, cgroup.cloned());
            Ok((cmd, PathBuf::from("/tmp")))
        }
        Isolation::Landlock | Isolation::Rlimits => {
            let mut cmd = Command::new(&python.executable);
            cmd.args(PYTHON_FLAGS)
                .env_clear()
                .env("PYTHONHASHSEED", "0")
                .current_dir(scratch);
            die_with_parent(&mut cmd, is_root(), cgroup.cloned());
            Ok((cmd, scratch.to_path_buf()))
        }
    }
}

/// The harness dies with us, can never gain privileges through exec, and (as
/// root, rlimits mode) gets network and IPC namespaces of its own when the
/// kernel allows it.
fn die_with_parent(cmd: &mut Command, unshare_net: bool, cgroup: Option<std::ffi::CString>) {
    // SAFETY: the closure only calls async-signal-safe libc functions.
    unsafe {
        cmd.pre_exec(move || {
            crate::runner::cgroup::enter(cgroup.as_ref());
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            // No exec of a setuid binary ever gains privileges (bwrap sets it too).
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            if unshare_net {
                // Best effort: without them the fallback has the host's
                // network and IPC objects (System V, POSIX queues).
                libc::unshare(libc::CLONE_NEWNET);
                libc::unshare(libc::CLONE_NEWIPC);
            }
            Ok(())
        });
    }
}

/// An unprivileged uid held for this worker's lifetime (an exclusive lock
/// file per uid), so concurrent workers and runs never share one: the uid is
/// what the reaper kills by and what RLIMIT_NPROC counts.
#[derive(Debug)]
pub struct UidLease {
    pub uid: u32,
    _lock: File,
}

/// A uid for a worker when running as root; `None` otherwise.
pub fn lease_uid() -> Result<Option<UidLease>, SandboxError> {
    if !is_root() {
        return Ok(None);
    }
    let dir = Path::new("/tmp/autograder-uids");
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() && m.uid() == 0 => {}
        Ok(_) => return Err(SandboxError::UidDirNotRootOwned(dir.to_path_buf())),
        Err(_) => {
            std::fs::create_dir_all(dir).map_err(|source| SandboxError::UidDir {
                path: dir.to_path_buf(),
                source,
            })?;
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        }
    }
    let taken = passwd_uids();
    for uid in FIRST_UID..FIRST_UID + UID_RANGE {
        if taken.contains(&uid) || has_account(uid) {
            continue;
        }
        let path = dir.join(format!("{uid}.lock"));
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
        else {
            continue;
        };
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a file descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(Some(UidLease { uid, _lock: file }));
        }
    }
    Err(SandboxError::NoFreeUid {
        first: FIRST_UID,
        end: FIRST_UID + UID_RANGE,
    })
}

/// Whether the name service knows `uid` (accounts not in /etc/passwd:
/// systemd's DynamicUser range 61184-65519 overlaps ours, LDAP): the
/// reaper kills and deletes by uid, so such a uid is never handed out.
fn has_account(uid: u32) -> bool {
    let mut pwd = std::mem::MaybeUninit::<libc::passwd>::uninit();
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call, with the buffer's length.
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            pwd.as_mut_ptr(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut found,
        )
    };
    // ERANGE (an entry larger than 16 KiB) still means an account.
    (rc == 0 && !found.is_null()) || rc == libc::ERANGE
}

/// uids of the machine's real accounts, never handed to a worker.
fn passwd_uids() -> Vec<u32> {
    std::fs::read_to_string("/etc/passwd")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split(':').nth(2)?.parse().ok())
        .collect()
}

/// A worker's scratch root on the host (rlimits mode), removed on drop. With a
/// worker uid it stays root's (mode 0711): the supervisor makes each
/// submission's folder in it for that uid, and student code cannot open the
/// root to other workers' uids.
#[derive(Debug)]
pub struct Scratch {
    pub path: PathBuf,
}

impl Scratch {
    pub fn create(uid: Option<u32>) -> Result<Scratch, SandboxError> {
        let dir = tempfile::Builder::new()
            .prefix("autograder-scratch-")
            .tempdir()
            .map_err(SandboxError::Scratch)?;
        let path = dir.keep();
        if uid.is_some() {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o711)).map_err(
                |source| SandboxError::ScratchMode {
                    path: path.clone(),
                    source,
                },
            )?;
        }
        Ok(Scratch { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn accounts_the_name_service_knows_are_never_leased() {
        // root always resolves; 62000 is a worker uid here unless an account
        // claims it, which /etc/passwd would also say.
        assert!(super::has_account(0));
        let in_passwd = super::passwd_uids().contains(&super::FIRST_UID);
        assert_eq!(super::has_account(super::FIRST_UID), in_passwd);
    }
}
