//! The CPython that runs the harness: found, probed and refused here.

use super::output_within;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Duration;

/// The interpreter asked for when neither `--python` nor `AUTOGRADER_PYTHON`
/// names one (then `python3` on PATH).
pub const DEFAULT_PYTHON: &str = "/usr/bin/python3";
/// The oldest CPython the harness runs on (Ubuntu 20.04's).
pub const MIN_PYTHON: (u32, u32) = (3, 8);
/// Arguments that make runs deterministic and independent of user site dirs
/// (`-I` would ignore PYTHONHASHSEED; `-P` exists only from 3.11, so the
/// harness drops the start folder from `sys.path` itself).
pub const PYTHON_FLAGS: &[&str] = &["-s", "-S"];
/// Python source defining `facts()`: what the grader needs to know of the
/// interpreter running it, as NUL-separated file-system bytes (the
/// implementation, the version, the executable, then the roots). Only
/// built-in modules: importing json or platform is most of a start-up.
/// Run on its own by [`Python::find`], and by every harness as it starts
/// (its first line, see `harness/harness.py`).
pub const PROBE: &str = r#"def facts():
    import os, sys
    r = lambda p: os.path.realpath(p) if p else ''
    i = sys.implementation.name
    i = {'cpython': 'CPython', 'pypy': 'PyPy', 'ironpython': 'IronPython', 'jython': 'Jython'}.get(i, i)
    e = r(sys.executable)
    roots = [r(getattr(sys, k, '')) for k in ('prefix', 'base_prefix', 'exec_prefix', 'base_exec_prefix')]
    out = [i, '%d.%d.%d' % tuple(sys.version_info[:3]), e] + roots + [os.path.dirname(e)]
    return b'\0'.join(os.fsencode(x) for x in out)
"#;

/// What [`PROBE`]'s `facts()` returned, read.
#[derive(Debug)]
pub struct Facts {
    implementation: String,
    version: Vec<u32>,
    executable: PathBuf,
    roots: Vec<PathBuf>,
}

impl Facts {
    /// `facts()`'s bytes, or `None` when they are not its shape.
    pub fn read(bytes: &[u8]) -> Option<Facts> {
        use std::os::unix::ffi::OsStrExt;
        let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
        let [implementation, version, executable, roots @ ..] = fields.as_slice() else {
            return None;
        };
        let version: Vec<u32> = std::str::from_utf8(version)
            .ok()?
            .split('.')
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?;
        let path = |b: &[u8]| PathBuf::from(std::ffi::OsStr::from_bytes(b));
        (roots.len() == 5 && version.len() == 3).then(|| Facts {
            implementation: String::from_utf8_lossy(implementation).into_owned(),
            version,
            executable: path(executable),
            roots: roots.iter().map(|r| path(r)).collect(),
        })
    }
}

/// Why no usable interpreter was found; each says what was tried and
/// what to do (the I/O error is shown before that advice, not as a
/// `source` after it).
#[derive(Debug, thiserror::Error)]
pub enum PythonError {
    #[error("--python is empty")]
    Empty,
    #[error("--python {}: no such program on PATH", .0.display())]
    NotOnPath(PathBuf),
    #[error("no Python found: {DEFAULT_PYTHON} does not exist and there is no python3 on \
             PATH; install CPython {}.{} or newer, or pass --python PATH", MIN_PYTHON.0, MIN_PYTHON.1)]
    NoneFound,
    #[error("cannot run {}: {error}; {}", path.display(), fix())]
    CannotRun {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{} does not work as a Python interpreter ({status}: {last}); {}", path.display(), fix())]
    NotAnInterpreter {
        path: PathBuf,
        status: ExitStatus,
        last: String,
    },
    #[error("{} is {implementation} {version}; the harness needs CPython {}.{} or newer; {}",
        path.display(), MIN_PYTHON.0, MIN_PYTHON.1, fix())]
    Unsupported {
        path: PathBuf,
        implementation: String,
        version: String,
    },
}

/// What to do about an unusable interpreter.
fn fix() -> String {
    format!(
        "pass --python PATH (or set AUTOGRADER_PYTHON) to a CPython {}.{} or newer",
        MIN_PYTHON.0, MIN_PYTHON.1
    )
}

/// The CPython that runs the harness, as probed before anything is recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Python {
    /// The interpreter as asked for (for messages).
    pub requested: PathBuf,
    /// The file executed: the real interpreter behind a symlink, a venv or a
    /// version manager's shim.
    pub executable: PathBuf,
    /// `major.minor.micro`.
    pub version: String,
    /// Folders the interpreter reads from (its prefixes and its executable's
    /// folder): bound into bwrap, readable under landlock.
    pub roots: Vec<PathBuf>,
}

