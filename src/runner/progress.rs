//! Recording progress on stderr.

use super::RecordOptions;
use std::sync::Mutex;
use std::time::Duration;

/// Recording progress on stderr: a bar on a terminal, else (a CI log) a
/// plain line every tenth of the run or every [`PROGRESS_EVERY`].
pub(super) enum Progress {
    Bar(indicatif::ProgressBar),
    Lines(Mutex<ProgressLines>),
}

/// How often a log gets a progress line at least, while submissions finish.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

pub(super) struct ProgressLines {
    total: usize,
    done: usize,
    /// The tenth of the run the last line reported.
    tenth: usize,
    last: std::time::Instant,
}

impl Progress {
    pub(super) fn inc(&self) {
        match self {
            Progress::Bar(bar) => bar.inc(1),
            Progress::Lines(state) => {
                let Ok(mut s) = state.lock() else { return };
                s.done += 1;
                let tenth = s.done * 10 / s.total.max(1);
                if tenth > s.tenth || s.last.elapsed() >= PROGRESS_EVERY {
                    (s.tenth, s.last) = (tenth, std::time::Instant::now());
                    eprintln!(
                        "recorded {}/{} submissions ({}%)",
                        s.done,
                        s.total,
                        s.done * 100 / s.total.max(1)
                    );
                }
            }
        }
    }

    pub(super) fn finish(self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

pub(super) fn progress_bar(opts: &RecordOptions, total: usize) -> Option<Progress> {
    use is_terminal::IsTerminal;
    if !opts.show_progress {
        return None;
    }
    if !std::io::stderr().is_terminal() {
        return Some(Progress::Lines(Mutex::new(ProgressLines {
            total,
            done: 0,
            tenth: 0,
            last: std::time::Instant::now(),
        })));
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:30} {pos}/{len} submissions  {rate}  ETA {eta}",
    ) {
        // indicatif's own {per_sec} prints "26.0568/s".
        bar.set_style(style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1}/s", state.per_sec());
            },
        ));
    }
    Some(Progress::Bar(bar))
}
