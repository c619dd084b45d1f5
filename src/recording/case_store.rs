//! The recording store: outcomes kept per case, keyed by the case's content
//! and the submission's source, so that a corpus change re-records only the
//! cases it adds or edits, and identical sources are recorded once.
//!
//! One file per source and recording environment (harness, interpreter,
//! sandbox tier): `<work dir>/store/<source sha256>-<environment>.bin`, in
//! bincode (see [`StoreFile`]) compressed as one LZ4 block (see
//! [`STORE_MAGIC`]); each outcome is the compact JSON text of a
//! [`CaseOutcome`], which grading reads as text (and
//! judges each distinct text once). The JSON recording (`recording.json`, see
//! `docs/recording-format.md`) stays the format for recordings made
//! elsewhere; this store is the grader's own cache and may change with any
//! release (its `format` says which).

use super::format::{CaseOutcome, Recording};
use crate::corpus::Corpus;
use crate::integrity::Finding;
use crate::value::tagged::Tagged;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `format` of every store file this grader writes and reads.
pub const STORE_FORMAT: &str = "autograder-store/4";
/// What a store file starts with: then the length of its bincode (u32, little
/// endian) and that bincode as one LZ4 block (lz4_flex's
/// `compress_prepend_size`). Outcomes are JSON text that repeats itself (an
/// exception's class and MRO, a conversation's messages), so a file is about
/// a fifth of its bincode; LZ4 because it costs less CPU than the bytes it
/// saves the kernel to write and read (a store is written once per session
/// and read by every grade).
const STORE_MAGIC: &[u8; 8] = b"agstore4";
/// Largest store file read, and largest bincode one unpacks to (like a
/// recording, it is bounded by what one submission may record).
const MAX_STORE_BYTES: u64 = super::recording_file::MAX_RECORDING_BYTES;

/// A case's key: what its outcome depends on, hashed (16 bytes of sha256
/// over its process group's inputs, in order, and its place in that group;
/// see [`keys_of`]). Its id, tags and weight are not in it: renaming a case
/// does not re-record it.
pub type CaseKey = [u8; 16];

/// Every case's input as the harness reads it ([`case_input`]) and its key
/// ([`keys_of`]),
/// in corpus order: encoded once per run, for the store and the harness.
pub struct CaseInputs {
    pub each: Vec<String>,
    pub keys: Vec<CaseKey>,
}

impl CaseInputs {
    pub fn of(corpus: &Corpus) -> CaseInputs {
        use rayon::prelude::*;
        let each: Vec<String> = corpus.cases.par_iter().map(case_input).collect();
        let keys = keys_of(&corpus.cases, &each);
        CaseInputs { each, keys }
    }
}

/// One case's input as the harness reads it, and as its key hashes it:
/// `{"f": function, "a": [args], "k": [[name, value]]}` (tagged JSON values).
pub fn case_input(c: &crate::corpus::Case) -> String {
    serde_json::to_string(&CaseInput::of(c)).expect("tagged JSON has text keys only")
}

/// [`case_input`] as it serializes (written straight into a larger text).
#[derive(serde::Serialize)]
pub struct CaseInput<'a> {
    f: &'a str,
    a: Vec<Tagged<'a>>,
    k: Vec<(&'a str, Tagged<'a>)>,
}

