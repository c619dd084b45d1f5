//! Joining shard runs (`grade --shard K/N`, read back from their JSON
//! reports) into the run a single `grade` would have produced.

use crate::grade::GradeRun;
use std::collections::BTreeMap;

/// Why shard runs cannot be joined.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MergeError {
    #[error("nothing to merge")]
    Empty,
    #[error("{shard} graded another corpus (fingerprint {found}, {first} has {expected})")]
    Fingerprint {
        shard: String,
        first: String,
        found: String,
        expected: String,
    },
    #[error("{shard} describes the corpus differently from {first} despite the same fingerprint")]
    Corpus { shard: String, first: String },
    #[error("{shard} was written for audience {found}, {first} for {expected}")]
    Audience {
        shard: String,
        first: String,
        found: &'static str,
        expected: &'static str,
    },
    #[error("submission {id:?} is in both {a} and {b}")]
    Overlap { id: String, a: String, b: String },
}

/// Joins named shard runs: same corpus, same audience, disjoint
/// submissions. The result is sorted by submission id, as a single run is.
pub fn merge(shards: Vec<(String, GradeRun)>) -> Result<GradeRun, MergeError> {
    let mut shards = shards.into_iter();
    let (first_name, mut merged) = shards.next().ok_or(MergeError::Empty)?;
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for s in &merged.submissions {
        if let Some(a) = owner.insert(s.id.clone(), first_name.clone()) {
            return Err(MergeError::Overlap {
                id: s.id.clone(),
                a,
                b: first_name.clone(),
            });
        }
    }
    for (name, run) in shards {
        if run.corpus.fingerprint != merged.corpus.fingerprint {
            return Err(MergeError::Fingerprint {
                shard: name,
                first: first_name,
                found: run.corpus.fingerprint,
                expected: merged.corpus.fingerprint,
            });
        }
        if run.corpus != merged.corpus {
            return Err(MergeError::Corpus {
                shard: name,
                first: first_name,
            });
        }
        if run.audience != merged.audience {
            return Err(MergeError::Audience {
                shard: name,
                first: first_name,
                found: run.audience.name(),
                expected: merged.audience.name(),
            });
        }
        for s in run.submissions {
            if let Some(a) = owner.insert(s.id.clone(), name.clone()) {
                return Err(MergeError::Overlap {
                    id: s.id,
                    a,
                    b: name,
                });
            }
            merged.submissions.push(s);
        }
    }
    merged.submissions.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(merged)
}
