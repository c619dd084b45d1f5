//! `autograder eval "<call>"`: one call on the reference core, printed as
//! Python would print the result.

use super::EXIT_OK;
use crate::reference;
use crate::value::reader::{self, Lets, ReadError};
use crate::value::repr::repr;
use crate::value::Outcome;

/// Arguments of `autograder eval`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The call, in the case files' call language, e.g.
    /// "execute_tool({'id': 'c1', 'name': 'multiply', 'arguments': {'x': 6, 'y': 7}})".
    #[arg(value_name = "CALL")]
    call: String,
}

/// Runs `autograder eval`: prints the outcome, or fails on a call the core refuses.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let call = reader::parse_call(&args.call, &Lets::new())
        .map_err(|e| anyhow::anyhow!("cannot read the call: {e}\n{}", pointer(&args.call, &e)))?;
    let outcome = reference::call(&call.function, &call.args, &call.kwargs)
        .map_err(|e| anyhow::anyhow!("{}(): {e}", call.function))?;
    println!("{}", outcome_text(&outcome));
    Ok(EXIT_OK)
}

/// `repr(value)` for a return, `raises ValueError` for a raise.
pub fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Returns(v) => repr(v),
        Outcome::Raises(e) => format!("raises {}", e.name()),
    }
}

/// The offending line of the text with a caret under the error's column.
pub fn pointer(text: &str, e: &ReadError) -> String {
    let line = text
        .replace("\r\n", "\n")
        .split(['\n', '\r'])
        .nth(e.line.saturating_sub(1))
        .unwrap_or_default()
        .to_string();
    // Keep long lines readable: a window of the line around the column.
    let chars: Vec<char> = line.chars().collect();
    let col = e.column.saturating_sub(1).min(chars.len());
    let from = col.saturating_sub(60);
    let to = (col + 20).min(chars.len());
    let shown: String = chars[from..to].iter().collect();
    let prefix = if from > 0 { "..." } else { "" };
    let pad = prefix.chars().count() + chars[from..col].iter().map(|_| 1).sum::<usize>();
    format!("  {prefix}{shown}\n  {}^", " ".repeat(pad))
}
