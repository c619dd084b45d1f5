//! The reference core: what a correct CPython solution returns for each
//! checkpoint, computed in Rust.

pub mod function_calling;
pub mod json;
pub mod json_contract;
pub mod tool_proposals;
pub mod tool_results;

use crate::value::{Exception, Outcome, PyValue};

/// A call that cannot be made: Python would raise TypeError before the
/// function body runs (unknown function, wrong arguments). The corpus refuses
/// such cases.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CallError {
    #[error("unknown checkpoint function {0:?}")]
    UnknownFunction(String),
    #[error("{0}")]
    BadArguments(String),
}

/// Why the core refused a call: always a `ValueError` in Python; the text
/// says why, for people and tests only (students' wording is their own).
pub type Refusal = String;

/// One parameter of a checkpoint function, in signature order.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    /// The default when the parameter is optional (`limit=2`).
    pub default: Option<fn() -> PyValue>,
}

impl Param {
    /// A parameter every call must pass.
    pub const fn required(name: &'static str) -> Param {
        Param {
            name,
            default: None,
        }
    }

    /// A parameter with a default value.
    pub const fn optional(name: &'static str, default: fn() -> PyValue) -> Param {
        Param {
            name,
            default: Some(default),
        }
    }
}

/// A checkpoint of the course as the core knows it: one declaration, beside
/// its implementation in the lesson's file (`json_contract::CHECKPOINTS`...),
/// gathered in [`LESSONS`]. Everything else (course.toml validation, call
/// binding, the corpus's tag coverage, the differential test) reads it here.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoint {
    /// The Python function name, e.g. `accept_ticket`.
    pub name: &'static str,
    /// The signature, in order.
    pub params: &'static [Param],
    /// The function on already-bound arguments (`args.len() == params.len()`,
    /// defaults filled in): the returned value, or a refusal (`ValueError`).
    pub run: fn(&[PyValue]) -> Result<PyValue, Refusal>,
    /// The tags of the hostile-input vocabulary ([`TAGS`]) that apply
    /// to this checkpoint: the shipped corpus covers each with a case.
    pub tags: &'static [&'static str],
}

/// The hostile-input vocabulary of `checkpoints.md`: every case carries one
/// or more of these tags.
pub const TAGS: &[&str] = &[
    "valid",
    "duplicate-keys",
    "nan-infinity",
    "deep-nesting",
    "surrogates",
    "boolean-ints",
    "bad-ids",
    "shuffled-results",
    "size-limits",
    "wrong-types",
    "missing-or-extra-fields",
    "out-of-range",
    "evidence-mismatch",
    "unicode-offsets",
    "retry-policy",
    "trailing-garbage",
    "aliasing-and-mutation",
    "unknown-tool",
    "unpaired-results",
    "path-traversal",
    "loop-bounds",
];

/// Every lesson's checkpoints, in course order. Adding a lesson adds one line
/// here (see `docs/adding-a-lesson.md`).
pub const LESSONS: &[&[Checkpoint]] = &[
    json_contract::CHECKPOINTS,
    tool_proposals::CHECKPOINTS,
    tool_results::CHECKPOINTS,
    function_calling::CHECKPOINTS,
];

/// The checkpoints whose contract (`docs/checkpoints.md`) calls their
/// result new ("a new dict", "a new list of new dicts", "every returned dict
/// and list is new"). Besides sharing nothing with the arguments (every
/// checkpoint), no list or dict of their result may be one the module holds
/// or an earlier call returned (`shares_with_state` in a recording). The
/// others, `accept_ticket` and `execute_tool`, are not asked for new objects
/// by name: their results only must not share with the arguments. A test
/// checks this list against the contract's wording.
pub const RETURNS_NEW: &[&str] = &[
    "parse_contract_json",
    "validate_ticket",
    "validate_tool_call",
    "order_tool_results",
    "run_tool",
    "run_tools",
    "check_tool_results",
    "validate_tool_arguments",
    "read_file",
    "run_tool_loop",
];

/// Whether `function`'s result must be new (see [`RETURNS_NEW`]).
pub fn returns_new(function: &str) -> bool {
    RETURNS_NEW.contains(&function)
}

/// Every checkpoint the core knows, in course order.
pub fn checkpoints() -> impl Iterator<Item = &'static Checkpoint> {
    LESSONS.iter().flat_map(|lesson| lesson.iter())
}

/// The checkpoint named `function`.
pub fn checkpoint(function: &str) -> Option<&'static Checkpoint> {
    checkpoints().find(|c| c.name == function)
}

/// The names of every checkpoint, in course order.
pub fn names() -> Vec<&'static str> {
    checkpoints().map(|c| c.name).collect()
}

