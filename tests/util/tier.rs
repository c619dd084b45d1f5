//! Tests by cost. The slow tiers run in CI (`CI=true`) and when asked for
//! (`AUTOGRADER_TESTS=all`, or a comma-separated list of tier names); a
//! plain local `cargo test` skips them, and says so once per tier and test
//! binary on stderr, where `cargo test` shows it even for passing tests,
//! with the command that runs them.

use std::io::Write as _;
use std::sync::Once;

/// A slow tier: what its tests cost, and the name that selects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Against CPython itself: the differential tests, the multi-version
    /// and mutation runs (minutes on two cores).
    Cpython,
    /// The HTML dashboard in headless Chromium.
    Browser,
    /// The long sandbox and end-to-end runs, tens of seconds each: the
    /// hostile fixtures, attacks, memory, racer and huge outcomes, and the
    /// whole course graded under every sandbox tier.
    Heavy,
    /// What an instructor ships, run end to end: the Gradescope zip in a
    /// stand-in image, the CI template step by step as a plain user and
    /// its GitLab job under gitlab-ci-local, the Slurm array on a one-node
    /// cluster, the README's recipes (tens of
    /// seconds).
    Deploy,
    /// The portable release archive: `scripts/dist.sh` builds the binary
    /// against glibc 2.17 with zig (minutes).
    Release,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::Cpython => "cpython",
            Tier::Browser => "browser",
            Tier::Heavy => "heavy",
            Tier::Deploy => "deploy",
            Tier::Release => "release",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Tier::Cpython => "the CPython tier (differential, pyenv versions, mutation)",
            Tier::Browser => "the Chromium tier (the HTML dashboard in a browser)",
            Tier::Heavy => "the heavy tier (hostile fixtures, attacks, memory, racer, the whole course under every sandbox tier)",
            Tier::Deploy => "the deployment tier (the Gradescope zip in a stand-in image, the CI template as a plain user and under gitlab-ci-local, the Slurm array on a one-node cluster, the README's recipes)",
            Tier::Release => "the release tier (scripts/dist.sh: the glibc 2.17 binary built with zig)",
        }
    }

    fn once(self) -> &'static Once {
        static CPYTHON: Once = Once::new();
        static BROWSER: Once = Once::new();
        static HEAVY: Once = Once::new();
        static DEPLOY: Once = Once::new();
        static RELEASE: Once = Once::new();
        match self {
            Tier::Cpython => &CPYTHON,
            Tier::Browser => &BROWSER,
            Tier::Heavy => &HEAVY,
            Tier::Deploy => &DEPLOY,
            Tier::Release => &RELEASE,
        }
    }
}

/// Whether `selection` (the value of `AUTOGRADER_TESTS`) asks for `tier`.
pub fn selects(selection: &str, tier: Tier) -> bool {
    selection
        .split(',')
        .map(str::trim)
        .any(|s| s == "all" || s == tier.name())
}

/// Whether `tier` runs: always with `CI=true`, else when `AUTOGRADER_TESTS`
/// selects it. When it does not, the first test of the tier to ask prints
/// the skip line (once per test binary) and every test of it returns
/// without running.
pub fn runs(tier: Tier) -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let asked = std::env::var("AUTOGRADER_TESTS").is_ok_and(|v| selects(&v, tier));
    if ci || asked {
        return true;
    }
    tier.once().call_once(|| {
        // Straight to stderr: libtest captures eprintln!, not this.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {}: run it with `AUTOGRADER_TESTS={} cargo test` (or AUTOGRADER_TESTS=all; CI=true always runs it)",
            tier.what(),
            tier.name()
        );
    });
    false
}
