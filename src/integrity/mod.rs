//! Integrity findings: signs that a submission reached into the harness
//! that runs it (and could so have forged its own outcomes), for the
//! instructors' reports only. What can and cannot be seen is in
//! `docs/integrity.md`.
//!
//! A finding comes from a static scan of `main.py` ([`scan::scan`], made by
//! the grader whenever it has the source) or from what the harness saw at
//! run time (written by the harness into the recording). Both are kept in
//! the recording's `integrity` list and shown per submission.

pub mod scan;
pub mod source;

use serde::{Deserialize, Serialize};

/// Where a finding comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The scan of `main.py` ([`scan::scan`]): `line` is where.
    Static,
    /// What the harness saw while the submission ran.
    Runtime,
}

impl Source {
    /// `static` or `runtime`, as the JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Static => "static",
            Source::Runtime => "runtime",
        }
    }
}

/// One thing seen.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub source: Source,
    /// What sort of reach it is: for static findings one of
    /// [`scan::KINDS`]; runtime findings name their own.
    pub kind: String,
    /// The line of `main.py` (static findings); `None` when it has none.
    #[serde(default)]
    pub line: Option<u32>,
    /// The construct, as the scan resolved it (`sys._getframe`,
    /// `import ctypes`, `os.write on fd 3`), or what the harness saw.
    pub what: String,
}

impl Finding {
    /// `main.py:12 sys._getframe` (static) or `reply for a case never called` (runtime).
    pub fn label(&self) -> String {
        match self.line {
            Some(line) => format!("main.py:{line} {}", self.what),
            None => self.what.clone(),
        }
    }
}

/// At most this many findings are kept per submission (static and runtime
/// each); a last one says how many more there were.
pub const MAX_FINDINGS: usize = 100;
/// A finding's `kind` and `what` are cut to this many characters.
pub const MAX_FINDING_CHARS: usize = 200;

/// Findings within the caps: each text cut, at most [`MAX_FINDINGS`] per
/// source, then one saying how many more.
pub fn capped(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out = Vec::new();
    for source in [Source::Static, Source::Runtime] {
        let of: Vec<Finding> = findings
            .iter()
            .filter(|f| f.source == source)
            .cloned()
            .collect();
        let more = of.len().saturating_sub(MAX_FINDINGS);
        out.extend(of.into_iter().take(MAX_FINDINGS).map(|f| Finding {
            kind: shown(&f.kind),
            what: shown(&f.what),
            ..f
        }));
        if more > 0 {
            out.push(Finding {
                source,
                kind: "more".into(),
                line: None,
                what: format!("… {more} more findings"),
            });
        }
    }
    out
}

/// A finding's text as reports show it: cut, and escaped (it quotes
/// `main.py`, or a shipped recording's words).
fn shown(text: &str) -> String {
    crate::text::escaped(&crate::text::cut(text, MAX_FINDING_CHARS))
}

/// Which static scan this grader makes: stored findings made by another
/// are made again.
pub fn scanner_version() -> &'static str {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        h.update(include_str!("scan.rs"));
        h.update(include_str!("source.rs"));
        hex::encode(&h.finalize()[..8])
    })
}

/// `findings` with the static ones replaced by a scan of `source` (a
/// recording's runtime findings are kept).
pub fn with_static_scan(findings: &[Finding], source: &[u8]) -> Vec<Finding> {
    with_static(findings, static_scan(source))
}

/// The static scan of `source`: its findings, not yet capped.
pub fn static_scan(source: &[u8]) -> Vec<Finding> {
    let decoded = source::decode(source);
    let mut out = scan::scan(&decoded.text);
    if let Some((encoding, line)) = decoded.undecoded {
        out.insert(
            0,
            Finding {
                source: Source::Static,
                kind: "source-encoding".into(),
                line: Some(line),
                what: format!("coding: {encoding} (the scan reads UTF-8 and Latin-1 only)"),
            },
        );
    }
    out
}

/// `findings` with the static ones replaced by `scanned` ([`static_scan`]
/// of the source).
pub fn with_static(findings: &[Finding], scanned: Vec<Finding>) -> Vec<Finding> {
    let mut out = scanned;
    out.extend(
        findings
            .iter()
            .filter(|f| f.source != Source::Static)
            .cloned(),
    );
    capped(out)
}
