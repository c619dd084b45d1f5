//! Command-line interface: parses arguments and calls the library. Each
//! subcommand lives in its own file with its own arguments.

mod cases;
mod completions;
mod eval;
mod grade;
mod merge;
mod output;
mod package;
mod record;
mod values;
mod work_dir;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Grades Python submissions for the "Working with LLMs" course against an
/// exact Rust reference core.
#[derive(Parser, Debug)]
#[command(name = "autograder", about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate one call on the reference core and print the outcome as Python.
    Eval(eval::Args),
    /// Check, list, count or export the case corpus.
    #[command(subcommand)]
    Cases(cases::Command),
    /// Run submissions in the sandbox and store their recordings.
    Record(record::Args),
    /// Record what is missing, grade every submission and write reports.
    Grade(grade::Args),
    /// Join the JSON reports of `grade --shard K/N` runs into one result.
    Merge(merge::Args),
    /// Write what Gradescope or a student repository's CI needs for one
    /// assignment, or the Slurm or Kubernetes jobs grading a course in shards.
    #[command(subcommand)]
    Package(package::Command),
    /// Print a shell completion script (bash, zsh or fish) on stdout.
    Completions(completions::Args),
    /// Print the manual page (roff) on stdout.
    Man,
}

/// `--version`: the release, the commit it was built from, and the formats
/// this binary reads and writes.
pub fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        format!(
            "{} (commit {}; formats: {}, {}, {}, {})",
            env!("CARGO_PKG_VERSION"),
            env!("AUTOGRADER_COMMIT"),
            crate::corpus::CASE_FORMAT,
            crate::recording::format::RECORDING_FORMAT,
            crate::recording::case_store::STORE_FORMAT,
            crate::report::schema::SCHEMA,
        )
    })
}

/// The whole command line, as clap defines it: parsing, completions and the
/// man page all start here.
pub fn command() -> clap::Command {
    Cli::command().version(version())
}

/// Exit code: graded, all at or above `--fail-under`.
pub const EXIT_OK: i32 = 0;
/// Exit code: a submission scored below `--fail-under`.
pub const EXIT_BELOW_THRESHOLD: i32 = 1;
/// Exit code: usage, corpus or I/O error.
pub const EXIT_ERROR: i32 = 2;

/// Runs the CLI and returns the process exit code
/// (0 ok, 1 graded below `--fail-under`, 2 usage or input error).
pub fn main() -> i32 {
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Cases(cmd) => cases::run(cmd),
        Command::Record(args) => record::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Package(cmd) => package::run(cmd),
        Command::Completions(args) => completions::completions(args),
        Command::Man => completions::man(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // An error can name a path from a student's tree.
            eprintln!("error: {}", crate::text::lines_escaped(&format!("{e:#}")));
            EXIT_ERROR
        }
    }
}
