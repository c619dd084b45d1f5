//! The wire protocol between a worker and its harness: JSON lines over the
//! harness's stdin and stdout. Every line is built and read here, with
//! serde (the cases' inputs go in as the hex of their marshal bytes, see
//! [`super::inputs`]).
//!
//! # The conversation
//!
//! 0. **Start** (as the harness starts, before the run knows its corpus):
//!    its argv (boot.py with `-c`, then `warm` or `cold`,
//!    [`super::sandbox::PROBE`]'s source, [`super::sandbox::BWRAP_CHECK`]'s
//!    or `""`); what boot.py reads first ([`boot_message`]): harness.py's
//!    source and the code an earlier run compiled, from the user's cache
//!    ([`super::compiled`]), which it uses when it is its own
//!    interpreter's; the harness's first line out, [`Hello`], before it
//!    imports anything; its first line in, [`programs_message`]: the
//!    `programs`, the `tagged` codec's and the `confine` rules' Python
//!    sources, compiled while the corpus loads unless boot.py had them
//!    compiled.
//! 1. **Init** (grader → harness, one line, [`Init`]): the uid and gid to
//!    run student code as (`null`: none of its own), the scratch folder as
//!    the harness sees it, the per-case `timeout` and per-submission `wall`
//!    in seconds, the rlimits (`limits`: `as`, `cpu`, `fsize`, `nofile`,
//!    `nproc`, `core`), how many `workers` record at once, the sandbox `tier`,
//!    the folders the interpreter reads (`read_roots`), files the
//!    self-test must fail to read (`must_not_read`), how many cases are
//!    hidden (`hidden_count`); then, after the line, the visible cases'
//!    inputs (`cases_bytes` of them: the marshal bytes of `[(function,
//!    marshal bytes of (args, kwargs)), ...]`, see
//!    [`super::inputs::case_tuple`]), which the harness checks are exactly
//!    as CPython marshals them.
//! 2. **Ready** (harness → grader, one line): `{"ready": true, "python":
//!    "3.x.y", "self_test": {...}}`, what the sandbox's self-test found held
//!    (see [`super::self_test`]), and the programs it compiled when asked
//!    to send them back (`compiled`), for the cache.
//! 3. Per submission, a **job** (grader → harness): the line `job`, then
//!    [`JobLine`]: `source_hex` (main.py), `pyc_hex` (a `.pyc` an earlier
//!    session compiled, when the store has one), and for a subset of the
//!    cases `visible` (positions among the visible inputs) and `hidden`
//!    (how many hidden cases it runs); `groups`: how many cases each
//!    process group runs, in order (each in children and a folder of its
//!    own, see [`crate::corpus::process_group`]).
//! 4. When the job runs hidden cases and the supervisor does not hold
//!    their inputs yet, the harness asks [`HIDDEN_REQUEST`] as the job
//!    starts; the grader answers with one line, a JSON array of the hidden
//!    inputs the job runs (all of them, in corpus order, or the subset's).
//!    The supervisor prepares them while the visible cases run and hands
//!    them to the submission's process only once every visible case is
//!    answered.
//! 5. **Parts** (harness → grader, any number, while the cases run): once
//!    `PART_CASES` outcomes are final (every one before the case a child
//!    is on), the supervisor sends them ahead, `{"part": first case}` then
//!    each outcome after a tab ([`read_part`]), so the grader admits and
//!    judges them while the rest run.
//! 6. The **reply** (harness → grader, one line): a JSON head ([`Head`]:
//!    `n` outcomes, the `first` case whose outcome follows it (those
//!    before came in parts; `0` when an import error changed every one),
//!    the captured `output`, runtime `integrity` findings, the `pyc` it
//!    compiled, or an `error`), then each outcome from `first` on after a
//!    tab, as the child wrote it (the supervisor passes outcome texts on
//!    unparsed; they are admitted by [`super::admission`]); `=` for the
//!    very outcome before it (an import error is one outcome for every
//!    case: the answer holds it once). A result that
//!    is new and plain comes as its marshal bytes ([`expand_marshalled`]).

use super::compiled::Compiled;
use super::setup::Setup;
use super::HarnessError;
use crate::recording::json::{self, JsonError, MAX_REPLY_HEAD_NESTING};
use crate::value::marshal;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a supervisor writes when a job needs the hidden cases' inputs.
pub const HIDDEN_REQUEST: &str = "{\"need\":\"hidden\"}";

