//! Reports at the scale of a MOOC (issue 11, item 1): every report of a
//! spooled run of 1,000 and of 10,000 submissions on the course's corpus,
//! rendered into files as `grade` writes them, with the process's peak RSS.
//!
//! Ignored (it is a measurement, and slow unoptimised); run each size in its
//! own process, since peak RSS is the process's:
//!
//! ```sh
//! SCALE_SUBMISSIONS=1000  cargo test --release --test core report_scale -- --ignored --nocapture
//! SCALE_SUBMISSIONS=10000 cargo test --release --test core report_scale -- --ignored --nocapture
//! ```

use crate::util::large;

use autograder::grade::{Audience, GradeRun};
use autograder::report;
use std::io::Write;

/// The process's peak resident set so far, in MB.
fn peak_rss_mb() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_maxrss as f64 / 1024.0
}

#[test]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
fn every_report_of_a_large_spooled_run() {
    let n: usize = std::env::var("SCALE_SUBMISSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let started = std::time::Instant::now();
    let run = large::run(n);
    let built = (started.elapsed(), peak_rss_mb());
    let dir = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    type Writer = fn(&GradeRun, &mut dyn Write) -> std::io::Result<()>;
    let reports: [(&str, Writer); 6] = [
        ("json", |r, w| report::json::write(r, w)),
        ("csv", |r, w| {
            report::csv::write(r, w).map_err(std::io::Error::other)
        }),
        ("junit", |r, w| {
            report::junit::write(r, w).map_err(std::io::Error::other)
        }),
        ("markdown", |r, w| report::markdown::write(r, w)),
        ("html", |r, w| report::html::write(r, w)),
        ("terminal", |r, w| {
            report::terminal::write_with(r, false, report::terminal::FailureDetail::Capped, w)
        }),
    ];
    let only = std::env::var("SCALE_REPORTS").unwrap_or_default();
    for audience in [Audience::Instructor, Audience::Student] {
        let view = run.view(audience);
        for (name, write) in reports {
            if !only.is_empty() && !only.split(',').any(|o| o == name) {
                continue;
            }
            let path = dir.path().join(name);
            let t = std::time::Instant::now();
            let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            write(&view, &mut w).unwrap();
            w.flush().unwrap();
            drop(w);
            let bytes = std::fs::metadata(&path).unwrap().len();
            lines.push(format!(
                "{:<10} {:<8} {:>12} bytes  {:>7.2} s  peak RSS so far {:>6.1} MB",
                audience.name(),
                name,
                bytes,
                t.elapsed().as_secs_f64(),
                peak_rss_mb()
            ));
            std::fs::remove_file(path).unwrap();
        }
    }
    assert_eq!(run.details.error(), None);
    println!(
        "{n} submissions: run built in {:.1} s (peak RSS then {:.1} MB); every report for both audiences: peak RSS {:.1} MB",
        built.0.as_secs_f64(),
        built.1,
        peak_rss_mb()
    );
    for line in lines {
        println!("  {line}");
    }
}
