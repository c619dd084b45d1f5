//! Outcome texts already admitted, so a text the harness sends again is not
//! parsed, capped and decoded again.
//!
//! Admitting an outcome text (parse, cap, decode the returned value, write
//! the outcome as the store keeps it) is a pure function of the text, and
//! most texts repeat across a class: every correct answer to a case is the
//! same text, and so is every built-in error a case provokes. It was about
//! half of the grader's own CPU per recorded submission. One memo serves
//! every worker thread ([`super::memo::Memo`]), bounded in bytes whatever
//! the number of workers or submissions. (Grading has its own, in
//! `grade::grader`, of what an admitted text gets on each case.)

use super::memo::Memo;
use std::sync::{Arc, LazyLock};

/// Longest text kept: long ones rarely repeat, and would crowd the rest out.
const MAX_TEXT_BYTES: usize = 2048;
/// Shards of the memo, each behind its own lock.
const SHARDS: usize = 16;
/// Bytes the memo keeps (a shard that would pass its share starts afresh).
const MAX_BYTES: usize = SHARDS * (2 << 20);

/// How one outcome text was admitted.
#[derive(Clone)]
pub struct Admitted {
    /// The outcome as the store keeps it: capped, or a crash when it is not
    /// a valid outcome (a returned value that does not decode...).
    pub text: Arc<str>,
    /// What the submission's total counts for it ([`super::caps::outcome_bytes`]
    /// of the capped outcome, before its value was decoded).
    pub bytes: usize,
}

static MEMO: LazyLock<Memo<Admitted>> = LazyLock::new(|| Memo::new(SHARDS, MAX_BYTES, usize::MAX));

/// How `text` was admitted before, if it was (and is still kept).
pub fn recall(text: &str) -> Option<Admitted> {
    if text.len() > MAX_TEXT_BYTES {
        return None;
    }
    MEMO.recall(text)
}

/// Keeps how `text` was admitted, for the submissions after.
pub fn remember(text: &str, admitted: &Admitted) {
    if text.len() > MAX_TEXT_BYTES {
        return;
    }
    MEMO.remember(text, admitted.clone(), admitted.text.len());
}
