//! Issue 42, item 5: metadata writes. Landlock has no right for a file's
//! mode, owner, times or extended attributes, so without the seccomp
//! filter a submission run as the user (no root, no uid of its own) could
//! chmod the user's private file to 0666, open the user's cache to every
//! uid, set the work dir's mtime to 1970, or chmod the work dir to 0000 and
//! end the batch (exit 2, no report). Under every tier, as root and as a
//! plain user, a submission that tries all of it (tests/fixtures/metadata)
//! is refused every call with EPERM, nothing outside its folder changes,
//! and the batch after it is graded as usual.

use crate::util::record as record_support;

use crate::util::TestCommand;
use record_support::{tier_name, tier_or_skip, TIERS};
use serde_json::{json, Value};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What a submission must not change: mode, owner, times, extended
/// attributes and inode flags (`chattr`).
#[derive(Debug, PartialEq)]
struct Meta {
    mode: u32,
    uid: u32,
    gid: u32,
    mtime: (i64, i64),
    ctime: (i64, i64),
    xattrs: Vec<(Vec<u8>, Vec<u8>)>,
    flags: Option<i64>,
}

fn meta(path: &Path) -> Meta {
    let m = std::fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    let mut names = vec![0u8; 4096];
    // SAFETY: the buffer is as long as said; the path is NUL-terminated.
    let n = unsafe { libc::llistxattr(c.as_ptr(), names.as_mut_ptr().cast(), names.len()) };
    assert!(n >= 0, "{}: listxattr failed", path.display());
    names.truncate(n as usize);
    let xattrs = names
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| {
            let key = CString::new(name).unwrap();
            let mut value = vec![0u8; 4096];
            // SAFETY: as above.
            let v = unsafe {
                libc::lgetxattr(
                    c.as_ptr(),
                    key.as_ptr(),
                    value.as_mut_ptr().cast(),
                    value.len(),
                )
            };
            value.truncate(v.max(0) as usize);
            (name.to_vec(), value)
        })
        .collect();
    Meta {
        mode: m.mode(),
        uid: m.uid(),
        gid: m.gid(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
        xattrs,
        flags: inode_flags(path),
    }
}

