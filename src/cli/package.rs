//! `autograder package gradescope|ci|slurm|kubernetes`: everything a course
//! needs to be graded where the instructor has no Rust toolchain:
//! Gradescope's autograder zip, a student template repository's CI files,
//! or the jobs that grade a large course in shards on a cluster.

mod cluster;
mod glibc;
mod kubernetes;
mod slurm;

use super::record::{load_corpus, AssignmentArgs};
use super::EXIT_OK;
use anyhow::{bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `autograder package ...`
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Write Gradescope's autograder.zip: setup.sh, run_autograder, the
    /// binary and the assignment's cases, hidden ones included (the zip is
    /// the instructor's: never hand it to students).
    Gradescope(Gradescope),
    /// Write a student template repository's CI: GitHub's
    /// .github/workflows/autograder.yml, .gitlab-ci.yml, and the
    /// assignment's visible cases.
    Ci(Ci),
    /// Write a Slurm recipe: grade.sbatch, an array job grading one shard
    /// per task (`grade --shard K/N`), merge.sbatch joining the shards into
    /// report.json, grades.csv and dashboard.html, and submit.sh, which
    /// queues the merge to run once every task has succeeded.
    Slurm(slurm::Slurm),
    /// Write a Kubernetes recipe: grade-job.yaml, an Indexed Job grading one
    /// shard per pod on a shared volume claim, merge-job.yaml, and submit.sh
    /// applying them in turn with kubectl. (Checked against Kubernetes' API
    /// schema; our tests run no Kubernetes cluster.)
    Kubernetes(kubernetes::Kubernetes),
}

/// The corpus and the one assignment a package is for.
#[derive(clap::Args, Debug)]
struct Assignment {
    /// The case corpus (the folder holding course.toml).
    #[arg(long, value_name = "DIR", default_value = "cases")]
    cases: PathBuf,
    /// The assignment of course.toml to package (without [[assignment]]
    /// tables, each lesson is one).
    #[arg(long, value_name = "ID")]
    assignment: String,
}

/// Arguments of `autograder package gradescope`.
#[derive(clap::Args, Debug)]
pub struct Gradescope {
    #[command(flatten)]
    assignment: Assignment,
    /// The grader binary to ship [default: this one]: the portable build
    /// from scripts/dist.sh (glibc 2.17); a newer need is warned about.
    /// Gradescope's Ubuntu 20.04, 22.04 and 24.04 base images work (their
    /// CPython 3.8, 3.10 and 3.12 run student code); 18.04's python3 is
    /// 3.6, which setup.sh refuses: choose a newer image.
    #[arg(long, value_name = "PATH")]
    binary: Option<PathBuf>,
    /// The zip to write.
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        default_value = "autograder.zip"
    )]
    output: PathBuf,
}

/// Arguments of `autograder package ci`.
#[derive(clap::Args, Debug)]
pub struct Ci {
    #[command(flatten)]
    assignment: Assignment,
    /// Where the workflows fetch the grader: the release archive's URL (from
    /// scripts/dist.sh). The AUTOGRADER_URL variable overrides it.
    #[arg(long, value_name = "URL", default_value = "")]
    binary_url: String,
    /// The archive's SHA-256 (its .sha256 file). AUTOGRADER_SHA256 overrides it.
    #[arg(long, value_name = "HEX", default_value = "")]
    binary_sha256: String,
    /// Without a URL: the git repository `cargo install` builds the grader
    /// from. AUTOGRADER_GIT overrides it.
    #[arg(long, value_name = "URL", default_value = "")]
    cargo_git: String,
    /// The template repository's folder (new or empty).
    #[arg(long, short = 'o', value_name = "DIR")]
    output: PathBuf,
}

/// Runs one `package` subcommand; returns the exit code.
pub fn run(cmd: Command) -> anyhow::Result<i32> {
    match cmd {
        Command::Gradescope(args) => gradescope(&args),
        Command::Ci(args) => ci(&args),
        Command::Slurm(args) => slurm::write(&args),
        Command::Kubernetes(args) => kubernetes::write(&args),
    }
}

