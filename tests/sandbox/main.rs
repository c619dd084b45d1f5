//! Everything that records student code under a sandbox tier (bwrap,
//! landlock, rlimits): the hostile and attack fixtures, caps, hidden cases,
//! the grader's faults and costs, and the CLI runs that record. `.ci/run`
//! runs this binary a second time as an unprivileged user.

#[macro_use]
#[path = "../util/mod.rs"]
mod util;

mod assignments;
mod counterexamples;
mod fresh_results;
mod grader_bounds;
mod grader_cpu;
mod grader_faults;
mod gradescope_results;
mod integrity;
mod metadata;
mod planted_cache;
mod record_attacks;
mod record_budget;
mod record_caps;
mod record_determinism;
mod record_hidden;
mod record_hostile;
mod record_memory;
mod record_parts;
mod record_racer;
mod record_store;
mod sandbox_landlock;
mod start_up;
mod store_grade;
mod student_bytes;
mod terminal_width;