/// What the harness's interpreter reads first, written as it starts
/// (boot.py, its `-c` program, reads it): the line `autograder-boot
/// <source bytes> <cache bytes> <tag, hex>`, harness.py's source, then
/// `cached`'s code (the values of the programs', tagged.py's, confine.py's
/// and harness.py's code, marshalled, as an earlier run compiled them;
/// nothing without a cache). boot.py runs that harness.py, and harness.py
/// those programs, when the tag is the interpreter's own; else they compile
/// the sources.
pub fn boot_message(cached: Option<&Compiled>) -> Vec<u8> {
    let source = super::harness::HARNESS_PY.as_bytes();
    let (code, tag) = cached.map_or((&[][..], ""), |c| (&c.code[..], &c.tag[..]));
    let mut out = format!(
        "autograder-boot {} {} {}\n",
        source.len(),
        code.len(),
        hex::encode(tag)
    )
    .into_bytes();
    out.extend_from_slice(source);
    out.extend_from_slice(code);
    out
}

/// The harness's first line, written as it starts (before the run knows
/// its corpus): its programs' sources, which it compiles meanwhile, unless
/// boot.py read them compiled by an earlier run.
#[derive(Serialize)]
struct ProgramsLine {
    programs: &'static [(&'static str, &'static str)],
    tagged: &'static str,
    confine: &'static str,
    /// The programs it compiles go back in the ready line, for the cache.
    send_back: bool,
}

/// The programs line, with its newline. With `send_back`, the harness sends
/// the programs it compiles (and its own code) in its ready line
/// ([`Ready::compiled`]).
///
/// [`Ready::compiled`]: super::self_test::Ready
pub fn programs_message(send_back: bool) -> Vec<u8> {
    let line = ProgramsLine {
        programs: &super::harness::PROGRAMS,
        tagged: super::harness::TAGGED_PY,
        confine: super::harness::CONFINE_PY,
        send_back,
    };
    // Serializing strings cannot fail.
    let mut out = serde_json::to_vec(&line).unwrap_or_default();
    out.push(b'\n');
    out
}

/// The harness's first line out, before it imports anything: the
/// interpreter's facts ([`super::sandbox::PROBE`]'s, hex) and, started in
/// bwrap, whether [`super::sandbox::BWRAP_CHECK`] passed.
#[derive(Deserialize)]
pub struct Hello {
    pub hello: bool,
    pub facts: String,
    pub bwrap_check: Option<bool>,
}

/// The line a harness reads once the run knows its corpus.
#[derive(Serialize)]
pub struct Init<'a> {
    uid: Option<u32>,
    gid: Option<u32>,
    /// Nothing of `uid` is left (its last worker ended clean): under
    /// landlock its start need not reap the uid's leftovers.
    reaped: bool,
    scratch: String,
    timeout: f64,
    wall: f64,
    limits: &'static super::limits::Harness,
    rlimits: RLimits,
    workers: usize,
    tier: &'static str,
    read_roots: &'a [PathBuf],
    must_not_read: &'a [PathBuf],
    hidden_count: usize,
    /// The visible cases' inputs follow the line: this many bytes.
    cases_bytes: usize,
}

/// The rlimits every child runs under.
#[derive(Serialize)]
struct RLimits {
    #[serde(rename = "as")]
    address_space: u64,
    cpu: u64,
    fsize: u64,
    nofile: u64,
    nproc: u64,
    core: u64,
}

/// The init line (with its newline, then the visible cases' inputs) for a
/// worker of `setup` running student code as `uid` (nothing of which is
/// left when `reaped`), its scratch folder at
/// `scratch` as the harness sees it.
pub fn init_line(
    setup: &Setup,
    uid: Option<u32>,
    reaped: bool,
    scratch: &Path,
) -> Result<Vec<u8>, JsonError> {
    let limits = &setup.limits;
    let wall = limits.wall.as_secs_f64();
    let init = Init {
        uid,
        gid: uid,
        reaped,
        scratch: scratch.to_string_lossy().into_owned(),
        timeout: limits.case_timeout.as_secs_f64(),
        wall,
        limits: &super::limits::HARNESS,
        rlimits: RLimits {
            address_space: limits.memory_bytes,
            cpu: super::limits::cpu_seconds(limits.wall),
            fsize: limits.file_bytes,
            nofile: limits.open_files,
            nproc: limits.processes,
            core: 0,
        },
        workers: limits.workers,
        tier: setup.isolation.name(),
        read_roots: &setup.python.roots,
        must_not_read: &setup.must_not_read,
        hidden_count: setup.inputs.order.len() - setup.inputs.visible_count,
        cases_bytes: setup.inputs.visible.len(),
    };
    let mut line = serde_json::to_vec(&init)?;
    line.push(b'\n');
    line.extend_from_slice(&setup.inputs.visible);
    Ok(line)
}

