//! `package ci`, run as a CI runner would: a small step runner reads each
//! workflow file (GitHub's `.github/workflows/autograder.yml`, GitLab's
//! `.gitlab-ci.yml`) and runs its shell steps in order, as a plain user,
//! with the installed bubblewrap unable to start and no network (the
//! release archive is a local file:// URL). Checked: the exit code, the
//! step summary, the JUnit against junit-10.xsd, the sandbox chosen.

use crate::util::deploy::*;
use crate::util::grading::assert_valid_junit;
use serde_yaml::Value as Yaml;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const ASSIGNMENT: &str = "tool-proposals";

/// Where a run happens: the plain user, the release archive, hidden bwrap.
struct Runner {
    user: String,
    uid: u32,
    fake_bwrap: PathBuf,
    url: String,
    sha256: String,
}

/// What a job did: each step's exit code, and everything it printed.
struct Job {
    code: i32,
    log: String,
}

impl Runner {
    /// Runs `script` (a bash file) in `dir` as the plain user with exactly `env`.
    fn run(&self, dir: &Path, script: &Path, env: &BTreeMap<String, String>) -> (i32, String) {
        let mut command = Command::new("unshare");
        command
            .args(["--mount", "--propagation", "private", "sh", "-c"])
            .arg(format!("{}exec \"$@\"", hide_bwrap(&self.fake_bwrap)))
            .args(["sh", "runuser", "-u", &self.user, "--", "env", "-i"])
            .args(env.iter().map(|(k, v)| format!("{k}={v}")))
            .args(["bash", "--noprofile", "--norc", "-eo", "pipefail"])
            .arg(script)
            .current_dir(dir);
        let out = command.output().expect("unshare runs");
        let log = format!("{}{}", text(&out.stdout), text(&out.stderr));
        (out.status.code().unwrap_or(-1), log)
    }