impl<'a> CaseInput<'a> {
    pub fn of(c: &'a crate::corpus::Case) -> CaseInput<'a> {
        CaseInput {
            f: &c.checkpoint,
            a: c.args.iter().map(Tagged).collect(),
            k: c.kwargs
                .iter()
                .map(|(k, v)| (k.as_str(), Tagged(v)))
                .collect(),
        }
    }
}

/// Each case's key (`inputs[i]` is `cases[i]`'s [`case_input`]). A case's
/// outcome depends on the calls made before it in its process (a module's
/// state), so its key is its process group's inputs, in the order they run,
/// and its place among them: the cases of one checkpoint and visibility run
/// in a process of their own, in corpus order ([`crate::corpus::process_group`]),
/// so an edit to a checkpoint's cases re-records that group, and a group's
/// outcomes are the same whichever assignments a run selects.
pub fn keys_of(cases: &[crate::corpus::Case], inputs: &[String]) -> Vec<CaseKey> {
    let mut groups: std::collections::HashMap<_, Vec<usize>> = Default::default();
    for (i, case) in cases.iter().enumerate() {
        groups
            .entry(crate::corpus::process_group(case))
            .or_default()
            .push(i);
    }
    let mut keys = vec![[0; 16]; cases.len()];
    for members in groups.values() {
        let mut group = Sha256::new();
        for &i in members {
            group.update((inputs[i].len() as u64).to_le_bytes());
            group.update(inputs[i].as_bytes());
        }
        let group = group.finalize();
        for (place, &i) in members.iter().enumerate() {
            let mut h = Sha256::new();
            h.update(group);
            h.update((place as u64).to_le_bytes());
            keys[i].copy_from_slice(&h.finalize()[..16]);
        }
    }
    keys
}

/// The keys of the course's cases that a selection of assignments left out
/// ([`crate::corpus::Selection::others`]): a store keeps their outcomes, so
/// grading one assignment after another records nothing twice.
pub fn other_keys(corpus: &Corpus) -> Vec<CaseKey> {
    use rayon::prelude::*;
    let Some(selection) = &corpus.selection else {
        return Vec::new();
    };
    let inputs: Vec<String> = selection.others.par_iter().map(case_input).collect();
    keys_of(&selection.others, &inputs)
}

/// Where a recording was made: what an outcome depends on besides the
/// source and the call.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Made {
    pub harness: String,
    pub python: String,
    pub isolation: String,
    /// What the sandbox's self-test found held.
    pub sandbox: String,
    /// The limits the cases ran under (`--case-timeout` among them; see
    /// `runner::setup::Limits::shaping`): a timeout, or a pass, holds only
    /// under the limits that shaped it.
    pub limits: String,
}

impl Made {
    /// The part of the store file's name that says where it was made (the
    /// self-test's words are not part of it: they describe, not decide).
    fn tag(&self) -> String {
        let digest = Sha256::digest(
            format!(
                "{}\0{}\0{}\0{}",
                self.harness, self.python, self.isolation, self.limits
            )
            .as_bytes(),
        );
        hex::encode(&digest[..8])
    }
}

/// One source's outcomes in one environment: the store's file format.
/// Its texts are `String`s, or `&str`s borrowed from the file's bytes when
/// read only to grade (no allocation per case).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct StoreFile<S = String> {
    /// [`STORE_FORMAT`].
    pub format: S,
    pub source_sha256: S,
    pub made: Made,
    /// What the code printed, capped (from the last session that ran it).
    pub output: S,
    /// Integrity findings: the static scan's (made by `scanner`) and the
    /// runtime ones of every session.
    pub integrity: Vec<Finding>,
    /// [`crate::integrity::scanner_version`] of the static findings.
    pub scanner: S,
    /// Sorted by key: `(case key, compact JSON of its CaseOutcome)`.
    pub outcomes: Vec<(CaseKey, S)>,
    /// The source compiled by the harness (a `.pyc` for this `made`'s
    /// interpreter, hex; empty when none): a later session of this source
    /// imports it instead of compiling, which is most of a small session.
    pub pyc: S,
}

impl<S: AsRef<str>> StoreFile<S> {
    /// Whether this store answers `source_sha256` in `made`, and is sound
    /// (its format, its keys sorted).
    fn answers(&self, source_sha256: &str, made: &Made) -> bool {
        self.format.as_ref() == STORE_FORMAT
            && self.source_sha256.as_ref() == source_sha256
            && self.made.harness == made.harness
            && self.made.python == made.python
            && self.made.isolation == made.isolation
            && self.made.limits == made.limits
            && self.outcomes.windows(2).all(|w| w[0].0 < w[1].0)
    }

