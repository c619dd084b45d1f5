//! `package kubernetes`: its manifests pass a real validator against
//! Kubernetes' API schema (kubernetes-validate, from PyPI), and the commands
//! its pods would run, run here in a folder laid out as the volume claim,
//! merge into a single `grade`'s reports. No Kubernetes cluster runs them.

use crate::util::deploy::*;
use serde_yaml::Value as Yaml;
use std::fs;
use std::path::Path;
use std::process::Command;

const SHARDS: usize = 3;
const REPORTS: [&str; 3] = ["report.json", "grades.csv", "dashboard.html"];

/// The one container of a Job manifest.
fn container(job: &Yaml) -> &Yaml {
    &job["spec"]["template"]["spec"]["containers"][0]
}

/// The shell script a container runs (`sh -c SCRIPT`).
fn script(job: &Yaml) -> String {
    let c = container(job);
    assert_eq!(
        c["command"],
        serde_yaml::from_str::<Yaml>("[sh, -c]").unwrap()
    );
    c["args"][0].as_str().unwrap().to_string()
}

fn read_yaml(path: &Path) -> Yaml {
    serde_yaml::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// kubernetes-validate on `files`, strict: unknown fields are errors.
fn validate(files: &[&Path]) -> std::process::Output {
    Command::new("python3")
        .args(["-m", "kubernetes_validate", "--strict"])
        .args(files)
        .output()
        .expect("python3 runs")
}

#[test]
fn kubernetes_manifests_validate_and_their_pods_commands_merge_into_a_single_run() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    let have = Command::new("python3")
        .args(["-c", "import kubernetes_validate"])
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        return cannot_run(
            "kubernetes-validate is not installed (python3 -m pip install kubernetes-validate)",
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    // The claim as the instructor fills it: the grader, cases/, submissions/.
    let claim = course(tmp.path());
    std::os::unix::fs::symlink(bin(), claim.join("autograder")).unwrap();
    let subs = claim.join("submissions");
    for (name, source) in [
        ("model", "model-solution"),
        ("buggy", "returns-input-call"),
        ("carol", "model-solution"),
    ] {
        submission(&subs, name, &bundled(source));
    }
    submission(&subs, "empty", "");
    let out = autograder(
        &claim,
        &[
            "package",
            "kubernetes",
            "--assignment",
            "tool-proposals",
            "--shards",
            &SHARDS.to_string(),
            "--parallelism",
            "2",
            "--claim",
            "course-2026",
            "-o",
            "k8s",
        ],
    );
    expect_code(&out, 0, "package kubernetes");
    let k8s = tmp.path().join("course/k8s");
    let (grade, merge) = (k8s.join("grade-job.yaml"), k8s.join("merge-job.yaml"));

    let checked = validate(&[&grade, &merge]);
    expect_code(&checked, 0, "kubernetes-validate");
    // The validator does check: a misspelt field is refused.
    let wrong = tmp.path().join("wrong.yaml");
    let text_of = fs::read_to_string(&grade).unwrap();
    fs::write(&wrong, text_of.replace("completionMode:", "completionMod:")).unwrap();
    assert!(
        !validate(&[&wrong]).status.success(),
        "a misspelt field passed"
    );

    let job = read_yaml(&grade);
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    assert_eq!(job["spec"]["completions"], SHARDS);
    assert_eq!(job["spec"]["parallelism"], 2);
    assert_eq!(
        job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"],
        "course-2026"
    );
    let mount = &container(&job)["volumeMounts"][0]["mountPath"];
    assert_eq!(container(&job)["workingDir"], *mount);
    let check = Command::new("bash")
        .arg("-n")
        .arg(k8s.join("submit.sh"))
        .output()
        .unwrap();
    expect_code(&check, 0, "bash -n submit.sh");

    // Each pod's command, with its index, in the claim's folder; then the
    // merge pod's.
    let run = |script: &str, index: Option<usize>| {
        let mut command = Command::new("sh");
        command
            .args(["-c", script])
            .current_dir(&claim)
            .env_remove("AUTOGRADER_PYTHON")
            .env_remove("AUTOGRADER_ISOLATION");
        if let Some(i) = index {
            command.env("JOB_COMPLETION_INDEX", i.to_string());
        }
        command.output().unwrap()
    };
    for index in 0..SHARDS {
        expect_code(&run(&script(&job), Some(index)), 0, &format!("pod {index}"));
    }
    expect_code(&run(&script(&read_yaml(&merge)), None), 0, "the merge pod");

    // One grade of the claim's folder, its outcomes recorded afresh.
    let single = tmp.path().join("single");
    fs::create_dir_all(&single).unwrap();
    let work = single.join("work");
    let mut args = vec![
        "grade",
        "submissions",
        "--cases",
        "cases",
        "--assignment",
        "tool-proposals",
        "--work-dir",
        work.to_str().unwrap(),
        "--quiet",
    ];
    let outputs: Vec<String> = REPORTS
        .iter()
        .map(|name| single.join(name).to_str().unwrap().to_string())
        .collect();
    for (flag, path) in ["--json", "--csv", "--html"].iter().zip(&outputs) {
        args.extend([*flag, path.as_str()]);
    }
    expect_code(&autograder(&claim, &args), 0, "the single grade");
    for name in REPORTS {
        assert!(
            fs::read(claim.join(name)).unwrap() == fs::read(single.join(name)).unwrap(),
            "{name}: the merged pods' reports differ from a single run's"
        );
    }
}
