//! The slow tier against CPython itself: the 75,000-input differential of
//! the reference core, `PyStr` and `repr` against CPython, the corpus read
//! by CPython, every pyenv CPython, the Gradescope image, independent
//! solutions and the mutation runs. Skipped from a plain local `cargo test`
//! (saying so); run by CI and by `AUTOGRADER_TESTS=cpython cargo test`.

#[macro_use]
#[path = "../util/mod.rs"]
mod util;

mod corpus_cpython;
mod differential;
mod gradescope_image;
mod mutants;
mod mutation;
mod mutmut;
mod pystr_cpython;
mod python_versions;
mod repr_cpython;
mod solutions;