/// One submission's job, after its `job` line.
#[derive(Serialize)]
struct JobLine<'a> {
    source_hex: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pyc_hex: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    visible: Option<&'a [usize]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hidden: Option<usize>,
    /// How many cases each process runs, in order (without it, one runs all).
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<&'a [usize]>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    last: bool,
}

/// The lines that give the harness one submission: `source`, the `pyc`
/// compiled before (if any), for a subset the positions of its visible
/// cases and how many hidden cases it runs, how many cases each of its
/// processes runs (`groups`, in order; see [`crate::corpus::process_group`]),
/// and whether it is the worker's `last` job (see
/// [`super::worker::Worker::last_job`]).
pub fn job_lines(
    source: &[u8],
    pyc: Option<&str>,
    subset: Option<(&[usize], usize)>,
    groups: &[usize],
    last: bool,
) -> String {
    let job = JobLine {
        source_hex: hex::encode(source),
        pyc_hex: pyc,
        visible: subset.map(|(visible, _)| visible),
        hidden: subset.map(|(_, hidden)| hidden),
        groups: (groups.len() > 1).then_some(groups),
        last,
    };
    // Serializing strings and numbers cannot fail.
    let body = serde_json::to_string(&job).unwrap_or_default();
    format!("job\n{body}\n")
}

/// The head of a reply.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Head {
    pub n: usize,
    /// The first case whose outcome follows this head: those before it
    /// came in parts ([`read_part`]).
    #[serde(default)]
    pub first: usize,
    pub output: String,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub integrity: Vec<Seen>,
    #[serde(default)]
    pub pyc: Option<String>,
}

/// One thing the supervisor saw (`kind`, `what`), student-shaped text.
#[derive(Deserialize)]
pub struct Seen {
    pub kind: String,
    pub what: String,
}

/// The head of a part: outcomes the supervisor sends ahead of its answer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartHead {
    /// The case (in the harness's order) of its first outcome.
    part: usize,
}

/// What starts a part's line (and no reply's).
const PART_START: &str = "{\"part\":";

/// A part (`{"part": first case}`, then its outcome texts, still
/// unparsed), or `None` when `line` is not one.
pub fn read_part(line: &str) -> Option<Result<(usize, Vec<&str>), HarnessError>> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    if !line.starts_with(PART_START) {
        return None;
    }
    let (head, rest) = line.split_once('\t').unwrap_or((line, ""));
    let head: PartHead = match json::from_slice(head.as_bytes(), MAX_REPLY_HEAD_NESTING) {
        Ok(head) => head,
        Err(JsonError::TooDeep { .. }) => return Some(Err(HarnessError::TooDeep)),
        Err(JsonError::Syntax(e)) => return Some(Err(HarnessError::Malformed(e))),
    };
    let texts = match rest {
        "" => Vec::new(),
        rest => outcome_texts(rest),
    };
    Some(Ok((head.part, texts)))
}

/// What the supervisor writes for an outcome that is the very outcome
/// before it (an import error, which it copies into every case).
const SAME_AS_BEFORE: &str = "=";

/// The outcome texts after a head, tab-separated: [`SAME_AS_BEFORE`] read
/// as the text before it (the same slice, so admitting it twice costs
/// nothing: see `admission`); first in the line, it stays as it is (not a
/// valid outcome).
fn outcome_texts(rest: &str) -> Vec<&str> {
    let mut texts: Vec<&str> = Vec::new();
    for text in rest.split('\t') {
        match (text, texts.last()) {
            (SAME_AS_BEFORE, Some(&before)) => texts.push(before),
            _ => texts.push(text),
        }
    }
    texts
}