    /// The stored outcome text for `key`.
    pub fn get(&self, key: &CaseKey) -> Option<&str> {
        self.outcomes
            .binary_search_by(|(k, _)| k.cmp(key))
            .ok()
            .map(|i| self.outcomes[i].1.as_ref())
    }

    /// The outcomes of every case (`keys`), with the static integrity scan
    /// of `source` when the stored one was made by another scanner; a case
    /// this store has no outcome for is "not recorded".
    pub fn outcomes_for(&self, keys: &[CaseKey], source: &[u8]) -> Outcomes {
        let found: Vec<Option<&str>> = keys.iter().map(|k| self.get(k)).collect();
        self.outcomes_found(&found, source)
    }

    /// [`Self::outcomes_for`], given what the store holds for each case.
    fn outcomes_found(&self, found: &[Option<&str>], source: &[u8]) -> Outcomes {
        let integrity = if self.scanner.as_ref() == crate::integrity::scanner_version() {
            self.integrity.clone()
        } else {
            crate::integrity::with_static_scan(&self.integrity, source)
        };
        let mut text = String::with_capacity(found.iter().flatten().map(|t| t.len()).sum());
        let spans = found
            .iter()
            .map(|t| {
                let t = (*t)?;
                let at = text.len() as u32;
                text.push_str(t);
                Some((at, t.len() as u32))
            })
            .collect();
        Outcomes {
            stale: false,
            harness: self.made.harness.clone(),
            isolation: self.made.isolation.clone(),
            python: Some(self.made.python.clone()),
            sandbox: Some(self.made.sandbox.clone()),
            integrity,
            source_sha256: Some(self.source_sha256.as_ref().to_string()),
            text,
            spans,
        }
    }
}

impl StoreFile {
    /// An empty store for `source_sha256` made in `made`.
    pub fn new(source_sha256: &str, made: Made) -> StoreFile {
        StoreFile {
            format: STORE_FORMAT.to_string(),
            source_sha256: source_sha256.to_string(),
            made,
            output: String::new(),
            integrity: Vec::new(),
            scanner: String::new(),
            outcomes: Vec::new(),
            pyc: String::new(),
        }
    }

    /// Adds what one session recorded (`(corpus index, outcome text)`, the
    /// text as [`outcome_text`] writes it), keeping only the cases of the
    /// current corpus (`keys`) and of `others` (the course's cases outside
    /// the selected assignments, see [`other_keys`]): a store follows its
    /// course and does not grow with every edit. `scanned` is
    /// [`crate::integrity::static_scan`] of `source` when the caller made
    /// it already (else it is made here, when the store's is another
    /// scanner's).
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        keys: &[CaseKey],
        others: &[CaseKey],
        outcomes: impl IntoIterator<Item = (usize, impl AsRef<str>)>,
        output: String,
        integrity: &[Finding],
        source: &[u8],
        pyc: Option<String>,
        scanned: Option<Vec<Finding>>,
    ) {
        if let Some(pyc) = pyc {
            self.pyc = pyc;
        }
        self.outcomes = merged(std::mem::take(&mut self.outcomes), keys, others, outcomes);
        if !output.is_empty() || self.output.is_empty() {
            self.output = output;
        }
        let mut runtime = integrity.to_vec();
        runtime.extend(
            self.integrity
                .iter()
                .filter(|f| !integrity.contains(f))
                .cloned(),
        );
        let scanner = crate::integrity::scanner_version();
        self.integrity = if self.scanner == scanner {
            // The source is the store's own, and `runtime` kept its static
            // findings: they stand (a scan is as costly as a small session).
            crate::integrity::capped(runtime)
        } else {
            match scanned {
                Some(scanned) => crate::integrity::with_static(&runtime, scanned),
                None => crate::integrity::with_static_scan(&runtime, source),
            }
        };
        self.scanner = scanner.to_string();
    }
}