/// Refuses an id a script could not carry as it is.
fn plain_id(flag: &str, id: &str) -> anyhow::Result<()> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail!("{flag} {id:?}: a package needs an id of letters, digits, '-' and '_'");
    }
    Ok(())
}

/// Creates `out`, refusing one that holds anything: a package never
/// overwrites what is there.
fn empty_folder(out: &Path) -> anyhow::Result<()> {
    if out.exists() && std::fs::read_dir(out).map_or(true, |mut d| d.next().is_some()) {
        bail!(
            "{} already exists and is not an empty folder",
            out.display()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))
}

/// Writes `text` to `dir/name` with Unix permissions `mode`.
fn write_file(dir: &Path, name: &str, text: &str, mode: u32) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("writing {}", path.display()))
}

/// The shell-safe assignment id, checked to exist in the corpus.
fn checked(assignment: &Assignment) -> anyhow::Result<crate::corpus::Corpus> {
    let id = &assignment.assignment;
    plain_id("--assignment", id)?;
    let args = AssignmentArgs {
        assignments: vec![id.clone()],
        lessons: Vec::new(),
    };
    load_corpus(&assignment.cases, &args, None)
}

/// A template with its `@NAME@` placeholders filled in.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut text = template.to_string();
    for (name, value) in values {
        text = text.replace(&format!("@{name}@"), value);
    }
    debug_assert!(!text.contains("@ASSIGNMENT@"), "a placeholder left");
    text
}

const SETUP_SH: &str = include_str!("package/templates/setup.sh");
const RUN_AUTOGRADER: &str = include_str!("package/templates/run_autograder");
/// What a student reads first in a repository `package ci` writes.
const STUDENT_README: &str = include_str!("package/templates/README.md");
const FETCH_SH: &str = include_str!("package/templates/fetch.sh");
const GITHUB_WORKFLOW: &str = include_str!("package/templates/autograder.yml");
const GITLAB_CI: &str = include_str!("package/templates/gitlab-ci.yml");

fn gradescope(args: &Gradescope) -> anyhow::Result<i32> {
    let corpus = checked(&args.assignment)?;
    let id = args.assignment.assignment.as_str();
    let binary = match &args.binary {
        Some(path) => path.clone(),
        None => std::env::current_exe().context("cannot find this binary to ship")?,
    };
    match glibc::required(&binary)? {
        Some(need) if need > glibc::PORTABLE => eprintln!(
            "warning: {} needs glibc {}.{}; Gradescope's Ubuntu 24.04 image has 2.39, \
             22.04 has 2.35, 20.04 has 2.31: pass --binary with the portable build of \
             scripts/dist.sh (glibc {}.{})",
            binary.display(),
            need.0,
            need.1,
            glibc::PORTABLE.0,
            glibc::PORTABLE.1
        ),
        _ => {}
    }
    let binary_bytes =
        std::fs::read(&binary).with_context(|| format!("reading {}", binary.display()))?;
    let values = [("ASSIGNMENT", id)];
    let mut entries: Vec<(String, Vec<u8>, u32)> = vec![
        (
            "setup.sh".into(),
            fill(SETUP_SH, &values).into_bytes(),
            0o755,
        ),
        (
            "run_autograder".into(),
            fill(RUN_AUTOGRADER, &values).into_bytes(),
            0o755,
        ),
        ("autograder".into(), binary_bytes, 0o755),
    ];
    for (rel, bytes) in case_files(&corpus)? {
        entries.push((format!("cases/{rel}"), bytes, 0o644));
    }
    write_zip(&args.output, &entries)
        .with_context(|| format!("writing {}", args.output.display()))?;
    let cases = corpus.cases.len();
    let hidden = corpus
        .cases
        .iter()
        .filter(|c| c.visibility == crate::corpus::Visibility::Hidden)
        .count();
    println!(
        "wrote {}: assignment {id}, {cases} cases ({hidden} hidden), binary {}; upload it as \
         Gradescope's autograder (keep it from students: it holds the hidden cases)",
        args.output.display(),
        binary.display()
    );
    Ok(EXIT_OK)
}

