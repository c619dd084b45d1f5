//! Outcome texts already admitted, so a text the harness sends again is not
//! parsed, capped and decoded again.
//!
//! Admitting an outcome text (parse, cap, decode the returned value) is a
//! pure function of the text, and most texts repeat across a class: every
//! correct answer to a case is the same text, and so is every built-in
//! error a case provokes. It was about half of the grader's own CPU per
//! recorded submission. Each worker thread keeps its own memo (no
//! locking), bounded in bytes, so memory stays flat however many
//! submissions run. (Grading has its own memo, in `grade::run`, of what an
//! admitted text gets on each case.)

use super::format::CaseOutcome;
use std::cell::RefCell;
use std::collections::HashMap;

/// Longest text kept: long ones rarely repeat, and would crowd the rest out.
const MAX_TEXT_BYTES: usize = 2048;
/// Bytes of text one thread keeps before it starts afresh.
const MAX_MEMO_BYTES: usize = 8 << 20;

/// How one outcome text was admitted.
#[derive(Clone)]
pub struct Admitted {
    /// The outcome parsed and capped (what its size is counted on).
    pub capped: CaseOutcome,
    /// Whether its returned value decodes (otherwise it is graded as a crash).
    pub valid: bool,
}

#[derive(Default)]
struct Memo {
    admitted: HashMap<Box<str>, Admitted>,
    bytes: usize,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// How `text` was admitted before on this thread, if it was.
pub fn recall(text: &str) -> Option<Admitted> {
    if text.len() > MAX_TEXT_BYTES {
        return None;
    }
    MEMO.with(|m| m.borrow().admitted.get(text).cloned())
}

/// Keeps how `text` was admitted, for the submissions after.
pub fn remember(text: &str, admitted: &Admitted) {
    if text.len() > MAX_TEXT_BYTES {
        return;
    }
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        // The capped outcome is at most about the text's size again.
        let cost = 2 * text.len() + 128;
        if m.bytes + cost > MAX_MEMO_BYTES {
            m.admitted.clear();
            m.bytes = 0;
        }
        if m.admitted.insert(text.into(), admitted.clone()).is_none() {
            m.bytes += cost;
        }
    });
}
