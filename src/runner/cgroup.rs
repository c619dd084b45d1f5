//! A memory cgroup per worker: per-process limits do not bound a
//! submission's total (32 processes × 1 GiB), a cgroup does. One submission
//! runs on a worker at a time, so the worker's cgroup (its zygote, the
//! submission's supervisor and every process the submission starts) bounds
//! that submission's total memory.
//!
//! cgroup v2 (`memory.max`) where this process's cgroup delegates the memory
//! controller to its children, else cgroup v1 (`memory.limit_in_bytes`);
//! neither without the right to make a cgroup (not root, most CI runners):
//! then the bound is per process only, and the recording says so. The
//! worker's processes are made unkillable by the kernel's OOM killer
//! (`oom_score_adj` -1000) and the submission's own raise theirs to 1000, so
//! the cgroup's OOM killer takes the student's process, never the harness.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why no memory cgroup can be made here (then the bound is per process).
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no cgroup v2 hierarchy")]
    NoV2,
    #[error("cgroup2 is not mounted")]
    V2NotMounted,
    #[error("{} does not delegate the memory controller", .0.display())]
    NotDelegated(PathBuf),
    #[error("no cgroup v1 memory controller")]
    NoV1,
    #[error("no cgroup v1 memory mount")]
    V1NotMounted,
    #[error("{} holds a NUL byte", .0.display())]
    Nul(PathBuf),
    #[error(
        "cgroup v2: {}; cgroup v1: {}",
        crate::errors::chain(v2),
        crate::errors::chain(v1)
    )]
    Neither {
        v2: Box<CgroupError>,
        v1: Box<CgroupError>,
    },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> CgroupError + '_ {
    move |source| CgroupError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A worker's memory cgroup, removed on drop (once its processes are gone).
#[derive(Debug)]
pub struct MemoryCgroup {
    dir: PathBuf,
    /// Its hierarchy's mount point, and which hierarchy.
    mount: PathBuf,
    hierarchy: Hierarchy,
    /// `cgroup.procs`, ready for `pre_exec` (no allocation there).
    procs: CString,
    /// What holds, as recordings say it: `memory: cgroup v1, 2 GiB in all`.
    pub describe: String,
}

