//! What can go wrong setting up a worker's sandbox.

use super::Isolation;
use std::path::PathBuf;
use std::sync::Arc;

/// The sandbox could not be set up, or did not hold what its tier promises.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("bwrap is no longer installed")]
    NoBwrap,
    #[error("cannot start the harness with {}", python.display())]
    Spawn {
        python: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The harness's self-test failed (`error`, its words); as a worker uid,
    /// the interpreter must be readable by that uid.
    #[error("the sandbox self-test failed: {error}{}", uid_hint(*uid, python))]
    SelfTestFailed {
        error: String,
        uid: Option<u32>,
        python: PathBuf,
    },
    /// The self-test ran, but did not prove what `tier` must (see
    /// [`super::tier`]).
    #[error("{why}")]
    NotHeld {
        tier: Isolation,
        why: super::tier::NotHeld,
    },
    #[error("{} exists but is not a root-owned folder", .0.display())]
    UidDirNotRootOwned(PathBuf),
    #[error("cannot create {}", path.display())]
    UidDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no free uid in {first}..{end}")]
    NoFreeUid { first: u32, end: u32 },
    #[error("cannot create a scratch folder")]
    Scratch(#[source] std::io::Error),
    #[error("cannot open {} to workers", path.display())]
    ScratchMode {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A worker thread's uid lease failed (the same error for each of its jobs).
    #[error(transparent)]
    Lease(Arc<SandboxError>),
}

fn uid_hint(uid: Option<u32>, python: &std::path::Path) -> String {
    match uid {
        Some(uid) => format!(
            " (the worker uid {uid} must be able to read {} and its library: install \
             Python where every user can read it, e.g. under /usr or /opt)",
            python.display()
        ),
        None => String::new(),
    }
}
