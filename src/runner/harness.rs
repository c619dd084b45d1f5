//! The harness's Python sources, embedded in the binary, and the version
//! that names them in every recording.

use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// What the harness's interpreter runs with `-c`: it starts harness.py,
/// from the code an earlier run compiled or from its source, both sent on
/// its stdin ([`super::protocol::boot_message`]).
pub const BOOT_PY: &str = include_str!("harness/boot.py");
/// The harness's entry, embedded in the binary and sent to boot.py.
pub const HARNESS_PY: &str = include_str!("harness/harness.py");
/// The harness's programs, sent in its init line and run in its namespace
/// in this order (harness.py's `PROGRAMS`).
pub const PROGRAMS: [(&str, &str); 6] = [
    ("sharing", include_str!("harness/sharing.py")),
    ("child", include_str!("harness/child.py")),
    ("reaper", include_str!("harness/reaper.py")),
    ("supervisor", include_str!("harness/supervisor.py")),
    ("zygote", include_str!("harness/zygote.py")),
    ("selftest", include_str!("harness/selftest.py")),
];
/// The Python half of the tagged-JSON codec, sent to the harness at start.
pub const TAGGED_PY: &str = include_str!("harness/tagged.py");
/// Every tier's Landlock domain and seccomp filter, sent likewise.
pub const CONFINE_PY: &str = include_str!("harness/confine.py");
/// Every Python source the harness runs: a change to any of them makes
/// stored outcomes stale (see `harness_version`).
pub const HARNESS_SOURCES: [&str; 10] = [
    BOOT_PY,
    HARNESS_PY,
    PROGRAMS[0].1,
    PROGRAMS[1].1,
    PROGRAMS[2].1,
    PROGRAMS[3].1,
    PROGRAMS[4].1,
    PROGRAMS[5].1,
    TAGGED_PY,
    CONFINE_PY,
];

/// The harness's sources and its limits as its self-check scripts
/// (`harness/*_check.py`) read them on stdin: a JSON object with "harness",
/// "programs", "tagged", "confine" and "limits".
#[doc(hidden)]
pub fn check_input() -> String {
    serde_json::json!({
        "harness": HARNESS_PY,
        "programs": PROGRAMS,
        "tagged": TAGGED_PY,
        "confine": CONFINE_PY,
        "limits": super::limits::HARNESS,
    })
    .to_string()
}

/// The harness version stored in recordings; changes whenever any of the
/// embedded harness's sources does (its sandbox rules among them) or the
/// limits it is sent, so cached recordings are redone.
pub fn harness_version() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| version_of(&harness_parts()))
}

/// What the harness version covers: every embedded source and the
/// harness's limits as the init line sends them.
fn harness_parts() -> Vec<String> {
    let limits = serde_json::to_string(&super::limits::HARNESS).expect("limits serialize");
    let sources = HARNESS_SOURCES.iter().map(|s| s.to_string());
    sources.chain([limits]).collect()
}

/// The version over `parts`, each hashed with its length, so that text
/// moved from one part to the next changes it too.
fn version_of(parts: &[String]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let digest = hex::encode(h.finalize());
    format!("autograder-harness/1+{}", &digest[..12])
}

#[cfg(test)]
mod tests {
    //! The harness's own checks, run under the grader's interpreter, and
    //! the version covering every source.
    use super::*;

    /// Runs a harness self-check script (`check`) with `source` on its
    /// stdin, under the grader's interpreter; it prints "ok ..." when it holds.
    fn python_check(check: &str, source: &str) {
        let python = crate::runner::sandbox::Python::find(None).unwrap();
        python_output(&python.executable, check, source);
    }

    /// What a self-check script printed after its "ok ..." line, run by
    /// the interpreter `python`.
    fn python_output(python: &std::path::Path, check: &str, source: &str) -> String {
        use std::io::Write;
        let mut child = std::process::Command::new(python)
            .args(["-s", "-S", "-c", check])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(source.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.starts_with("ok "),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
            .split_once('\n')
            .map(|(_, rest)| rest.to_string())
            .unwrap_or_default()
    }

    /// `plain_json` writes exactly what the general encoder writes wherever
    /// it answers, and `object_hook` builds exactly what `decode` builds, on
    /// seeded hostile values (every kind, subclasses, surrogates, cycles,
    /// the depth and size caps).
    #[test]
    fn the_tagged_fast_paths_agree_with_the_general_ones() {
        python_check(include_str!("harness/tagged_check.py"), &check_input());
    }

    #[test]
    fn the_supervisor_reads_case_lines_in_one_pass_as_it_reads_them_one_by_one() {
        python_check(include_str!("harness/lines_check.py"), &check_input());
    }

    #[test]
    fn a_child_reads_its_job_exactly_and_refuses_a_broken_one() {
        python_check(include_str!("harness/job_check.py"), &check_input());
    }

    /// The harness's walks of what a result shares with its arguments and
    /// module state, and where (in-process: no sandbox needed).
    #[test]
    fn the_harness_reports_what_a_result_shares_and_where() {
        python_check(include_str!("harness/sharing_check.py"), &check_input());
    }

    /// The grader's interpreter, then every CPython 3.8+ pyenv has here
    /// (the harness runs on each; marshal and the collector differ).
    fn interpreters() -> Vec<std::path::PathBuf> {
        let mut found = vec![
            crate::runner::sandbox::Python::find(None)
                .unwrap()
                .executable,
        ];
        let root = std::process::Command::new("pyenv").arg("root").output();
        let versions = root
            .ok()
            .filter(|o| o.status.success())
            .map(|o| std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .map(|r| r.join("versions"));
        let mut listed: Vec<(u32, std::path::PathBuf)> = versions
            .and_then(|v| std::fs::read_dir(v).ok())
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let minor: u32 = name.strip_prefix("3.")?.split('.').next()?.parse().ok()?;
                let python = e.path().join("bin/python3");
                (minor >= 8 && python.is_file()).then_some((minor, python))
            })
            .collect();
        listed.sort();
        found.extend(listed.into_iter().map(|(_, p)| p));
        found
    }