impl MemoryCgroup {
    /// A fresh cgroup of this process's, limited to `limit` bytes, or why
    /// there can be none here.
    pub fn create(limit: u64) -> Result<MemoryCgroup, CgroupError> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "autograder-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let gib = limit as f64 / f64::from(1u32 << 30);
        let made = |hierarchy: Hierarchy,
                    dir: PathBuf,
                    mount: PathBuf|
         -> Result<MemoryCgroup, CgroupError> {
            let path = dir.join("cgroup.procs");
            let procs = CString::new(path.as_os_str().as_encoded_bytes())
                .map_err(|_| CgroupError::Nul(path.clone()))?;
            let version = match hierarchy {
                Hierarchy::V1 => "v1",
                Hierarchy::V2 => "v2",
            };
            Ok(MemoryCgroup {
                dir,
                mount,
                hierarchy,
                procs,
                describe: format!("memory: cgroup {version}, {gib} GiB in all"),
            })
        };
        let v2 = v2_parent().and_then(|(parent, mount)| {
            remove_stale(&parent);
            let dir = parent.join(&name);
            std::fs::create_dir(&dir).map_err(io(&dir))?;
            let set = write(&dir.join("memory.max"), &limit.to_string())
                .and_then(|()| write(&dir.join("memory.swap.max"), "0").or(Ok(())));
            match set {
                Ok(()) => made(Hierarchy::V2, dir, mount),
                Err(e) => {
                    let _ = std::fs::remove_dir(&dir);
                    Err(e)
                }
            }
        });
        let v2_error = match v2 {
            Ok(cg) => return Ok(cg),
            Err(e) => e,
        };
        let v1 = v1_parent().and_then(|(parent, mount)| {
            remove_stale(&parent);
            let dir = parent.join(&name);
            std::fs::create_dir(&dir).map_err(io(&dir))?;
            let set =
                write(&dir.join("memory.limit_in_bytes"), &limit.to_string()).and_then(|()| {
                    // Swap counts too where the kernel accounts it.
                    let memsw = dir.join("memory.memsw.limit_in_bytes");
                    if memsw.exists() {
                        write(&memsw, &limit.to_string())
                    } else {
                        Ok(())
                    }
                });
            match set {
                Ok(()) => made(Hierarchy::V1, dir, mount),
                Err(e) => {
                    let _ = std::fs::remove_dir(&dir);
                    Err(e)
                }
            }
        });
        v1.map_err(|v1_error| CgroupError::Neither {
            v2: Box::new(v2_error),
            v1: Box::new(v1_error),
        })
    }

    /// Its folder, its hierarchy's mount point, and which hierarchy.
    pub fn place(&self) -> (&Path, &Path, Hierarchy) {
        (&self.dir, &self.mount, self.hierarchy)
    }

    /// Its `cgroup.procs`, opened for writing: the harness joins the cgroup
    /// through it (see [`CGROUP_FD`]), with this process's rights as
    /// opened here.
    pub fn open_procs(&self) -> std::io::Result<std::os::fd::OwnedFd> {
        use std::os::fd::FromRawFd;
        // SAFETY: a NUL-terminated path; the fd returned is ours alone.
        let fd = unsafe { libc::open(self.procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // The kernel lets go of a cgroup a moment after its last process
        // is reaped; what is still busy then is removed by the next run.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

/// Removes the empty cgroups that runs which are gone left in `parent`.
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("autograder-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

fn write(path: &Path, text: &str) -> Result<(), CgroupError> {
    std::fs::write(path, text).map_err(io(path))
}

/// Where cgroups of `fstype` are mounted (and, for v1, with `option`), from
/// /proc/self/mountinfo: the root of the hierarchy the mount shows, and the
/// mount point.
fn mount_point(fstype: &str, option: Option<&str>) -> Option<(PathBuf, PathBuf)> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut r = right.split_whitespace();
        let (fs, _source, options) = (r.next()?, r.next()?, r.next().unwrap_or(""));
        let mut l = left.split_whitespace().skip(3);
        let (root, point) = (l.next()?, l.next()?);
        let wanted = fs == fstype && option.map_or(true, |o| options.split(',').any(|x| x == o));
        wanted.then(|| (PathBuf::from(root), PathBuf::from(point)))
    })
}

/// This process's cgroup in the v2 hierarchy, when it delegates `memory`,
/// and the hierarchy's mount point.
fn v2_parent() -> Result<(PathBuf, PathBuf), CgroupError> {
    let (dir, mount) = own_dir_and_mount(Hierarchy::V2)?;
    let control = dir.join("cgroup.subtree_control");
    let delegated = std::fs::read_to_string(&control).map_err(io(&control))?;
    if !delegated.split_whitespace().any(|c| c == "memory") {
        return Err(CgroupError::NotDelegated(dir));
    }
    Ok((dir, mount))
}

/// `/proc/self/cgroup`.
fn own_cgroups() -> Result<String, CgroupError> {
    let path = Path::new("/proc/self/cgroup");
    std::fs::read_to_string(path).map_err(io(path))
}

/// This process's memory cgroup in the v1 hierarchy, and its mount point.
fn v1_parent() -> Result<(PathBuf, PathBuf), CgroupError> {
    own_dir_and_mount(Hierarchy::V1)
}

/// A cgroup hierarchy that can hold a memory controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hierarchy {
    V1,
    V2,
}

