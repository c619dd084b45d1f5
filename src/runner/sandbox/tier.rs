//! Each sandbox tier's facts in one place: its name in recordings, where
//! its scratch folder lives, and what its self-test must prove before any
//! submission runs (the harness's side is `harness/confine.py` and the
//! tier branches of `harness/harness.py`).

use super::Isolation;

impl Isolation {
    /// The name stored in recordings.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Bwrap => "bwrap",
            Isolation::Landlock => "landlock",
            Isolation::Rlimits => "rlimits",
        }
    }

    /// Whether a worker's scratch folder is made on the host (bwrap: the
    /// sandbox's own /tmp is).
    pub fn host_scratch(self) -> bool {
        match self {
            Isolation::Bwrap => false,
            Isolation::Landlock | Isolation::Rlimits => true,
        }
    }
}

/// What the harness's self-test found.
#[derive(serde::Deserialize)]
pub struct SelfTest {
    pub ok: bool,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub host_files_hidden: bool,
    #[serde(default)]
    pub root_hidden: bool,
    #[serde(default)]
    pub inet_refused: bool,
    /// The child could not signal, re-limit or renice the zygote.
    #[serde(default)]
    pub zygote_unreachable: bool,
    #[serde(default)]
    pub landlock: Option<LandlockHeld>,
    /// A seccomp filter was installed (the landlock tier's, or the other
    /// tiers' one that keeps the child off other processes).
    #[serde(default)]
    pub seccomp: bool,
    /// Every call that changes a file's metadata (mode, owner, times,
    /// extended and inode attributes) was refused by the seccomp filter.
    #[serde(default)]
    pub metadata_refused: bool,
    /// The calls that were not, and what they answered.
    #[serde(default)]
    pub metadata_unrefused: Vec<String>,
}

#[derive(serde::Deserialize)]
pub struct LandlockHeld {
    pub landlock_abi: u32,
    pub rules: Vec<String>,
}

/// What a tier's self-test failed to prove.
#[derive(Debug, thiserror::Error)]
pub enum NotHeld {
    #[error("bwrap let the self-test read the host's files")]
    BwrapHostFiles,
    #[error("the landlock tier did not confine the self-test")]
    LandlockAbsent,
    #[error(
        "Landlock ABI {abi} did not hide the host's files or refuse the network in the self-test"
    )]
    LandlockOpen { abi: u32 },
    #[error("the landlock tier's seccomp filter did not keep the self-test off the zygote (signals, limits, priorities)")]
    ZygoteReachable,
    #[error("the seccomp filter did not refuse the self-test's metadata calls (mode, owner, times, extended attributes): {}", .calls.join("; "))]
    MetadataWritable { calls: Vec<String> },
}

/// Whether a passed self-test `t` proves what `isolation` promises; if so,
/// what held, as reports say it (`own_uid`: the worker has a uid of its own).
pub fn verdict(isolation: Isolation, t: &SelfTest, own_uid: bool) -> Result<String, NotHeld> {
    let refuse = Err;
    let own_uid = if own_uid { ", own uid" } else { "" };
    // What keeps the child off other processes: under bwrap and
    // rlimits, the scope-only Landlock domain and the seccomp filter
    // the harness puts in place where the kernel allows.
    let mut scoped = String::new();
    if let Some(held) = &t.landlock {
        scoped += &format!(
            ", Landlock ABI {} scope ({})",
            held.landlock_abi,
            held.rules.join(", ")
        );
    }
    if t.seccomp {
        scoped += ", seccomp (other processes)";
    }
    if !t.zygote_unreachable {
        scoped += "; other processes NOT out of reach (no uid of its own, no seccomp filter)";
    }
    // Landlock has no right for metadata and bwrap's own /tmp is the
    // user's: in both only the filter keeps a submission off the mode,
    // owner, times and attributes of files outside its folder.
    if isolation != Isolation::Rlimits && !t.metadata_refused {
        return refuse(NotHeld::MetadataWritable {
            calls: t.metadata_unrefused.clone(),
        });
    }
    match isolation {
        Isolation::Bwrap => {
            // (bwrap's own root is listable: it holds only /usr, /tmp, ...)
            if !t.host_files_hidden {
                return refuse(NotHeld::BwrapHostFiles);
            }
            Ok(format!(
                "bwrap: namespaces (network, PID, IPC, mount), only /usr and the \
                 interpreter visible{own_uid}{scoped}"
            ))
        }
        Isolation::Landlock => {
            let Some(held) = &t.landlock else {
                return refuse(NotHeld::LandlockAbsent);
            };
            if !(t.host_files_hidden && t.root_hidden && t.inet_refused) {
                return refuse(NotHeld::LandlockOpen {
                    abi: held.landlock_abi,
                });
            }
            if !t.zygote_unreachable {
                return refuse(NotHeld::ZygoteReachable);
            }
            Ok(format!(
                "landlock: ABI {} ({}){own_uid}",
                held.landlock_abi,
                held.rules.join(", ")
            ))
        }
        Isolation::Rlimits => Ok(format!(
            "rlimits only{own_uid}{scoped}: host files readable, network reachable"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-test that found everything every tier promises.
    fn held() -> SelfTest {
        serde_json::from_value(serde_json::json!({
            "ok": true,
            "host_files_hidden": true,
            "root_hidden": true,
            "inet_refused": true,
            "zygote_unreachable": true,
            "seccomp": true,
            "landlock": {"landlock_abi": 7, "rules": ["files", "seccomp"]},
            "metadata_refused": true,
        }))
        .unwrap()
    }

    /// A metadata call that went through in the self-test stops a bwrap or
    /// landlock run (exit 2, as every `NotHeld`), saying which; rlimits
    /// (weak by design, its filter best effort) runs on.
    #[test]
    fn a_metadata_call_that_went_through_stops_bwrap_and_landlock() {
        let mut open = held();
        open.metadata_refused = false;
        open.metadata_unrefused = vec!["fchmod: went through".into()];
        // An older harness's self-test, which said nothing of metadata.
        let mut silent = held();
        silent.metadata_refused = false;
        for tier in [Isolation::Bwrap, Isolation::Landlock] {
            assert!(verdict(tier, &held(), false).is_ok(), "{tier:?}");
            let why = verdict(tier, &open, false).unwrap_err();
            assert!(matches!(why, NotHeld::MetadataWritable { .. }), "{why:?}");
            assert!(why.to_string().ends_with("fchmod: went through"), "{why}");
            assert!(verdict(tier, &silent, true).is_err(), "{tier:?}");
        }
        assert!(verdict(Isolation::Rlimits, &open, false).is_ok());
    }
}