    /// A new, plain result the child sends as marshal bytes reads as the
    /// outcome its general checks write for it (the same value, exactly:
    /// tuples, keys of every kind, wide ints, lone surrogates, NaN, -0.0),
    /// on seeded values; what it must not send so is walked as before, and
    /// nothing asks a student's object for a buffer (`fast_check.py`
    /// asserts which is which). On every interpreter here; in CI, one of
    /// 3.12 or later among them (where marshal would ask).
    #[test]
    fn a_marshalled_result_reads_as_the_general_checks_write_it() {
        let pythons = interpreters();
        let recent = pythons.iter().any(|p| {
            let out = std::process::Command::new(p)
                .args(["-c", "import sys; print(sys.version_info >= (3, 12))"])
                .output();
            out.is_ok_and(|o| o.stdout.starts_with(b"True"))
        });
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(recent || !ci, "no CPython 3.12+ here (CI=true: required)");
        for python in pythons {
            marshalled_results_read_as_written(&python);
        }
    }

    fn marshalled_results_read_as_written(python: &std::path::Path) {
        use crate::recording::format::CaseOutcome;
        use crate::value::tagged::{decode, Tagged};
        let out = python_output(
            python,
            include_str!("harness/fast_check.py"),
            &check_input(),
        );
        let canonical = |outcome: CaseOutcome| match outcome {
            CaseOutcome::Returned {
                value,
                shares_with_args,
                args_changed,
                shares_with_state,
                shared,
                ..
            } => {
                let v = decode(&value.to_json().unwrap()).unwrap();
                let text = serde_json::to_string(&Tagged(&v)).unwrap();
                (
                    text,
                    shares_with_args,
                    args_changed,
                    shares_with_state,
                    shared,
                )
            }
            other => panic!("not returned: {other:?}"),
        };
        let mut pairs = 0;
        for line in out.lines() {
            let (fast, slow) = line.split_once('\t').unwrap();
            let Some(super::super::protocol::Marshalled::Fits(expanded)) =
                super::super::protocol::expand_marshalled(fast)
            else {
                panic!("does not read: {fast}")
            };
            let got = canonical(CaseOutcome::parse(&expanded).unwrap());
            let want = canonical(CaseOutcome::parse(slow).unwrap());
            assert_eq!(got, want, "{} {fast}", python.display());
            pairs += 1;
        }
        assert!(
            pairs >= 300,
            "{}: {pairs} marshalled results",
            python.display()
        );
    }

    #[test]
    fn the_supervisor_never_blocks_giving_a_child_its_hidden_inputs() {
        python_check(include_str!("harness/hidden_check.py"), &check_input());
    }

    /// A change to any embedded source or to the limits makes a new version.
    #[test]
    fn the_harness_version_changes_with_any_source_or_limit() {
        let parts = harness_parts();
        assert_eq!(parts.len(), HARNESS_SOURCES.len() + 1);
        assert_eq!(harness_version(), version_of(&parts));
        for i in 0..parts.len() {
            let mut changed = parts.clone();
            changed[i].push(' ');
            assert_ne!(version_of(&changed), version_of(&parts), "part {i}");
        }
        let mut moved = parts.clone();
        let last = moved[0].pop().unwrap();
        moved[1].insert(0, last);
        assert_ne!(version_of(&moved), version_of(&parts));
    }

    /// A change to the sandbox's rules (confine.py) redoes stored outcomes
    /// as a change to the harness does: every Python source in
    /// `harness/` but the tests' is hashed into the harness version.
    #[test]
    fn the_harness_version_covers_every_source_the_harness_runs() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runner/harness");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".py") || name.ends_with("_check.py") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                HARNESS_SOURCES.contains(&text.as_str()),
                "{name} runs in the harness but is not in HARNESS_SOURCES"
            );
            seen += 1;
        }
        assert_eq!(
            seen,
            HARNESS_SOURCES.len(),
            "a source in HARNESS_SOURCES is not in {dir:?}"
        );
    }

    /// The seccomp filters alone keep a child off other processes (its
    /// supervisor, the zygote, other workers, the grader) and, under the
    /// landlock tier, off the host's UNIX sockets, and (every tier) refuse
    /// every call that changes a file's metadata with EPERM, where without
    /// the filter the self-test's probe finds each one open: no Landlock
    /// ABI or uid of its own needed, and the same calls on itself still work.
    #[test]
    fn a_child_cannot_reach_another_process_or_a_host_socket() {
        python_check(include_str!("harness/confine_check.py"), CONFINE_PY);
    }
}
