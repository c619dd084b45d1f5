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
    /// A folder that looks like a submission but cannot be graded (its
    /// `main.py` is a link or a folder, it holds no `main.py`, it is a link
    /// itself): reported for this submission rather than silently left out
    /// of the gradebook. The text says why.
    Unusable(String),
}

/// What a folder submits, if anything: the first of `main.py` and
/// `recording.json` that exists, of any kind. `main.py` wins over a shipped
/// recording: code we run ourselves is more trustworthy than outcomes
/// recorded elsewhere. Only regular files are read (a link could point
/// anywhere on the machine); anything else makes the submission unusable.
fn source_of(dir: &Path) -> Option<SubmissionSource> {
    for name in ["main.py", "recording.json"] {
        let path = dir.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let ft = meta.file_type();
        if ft.is_file() {
            return Some(if name == "main.py" {
                SubmissionSource::MainPy(path)
            } else {
                SubmissionSource::Recording(path)
            });
        }
        let what = if ft.is_symlink() {
            "a symbolic link (links are not followed)"
        } else if ft.is_dir() {
            "a folder, not a file"
        } else {
            "not a regular file"
        };
        return Some(SubmissionSource::Unusable(format!(
            "{} is {what}",
            path.display()
        )));
    }
    None
}

/// Folders that never hold submissions: hidden ones (`.git`, `.autograder`),
/// Python's byte-code caches and the resource forks macOS puts in archives.
fn ignored(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with('.') || name == "__pycache__" || name == "__MACOSX"
}

/// Why a folder with no subfolders and no `main.py` is not gradable, naming
/// a few of the files it holds (often a misnamed `Main.py` or `solution.py`).
fn empty_leaf(dir: &Path) -> Option<String> {
    let (names, has_subfolder) = listing(dir)?;
    (!has_subfolder).then(|| no_source(dir, &names))
}

/// The visible entries of `dir` (folders with a trailing `/`), sorted, and
/// whether any of them is a folder that may hold submissions.
fn listing(dir: &Path) -> Option<(Vec<String>, bool)> {
    let mut names = Vec::new();
    let mut has_subfolder = false;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        let is_dir = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir());
        has_subfolder |= is_dir && !ignored(&name);
        let hidden = name.to_string_lossy().starts_with('.');
        if !(hidden || is_dir && ignored(&name)) {
            let slash = if is_dir { "/" } else { "" };
            names.push(format!("{}{slash}", name.to_string_lossy()));
        }
    }
    names.sort();
    Some((names, has_subfolder))
}

fn no_source(dir: &Path, names: &[String]) -> String {
    let why = if names.is_empty() {
        "an empty folder".to_string()
    } else {
        let shown = names.len().min(5);
        let more = if names.len() > shown { ", …" } else { "" };
        format!("it holds {}{more}", names[..shown].join(", "))
    };
    format!("{}: no main.py or recording.json ({why})", dir.display())
}

/// PATH as one unusable submission, for when [`discover`] finds none there
/// and the only reader is the student (Gradescope shows `results.json`, not
/// the error stream): it says what PATH holds instead of a `main.py`.
pub fn nothing_found(path: &Path) -> Submission {
    let names = listing(path).map(|(n, _)| n).unwrap_or_default();
    Submission {
        id: single_id(path),
        dir: path.to_path_buf(),
        source: SubmissionSource::Unusable(no_source(path, &names)),
    }
}

/// PATH as one unusable submission, for when [`discover`] finds several
/// gradable folders there but the reader expects one (Gradescope: the
/// student uploaded `v1/main.py` and `v2/main.py`): it says what was found
/// and what to upload.
pub fn several_found(path: &Path, found: &[Submission]) -> Submission {
    let files: Vec<String> = found
        .iter()
        .filter_map(|s| match &s.source {
            SubmissionSource::MainPy(_) => Some(format!("{}/main.py", s.id)),
            SubmissionSource::Recording(_) => Some(format!("{}/recording.json", s.id)),
            SubmissionSource::Unusable(_) => None,
        })
        .collect();
    let shown = files.len().min(5);
    let more = if files.len() > shown { ", …" } else { "" };
    Submission {
        id: single_id(path),
        dir: path.to_path_buf(),
        source: SubmissionSource::Unusable(format!(
            "{}: {} folders hold a submission ({}{more}); upload exactly one main.py, \
             at the top of the upload or in one folder",
            path.display(),
            files.len(),
            files[..shown].join(", ")
        )),
    }
}

/// The id of a single submission given directly: its folder's name.
fn single_id(path: &Path) -> String {
    std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.file_name().map(name_text))
        .unwrap_or_else(|| "submission".to_string())
}

/// PATH is one submission (folder with main.py or recording.json) or a folder of them.
/// Walks with walkdir, never following symlinks; skips hidden folders (`.git`,
/// `.autograder`), `__pycache__` and `__MACOSX`; does not look inside a submission folder;
/// sorted by id. Folders that cannot be graded — a link to a folder, a
/// `main.py` that is not a regular file, a folder with neither subfolders nor
/// `main.py` — are listed as [`SubmissionSource::Unusable`] so the gradebook
/// says why instead of leaving the student out.
pub fn discover(path: &Path) -> Result<Vec<Submission>, RecordError> {
    let meta = std::fs::metadata(path).map_err(|e| RecordError::Io {
        path: path.to_path_buf(),
        error: e,
    })?;
    if !meta.is_dir() {
        return Err(RecordError::NotAFolder(path.to_path_buf()));
    }
    if let Some(source) = source_of(path) {
        return Ok(vec![Submission {
            id: single_id(path),
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
        let entry = match entry {
            Ok(entry) => entry,
            // An unreadable folder inside PATH is that folder's problem only.
            Err(e) if e.depth() > 0 && e.path().is_some() => {
                let dir = e.path().unwrap_or(path).to_path_buf();
                found.push(Submission {
                    id: id_of(path, &dir),
                    source: SubmissionSource::Unusable(format!("{}: {e}", dir.display())),
                    dir,
                });
                continue;
            }
            Err(e) => {
                return Err(RecordError::Io {
                    path: e.path().unwrap_or(path).to_path_buf(),
                    error: e.into(),
                })
            }
        };
        let ft = entry.file_type();
        let linked_dir = ft.is_symlink() && entry.path().is_dir();
        if !ft.is_dir() && !linked_dir {
            continue;
        }
        if ignored(entry.file_name()) {
            if ft.is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        let source = if linked_dir {
            Some(SubmissionSource::Unusable(format!(
                "{} is a symbolic link to a folder (links are not followed)",
                entry.path().display()
            )))
        } else {
            source_of(entry.path())
                .or_else(|| empty_leaf(entry.path()).map(SubmissionSource::Unusable))
        };
        if let Some(source) = source {
            found.push(Submission {
                id: id_of(path, entry.path()),
                dir: entry.path().to_path_buf(),
                source,
            });
            if ft.is_dir() {
                walk.skip_current_dir();
            }
        }
    }
    found.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(found)
}

/// A nested submission's id: its path from the PATH root, `/`-separated.
fn id_of(root: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    rel.components()
        .map(|c| name_text(c.as_os_str()))
        .collect::<Vec<_>>()
        .join("/")
}

/// A folder name as id text. Bytes that are not UTF-8 are written `\xNN`
/// rather than replaced, so two such names never become the same id.
fn name_text(name: &std::ffi::OsStr) -> String {
    if let Some(s) = name.to_str() {
        return s.to_string();
    }
    let mut out = String::new();
    for chunk in name.as_encoded_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}
