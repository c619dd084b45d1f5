//! Completions and the man page come from the clap definitions; `--version`
//! names the release, the commit and the formats.

use crate::util::deploy::{autograder, expect_code, repo, text};
use std::process::Command;

const SUBCOMMANDS: &[&str] = &[
    "eval",
    "cases",
    "record",
    "grade",
    "merge",
    "package",
    "completions",
    "man",
];

#[test]
fn completion_scripts_name_every_subcommand_and_bash_accepts_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = autograder(&repo(), &["completions", shell]);
        expect_code(&out, 0, shell);
        let script = text(&out.stdout);
        for sub in SUBCOMMANDS
            .iter()
            .chain(&["gradescope", "ci", "slurm", "kubernetes"])
        {
            assert!(script.contains(sub), "{shell} completions lack {sub}");
        }
        if shell == "bash" {
            let path = tmp.path().join("autograder.bash");
            std::fs::write(&path, &script).unwrap();
            let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
            assert!(check.status.success(), "bash -n: {}", text(&check.stderr));
            // Sourced, it registers the completion function.
            let source = Command::new("bash")
                .arg("-c")
                .arg(format!(
                    "source {} && complete -p autograder",
                    path.display()
                ))
                .output()
                .unwrap();
            assert!(
                text(&source.stdout).contains("autograder"),
                "{}",
                text(&source.stderr)
            );
        }
    }
    let out = autograder(&repo(), &["completions", "powershell"]);
    expect_code(&out, 2, "an unknown shell is a usage error");
}

#[test]
fn the_man_page_is_roff_and_has_a_section_per_subcommand() {
    let out = autograder(&repo(), &["man"]);
    expect_code(&out, 0, "man");
    let page = text(&out.stdout);
    assert!(page.contains(".TH autograder 1"), "{page}");
    assert!(page.contains(".SH NAME"));
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!(".SH \"AUTOGRADER {}\"", sub.to_uppercase())),
            "no section for {sub}"
        );
    }
    assert!(page.contains(".SH \"AUTOGRADER PACKAGE GRADESCOPE\""));
    assert!(
        page.contains("\\-\\-main\\-py\\-only"),
        "grade's flags are listed"
    );
    // groff, where it is installed, reads it without a warning.
    if let Ok(groff) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        let mut groff = groff;
        groff
            .stdin
            .take()
            .unwrap()
            .write_all(page.as_bytes())
            .unwrap();
        let done = groff.wait_with_output().unwrap();
        assert!(
            done.status.success() && done.stderr.is_empty(),
            "groff: {}",
            text(&done.stderr)
        );
    }
}

#[test]
fn version_names_the_release_the_commit_and_the_formats() {
    let out = autograder(&repo(), &["--version"]);
    expect_code(&out, 0, "--version");
    let line = text(&out.stdout);
    assert!(
        line.starts_with(&format!(
            "autograder {} (commit ",
            env!("CARGO_PKG_VERSION")
        )),
        "{line}"
    );
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout).trim().to_string());
    if let Some(commit) = commit {
        // build.rs reruns when HEAD moves.
        assert!(line.contains(&format!("(commit {commit};")), "{line}");
    }
    for format in [
        "autograder-cases/",
        "autograder-recording/",
        "autograder-store/",
        "autograder-report/",
    ] {
        assert!(line.contains(format), "{line}");
    }
    // Subcommands name it too.
    let sub = autograder(&repo(), &["grade", "--version"]);
    let tail = |s: &str| s.split_once(' ').map(|(_, t)| t.to_string());
    assert_eq!(tail(&text(&sub.stdout)), tail(&line));
}