/// FS_IOC_GETFLAGS, where the file system has them.
fn inode_flags(path: &Path) -> Option<i64> {
    let file = std::fs::File::open(path).ok()?;
    let mut flags: libc::c_long = 0;
    // SAFETY: FS_IOC_GETFLAGS writes one long through the pointer.
    let r = unsafe {
        libc::ioctl(
            std::os::fd::AsRawFd::as_raw_fd(&file),
            0x8008_6601,
            &mut flags,
        )
    };
    (r == 0).then_some(flags as i64)
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The folders a run needs: the user's private file (0600, with an
/// extended attribute) in a folder of its own, the user's cache, the work
/// dir, the submissions (the hostile one first, run first on the only
/// worker, then two copies of the model solution).
struct Layout {
    _tmp: tempfile::TempDir,
    outside: PathBuf,
    private: PathBuf,
    cache_home: PathBuf,
    cache: PathBuf,
    work: PathBuf,
    subs: PathBuf,
    report: PathBuf,
}

fn layout() -> Layout {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let outside = root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    set_mode(&outside, 0o700);
    let private = outside.join("private");
    std::fs::write(&private, "the user's own").unwrap();
    set_mode(&private, 0o600);
    let c = CString::new(private.as_os_str().as_bytes()).unwrap();
    // SAFETY: NUL-terminated path and name, a 4-byte value.
    let r = unsafe {
        libc::setxattr(
            c.as_ptr(),
            c"user.autograder-test".as_ptr(),
            b"keep".as_ptr().cast(),
            4,
            0,
        )
    };
    assert_eq!(r, 0, "the test's own file takes no user extended attribute");
    let cache_home = root.join("cache");
    let cache = cache_home.join("autograder");
    std::fs::create_dir_all(&cache).unwrap();
    set_mode(&cache, 0o700);
    let work = root.join("work");
    std::fs::create_dir(&work).unwrap();
    let targets = json!({
        "private": private,
        "outside": outside,
        "cache": cache,
        "work": work,
    });
    let model = std::fs::read_to_string(repo().join("submissions/model-solution/main.py")).unwrap();
    let hostile = std::fs::read_to_string(repo().join("tests/fixtures/metadata/hostile.py"))
        .unwrap()
        .replace("@TARGETS@", &targets.to_string());
    let subs = root.join("subs");
    for (id, source) in [
        ("a-hostile", format!("{model}\n{hostile}")),
        ("b-model", format!("# b\n{model}")),
        ("c-model", format!("# c\n{model}")),
    ] {
        std::fs::create_dir_all(subs.join(id)).unwrap();
        std::fs::write(subs.join(id).join("main.py"), source).unwrap();
    }
    let report = root.join("report.json");
    Layout {
        _tmp: tmp,
        outside,
        private,
        cache_home,
        cache,
        work,
        subs,
        report,
    }
}

/// What went wrong under `tier` (nothing when the rule held).
fn check(tier: &str) -> Vec<String> {
    let l = layout();
    let mut wrong = Vec::new();
    let untouched = [&l.private, &l.outside];
    let written = [&l.cache, &l.work];
    let before: Vec<Meta> = untouched.iter().map(|p| meta(p)).collect();
    let before_written: Vec<Meta> = written.iter().map(|p| meta(p)).collect();
    let out = TestCommand::grade(
        &l.subs,
        &repo().join("tests/fixtures/grading/cases"),
        &l.work,
    )
    .args(["--jobs", "1", "--json"])
    .arg(&l.report)
    .env("AUTOGRADER_ISOLATION", tier)
    .env("XDG_CACHE_HOME", &l.cache_home)
    .output();
    for (p, b) in untouched.iter().zip(&before) {
        let a = meta(p);
        if &a != b {
            wrong.push(format!("{} changed: {b:?} -> {a:?}", p.display()));
        }
    }
    for (p, b) in written.iter().zip(&before_written) {
        // The grader writes in these itself: their times may only move on.
        let a = meta(p);
        if (a.mode, a.uid, a.gid, &a.xattrs, a.flags) != (b.mode, b.uid, b.gid, &b.xattrs, b.flags)
            || a.mtime < b.mtime
        {
            wrong.push(format!("{} changed: {b:?} -> {a:?}", p.display()));
        }
    }
    if out.status.code() != Some(0) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().last().unwrap_or_default();
        wrong.push(format!("the batch ended with {}: {last}", out.status));
    }
    let report: Option<Value> = std::fs::read_to_string(&l.report)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    let subs = report.as_ref().and_then(|r| r["submissions"].as_array());
    match subs {
        None => wrong.push("no report".into()),
        Some(subs) => {
            if subs.len() != 3 {
                wrong.push(format!("{} submissions in the report", subs.len()));
            }
            for s in subs {
                // The hostile one too: every attempt was refused with EPERM
                // (it raises otherwise), and it answers as the model solution.
                if s["status"] != "graded" || s["percent"] != 100.0 {
                    let why = s["checkpoints"][0]["failures"][0]["reason"].clone();
                    wrong.push(format!(
                        "{}: {} {}%: {why}",
                        s["id"], s["status"], s["percent"]
                    ));
                }
            }
        }
    }
    // What a failed run left must not stop the temporary folder's removal.
    for p in [&l.outside, &l.work, &l.cache] {
        let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o700));
    }
    wrong
}

#[test]
fn no_tier_lets_a_submission_change_metadata_outside_its_folder() {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let mut wrong = Vec::new();
    for tier in TIERS {
        if tier_or_skip(tier, "metadata") {
            let name = tier_name(tier);
            let found = check(name);
            say!("metadata under {name} as uid {uid}: {found:?}");
            wrong.extend(found.into_iter().map(|w| format!("{name}: {w}")));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
