//! Every limit a recording runs under, with its default and the rules
//! derived from it: the pool's and the worker's here, and the harness's,
//! which keeps no number of its own and is sent [`HARNESS`] in its init line
//! (`"limits"`). What a recording may hold is [`caps`]'s: where the harness
//! must stay within it, its limit is taken from there.

use crate::recording::caps;
use serde::Serialize;
use std::time::Duration;

/// A case's CPU time, by default (`--timeout`).
pub const CASE_TIMEOUT: Duration = Duration::from_secs(2);
/// RLIMIT_AS of the process running student code, by default.
pub const MEMORY_BYTES: u64 = 1 << 30;
/// RLIMIT_FSIZE: the largest file a submission may write.
pub const FILE_BYTES: u64 = 16 << 20;
/// RLIMIT_NOFILE.
pub const OPEN_FILES: u64 = 64;
/// RLIMIT_NPROC: processes a submission may run.
pub const PROCESSES: u64 = 32;
/// Largest `main.py` recorded.
pub const MAX_SOURCE_BYTES: u64 = 1024 * 1024;
/// How long a worker's harness may take to start and test its sandbox.
pub const READY_WAIT: Duration = Duration::from_secs(60);

/// How long a worker's harness is given to stop once its stdin is closed
/// ([`super::worker::Worker::stop`]): its supervisor removes what the last
/// submission left (the reaper's own bounds, `KILL_SECONDS` and
/// `STRAYS_SECONDS`, and room) before it is killed.
pub const STOP_WAIT: Duration = Duration::from_secs(20);

/// A submission's wall-clock budget, by default: ten case timeouts, at
/// least a minute.
pub fn wall(case_timeout: Duration) -> Duration {
    (case_timeout * 10).max(Duration::from_secs(60))
}

/// RLIMIT_CPU of a child, in seconds: past the wall budget, so the
/// supervisor's own limits always end a case first.
pub fn cpu_seconds(wall: Duration) -> u64 {
    wall.as_secs_f64().ceil() as u64 + 1
}

/// A worker's memory cgroup: twice what one of its processes may map.
pub fn cgroup_bytes(memory_bytes: u64) -> u64 {
    2 * memory_bytes
}

/// How long Rust waits for a reply line: the wall budget and room for the
/// harness to clean up.
pub fn reply_wait(wall: Duration) -> Duration {
    wall + Duration::from_secs(30)
}

/// Largest compiled `main.py` (`.pyc`) the harness reports for the store.
pub const PYC_BYTES: usize = 4 << 20;
/// The same, as the hex the harness writes it in.
pub const PYC_HEX_CHARS: usize = 2 * PYC_BYTES;

