//! `autograder package slurm`: a course graded as a Slurm array job, one
//! shard per task, and a merge job queued after it.

use super::cluster::{plain_value, Sharded};
use super::{fill, write_file};
use crate::cli::EXIT_OK;
use crate::text::shell_word;
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

/// Arguments of `autograder package slurm`.
#[derive(clap::Args, Debug)]
pub struct Slurm {
    /// The folder of submissions the jobs grade, as `grade` takes it.
    #[arg(default_value = "submissions")]
    submissions: PathBuf,
    #[command(flatten)]
    sharded: Sharded,
    /// The partition the jobs queue on [default: the cluster's default].
    #[arg(long, value_name = "NAME")]
    partition: Option<String>,
    /// Time limit of each job (sbatch --time, e.g. 1:00:00) [default: the
    /// partition's].
    #[arg(long, value_name = "TIME")]
    time: Option<String>,
    /// Memory of each job (sbatch --mem, e.g. 4G) [default: the partition's].
    #[arg(long, value_name = "SIZE")]
    mem: Option<String>,
    /// The grader the jobs run [default: this one], at a path the compute
    /// nodes see.
    #[arg(long, value_name = "PATH")]
    binary: Option<PathBuf>,
}

const GRADE: &str = include_str!("templates/slurm-grade.sbatch");
const MERGE: &str = include_str!("templates/slurm-merge.sbatch");
const SUBMIT: &str = include_str!("templates/slurm-submit.sh");

/// Writes grade.sbatch, merge.sbatch and submit.sh; returns the exit code.
pub fn write(args: &Slurm) -> anyhow::Result<i32> {
    let selection = args.sharded.selection()?;
    let mut directives = String::new();
    for (flag, value) in [
        ("--partition", &args.partition),
        ("--time", &args.time),
        ("--mem", &args.mem),
    ] {
        if let Some(value) = value {
            plain_value(flag, value)?;
            directives.push_str(&format!("#SBATCH {flag}={value}\n"));
        }
    }
    if !args.submissions.is_dir() {
        bail!(
            "{} is not a folder of submissions",
            args.submissions.display()
        );
    }
    let binary = match &args.binary {
        Some(path) if path.is_file() => path.clone(),
        Some(path) => bail!("--binary {}: no such file", path.display()),
        None => std::env::current_exe().context("cannot find this binary")?,
    };
    // The jobs run in the output folder: every path they take is absolute.
    let (binary, submissions, cases) = (
        absolute_word(&binary)?,
        absolute_word(&args.submissions)?,
        absolute_word(&args.sharded.cases)?,
    );
    let out = args.sharded.create_output()?;
    let shards = args.sharded.shards.to_string();
    let cpus = args.sharded.cpus.to_string();
    let values = [
        ("SHARDS", shards.as_str()),
        ("CPUS", cpus.as_str()),
        ("BINARY", binary.as_str()),
        ("SUBMISSIONS", submissions.as_str()),
        ("CASES", cases.as_str()),
        ("SELECTION", selection.as_str()),
    ];
    let script = |template: &str| fill(&template.replace("@DIRECTIVES@\n", &directives), &values);
    write_file(out, "grade.sbatch", &script(GRADE), 0o755)?;
    write_file(out, "merge.sbatch", &script(MERGE), 0o755)?;
    write_file(out, "submit.sh", &script(SUBMIT), 0o755)?;
    println!(
        "wrote {}: grade.sbatch ({shards} array tasks), merge.sbatch and submit.sh; run {} on a \
         login node: the reports land beside it (report.json, grades.csv, dashboard.html)",
        out.display(),
        out.join("submit.sh").display()
    );
    Ok(EXIT_OK)
}

/// `path` made absolute, as a shell word.
fn absolute_word(path: &Path) -> anyhow::Result<String> {
    let absolute = std::path::absolute(path)
        .with_context(|| format!("cannot make {} absolute", path.display()))?;
    match absolute.to_str() {
        Some(text) => Ok(shell_word(text)),
        None => bail!(
            "{}: a path that is not UTF-8 cannot go into a script",
            absolute.display()
        ),
    }
}
