//! Finding submissions under a path: folders holding `main.py` (run in the
//! sandbox) or a shipped `recording.json` (read, never run).

use super::RecordError;
use std::path::{Path, PathBuf};

/// One submission found under PATH.
#[derive(Clone, Debug)]
pub struct Submission {
    /// Folder name (relative path from the PATH root for nested folders, `/`-separated); unique.
    pub id: String,
    pub dir: PathBuf,
    pub source: SubmissionSource,
}

/// Where a submission's outcomes come from.
#[derive(Clone, Debug)]
pub enum SubmissionSource {
    /// `main.py`: recorded by running it in the sandbox.
    MainPy(PathBuf),
    /// `recording.json` shipped in the folder (recorded elsewhere): read and validated, never run.
    Recording(PathBuf),
}

/// A regular file (not a symlink: a link could point anywhere on the machine).
fn regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .map(|m| m.file_type().is_file())
        .unwrap_or(false)
}

/// What a folder submits, if anything. `main.py` wins over a shipped
/// recording: code we run ourselves is more trustworthy than outcomes
/// recorded elsewhere.
fn source_of(dir: &Path) -> Option<SubmissionSource> {
    let main = dir.join("main.py");
    if regular_file(&main) {
        return Some(SubmissionSource::MainPy(main));
    }
    let rec = dir.join("recording.json");
    if regular_file(&rec) {
        return Some(SubmissionSource::Recording(rec));
    }
    None
}

/// PATH is one submission (folder with main.py or recording.json) or a folder of them.
/// Walks with walkdir, never following symlinks; skips hidden folders (`.git`,
/// `.autograder`); does not look inside a submission folder; sorted by id.
pub fn discover(path: &Path) -> Result<Vec<Submission>, RecordError> {
    let meta = std::fs::metadata(path).map_err(|e| RecordError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    if !meta.is_dir() {
        return Err(RecordError::NotAFolder(path.to_path_buf()));
    }
    if let Some(source) = source_of(path) {
        let id = std::fs::canonicalize(path)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "submission".to_string());
        return Ok(vec![Submission {
            id,
            dir: path.to_path_buf(),
            source,
        }]);
    }
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(path)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = entry.map_err(|e| RecordError::Io {
            path: e.path().unwrap_or(path).to_path_buf(),
            source: e.into(),
        })?;
        if !entry.file_type().is_dir() {
            continue;
        }
        if entry.file_name().to_string_lossy().starts_with('.') {
            walk.skip_current_dir();
            continue;
        }
        if let Some(source) = source_of(entry.path()) {
            let rel = entry.path().strip_prefix(path).unwrap_or(entry.path());
            let id = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            found.push(Submission {
                id,
                dir: entry.path().to_path_buf(),
                source,
            });
            walk.skip_current_dir();
        }
    }
    found.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(found)
}
