//! The corpus's cases as an earlier run parsed and checked them, kept in the
//! user's cache folder ([`crate::user_cache`]): a run that grades one
//! submission reads the same corpus every time, and parsing it (its Python
//! literals, the reference core's arity checks) was the longer of the two
//! start-up chains a submission's first case waits on.
//!
//! The cases are a function of the files read (the corpus's fingerprint
//! covers every file's path and contents), the folder as given (the cases'
//! file paths) and this binary's code. A binary is told by its path, size,
//! modification time and inode: a rebuild or an upgrade changes them. One
//! file per corpus folder, replaced when any of the three changes.

use super::Case;
use crate::user_cache;
use bincode::Options;
use sha2::{Digest, Sha256};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The first line of a cache file.
const MAGIC: &str = "autograder-corpus-cases/1";

/// The folder in the cache these files are kept in.
const KIND: &str = "corpus";

/// What this binary is, as far as a file system can tell; `None` when it
/// cannot be found (then nothing is cached).
fn binary() -> Option<Vec<u8>> {
    let exe = std::env::current_exe().ok()?;
    let m = std::fs::metadata(&exe).ok()?;
    let mut out = exe.into_os_string().into_encoded_bytes();
    for n in [
        m.len(),
        m.dev(),
        m.ino(),
        m.mtime() as u64,
        m.mtime_nsec() as u64,
    ] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
    Some(out)
}

/// The file's name (one per folder) and the key its first line must hold.
fn name_and_key(dir: &Path, fingerprint: &str) -> Option<(String, String)> {
    let folder = hex::encode(Sha256::digest(dir.as_os_str().as_encoded_bytes()));
    let mut h = Sha256::new();
    h.update(binary()?);
    h.update([0]);
    h.update(dir.as_os_str().as_encoded_bytes());
    h.update([0]);
    h.update(fingerprint.as_bytes());
    Some((
        format!("{}.cases", &folder[..32]),
        hex::encode(h.finalize()),
    ))
}

/// The cases an earlier run of this binary parsed from the corpus in `dir`
/// whose files hash to `fingerprint`, when `cache` has a sound file.
pub(super) fn load(cache: &Path, dir: &Path, fingerprint: &str) -> Option<Vec<Case>> {
    let (name, key) = name_and_key(dir, fingerprint)?;
    let payload = user_cache::read(cache, KIND, &name, MAGIC)?;
    let (first, cases) = user_cache::split_line(&payload)?;
    if first != key.as_bytes() {
        return None;
    }
    bincode::DefaultOptions::new().deserialize(cases).ok()
}

/// Keeps `cases` as parsed from the corpus in `dir` whose files hash to
/// `fingerprint`. A cache that cannot be written costs the next run its
/// parse, nothing else.
pub(super) fn store(cache: &Path, dir: &Path, fingerprint: &str, cases: &[Case]) {
    let Some((name, key)) = name_and_key(dir, fingerprint) else {
        return;
    };
    let mut payload = key.into_bytes();
    payload.push(b'\n');
    if bincode::DefaultOptions::new()
        .serialize_into(&mut payload, cases)
        .is_ok()
    {
        let _ = user_cache::write(cache, KIND, &name, MAGIC, &payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_tree(from: &Path, to: &Path) {
        for entry in walkdir::WalkDir::new(from) {
            let entry = entry.unwrap();
            let target = to.join(entry.path().strip_prefix(from).unwrap());
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }

    fn debug(cases: &[Case]) -> String {
        format!("{cases:?}")
    }

    #[test]
    fn cases_are_parsed_once_then_read_back_until_a_file_or_the_folder_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cases");
        copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cases"), &dir);
        let cache = tmp.path().join("cache");
        let parsed = super::super::load(&dir).unwrap();
        assert!(load(&cache, &dir, &parsed.fingerprint).is_none());
        // Parsed, then kept: what is read back is what was parsed, exactly.
        let first = super::super::load_cached(&dir, Some(&cache)).unwrap();
        assert_eq!(debug(&first.cases), debug(&parsed.cases));
        let kept = load(&cache, &dir, &parsed.fingerprint).expect("kept");
        assert_eq!(debug(&kept), debug(&parsed.cases));
        // A run reads the kept cases instead of parsing (a marked copy shows it).
        let mut marked = kept;
        marked[0].note = Some("read from the cache".into());
        store(&cache, &dir, &parsed.fingerprint, &marked);
        let again = super::super::load_cached(&dir, Some(&cache)).unwrap();
        assert_eq!(again.cases[0].note.as_deref(), Some("read from the cache"));
        assert_eq!(again.fingerprint, parsed.fingerprint);
        // Not for the same files in another folder (their cases' paths differ).
        let moved = tmp.path().join("moved");
        copy_tree(&dir, &moved);
        let elsewhere = super::super::load_cached(&moved, Some(&cache)).unwrap();
        assert_ne!(
            elsewhere.cases[0].note.as_deref(),
            Some("read from the cache")
        );
        assert!(elsewhere.cases[0].file.starts_with(&moved));
        // Nor once a file changes: parsed again, and kept in its place.
        let file = &parsed.cases[0].file;
        let text = std::fs::read_to_string(file).unwrap();
        std::fs::write(file, format!("{text}\n# changed\n")).unwrap();
        let changed = super::super::load_cached(&dir, Some(&cache)).unwrap();
        assert_ne!(changed.fingerprint, parsed.fingerprint);
        assert_ne!(
            changed.cases[0].note.as_deref(),
            Some("read from the cache")
        );
        assert_eq!(debug(&changed.cases), debug(&parsed.cases));
        assert!(load(&cache, &dir, &parsed.fingerprint).is_none());
        assert!(load(&cache, &dir, &changed.fingerprint).is_some());
    }

    #[test]
    fn a_cache_file_that_does_not_decode_is_parsed_over() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
        let cache = tmp.path().join("cache");
        let parsed = super::super::load(&dir).unwrap();
        let (name, key) = name_and_key(&dir, &parsed.fingerprint).unwrap();
        // Sound frames and keys over bytes that are not cases.
        for payload in [
            format!("{key}\nnot bincode"),
            format!("{key}\n"),
            "no key".into(),
        ] {
            user_cache::write(&cache, KIND, &name, MAGIC, payload.as_bytes()).unwrap();
            assert!(load(&cache, &dir, &parsed.fingerprint).is_none());
            let loaded = super::super::load_cached(&dir, Some(&cache)).unwrap();
            assert_eq!(debug(&loaded.cases), debug(&parsed.cases));
            assert!(load(&cache, &dir, &parsed.fingerprint).is_some());
        }
        // Nor is a str with a code point no str holds.
        let points = bincode::DefaultOptions::new()
            .serialize(&vec![0x61u32, 0x110000])
            .unwrap();
        let read = bincode::DefaultOptions::new().deserialize::<crate::value::PyStr>(&points);
        assert!(read.is_err());
    }
}
