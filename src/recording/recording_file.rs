//! Reading, validating and writing recording files (`recording.json`, and
//! `recordings/<id>.json` under the work dir).

use super::format::{Recording, RECORDING_FORMAT};
use super::json::{self, JsonError, MAX_RECORDING_NESTING};
use sha2::Digest;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Largest recording file read (a shipped one is student-controlled): what
/// one submission may record ([`super::caps::MAX_SUBMISSION_BYTES`]) and
/// room for the file's layout.
pub const MAX_RECORDING_BYTES: u64 = (super::caps::MAX_SUBMISSION_BYTES as u64) + (16 << 20);

/// Why a recording file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// Reading, writing or making room for the file at `path` failed.
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file at `path` is not a recording this grader reads (`why` is
    /// shown as it is: in an error row, to whoever made the file).
    #[error("{}: {why}", path.display())]
    Invalid { path: PathBuf, why: String },
}

impl RecordingError {
    fn io(path: &Path) -> impl Fn(std::io::Error) -> RecordingError + '_ {
        move |source| RecordingError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Reads and validates a recording file (size cap, format version, well-formed outcomes).
pub fn read_recording(path: &Path) -> Result<Recording, RecordingError> {
    let bad = |why: String| RecordingError::Invalid {
        path: path.to_path_buf(),
        why,
    };
    let io = RecordingError::io(path);
    let meta = std::fs::symlink_metadata(path).map_err(&io)?;
    if !meta.file_type().is_file() {
        return Err(bad("not a regular file".into()));
    }
    if meta.len() > MAX_RECORDING_BYTES {
        return Err(bad(format!(
            "{} bytes, more than the {} byte limit",
            meta.len(),
            MAX_RECORDING_BYTES
        )));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(&io)?
        .take(MAX_RECORDING_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(&io)?;
    parse_recording(&bytes).map_err(bad)
}

/// Parses and validates recording JSON; the error says what is wrong, in
/// words for whoever made the file (it is the product: an error row).
/// Returned values stay text (see [`super::format::RecordedValue`]): the
/// document is never held as a tree.
pub fn parse_recording(bytes: &[u8]) -> Result<Recording, String> {
    /// The `format` field alone, read first to say which version a file is.
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        format: Option<serde_json::Value>,
    }
    let head: Head = json::from_slice(bytes, MAX_RECORDING_NESTING).map_err(|e| match e {
        JsonError::TooDeep { limit } => format!("JSON nested deeper than {limit} levels"),
        JsonError::Syntax(e) => format!("not valid JSON: {}", short(&e)),
    })?;
    match head.format {
        Some(serde_json::Value::String(f)) if f == RECORDING_FORMAT => {}
        Some(serde_json::Value::String(f)) => {
            return Err(format!(
                "format {:?} is not supported (this autograder reads {RECORDING_FORMAT:?})",
                crate::text::cut(&f, 100)
            ))
        }
        _ => return Err(format!("no \"format\": {RECORDING_FORMAT:?} field")),
    }
    let rec: Recording = json::from_slice(bytes, MAX_RECORDING_NESTING)
        .map_err(|e| format!("not a valid recording: {}", short_json(&e)))?;
    super::caps::admit_recording(rec).map_err(|e| crate::errors::chain(&e))
}

/// A parse error as an error row shows it (serde quotes what it did not
/// expect, which a hostile file makes as long as it likes).
fn short(e: &serde_json::Error) -> String {
    crate::text::cut(&e.to_string(), 300)
}

fn short_json(e: &JsonError) -> String {
    crate::text::cut(&e.to_string(), 300)
}

/// Where a submission's recording lives under the work dir:
/// `recordings/<name>.json`, one file per id, its name a spelling of the
/// whole id that no two ids share:
///
/// - every byte of the id's UTF-8 outside `A-Z a-z 0-9 _ - .` is written
///   `%XX` (uppercase hex): `/` too (nested ids stay one file, so no file
///   is ever a folder another id needs), and `%` itself;
/// - a `.` at the start is written `%2E` (no hidden file, never `.` or
///   `..`), and the empty id is `%.json`;
/// - a spelling that would make the file name longer than a file system
///   allows (255 bytes) is cut to its first 185 bytes (at an
///   escape's start), followed by `~` and the sha256 of the whole id in
///   hex: `~` is never in a spelling otherwise.
///
/// `bob\carol` is `bob%5Ccarol.json`, `bob_carol` is `bob_carol.json`,
/// `sec-a/alice` is `sec-a%2Falice.json`, `élève` is `%C3%A9l%C3%A8ve.json`.
pub fn recording_path(work_dir: &Path, id: &str) -> PathBuf {
    work_dir.join("recordings").join(recording_file_name(id))
}

/// The longest file name most file systems (ext4, XFS, btrfs, APFS) take,
/// in bytes.
const NAME_MAX: usize = 255;

/// What comes before the hash in a file name spelled too long.
const KEPT_BEFORE_HASH: usize = 185;

/// The file name of `id`'s recording (see [`recording_path`]).
fn recording_file_name(id: &str) -> String {
    use std::fmt::Write;
    const SUFFIX: &str = ".json";
    if id.is_empty() {
        return format!("%{SUFFIX}");
    }
    let mut name = String::with_capacity(id.len() + SUFFIX.len());
    // Where each byte's spelling starts, to cut at one.
    let mut starts = Vec::with_capacity(id.len());
    for (i, &b) in id.as_bytes().iter().enumerate() {
        starts.push(name.len());
        let keep = b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && i > 0);
        if keep {
            name.push(b as char);
        } else {
            let _ = write!(name, "%{b:02X}");
        }
    }
    if name.len() + SUFFIX.len() <= NAME_MAX {
        name.push_str(SUFFIX);
        return name;
    }
    let cut = starts
        .iter()
        .rev()
        .find(|&&at| at <= KEPT_BEFORE_HASH)
        .copied()
        .unwrap_or(0);
    name.truncate(cut);
    let hash = hex::encode(sha2::Sha256::digest(id.as_bytes()));
    format!("{name}~{hash}{SUFFIX}")
}

/// Writes a recording atomically (temp file in the same folder, then
/// [`crate::atomic::replace`]).
pub fn write_recording(path: &Path, rec: &Recording) -> Result<(), RecordingError> {
    let io = RecordingError::io(path);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(&io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(&io)?;
    // Compact: a recording is read by programs (`jq .` shows it to people).
    let mut text = serde_json::to_vec(rec).map_err(|e| io(e.into()))?;
    text.push(b'\n');
    tmp.write_all(&text).map_err(&io)?;
    crate::atomic::replace(tmp, path).map_err(&io)
}

/// Makes sure outcomes can be stored under `work_dir` (its `store/`, where
/// every recording made here goes) before any is made, so an unusable
/// `--work-dir` is one clear error rather than one per submission.
pub fn check_work_dir(work_dir: &Path) -> Result<(), RecordingError> {
    let dir = work_dir.join("store");
    let io = RecordingError::io(&dir);
    std::fs::create_dir_all(&dir).map_err(&io)?;
    tempfile::NamedTempFile::new_in(&dir).map_err(&io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    fn name(id: &str) -> String {
        let path = recording_path(Path::new("w"), id);
        assert_eq!(path.parent(), Some(Path::new("w/recordings")), "{id:?}");
        path.file_name().unwrap().to_str().unwrap().to_string()
    }

    #[test]
    fn recording_file_names_spell_the_whole_id() {
        for (id, file) in [
            ("alice", "alice.json"),
            ("bob\\carol", "bob%5Ccarol.json"),
            ("bob_carol", "bob_carol.json"),
            ("bob/carol", "bob%2Fcarol.json"),
            ("bob%2Fcarol", "bob%252Fcarol.json"),
            ("a.b-c_D9", "a.b-c_D9.json"),
            ("élève", "%C3%A9l%C3%A8ve.json"),
            ("clean-a\\u{200b}", "clean-a%5Cu%7B200b%7D.json"),
            (".", "%2E.json"),
            ("..", "%2E..json"),
            (".git", "%2Egit.json"),
            ("a/..", "a%2F...json"),
            ("", "%.json"),
        ] {
            assert_eq!(name(id), file, "{id:?}");
        }
    }

    #[test]
    fn long_ids_get_short_distinct_file_names() {
        let deep = format!("deep/{}", "d".repeat(250)).repeat(16);
        let mut names = std::collections::BTreeSet::new();
        for id in [
            deep.clone(),
            format!("{deep}x"),
            format!("{deep}y"),
            "\u{430}".repeat(100),
            "ж".repeat(100),
            "ж".repeat(101),
            "a".repeat(250),
            "a".repeat(251),
        ] {
            let file = name(&id);
            assert!(file.len() <= NAME_MAX, "{} bytes", file.len());
            assert!(file.ends_with(".json"));
            assert!(names.insert(file.clone()), "{file} twice");
            if id.len() > 250 {
                assert!(file.contains('~'), "{file}");
                // Readable: it starts with the id's own spelling.
                assert!(file.starts_with(&name(&id[..10]).replace(".json", "")));
            }
        }
        assert_eq!(name(&"a".repeat(250)), format!("{}.json", "a".repeat(250)));
    }

    #[test]
    fn no_two_ids_share_a_recording_file() {
        use rand::{Rng, SeedableRng};
        let pieces = [
            "a", "_", "%", "2F", "5C", "/", "\\", ".", "-", "é", "~", " ", "x",
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut seen = std::collections::HashMap::new();
        for _ in 0..20_000 {
            let len = rng.gen_range(0..8);
            let id: String = (0..len)
                .map(|_| pieces[rng.gen_range(0..pieces.len())])
                .collect();
            let file = name(&id);
            assert!(!file.starts_with('.') && !file.contains('/'), "{file}");
            if let Some(other) = seen.insert(file.clone(), id.clone()) {
                assert_eq!(other, id, "both are {file}");
            }
        }
    }
}
