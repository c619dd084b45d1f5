//! The `autograder` binary: argument parsing lives in the library's `cli`.

fn main() {
    std::process::exit(autograder::cli::main());
}
