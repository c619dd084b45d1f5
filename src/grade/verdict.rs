//! The verdict on one case: the expected outcome (from the reference core)
//! against the recorded one, under the rules of `checkpoints.md`.
//!
//! [`judge`] is the only place outcomes are compared, and [`value_matches`]
//! the only place values are: strict equality, except where the expected
//! value holds a matcher (`<any non-empty str>`, see `value::matcher`).

use crate::recording::format::{ArgChange, CaseOutcome, MemoryLimit, MemoryScope, RecordedValue};
use crate::text::{cut, escaped};
use crate::value::repr::{show, Shown};
use crate::value::tagged::{self, TaggedError};
use crate::value::{matches, Exception, Outcome, PyValue};

/// How a case whose returned value the grader will not read fails
/// (`value::budget`: an int in more decimal digits than Python reads).
pub const TOO_LARGE_TO_GRADE: &str = "returned a value too large to grade";
/// What a reason adds when the value it quotes is shown abridged (some
/// ints by their width: `<int of N bits>`), and why.
pub const TOO_LARGE_TO_SHOW: &str = "too large to show in full";

/// How many characters of a value or message a reason quotes.
const REASON_QUOTE_CHARS: usize = 120;
/// How many characters of where a shared object is a reason quotes (the
/// harness writes at most 328).
const SHARED_QUOTE_CHARS: usize = crate::recording::format::SHARED_CHARS;

/// The verdict on one case.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub passed: bool,
    /// Why it failed, in plain words; may quote the returned value or the
    /// exception message. `None` when passed.
    pub reason: Option<String>,
    /// The same reason without any value or message, safe to show for a
    /// hidden case (whose input the value could reveal). `None` when passed.
    pub brief: Option<String>,
    /// What the student's call did, for display: the decoded returned value.
    pub got_value: Option<PyValue>,
    /// What the student's call did, as one line (`repr` of the value, or
    /// `raise TypeError: message`); `None` for timeouts, crashes and the like,
    /// which the reason already describes.
    pub got: Option<String>,
}

impl Verdict {
    fn pass(got_value: Option<PyValue>, got: Option<String>) -> Verdict {
        Verdict {
            passed: true,
            reason: None,
            brief: None,
            got_value,
            got,
        }
    }

    pub(crate) fn fail(reason: String, brief: impl Into<String>) -> Verdict {
        Verdict {
            passed: false,
            reason: Some(reason),
            brief: Some(brief.into()),
            got_value: None,
            got: None,
        }
    }

    fn with_got(mut self, value: Option<PyValue>, got: Option<String>) -> Verdict {
        self.got_value = value;
        self.got = got;
        self
    }
}

/// Whether a returned value satisfies the expected one: strict equality
/// (types all the way down, dict order ignored, nan equals nan), and where
/// the expected value holds a matcher, any value the matcher accepts.
pub fn value_matches(expected: &PyValue, got: &PyValue) -> bool {
    matches(expected, got)
}

/// Judges one case of `checkpoint` (its function name): as [`judge`], with
/// the checkpoint's own rules: whether its result must be new
/// ([`crate::reference::returns_new`]), and its parameter names for the
/// arguments a sharing reason shows (`call['arguments']`, not `args[0]`).
pub fn judge_case(checkpoint: &str, expected: &Outcome, recorded: Option<&CaseOutcome>) -> Verdict {
    let rules = Rules {
        returns_new: crate::reference::returns_new(checkpoint),
        params: crate::reference::checkpoint(checkpoint).map(|c| c.params),
    };
    judge_with(&rules, expected, recorded)
}

/// Judges one case: `recorded` is `None` when the recording has no outcome
/// for it. Never panics on malformed recorded data: that fails the case.
/// Every rule applies, a new result included (see [`judge_case`]).
pub fn judge(expected: &Outcome, recorded: Option<&CaseOutcome>) -> Verdict {
    let rules = Rules {
        returns_new: true,
        params: None,
    };
    judge_with(&rules, expected, recorded)
}

/// What a checkpoint's cases are judged by, besides their expected outcome.
struct Rules {
    /// A list or dict of the result that the module holds or an earlier
    /// call returned fails (`shares_with_state`).
    returns_new: bool,
    /// The signature, to name the arguments in a sharing reason.
    params: Option<&'static [crate::reference::Param]>,
}

