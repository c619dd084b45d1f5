//! Joining shard runs (`grade --shard K/N`, read back from their JSON
//! reports) into the run a single `grade` would have produced.

use crate::grade::{GradeRun, HeldShards};
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
    #[error("{shard} was scored under policy {found}, {first} under {expected} (grade them under one --scoring)")]
    Scoring {
        shard: String,
        first: String,
        found: &'static str,
        expected: &'static str,
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
    #[error("{shard} is {found}, {first} is {expected}: they are not shards of one run")]
    Slicing {
        shard: String,
        first: String,
        found: String,
        expected: String,
    },
    #[error("shard {k} of {of} is in both {a} and {b}")]
    SameShard {
        k: usize,
        of: usize,
        a: String,
        b: String,
    },
    #[error("{shard} holds {found} submissions, but {slice} of a run of {total} holds {expected}")]
    ShardSize {
        shard: String,
        slice: String,
        total: usize,
        found: usize,
        expected: usize,
    },
    #[error("{} missing: these reports hold {held} of the run's {total} submissions \
             (merge every shard, or pass --allow-partial for reports marked partial)",
            missing_shards(.missing, *.of))]
    Missing {
        missing: Vec<usize>,
        of: usize,
        held: usize,
        total: usize,
    },
}

/// `shard 2 of 3 is` / `shards 2, 4 of 4 are`.
fn missing_shards(missing: &[usize], of: usize) -> String {
    let ks: Vec<String> = missing.iter().map(usize::to_string).collect();
    if missing.len() == 1 {
        format!("shard {} of {of} is", ks.join(", "))
    } else {
        format!("shards {} of {of} are", ks.join(", "))
    }
}

/// The slices a run holds: a run without `shards` is a whole run (slice 1 of 1).
fn slices(run: &GradeRun) -> HeldShards {
    run.shards.clone().unwrap_or(HeldShards {
        held: vec![1],
        of: 1,
        submissions: run.submissions.len(),
    })
}

/// How a run was sliced, in words for errors.
fn slicing(s: &HeldShards) -> String {
    if s.of == 1 {
        format!("a whole run of {} submissions", s.submissions)
    } else {
        format!(
            "a shard of {} of a run of {} submissions",
            s.of, s.submissions
        )
    }
}

/// Joins named shard runs: same policy, same corpus, same audience, disjoint
/// submissions, each shard as large as its slice of the whole run, and
/// every slice of the whole run present, unless `allow_partial` (then the
/// result says which shards it holds). The result is sorted by submission
/// id, as a single run is.
pub fn merge(shards: Vec<(String, GradeRun)>, allow_partial: bool) -> Result<GradeRun, MergeError> {
    let mut shards = shards.into_iter();
    let (first_name, mut merged) = shards.next().ok_or(MergeError::Empty)?;
    let first_slices = slices(&merged);
    let mut slice_owner: BTreeMap<usize, String> = BTreeMap::new();
    check_slices(
        &first_name,
        &merged,
        &first_slices,
        &first_slices,
        &first_name,
        &mut slice_owner,
    )?;
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
        if run.corpus.scoring != merged.corpus.scoring {
            return Err(MergeError::Scoring {
                shard: name,
                first: first_name,
                found: run.corpus.scoring.name(),
                expected: merged.corpus.scoring.name(),
            });
        }
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
        check_slices(
            &name,
            &run,
            &slices(&run),
            &first_slices,
            &first_name,
            &mut slice_owner,
        )?;
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
    let held = HeldShards {
        held: slice_owner.into_keys().collect(),
        ..first_slices
    };
    merged.shards = if held.missing().is_empty() {
        None
    } else if allow_partial {
        Some(held)
    } else {
        return Err(MergeError::Missing {
            missing: held.missing(),
            of: held.of,
            held: held.held_submissions(),
            total: held.submissions,
        });
    };
    Ok(merged)
}

/// Checks that `run` (named `name`, holding `slices`) is cut as the first
/// shard is, holds as many submissions as its slices do, and repeats no
/// slice already seen (recorded in `owner`).
fn check_slices(
    name: &str,
    run: &GradeRun,
    slices: &HeldShards,
    first: &HeldShards,
    first_name: &str,
    owner: &mut BTreeMap<usize, String>,
) -> Result<(), MergeError> {
    if (slices.of, slices.submissions) != (first.of, first.submissions) {
        return Err(MergeError::Slicing {
            shard: name.to_string(),
            first: first_name.to_string(),
            found: slicing(slices),
            expected: slicing(first),
        });
    }
    let expected = slices.held_submissions();
    if run.submissions.len() != expected || slices.held.iter().any(|&k| k == 0 || k > slices.of) {
        return Err(MergeError::ShardSize {
            shard: name.to_string(),
            slice: slices.note_held(),
            total: slices.submissions,
            found: run.submissions.len(),
            expected,
        });
    }
    for &k in &slices.held {
        if let Some(a) = owner.insert(k, name.to_string()) {
            return Err(MergeError::SameShard {
                k,
                of: slices.of,
                a,
                b: name.to_string(),
            });
        }
    }
    Ok(())
}
