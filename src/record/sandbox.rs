//! The sandbox around the harness: which isolation this machine offers, the
//! unprivileged uid each worker runs student code as, and the command line
//! that starts a worker's pre-forked harness.

use super::RecordError;
use std::fs::File;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The interpreter student code runs on: the system Python, readable by an
/// unprivileged uid (a pyenv Python under /root is not).
pub const PYTHON: &str = "/usr/bin/python3";
/// Arguments that make runs deterministic and independent of user site dirs
/// (`-I` would ignore PYTHONHASHSEED).
pub const PYTHON_FLAGS: &[&str] = &["-s", "-P", "-S"];
/// First uid handed to workers when running as root.
pub const FIRST_UID: u32 = 62000;
/// How many uids may be handed out at once (over all concurrent runs).
pub const UID_RANGE: u32 = 2000;
/// Size of the sandbox's /tmp (bwrap), where scratch folders live.
pub const TMPFS_BYTES: u64 = 256 * 1024 * 1024;

/// The isolation student code actually ran under; recorded in every recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// bubblewrap namespaces (no network, no view of the host's files or
    /// processes) on top of everything `Rlimits` does.
    Bwrap,
    /// rlimits, scratch folder, cleared environment, own uid (when root),
    /// whole-tree kill; the host's world-readable files stay readable.
    Rlimits,
}

impl Isolation {
    /// The name stored in recordings.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Bwrap => "bwrap",
            Isolation::Rlimits => "rlimits",
        }
    }
}

/// What the caller asks for (`--isolation`, `AUTOGRADER_ISOLATION`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum IsolationChoice {
    /// bubblewrap when it is installed and passes a self-test, else rlimits.
    #[default]
    Auto,
    /// bubblewrap or fail.
    Bwrap,
    /// Force the fallback (tests use this to cover both paths).
    Rlimits,
}

impl std::str::FromStr for IsolationChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" | "" => Ok(IsolationChoice::Auto),
            "bwrap" => Ok(IsolationChoice::Bwrap),
            "rlimits" => Ok(IsolationChoice::Rlimits),
            other => Err(format!(
                "unknown isolation {other:?} (expected auto, bwrap or rlimits)"
            )),
        }
    }
}

impl IsolationChoice {
    /// Reads `AUTOGRADER_ISOLATION` (unset means auto).
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("AUTOGRADER_ISOLATION") {
            Ok(v) => v.parse(),
            Err(_) => Ok(IsolationChoice::Auto),
        }
    }

    /// The isolation to use on this machine.
    pub fn resolve(&self) -> Result<Isolation, RecordError> {
        match self {
            IsolationChoice::Rlimits => Ok(Isolation::Rlimits),
            IsolationChoice::Auto => Ok(if bwrap_self_test().is_ok() {
                Isolation::Bwrap
            } else {
                Isolation::Rlimits
            }),
            IsolationChoice::Bwrap => bwrap_self_test()
                .map(|_| Isolation::Bwrap)
                .map_err(|e| RecordError::Sandbox(format!("bubblewrap is not usable: {e}"))),
        }
    }
}

/// Whether this process runs as root (and so can give workers their own uid).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn find_bwrap() -> Option<PathBuf> {
    ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// Runs a tiny Python inside the exact bwrap sandbox workers use, once per
/// process, and checks it sees no network and no /work.
pub fn bwrap_self_test() -> Result<(), String> {
    static RESULT: OnceLock<Result<(), String>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            let bwrap = find_bwrap().ok_or("bwrap is not installed")?;
            let probe = "import os, socket\n\
                         s = socket.socket()\n\
                         s.settimeout(0.5)\n\
                         try:\n    s.connect(('10.255.255.1', 9))\n    raise SystemExit(3)\n\
                         except OSError:\n    pass\n\
                         assert not os.path.exists('/root') or not os.listdir('/root')\n";
            let mut cmd = bwrap_command(&bwrap);
            cmd.arg("-c").arg(probe);
            cmd.stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            let out = cmd.output().map_err(|e| format!("cannot run bwrap: {e}"))?;
            if out.status.success() {
                Ok(())
            } else {
                let err = String::from_utf8_lossy(&out.stderr);
                Err(format!(
                    "the bwrap self-test failed ({}): {}",
                    out.status,
                    err.trim()
                ))
            }
        })
        .clone()
}

/// `bwrap ... /usr/bin/python3 -s -P -S`, ready for `-c <program>`.
fn bwrap_command(bwrap: &Path) -> Command {
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
    .args(["--tmpfs", "/tmp", "--chdir", "/tmp", PYTHON]);
    cmd.args(PYTHON_FLAGS);
    cmd
}

/// The command that starts a worker's harness, and where its scratch lives
/// as the harness sees it.
pub fn harness_command(isolation: Isolation, scratch: &Path) -> (Command, PathBuf) {
    match isolation {
        Isolation::Bwrap => {
            // find_bwrap succeeded in the self-test that chose Bwrap.
            let bwrap = find_bwrap().unwrap_or_else(|| PathBuf::from("bwrap"));
            let mut cmd = bwrap_command(&bwrap);
            die_with_parent(&mut cmd, false);
            (cmd, PathBuf::from("/tmp"))
        }
        Isolation::Rlimits => {
            let mut cmd = Command::new(PYTHON);
            cmd.args(PYTHON_FLAGS)
                .env_clear()
                .env("PYTHONHASHSEED", "0")
                .current_dir(scratch);
            die_with_parent(&mut cmd, is_root());
            (cmd, scratch.to_path_buf())
        }
    }
}

/// The harness dies with us, can never gain privileges through exec, and (as
/// root, rlimits mode) gets network and IPC namespaces of its own when the
/// kernel allows it.
fn die_with_parent(cmd: &mut Command, unshare_net: bool) {
    // SAFETY: the closure only calls async-signal-safe libc functions.
    unsafe {
        cmd.pre_exec(move || {
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
pub fn lease_uid() -> Result<Option<UidLease>, RecordError> {
    if !is_root() {
        return Ok(None);
    }
    let dir = Path::new("/tmp/autograder-uids");
    let sandbox = |why: String| RecordError::Sandbox(why);
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() && m.uid() == 0 => {}
        Ok(_) => {
            return Err(sandbox(format!(
                "{} exists but is not a root-owned folder",
                dir.display()
            )))
        }
        Err(_) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| sandbox(format!("cannot create {}: {e}", dir.display())))?;
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
    Err(sandbox(format!(
        "no free uid in {FIRST_UID}..{}",
        FIRST_UID + UID_RANGE
    )))
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
    pub fn create(uid: Option<u32>) -> Result<Scratch, RecordError> {
        let dir = tempfile::Builder::new()
            .prefix("autograder-scratch-")
            .tempdir()
            .map_err(|e| RecordError::Sandbox(format!("cannot create a scratch folder: {e}")))?;
        let path = dir.keep();
        if uid.is_some() {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o711)).map_err(
                |e| RecordError::Sandbox(format!("cannot open {} to workers: {e}", path.display())),
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
