//! bubblewrap: where it is, the sandbox it makes, and whether it works here.

use super::python::{on_path, Python, PYTHON_FLAGS};
use super::{is_root, output_within};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Size of the sandbox's /tmp (bwrap), where scratch folders live.
pub const TMPFS_BYTES: u64 = 256 * 1024 * 1024;

/// Why bubblewrap does not work here (kept per interpreter: the self-test
/// runs once per process).
#[derive(Clone, Debug, thiserror::Error)]
pub enum BwrapError {
    #[error("bwrap is not installed")]
    NotInstalled,
    #[error("cannot run {}", bwrap.display())]
    CannotRun {
        bwrap: PathBuf,
        #[source]
        source: Arc<std::io::Error>,
    },
    #[error("{} failed its self-test ({status}): {detail}", bwrap.display())]
    SelfTestFailed {
        bwrap: PathBuf,
        status: ExitStatus,
        detail: String,
    },
}

/// Python source that raises unless it runs in a sandbox with no network
/// and without the host's /etc: run on its own by [`bwrap_self_test`], and
/// by a harness started in bwrap as it starts (its first line, see
/// `harness/harness.py`). `_socket`, built in: `socket` would import enum,
/// selectors and more.
pub const BWRAP_CHECK: &str = "import os, _socket\n\
    s = _socket.socket()\n\
    s.settimeout(0.5)\n\
    try:\n    s.connect(('10.255.255.1', 9))\n    raise SystemExit(3)\n\
    except OSError:\n    pass\n\
    assert not os.path.exists('/etc/passwd')\n";

/// bubblewrap: the first `bwrap` on PATH, else the usual places.
pub(super) fn find_bwrap() -> Option<PathBuf> {
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
pub fn bwrap_self_test(python: &Python) -> Result<(), BwrapError> {
    static RESULTS: Mutex<Vec<(PathBuf, Result<(), BwrapError>)>> = Mutex::new(Vec::new());
    let mut results = RESULTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, r)) = results.iter().find(|(p, _)| *p == python.executable) {
        return r.clone();
    }
    let result = run_bwrap_self_test(python);
    results.push((python.executable.clone(), result.clone()));
    result
}

fn run_bwrap_self_test(python: &Python) -> Result<(), BwrapError> {
    let bwrap = find_bwrap().ok_or(BwrapError::NotInstalled)?;
    let mut cmd = bwrap_command(&bwrap, python);
    cmd.arg("-c").arg(BWRAP_CHECK);
    cmd.stdin(std::process::Stdio::null());
    let out = output_within(cmd, Duration::from_secs(30)).map_err(|e| BwrapError::CannotRun {
        bwrap: bwrap.clone(),
        source: Arc::new(e),
    })?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let detail = match err.trim() {
        "" => "it printed nothing".to_string(),
        text => text.lines().last().unwrap_or(text).to_string(),
    };
    Err(BwrapError::SelfTestFailed {
        bwrap,
        status: out.status,
        detail,
    })
}

/// `bwrap ... <python> -s -S`, ready for `-c <program>`.
pub(super) fn bwrap_command(bwrap: &Path, python: &Python) -> Command {
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
