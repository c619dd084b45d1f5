//! Where a run's time goes, for `grade --timings`. Grading streams (each
//! submission is loaded and graded as soon as it is read or recorded, on
//! any thread), so such a [`Phase`] has no wall time of its own: its
//! threads' CPU time, summed, is what can be told apart. The start-up steps
//! each run once, some of them side by side: each is a [`Span`] of wall
//! time, from when it began to when it ended. Either costs two clock reads
//! each time it runs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// One phase: the CPU time of the threads in it, how many times it ran, and
/// how many of those found what they looked for (see [`Phase::found`]).
pub struct Phase {
    nanos: AtomicU64,
    wall_nanos: AtomicU64,
    runs: AtomicU64,
    found: AtomicU64,
}

/// Looking a submission up in the store: its source read and hashed, its
/// store file read, unpacked and searched; found when it held every case.
pub static STORE_LOAD: Phase = Phase::new();
/// Outcomes judged against the reference core, and the submission's
/// summary and details made.
pub static GRADING: Phase = Phase::new();
/// A submission's missing cases run by its worker's harness (the wait for
/// its reply, and the reply read and admitted).
pub static RECORDING: Phase = Phase::new();
/// A submission's store file packed and written.
pub static STORE_WRITE: Phase = Phase::new();

impl Phase {
    const fn new() -> Phase {
        Phase {
            nanos: AtomicU64::new(0),
            wall_nanos: AtomicU64::new(0),
            runs: AtomicU64::new(0),
            found: AtomicU64::new(0),
        }
    }

    /// Runs `f`, adding the CPU time this thread spent in it (and its wall
    /// time, summed over the threads in it).
    pub fn time<T>(&self, f: impl FnOnce() -> T) -> T {
        let (start, wall) = (thread_cpu_nanos(), monotonic_nanos());
        let out = f();
        self.nanos
            .fetch_add(thread_cpu_nanos().saturating_sub(start), Ordering::Relaxed);
        self.wall_nanos
            .fetch_add(monotonic_nanos().saturating_sub(wall), Ordering::Relaxed);
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
            wall_seconds: self.wall_nanos.load(Ordering::Relaxed) as f64 / 1e9,
            runs: self.runs.load(Ordering::Relaxed),
            found: self.found.load(Ordering::Relaxed),
        }
    }
}

/// A phase's CPU time and runs, at some moment (subtract two to get a span).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spent {
    pub cpu_seconds: f64,
    /// Wall time summed over the threads in the phase.
    pub wall_seconds: f64,
    pub runs: u64,
    pub found: u64,
}

impl std::ops::Sub for Spent {
    type Output = Spent;
    fn sub(self, earlier: Spent) -> Spent {
        Spent {
            cpu_seconds: self.cpu_seconds - earlier.cpu_seconds,
            wall_seconds: self.wall_seconds - earlier.wall_seconds,
            runs: self.runs - earlier.runs,
            found: self.found - earlier.found,
        }
    }
}

/// One start-up step's wall time, as seconds of [`CLOCK_MONOTONIC`] (the
/// clock the harness's Python reads too, so its own steps line up).
///
/// [`CLOCK_MONOTONIC`]: rustix::time::ClockId::Monotonic
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub name: String,
    pub start: f64,
    pub end: f64,
}

static SPANS: Mutex<Vec<Span>> = Mutex::new(Vec::new());

/// Spans kept at most: steps that run per worker (a run without pre-forked
/// workers starts one per submission) stop being kept past it.
const MAX_SPANS: usize = 4096;

/// Runs `f` as the start-up step `name`, keeping its wall time.
pub fn span<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let start = now();
    let out = f();
    record(name, start, now());
    out
}

/// Keeps the wall time of a step timed elsewhere (`start` and `end` from
/// [`now`], or from the harness's `time.monotonic()`).
pub fn record(name: &str, start: f64, end: f64) {
    if let Ok(mut spans) = SPANS.lock() {
        if spans.len() >= MAX_SPANS {
            return;
        }
        spans.push(Span {
            name: name.to_string(),
            start,
            end,
        });
    }
}

/// The steps timed so far, in the order they began.
pub fn spans() -> Vec<Span> {
    let mut spans = SPANS.lock().map(|s| s.clone()).unwrap_or_default();
    spans.sort_by(|a, b| a.start.total_cmp(&b.start));
    spans
}

/// Seconds of the monotonic clock (the spans' time line).
pub fn now() -> f64 {
    monotonic_nanos() as f64 / 1e9
}

fn monotonic_nanos() -> u64 {
    nanos(rustix::time::ClockId::Monotonic)
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