/// Why a result that shares an object fails: `what` it shares it with, and
/// where, from the recording's `shared` text (shown escaped and cut, with
/// `args[0]` named as the parameter it is).
fn shared_reason(what: &str, shared: Option<&str>, rules: &Rules) -> String {
    match shared {
        Some(text) if !text.is_empty() => format!(
            "{what}: {} (must be a new dict/list)",
            escaped(&cut(
                &named_arguments(text, rules.params),
                SHARED_QUOTE_CHARS
            ))
        ),
        _ => format!("{what} (must be a new dict/list)"),
    }
}

/// `got['a'] is args[0]['a']` as `got['a'] is call['a']`, and
/// `kwargs['limit']` as `limit`, where the signature names them; anything
/// else as it is.
fn named_arguments(text: &str, params: Option<&[crate::reference::Param]>) -> String {
    match text.find(" is ") {
        Some(at) => format!("{} is {}", &text[..at], named_path(&text[at + 4..], params)),
        None => text.to_string(),
    }
}

/// A path that starts at an argument (`args[0]['a']`, `kwargs['limit']`)
/// starting at its parameter's name instead (`call['a']`, `limit`), where
/// the signature names it; anything else as it is.
fn named_path(path: &str, params: Option<&[crate::reference::Param]>) -> String {
    let Some(params) = params else {
        return path.to_string();
    };
    if let Some(tail) = path.strip_prefix("args[") {
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let after = tail[digits..].strip_prefix(']');
        if let (Ok(i), Some(after)) = (tail[..digits].parse::<usize>(), after) {
            if let Some(p) = params.get(i) {
                return format!("{}{after}", p.name);
            }
        }
    }
    if let Some(tail) = path.strip_prefix("kwargs['") {
        if let Some(p) = params
            .iter()
            .find(|p| tail.starts_with(&format!("{}']", p.name)))
        {
            return format!("{}{}", p.name, &tail[p.name.len() + 2..]);
        }
    }
    path.to_string()
}

/// `changed its argument: call['args'] was {...} before the call, {...}
/// after` where the recording says where.
fn changed_reason(change: Option<&ArgChange>, rules: &Rules) -> String {
    let Some(change) = change else {
        return "changed its argument".to_string();
    };
    let side = |v: &Option<RecordedValue>| {
        let decoded = v
            .as_ref()
            .and_then(|v| v.to_json().ok())
            .and_then(|json| tagged::decode(&json).ok());
        match decoded {
            Some(value) => cut(&show(&value).text, REASON_QUOTE_CHARS),
            None => "(too large to show)".to_string(),
        }
    };
    format!(
        "changed its argument: {} was {} before the call, {} after",
        escaped(&cut(
            &named_path(&change.path, rules.params),
            SHARED_QUOTE_CHARS
        )),
        side(&change.before),
        side(&change.after)
    )
}

/// How the reason of a case starts when `main.py` did not import: reports
/// that say it once for every case ([`crate::report`]) know it by this.
pub const IMPORT_FAILED: &str = "main.py did not import";

