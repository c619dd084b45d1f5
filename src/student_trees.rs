//! The trees a student could have written: the graded folders and the
//! working directory (a student's repository in CI, an upload on
//! Gradescope), each with the git work tree that holds it. What a run
//! trusts (stored outcomes, the user's cache of code and cases) never
//! comes from inside one: `--work-dir` there is refused under
//! `--main-py-only` (src/cli/work_dir.rs), the user's cache there is not
//! used at all (src/cli/work_dir.rs, [`crate::runner::record`]).

use std::path::{Path, PathBuf};

/// The tree a student could have written that holds `path`, if any: one
/// of `graded` or the working directory, or the git work tree holding
/// one of them. Links are resolved first, as far as `path` exists.
pub fn holding(path: &Path, graded: &[&Path]) -> Option<PathBuf> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let path = resolved(path);
    for root in graded.iter().copied().chain([cwd.as_path()]) {
        let root = resolved(root);
        for tree in [Some(root.clone()), git_top(&root)].into_iter().flatten() {
            if path.starts_with(&tree) {
                return Some(tree);
            }
        }
    }
    None
}

/// `path` made absolute with its links resolved, as far as it exists (a
/// work dir may not exist yet): its nearest existing ancestor, resolved,
/// with the rest of it after.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// The top of the git work tree holding `dir` (the nearest folder at or
/// above it with a `.git`), if any.
fn git_top(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_graded_folder_or_its_git_tree_is_held_by_it() {
        let tmp = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(tmp.path()).unwrap();
        let repo = real.join("repo");
        let solution = repo.join("solution");
        std::fs::create_dir_all(&solution).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let graded = [solution.as_path()];
        assert_eq!(
            holding(&solution.join("x"), &graded),
            Some(solution.clone())
        );
        for inside in [repo.join(".cache/autograder"), repo.join("a/b/not-yet")] {
            assert_eq!(holding(&inside, &graded), Some(repo.clone()), "{inside:?}");
        }
        assert_eq!(holding(&real.join("elsewhere"), &graded), None);
        // Through a link into the tree.
        std::os::unix::fs::symlink(&repo, real.join("link")).unwrap();
        assert_eq!(
            holding(&real.join("link/.cache"), &graded),
            Some(repo.clone())
        );
        // Outside a git tree: the graded folder itself.
        let plain = real.join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert_eq!(
            holding(&plain.join(".cache"), &[plain.as_path()]),
            Some(plain.clone())
        );
    }
}
