//! Reading, validating and writing recording files.

use super::format::{CaseOutcome, Recording, RECORDING_FORMAT};
use super::RecordError;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Largest recording file read (a shipped one is student-controlled).
pub const MAX_RECORDING_BYTES: u64 = 32 * 1024 * 1024;
/// Deepest JSON nesting accepted in a recording file.
pub const MAX_NESTING: usize = 512;

/// Reads and validates a recording file (size cap, format version, well-formed outcomes).
pub fn read_recording(path: &Path) -> Result<Recording, RecordError> {
    let bad = |why: String| RecordError::BadRecording {
        path: path.to_path_buf(),
        why,
    };
    let io = |e: std::io::Error| RecordError::Io {
        path: path.to_path_buf(),
        error: e,
    };
    let meta = std::fs::symlink_metadata(path).map_err(io)?;
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
        .map_err(io)?
        .take(MAX_RECORDING_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    parse_recording(&bytes).map_err(bad)
}

/// Parses and validates recording JSON; the error says what is wrong.
pub fn parse_recording(bytes: &[u8]) -> Result<Recording, String> {
    if nesting(bytes) > MAX_NESTING {
        return Err(format!("JSON nested deeper than {MAX_NESTING} levels"));
    }
    // serde_json has its own recursion limit (128) which outcome values may
    // exceed legitimately: go through an untyped Value without it.
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value: serde_json::Value =
        serde::Deserialize::deserialize(&mut de).map_err(|e| format!("not valid JSON: {e}"))?;
    de.end().map_err(|e| format!("not valid JSON: {e}"))?;
    match value.get("format") {
        Some(serde_json::Value::String(f)) if f == RECORDING_FORMAT => {}
        Some(serde_json::Value::String(f)) => {
            return Err(format!(
                "format {f:?} is not supported (this autograder reads {RECORDING_FORMAT:?})"
            ))
        }
        _ => return Err(format!("no \"format\": {RECORDING_FORMAT:?} field")),
    }
    let rec: Recording =
        serde_json::from_value(value).map_err(|e| format!("not a valid recording: {e}"))?;
    for (case, outcome) in &rec.outcomes {
        validate_outcome(outcome).map_err(|why| format!("outcome of {case}: {why}"))?;
    }
    Ok(rec)
}

/// Deepest `[`/`{` nesting outside strings.
pub(crate) fn nesting(bytes: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    for &b in bytes {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Checks what serde cannot: a returned value is valid tagged JSON, numbers are sane.
pub fn validate_outcome(outcome: &CaseOutcome) -> Result<(), String> {
    match outcome {
        CaseOutcome::Returned { value, .. } => crate::value::tagged::decode(value)
            .map(|_| ())
            .map_err(|e| format!("returned value is not valid tagged JSON: {e}")),
        CaseOutcome::Raised { mro, class, .. } => {
            if mro.is_empty() || class.is_empty() {
                Err("a raised outcome needs a class and a non-empty mro".into())
            } else {
                Ok(())
            }
        }
        CaseOutcome::Timeout {
            seconds,
            submission_budget,
        } if [Some(*seconds), *submission_budget]
            .into_iter()
            .flatten()
            .any(|s| !s.is_finite() || s < 0.0) =>
        {
            Err("timeout seconds must be a non-negative number".into())
        }
        _ => Ok(()),
    }
}

/// Where a submission's recording lives under the work dir. Ids are
/// relative folder paths without `..` (from [`super::discover`]); any other
/// character that could escape the folder is replaced.
pub fn recording_path(work_dir: &Path, id: &str) -> PathBuf {
    let mut p = work_dir.join("recordings");
    let parts: Vec<&str> = id.split('/').filter(|s| !s.is_empty()).collect();
    for (i, part) in parts.iter().enumerate() {
        let safe = if *part == "." || *part == ".." {
            "_".to_string()
        } else {
            part.replace('\\', "_")
        };
        if i + 1 == parts.len() {
            p.push(format!("{safe}.json"));
        } else {
            p.push(safe);
        }
    }
    if parts.is_empty() {
        p.push("_.json");
    }
    p
}

/// Writes a recording atomically (temp file in the same folder, then rename).
pub fn write_recording(path: &Path, rec: &Recording) -> Result<(), RecordError> {
    let io = |e: std::io::Error| RecordError::Io {
        path: path.to_path_buf(),
        error: e,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    let mut text = serde_json::to_vec_pretty(rec).map_err(|e| io(e.into()))?;
    text.push(b'\n');
    tmp.write_all(&text).map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Makes sure recordings can be stored under `work_dir` before any is made,
/// so an unusable `--work-dir` is one clear error rather than one per
/// submission.
pub fn check_work_dir(work_dir: &Path) -> Result<(), RecordError> {
    let dir = work_dir.join("recordings");
    let io = |e: std::io::Error| RecordError::Io {
        path: dir.clone(),
        error: e,
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    tempfile::NamedTempFile::new_in(&dir).map_err(io)?;
    Ok(())
}
