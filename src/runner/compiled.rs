//! The harness's programs and harness.py itself as an earlier run compiled
//! them, kept in the user's cache folder so that a run does not compile
//! ~4,500 lines of Python again (20 ms of a one-submission run, on its
//! critical path; harness.py alone 2-3 ms before its hello).
//!
//! One file per harness version and interpreter. The harness says, with
//! the code it sends back, which interpreter build compiled it (its
//! `sys.version`, optimization level and cache tag); it uses a cached file
//! only when that tag is its own, and compiles its sources otherwise.
//!
//! What this file holds runs as the harness, unsandboxed, so it is trusted
//! only as the user's own files are: a folder or file that another user
//! could have written (not owned by this user, or writable by its group or
//! others) is never read nor written, and a file whose digest does not
//! match its contents (cut short, corrupted) is ignored and replaced.
//! Student code never reaches it: it runs as another uid, or confined to
//! its scratch folder, and the code comes back to the grader on the
//! harness's own stdout before any student code runs.

use sha2::{Digest, Sha256};
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The first line of a cache file.
const MAGIC: &str = "autograder-harness-code/1";

/// The programs compiled by an interpreter: its tag (as the harness writes
/// it) and the marshalled code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    pub tag: String,
    pub code: Vec<u8>,
}

/// The cache folder a run uses by default: `$XDG_CACHE_HOME/autograder`,
/// else `$HOME/.cache/autograder`; `None` without either.
pub fn default_dir() -> Option<PathBuf> {
    dir_from(std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"))
}

/// As [`default_dir`], from those two variables' values: a relative one
/// is ignored, as the XDG base directory specification says.
fn dir_from(xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let absolute = |v: OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    xdg.and_then(absolute)
        .or_else(|| home.and_then(absolute).map(|h| h.join(".cache")))
        .map(|d| d.join("autograder"))
}

/// The file that holds the programs of this harness version compiled by
/// `python` (its executable, as the run settled it).
fn file_in(dir: &Path, python: &Path) -> PathBuf {
    let mut h = Sha256::new();
    h.update(super::harness::harness_version().as_bytes());
    h.update([0]);
    h.update(python.as_os_str().as_encoded_bytes());
    let key = hex::encode(h.finalize());
    dir.join("harness").join(format!("{}.code", &key[..32]))
}

/// Whether `path` is this user's alone to write: owned by the effective
/// uid, not writable by its group or others, and not a symbolic link.
fn own(path: &Path) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let euid = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(path).is_ok_and(|m| {
        !m.file_type().is_symlink() && m.uid() == euid && m.permissions().mode() & 0o022 == 0
    })
}

/// The programs cached for `python` in `dir`, when there is a sound file.
pub fn load(dir: &Path, python: &Path) -> Option<Compiled> {
    let file = file_in(dir, python);
    let folder = file.parent()?;
    if !(own(dir) && own(folder) && own(&file)) {
        return None;
    }
    let data = std::fs::read(&file).ok()?;
    parse(&data)
}

/// A cache file's contents: the magic line, the SHA-256 (hex) of what
/// follows it, the tag (a JSON string) on a line, then the code.
fn parse(data: &[u8]) -> Option<Compiled> {
    let (magic, rest) = split_line(data)?;
    let (digest, rest) = split_line(rest)?;
    if magic != MAGIC.as_bytes() || digest != hex::encode(Sha256::digest(rest)).as_bytes() {
        return None;
    }
    let (tag, code) = split_line(rest)?;
    let tag: String = serde_json::from_slice(tag).ok()?;
    Some(Compiled {
        tag,
        code: code.to_vec(),
    })
}

fn split_line(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = data.iter().position(|&b| b == b'\n')?;
    Some((&data[..i], &data[i + 1..]))
}

fn contents(compiled: &Compiled) -> Vec<u8> {
    let mut rest = serde_json::to_vec(&compiled.tag).unwrap_or_default();
    rest.push(b'\n');
    rest.extend_from_slice(&compiled.code);
    let mut out = format!("{MAGIC}\n{}\n", hex::encode(Sha256::digest(&rest))).into_bytes();
    out.extend_from_slice(&rest);
    out
}

/// Keeps `compiled` as `python`'s programs in `dir` (made, mode 0700, when
/// missing), atomically. A cache that cannot be written costs the next
/// run its compile, nothing else: the error is for `--timings` and tests.
pub fn store(dir: &Path, python: &Path, compiled: &Compiled) -> std::io::Result<()> {
    let file = file_in(dir, python);
    let folder = file.parent().expect("a file in a folder");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)?;
    if !(own(dir) && own(folder)) {
        return Err(std::io::Error::other(format!(
            "{} is not this user's alone",
            folder.display()
        )));
    }
    let mut tmp = tempfile::NamedTempFile::new_in(folder)?;
    tmp.write_all(&contents(compiled))?;
    tmp.as_file().sync_data().ok();
    crate::atomic::replace(tmp, &file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Compiled {
        Compiled {
            tag: "3.11.2 (main)\n[GCC 12.2.0]|0|cpython-311".into(),
            code: (0..=255u8).cycle().take(5000).collect(),
        }
    }

    #[test]
    fn a_stored_file_is_read_back_and_a_changed_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("autograder");
        let python = Path::new("/usr/bin/python3.11");
        assert_eq!(load(&cache, python), None);
        store(&cache, python, &sample()).unwrap();
        assert_eq!(load(&cache, python), Some(sample()));
        // Another interpreter has a file of its own.
        assert_eq!(load(&cache, Path::new("/usr/bin/python3.12")), None);
        let file = file_in(&cache, python);
        let good = std::fs::read(&file).unwrap();
        for cut in [1, good.len() / 2, good.len() - 1] {
            std::fs::write(&file, &good[..cut]).unwrap();
            assert_eq!(load(&cache, python), None, "cut at {cut}");
        }
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&file, &flipped).unwrap();
        assert_eq!(load(&cache, python), None);
        // Replaced whole by the next store.
        store(&cache, python, &sample()).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), good);
    }

    #[test]
    fn a_folder_or_file_others_may_write_is_neither_read_nor_written() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("autograder");
        let python = Path::new("/usr/bin/python3");
        store(&cache, python, &sample()).unwrap();
        let file = file_in(&cache, python);
        let folder = file.parent().unwrap().to_path_buf();
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        assert_eq!(
            std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777,
            0o700
        );
        for (path, open) in [(&cache, 0o777), (&folder, 0o770), (&file, 0o666)] {
            let was = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            mode(path, open);
            assert_eq!(load(&cache, python), None, "{}", path.display());
            if path != &file {
                assert!(store(&cache, python, &sample()).is_err());
            }
            mode(path, was);
            assert_eq!(load(&cache, python), Some(sample()));
        }
        // A symbolic link to a sound file is not read.
        let elsewhere = dir.path().join("elsewhere.code");
        std::fs::rename(&file, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
        assert_eq!(load(&cache, python), None);
    }

    #[test]
    fn the_default_folder_follows_xdg_then_home() {
        let v = |s: &str| Some(OsString::from(s));
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(dir_from(v("/x"), v("/h")), p("/x/autograder"));
        assert_eq!(dir_from(None, v("/h")), p("/h/.cache/autograder"));
        assert_eq!(dir_from(v("rel"), v("/h")), p("/h/.cache/autograder"));
        assert_eq!(dir_from(v(""), v("rel")), None);
        assert_eq!(dir_from(None, None), None);
    }
}
