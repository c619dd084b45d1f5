//! autograder: grades Python submissions for the "Working with LLMs" course
//! against an exact Rust reference core.
//!
//! Data flows one way: [`corpus`] loads cases, [`reference`] computes the
//! expected outcome of each, [`submission`] finds the submissions,
//! [`runner`] runs them in a sandbox and keeps what they did as
//! [`recording`]s, [`grade`] compares, [`counterexample`] finds students a
//! visible call failing as each of their hidden failures does (running
//! them again), and [`report`] writes the results;
//! [`session`] is that pipeline for one run, and [`cli`] reads its options.
//! Lower layers never import higher ones, and `grade`, `report` and
//! `integrity` read recordings, never the runner (the `architecture` test).

pub mod atomic;
pub mod cli;
pub mod corpus;
pub mod counterexample;
pub mod errors;
pub mod grade;
pub mod integrity;
pub mod recording;
pub mod reference;
pub mod report;
pub mod runner;
pub mod session;
pub mod student_trees;
pub mod submission;
pub mod text;
pub mod timings;
pub mod user_cache;
pub mod value;

#[cfg(test)]
mod architecture;
