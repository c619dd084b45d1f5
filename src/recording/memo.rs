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
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};
use std::sync::RwLock;

/// What an entry costs beside its text and its value's own bytes: the
/// map's slot and the boxes' headers.
const ENTRY_BYTES: usize = 128;

/// Outcome texts and what each gave, in shards behind locks of their own
/// (so that threads seldom wait for each other).
pub struct Memo<V> {
    /// The texts' hash, keyed afresh each run (no text can be chosen to
    /// collide with another): computed once per call, it picks the shard
    /// and is the entry's key there.
    hasher: RandomState,
    shards: Box<[RwLock<Shard<V>>]>,
    /// Bytes one shard keeps before it starts afresh.
    shard_bytes: usize,
    /// Entries one shard keeps before it starts afresh.
    shard_entries: usize,
}

struct Shard<V> {
    /// By the text's hash: the text (a hit is the same text, never only the
    /// same hash) and what it gave.
    kept: HashMap<u64, (Box<str>, V), BuildHasherDefault<Hashed>>,
    bytes: usize,
}

/// The map's hasher over a hash already made: the key itself.
#[derive(Default)]
struct Hashed(u64);

impl Hasher for Hashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
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
                        kept: HashMap::default(),
                        bytes: 0,
                    })
                })
                .collect(),
            shard_bytes: bytes / shards,
            shard_entries: entries / shards,
        }
    }

    /// The text's hash and its shard (chosen by other bits than the map's
    /// buckets are).
    fn shard(&self, text: &str) -> (u64, &RwLock<Shard<V>>) {
        let hash = self.hasher.hash_one(text);
        (
            hash,
            &self.shards[(hash >> 32) as usize % self.shards.len()],
        )
    }

    /// What `text` gave, if it is kept.
    pub fn recall(&self, text: &str) -> Option<V> {
        let (hash, shard) = self.shard(text);
        let shard = shard.read().ok()?;
        let (kept, value) = shard.kept.get(&hash)?;
        (**kept == *text).then(|| value.clone())
    }

    /// Keeps what `text` gave (`value`, about `value_bytes` bytes besides
    /// the text), unless it alone is more than a shard keeps.
    pub fn remember(&self, text: &str, value: V, value_bytes: usize) {
        let cost = text.len() + value_bytes + ENTRY_BYTES;
        if cost > self.shard_bytes || self.shard_entries == 0 {
            return;
        }
        let (hash, shard) = self.shard(text);
        let Ok(mut shard) = shard.write() else {
            return;
        };
        // Kept already (or another text of the same hash is: it stays).
        if shard.kept.contains_key(&hash) {
            return;
        }
        if shard.bytes + cost > self.shard_bytes || shard.kept.len() >= self.shard_entries {
            shard.kept.clear();
            shard.bytes = 0;
        }
        shard.kept.insert(hash, (text.into(), value));
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
