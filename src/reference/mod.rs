//! The reference core: what a correct CPython solution returns for each
//! checkpoint, computed in Rust.

pub mod json;
pub mod json_contract;
pub mod tool_proposals;

use crate::value::{Outcome, PyValue};

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

/// Evaluates `function(*args, **kwargs)` on the reference core.
pub fn call(
    function: &str,
    args: &[PyValue],
    kwargs: &[(String, PyValue)],
) -> Result<Outcome, CallError> {
    let _ = (function, args, kwargs);
    todo!("reference::call")
}
