//! autograder: grades Python submissions for the "Working with LLMs" course
//! against an exact Rust reference core.
//!
//! Data flows one way: [`corpus`] loads cases, [`reference`] computes the
//! expected outcome of each, [`record`] runs submissions in a sandbox,
//! [`grade`] compares, and [`report`] writes the results; [`session`] is
//! that pipeline for one run, and [`cli`] reads its options.

pub mod cli;
pub mod corpus;
pub mod grade;
pub mod integrity;
pub mod record;
pub mod reference;
pub mod report;
pub mod session;
pub mod text;
pub mod timings;
pub mod value;
