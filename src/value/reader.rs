//! The call reader: a small, safe subset of Python expressions, evaluated in
//! Rust (never by `eval`), in which case files write their calls.
