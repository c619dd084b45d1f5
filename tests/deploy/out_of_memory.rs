//! A case the kernel's OOM killer ends is reported as out of memory, with
//! the limit it ran into, not as "crashed (killed by signal 9)": the grader
//! runs in a memory cgroup smaller than what a case takes, as under
//! Gradescope's 768 MB container or a Slurm job's `--mem`, and below the
//! per-process address-space limit, so no `MemoryError` comes first.

use crate::util::deploy::*;
use autograder::runner::{own_memory_cgroup, Hierarchy};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const LIMIT: u64 = 256 << 20;

/// A memory cgroup of `LIMIT` bytes below this process's, removed on drop.
struct SmallCgroup(PathBuf);

impl SmallCgroup {
    fn make() -> Result<SmallCgroup, String> {
        let (own, _, hierarchy) = own_memory_cgroup().ok_or("no memory cgroup is readable")?;
        let dir = own.join(format!("autograder-oom-test-{}", std::process::id()));
        fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let cgroup = SmallCgroup(dir);
        let (limit, swap) = match hierarchy {
            Hierarchy::V2 => ("memory.max", "memory.swap.max"),
            Hierarchy::V1 => ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"),
        };
        fs::write(cgroup.0.join(limit), LIMIT.to_string()).map_err(|e| format!("{limit}: {e}"))?;
        if cgroup.0.join(swap).exists() {
            fs::write(cgroup.0.join(swap), LIMIT.to_string())
                .map_err(|e| format!("{swap}: {e}"))?;
        }
        Ok(cgroup)
    }
}

impl Drop for SmallCgroup {
    fn drop(&mut self) {
        // Its processes are gone once the grader has exited; the kernel may
        // take a moment to let go of the cgroup.
        for _ in 0..100 {
            if fs::remove_dir(&self.0).is_ok() || !self.0.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// The model solution, but writing 400 MiB on its first case (past the
/// cgroup, within the per-process limit of 1 GiB).
const HOG: &str = r#"
_parse = parse_contract_json


def parse_contract_json(text):
    if text == '{"id":"r1"}':
        return len(b"\x01" * (400 << 20))
    return _parse(text)
"#;

fn hog(course: &Path) {
    let source = format!("{}{HOG}", bundled("model-solution"));
    submission(&course.join("submissions"), "hog", &source);
    submission(
        &course.join("submissions"),
        "model",
        &bundled("model-solution"),
    );
}

#[test]
fn a_case_the_oom_killer_ends_is_out_of_memory_with_the_limit() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    if !is_root() {
        return cannot_run("making a memory cgroup needs root");
    }
    let cgroup = match SmallCgroup::make() {
        Ok(c) => c,
        Err(why) => return cannot_run(&format!("no memory cgroup can be made here: {why}")),
    };
    let tmp = tempfile::tempdir().unwrap();
    let course = course(tmp.path());
    hog(&course);
    // The grader joins the small cgroup before it starts: everything it
    // runs is bounded by it, as in a container.
    let out = Command::new("sh")
        .arg("-c")
        .arg("echo $$ > \"$0\" && exec \"$@\"")
        .arg(cgroup.0.join("cgroup.procs"))
        .arg(bin())
        .args([
            "grade",
            "submissions",
            "--cases",
            "cases",
            "--assignment",
            "json-contract",
        ])
        .args(["--jobs", "1", "--json", "report.json"])
        .current_dir(&course)
        .env_remove("AUTOGRADER_PYTHON")
        .env_remove("AUTOGRADER_ISOLATION")
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    expect_code(&out, 0, "grade in a small cgroup");
    let report = fs::read_to_string(course.join("report.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&report).unwrap();
    let reason = "ran out of memory (limit: 256 MiB for the grader's container or job)";
    // The one case, as its reason and its brief (the same words).
    assert_eq!(report.matches(reason).count(), 2, "{report}");
    assert!(!report.contains("killed by signal"), "{report}");
    let terminal = text(&out.stdout);
    assert!(terminal.contains("ran out of memory"), "{terminal}");
    // The rest of the run is graded as ever: the model keeps every point.
    let model = json["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "model")
        .unwrap();
    assert_eq!(model["score"], model["max_score"], "{model}");
}