/// This process's cgroup folder in `hierarchy`'s memory mount, and the
/// mount point. The mount may show a part of the hierarchy only (a
/// container's own cgroup, without a cgroup namespace): the path
/// `/proc/self/cgroup` gives is then taken from that part's root.
fn own_dir_and_mount(hierarchy: Hierarchy) -> Result<(PathBuf, PathBuf), CgroupError> {
    let own = own_cgroups()?;
    let (path, mount) = match hierarchy {
        Hierarchy::V2 => (
            own.lines()
                .find_map(|l| l.strip_prefix("0::"))
                .ok_or(CgroupError::NoV2)?,
            mount_point("cgroup2", None).ok_or(CgroupError::V2NotMounted)?,
        ),
        Hierarchy::V1 => (
            own.lines()
                .find_map(|l| {
                    let mut f = l.splitn(3, ':');
                    let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
                    controllers
                        .split(',')
                        .any(|c| c == "memory")
                        .then_some(path)
                })
                .ok_or(CgroupError::NoV1)?,
            mount_point("cgroup", Some("memory")).ok_or(CgroupError::V1NotMounted)?,
        ),
    };
    let (root, point) = mount;
    let below = Path::new(path)
        .strip_prefix(&root)
        .unwrap_or(Path::new(path.trim_start_matches('/')));
    Ok((point.join(below), point))
}

/// The memory cgroup this process runs in, the mount point of its
/// hierarchy, and which hierarchy (v2 where its memory controller is on
/// for this cgroup, else v1); `None` where neither is readable.
pub fn own_memory_cgroup() -> Option<(PathBuf, PathBuf, Hierarchy)> {
    [
        (Hierarchy::V2, "memory.events"),
        (Hierarchy::V1, "memory.oom_control"),
    ]
    .into_iter()
    .find_map(|(hierarchy, file)| {
        let (dir, point) = own_dir_and_mount(hierarchy).ok()?;
        dir.join(file).is_file().then_some((dir, point, hierarchy))
    })
}

/// In `pre_exec` (after fork, before exec): hands the process `cgroup` (an
/// open `cgroup.procs`) as [`CGROUP_FD`] when there is one, and makes the
/// process (and what it forks: the zygote and supervisors) the OOM
/// killer's last choice. Only async-signal-safe calls; the harness says in
/// its ready line whether it could join (the recording's `sandbox` line).
///
/// # Safety
/// Call only between fork and exec.
pub unsafe fn enter(cgroup: Option<libc::c_int>) {
    if let Some(fd) = cgroup {
        // The harness writes "0" to it from a thread as it starts, beside
        // its imports (the kernel's first move into a cgroup waits for an
        // RCU grace period: ~10 ms here, on the run's critical path).
        if fd == CGROUP_FD {
            // dup2 onto itself would keep close-on-exec.
            libc::fcntl(fd, libc::F_SETFD, 0);
        } else {
            libc::dup2(fd, CGROUP_FD);
        }
    }
    let adj = c"/proc/self/oom_score_adj";
    let fd = libc::open(adj.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd >= 0 {
        libc::write(fd, b"-1000".as_ptr().cast(), 5);
        libc::close(fd);
    }
}

/// The descriptor the harness finds its cgroup's `cgroup.procs` on, and
/// joins it through before it forks anything (see `harness/harness.py`).
pub const CGROUP_FD: libc::c_int = 5;

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    /// The handed descriptor reaches the program as [`CGROUP_FD`], whatever
    /// number it had here, [`CGROUP_FD`]'s own included (where dup2 onto
    /// itself would leave it close-on-exec).
    #[test]
    fn the_handed_descriptor_is_open_in_the_program_as_cgroup_fd() {
        let file = std::fs::File::open("/dev/null").unwrap();
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor we then own.
        let at_least = |n: libc::c_int| unsafe {
            OwnedFd::from_raw_fd(libc::fcntl(file.as_raw_fd(), libc::F_DUPFD_CLOEXEC, n))
        };
        for fd in [at_least(CGROUP_FD), at_least(CGROUP_FD + 10)] {
            let raw = fd.as_raw_fd();
            let mut cmd = std::process::Command::new("/bin/sh");
            cmd.args(["-c", "readlink /proc/self/fd/5"]);
            // SAFETY: `enter` only makes async-signal-safe calls.
            unsafe {
                cmd.pre_exec(move || {
                    enter(Some(raw));
                    Ok(())
                });
            }
            let out = cmd.output().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                "/dev/null",
                "fd {raw}"
            );
        }
    }
}
