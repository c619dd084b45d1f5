//! The unprivileged uid each worker runs student code as (when root), and
//! its scratch folder on the host.

use super::is_root;
use super::SandboxError;
use std::fs::File;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// First uid handed to workers when running as root.
pub const FIRST_UID: u32 = 62000;
/// How many uids may be handed out at once (over all concurrent runs).
pub const UID_RANGE: u32 = 2000;
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
    /// A new scratch folder; `leased`: student code runs as a uid of its
    /// own, which must be able to traverse it.
    pub fn create(leased: bool) -> Result<Scratch, SandboxError> {
        let dir = tempfile::Builder::new()
            .prefix("autograder-scratch-")
            .tempdir()
            .map_err(SandboxError::Scratch)?;
        let path = dir.keep();
        if leased {
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
