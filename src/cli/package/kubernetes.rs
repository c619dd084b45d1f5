//! `autograder package kubernetes`: a course graded as a Kubernetes Indexed
//! Job, one shard per pod on a shared volume claim, and a merge Job.

use super::cluster::{plain_value, Sharded};
use super::{fill, write_file};
use crate::cli::EXIT_OK;
use anyhow::bail;

/// Arguments of `autograder package kubernetes`.
#[derive(clap::Args, Debug)]
pub struct Kubernetes {
    #[command(flatten)]
    sharded: Sharded,
    /// How many pods run at once [default: every shard].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    parallelism: Option<u32>,
    /// The pods' image: its python3 (CPython 3.8 or newer) runs student code.
    #[arg(long, value_name = "IMAGE", default_value = "python:3.12-slim")]
    image: String,
    /// The ReadWriteMany volume claim holding autograder (the portable
    /// build), cases/ and submissions/; the reports are written there.
    #[arg(long, value_name = "NAME", default_value = "autograder-course")]
    claim: String,
    /// Memory of each grading pod (requested, and its limit).
    #[arg(long, value_name = "SIZE", default_value = "2Gi")]
    mem: String,
}

const GRADE: &str = include_str!("templates/k8s-grade-job.yaml");
const MERGE: &str = include_str!("templates/k8s-merge-job.yaml");
const SUBMIT: &str = include_str!("templates/k8s-submit.sh");

/// Writes grade-job.yaml, merge-job.yaml and submit.sh; returns the exit code.
pub fn write(args: &Kubernetes) -> anyhow::Result<i32> {
    let selection = args.sharded.selection()?;
    plain_value("--image", &args.image)?;
    plain_value("--mem", &args.mem)?;
    // A claim's name is a DNS label: lowercase letters, digits and '-'.
    let claim = &args.claim;
    let label = claim.len() <= 63
        && claim.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && !claim.ends_with('-')
        && claim
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !label {
        bail!("--claim {claim:?} is not a volume claim's name (lowercase letters, digits and '-')");
    }
    let out = args.sharded.create_output()?;
    let shards = args.sharded.shards.to_string();
    let parallelism = args.parallelism.unwrap_or(args.sharded.shards).to_string();
    let cpus = args.sharded.cpus.to_string();
    let values = [
        ("SHARDS", shards.as_str()),
        ("PARALLELISM", parallelism.as_str()),
        ("CPUS", cpus.as_str()),
        ("IMAGE", args.image.as_str()),
        ("CLAIM", claim.as_str()),
        ("MEMORY", args.mem.as_str()),
        ("SELECTION", selection.as_str()),
    ];
    write_file(out, "grade-job.yaml", &fill(GRADE, &values), 0o644)?;
    write_file(out, "merge-job.yaml", &fill(MERGE, &values), 0o644)?;
    write_file(out, "submit.sh", &fill(SUBMIT, &values), 0o755)?;
    println!(
        "wrote {}: grade-job.yaml ({shards} indexed pods), merge-job.yaml and submit.sh; copy \
         autograder, cases/ and submissions/ onto the claim {claim}, then run {}",
        out.display(),
        out.join("submit.sh").display()
    );
    Ok(EXIT_OK)
}
