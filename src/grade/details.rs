//! Where a run keeps its submissions' case grades.
//!
//! A small run keeps them in its submissions (`GradeRun::submissions`). A large one
//! ([`Spool`]) keeps only summaries in memory (scores per checkpoint, no
//! cases) and writes each submission's failed cases to an unnamed temporary
//! file as it is graded; reports read them back one submission at a time
//! through `GradeRun::full`, so memory stays flat in the number of
//! submissions.

use super::model::{
    Audience, CaseGrade, CheckpointInfo, CorpusInfo, Failure, Kept, Status, SubmissionGrade,
};
use std::collections::HashMap;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Mutex};

/// Where a run's case grades are: in its submissions (`None`), or spooled.
#[derive(Clone, Debug, Default)]
pub struct CaseGradeStorage(pub(crate) Option<Arc<Spool>>);

impl PartialEq for CaseGradeStorage {
    /// Two spooled runs are equal only when they share their spool.
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl CaseGradeStorage {
    /// Case grades are spooled to a temporary file.
    pub fn spooled() -> std::io::Result<CaseGradeStorage> {
        Ok(CaseGradeStorage(Some(Arc::new(Spool::new(
            tempfile::tempfile()?,
        )))))
    }

    /// Case grades are spooled to an unnamed file in `dir` (the work dir:
    /// on disk, where `$TMPDIR` may be memory), else in `$TMPDIR`.
    pub fn spooled_in(dir: &std::path::Path) -> std::io::Result<CaseGradeStorage> {
        let file = std::fs::create_dir_all(dir).and_then(|_| tempfile::tempfile_in(dir));
        match file {
            Ok(file) => Ok(CaseGradeStorage(Some(Arc::new(Spool::new(file))))),
            Err(_) => CaseGradeStorage::spooled(),
        }
    }

    /// Keeps a submission's case grades given as its summary (no `cases`)
    /// and the cases that are not a plain pass (`kept`): in memory, it
    /// returns the submission with every case; spooled, the summary.
    pub(crate) fn keep_parts(
        &self,
        corpus: &CorpusInfo,
        mut summary: SubmissionGrade,
        kept: Kept,
    ) -> SubmissionGrade {
        match &self.0 {
            Some(spool) => {
                spool.write(&summary.id, &Spooled { checkpoints: kept });
            }
            None => {
                for ((cp, info), kept) in summary
                    .checkpoints
                    .iter_mut()
                    .zip(&corpus.checkpoints)
                    .zip(kept)
                {
                    cp.cases = cases_of(info, kept);
                }
            }
        }
        summary
    }

    /// Keeps `full`'s case grades: spooled, it returns the summary (every
    /// checkpoint's `cases` emptied) and writes the cases to the spool.
    pub fn keep(&self, full: SubmissionGrade) -> SubmissionGrade {
        match &self.0 {
            None => full,
            Some(spool) => spool.keep(full),
        }
    }

    /// The first spool read or write that failed: every report rendered
    /// from this run may be incomplete, so none may be written.
    pub fn error(&self) -> Option<String> {
        let spool = self.0.as_ref()?;
        spool.error.lock().ok()?.clone()
    }
}

/// One checkpoint's cases that are not a plain pass, as spooled.
#[derive(serde::Serialize, serde::Deserialize)]
struct Spooled {
    /// Per checkpoint (course order): `(index in its case list, seconds,
    /// failure)` for each case that failed or took time.
    checkpoints: Vec<Vec<(u32, f64, Option<Failure>)>>,
}

/// The temporary file the case grades are written to, and where each
/// submission's are.
#[derive(Debug)]
pub struct Spool {
    file: Mutex<std::fs::File>,
    /// Submission id → (offset, length) in `file`.
    index: Mutex<HashMap<String, (u64, u64)>>,
    error: Mutex<Option<String>>,
}

impl Spool {
    fn new(file: std::fs::File) -> Spool {
        Spool {
            file: Mutex::new(file),
            index: Mutex::new(HashMap::new()),
            error: Mutex::new(None),
        }
    }

    fn fail(&self, what: String) {
        if let Ok(mut e) = self.error.lock() {
            e.get_or_insert(what);
        }
    }

    fn keep(&self, mut full: SubmissionGrade) -> SubmissionGrade {
        let spooled = Spooled {
            checkpoints: full
                .checkpoints
                .iter_mut()
                .map(|cp| {
                    std::mem::take(&mut cp.cases)
                        .into_iter()
                        .enumerate()
                        .filter(|(_, c)| !c.passed || c.seconds != 0.0)
                        .map(|(k, c)| (k as u32, c.seconds, c.failure))
                        .collect()
                })
                .collect(),
        };
        self.write(&full.id, &spooled);
        full
    }

    fn write(&self, id: &str, spooled: &Spooled) {
        if let Err(e) = self.append(id, spooled) {
            self.fail(format!("cannot spool the case grades of {id}: {e}"));
        }
    }

    fn append(&self, id: &str, spooled: &Spooled) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(spooled)?;
        let mut file = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("spool lock poisoned"))?;
        let at = file.seek(SeekFrom::End(0))?;
        file.write_all(&bytes)?;
        drop(file);
        if let Ok(mut index) = self.index.lock() {
            index.insert(id.to_string(), (at, bytes.len() as u64));
        }
        Ok(())
    }

    fn read(&self, id: &str) -> std::io::Result<Spooled> {
        let found = self.index.lock().ok().and_then(|i| i.get(id).copied());
        let Some((at, len)) = found else {
            return Err(std::io::Error::other("not in the spool"));
        };
        let mut bytes = vec![0; len as usize];
        let file = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("spool lock poisoned"))?;
        file.read_exact_at(&mut bytes, at)?;
        drop(file);
        Ok(serde_json::from_slice(&bytes)?)
    }

    /// `summary` with its case grades read back (for `audience`).
    pub(crate) fn fill(
        &self,
        corpus: &CorpusInfo,
        summary: &SubmissionGrade,
        audience: Audience,
    ) -> SubmissionGrade {
        let mut full = summary.clone();
        if full.status != Status::Graded {
            return full;
        }
        match self.read(&full.id) {
            Ok(spooled) => {
                for ((cp, info), kept) in full
                    .checkpoints
                    .iter_mut()
                    .zip(&corpus.checkpoints)
                    .zip(spooled.checkpoints)
                {
                    cp.cases = cases_of(info, kept);
                }
            }
            Err(e) => self.fail(format!(
                "cannot read back the case grades of {}: {e}",
                full.id
            )),
        }
        full.show_to(audience, corpus.show_hidden_ids);
        full
    }
}

/// A checkpoint's cases in corpus order, every one passed except those in
/// `kept` (index in the case list, seconds, failure).
pub(crate) fn cases_of(
    info: &CheckpointInfo,
    kept: impl IntoIterator<Item = (u32, f64, Option<Failure>)>,
) -> Vec<CaseGrade> {
    let mut cases: Vec<CaseGrade> = info
        .case_list
        .iter()
        .map(|k| CaseGrade {
            case: k.case.clone(),
            id: format!("{}/{}", info.id, k.case),
            tags: k.tags.clone(),
            visibility: k.visibility,
            weight: k.weight,
            passed: true,
            seconds: 0.0,
            failure: None,
        })
        .collect();
    for (k, seconds, failure) in kept {
        if let Some(c) = cases.get_mut(k as usize) {
            c.seconds = seconds;
            c.passed = failure.is_none();
            c.failure = failure;
        }
    }
    cases
}
