//! The harness's Python sources, embedded in the binary, and the version
//! that names them in every recording.

use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The harness, embedded in the binary.
pub const HARNESS_PY: &str = include_str!("harness/harness.py");
/// The Python half of the tagged-JSON codec, sent to the harness at start.
pub const TAGGED_PY: &str = include_str!("harness/tagged.py");
/// Every tier's Landlock domain and seccomp filter, sent likewise.
pub const CONFINE_PY: &str = include_str!("harness/confine.py");
/// Every Python source the harness runs: a change to any of them makes
/// stored outcomes stale (see `harness_version`).
pub const HARNESS_SOURCES: [&str; 3] = [HARNESS_PY, TAGGED_PY, CONFINE_PY];

/// The harness version stored in recordings; changes whenever any of the
/// embedded harness's sources does (its sandbox rules among them), so
/// cached recordings are redone.
pub fn harness_version() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| {
        let mut h = Sha256::new();
        for source in HARNESS_SOURCES {
            h.update(source.as_bytes());
        }
        let digest = hex::encode(h.finalize());
        format!("autograder-harness/1+{}", &digest[..12])
    })
}

#[cfg(test)]
mod tests {
    //! The harness's own checks, run under the grader's interpreter, and
    //! the version covering every source.
    use super::*;

    /// Runs a harness self-check script (`check`) with `source` on its
    /// stdin, under the grader's interpreter; it prints "ok ..." when it holds.
    fn python_check(check: &str, source: &str) {
        use std::io::Write;
        let python = crate::runner::sandbox::Python::find(None).unwrap();
        let mut child = std::process::Command::new(&python.executable)
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
    }

    /// `plain_json` writes exactly what the general encoder writes wherever
    /// it answers, and `object_hook` builds exactly what `decode` builds, on
    /// seeded hostile values (every kind, subclasses, surrogates, cycles,
    /// the depth and size caps).
    #[test]
    fn the_tagged_fast_paths_agree_with_the_general_ones() {
        python_check(include_str!("harness/tagged_check.py"), TAGGED_PY);
    }

    #[test]
    fn the_supervisor_reads_case_lines_in_one_pass_as_it_reads_them_one_by_one() {
        python_check(include_str!("harness/lines_check.py"), HARNESS_PY);
    }

    #[test]
    fn a_child_reads_its_job_exactly_and_refuses_a_broken_one() {
        python_check(include_str!("harness/job_check.py"), HARNESS_PY);
    }

    #[test]
    fn the_supervisor_never_blocks_giving_a_child_its_hidden_inputs() {
        python_check(include_str!("harness/hidden_check.py"), HARNESS_PY);
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
    /// landlock tier, off the host's UNIX sockets: no Landlock ABI or uid of
    /// its own needed, and the same calls on itself still work.
    #[test]
    fn a_child_cannot_reach_another_process_or_a_host_socket() {
        python_check(include_str!("harness/confine_check.py"), CONFINE_PY);
    }
}
