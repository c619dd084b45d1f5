//! Which work dir a `grade` run may trust. Stored outcomes are not signed:
//! whoever can write the work dir can write a submission's grade. Under
//! `--main-py-only` students control the graded tree (a student's
//! repository in CI, an upload on Gradescope), so its outcomes come from
//! this run (a fresh folder, the default) or from a work dir outside every
//! tree a student could have written: the graded folders and the working
//! directory, each with the git work tree that holds it.

use anyhow::bail;
use std::path::{Path, PathBuf};

/// The work dir `grade` uses, and the fresh folder behind it (removed when
/// dropped) when it made one.
pub(super) struct WorkDir {
    pub path: PathBuf,
    _fresh: Option<tempfile::TempDir>,
}

/// The default work dir, where no student controls the tree.
pub(super) const DEFAULT: &str = ".autograder";

/// The work dir for a run: `given`, or the default; under `main_py_only`,
/// `given` only when it lies outside every tree of `graded` (the graded
/// folders) and of the working directory, else a fresh folder.
pub(super) fn choose(
    given: Option<&Path>,
    main_py_only: bool,
    graded: &[&Path],
) -> anyhow::Result<WorkDir> {
    if !main_py_only {
        return Ok(WorkDir {
            path: given.unwrap_or(Path::new(DEFAULT)).to_path_buf(),
            _fresh: None,
        });
    }
    let Some(given) = given else {
        let fresh = tempfile::Builder::new()
            .prefix("autograder-work-")
            .tempdir()
            .map_err(|e| anyhow::anyhow!("cannot make a fresh work dir: {e}"))?;
        return Ok(WorkDir {
            path: fresh.path().to_path_buf(),
            _fresh: Some(fresh),
        });
    };
    if let Some(tree) = crate::student_trees::holding(given, graded) {
        bail!(
            "--work-dir {} is inside {}, a tree a student controls under --main-py-only \
             (stored outcomes there could be forged): give a --work-dir outside it, or \
             leave --work-dir out to record every submission afresh",
            given.display(),
            tree.display()
        );
    }
    Ok(WorkDir {
        path: given.to_path_buf(),
        _fresh: None,
    })
}

/// The user's cache folder a run may use: `cache`, unless it lies inside a
/// tree a student could have written ([`crate::student_trees`]), in every
/// mode: what the cache holds is run as the harness, outside the sandbox,
/// and read as the corpus's cases. Then the run has no cache (it neither
/// reads nor writes one, costing it ~20 ms) and says so in one line.
pub(super) fn cache_for(cache: Option<PathBuf>, graded: &[&Path]) -> Option<PathBuf> {
    let cache = cache?;
    let Some(tree) = crate::student_trees::holding(&cache, graded) else {
        return Some(cache);
    };
    eprintln!(
        "warning: the cache {} is not used: it is inside {}, which a student could have \
         written (set XDG_CACHE_HOME to a folder outside it)",
        cache.display(),
        tree.display()
    );
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_work_dir_in_a_students_tree_is_refused_under_main_py_only() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let solution = repo.join("solution");
        std::fs::create_dir_all(&solution).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let graded = [solution.as_path()];
        // The repository root holds the graded folder: refused, existing or not.
        for work in [repo.join(".autograder"), repo.join("a/b/not-yet")] {
            let e = choose(Some(&work), true, &graded).err().expect("refused");
            assert!(e.to_string().contains("a tree a student controls"), "{e}");
        }
        assert!(choose(Some(&solution.join("w")), true, &graded).is_err());
        // Outside every tree: used as given.
        let outside = tmp.path().join("store");
        assert_eq!(choose(Some(&outside), true, &graded).unwrap().path, outside);
        // No --main-py-only: the instructor's choice.
        let inside = repo.join(".autograder");
        assert_eq!(choose(Some(&inside), false, &graded).unwrap().path, inside);
        assert_eq!(
            choose(None, false, &graded).unwrap().path,
            Path::new(DEFAULT)
        );
        // The default under --main-py-only: a fresh, empty folder, gone after.
        let fresh = choose(None, true, &graded).unwrap();
        let path = fresh.path.clone();
        assert_eq!(std::fs::read_dir(&path).unwrap().count(), 0);
        drop(fresh);
        assert!(!path.exists());
    }
}
