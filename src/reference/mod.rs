//! The reference core: what a correct CPython solution returns for each
//! checkpoint, computed in Rust.

pub mod json;
pub mod json_contract;
pub mod tool_proposals;

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

/// Every function the core knows, in course order.
pub const FUNCTIONS: &[&str] = &[
    "parse_contract_json",
    "validate_ticket",
    "accept_ticket",
    "validate_tool_call",
    "execute_tool",
    "order_tool_results",
];

/// The parameters of each function, in order, and the default of `limit`.
fn parameters(function: &str) -> Option<&'static [&'static str]> {
    Some(match function {
        "parse_contract_json" => &["text"],
        "validate_ticket" => &["value", "request_id", "source"],
        "accept_ticket" => &["raw", "request_id", "source", "attempt", "limit"],
        "validate_tool_call" | "execute_tool" => &["call"],
        "order_tool_results" => &["calls", "results"],
        _ => return None,
    })
}

/// The default of an optional parameter (only `accept_ticket`'s `limit=2`).
fn default_of(function: &str, parameter: &str) -> Option<PyValue> {
    (function == "accept_ticket" && parameter == "limit").then(|| PyValue::int(2))
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
/// then too many positionals, then missing arguments).
fn bind(
    function: &str,
    params: &[&str],
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
) -> Result<Vec<PyValue>, CallError> {
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
        let Some(pos) = params.iter().position(|p| p == name) else {
            return Err(bad(format!("got an unexpected keyword argument '{name}'")));
        };
        if slots[pos].is_some() {
            return Err(bad(format!("got multiple values for argument '{name}'")));
        }
        slots[pos] = Some(value);
    }
    if args.len() > params.len() {
        let required = params
            .iter()
            .filter(|p| default_of(function, p).is_none())
            .count();
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
        .filter(|(p, slot)| slot.is_none() && default_of(function, p).is_none())
        .map(|(p, _)| *p)
        .collect();
    if !missing.is_empty() {
        let plural = if missing.len() == 1 { "" } else { "s" };
        return Err(bad(format!(
            "missing {} required positional argument{plural}: {}",
            missing.len(),
            name_list(&missing)
        )));
    }
    Ok(params
        .iter()
        .zip(slots)
        .map(|(p, slot)| match slot {
            Some(v) => v.clone(),
            None => default_of(function, p).unwrap_or(PyValue::None),
        })
        .collect())
}

/// Evaluates `function(*args, **kwargs)` on the reference core.
pub fn call(
    function: &str,
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
) -> Result<Outcome, CallError> {
    let params =
        parameters(function).ok_or_else(|| CallError::UnknownFunction(function.to_string()))?;
    let a = bind(function, params, args, kwargs)?;
    let result = match (function, a.as_slice()) {
        ("parse_contract_json", [text]) => json_contract::parse_contract_json(text),
        ("validate_ticket", [value, request_id, source]) => {
            json_contract::validate_ticket(value, request_id, source)
        }
        ("accept_ticket", [raw, request_id, source, attempt, limit]) => {
            json_contract::accept_ticket(raw, request_id, source, attempt, limit)
        }
        ("validate_tool_call", [c]) => tool_proposals::validate_tool_call(c),
        ("execute_tool", [c]) => tool_proposals::execute_tool(c),
        ("order_tool_results", [calls, results]) => {
            tool_proposals::order_tool_results(calls, results)
        }
        _ => return Err(CallError::UnknownFunction(function.to_string())),
    };
    Ok(match result {
        Ok(v) => Outcome::Returns(v),
        Err(_) => Outcome::Raises(Exception::ValueError),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::strict_eq;

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
    fn every_function_is_callable() {
        for f in FUNCTIONS {
            assert!(parameters(f).is_some(), "{f}");
        }
        assert!(matches!(
            call("eval", &[], &[]),
            Err(CallError::UnknownFunction(_))
        ));
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