/// What the harness goes by, sent in its init line under the names it reads
/// (harness.py's `LIMITS` and tagged.py's: the test below holds them equal).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Harness {
    /// A raised outcome's message, an import error's, a failure's text
    /// (characters).
    pub message_limit: usize,
    /// Each part of a class name in `class` and `mro` (characters).
    pub name_chars: usize,
    /// Captured stdout and stderr kept per submission (bytes).
    pub output_limit: usize,
    /// The output with the note saying how much was cut (characters).
    pub output_chars: usize,
    /// One line on a child's result channel (bytes): a longer outcome is
    /// `output-too-large`.
    pub line_limit: usize,
    /// What a submission may write to its folder in all (bytes; landlock:
    /// the only place it may write; bwrap's /tmp is a tmpfs of its own).
    pub disk_limit: u64,
    /// Files and folders it may make there.
    pub disk_entries: u64,
    /// How often the supervisor measures them while a case runs (seconds).
    pub disk_every: f64,
    /// After taking what the child wrote, how long the supervisor lets it
    /// run before it reads again (seconds): a case's CPU and wall limits
    /// count from when its start was seen, at most this much late.
    pub read_every: f64,
    /// Room for what a child writes while the supervisor waits (bytes; the
    /// kernel caps it, a smaller pipe only makes the child wait).
    pub pipe_bytes: usize,
    /// Largest compiled `main.py` reported for the store (bytes).
    pub pyc_limit: usize,
    /// Largest source or compiled code a job carries (bytes).
    pub job_limit: usize,
    /// One reply to Rust, outcomes and all (bytes).
    pub reply_limit: usize,
    /// Outcomes the supervisor sends Rust ahead of its answer, as a part,
    /// once this many are final: Rust admits and judges them while the
    /// rest run.
    pub part_cases: usize,
    /// A case times out after its CPU timeout, or this many times it in wall
    /// time (a sleeping call): a busy neighbour slows a case down but does
    /// not time it out.
    pub wall_factor: u32,
    /// Tasks the grader's uid may gain after a worker counted it (its other
    /// workers starting, their reader threads), besides the submissions'.
    pub nproc_margin: u64,
    /// Nodes walked in a module's globals per call to find what a result
    /// shares with them; past it the rest is not searched (nothing fails).
    pub globals_budget: usize,
    /// Nodes walked in a result likewise.
    pub result_budget: usize,
    /// Lists and dicts of earlier results a child keeps to compare with.
    pub earlier_limit: usize,
    /// The length of those results' encoded values, in all (characters).
    pub earlier_text: usize,
    /// The longest path text written for each side of `shared`.
    pub path_chars: usize,
    /// The longest key repr in such a path.
    pub key_chars: usize,
    /// The longest value (tagged JSON) written for each side of `changed`.
    pub change_chars: usize,
    /// How far into its CPU timeout a case may be, as /proc shows it (in
    /// clock ticks), before it has timed out.
    pub cpu_share: f64,
    /// While a case runs, its CPU time is read again at least this often
    /// (seconds).
    pub cpu_every: f64,
    /// How long a child that said it is done may take to exit (seconds).
    pub exit_wait: f64,
    /// How long the reaper goes on killing a worker uid's processes until
    /// none is left (seconds).
    pub kill_seconds: f64,
    /// How long the zygote goes on killing what a child left below it.
    pub strays_seconds: f64,
    /// Nesting walked in a result for the arguments' objects.
    pub shares_depth: usize,
    /// Nesting of world-writable folders searched for a submission's files.
    pub leftover_depth: usize,
    /// Reads (of up to 1 MiB) of what is left in a child's output pipe once
    /// it is gone (a leftover process may still be writing).
    pub drain_reads: usize,
    /// An import error's line as the child wrote it (bytes): it is copied
    /// into every case's outcome, so a longer one is the harness's failure.
    pub import_error_bytes: usize,
    /// The line of main.py an import error names, as its outcome quotes it
    /// (characters).
    pub source_line_chars: usize,
    /// How often the reaper looks for killed descendants that are gone
    /// (seconds).
    pub orphan_poll: f64,
    /// Nesting of Python containers encoded (tagged.py); deeper is opaque.
    pub max_depth: usize,
    /// Nodes of one encoded value (tagged.py); more is `output-too-large`.
    pub max_nodes: usize,
    /// Characters of text (strings, wide ints' digits) of one encoded value
    /// (tagged.py); more is `output-too-large`.
    pub max_text: usize,
    /// Bits of the widest int encoded (tagged.py); wider is `output-too-large`.
    pub max_int_bits: u64,
    /// An opaque value's type name and its repr (tagged.py, characters).
    pub opaque_type_chars: usize,
    pub opaque_repr_chars: usize,
}

/// The harness's limits.
pub const HARNESS: Harness = Harness {
    message_limit: caps::MAX_MESSAGE_CHARS,
    name_chars: caps::MAX_CLASS_CHARS,
    output_limit: caps::OUTPUT_KEPT_BYTES,
    output_chars: caps::OUTPUT_KEPT_BYTES + 100,
    line_limit: 48 << 20,
    disk_limit: 64 << 20,
    disk_entries: 10_000,
    disk_every: 0.05,
    read_every: 0.002,
    pipe_bytes: 1 << 20,
    pyc_limit: PYC_BYTES,
    // A source is at most MAX_SOURCE_BYTES, a compiled one PYC_BYTES.
    job_limit: 2 * PYC_BYTES,
    reply_limit: 128 << 20,
    part_cases: 64,
    wall_factor: 3,
    nproc_margin: 16,
    globals_budget: 20_000,
    result_budget: 400_000,
    earlier_limit: 200_000,
    earlier_text: 4 << 20,
    path_chars: 160,
    key_chars: 40,
    change_chars: crate::recording::format::CHANGE_VALUE_CHARS,
    cpu_share: 0.98,
    cpu_every: 0.02,
    exit_wait: 1.0,
    kill_seconds: 10.0,
    strays_seconds: 5.0,
    shares_depth: 200,
    leftover_depth: 3,
    drain_reads: 64,
    import_error_bytes: 64 * caps::MAX_MESSAGE_CHARS,
    source_line_chars: caps::MAX_SOURCE_LINE_CHARS,
    orphan_poll: 0.001,
    max_depth: 100,
    // A node is at most two JSON elements (a tuple is an object around a list).
    max_nodes: caps::MAX_VALUE_ELEMENTS / 2,
    // A character is at least one byte of the value's JSON text, so a value
    // over this is one admission refuses: the harness stops encoding it.
    max_text: caps::MAX_VALUE_BYTES,
    max_int_bits: 300_000,
    opaque_type_chars: 200,
    opaque_repr_chars: 1000,
};

// A job holds the largest source and the largest compiled one; the harness
// keeps no more than admission admits.
const _: () = {
    assert!(MAX_SOURCE_BYTES as usize <= HARNESS.job_limit);
    assert!(HARNESS.pyc_limit <= HARNESS.job_limit);
    assert!(HARNESS.output_chars <= caps::MAX_OUTPUT_CHARS);
    assert!(2 * HARNESS.name_chars < caps::MAX_MRO_ENTRY_CHARS);
    assert!(HARNESS.max_text <= caps::MAX_VALUE_BYTES);
    assert!(2 * HARNESS.max_nodes <= caps::MAX_VALUE_ELEMENTS);
};

