//! The recording format (`autograder-recording/1`): one JSON document per
//! submission, the interface to other runners. Documented in
//! `docs/recording-format.md`.

use super::json::{self, JsonError, MAX_OUTCOME_NESTING, MAX_VALUE_NESTING};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// The `format` field every recording carries.
pub const RECORDING_FORMAT: &str = "autograder-recording/1";

/// The longest `shared` text a `returned` outcome may carry (the harness
/// writes at most 328); a longer one makes the outcome unreadable.
pub const SHARED_CHARS: usize = 400;

/// Each value of a `changed` (an argument's part before and after the call,
/// tagged JSON), in characters: only shown, so the harness writes a longer
/// one as null.
pub const CHANGE_VALUE_CHARS: usize = 2000;

/// One submission's outcomes, one per case id (`<checkpoint>/<case>`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    pub format: String,
    /// The submission id (its folder name).
    pub submission: String,
    /// sha256 of `main.py`, hex; absent for recordings made elsewhere without one.
    #[serde(default)]
    pub source_sha256: Option<String>,
    /// The corpus fingerprint the outcomes answer.
    pub corpus_fingerprint: String,
    /// Which harness produced it (e.g. `autograder-harness/1`, or another runner's name).
    pub harness: String,
    /// The sandbox tier the code ran under: `bwrap`, `landlock`, `rlimits`,
    /// or what another runner says.
    pub isolation: String,
    /// The interpreter's version (`3.10.13`); absent from other runners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// What the sandbox's self-test found held (e.g. `landlock: ABI 7 (files,
    /// tcp, signals, abstract-unix, seccomp)`); absent from other runners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// Outcomes by case id.
    pub outcomes: BTreeMap<String, CaseOutcome>,
    /// What the student's code printed, capped.
    #[serde(default)]
    pub output: String,
    /// Integrity findings: the grader's scan of `main.py` (`source:
    /// "static"`, made whenever the grader has the source) and what the
    /// harness saw at run time (`"runtime"`). For instructors only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub integrity: Vec<crate::integrity::Finding>,
}

/// What happened when one case's call ran. Read through [`WireOutcome`]
/// (serde's internally tagged enums buffer every value as a tree, and a
/// returned value must stay text).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CaseOutcome {
    /// The call returned; `value` is tagged JSON.
    Returned {
        value: RecordedValue,
        /// The result shares a list or dict object with the arguments.
        shares_with_args: bool,
        /// The call changed its arguments.
        args_changed: bool,
        /// The result holds a list or dict that, after the call, the module
        /// holds (reachable from its globals) or that an earlier call of the
        /// same process returned (absent from older recordings and other
        /// runners: `false`). Which checkpoints it fails is
        /// [`crate::reference::returns_new`]'s to say.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        shares_with_state: bool,
        /// Where the shared object is, for people: `got['arguments'] is
        /// args[0]['arguments']`, `got is main.FILES`, `got is an earlier
        /// call's result`. Display text only (never decides a verdict), at
        /// most [`SHARED_CHARS`] characters; absent when nothing is shared,
        /// and from older recordings.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shared: Option<String>,
        /// Where the call changed its arguments, for people (never decides
        /// a verdict; `args_changed` does): absent when it did not, when
        /// the runner could not tell, and from older recordings.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changed: Option<ArgChange>,
    },
    /// The call raised.
    Raised {
        /// `type(e).__name__`.
        class: String,
        /// Names along `type(e).__mro__`, most derived first.
        mro: Vec<String>,
        /// `str(e)`, cut to 1 KiB.
        message: String,
    },
    /// The returned value was too large to encode.
    OutputTooLarge,
    /// The call ran past the per-case time limit (`seconds`), or the
    /// submission's wall budget for all its cases ran out before or while it
    /// ran (`submission_budget`, that budget in seconds; absent from older
    /// recordings and other runners).
    Timeout {
        seconds: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        submission_budget: Option<f64>,
    },
    /// The process died during the call.
    Crashed {
        #[serde(default)]
        exit_code: Option<i32>,
        #[serde(default)]
        signal: Option<i32>,
    },
    /// The process ran out of memory during the call: it raised
    /// `MemoryError`, or the kernel's OOM killer ended it. `limit`, the
    /// bound that was reached (absent from older recordings and other
    /// runners).
    OutOfMemory {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<MemoryLimit>,
    },
    /// The submission wrote more than `bytes` to its folder (the only place
    /// it may write under landlock) during the call, and was stopped.
    DiskLimit { bytes: u64 },
    /// `main.py` defines no such function.
    Missing,
    /// `main.py` did not import.
    ImportError {
        exc_type: String,
        message: String,
        #[serde(default)]
        line: Option<u32>,
        /// That line of `main.py`, for people (absent when the runner does
        /// not say it, and from older recordings).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source_line: Option<String>,
    },
}

