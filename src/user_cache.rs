//! The user's cache folder (`$XDG_CACHE_HOME/autograder`): what an earlier
//! run worked out and the next one may reuse (the harness's compiled
//! programs, the corpus's parsed cases). Every file is framed the same
//! way and trusted only as the user's own files are.
//!
//! A folder or file that another user could have written (not owned by
//! this user, or writable by its group or others, or a symbolic link) is
//! never read nor written, and a file whose magic line is not the
//! reader's, or whose MAC does not match (cut short, corrupted, or not
//! written by this build), is ignored, then replaced by the next write. A
//! cache that cannot be read or written costs the next run its work,
//! nothing else.
//!
//! The MAC is HMAC-SHA-256 under a key made afresh for each build
//! (build.rs) over the file's folder, name, magic and payload: a file is
//! read only by the build that wrote it, and the harness code file's name
//! is a hash of the embedded harness sources. It binds a file to this
//! binary; it is no secret from whoever can read the binary (a release's
//! key is in every copy), so it does not make a folder a student could
//! write safe: that is the rule below.
//!
//! Nor is a folder used that lies inside a tree a student could have
//! written (the graded folders, the working directory, the git work trees
//! holding them: [`crate::student_trees`]), as a CI job's `XDG_CACHE_HOME`
//! or `HOME` in the student's checkout would put it: a run then has no
//! cache, and says so (src/cli/work_dir.rs, `cache_for`).

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

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

/// Whether `path` is this user's alone to write: owned by the effective
/// uid, not writable by its group or others, and not a symbolic link.
fn own(path: &Path) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let euid = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(path).is_ok_and(|m| {
        !m.file_type().is_symlink() && m.uid() == euid && m.permissions().mode() & 0o022 == 0
    })
}

/// What the file `dir/kind/name` holds after its frame, when the folders
/// and the file are the user's own, its first line is `magic` and its
/// digest matches.
pub fn read(dir: &Path, kind: &str, name: &str, magic: &str) -> Option<Vec<u8>> {
    let folder = dir.join(kind);
    let file = folder.join(name);
    if !(own(dir) && own(&folder) && own(&file)) {
        return None;
    }
    let data = std::fs::read(&file).ok()?;
    unframe(&data, kind, name, magic).map(<[u8]>::to_vec)
}

/// Keeps `payload` as the file `dir/kind/name` (folders made, mode 0700,
/// when missing), framed with `magic`, atomically.
pub fn write(
    dir: &Path,
    kind: &str,
    name: &str,
    magic: &str,
    payload: &[u8],
) -> std::io::Result<()> {
    let folder = dir.join(kind);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&folder)?;
    if !(own(dir) && own(&folder)) {
        return Err(std::io::Error::other(format!(
            "{} is not this user's alone",
            folder.display()
        )));
    }
    let mut tmp = tempfile::NamedTempFile::new_in(&folder)?;
    tmp.write_all(&frame(kind, name, magic, payload))?;
    tmp.as_file().sync_data().ok();
    crate::atomic::replace(tmp, &folder.join(name))
}

/// This build's key (build.rs).
const KEY: &[u8; 32] = include_bytes!(concat!(env!("OUT_DIR"), "/cache_key"));

/// The MAC of a file's payload, under this build's key, bound to its
/// folder, name and magic.
fn mac(kind: &str, name: &str, magic: &str, payload: &[u8]) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(KEY).expect("HMAC takes any key");
    for part in [kind, name, magic] {
        mac.update(&(part.len() as u64).to_le_bytes());
        mac.update(part.as_bytes());
    }
    mac.update(payload);
    mac
}

/// The magic line, the MAC (hex) of the payload on a line, then the
/// payload.
fn frame(kind: &str, name: &str, magic: &str, payload: &[u8]) -> Vec<u8> {
    let tag = mac(kind, name, magic, payload).finalize().into_bytes();
    let mut out = format!("{magic}\n{}\n", hex::encode(tag)).into_bytes();
    out.extend_from_slice(payload);
    out
}

fn unframe<'a>(data: &'a [u8], kind: &str, name: &str, magic: &str) -> Option<&'a [u8]> {
    let (first, rest) = split_line(data)?;
    let (tag, payload) = split_line(rest)?;
    if first != magic.as_bytes() {
        return None;
    }
    let tag = hex::decode(tag).ok()?;
    mac(kind, name, magic, payload)
        .verify_slice(&tag)
        .ok()
        .map(|()| payload)
}

/// The line before the first newline, and what follows it.
pub fn split_line(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = data.iter().position(|&b| b == b'\n')?;
    Some((&data[..i], &data[i + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &str = "autograder-test/1";

    #[test]
    fn a_written_file_is_read_back_and_a_changed_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("autograder");
        let payload: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        assert_eq!(read(&cache, "k", "f", MAGIC), None);
        write(&cache, "k", "f", MAGIC, &payload).unwrap();
        assert_eq!(read(&cache, "k", "f", MAGIC), Some(payload.clone()));
        // Another reader's magic is not read.
        assert_eq!(read(&cache, "k", "f", "autograder-test/2"), None);
        let file = cache.join("k/f");
        let good = std::fs::read(&file).unwrap();
        for cut in [1, good.len() / 2, good.len() - 1] {
            std::fs::write(&file, &good[..cut]).unwrap();
            assert_eq!(read(&cache, "k", "f", MAGIC), None, "cut at {cut}");
        }
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&file, &flipped).unwrap();
        assert_eq!(read(&cache, "k", "f", MAGIC), None);
        // Replaced whole by the next write.
        write(&cache, "k", "f", MAGIC, &payload).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), good);
        // Framed by anyone without this build's key (a plain SHA-256, or
        // another key): not read.
        use sha2::Digest;
        let plain = hex::encode(sha2::Sha256::digest(&payload));
        let other = Hmac::<Sha256>::new_from_slice(b"another build")
            .unwrap()
            .chain_update(&payload)
            .finalize()
            .into_bytes();
        for digest in [plain, hex::encode(other)] {
            let mut forged = format!("{MAGIC}\n{digest}\n").into_bytes();
            forged.extend_from_slice(&payload);
            std::fs::write(&file, &forged).unwrap();
            assert_eq!(read(&cache, "k", "f", MAGIC), None);
        }
        // Nor this build's file under another name or in another folder.
        std::fs::write(&file, &good).unwrap();
        std::fs::create_dir_all(cache.join("j")).unwrap();
        std::fs::copy(&file, cache.join("k/g")).unwrap();
        std::fs::copy(&file, cache.join("j/f")).unwrap();
        assert_eq!(read(&cache, "k", "g", MAGIC), None);
        assert_eq!(read(&cache, "j", "f", MAGIC), None);
        assert_eq!(read(&cache, "k", "f", MAGIC), Some(payload));
    }

    #[test]
    fn a_folder_or_file_others_may_write_is_neither_read_nor_written() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("autograder");
        let payload = b"payload".to_vec();
        write(&cache, "k", "f", MAGIC, &payload).unwrap();
        let folder = cache.join("k");
        let file = folder.join("f");
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
            assert_eq!(read(&cache, "k", "f", MAGIC), None, "{}", path.display());
            if path != &file {
                assert!(write(&cache, "k", "f", MAGIC, &payload).is_err());
            }
            mode(path, was);
            assert_eq!(read(&cache, "k", "f", MAGIC), Some(payload.clone()));
        }
        // A symbolic link to a sound file is not read.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::rename(&file, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
        assert_eq!(read(&cache, "k", "f", MAGIC), None);
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