impl Python {
    /// The interpreter `--python` (or `AUTOGRADER_PYTHON`) names, else
    /// `/usr/bin/python3`, else `python3` on PATH; refused unless it is
    /// CPython 3.8 or newer. Errors say what was tried and what to do.
    pub fn find(requested: Option<&Path>) -> Result<Python, PythonError> {
        let path = Python::path_of(requested)?;
        let mut cmd = Command::new(&path);
        cmd.args(["-E", "-s", "-S", "-c"])
            .arg(format!(
                "{PROBE}import sys\nsys.stdout.buffer.write(facts())\n"
            ))
            .env_clear()
            .stdin(std::process::Stdio::null());
        let out = output_within(cmd, Duration::from_secs(30)).map_err(|error| {
            PythonError::CannotRun {
                path: path.clone(),
                error,
            }
        })?;
        match Facts::read(&out.stdout) {
            Some(facts) if out.status.success() => Python::from_facts(&path, facts),
            _ => {
                let err = String::from_utf8_lossy(&out.stderr);
                let last = err.trim().lines().last().unwrap_or("it printed nothing");
                Err(PythonError::NotAnInterpreter {
                    path,
                    status: out.status,
                    last: last.to_string(),
                })
            }
        }
    }

    /// The file `--python` (or `AUTOGRADER_PYTHON`) names, else
    /// `/usr/bin/python3`, else `python3` on PATH; not yet run.
    pub fn path_of(requested: Option<&Path>) -> Result<PathBuf, PythonError> {
        Ok(match requested {
            Some(p) if p.as_os_str().is_empty() => return Err(PythonError::Empty),
            Some(p) if p.components().count() == 1 && !p.is_absolute() => {
                on_path(p).ok_or_else(|| PythonError::NotOnPath(p.to_path_buf()))?
            }
            Some(p) => std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()),
            None if Path::new(DEFAULT_PYTHON).exists() => PathBuf::from(DEFAULT_PYTHON),
            None => on_path(Path::new("python3")).ok_or(PythonError::NoneFound)?,
        })
    }

    /// What probing the interpreter at `path` would most likely find, read
    /// off the file system alone (its real file; the prefix above its
    /// `bin/`), version unknown: a harness can be started with it at once,
    /// and is kept only if its interpreter's own [`Facts`] agree
    /// ([`Python::same_files`]).
    pub fn guess(path: &Path) -> Option<Python> {
        let executable = std::fs::canonicalize(path).ok()?;
        let dir = executable.parent()?.to_path_buf();
        let mut roots = Vec::new();
        if dir.file_name() == Some(std::ffi::OsStr::new("bin")) {
            roots.extend(
                dir.parent()
                    .filter(|p| *p != Path::new("/"))
                    .map(Path::to_path_buf),
            );
        }
        if dir != Path::new("/") {
            roots.push(dir);
        }
        Some(Python {
            requested: path.to_path_buf(),
            executable,
            version: String::new(),
            roots,
        })
    }

    /// Whether `other` runs the same file with the same folders (what a
    /// harness's sandbox is built from), whatever either's version says.
    pub fn same_files(&self, other: &Python) -> bool {
        self.executable == other.executable && self.roots == other.roots
    }

    /// The interpreter `facts` describe (as the one at `path` found them),
    /// refused unless it is CPython 3.8 or newer.
    pub fn from_facts(path: &Path, facts: Facts) -> Result<Python, PythonError> {
        let version = facts
            .version
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".");
        let too_old = (facts.version.first(), facts.version.get(1))
            < (Some(&MIN_PYTHON.0), Some(&MIN_PYTHON.1));
        if facts.implementation != "CPython" || too_old {
            return Err(PythonError::Unsupported {
                path: path.to_path_buf(),
                implementation: facts.implementation,
                version,
            });
        }
        let executable = if facts.executable.as_os_str().is_empty() {
            path.to_path_buf()
        } else {
            facts.executable
        };
        let mut roots: Vec<PathBuf> = Vec::new();
        for root in facts
            .roots
            .into_iter()
            .filter(|r| !r.as_os_str().is_empty())
        {
            if root != Path::new("/") && !roots.contains(&root) {
                roots.push(root);
            }
        }
        Ok(Python {
            requested: path.to_path_buf(),
            executable,
            version,
            roots,
        })
    }

    /// `CPython 3.10.13`, as reports show it.
    pub fn label(&self) -> String {
        format!("CPython {}", self.version)
    }
}

/// The first `name` on PATH that is a file.
pub(super) fn on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a harness started ahead is built from must be what probing
    /// finds for the default interpreter, or every run settles the slow way.
    #[test]
    fn the_guess_for_the_default_interpreter_is_what_the_probe_finds() {
        let path = Python::path_of(None).unwrap();
        let probed = Python::find(None).unwrap();
        let guess = Python::guess(&path).unwrap();
        assert!(guess.same_files(&probed), "{guess:?} vs {probed:?}");
    }

    #[test]
    fn facts_of_another_shape_are_refused() {
        assert!(Facts::read(b"CPython\x003.11.2\x00/usr/bin/python3").is_none());
        assert!(Facts::read(b"CPython\x003.x.2\x00/e\x00/a\x00/b\x00/c\x00/d\x00/e").is_none());
        let facts = Facts::read(b"CPython\x003.7.2\x00/e\x00/a\x00/a\x00/a\x00/a\x00/").unwrap();
        assert!(matches!(
            Python::from_facts(Path::new("/p"), facts),
            Err(PythonError::Unsupported { .. })
        ));
        let facts = Facts::read(b"CPython\x003.9.1\x00/e\x00/a\x00/a\x00/b\x00/a\x00/").unwrap();
        let python = Python::from_facts(Path::new("/p"), facts).unwrap();
        assert_eq!(python.version, "3.9.1");
        assert_eq!(python.roots, [PathBuf::from("/a"), PathBuf::from("/b")]);
    }
}