    /// A script file the plain user can read.
    fn script(&self, dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, body).unwrap();
        path
    }

    /// GitHub Actions: the job's `env`, then each step's `run` in order (with
    /// its own `env` over the job's)
    /// (a `uses` step is an action this runner does not have: skipped), a
    /// failed step skipping the rest but those with `if: always()`;
    /// `$GITHUB_PATH` and `$GITHUB_STEP_SUMMARY` as the runner provides them.
    fn github(&self, work: &Path, repo: &Path, runner_temp: &Path) -> (Job, String) {
        let yaml: Yaml = serde_yaml::from_str(
            &fs::read_to_string(repo.join(".github/workflows/autograder.yml")).unwrap(),
        )
        .expect("the workflow is YAML");
        let job = &yaml["jobs"]["grade"];
        let home = work.join("home");
        fs::create_dir_all(&home).unwrap();
        let path_file = work.join("github_path");
        let summary = work.join("step_summary");
        fs::write(&path_file, "").unwrap();
        fs::write(&summary, "").unwrap();
        chown_tree(work, self.uid);
        chown_tree(runner_temp, self.uid);
        // Expressions (`${{ vars.X || '...' }}`) are the runner's: here the
        // repository variables set to the local archive.
        let expressions = BTreeMap::from([
            ("AUTOGRADER_URL", self.url.clone()),
            ("AUTOGRADER_SHA256", self.sha256.clone()),
            ("AUTOGRADER_GIT", String::new()),
            (
                "AUTOGRADER_BIN",
                runner_temp.join("autograder-bin").display().to_string(),
            ),
        ]);
        let mut env = BTreeMap::from([
            ("CI".to_string(), "true".to_string()),
            ("GITHUB_ACTIONS".into(), "true".into()),
            ("HOME".into(), home.display().to_string()),
            ("GITHUB_WORKSPACE".into(), repo.display().to_string()),
            ("RUNNER_TEMP".into(), runner_temp.display().to_string()),
            ("GITHUB_PATH".into(), path_file.display().to_string()),
            ("GITHUB_STEP_SUMMARY".into(), summary.display().to_string()),
        ]);
        let with_env = |env: &mut BTreeMap<String, String>, map: &Yaml| {
            for (k, v) in map.as_mapping().into_iter().flatten() {
                let (k, v) = (k.as_str().unwrap(), v.as_str().unwrap());
                let value = if v.contains("${{") {
                    expressions
                        .get(k)
                        .unwrap_or_else(|| panic!("no value for {k}: {v}"))
                        .clone()
                } else {
                    v.to_string()
                };
                env.insert(k.to_string(), value);
            }
        };
        with_env(&mut env, &job["env"]);
        let mut code = 0;
        let mut log = String::new();
        for (i, step) in job["steps"]
            .as_sequence()
            .expect("steps")
            .iter()
            .enumerate()
        {
            if let Some(action) = step["uses"].as_str() {
                log.push_str(&format!("[step {i}: {action}: skipped]\n"));
                continue;
            }
            let run = step["run"].as_str().expect("a run step");
            let always = step["if"].as_str() == Some("always()");
            if code != 0 && !always {
                continue;
            }
            let mut path: Vec<String> = fs::read_to_string(&path_file)
                .unwrap()
                .lines()
                .rev()
                .map(str::to_string)
                .collect();
            path.push("/usr/local/bin:/usr/bin:/bin".into());
            env.insert("PATH".into(), path.join(":"));
            let script = self.script(work, &format!("step-{i}.sh"), run);
            // A step's own env, over the job's, for that step only.
            let mut step_env = env.clone();
            with_env(&mut step_env, &step["env"]);
            let (status, out) = self.run(repo, &script, &step_env);
            log.push_str(&format!("[step {i}: exit {status}]\n{out}"));
            if status != 0 && code == 0 {
                code = status;
            }
        }
        (Job { code, log }, fs::read_to_string(summary).unwrap())
    }

    /// GitLab CI: the job's `variables` (project variables override them),
    /// its `script` lines in one shell stopping at the first failure, then
    /// `after_script` whatever happened.
    fn gitlab(&self, work: &Path, repo: &Path) -> Job {
        self.gitlab_with(work, repo, &[])
    }

    /// [`Runner::gitlab`] with more project variables.
    fn gitlab_with(&self, work: &Path, repo: &Path, more: &[(&str, &str)]) -> Job {
        let yaml: Yaml =
            serde_yaml::from_str(&fs::read_to_string(repo.join(".gitlab-ci.yml")).unwrap())
                .expect(".gitlab-ci.yml is YAML");
        let job = &yaml["autograder"];
        let home = work.join("home");
        fs::create_dir_all(&home).unwrap();
        chown_tree(work, self.uid);
        let mut project = BTreeMap::from([
            ("AUTOGRADER_URL", self.url.clone()),
            ("AUTOGRADER_SHA256", self.sha256.clone()),
        ]);
        project.extend(more.iter().map(|(k, v)| (*k, v.to_string())));
        let mut exports = String::new();
        for (k, v) in job["variables"].as_mapping().expect("variables") {
            let (k, v) = (k.as_str().unwrap(), v.as_str().unwrap());
            match project.get(k) {
                Some(value) => exports.push_str(&format!("export {k}={}\n", quote(value))),
                // GitLab expands $VARIABLES in a variable's value.
                None => exports.push_str(&format!("export {k}=\"{v}\"\n")),
            }
        }
        let env = BTreeMap::from([
            ("CI".to_string(), "true".to_string()),
            ("GITLAB_CI".into(), "true".into()),
            ("HOME".into(), home.display().to_string()),
            ("CI_PROJECT_DIR".into(), repo.display().to_string()),
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ]);
        let lines = |key: &str| -> String {
            job[key]
                .as_sequence()
                .unwrap_or_else(|| panic!("no {key}"))
                .iter()
                .map(|l| l.as_str().unwrap().to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let script = self.script(
            work,
            "script.sh",
            &format!("{exports}{}\n", lines("script")),
        );
        let (code, mut log) = self.run(repo, &script, &env);
        let after = self.script(
            work,
            "after.sh",
            &format!("{exports}{}\n", lines("after_script")),
        );
        let (_, out) = self.run(repo, &after, &env);
        log.push_str(&format!("[after_script]\n{out}"));
        Job { code, log }
    }
}

/// The runner and the repository template `package ci` made in `dir`,
/// with the release archive of this build as its grader.
fn stand_in(dir: &Path) -> (Runner, PathBuf) {
    let (archive, sha256) = release_archive(dir);
    let url = format!("file://{}", archive.display());
    let course = course(dir);
    let out = run_recipe(3, &course, &[("URL", &url), ("SHA256", &sha256)]);
    expect_code(&out, 0, "package ci");
    let (user, uid) = plain_user();
    let runner = Runner {
        user,
        uid,
        fake_bwrap: fake_bwrap(dir),
        url,
        sha256,
    };
    (runner, course.join("template"))
}

#[test]
fn the_ci_workflows_pass_a_model_solution_and_fail_a_buggy_one_as_a_plain_user() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    if !is_root() {
        return cannot_run(
            "the CI stand-in needs root (a plain user to run as, a private mount namespace)",
        );
    }
    let tmp = shared_tempdir();
    let (runner, template) = stand_in(tmp.path());
    // Only the visible cases go to students.
    let stats = autograder(
        &template,
        &[
            "cases",
            "check",
            "--cases",
            "cases",
            "--assignment",
            ASSIGNMENT,
        ],
    );
    expect_code(&stats, 0, "the exported cases load");
    assert!(
        text(&stats.stdout)
            .lines()
            .any(|l| l.starts_with("total") && l.split_whitespace().last() == Some("0")),
        "no hidden case in the template: {}",
        text(&stats.stdout)
    );
    let github_temp = tmp.path().join("runner-temp");
    fs::create_dir_all(&github_temp).unwrap();

    for (name, source, passes) in [
        ("model", bundled("model-solution"), true),
        ("buggy", bundled("returns-input-call"), false),
    ] {
        for forge in ["github", "gitlab"] {
            let work = tmp.path().join(format!("{forge}-{name}"));
            let repo_dir = work.join("repo");
            copy_tree(&template, &repo_dir);
            fs::write(repo_dir.join("main.py"), &source).unwrap();
            let (job, summary) = if forge == "github" {
                let (job, summary) = runner.github(&work, &repo_dir, &github_temp);
                (job, summary)
            } else {
                let job = runner.gitlab(&work, &repo_dir);
                let summary = fs::read_to_string(repo_dir.join("summary.md")).unwrap_or_default();
                assert!(
                    job.log.contains(summary.trim()),
                    "after_script shows the summary"
                );
                (job, summary)
            };
            let what = format!("{forge} {name}:\n{}", job.log);
            assert_eq!(job.code, if passes { 0 } else { 1 }, "{what}");
            assert!(job.log.contains("sandbox: landlock"), "{what}");
            assert!(job.log.contains("bubblewrap is not usable here"), "{what}");
            assert_valid_junit(&fs::read_to_string(repo_dir.join("junit.xml")).unwrap());
            // The student reads which Python graded them, and the tier.
            assert!(summary.contains("graded by CPython 3."), "{summary}");
            assert!(summary.contains("in the landlock sandbox"), "{summary}");
            if passes {
                assert!(
                    summary.contains("3/3") || summary.contains("100%"),
                    "{forge}: {summary}"
                );
            } else {
                assert!(
                    summary.contains("validate_tool_call"),
                    "{forge}: names the failing checkpoint: {summary}"
                );
                assert!(
                    summary.contains("below") || summary.contains("fail"),
                    "{forge}: {summary}"
                );
            }
            if forge == "github" && !passes {
                // The second job on this runner found the grader in its cache.
                assert!(job.log.contains("autograder: from the cache"), "{what}");
            }
        }
    }
    say!("package ci: GitHub's and GitLab's steps as a plain user without bwrap: landlock, model passes, buggy fails with a summary");
}

