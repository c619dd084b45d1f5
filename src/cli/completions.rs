//! `autograder completions SHELL` and `autograder man`: both generated from
//! the clap definitions, so they never drift from the flags.

use super::EXIT_OK;
use anyhow::Context;
use std::io::Write;

/// Arguments of `autograder completions`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// The shells a completion script is written for.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Prints the completion script for one shell.
pub fn completions(args: Args) -> anyhow::Result<i32> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut super::command(), "autograder", &mut out);
    write_stdout(&out)
}

/// Prints the man page, `autograder(1)`, with a section per subcommand.
pub fn man() -> anyhow::Result<i32> {
    let command = super::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut out)
        .context("rendering the man page")?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        render_section(&mut out, sub, "autograder")?;
    }
    write_stdout(&out)
}

/// A subcommand (and its own subcommands) as a section of the page.
fn render_section(out: &mut Vec<u8>, sub: &clap::Command, parent: &str) -> anyhow::Result<()> {
    let name = format!("{parent} {}", sub.get_name());
    writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
    if let Some(about) = sub.get_about() {
        writeln!(out, "{}", roff_escape(&about.to_string()))?;
    }
    let mut usage = sub.clone().bin_name(&name);
    writeln!(
        out,
        ".PP\n.nf\n{}\n.fi",
        roff_escape(&usage.render_usage().to_string())
    )?;
    let man = clap_mangen::Man::new(sub.clone());
    man.render_options_section(out)
        .with_context(|| format!("rendering the options of {name}"))?;
    for child in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
        render_section(out, child, &name)?;
    }
    Ok(())
}

/// Text as roff reads it: backslashes doubled, no line taken for a request.
fn roff_escape(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.replace('\\', "\\e");
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn write_stdout(bytes: &[u8]) -> anyhow::Result<i32> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(EXIT_OK),
        // A reader that stops early (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(EXIT_OK),
        Err(e) => Err(e).context("writing to stdout"),
    }
}
