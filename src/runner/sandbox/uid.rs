//! The unprivileged uid each worker runs student code as (when root), and
//! its scratch folder on the host.

use super::is_root;
use super::SandboxError;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

/// First uid handed to workers when running as root.
pub const FIRST_UID: u32 = 62000;
/// How many uids may be handed out at once (over all concurrent runs).
pub const UID_RANGE: u32 = 2000;
/// An unprivileged uid held for this worker's lifetime (an exclusive lock
/// file per uid), so concurrent workers and runs never share one: the uid is
/// what the reaper kills by and what RLIMIT_NPROC counts.
///
/// Its lock file (in a folder only root may write) also carries, from one
/// holder to the next, whether the last worker on the uid left nothing of
/// it behind ([`UidLease::take_clean`]): only then may the next skip
/// reaping the uid's leftovers at its start.
#[derive(Debug)]
pub struct UidLease {
    pub uid: u32,
    lock: File,
    /// FOUND_CLEAN, NOT_CLEAN or LEFT_CLEAN.
    clean: AtomicU8,
}

/// The lock file's whole content when its last holder's last worker left
/// nothing of the uid (written as the lease ends, read and removed as the
/// next one begins).
const CLEAN_MARK: &[u8] = b"autograder 1: the last worker on this uid left nothing of it\n";
/// The lock file held the mark when leased (no worker has started since).
const FOUND_CLEAN: u8 = 0;
/// A worker may have left something of the uid.
const NOT_CLEAN: u8 = 1;
/// The last worker started on it ended with nothing of the uid left.
const LEFT_CLEAN: u8 = 2;

impl UidLease {
    /// The lease of `uid` over its lock file `lock`, just locked, in a
    /// folder only root may write when `trusted`: the mark it holds taken.
    fn held(uid: u32, mut lock: File, trusted: bool) -> UidLease {
        let found = match take_mark(&mut lock, trusted) {
            true => FOUND_CLEAN,
            false => NOT_CLEAN,
        };
        UidLease {
            uid,
            lock,
            clean: AtomicU8::new(found),
        }
    }

    /// Whether nothing of the uid is left as a worker starts on it: the
    /// last worker on it (this lease's, or its last holder's) ended with
    /// nothing left. Taken: until this worker too ends so
    /// ([`UidLease::mark_clean`]), it is not.
    pub fn take_clean(&self) -> bool {
        self.clean.swap(NOT_CLEAN, Ordering::SeqCst) != NOT_CLEAN
    }

    /// The worker started last on the uid ended with nothing of it left:
    /// its processes all killed (every one descends from its zygote),
    /// nothing it made outside its scratch folder, which is removed.
    pub fn mark_clean(&self) {
        self.clean.store(LEFT_CLEAN, Ordering::SeqCst);
    }
}

impl Drop for UidLease {
    /// Leaves the mark for the next holder only when this lease's last
    /// worker ended clean (a lease no worker ran on vouches for nothing).
    fn drop(&mut self) {
        if self.clean.load(Ordering::SeqCst) == LEFT_CLEAN {
            let _ = self.lock.write_all(CLEAN_MARK);
        }
    }
}

/// Whether `lock` (just locked, in a folder only root may write: `trusted`)
/// holds the mark; it is removed, so that it never outlives a holder that
/// does not write it again. A mark in a file or folder anyone but root may
/// write, or that cannot be removed, is not trusted.
fn take_mark(lock: &mut File, trusted: bool) -> bool {
    let only_root = lock
        .metadata()
        .is_ok_and(|m| m.uid() == 0 && m.mode() & 0o022 == 0);
    let mut held = Vec::new();
    let read = lock.read_to_end(&mut held).is_ok();
    let removed = lock.set_len(0).is_ok() && lock.rewind().is_ok();
    trusted && only_root && read && removed && held == CLEAN_MARK
}

/// Where the uids' lock files are (a folder only root may write).
const LEASE_DIR: &str = "/tmp/autograder-uids";

/// A uid for a worker when running as root; `None` otherwise.
pub fn lease_uid() -> Result<Option<UidLease>, SandboxError> {
    if !is_root() {
        return Ok(None);
    }
    let dir = Path::new(LEASE_DIR);
    let mut trusted = true;
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() && m.uid() == 0 => trusted = m.mode() & 0o022 == 0,
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
            .read(true)
            .write(true)
            .open(&path)
        else {
            continue;
        };
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a file descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(Some(UidLease::held(uid, file, trusted)));
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

    /// Removes it now, saying whether that worked.
    pub fn remove(mut self) -> std::io::Result<()> {
        let path = std::mem::take(&mut self.path);
        std::fs::remove_dir_all(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Whether the lock file of `uid` holds the mark of a clean end now (read
/// without leasing it: for tests and diagnostics).
pub fn marked_clean(uid: u32) -> bool {
    std::fs::read(Path::new(LEASE_DIR).join(format!("{uid}.lock"))).is_ok_and(|m| m == CLEAN_MARK)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lease over `file` as lease_uid makes it, and whether it found the mark.
    fn lease_over(file: &Path, trusted: bool) -> (UidLease, bool) {
        let lock = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(file)
            .unwrap();
        let lease = UidLease::held(FIRST_UID, lock, trusted);
        let found = lease.clean.load(Ordering::SeqCst) == FOUND_CLEAN;
        (lease, found)
    }

    /// The mark passes from a lease whose last worker ended clean to the
    /// next lease, once: a lease no worker ended clean on, or whose last
    /// worker did not, leaves none; a mark anyone but root could have
    /// written is not believed.
    #[test]
    fn a_clean_end_is_passed_on_once_and_only_from_root_owned_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("62000.lock");
        std::fs::write(&file, CLEAN_MARK).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        // Root owns the files it makes: only then is a mark believed.
        let (lease, found) = lease_over(&file, true);
        assert_eq!(found, is_root());
        assert_eq!(
            std::fs::read(&file).unwrap(),
            b"",
            "the mark is taken at the lease"
        );
        assert_eq!(lease.take_clean(), is_root());
        assert!(
            !lease.take_clean(),
            "a worker started since may leave anything"
        );
        lease.mark_clean();
        drop(lease);
        assert_eq!(std::fs::read(&file).unwrap(), CLEAN_MARK);
        // Found, but no worker ended clean on this lease: nothing passed on.
        let (lease, _) = lease_over(&file, true);
        drop(lease);
        assert_eq!(std::fs::read(&file).unwrap(), b"");
        // A worker marked clean, then another started and did not end so.
        let (lease, _) = lease_over(&file, true);
        lease.mark_clean();
        assert!(lease.take_clean());
        drop(lease);
        assert_eq!(std::fs::read(&file).unwrap(), b"");
        // Not in a folder only root may write, or writable by others.
        std::fs::write(&file, CLEAN_MARK).unwrap();
        assert!(!lease_over(&file, false).1);
        std::fs::write(&file, CLEAN_MARK).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(!lease_over(&file, true).1);
    }

    #[test]
    fn accounts_the_name_service_knows_are_never_leased() {
        // root always resolves; 62000 is a worker uid here unless an account
        // claims it, which /etc/passwd would also say.
        assert!(super::has_account(0));
        let in_passwd = super::passwd_uids().contains(&super::FIRST_UID);
        assert_eq!(super::has_account(super::FIRST_UID), in_passwd);
    }
}