/// A reply split into its head and its outcome texts (still unparsed).
pub fn read_reply(line: &str) -> Result<(Head, Vec<&str>), HarnessError> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let (head, rest) = match line.split_once('\t') {
        Some((head, rest)) => (head, Some(rest)),
        None => (line, None),
    };
    let head: Head =
        json::from_slice(head.as_bytes(), MAX_REPLY_HEAD_NESTING).map_err(|e| match e {
            JsonError::TooDeep { .. } => HarnessError::TooDeep,
            JsonError::Syntax(e) => HarnessError::Malformed(e),
        })?;
    if let Some(error) = head.error {
        return Err(HarnessError::Reported(error));
    }
    let texts = rest.map(outcome_texts).unwrap_or_default();
    Ok((
        Head {
            error: None,
            ..head
        },
        texts,
    ))
}

/// What starts the child's outcome for a result it wrote as marshal bytes.
const MARSHALLED_START: &str = "{\"kind\":\"returned\",\"marshal\":\"";

/// What the grader builds of a marshalled result, at most: the recording
/// format's caps on one value ([`caps::MAX_VALUE_BYTES`] of tagged JSON,
/// [`caps::MAX_VALUE_ELEMENTS`] nodes, an int's text
/// [`budget::MAX_INT_TEXT_CHARS`]), each back-reference counted as the
/// whole value it copies.
///
/// [`caps::MAX_VALUE_BYTES`]: crate::recording::caps::MAX_VALUE_BYTES
/// [`caps::MAX_VALUE_ELEMENTS`]: crate::recording::caps::MAX_VALUE_ELEMENTS
/// [`budget::MAX_INT_TEXT_CHARS`]: crate::value::budget::MAX_INT_TEXT_CHARS
pub const MARSHAL_LIMITS: marshal::Limits = marshal::Limits {
    depth: json::MAX_VALUE_NESTING,
    nodes: crate::recording::caps::MAX_VALUE_ELEMENTS,
    tagged_bytes: crate::recording::caps::MAX_VALUE_BYTES,
    int_text_chars: crate::value::budget::MAX_INT_TEXT_CHARS,
};

/// What a text of the marshalled shape (see [`expand_marshalled`]) stands for.
#[derive(Debug)]
pub enum Marshalled<T> {
    /// A value within [`MARSHAL_LIMITS`].
    Fits(T),
    /// A valid value that would build more than one value may hold (or
    /// more than [`caps::MAX_VALUE_BYTES`] of marshal bytes): the case's
    /// outcome is `output-too-large`, found before anything is built.
    ///
    /// [`caps::MAX_VALUE_BYTES`]: crate::recording::caps::MAX_VALUE_BYTES
    TooLarge,
}

/// The marshal bytes (still hex) and `args_changed` of a text of the
/// marshalled shape; `None` for any other text.
fn marshalled_parts(text: &str) -> Option<(&str, bool)> {
    let rest = text.strip_prefix(MARSHALLED_START)?;
    let (hex, rest) = rest.split_once('"')?;
    let args_changed = match rest {
        ",\"shares_with_args\":false,\"args_changed\":false}" => false,
        ",\"shares_with_args\":false,\"args_changed\":true}" => true,
        _ => return None,
    };
    Some((hex, args_changed))
}

/// The marshal bytes of a text of the marshalled shape, `Ok(None)` when
/// they are more than one value's cap, `Err` when they are not hex as the
/// child writes it (lowercase).
fn marshalled_bytes(hex: &str) -> Result<Option<Vec<u8>>, ()> {
    if hex.len() / 2 > crate::recording::caps::MAX_VALUE_BYTES {
        return Ok(None);
    }
    if hex.bytes().any(|c| c.is_ascii_uppercase()) {
        return Err(());
    }
    hex::decode(hex).map(Some).map_err(|_| ())
}

/// The `returned` outcome, as the recording format writes it, of a text
/// the child wrote for a new result it checked holds only what tagged JSON
/// carries exactly (`_fast_returned` in child.py): `{"kind":"returned",
/// "marshal":"<hex of marshal.dumps(result)>","shares_with_args":false,
/// "args_changed":<bool>}`. Its value is read from the bytes ([`marshal::read`],
/// within [`MARSHAL_LIMITS`], checked before anything is built: a few
/// bytes of back-references can stand for terabytes) and written as
/// tagged JSON: the grader, not the child, tells tuples, non-text keys,
/// wide ints and lone surrogates apart. `None` for any other text, and for
/// one of this shape that does not read (then it is admitted, and refused,
/// as written).
pub fn expand_marshalled(text: &str) -> Option<Marshalled<String>> {
    Some(match measure_marshalled(text)? {
        Marshalled::Fits(measured) => Marshalled::Fits(measured.expand()?),
        Marshalled::TooLarge => Marshalled::TooLarge,
    })
}

