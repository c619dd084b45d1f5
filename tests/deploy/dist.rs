//! scripts/dist.sh (slow tier): the archive's binary needs glibc 2.17 at
//! most, and grades the bundled submissions byte-identically to this build.

use crate::util::deploy::*;
use std::fs;
use std::path::Path;
use std::process::Command;

/// The highest `GLIBC_x.y` symbol version `binary` needs, from `objdump -T`.
fn highest_glibc(binary: &Path) -> (u32, u32) {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(binary)
        .output()
        .expect("objdump (binutils) runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|w| w.strip_prefix("GLIBC_"))
        .filter_map(|v| {
            let mut parts = v.split('.');
            Some((
                parts.next()?.parse().ok()?,
                parts.next().unwrap_or("0").parse().ok()?,
            ))
        })
        .max()
        .expect("the binary needs some glibc")
}

/// Every report of `binary` grading the bundled submissions, by name.
fn reports(binary: &Path, out: &Path) -> Vec<(String, Vec<u8>)> {
    fs::create_dir_all(out).unwrap();
    let run = Command::new(binary)
        .args([
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--quiet",
            "--no-cache",
            "--work-dir",
        ])
        .arg(out.join("work"))
        .arg("--json")
        .arg(out.join("report.json"))
        .arg("--csv")
        .arg(out.join("grades.csv"))
        .arg("--junit")
        .arg(out.join("junit.xml"))
        .arg("--markdown")
        .arg(out.join("summary.md"))
        .current_dir(repo())
        .env_remove("AUTOGRADER_PYTHON")
        .env_remove("AUTOGRADER_ISOLATION")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(
        matches!(run.status.code(), Some(0 | 1)),
        "{}",
        text(&run.stderr)
    );
    ["report.json", "grades.csv", "junit.xml", "summary.md"]
        .iter()
        .map(|n| (n.to_string(), fs::read(out.join(n)).unwrap()))
        .collect()
}

#[test]
fn the_release_archive_is_portable_and_grades_as_this_build_does() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Release) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dist = tmp.path().join("dist");
    let built = Command::new("bash")
        .arg(repo().join("scripts/dist.sh"))
        .env("DIST_DIR", &dist)
        .output()
        .expect("scripts/dist.sh runs");
    assert!(
        built.status.success(),
        "dist.sh:\n{}{}",
        text(&built.stdout),
        text(&built.stderr)
    );
    let version = env!("CARGO_PKG_VERSION");
    let name = format!("autograder-{version}-x86_64-linux");
    let archive = dist.join(format!("{name}.tar.gz"));
    let sum = Command::new("sha256sum")
        .args(["--check", "--strict"])
        .arg(format!("{name}.tar.gz.sha256"))
        .current_dir(&dist)
        .output()
        .unwrap();
    assert!(
        sum.status.success(),
        "the .sha256 checks: {}",
        text(&sum.stdout)
    );
    let unpacked = tmp.path().join("unpacked");
    fs::create_dir_all(&unpacked).unwrap();
    let untar = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(untar.success());
    let root = unpacked.join(&name);
    for file in [
        "autograder",
        "completions/autograder.bash",
        "completions/_autograder",
        "completions/autograder.fish",
        "man/autograder.1",
        "README.md",
    ] {
        assert!(root.join(file).is_file(), "the archive holds {file}");
    }
    let binary = root.join("autograder");
    let glibc = highest_glibc(&binary);
    assert!(
        glibc <= (2, 17),
        "the release binary needs glibc {}.{}",
        glibc.0,
        glibc.1
    );
    let stripped = text(
        &Command::new("objdump")
            .arg("-h")
            .arg(&binary)
            .output()
            .unwrap()
            .stdout,
    );
    assert!(!stripped.contains(".debug_info"), "stripped: {stripped}");
    let ours = reports(Path::new(bin()), &tmp.path().join("ours"));
    let theirs = reports(&binary, &tmp.path().join("theirs"));
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        assert!(
            a == b,
            "{name} differs between this build and the release binary"
        );
    }
    say!("dist.sh: the release binary needs glibc {}.{} and grades the bundled submissions byte-identically", glibc.0, glibc.1);
}