/// Python's `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'` in TypeError messages.
fn name_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match quoted.as_slice() {
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
        [] => String::new(),
    }
}

/// Binds positional and keyword arguments to parameters as CPython does,
/// with CPython's TypeError messages (checked in the same order: keywords,
/// then too many positionals, then missing arguments). Each parameter's
/// slot holds its argument, or `None` for its default.
fn bind<'a>(
    cp: &Checkpoint,
    args: &'a [PyValue],
    kwargs: &'a [(String, PyValue)],
) -> Result<Vec<Option<&'a PyValue>>, CallError> {
    let (function, params) = (cp.name, cp.params);
    let bad = |msg: String| CallError::BadArguments(format!("{function}() {msg}"));
    let mut slots: Vec<Option<&PyValue>> = vec![None; params.len()];
    for (slot, arg) in slots.iter_mut().zip(args) {
        *slot = Some(arg);
    }
    for (i, (name, value)) in kwargs.iter().enumerate() {
        if kwargs[..i].iter().any(|(earlier, _)| earlier == name) {
            return Err(CallError::BadArguments(format!(
                "keyword argument repeated: {name}"
            )));
        }
        let Some(pos) = params.iter().position(|p| p.name == name) else {
            return Err(bad(format!("got an unexpected keyword argument '{name}'")));
        };
        if slots[pos].is_some() {
            return Err(bad(format!("got multiple values for argument '{name}'")));
        }
        slots[pos] = Some(value);
    }
    if args.len() > params.len() {
        let required = params.iter().filter(|p| p.default.is_none()).count();
        let takes = if required == params.len() {
            let plural = if params.len() == 1 { "" } else { "s" };
            format!("{} positional argument{plural}", params.len())
        } else {
            format!("from {required} to {} positional arguments", params.len())
        };
        let verb = if args.len() == 1 { "was" } else { "were" };
        return Err(bad(format!(
            "takes {takes} but {} {verb} given",
            args.len()
        )));
    }
    let missing: Vec<&str> = params
        .iter()
        .zip(&slots)
        .filter(|(p, slot)| slot.is_none() && p.default.is_none())
        .map(|(p, _)| p.name)
        .collect();
    if !missing.is_empty() {
        let plural = if missing.len() == 1 { "" } else { "s" };
        return Err(bad(format!(
            "missing {} required positional argument{plural}: {}",
            missing.len(),
            name_list(&missing)
        )));
    }
    Ok(slots)
}

/// Whether `function(*args, **kwargs)` is a call [`call`] answers (a
/// checkpoint, with arguments that bind to its parameters), without running
/// it: exactly the calls [`call`] refuses are refused.
pub fn check_call(
    function: &str,
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
) -> Result<(), CallError> {
    let cp =
        checkpoint(function).ok_or_else(|| CallError::UnknownFunction(function.to_string()))?;
    bind(cp, args, kwargs).map(|_| ())
}

