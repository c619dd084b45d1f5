//! The sandbox around the harness: which isolation this machine offers
//! ([`IsolationChoice::resolve`]), the interpreter ([`python`]), bubblewrap
//! ([`bwrap`]), the unprivileged uid and scratch folder each worker runs
//! student code with ([`uid`]), and the command line that starts a
//! worker's pre-forked harness ([`command`]). Each tier's facts (its name,
//! its scratch folder, what its self-test must prove) are in [`tier`].

pub mod bwrap;
pub mod command;
mod error;
pub mod python;
pub mod tier;
pub mod uid;

pub use bwrap::{bwrap_self_test, BwrapError, BWRAP_CHECK, TMPFS_BYTES};
pub use command::{harness_command, Handed};
pub use error::SandboxError;
pub use python::{Facts, Python, PythonError, DEFAULT_PYTHON, MIN_PYTHON, PROBE, PYTHON_FLAGS};
pub use uid::{lease_uid, marked_clean, Scratch, UidLease, FIRST_UID, UID_RANGE};

use std::process::Command;
use std::time::Duration;

/// Runs `cmd` to completion, killing it after `limit`.
pub(crate) fn output_within(
    mut cmd: Command,
    limit: Duration,
) -> std::io::Result<std::process::Output> {
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
    pub fn resolve(self, python: &Python) -> Result<(Isolation, Vec<String>), TierError> {
        self.tier(python)
    }

    fn tier(self, python: &Python) -> Result<(Isolation, Vec<String>), TierError> {
        let weak = "the rlimits tier was asked for: student code can read the host's \
                    world-readable files (the corpus among them) and reach the network";
        match self {
            IsolationChoice::Rlimits => Ok((Isolation::Rlimits, vec![weak.to_string()])),
            IsolationChoice::Bwrap => bwrap_self_test(python)
                .map(|()| (Isolation::Bwrap, Vec::new()))
                .map_err(TierError::Bwrap),
            IsolationChoice::Landlock => landlock_abi()
                .map(|_| (Isolation::Landlock, Vec::new()))
                .map_err(TierError::Landlock),
            IsolationChoice::Auto => match bwrap_self_test(python) {
                Ok(()) => Ok((Isolation::Bwrap, Vec::new())),
                Err(bwrap) => match landlock_abi() {
                    Ok(_) => Ok((
                        Isolation::Landlock,
                        vec![format!(
                            "bubblewrap is not usable here ({}); using landlock",
                            crate::errors::chain(&bwrap)
                        )],
                    )),
                    Err(landlock) => Err(TierError::None { bwrap, landlock }),
                },
            },
        }
    }
}

/// Why the tier asked for does not work here.
#[derive(Debug, thiserror::Error)]
pub enum TierError {
    #[error("bubblewrap is not usable here")]
    Bwrap(#[source] BwrapError),
    #[error("Landlock is not usable here")]
    Landlock(#[source] LandlockError),
    /// Neither strong tier works (the causes are shown in the message,
    /// with what to do after them).
    #[error(
        "no sandbox tier works here: bubblewrap: {}; landlock: {}. \
             Allow user namespaces for bubblewrap, run on Linux 5.13 or newer with \
             Landlock enabled, or pass --isolation rlimits to accept the weaker tier",
        crate::errors::chain(bwrap),
        crate::errors::chain(landlock)
    )]
    None {
        bwrap: BwrapError,
        landlock: LandlockError,
    },
}

/// Why this kernel offers no Landlock.
#[derive(Debug, thiserror::Error)]
pub enum LandlockError {
    #[error("the kernel has no Landlock (Linux 5.13 or newer needed)")]
    Missing,
    #[error("Landlock is disabled in this kernel (boot option lsm=)")]
    Disabled,
    #[error("the Landlock calls are refused (a container's seccomp profile?)")]
    Refused,
    #[error("landlock_create_ruleset")]
    Call(#[source] std::io::Error),
}

/// The kernel's Landlock ABI version, or why there is none.
pub fn landlock_abi() -> Result<u32, LandlockError> {
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
            Some(libc::ENOSYS) => LandlockError::Missing,
            Some(libc::EOPNOTSUPP) => LandlockError::Disabled,
            Some(libc::EPERM) => LandlockError::Refused,
            _ => LandlockError::Call(e),
        })
    }
}

/// Whether this process runs as root (and so can give workers their own uid).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}