/// A text of the marshalled shape whose bytes were measured, nothing built
/// yet ([`measure_marshalled`]).
#[derive(Debug)]
pub struct MeasuredResult {
    bytes: Vec<u8>,
    measured: marshal::Measured,
    args_changed: bool,
}

impl MeasuredResult {
    /// The length of its value's tagged JSON (see [`marshal::Size::tagged_bytes`]).
    pub fn tagged_bytes(&self) -> usize {
        self.measured.size.tagged_bytes
    }

    /// The `returned` outcome, as [`expand_marshalled`] writes it.
    pub fn expand(self) -> Option<String> {
        let value = self.measured.build(&self.bytes).ok()?;
        let value = serde_json::to_string(&crate::value::tagged::Tagged(&value)).ok()?;
        Some(format!(
            "{{\"kind\":\"returned\",\"value\":{value},\"shares_with_args\":false,\"args_changed\":{}}}",
            self.args_changed
        ))
    }
}

/// What [`expand_marshalled`] would make of `text`, building nothing
/// (linear in its bytes): its bytes measured, or too large. `None` as there.
pub fn measure_marshalled(text: &str) -> Option<Marshalled<MeasuredResult>> {
    let (hex, args_changed) = marshalled_parts(text)?;
    let Some(bytes) = marshalled_bytes(hex).ok()? else {
        return Some(Marshalled::TooLarge);
    };
    match marshal::measure(&bytes, MARSHAL_LIMITS) {
        Ok(measured) => Some(Marshalled::Fits(MeasuredResult {
            bytes,
            measured,
            args_changed,
        })),
        Err(marshal::ReadError::TooLarge { .. }) => Some(Marshalled::TooLarge),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_told_from_an_answer() {
        let (first, texts) = read_part("{\"part\":256}\ta\tb\n").unwrap().unwrap();
        assert_eq!((first, texts), (256, vec!["a", "b"]));
        assert!(read_part("{\"n\":1,\"output\":\"\"}\tx\n").is_none());
        assert!(read_part("{\"need\":\"hidden\"}\n").is_none());
        assert!(matches!(
            read_part("{\"part\":-1}\ta\n"),
            Some(Err(HarnessError::Malformed(_)))
        ));
        assert!(matches!(
            read_part("{\"part\":1,\"n\":2}\ta\n"),
            Some(Err(HarnessError::Malformed(_)))
        ));
    }

    #[test]
    fn a_job_line_holds_exactly_what_it_is_given() {
        assert_eq!(
            job_lines(b"x", None, None, &[3], false),
            "job\n{\"source_hex\":\"78\"}\n"
        );
        assert_eq!(
            job_lines(b"", Some("00ff"), Some((&[0, 2], 1)), &[2, 1], true),
            "job\n{\"source_hex\":\"\",\"pyc_hex\":\"00ff\",\"visible\":[0,2],\"hidden\":1,\"groups\":[2,1],\"last\":true}\n"
        );
    }

    /// An import error is one outcome for every case: the supervisor
    /// writes it once, then `=` for each case after.
    #[test]
    fn an_outcome_the_same_as_the_one_before_is_written_once() {
        let (head, texts) = read_reply("{\"n\":4,\"output\":\"\"}\tbody\t=\t=\tx\n").unwrap();
        assert_eq!(head.n, 4);
        assert_eq!(texts, ["body", "body", "body", "x"]);
        assert!(std::ptr::eq(texts[0], texts[2]));
        // First in its line, it is not a valid outcome (a crash).
        let (_, texts) = read_part("{\"part\":0}\t=\ta\t=\n").unwrap().unwrap();
        assert_eq!(texts, ["=", "a", "a"]);
    }

    #[test]
    fn a_reply_is_split_into_its_head_and_outcome_texts() {
        let (head, texts) = read_reply("{\"n\":2,\"output\":\"o\"}\ta\tb\n").unwrap();
        assert_eq!((head.n, head.output.as_str()), (2, "o"));
        assert_eq!(texts, ["a", "b"]);
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert!(matches!(read_reply(&deep), Err(HarnessError::TooDeep)));
        assert!(matches!(
            read_reply("{\"n\":0,\"output\":\"\",\"error\":\"boom\"}"),
            Err(HarnessError::Reported(e)) if e == "boom"
        ));
    }
}