/// The first place where a call changed its arguments: `path` (from
/// `args[i]` or `kwargs['name']`, at most [`SHARED_CHARS`] characters) and
/// the value there before and after the call (tagged JSON, at most
/// [`CHANGE_VALUE_CHARS`] characters each;
/// absent when longer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgChange {
    pub path: String,
    #[serde(default)]
    pub before: Option<RecordedValue>,
    #[serde(default)]
    pub after: Option<RecordedValue>,
}

impl ArgChange {
    /// Why it is beyond its caps, if it is.
    fn beyond_caps(&self) -> Option<String> {
        if self.path.chars().count() > SHARED_CHARS {
            return Some(format!(
                "a `changed` path of more than {SHARED_CHARS} characters"
            ));
        }
        [&self.before, &self.after]
            .into_iter()
            .flatten()
            .any(|v| v.text().chars().count() > CHANGE_VALUE_CHARS)
            .then(|| format!("a `changed` value of more than {CHANGE_VALUE_CHARS} characters"))
    }
}

/// A memory bound a case ran out of: `bytes`, and what it bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub of: MemoryScope,
}

/// What a [`MemoryLimit`] bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryScope {
    /// One process's address space (`--memory`, RLIMIT_AS).
    Process,
    /// The submission's processes together (the worker's cgroup).
    Submission,
    /// Everything the grader runs: the cgroup of the container or job it
    /// runs in (Gradescope's 768 MB, a Slurm job's `--mem`).
    Grader,
    /// The machine's memory: no cgroup bounds it.
    Machine,
}

impl CaseOutcome {
    /// An outcome from its JSON text (as a child writes it, and as the
    /// store and grading keep it), nested at most [`MAX_OUTCOME_NESTING`].
    pub fn parse(text: &str) -> Result<CaseOutcome, JsonError> {
        json::from_slice(text.as_bytes(), MAX_OUTCOME_NESTING)
    }
}

/// A returned value as its tagged JSON text, kept as text (a list of
/// 200,000 zeros is 400 KB of text, but 16 MB as a `serde_json::Value`):
/// decoded when a case is graded, and dropped after.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RecordedValue(Box<RawValue>);

impl RecordedValue {
    /// The tagged JSON text, as recorded.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The value as JSON; `Err` when it is nested deeper than
    /// [`MAX_VALUE_NESTING`] or not JSON.
    pub fn to_json(&self) -> Result<serde_json::Value, JsonError> {
        json::from_slice(self.text().as_bytes(), MAX_VALUE_NESTING)
    }
}

impl From<serde_json::Value> for RecordedValue {
    fn from(value: serde_json::Value) -> Self {
        // Serializing a Value cannot fail (its keys are strings), and its
        // text is JSON.
        let text = serde_json::to_string(&value).unwrap_or_else(|_| "null".to_string());
        RecordedValue(RawValue::from_string(text).unwrap_or_else(|_| null_raw()))
    }
}

fn null_raw() -> Box<RawValue> {
    RawValue::from_string("null".to_string()).expect("null is JSON")
}

