//! Which cases the kernel's OOM killer ended, and under which bound. The
//! kernel tells a parent only that its child died of SIGKILL, which the
//! harness reports as `crashed (killed by signal 9)`; the memory cgroup the
//! child ran in counts OOM kills (`oom_kill` in v2's `memory.events`, v1's
//! `memory.oom_control`). A count that rose while a submission ran makes
//! its SIGKILLed cases out of memory: the supervisor never sends SIGKILL to
//! a case it reports as crashed, and the harness's own processes are the OOM
//! killer's last choice ([`super::cgroup::enter`]).
//!
//! The bound reported is the smallest limit from that cgroup up to the
//! hierarchy's root as this process sees it: the worker's cgroup, else an
//! enclosing one (Gradescope's container, a Slurm job), else the machine's
//! memory. A `MemoryError` is the per-process address-space limit.

use super::cgroup::{own_memory_cgroup, Hierarchy, MemoryCgroup};
use crate::recording::format::{CaseOutcome, MemoryLimit, MemoryScope};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a worker's OOM kills are counted, and the bound they mean.
#[derive(Debug)]
pub struct OomWatch {
    /// `memory.events` (v2) or `memory.oom_control` (v1).
    counter: PathBuf,
    limit: MemoryLimit,
}

impl OomWatch {
    /// The worker's own cgroup.
    pub fn worker(cgroup: &MemoryCgroup) -> Option<OomWatch> {
        let (dir, root, hierarchy) = cgroup.place();
        OomWatch::at(dir, root, hierarchy, MemoryScope::Submission)
    }

    /// The cgroup this process runs in, which a harness that could not join
    /// a cgroup of its own stays in.
    pub fn own() -> Option<OomWatch> {
        let (dir, root, hierarchy) = own_memory_cgroup()?;
        OomWatch::at(&dir, &root, hierarchy, MemoryScope::Grader)
    }

    fn at(dir: &Path, root: &Path, hierarchy: Hierarchy, own: MemoryScope) -> Option<OomWatch> {
        let counter = dir.join(match hierarchy {
            Hierarchy::V2 => "memory.events",
            Hierarchy::V1 => "memory.oom_control",
        });
        // A kernel that does not count OOM kills (v1 before Linux 4.13)
        // leaves them crashes.
        oom_kills(&counter)?;
        let limit = bound(dir, root, hierarchy, own).or_else(machine)?;
        Some(OomWatch { counter, limit })
    }

    /// OOM kills counted so far.
    pub fn kills(&self) -> Option<u64> {
        oom_kills(&self.counter)
    }

    pub fn limit(&self) -> MemoryLimit {
        self.limit
    }
}

/// Says why the cases of one submission ran out of memory: each
/// `MemoryError` (`out-of-memory` without a bound) by `process_bytes`, the
/// per-process limit; with `oom_killed` (the watch's count rose), each case
/// ended by SIGKILL by that bound. Outcomes are their compact JSON texts.
pub fn explain(outcomes: &mut [Arc<str>], process_bytes: u64, oom_killed: Option<MemoryLimit>) {
    for text in outcomes.iter_mut().filter(|t| may_explain(t)) {
        let limit = match CaseOutcome::parse(text) {
            Ok(CaseOutcome::OutOfMemory { limit: None }) => MemoryLimit {
                bytes: process_bytes,
                of: MemoryScope::Process,
            },
            Ok(CaseOutcome::Crashed {
                signal: Some(libc::SIGKILL),
                ..
            }) => match oom_killed {
                Some(limit) => limit,
                None => continue,
            },
            _ => continue,
        };
        let outcome = CaseOutcome::OutOfMemory { limit: Some(limit) };
        if let Ok(json) = serde_json::to_string(&outcome) {
            *text = json.into();
        }
    }
}

/// Whether an outcome's text may need [`explain`] (the rest are left
/// unparsed): what the harness writes for a crash or a `MemoryError`.
fn may_explain(text: &str) -> bool {
    text.starts_with(r#"{"kind":"crashed""#) || text.starts_with(r#"{"kind":"out-of-memory""#)
}

/// The `oom_kill` count in a `memory.events` or `memory.oom_control`.
fn oom_kills(counter: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(counter).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("oom_kill "))
        .and_then(|n| n.trim().parse().ok())
}