/// Evaluates `function(*args, **kwargs)` on the reference core.
pub fn call(
    function: &str,
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
) -> Result<Outcome, CallError> {
    let cp =
        checkpoint(function).ok_or_else(|| CallError::UnknownFunction(function.to_string()))?;
    let slots = bind(cp, args, kwargs)?;
    // Positional arguments filling every parameter are the bound arguments
    // as they are (not copied).
    let filled: Vec<PyValue>;
    let bound = if kwargs.is_empty() && args.len() == cp.params.len() {
        args
    } else {
        filled = cp
            .params
            .iter()
            .zip(slots)
            .map(|(p, slot)| match slot {
                Some(v) => v.clone(),
                None => p.default.map_or(PyValue::None, |default| default()),
            })
            .collect();
        &filled
    };
    Ok(match (cp.run)(bound) {
        Ok(v) => Outcome::Returns(v),
        Err(_) => Outcome::Raises(Exception::ValueError),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::strict_eq;

    /// [`RETURNS_NEW`] names exactly the checkpoints whose section of
    /// `docs/checkpoints.md` says "new" of what they return.
    #[test]
    fn the_checkpoints_returning_new_objects_are_those_the_contract_says() {
        let doc = include_str!("../../docs/checkpoints.md");
        for cp in checkpoints() {
            let head = format!("### `{}(", cp.name);
            let start = doc
                .find(&head)
                .unwrap_or_else(|| panic!("no section {head}"));
            let rest = &doc[start + head.len()..];
            let section = &rest[..rest.find("\n#").unwrap_or(rest.len())];
            let says_new = section
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word == "new");
            assert_eq!(
                returns_new(cp.name),
                says_new,
                "{}: RETURNS_NEW disagrees with its section of checkpoints.md",
                cp.name
            );
        }
        for name in RETURNS_NEW {
            assert!(checkpoint(name).is_some(), "{name} is not a checkpoint");
        }
    }

    fn s(text: &str) -> PyValue {
        PyValue::str(text)
    }

    fn bad(function: &str, args: &[PyValue], kwargs: &[(&str, PyValue)]) -> String {
        let kwargs: Vec<(String, PyValue)> = kwargs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        match call(function, args, &kwargs) {
            Err(CallError::BadArguments(msg)) => msg,
            other => panic!("expected BadArguments, got {other:?}"),
        }
    }

    #[test]
    fn every_checkpoint_is_declared_once_and_callable() {
        let names = names();
        for (i, cp) in checkpoints().enumerate() {
            assert!(!names[..i].contains(&cp.name), "{} declared twice", cp.name);
            let distinct: std::collections::BTreeSet<&str> =
                cp.params.iter().map(|p| p.name).collect();
            assert_eq!(
                distinct.len(),
                cp.params.len(),
                "{}: repeated parameter",
                cp.name
            );
            // Optional parameters come last, as Python requires.
            let first_optional = cp.params.iter().position(|p| p.default.is_some());
            if let Some(i) = first_optional {
                assert!(
                    cp.params[i..].iter().all(|p| p.default.is_some()),
                    "{}",
                    cp.name
                );
            }
            // Calling with None everywhere binds: the core returns or refuses.
            let nones = vec![PyValue::None; cp.params.len()];
            assert!(call(cp.name, &nones, &[]).is_ok(), "{}", cp.name);
        }
        assert!(matches!(
            call("eval", &[], &[]),
            Err(CallError::UnknownFunction(_))
        ));
    }

    #[test]
    fn applicable_tags_are_in_the_vocabulary() {
        for cp in checkpoints() {
            assert!(cp.tags.contains(&"valid"), "{}: no valid cases", cp.name);
            for tag in cp.tags {
                assert!(TAGS.contains(tag), "{}: unknown tag {tag}", cp.name);
            }
        }
    }

    #[test]
    fn limit_defaults_to_two_and_binds_by_keyword() {
        let src = s("Mijn factuur mist.");
        let args = [s("{}"), s("r1"), src.clone(), PyValue::int(2)];
        let status = |outcome: Outcome| match outcome {
            Outcome::Returns(PyValue::Dict(d)) => d.get_str("status").cloned(),
            _ => None,
        };
        let default = call("accept_ticket", &args, &[]).unwrap();
        assert!(strict_eq(&status(default).unwrap(), &s("reject")));
        let three = call("accept_ticket", &args, &[("limit".into(), PyValue::int(3))]).unwrap();
        assert!(strict_eq(&status(three).unwrap(), &s("retry")));
        let all_keywords: Vec<(String, PyValue)> = ["raw", "request_id", "source", "attempt"]
            .iter()
            .zip(args.iter())
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let by_name = call("accept_ticket", &[], &all_keywords).unwrap();
        assert!(strict_eq(&status(by_name).unwrap(), &s("reject")));
        let policy = call("accept_ticket", &args, &[("limit".into(), PyValue::int(1))]).unwrap();
        assert!(matches!(policy, Outcome::Raises(Exception::ValueError)));
    }

    #[test]
    fn type_errors_read_like_cpython() {
        assert_eq!(
            bad("parse_contract_json", &[], &[]),
            "parse_contract_json() missing 1 required positional argument: 'text'"
        );
        assert_eq!(
            bad("parse_contract_json", &[s("{}"), s("{}")], &[]),
            "parse_contract_json() takes 1 positional argument but 2 were given"
        );
        assert_eq!(
            bad("validate_ticket", &[s("x")], &[]),
            "validate_ticket() missing 2 required positional arguments: 'request_id' and 'source'"
        );
        assert_eq!(
            bad("accept_ticket", &[], &[]),
            "accept_ticket() missing 4 required positional arguments: \
             'raw', 'request_id', 'source', and 'attempt'"
        );
        let six: Vec<PyValue> = (0..6).map(PyValue::int).collect();
        assert_eq!(
            bad("accept_ticket", &six, &[]),
            "accept_ticket() takes from 4 to 5 positional arguments but 6 were given"
        );
        assert_eq!(
            bad("execute_tool", &[], &[("cal", PyValue::None)]),
            "execute_tool() got an unexpected keyword argument 'cal'"
        );
        assert_eq!(
            bad("execute_tool", &[PyValue::None], &[("call", PyValue::None)]),
            "execute_tool() got multiple values for argument 'call'"
        );
    }
}