/// Two texts of the same JSON (whitespace, escapes) are the same value.
impl PartialEq for RecordedValue {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
            || matches!((self.to_json(), other.to_json()), (Ok(a), Ok(b)) if a == b)
    }
}

/// An outcome as written: every field of every kind optional, so that a
/// returned value can be read as text; [`CaseOutcome::deserialize`] then
/// checks that the kind has exactly its own fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireOutcome {
    kind: String,
    #[serde(default, deserialize_with = "present")]
    value: Option<RecordedValue>,
    shares_with_args: Option<bool>,
    args_changed: Option<bool>,
    shares_with_state: Option<bool>,
    shared: Option<String>,
    changed: Option<ArgChange>,
    class: Option<String>,
    mro: Option<Vec<String>>,
    message: Option<String>,
    seconds: Option<f64>,
    #[serde(default, deserialize_with = "present")]
    submission_budget: Option<Option<f64>>,
    #[serde(default, deserialize_with = "present")]
    exit_code: Option<Option<i32>>,
    #[serde(default, deserialize_with = "present")]
    signal: Option<Option<i32>>,
    exc_type: Option<String>,
    #[serde(default, deserialize_with = "present")]
    line: Option<Option<u32>>,
    bytes: Option<u64>,
    limit: Option<MemoryLimit>,
    source_line: Option<String>,
}

/// A field that is present (even as `null`) is `Some`.
fn present<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(de).map(Some)
}

impl WireOutcome {
    /// The names of the fields present.
    fn present(&self) -> Vec<&'static str> {
        let fields = [
            ("value", self.value.is_some()),
            ("shares_with_args", self.shares_with_args.is_some()),
            ("args_changed", self.args_changed.is_some()),
            ("shares_with_state", self.shares_with_state.is_some()),
            ("shared", self.shared.is_some()),
            ("changed", self.changed.is_some()),
            ("class", self.class.is_some()),
            ("mro", self.mro.is_some()),
            ("message", self.message.is_some()),
            ("seconds", self.seconds.is_some()),
            ("submission_budget", self.submission_budget.is_some()),
            ("exit_code", self.exit_code.is_some()),
            ("signal", self.signal.is_some()),
            ("exc_type", self.exc_type.is_some()),
            ("line", self.line.is_some()),
            ("bytes", self.bytes.is_some()),
            ("limit", self.limit.is_some()),
            ("source_line", self.source_line.is_some()),
        ];
        fields
            .into_iter()
            .filter(|(_, is)| *is)
            .map(|(name, _)| name)
            .collect()
    }

    fn outcome(self) -> Result<CaseOutcome, String> {
        let allowed: &[&str] = match self.kind.as_str() {
            "returned" => &[
                "value",
                "shares_with_args",
                "args_changed",
                "shares_with_state",
                "shared",
                "changed",
            ],
            "raised" => &["class", "mro", "message"],
            "timeout" => &["seconds", "submission_budget"],
            "crashed" => &["exit_code", "signal"],
            "import-error" => &["exc_type", "message", "line", "source_line"],
            "disk-limit" => &["bytes"],
            "out-of-memory" => &["limit"],
            "output-too-large" | "missing" => &[],
            other => {
                let other = crate::text::cut(other, 100);
                return Err(format!("unknown outcome kind {other:?}"));
            }
        };
        if let Some(field) = self.present().into_iter().find(|f| !allowed.contains(f)) {
            return Err(format!(
                "unknown field `{field}` in a {:?} outcome",
                self.kind
            ));
        }
        let need = |field: &str| format!("missing field `{field}` in a {:?} outcome", self.kind);
        Ok(match self.kind.as_str() {
            "returned" => CaseOutcome::Returned {
                value: self.value.ok_or_else(|| need("value"))?,
                shares_with_args: self
                    .shares_with_args
                    .ok_or_else(|| need("shares_with_args"))?,
                args_changed: self.args_changed.ok_or_else(|| need("args_changed"))?,
                shares_with_state: self.shares_with_state.unwrap_or(false),
                shared: match self.shared {
                    Some(text) if text.chars().count() > SHARED_CHARS => {
                        return Err(format!(
                            "a `shared` text of more than {SHARED_CHARS} characters"
                        ))
                    }
                    shared => shared,
                },
                changed: match self.changed {
                    Some(change) => match change.beyond_caps() {
                        Some(why) => return Err(why),
                        None => Some(change),
                    },
                    None => None,
                },
            },
            "raised" => CaseOutcome::Raised {
                class: self.class.ok_or_else(|| need("class"))?,
                mro: self.mro.ok_or_else(|| need("mro"))?,
                message: self.message.ok_or_else(|| need("message"))?,
            },
            "timeout" => CaseOutcome::Timeout {
                seconds: self.seconds.ok_or_else(|| need("seconds"))?,
                submission_budget: self.submission_budget.flatten(),
            },
            "crashed" => CaseOutcome::Crashed {
                exit_code: self.exit_code.flatten(),
                signal: self.signal.flatten(),
            },
            "import-error" => CaseOutcome::ImportError {
                exc_type: self.exc_type.ok_or_else(|| need("exc_type"))?,
                message: self.message.ok_or_else(|| need("message"))?,
                line: self.line.flatten(),
                source_line: self.source_line,
            },
            "disk-limit" => CaseOutcome::DiskLimit {
                bytes: self.bytes.ok_or_else(|| need("bytes"))?,
            },
            "output-too-large" => CaseOutcome::OutputTooLarge,
            "out-of-memory" => CaseOutcome::OutOfMemory { limit: self.limit },
            _ => CaseOutcome::Missing,
        })
    }
}