/// `old` with `new` (by corpus index into `keys`) laid over it, keeping
/// only the keys of `keys`; sorted by key. A key given twice in `new` keeps
/// its last text; `new` wins over `old`. One sort of a vector, not a map:
/// a full session adds every case of a submission.
fn merged(
    old: Vec<(CaseKey, String)>,
    keys: &[CaseKey],
    others: &[CaseKey],
    new: impl IntoIterator<Item = (usize, impl AsRef<str>)>,
) -> Vec<(CaseKey, String)> {
    let new = new
        .into_iter()
        .filter_map(|(i, text)| Some((*keys.get(i)?, text.as_ref().to_string())));
    let mut all: Vec<(CaseKey, String)> = old.into_iter().chain(new).collect();
    // Newest first; a stable sort keeps that order among equal keys, and
    // dedup keeps the first of each.
    all.reverse();
    all.sort_by_key(|e| e.0);
    all.dedup_by_key(|e| e.0);
    let mut current: Vec<CaseKey> = keys.iter().chain(others).copied().collect();
    current.sort_unstable();
    all.retain(|(k, _)| current.binary_search(k).is_ok());
    all
}

/// An outcome as the store and grading keep it: compact JSON.
pub fn outcome_text(outcome: &CaseOutcome) -> String {
    // Serializing an outcome cannot fail (no map with non-string keys).
    serde_json::to_string(outcome).unwrap_or_else(|_| "{\"kind\":\"missing\"}".to_string())
}

/// The store file of `source_sha256` made in `made`, under `work_dir`.
pub fn store_path(work_dir: &Path, source_sha256: &str, made: &Made) -> PathBuf {
    let safe: String = source_sha256
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(64)
        .collect();
    work_dir
        .join("store")
        .join(&safe[..safe.len().min(2)])
        .join(format!("{safe}-{}.bin", made.tag()))
}

/// Reads a store file; `None` when there is none, or it is unreadable, of
/// another format, or for another source or environment (it is then
/// re-recorded and overwritten).
pub fn read_store(path: &Path, source_sha256: &str, made: &Made) -> Option<StoreFile> {
    read_store_file(path).filter(|s| s.answers(source_sha256, made))
}

/// Reads a store file whatever it answers; `None` when there is none or it
/// is unreadable.
pub fn read_store_file(path: &Path) -> Option<StoreFile> {
    codec()
        .with_limit(MAX_STORE_BYTES)
        .deserialize(&unpack(&read_bytes(path)?)?)
        .ok()
}

