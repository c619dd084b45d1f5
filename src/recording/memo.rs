//! A memo of what an outcome text gave, bounded in bytes and entries
//! whatever the texts: the recorder's of how each text was admitted
//! ([`super::admitted`]) and the grader's of what each text got on a case
//! (`grade::grader`).
//!
//! One eviction rule: a shard that an entry would take past its bounds
//! starts afresh. The texts that repeat (a class's correct answers, the
//! built-in errors a case provokes) are back after a few submissions, and
//! the newest entry is always kept, so a text just remembered is recalled.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::RwLock;

/// What an entry costs beside its text and its value's own bytes: the
/// map's slot and the boxes' headers.
const ENTRY_BYTES: usize = 128;

/// Outcome texts and what each gave, in shards behind locks of their own
/// (so that threads seldom wait for each other).
pub struct Memo<V> {
    hasher: RandomState,
    shards: Box<[RwLock<Shard<V>>]>,
    /// Bytes one shard keeps before it starts afresh.
    shard_bytes: usize,
    /// Entries one shard keeps before it starts afresh.
    shard_entries: usize,
}

struct Shard<V> {
    kept: HashMap<Box<str>, V>,
    bytes: usize,
}

impl<V: Clone> Memo<V> {
    /// A memo of `shards` shards (at least one) keeping at most `bytes`
    /// and `entries` in all.
    pub fn new(shards: usize, bytes: usize, entries: usize) -> Memo<V> {
        let shards = shards.max(1);
        Memo {
            hasher: RandomState::new(),
            shards: (0..shards)
                .map(|_| {
                    RwLock::new(Shard {
                        kept: HashMap::new(),
                        bytes: 0,
                    })
                })
                .collect(),
            shard_bytes: bytes / shards,
            shard_entries: entries / shards,
        }
    }

    fn shard(&self, text: &str) -> &RwLock<Shard<V>> {
        match self.shards.len() {
            1 => &self.shards[0],
            n => &self.shards[self.hasher.hash_one(text) as usize % n],
        }
    }

    /// What `text` gave, if it is kept.
    pub fn recall(&self, text: &str) -> Option<V> {
        self.shard(text).read().ok()?.kept.get(text).cloned()
    }

    /// Keeps what `text` gave (`value`, about `value_bytes` bytes besides
    /// the text), unless it alone is more than a shard keeps.
    pub fn remember(&self, text: &str, value: V, value_bytes: usize) {
        let cost = text.len() + value_bytes + ENTRY_BYTES;
        if cost > self.shard_bytes || self.shard_entries == 0 {
            return;
        }
        let Ok(mut shard) = self.shard(text).write() else {
            return;
        };
        if shard.kept.contains_key(text) {
            return;
        }
        if shard.bytes + cost > self.shard_bytes || shard.kept.len() >= self.shard_entries {
            shard.kept.clear();
            shard.bytes = 0;
        }
        shard.kept.insert(text.into(), value);
        shard.bytes += cost;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full shard starts afresh: the newest entry is always recalled,
    /// and neither bound is ever passed.
    #[test]
    fn a_full_memo_starts_afresh_and_keeps_the_newest() {
        let memo: Memo<usize> = Memo::new(1, 10 * (ENTRY_BYTES + 8), 4);
        for i in 0..100 {
            let text = format!("text{i:04}");
            memo.remember(&text, i, 0);
            assert_eq!(memo.recall(&text), Some(i));
            let shard = memo.shards[0].read().unwrap();
            assert!(shard.kept.len() <= 4 && shard.bytes <= memo.shard_bytes);
        }
        assert_eq!(memo.recall("text0000"), None);
        let big = "x".repeat(20 * ENTRY_BYTES);
        memo.remember(&big, 1, 0);
        assert_eq!(memo.recall(&big), None, "more than a shard keeps");
        assert_eq!(memo.recall("text0099"), Some(99));
    }

    /// Texts spread over the shards, each recalled as remembered.
    #[test]
    fn every_shard_recalls_what_it_keeps() {
        let memo: Memo<String> = Memo::new(16, 16 << 20, 1 << 16);
        let texts: Vec<String> = (0..1000).map(|i| format!("{{\"v\":{i}}}")).collect();
        for t in &texts {
            memo.remember(t, t.to_uppercase(), t.len());
        }
        for t in &texts {
            assert_eq!(memo.recall(t), Some(t.to_uppercase()));
        }
    }
}
