//! Outcome texts already admitted, so a text the harness sends again is not
//! parsed, capped and decoded again.
//!
//! Admitting an outcome text (parse, cap, decode the returned value, write
//! the outcome as the store keeps it) is a pure function of the text, and
//! most texts repeat across a class: every correct answer to a case is the
//! same text, and so is every built-in error a case provokes. It was about
//! half of the grader's own CPU per recorded submission. One memo serves
//! every worker thread, in shards so that they seldom wait for each other,
//! bounded in bytes whatever the number of workers or submissions. (Grading
//! has its own memo, in `grade::grader`, of what an admitted text gets on each
//! case.)

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, LazyLock, RwLock};

/// Longest text kept: long ones rarely repeat, and would crowd the rest out.
const MAX_TEXT_BYTES: usize = 2048;
/// Shards of the memo, each behind its own lock.
const SHARDS: usize = 16;
/// Bytes one shard keeps before it starts afresh (32 MiB in all).
const MAX_SHARD_BYTES: usize = 2 << 20;

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

#[derive(Default)]
struct Shard {
    admitted: HashMap<Box<str>, Admitted>,
    bytes: usize,
}

struct Memo {
    hasher: RandomState,
    shards: Vec<RwLock<Shard>>,
}

static MEMO: LazyLock<Memo> = LazyLock::new(|| Memo {
    hasher: RandomState::new(),
    shards: (0..SHARDS).map(|_| RwLock::default()).collect(),
});

fn shard(text: &str) -> &'static RwLock<Shard> {
    let memo = &*MEMO;
    &memo.shards[memo.hasher.hash_one(text) as usize % SHARDS]
}

/// How `text` was admitted before, if it was (and is still kept).
pub fn recall(text: &str) -> Option<Admitted> {
    if text.len() > MAX_TEXT_BYTES {
        return None;
    }
    shard(text).read().ok()?.admitted.get(text).cloned()
}

/// Keeps how `text` was admitted, for the submissions after.
pub fn remember(text: &str, admitted: &Admitted) {
    if text.len() > MAX_TEXT_BYTES {
        return;
    }
    let Ok(mut shard) = shard(text).write() else {
        return;
    };
    let cost = text.len() + admitted.text.len() + 128;
    if shard.bytes + cost > MAX_SHARD_BYTES {
        shard.admitted.clear();
        shard.bytes = 0;
    }
    if shard
        .admitted
        .insert(text.into(), admitted.clone())
        .is_none()
    {
        shard.bytes += cost;
    }
}