/// A fake grader: full marks, whatever main.py holds, and a line to find.
const FAKE_GRADER: &str = r#"#!/bin/sh
if [ "${1:-}" = --version ]; then echo "autograder 9.9.9 (planted)"; exit 0; fi
echo "PLANTED FAKE GRADER RAN"
printf '# autograder\n\n3/3 (100%%)\n' > summary.md
cat > junit.xml <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="0" errors="0"><testsuite name="planted" tests="1" failures="0" errors="0"><testcase name="all" classname="planted"/></testsuite></testsuites>
XML
exit 0
"#;

/// Puts the fake grader in `bin` with the `.source` line the template
/// writes for `source` (what it compared before taking a kept binary).
fn plant_grader(bin: &Path, source: &str) {
    use std::os::unix::fs::PermissionsExt;
    fs::create_dir_all(bin).unwrap();
    fs::write(bin.join("autograder"), FAKE_GRADER).unwrap();
    fs::set_permissions(bin.join("autograder"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(bin.join(".source"), format!("{source}\n")).unwrap();
}

#[test]
fn a_grader_planted_in_the_checkout_or_the_jobs_cache_is_never_run() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    if !is_root() {
        return cannot_run(
            "the CI stand-in needs root (a plain user to run as, a private mount namespace)",
        );
    }
    let tmp = shared_tempdir();
    let (mut runner, template) = stand_in(tmp.path());
    let buggy = bundled("returns-input-call");
    let repo_with = |name: &str| -> (PathBuf, PathBuf) {
        let work = tmp.path().join(name);
        let repo = work.join("repo");
        copy_tree(&template, &repo);
        fs::write(repo.join("main.py"), &buggy).unwrap();
        (work, repo)
    };
    let planted = |job: &Job, what: &str| {
        assert!(
            !job.log.contains("PLANTED FAKE GRADER RAN"),
            "{what}:\n{}",
            job.log
        );
        assert!(!job.log.contains("9.9.9 (planted)"), "{what}:\n{}", job.log);
    };
    // GitLab: `.autograder-bin/` committed in the student's repository,
    // its `.source` matching the job's variables.
    let source = format!("{} {} ", runner.url, runner.sha256);
    let (work, repo) = repo_with("gitlab-planted");
    plant_grader(&repo.join(".autograder-bin"), &source);
    let job = runner.gitlab(&work, &repo);
    planted(&job, "gitlab, release archive");
    assert_eq!(job.code, 1, "the buggy main.py fails:\n{}", job.log);
    assert!(job.log.contains("sandbox: landlock"), "{}", job.log);
    assert_valid_junit(&fs::read_to_string(repo.join("junit.xml")).unwrap());
    // GitHub: the job's cache (outside the checkout) holding a fake grader
    // with a matching `.source`: what is reused is the archive, checked.
    let (work, repo) = repo_with("github-planted");
    let github_temp = tmp.path().join("runner-temp");
    plant_grader(&github_temp.join("autograder-bin"), &source);
    let (job, _) = runner.github(&work, &repo, &github_temp);
    planted(&job, "github, release archive");
    assert_eq!(job.code, 1, "the buggy main.py fails:\n{}", job.log);
    // Without a SHA-256 (`cargo install` from AUTOGRADER_GIT): nothing
    // kept in the checkout is run; the install here cannot happen (no
    // network, no cargo for the plain user), so the job fails.
    runner.url = String::new();
    runner.sha256 = String::new();
    let (work, repo) = repo_with("gitlab-planted-git");
    plant_grader(
        &repo.join(".autograder-bin"),
        "  file:///nowhere/autograder.git",
    );
    let job = runner.gitlab_with(
        &work,
        &repo,
        &[("AUTOGRADER_GIT", "file:///nowhere/autograder.git")],
    );
    planted(&job, "gitlab, cargo install");
    assert!(!job.log.contains("from the cache"), "{}", job.log);
    assert_ne!(job.code, 0, "{}", job.log);
    say!("package ci: a grader planted in the checkout (GitLab) or the job's cache (GitHub) is not run; the archive is checked on every run");
}

/// The template holds a README for the student: how to check before a
/// push (the archive, its checksum, one command), what the summary shows,
/// what hidden means, which CPython grades them; its command, run as it is
/// written, grades the repository as the job does. GitLab's job grades with
/// the image's own python3.
#[test]
fn the_template_tells_the_student_how_to_check_before_a_push() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("template");
    let sha = "ab".repeat(32);
    let url = "https://example.org/autograder-1.0.0-x86_64-linux.tar.gz";
    let cases = repo().join("cases");
    let args = [
        "package",
        "ci",
        "--cases",
        cases.to_str().unwrap(),
        "--assignment",
        "tool-proposals",
        "--binary-url",
        url,
        "--binary-sha256",
        &sha,
        "-o",
        out.to_str().unwrap(),
    ];
    expect_code(&autograder(tmp.path(), &args), 0, "package ci");
    let readme = fs::read_to_string(out.join("README.md")).unwrap();
    for needed in [
        "# Assignment tool-proposals",
        url,
        &format!("echo \"{sha}  autograder.tar.gz\" | sha256sum -c -"),
        "## Hidden cases",
        "CPython",
        "The grade that counts is the one your instructor computes",
    ] {
        assert!(
            readme.contains(needed),
            "README.md lacks {needed:?}:\n{readme}"
        );
    }
    // The command, as written, with this build standing in for the archive's.
    let command = readme
        .lines()
        .find(|l| l.starts_with("./autograder-*/autograder grade "))
        .expect("the command to run");
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    fs::copy(
        repo().join("submissions/model-solution/main.py"),
        out.join("main.py"),
    )
    .unwrap();
    let work = tmp.path().join("work");
    let mut with_work: Vec<&str> = words.clone();
    with_work.extend(["--work-dir", work.to_str().unwrap()]);
    expect_code(&autograder(&out, &with_work), 0, "the README's command");
    let gitlab = fs::read_to_string(out.join(".gitlab-ci.yml")).unwrap();
    assert!(
        gitlab.contains("export AUTOGRADER_PYTHON=\"$(command -v python3)\""),
        "{gitlab}"
    );
}
