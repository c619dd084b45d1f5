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
//! only as the user's own files are (see [`crate::user_cache`]). Student
//! code never reaches it: it runs as another uid, or confined to its
//! scratch folder, and the code comes back to the grader on the
//! harness's own stdout before any student code runs.

use crate::user_cache;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The first line of a cache file.
const MAGIC: &str = "autograder-harness-code/1";

/// The programs compiled by an interpreter: its tag (as the harness writes
/// it) and the marshalled code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    pub tag: String,
    pub code: Vec<u8>,
}

/// The name of the file that holds the programs of this harness version
/// compiled by `python` (its executable, as the run settled it).
fn file_name(python: &Path) -> String {
    let mut h = Sha256::new();
    h.update(super::harness::harness_version().as_bytes());
    h.update([0]);
    h.update(python.as_os_str().as_encoded_bytes());
    let key = hex::encode(h.finalize());
    format!("{}.code", &key[..32])
}

/// The folder in the cache these files are kept in.
const KIND: &str = "harness";

/// The programs cached for `python` in `dir`, when there is a sound file.
pub fn load(dir: &Path, python: &Path) -> Option<Compiled> {
    let payload = user_cache::read(dir, KIND, &file_name(python), MAGIC)?;
    let (tag, code) = user_cache::split_line(&payload)?;
    let tag: String = serde_json::from_slice(tag).ok()?;
    Some(Compiled {
        tag,
        code: code.to_vec(),
    })
}

/// Keeps `compiled` as `python`'s programs in `dir`, atomically (see
/// [`user_cache::write`]). A cache that cannot be written costs the next
/// run its compile, nothing else: the error is for `--timings` and tests.
pub fn store(dir: &Path, python: &Path, compiled: &Compiled) -> std::io::Result<()> {
    let mut payload = serde_json::to_vec(&compiled.tag).unwrap_or_default();
    payload.push(b'\n');
    payload.extend_from_slice(&compiled.code);
    user_cache::write(dir, KIND, &file_name(python), MAGIC, &payload)
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
    fn stored_programs_are_read_back_for_their_interpreter_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("autograder");
        let python = Path::new("/usr/bin/python3.11");
        assert_eq!(load(&cache, python), None);
        store(&cache, python, &sample()).unwrap();
        assert_eq!(load(&cache, python), Some(sample()));
        // Another interpreter has a file of its own.
        assert_eq!(load(&cache, Path::new("/usr/bin/python3.12")), None);
        // A sound frame whose tag is not JSON is not read.
        user_cache::write(&cache, KIND, &file_name(python), MAGIC, b"not json\ncode").unwrap();
        assert_eq!(load(&cache, python), None);
    }
}
