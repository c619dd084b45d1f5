//! Recording submissions: running student code in a sandboxed Python harness
//! and storing one outcome per case.

pub mod format;
