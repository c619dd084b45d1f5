//! Where a run's CPU time goes, for `grade --timings`: the time threads
//! spend in a phase, summed over threads. Grading streams (each submission
//! is loaded and graded as soon as it is read or recorded, on any thread),
//! so a phase has no wall time of its own; its threads' CPU time is what
//! can be told apart. A phase costs two clock reads each time it runs.

use std::sync::atomic::{AtomicU64, Ordering};

/// One phase: the CPU time of the threads in it, how many times it ran, and
/// how many of those found what they looked for (see [`Phase::found`]).
pub struct Phase {
    nanos: AtomicU64,
    runs: AtomicU64,
    found: AtomicU64,
}

/// Looking a submission up in the store: its source read and hashed, its
/// store file read, unpacked and searched; found when it held every case.
pub static STORE_LOAD: Phase = Phase::new();
/// Outcomes judged against the reference core, and the submission's
/// summary and details made.
pub static GRADING: Phase = Phase::new();

impl Phase {
    const fn new() -> Phase {
        Phase {
            nanos: AtomicU64::new(0),
            runs: AtomicU64::new(0),
            found: AtomicU64::new(0),
        }
    }

    /// Runs `f`, adding the CPU time this thread spent in it.
    pub fn time<T>(&self, f: impl FnOnce() -> T) -> T {
        let start = thread_cpu_nanos();
        let out = f();
        self.nanos
            .fetch_add(thread_cpu_nanos().saturating_sub(start), Ordering::Relaxed);
        self.runs.fetch_add(1, Ordering::Relaxed);
        out
    }

    /// Counts a run that found what it looked for.
    pub fn found(&self) {
        self.found.fetch_add(1, Ordering::Relaxed);
    }

    /// What the phase has taken so far.
    pub fn so_far(&self) -> Spent {
        Spent {
            cpu_seconds: self.nanos.load(Ordering::Relaxed) as f64 / 1e9,
            runs: self.runs.load(Ordering::Relaxed),
            found: self.found.load(Ordering::Relaxed),
        }
    }
}

/// A phase's CPU time and runs, at some moment (subtract two to get a span).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spent {
    pub cpu_seconds: f64,
    pub runs: u64,
    pub found: u64,
}

impl std::ops::Sub for Spent {
    type Output = Spent;
    fn sub(self, earlier: Spent) -> Spent {
        Spent {
            cpu_seconds: self.cpu_seconds - earlier.cpu_seconds,
            runs: self.runs - earlier.runs,
            found: self.found - earlier.found,
        }
    }
}

/// This thread's CPU time (user and system), in nanoseconds.
fn thread_cpu_nanos() -> u64 {
    nanos(rustix::time::ClockId::ThreadCPUTime)
}

/// This process's CPU time (user and system, every thread) so far, in seconds.
pub fn process_cpu_seconds() -> f64 {
    nanos(rustix::time::ClockId::ProcessCPUTime) as f64 / 1e9
}

fn nanos(clock: rustix::time::ClockId) -> u64 {
    let t = rustix::time::clock_gettime(clock);
    (t.tv_sec.max(0) as u64) * 1_000_000_000 + t.tv_nsec.max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins until this thread has had `ms` of CPU time (not wall time: a
    /// loaded machine may deschedule it).
    fn spin(ms: u64) {
        let end = thread_cpu_nanos() + ms * 1_000_000;
        let mut x = 0u64;
        while thread_cpu_nanos() < end {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }

    #[test]
    fn a_phase_counts_the_cpu_time_of_every_thread_in_it_and_none_outside() {
        let phase = Phase::new();
        spin(30); // outside the phase: not counted
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| phase.time(|| spin(40)));
            }
        });
        // Sleeping takes no CPU time.
        phase.time(|| std::thread::sleep(std::time::Duration::from_millis(50)));
        let spent = phase.so_far();
        assert_eq!(spent.runs, 3);
        // Both threads' 40 ms, and not the 30 ms outside nor the sleep's 50.
        assert!((0.080..0.100).contains(&spent.cpu_seconds), "{spent:?}");
        phase.time(|| spin(10));
        let span = phase.so_far() - spent;
        assert_eq!(span.runs, 1);
        assert!((0.010..0.020).contains(&span.cpu_seconds), "{span:?}");
    }
}