fn judge_with(rules: &Rules, expected: &Outcome, recorded: Option<&CaseOutcome>) -> Verdict {
    let Some(recorded) = recorded else {
        return Verdict::fail("not recorded".into(), "not recorded");
    };
    match recorded {
        CaseOutcome::Returned {
            value,
            shares_with_args,
            args_changed,
            shares_with_state,
            shared,
            changed,
        } => {
            let got = match value.to_json().map(|json| tagged::decode(&json)) {
                Ok(Ok(v)) => v,
                Ok(Err(TaggedError::TooLarge(why))) => {
                    return Verdict::fail(
                        format!("{TOO_LARGE_TO_GRADE}: {why}"),
                        TOO_LARGE_TO_GRADE,
                    )
                }
                Ok(Err(e)) => return unreadable(e.to_string()),
                Err(e) => return unreadable(e.to_string()),
            };
            // Compared first, exactly (linear in the recorded text); only a
            // failure pays for showing the value, within the grader's
            // budget (`value::budget`): computed once, quoted twice.
            let shown = std::cell::OnceCell::new();
            let quote = || {
                let shown: &Shown = shown.get_or_init(|| show(&got));
                let cut = cut(&shown.text, REASON_QUOTE_CHARS);
                match &shown.abridged {
                    None => cut,
                    Some(why) => format!("{cut} ({TOO_LARGE_TO_SHOW}: {why})"),
                }
            };
            let verdict = match expected {
                Outcome::Raises(exc) => Verdict::fail(
                    format!("expected {}, got return {}", exc.name(), quote()),
                    format!("expected {}, got a return value", exc.name()),
                ),
                Outcome::Returns(want) if !value_matches(want, &got) => Verdict::fail(
                    format!("returned a wrong value: {}", quote()),
                    "returned a wrong value",
                ),
                Outcome::Returns(_) if *shares_with_args => Verdict::fail(
                    shared_reason(
                        "returned an object that is also in its arguments",
                        shared.as_deref(),
                        rules,
                    ),
                    // A path's keys may come from a hidden input.
                    "returned an object that is also in its arguments (must be a new dict/list)",
                ),
                Outcome::Returns(_) if *shares_with_state && rules.returns_new => Verdict::fail(
                    shared_reason(
                        "returned an object that is not new",
                        shared.as_deref().or(Some(
                            "the module holds it, or an earlier call returned it",
                        )),
                        rules,
                    ),
                    "returned an object that is not new: the module holds it, or an earlier call returned it (must be a new dict/list)",
                ),
                // Where it changed may quote a hidden input: only the reason says.
                Outcome::Returns(_) if *args_changed => Verdict::fail(
                    changed_reason(changed.as_ref(), rules),
                    "changed its argument",
                ),
                Outcome::Returns(_) => return Verdict::pass(None, None),
            };
            // Only failures pay for the repr.
            let got_repr = shown.into_inner().unwrap_or_else(|| show(&got)).text;
            verdict.with_got(Some(got), Some(got_repr))
        }
        CaseOutcome::Raised {
            class,
            mro,
            message,
        } => {
            let got = raised_line(class, mro, &escaped(message));
            match expected {
                Outcome::Raises(exc) if raised_matches(*exc, mro) => Verdict::pass(None, Some(got)),
                _ => {
                    let name = raised_name(class, mro);
                    // A student class named like the expected builtin.
                    let own = match expected {
                        Outcome::Raises(exc)
                            if class == exc.name()
                                || name.ends_with(&format!(".{}", exc.name())) =>
                        {
                            format!(" (a class of its own, not the builtin {})", exc.name())
                        }
                        _ => String::new(),
                    };
                    Verdict::fail(
                        format!("raised {}{own}", cut(&got, REASON_QUOTE_CHARS)),
                        format!("raised {}{own}", raised_kind(mro)),
                    )
                }
                .with_got(None, Some(got)),
            }
        }
        CaseOutcome::OutputTooLarge => Verdict::fail(
            "returned a value too large to record".into(),
            "returned a value too large to record",
        ),
        CaseOutcome::Timeout {
            seconds,
            submission_budget: None,
        } => {
            let r = format!("timed out after {} s", seconds_text(*seconds));
            Verdict::fail(r.clone(), r)
        }
        CaseOutcome::Timeout {
            seconds,
            submission_budget: Some(budget),
        } => {
            let r = format!(
                "timed out: the submission's time budget ran out ({} s for all its cases; {} s per case)",
                seconds_text(*budget),
                seconds_text(*seconds)
            );
            Verdict::fail(r.clone(), r)
        }
        CaseOutcome::Crashed { exit_code, signal } => {
            let r = match (exit_code, signal) {
                (_, Some(sig)) => format!("crashed (killed by signal {sig})"),
                (Some(code), None) => format!("crashed (exit code {code})"),
                (None, None) => "crashed".to_string(),
            };
            Verdict::fail(r.clone(), r)
        }
        CaseOutcome::OutOfMemory { limit } => {
            let r = match limit {
                Some(limit) => format!("ran out of memory ({})", memory_limit_text(limit)),
                None => "ran out of memory".to_string(),
            };
            Verdict::fail(r.clone(), r)
        }
        CaseOutcome::DiskLimit { bytes } => Verdict::fail(
            format!("wrote more than {} MiB to disk", bytes >> 20),
            "wrote too much to disk",
        ),
        CaseOutcome::Missing => {
            Verdict::fail("function not defined".into(), "function not defined")
        }
        CaseOutcome::ImportError {
            exc_type,
            message,
            line,
            source_line,
        } => {
            let at = line.map(|l| format!(" line {l}")).unwrap_or_default();
            let msg = if message.is_empty() {
                String::new()
            } else {
                format!(": {}", cut(&escaped(message), REASON_QUOTE_CHARS))
            };
            // The line itself, as the student wrote it.
            let quoted = match (line, source_line.as_deref().map(str::trim)) {
                (Some(l), Some(text)) if !text.is_empty() => {
                    format!(
                        "; line {l} reads `{}`",
                        cut(&escaped(text), REASON_QUOTE_CHARS)
                    )
                }
                _ => String::new(),
            };
            let r = format!("{IMPORT_FAILED}: {}{at}{msg}{quoted}", escaped(exc_type));
            // No hidden input is in the process when main.py imports, but a
            // submission can keep one in its folder for a later import (a
            // fresh child after a crash): the brief names only what the
            // grader decides.
            let kind = if BUILTIN_EXCEPTIONS.contains(&exc_type.as_str()) {
                exc_type.as_str()
            } else {
                "an exception of its own class"
            };
            Verdict::fail(r, format!("{IMPORT_FAILED}: {kind}"))
        }
    }
}

