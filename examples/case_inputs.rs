//! `cargo run --example case_inputs -- [CASES_DIR] > inputs.json`: every
//! case's input as the recording harness gets it (tagged JSON, corpus order,
//! hidden cases included), for `scripts/floor.py`.

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "cases".to_string());
    let corpus = match autograder::corpus::load(std::path::Path::new(&dir)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    println!("{}", autograder::record::case_inputs_json(&corpus));
}