/// The corpus files an assignment needs, relative to the corpus folder:
/// course.toml and the case files of its checkpoints, as written.
fn case_files(corpus: &crate::corpus::Corpus) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut paths: Vec<PathBuf> = vec![corpus.root.join("course.toml")];
    paths.extend(corpus.cases.iter().map(|c| c.file.clone()));
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&corpus.root).unwrap_or(&path);
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            Ok((rel.join("/"), bytes))
        })
        .collect()
}

/// Writes a zip of `entries` (name, bytes, Unix mode), replacing `path`
/// only once it is complete.
fn write_zip(path: &Path, entries: &[(String, Vec<u8>, u32)]) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file = tempfile::NamedTempFile::new_in(dir)?;
    let mut zip = zip::ZipWriter::new(file);
    for (name, bytes, mode) in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(*mode);
        zip.start_file(name.as_str(), options)?;
        zip.write_all(bytes)?;
    }
    let file = zip.finish()?;
    // A temporary file is private; the zip is an ordinary file.
    file.as_file()
        .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
    file.persist(path)?;
    Ok(())
}

fn ci(args: &Ci) -> anyhow::Result<i32> {
    let corpus = checked(&args.assignment)?;
    let id = args.assignment.assignment.as_str();
    for (flag, value) in [
        ("--binary-url", &args.binary_url),
        ("--binary-sha256", &args.binary_sha256),
        ("--cargo-git", &args.cargo_git),
    ] {
        if value
            .chars()
            .any(|c| matches!(c, '\'' | '"' | '\\' | '$' | '`') || c.is_control())
        {
            bail!("{flag} {value:?}: quotes, '$', '`', '\\' and control characters cannot go into a workflow");
        }
    }
    let sha = &args.binary_sha256;
    if !(sha.is_empty() || sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit())) {
        bail!(
            "--binary-sha256 {:?} is not a SHA-256 (64 hex digits)",
            args.binary_sha256
        );
    }
    let out = &args.output;
    empty_folder(out)?;
    let grade = format!(
        "autograder grade . --cases cases --assignment {id} --main-py-only --audience student \
         --junit junit.xml --markdown summary.md --fail-under 100"
    );
    let indent = |text: &str, by: &str| -> String {
        text.lines()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{by}{l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let fetch_github = indent(FETCH_SH, "          ");
    let fetch_gitlab = indent(FETCH_SH, "      ");
    let common = [
        ("ASSIGNMENT", id),
        ("URL", args.binary_url.as_str()),
        ("SHA256", args.binary_sha256.as_str()),
        ("GIT", args.cargo_git.as_str()),
        ("GRADE", grade.as_str()),
    ];
    let github = fill(&GITHUB_WORKFLOW.replace("@FETCH@", &fetch_github), &common);
    let gitlab = fill(&GITLAB_CI.replace("@FETCH@", &fetch_gitlab), &common);
    let workflows = out.join(".github/workflows");
    std::fs::create_dir_all(&workflows)
        .with_context(|| format!("creating {}", workflows.display()))?;
    std::fs::write(workflows.join("autograder.yml"), github)?;
    std::fs::write(out.join(".gitlab-ci.yml"), gitlab)?;
    let (url, sha) = match args.binary_url.as_str() {
        "" => (
            "<the release archive's URL: ask your instructor>",
            "<its SHA-256>",
        ),
        url => (url, args.binary_sha256.as_str()),
    };
    let readme = fill(
        STUDENT_README,
        &[
            ("ASSIGNMENT", id),
            ("URL_OR_RELEASE", url),
            ("SHA256_OR_CHECK", sha),
        ],
    );
    std::fs::write(out.join("README.md"), readme)?;
    let summary = super::cases::export_visible(&corpus, &out.join("cases"))?;
    println!(
        "wrote {}: .github/workflows/autograder.yml, .gitlab-ci.yml, README.md (for the student) \
         and cases/ ({} visible cases of assignment {id}; {} hidden left out); add the student's \
         main.py at its root",
        out.display(),
        summary.visible,
        summary.hidden_dropped
    );
    if args.binary_url.is_empty() && args.cargo_git.is_empty() {
        eprintln!(
            "warning: no --binary-url or --cargo-git: set the repository's AUTOGRADER_URL and \
             AUTOGRADER_SHA256 variables (or AUTOGRADER_GIT), or the job stops and says so"
        );
    }
    Ok(EXIT_OK)
}