impl<'de> Deserialize<'de> for CaseOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        WireOutcome::deserialize(de)?
            .outcome()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind reads back as written ([`WireOutcome`] lists the kinds
    /// and their fields by hand: a new kind must be added there).
    #[test]
    fn every_outcome_kind_reads_back() {
        let all = [
            CaseOutcome::Returned {
                value: serde_json::json!({"a": [1, null]}).into(),
                shares_with_args: true,
                args_changed: false,
                shares_with_state: false,
                shared: Some("got['a'] is args[0]['a']".into()),
                changed: None,
            },
            CaseOutcome::Returned {
                value: serde_json::json!([]).into(),
                shares_with_args: false,
                args_changed: true,
                shares_with_state: true,
                shared: Some("got is main.FILES".into()),
                changed: None,
            },
            CaseOutcome::Raised {
                class: "E".into(),
                mro: vec!["main.E".into(), "ValueError".into()],
                message: "m".into(),
            },
            CaseOutcome::OutputTooLarge,
            CaseOutcome::Timeout {
                seconds: 2.0,
                submission_budget: Some(60.0),
            },
            CaseOutcome::Crashed {
                exit_code: Some(3),
                signal: None,
            },
            CaseOutcome::OutOfMemory { limit: None },
            CaseOutcome::OutOfMemory {
                limit: Some(MemoryLimit {
                    bytes: 768 << 20,
                    of: MemoryScope::Grader,
                }),
            },
            CaseOutcome::DiskLimit { bytes: 1 << 26 },
            CaseOutcome::Missing,
            CaseOutcome::ImportError {
                exc_type: "SyntaxError".into(),
                message: "bad".into(),
                line: Some(5),
                source_line: None,
            },
            CaseOutcome::ImportError {
                exc_type: "SyntaxError".into(),
                message: "bad".into(),
                line: Some(5),
                source_line: Some("    match text:".into()),
            },
        ];
        for outcome in all {
            let text = serde_json::to_string(&outcome).unwrap();
            let back: CaseOutcome = serde_json::from_str(&text).unwrap();
            assert_eq!(back, outcome, "{text}");
            let via_value: CaseOutcome =
                serde_json::from_value(serde_json::to_value(&outcome).unwrap()).unwrap();
            assert_eq!(via_value, outcome, "{text}");
        }
        for bad in [
            r#"{"kind":"missing","value":1}"#,
            r#"{"kind":"disk-limit"}"#,
            r#"{"kind":"returned","value":1,"shares_with_args":false}"#,
            r#"{"kind":"exploded"}"#,
            r#"{"kind":"raised","class":"E","mro":["E"],"message":"","shared":"x"}"#,
            r#"{"kind":"returned","value":1,"shares_with_args":false,"args_changed":false,"shared":1}"#,
        ] {
            assert!(serde_json::from_str::<CaseOutcome>(bad).is_err(), "{bad}");
        }
    }

    /// One parser reads every outcome text (a child's, the store's), as
    /// deep as a returned value may be, up to [`MAX_OUTCOME_NESTING`] and
    /// never deeper.
    #[test]
    fn an_outcome_parses_as_deep_as_a_value_may_be() {
        let nested = |depth: usize| {
            format!(
                r#"{{"kind":"returned","value":{}0{},"shares_with_args":false,"args_changed":false}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        assert!(CaseOutcome::parse(&nested(300)).is_ok());
        assert!(CaseOutcome::parse(&nested(MAX_OUTCOME_NESTING - 1)).is_ok());
        assert!(matches!(
            CaseOutcome::parse(&nested(MAX_OUTCOME_NESTING)),
            Err(JsonError::TooDeep { .. })
        ));
    }

    /// The sharing fields are optional: an outcome without them (older
    /// recordings, other runners) reads as sharing nothing with the module,
    /// and one that shares nothing is written without them, byte for byte
    /// as before.
    #[test]
    fn the_sharing_fields_are_optional_and_written_only_when_set() {
        let old = r#"{"kind":"returned","value":[1],"shares_with_args":true,"args_changed":false}"#;
        let o: CaseOutcome = serde_json::from_str(old).unwrap();
        assert_eq!(
            o,
            CaseOutcome::Returned {
                value: serde_json::json!([1]).into(),
                shares_with_args: true,
                args_changed: false,
                shares_with_state: false,
                shared: None,
                changed: None,
            }
        );
        assert_eq!(serde_json::to_string(&o).unwrap(), old);
        let new = r#"{"kind":"returned","value":[1],"shares_with_args":false,"args_changed":false,"shares_with_state":true,"shared":"got is an earlier call's result"}"#;
        let o: CaseOutcome = serde_json::from_str(new).unwrap();
        assert_eq!(serde_json::to_string(&o).unwrap(), new);
    }

    /// A shipped recording is the student's: its `shared` text is capped
    /// (an over-long one makes the outcome unreadable, never a longer reason).
    #[test]
    fn a_shared_text_over_the_cap_is_refused() {
        let with = |text: &str| {
            serde_json::from_str::<CaseOutcome>(&format!(
                r#"{{"kind":"returned","value":1,"shares_with_args":true,"args_changed":false,"shared":{}}}"#,
                serde_json::to_string(text).unwrap()
            ))
        };
        assert!(with(&"é".repeat(SHARED_CHARS)).is_ok());
        let err = with(&"x".repeat(SHARED_CHARS + 1)).unwrap_err().to_string();
        assert!(err.contains("`shared` text of more than 400"), "{err}");
    }

    #[test]
    fn a_change_over_its_caps_is_refused() {
        let with = |path: &str, before: &str| {
            serde_json::from_str::<CaseOutcome>(&format!(
                r#"{{"kind":"returned","value":1,"shares_with_args":false,"args_changed":true,"changed":{{"path":{},"before":{},"after":null}}}}"#,
                serde_json::to_string(path).unwrap(),
                serde_json::to_string(before).unwrap()
            ))
        };
        let fits = "x".repeat(CHANGE_VALUE_CHARS - 2);
        assert!(with(&"p".repeat(SHARED_CHARS), &fits).is_ok());
        let err = with(&"p".repeat(SHARED_CHARS + 1), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`changed` path of more than 400"), "{err}");
        let err = with("args[0]", &format!("{fits}x"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`changed` value of more than 2000"), "{err}");
    }
}
