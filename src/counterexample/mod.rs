//! Counterexamples for hidden failures (issue 45): a student whose hidden
//! case fails cannot see its input, so for each hidden failure a fresh
//! visible call is searched on which the submission makes the same mistake
//! ([`mistake`]): candidates are the checkpoint's visible cases changed at
//! one place ([`perturb`], [`candidates`]), never a hidden input; the
//! submission runs on them in the sandbox, the reference core judges them,
//! and the smallest failing the same way is kept and shrunk ([`search`]).
//! Deterministic: the same submission and corpus give the same calls.

pub mod candidates;
pub mod mistake;
pub mod perturb;
pub mod search;

pub use search::{search_run, Recorder};