/// A returned value that is not valid tagged JSON (`why`).
fn unreadable(why: String) -> Verdict {
    Verdict::fail(
        format!("returned a value that could not be read from the recording: {why}"),
        "returned a value that could not be read from the recording",
    )
}

/// Whether a raised exception with this MRO is an instance of `exc`: the
/// harness names real builtin classes by their bare name only, so a student
/// class that merely calls itself `ValueError` never matches.
fn raised_matches(exc: Exception, mro: &[String]) -> bool {
    mro.iter().any(|name| name == exc.name())
}

/// CPython's built-in exception classes (3.8 to 3.13): the only class
/// names a hidden case's brief may quote, since any other name is the
/// student's to choose (`type(repr(arg), (ValueError,), {})` spells the
/// input).
const BUILTIN_EXCEPTIONS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "PythonFinalizationError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
];

/// What a brief says of a raised exception, from its MRO (the harness
/// names built-in classes by their bare name): `ValueError`, `a subclass
/// of ValueError` (the nearest built-in class it derives from), or `an
/// exception` — never a name the student chose.
fn raised_kind(mro: &[String]) -> String {
    let builtin = mro
        .iter()
        .position(|name| BUILTIN_EXCEPTIONS.contains(&name.as_str()));
    match builtin {
        Some(0) => mro[0].clone(),
        Some(i) => format!("a subclass of {}", mro[i]),
        None => "an exception".to_string(),
    }
}

/// The name to show for a raised class: the most derived MRO entry
/// (qualified for non-builtins, e.g. `main.ValueError`), else the class name.
fn raised_name<'a>(class: &'a str, mro: &'a [String]) -> &'a str {
    mro.first().map(String::as_str).unwrap_or(class)
}

fn raised_line(class: &str, mro: &[String], message: &str) -> String {
    let name = escaped(raised_name(class, mro));
    if message.is_empty() {
        name.to_string()
    } else {
        format!("{name}: {message}")
    }
}

/// `2` for 2.0 seconds, `2.5` for 2.5.
/// A memory bound as reports say it: `1 GiB a process`.
fn memory_limit_text(limit: &MemoryLimit) -> String {
    let size = bytes_text(limit.bytes);
    match limit.of {
        MemoryScope::Process => format!("limit: {size} a process"),
        MemoryScope::Submission => format!("limit: {size} for all its processes"),
        MemoryScope::Grader => format!("limit: {size} for the grader's container or job"),
        MemoryScope::Machine => format!("the machine's {size}"),
    }
}

/// Bytes in whole GiB where they are, else in MiB (rounded), else bytes.
fn bytes_text(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    match bytes {
        b if b >= GIB && b % GIB == 0 => format!("{} GiB", b / GIB),
        b if b >= MIB => format!("{} MiB", (b + MIB / 2) / MIB),
        b => format!("{b} bytes"),
    }
}

fn seconds_text(s: f64) -> String {
    if s.is_finite() && s.fract() == 0.0 && s.abs() < 1e15 {
        format!("{}", s as i64)
    } else {
        format!("{s}")
    }
}