/// What the store at `path` holds for `source` (whose hash is
/// `source_sha256`) in `made`: every case's outcome (`keys`), or the corpus
/// indices of the cases it lacks (every case when there is no usable store).
pub fn load(
    path: &Path,
    source_sha256: &str,
    made: &Made,
    keys: &[CaseKey],
    source: &[u8],
) -> Result<Outcomes, Option<Vec<usize>>> {
    thread_local! {
        /// The last store file's bincode, its buffer reused: grading reads
        /// one store file per submission, and a fresh buffer of that size
        /// is fresh pages for the kernel to fault in every time.
        static BINCODE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    /// A buffer past this size is not kept for the next file.
    const KEEP: usize = 8 << 20;
    let file = read_bytes(path).ok_or(None)?;
    BINCODE.with_borrow_mut(|bincode| {
        if bincode.capacity() > KEEP {
            *bincode = Vec::new();
        }
        unpack_into(&file, bincode).ok_or(None)?;
        let store: StoreFile<&str> = codec()
            .with_limit(MAX_STORE_BYTES)
            .deserialize(bincode)
            .map_err(|_| None)?;
        if !store.answers(source_sha256, made) {
            return Err(None);
        }
        let found: Vec<Option<&str>> = keys.iter().map(|k| store.get(k)).collect();
        if found.contains(&None) {
            let missing = (0..keys.len()).filter(|&i| found[i].is_none());
            return Err(Some(missing.collect()));
        }
        Ok(store.outcomes_found(&found, source))
    })
}

fn read_bytes(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    if file.metadata().ok()?.len() > MAX_STORE_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_STORE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// A store file's bincode, from the file's bytes (see [`STORE_MAGIC`]);
/// `None` when they are not a store file or unpack to more than a store
/// may hold.
fn unpack(file: &[u8]) -> Option<Vec<u8>> {
    let mut bincode = Vec::new();
    unpack_into(file, &mut bincode)?;
    Some(bincode)
}

/// [`unpack`] into `bincode` (its length set to what it holds).
fn unpack_into(file: &[u8], bincode: &mut Vec<u8>) -> Option<()> {
    let block = file.strip_prefix(STORE_MAGIC)?;
    let size = u32::from_le_bytes(block.get(..4)?.try_into().ok()?);
    if u64::from(size) > MAX_STORE_BYTES {
        return None;
    }
    bincode.resize(size as usize, 0);
    let written = lz4_flex::block::decompress_into(&block[4..], bincode).ok()?;
    (written == bincode.len()).then_some(())
}

/// A store file's bytes, for its bincode (see [`STORE_MAGIC`]).
fn pack(bincode: &[u8]) -> Vec<u8> {
    let mut file = STORE_MAGIC.to_vec();
    file.extend(lz4_flex::block::compress_prepend_size(bincode));
    file
}

/// The store's bincode settings.
fn codec() -> impl bincode::Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
}

use bincode::Options as _;

/// Writes a store file atomically (a temp file in its folder, then put in
/// place by [`crate::atomic::replace`]).
pub fn write_store(path: &Path, store: &StoreFile) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let bytes = codec().serialize(store).map_err(std::io::Error::other)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(&pack(&bytes))?;
    crate::atomic::replace(tmp, path)
}

/// One submission's outcomes as grading reads them: each case's outcome
/// as compact JSON text, in corpus order, with where they were made.
#[derive(Clone, Debug)]
pub struct Outcomes {
    pub harness: String,
    pub isolation: String,
    pub python: Option<String>,
    pub sandbox: Option<String>,
    pub source_sha256: Option<String>,
    /// The outcomes answer another version of the corpus (a recording made
    /// elsewhere): cases it does not know are "not recorded".
    pub stale: bool,
    pub integrity: Vec<Finding>,
    /// The cases' outcome texts, one after another.
    text: String,
    /// Per corpus case, where its text is in `text` (`None`: not recorded).
    spans: Vec<Option<(u32, u32)>>,
}

impl Outcomes {
    /// Case `i`'s outcome text (corpus order).
    pub fn get(&self, i: usize) -> Option<&str> {
        let (at, len) = (*self.spans.get(i)?)?;
        self.text.get(at as usize..(at + len) as usize)
    }

    /// A recording made elsewhere (`recording.json`), for `corpus`.
    pub fn of_recording(corpus: &Corpus, rec: Recording) -> Outcomes {
        let mut text = String::new();
        let spans = corpus
            .cases
            .iter()
            .map(|c| {
                let outcome = outcome_text(rec.outcomes.get(&c.id)?);
                let at = text.len() as u32;
                text.push_str(&outcome);
                Some((at, outcome.len() as u32))
            })
            .collect();
        Outcomes {
            stale: rec.corpus_fingerprint != corpus.fingerprint,
            harness: rec.harness,
            isolation: rec.isolation,
            python: rec.python,
            sandbox: rec.sandbox,
            source_sha256: rec.source_sha256,
            integrity: rec.integrity,
            text,
            spans,
        }
    }

