//! A test that measures its own process (peak memory from
//! `/proc/self/status`) cannot share it with the other tests of its binary:
//! it runs alone, in a fresh copy of the test binary.

use std::process::{Command, Stdio};

/// Set in the copy, so the test runs there instead of starting another.
const ALONE: &str = "AUTOGRADER_TEST_ALONE";

/// Runs `test` (its `module_path!()` and name) alone in a fresh process of
/// this test binary and asserts it passed there; returns `true` in the
/// calling process, which must then return. In the fresh process it returns
/// `false` and the test runs.
pub fn ran_alone(module_path: &str, test: &str) -> bool {
    // `core::report_scale` names the test `report_scale::<test>`.
    let module = module_path.split_once("::").map_or("", |(_, m)| m);
    let name = if module.is_empty() {
        test.to_string()
    } else {
        format!("{module}::{test}")
    };
    if std::env::var_os(ALONE).is_some_and(|v| v == name.as_str()) {
        return false;
    }
    let exe = std::env::current_exe().expect("the test binary knows its path");
    // The copy records: a test that needs the machine alone waits for it.
    let _machine = super::machine::shared();
    let out = Command::new(exe)
        .args([name.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, &name)
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {name} in its own process: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name}, run alone, failed ({}):\n{stdout}",
        out.status
    );
    true
}