/// The smallest memory limit from `dir` up to `root`: `own` when it is
/// `dir`'s, [`MemoryScope::Grader`] when an enclosing cgroup's.
fn bound(dir: &Path, root: &Path, hierarchy: Hierarchy, own: MemoryScope) -> Option<MemoryLimit> {
    let file = match hierarchy {
        Hierarchy::V2 => "memory.max",
        Hierarchy::V1 => "memory.limit_in_bytes",
    };
    let mut best: Option<MemoryLimit> = None;
    for (depth, d) in dir
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .enumerate()
    {
        // v2 writes "max", v1 a page-rounded i64::MAX, for no limit.
        let Some(bytes) = std::fs::read_to_string(d.join(file))
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
            .filter(|&b| b < 1 << 62)
        else {
            continue;
        };
        if best.map_or(true, |b| bytes < b.bytes) {
            let of = if depth == 0 { own } else { MemoryScope::Grader };
            best = Some(MemoryLimit { bytes, of });
        }
    }
    best
}

/// The machine's memory (`MemTotal`), when no cgroup bounds it.
fn machine() -> Option<MemoryLimit> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    Some(MemoryLimit {
        bytes: kib * 1024,
        of: MemoryScope::Machine,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crashed(signal: i32) -> Arc<str> {
        format!(r#"{{"kind":"crashed","exit_code":null,"signal":{signal}}}"#).into()
    }

    #[test]
    fn a_sigkilled_case_is_out_of_memory_only_when_the_count_rose() {
        let grader = MemoryLimit {
            bytes: 768 << 20,
            of: MemoryScope::Grader,
        };
        let mut texts = vec![
            crashed(9),
            crashed(11),
            r#"{"kind":"out-of-memory"}"#.into(),
            r#"{"kind":"missing"}"#.into(),
        ];
        let mut unchanged = texts.clone();
        explain(&mut unchanged, 1 << 30, None);
        assert_eq!(unchanged[0], crashed(9), "no OOM kill counted");
        explain(&mut texts, 1 << 30, Some(grader));
        let parsed: Vec<CaseOutcome> = texts
            .iter()
            .map(|t| CaseOutcome::parse(t).unwrap())
            .collect();
        assert_eq!(
            parsed[0],
            CaseOutcome::OutOfMemory {
                limit: Some(grader)
            }
        );
        assert!(matches!(
            parsed[1],
            CaseOutcome::Crashed {
                signal: Some(11),
                ..
            }
        ));
        assert_eq!(
            parsed[2],
            CaseOutcome::OutOfMemory {
                limit: Some(MemoryLimit {
                    bytes: 1 << 30,
                    of: MemoryScope::Process
                })
            }
        );
        assert_eq!(parsed[3], CaseOutcome::Missing);
        assert!(texts.iter().take(3).all(|t| may_explain(t)));
    }

    #[test]
    fn the_bound_is_the_smallest_limit_up_to_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let job = root.join("job");
        let worker = job.join("worker");
        std::fs::create_dir_all(&worker).unwrap();
        std::fs::write(root.join("memory.max"), "max\n").unwrap();
        std::fs::write(job.join("memory.max"), "805306368\n").unwrap();
        std::fs::write(worker.join("memory.max"), "2147483648\n").unwrap();
        let b = bound(&worker, root, Hierarchy::V2, MemoryScope::Submission).unwrap();
        assert_eq!((b.bytes, b.of), (805306368, MemoryScope::Grader));
        std::fs::write(worker.join("memory.max"), "104857600\n").unwrap();
        let b = bound(&worker, root, Hierarchy::V2, MemoryScope::Submission).unwrap();
        assert_eq!((b.bytes, b.of), (104857600, MemoryScope::Submission));
        // Above the root (here: the temporary folder's parents) is not read.
        std::fs::write(job.join("memory.max"), "max\n").unwrap();
        std::fs::write(worker.join("memory.max"), "max\n").unwrap();
        assert_eq!(
            bound(&worker, root, Hierarchy::V2, MemoryScope::Submission),
            None
        );
        assert!(machine().is_some_and(|m| m.bytes > 0));
    }

    #[test]
    fn the_count_is_read_from_either_hierarchys_file() {
        let tmp = tempfile::tempdir().unwrap();
        let v2 = tmp.path().join("memory.events");
        std::fs::write(
            &v2,
            "low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\noom_group_kill 0\n",
        )
        .unwrap();
        assert_eq!(oom_kills(&v2), Some(2));
        let v1 = tmp.path().join("memory.oom_control");
        std::fs::write(&v1, "oom_kill_disable 0\nunder_oom 0\noom_kill 7\n").unwrap();
        assert_eq!(oom_kills(&v1), Some(7));
        std::fs::write(&v1, "oom_kill_disable 0\nunder_oom 0\n").unwrap();
        assert_eq!(oom_kills(&v1), None, "a kernel that does not count");
    }
}