    /// As a recording file (`autograder record` writes one per submission).
    pub fn to_recording(&self, corpus: &Corpus, submission: &str, output: String) -> Recording {
        Recording {
            format: super::format::RECORDING_FORMAT.to_string(),
            submission: submission.to_string(),
            source_sha256: self.source_sha256.clone(),
            corpus_fingerprint: corpus.fingerprint.clone(),
            harness: self.harness.clone(),
            isolation: self.isolation.clone(),
            python: self.python.clone(),
            sandbox: self.sandbox.clone(),
            outcomes: corpus
                .cases
                .iter()
                .enumerate()
                .filter_map(|(i, c)| {
                    let outcome = CaseOutcome::parse(self.get(i)?).ok()?;
                    Some((c.id.clone(), outcome))
                })
                .collect(),
            output,
            integrity: self.integrity.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrity::{Finding, Source};

    fn made() -> Made {
        Made {
            harness: "h".into(),
            python: "3.11.2".into(),
            isolation: "none".into(),
            sandbox: String::new(),
            limits: "case_timeout=2s".into(),
        }
    }

    fn finding(source: Source, what: &str) -> Finding {
        Finding {
            source,
            kind: "frames".into(),
            line: (source == Source::Static).then_some(1),
            what: what.into(),
        }
    }

    /// What `add` keeps, as a map: the old outcomes, the new laid over
    /// them in the order given, then only the current corpus's keys.
    fn merged_by_map(
        old: &[(CaseKey, String)],
        keys: &[CaseKey],
        new: &[(usize, String)],
    ) -> Vec<(CaseKey, String)> {
        let mut kept: std::collections::BTreeMap<CaseKey, String> = old.iter().cloned().collect();
        for (i, text) in new {
            if let Some(key) = keys.get(*i) {
                kept.insert(*key, text.clone());
            }
        }
        kept.into_iter().filter(|(k, _)| keys.contains(k)).collect()
    }

    #[test]
    fn merging_a_session_keeps_what_a_map_would() {
        // A seeded generator: few distinct keys, so that old and new share
        // keys, a key repeats in the corpus and in a session, and old keys
        // leave the corpus; indices beyond the corpus are dropped.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..2000 {
            let key = |b: u64| -> CaseKey { [b as u8; 16] };
            let keys: Vec<CaseKey> = (0..next(12)).map(|_| key(next(16))).collect();
            let mut old: Vec<(CaseKey, String)> = (0..next(12))
                .map(|_| (key(next(16)), format!("old{}", next(1000))))
                .collect();
            old.sort_by_key(|a| a.0);
            old.dedup_by(|a, b| a.0 == b.0);
            // Now and then a long session: long enough that an unstable
            // sort would reorder equal keys.
            let long = if round % 4 == 0 { 300 } else { 14 };
            let new: Vec<(usize, String)> = (0..next(long))
                .map(|j| (next(14) as usize, format!("new{round}.{j}")))
                .collect();
            let want = merged_by_map(&old, &keys, &new);
            let got = merged(old.clone(), &keys, &[], new.clone());
            assert_eq!(got, want, "keys {keys:?}\nold {old:?}\nnew {new:?}");
        }
    }

    /// A store as a class makes them: an exception's outcome again and
    /// again, and returned values.
    fn typical_store() -> StoreFile {
        let mut store = StoreFile::new("ab", made());
        let keys: Vec<CaseKey> = (0..600u16)
            .map(|i| {
                let mut k = [0; 16];
                k[..2].copy_from_slice(&i.to_be_bytes());
                k
            })
            .collect();
        let outcomes = (0..keys.len()).map(|i| {
            let text = if i % 2 == 0 {
                format!(
                    r#"{{"kind":"raised","class":"ValueError","mro":["ValueError","Exception","BaseException","object"],"message":"case {i}: not valid"}}"#
                )
            } else {
                format!(
                    r#"{{"kind":"returned","value":{{"messages":[{{"role":"user","content":"turn {i}"}}]}},"shares_with_args":false,"args_changed":false}}"#
                )
            };
            (i, text)
        });
        store.add(
            &keys,
            &[],
            outcomes,
            "printed\n".into(),
            &[],
            b"",
            Some("00ff".into()),
            None,
        );
        store
    }

    #[test]
    fn a_store_file_is_compact_and_reads_back_as_written() {
        let store = typical_store();
        let bincode = codec().serialize(&store).unwrap();
        let file = pack(&bincode);
        assert!(file.starts_with(STORE_MAGIC));
        assert!(
            file.len() * 4 < bincode.len(),
            "{} bytes packed from {}",
            file.len(),
            bincode.len()
        );
        assert_eq!(unpack(&file).as_deref(), Some(bincode.as_slice()));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.bin");
        write_store(&path, &store).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), file);
        let again = read_store_file(&path).unwrap();
        assert_eq!(codec().serialize(&again).unwrap(), bincode);
    }

    #[test]
    fn a_store_file_that_does_not_unpack_as_it_says_is_not_read() {
        let bincode = codec().serialize(&typical_store()).unwrap();
        let file = pack(&bincode);
        let size = |n: u32| [STORE_MAGIC.as_slice(), &n.to_le_bytes(), &file[12..]].concat();
        let refused = [
            // The format before: bincode as it is.
            bincode.clone(),
            file[..file.len() / 2].to_vec(),
            file[..10].to_vec(),
            // More than a store may hold: refused before anything is made.
            size(u32::MAX),
            // Fewer or more bytes than it says it holds.
            size(bincode.len() as u32 + 1),
            size(bincode.len() as u32 - 1),
        ];
        for (i, bad) in refused.iter().enumerate() {
            assert_eq!(unpack(bad), None, "file {i}");
            // Nor, into a buffer that held a longer file, with that file's
            // tail taken for its own.
            let mut reused = vec![7; bincode.len() * 2];
            assert_eq!(
                unpack_into(bad, &mut reused),
                None,
                "file {i}, reused buffer"
            );
        }
        let mut reused = vec![7; bincode.len() * 2];
        assert_eq!(unpack_into(&file, &mut reused), Some(()));
        assert_eq!(reused, bincode);
    }

    #[test]
    fn a_later_session_keeps_the_static_findings_of_the_current_scanner_and_rescans_older_ones() {
        let source = b"import sys\nf = sys._getframe\n";
        let keys = [[1; 16], [2; 16]];
        let outcome = || outcome_text(&CaseOutcome::Missing);
        let mut store = StoreFile::new("ab", made());
        store.add(
            &keys,
            &[],
            [(0, outcome())],
            String::new(),
            &[],
            source,
            None,
            None,
        );
        let scanned: Vec<Finding> = store.integrity.clone();
        assert!(
            scanned.iter().any(|f| f.what == "sys._getframe"),
            "{scanned:?}"
        );
        // A session for the other case: the static findings are the
        // store's own (a marker no scan makes shows they were not redone),
        // runtime ones gather.
        store.integrity.push(finding(Source::Static, "marker"));
        let seen = finding(Source::Runtime, "reply for a case never called");
        store.add(
            &keys,
            &[],
            [(1, outcome())],
            String::new(),
            std::slice::from_ref(&seen),
            source,
            None,
            None,
        );
        assert!(store.integrity.contains(&finding(Source::Static, "marker")));
        assert!(store.integrity.contains(&seen));
        assert_eq!(store.outcomes.len(), 2);
        // Made by another scanner: scanned again, the marker gone, the
        // runtime finding kept.
        store.scanner = "older".into();
        store.add(
            &keys,
            &[],
            [(1, outcome())],
            String::new(),
            &[],
            source,
            None,
            None,
        );
        assert!(!store.integrity.iter().any(|f| f.what == "marker"));
        assert!(store.integrity.contains(&seen));
        assert!(store.integrity.iter().any(|f| f.what == "sys._getframe"));
    }
}