#[cfg(test)]
mod tests {
    use super::super::harness::{BOOT_PY, CONFINE_PY, HARNESS_PY, PROGRAMS, TAGGED_PY};
    use super::*;

    /// The names in a Python source's `LIMITS = (...)`.
    fn declared(source: &str) -> Vec<String> {
        let start = source.find("\nLIMITS = (").expect("a LIMITS tuple") + 1;
        let end = start + source[start..].find(')').unwrap();
        source[start..end]
            .split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    /// Every limit the harness reads (harness.py's and tagged.py's LIMITS)
    /// is one this module sends, every one it sends is read, and each is
    /// used by the code, not only listed.
    #[test]
    fn the_harness_reads_exactly_the_limits_rust_sends() {
        let sent = serde_json::to_value(HARNESS).unwrap();
        let mut sent: Vec<String> = sent.as_object().unwrap().keys().cloned().collect();
        sent.sort();
        let mut read = declared(HARNESS_PY);
        read.extend(declared(TAGGED_PY));
        read.sort();
        assert_eq!(read, sent);
        let code: Vec<&str> = PROGRAMS
            .iter()
            .map(|p| p.1)
            .chain([HARNESS_PY, TAGGED_PY])
            .collect();
        for name in &sent {
            let uses: usize = code.iter().map(|s| s.matches(name.as_str()).count()).sum();
            assert!(
                uses >= 2,
                "{name} is sent to the harness but no code of it uses it"
            );
        }
    }

    /// The harness's sources write no limit of their own: no upper-case
    /// name is given a number (but the channel fds and tagged JSON's
    /// DECIMAL_BITS, a format rule src/value/budget.rs checks), no limit
    /// name of LIMITS is assigned, and no number of 1,000 or more, no
    /// fraction, appears but kernel constants and read sizes. confine.py,
    /// all kernel ABI numbers, is held to the first two rules.
    #[test]
    fn the_harness_has_no_numeric_limits_of_its_own() {
        const SCAN: &str = r#"
import io, json, sys, tokenize
sources = json.loads(sys.stdin.read())
names = set(sources["names"])
found = []
for file, src in sources["files"]:
    toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    for i, t in enumerate(toks):
        line = t.line.strip()
        if t.type == tokenize.NAME and t.start[1] == 0 and i + 1 < len(toks) and toks[i + 1].string == "=":
            rhs = []
            for u in toks[i + 2:]:
                if u.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                    break
                rhs.append(u)
            kinds = (tokenize.NUMBER, tokenize.OP, tokenize.NAME, tokenize.NL, tokenize.COMMENT)
            numeric = any(u.type == tokenize.NUMBER for u in rhs) and all(u.type in kinds for u in rhs)
            named = t.string.upper() == t.string and not t.string.startswith("_")
            if numeric and named and t.string not in ("RESULT_FD", "HIDDEN_FD", "JOB_FD", "CHECK_FD", "DECIMAL_BITS"):
                found.append("%s:%d: %s" % (file, t.start[0], line))
        if t.type == tokenize.NAME and t.string in names and i + 1 < len(toks) and toks[i + 1].string == "=":
            if any(u.type == tokenize.NUMBER for u in toks[i + 2:i + 4]):
                found.append("%s:%d: %s" % (file, t.start[0], line))
        if file == "confine.py" or t.type != tokenize.NUMBER:
            continue
        value = eval(t.string)
        if i + 2 < len(toks) and toks[i + 1].string == "<<" and toks[i + 2].type == tokenize.NUMBER:
            value = value << eval(toks[i + 2].string)
            if any(r in line for r in ("_read(", "os.read(", "recvmsg(", "closerange(")):
                continue
        fraction = type(value) is float and value != 0.0
        allowed = ("F_SETPIPE_SZ", "CLONE_NEWIPC", "_read(check_r, 65536)", "DECIMAL_BITS = 1024")
        if (fraction or abs(value) >= 1000) and not any(a in line for a in allowed):
            found.append("%s:%d: %s" % (file, t.start[0], line))
print("ok" if not found else "\n".join(found))
"#;
        let files: Vec<(String, &str)> = PROGRAMS
            .iter()
            .map(|(name, src)| (format!("{name}.py"), *src))
            .chain([
                ("boot.py".to_string(), BOOT_PY),
                ("harness.py".to_string(), HARNESS_PY),
                ("tagged.py".to_string(), TAGGED_PY),
                ("confine.py".to_string(), CONFINE_PY),
            ])
            .collect();
        let sent = serde_json::to_value(HARNESS).unwrap();
        let names: Vec<&String> = sent.as_object().unwrap().keys().collect();
        let input = serde_json::json!({"files": files, "names": names}).to_string();
        let python = super::super::sandbox::Python::find(None).unwrap();
        let mut child = std::process::Command::new(&python.executable)
            .args(["-s", "-S", "-c", SCAN])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.trim() == "ok",
            "numbers the harness keeps of its own:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
