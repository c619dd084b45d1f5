//! Finding submissions under a path: folders holding `main.py` (run in the
//! sandbox) or a shipped `recording.json` (read, never run).

use std::path::{Path, PathBuf};

/// Why no submissions could be listed under a path.
#[derive(Debug, thiserror::Error)]
pub enum SubmissionError {
    /// Looking at the path (or a folder under it) failed.
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not a folder", .0.display())]
    NotAFolder(PathBuf),
}

/// One submission found under PATH.
#[derive(Clone, Debug)]
pub struct Submission {
    /// Folder name (relative path from the PATH root for nested folders,
    /// `/`-separated), each name spelled with escapes where it is not plain
    /// (`\\`, `\xff`, `\u{200b}`: see `docs/report-format.md`): unique,
    /// and two folders whose names would look alike get visibly different
    /// ids.
    pub id: String,
    pub dir: PathBuf,
    pub source: SubmissionSource,
}

/// Where a submission's outcomes come from.
#[derive(Clone, Debug)]
pub enum SubmissionSource {
    /// `main.py`: recorded by running it in the sandbox.
    MainPy(PathBuf),
    /// `recording.json` shipped in the folder (recorded elsewhere): read and validated, never run.
    Recording(PathBuf),
    /// A folder that looks like a submission but cannot be graded (its
    /// `main.py` is a link or a folder, it holds no `main.py`, it is a link
    /// itself): reported for this submission rather than silently left out
    /// of the gradebook. The text says why.
    Unusable(String),
}

/// What a folder submits, if anything: the first of `main.py` and
/// `recording.json` that exists, of any kind. `main.py` wins over a shipped
/// recording: code we run ourselves is more trustworthy than outcomes
/// recorded elsewhere. Only regular files are read (a link could point
/// anywhere on the machine); anything else makes the submission unusable.
///
/// A file that cannot even be looked at (its path is longer than the
/// system allows, its folder is not searchable) makes the submission
/// unusable too, saying why, when `say_unreadable`; otherwise it counts as
/// absent.
fn source_of(dir: &Path, say_unreadable: bool) -> Option<SubmissionSource> {
    for name in ["main.py", "recording.json"] {
        let path = dir.join(name);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if say_unreadable && e.kind() != std::io::ErrorKind::NotFound => {
                return Some(SubmissionSource::Unusable(unreadable(&path, &e)));
            }
            Err(_) => continue,
        };
        let ft = meta.file_type();
        if ft.is_file() {
            return Some(if name == "main.py" {
                SubmissionSource::MainPy(path)
            } else {
                SubmissionSource::Recording(path)
            });
        }
        let what = if ft.is_symlink() {
            "a symbolic link (links are not followed)"
        } else if ft.is_dir() {
            "a folder, not a file"
        } else {
            "not a regular file"
        };
        return Some(SubmissionSource::Unusable(format!(
            "{} is {what}",
            shown_path(&path)
        )));
    }
    None
}

/// Folders that never hold submissions: hidden ones (`.git`, `.autograder`),
/// Python's byte-code caches and the resource forks macOS puts in archives.
fn ignored(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with('.') || name == "__pycache__" || name == "__MACOSX"
}

/// Why a folder with no subfolders and no `main.py` is not gradable, naming
/// a few of the files it holds (often a misnamed `Main.py` or `solution.py`).
fn empty_leaf(dir: &Path) -> Option<String> {
    let (names, has_subfolder) = listing(dir)?;
    (!has_subfolder).then(|| no_source(dir, &names))
}

/// The visible entries of `dir` (folders with a trailing `/`), sorted, and
/// whether any of them is a folder that may hold submissions.
fn listing(dir: &Path) -> Option<(Vec<String>, bool)> {
    let mut names = Vec::new();
    let mut has_subfolder = false;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        // The entry's own type first: looking it up by path fails when the
        // path is longer than the system allows, and would make a folder
        // look like a file. A link counts as what it points to.
        let is_dir = match entry.file_type() {
            Ok(ft) if ft.is_symlink() => std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()),
            Ok(ft) => ft.is_dir(),
            Err(_) => false,
        };
        has_subfolder |= is_dir && !ignored(&name);
        let hidden = name.to_string_lossy().starts_with('.');
        if !(hidden || is_dir && ignored(&name)) {
            let slash = if is_dir { "/" } else { "" };
            names.push(format!("{}{slash}", name.to_string_lossy()));
        }
    }
    names.sort();
    Some((names, has_subfolder))
}

fn no_source(dir: &Path, names: &[String]) -> String {
    let why = if names.is_empty() {
        "an empty folder".to_string()
    } else {
        let shown = names.len().min(5);
        let more = if names.len() > shown { ", …" } else { "" };
        format!("it holds {}{more}", names[..shown].join(", "))
    };
    format!("{}: no main.py or recording.json ({why})", shown_path(dir))
}

/// PATH as one unusable submission, for when [`discover`] finds none there
/// and the only reader is the student (Gradescope shows `results.json`, not
/// the error stream): it says what PATH holds instead of a `main.py`.
pub fn nothing_found(path: &Path) -> Submission {
    let names = listing(path).map(|(n, _)| n).unwrap_or_default();
    Submission {
        id: single_id(path),
        dir: path.to_path_buf(),
        source: SubmissionSource::Unusable(no_source(path, &names)),
    }
}

/// PATH as one unusable submission, for when [`discover`] finds several
/// gradable folders there but the reader expects one (Gradescope: the
/// student uploaded `v1/main.py` and `v2/main.py`): it says what was found
/// and what to upload.
pub fn several_found(path: &Path, found: &[Submission]) -> Submission {
    let files: Vec<String> = found
        .iter()
        .filter_map(|s| match &s.source {
            SubmissionSource::MainPy(_) => Some(format!("{}/main.py", s.id)),
            SubmissionSource::Recording(_) => Some(format!("{}/recording.json", s.id)),
            SubmissionSource::Unusable(_) => None,
        })
        .collect();
    let shown = files.len().min(5);
    let more = if files.len() > shown { ", …" } else { "" };
    Submission {
        id: single_id(path),
        dir: path.to_path_buf(),
        source: SubmissionSource::Unusable(format!(
            "{}: {} folders hold a submission ({}{more}); upload exactly one main.py, \
             at the top of the upload or in one folder",
            shown_path(path),
            files.len(),
            files[..shown].join(", ")
        )),
    }
}

/// The id of a single submission given directly: its folder's name.
fn single_id(path: &Path) -> String {
    std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.file_name().map(name_text))
        .unwrap_or_else(|| "submission".to_string())
}

/// PATH is one submission (folder with main.py or recording.json) or a folder of them.
/// Walks with walkdir, never following symlinks; skips hidden folders (`.git`,
/// `.autograder`), `__pycache__` and `__MACOSX`; does not look inside a submission folder;
/// sorted by id. Folders that cannot be graded — a link to a folder, a
/// `main.py` that is not a regular file, a folder with neither subfolders nor
/// `main.py` — are listed as [`SubmissionSource::Unusable`] so the gradebook
/// says why instead of leaving the student out.
pub fn discover(path: &Path) -> Result<Vec<Submission>, SubmissionError> {
    let meta = std::fs::metadata(path).map_err(|source| SubmissionError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(SubmissionError::NotAFolder(path.to_path_buf()));
    }
    // PATH's own files counting as absent when they cannot be looked at:
    // an unreadable PATH is the run's error (below), not one submission's.
    if let Some(source) = source_of(path, false) {
        return Ok(vec![Submission {
            id: single_id(path),
            dir: path.to_path_buf(),
            source,
        }]);
    }
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(path)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(entry) => entry,
            // An unreadable folder inside PATH is that folder's problem only.
            Err(e) if e.depth() > 0 && e.path().is_some() => {
                let dir = e.path().unwrap_or(path).to_path_buf();
                // The reason whole, the path (which walkdir's message
                // holds too) shortened: a folder past the system's path
                // limit still says why it was not read.
                let why = match e.io_error() {
                    Some(io) => unreadable(&dir, io),
                    None => crate::text::cut_middle(&e.to_string(), 200, 400),
                };
                found.push(Submission {
                    id: id_of(path, &dir),
                    source: SubmissionSource::Unusable(why),
                    dir,
                });
                continue;
            }
            Err(e) => {
                return Err(SubmissionError::Io {
                    path: e.path().unwrap_or(path).to_path_buf(),
                    source: e.into(),
                })
            }
        };
        let ft = entry.file_type();
        let linked_dir = ft.is_symlink() && entry.path().is_dir();
        if !ft.is_dir() && !linked_dir {
            continue;
        }
        if ignored(entry.file_name()) {
            if ft.is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        let source = if linked_dir {
            Some(SubmissionSource::Unusable(format!(
                "{} is a symbolic link to a folder (links are not followed)",
                shown_path(entry.path())
            )))
        } else {
            source_of(entry.path(), true)
                .or_else(|| empty_leaf(entry.path()).map(SubmissionSource::Unusable))
        };
        if let Some(source) = source {
            found.push(Submission {
                id: id_of(path, entry.path()),
                dir: entry.path().to_path_buf(),
                source,
            });
            if ft.is_dir() {
                walk.skip_current_dir();
            }
        }
    }
    found.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(found)
}

/// A nested submission's id: its path from the PATH root, `/`-separated,
/// each folder name as [`name_text`] spells it (no spelling holds a `/`).
fn id_of(root: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    rel.components()
        .map(|c| name_text(c.as_os_str()))
        .collect::<Vec<_>>()
        .join("/")
}

/// A path as an error message shows it: whole up to 400 characters, else
/// its first and last 200 with the middle left out, so what the message
/// says after it is never cut away (a folder past the system's path limit
/// is thousands of characters deep).
fn shown_path(path: &Path) -> String {
    crate::text::cut_middle(&path.display().to_string(), 200, 200)
}

/// Why `path` could not be looked at, for an error row: its path
/// shortened ([`shown_path`]), the reason whole.
fn unreadable(path: &Path, e: &std::io::Error) -> String {
    let why = if e.raw_os_error() == Some(libc::ENAMETOOLONG) {
        format!(
            "its path is {} bytes long, more than the system takes ({e})",
            path.as_os_str().len()
        )
    } else {
        e.to_string()
    };
    format!("{}: cannot be read: {why}", shown_path(path))
}

/// A folder name as id text: the name itself when it is plain (`alice`,
/// `élève`, `日本`, `שלום`, `bob carol`), else with escapes, chosen so
/// that two different names never give the same text and a name never
/// looks like another one:
///
/// - a backslash is always written `\\`, so every other `\` in an id
///   starts an escape;
/// - a byte that is not UTF-8 is written `\xNN` (always 80 to ff);
/// - a character that is not shown as itself is written `\n`, `\t`,
///   `\xNN` below U+0080 (never a byte escape: those bytes are always
///   UTF-8), else `\u{NNNN}` (lowercase hex, Rust's spelling). These are
///   what [`text::hidden`](crate::text::hidden) covers (control
///   characters, line separators, bidirectional controls), [`invisible`]
///   characters (zero width spaces and joiners, word joiners, soft hyphens,
///   variation selectors, tag characters, Hangul fillers, every whitespace
///   but a space), unassigned and private-use code points, a space at the
///   start or end of a name, and a combining mark that does not follow a
///   character shown as itself (at the start of a name, say);
/// - in a name that could pass for another one, every character beyond
///   ASCII is escaped: one that mixes look-alike scripts (Latin, Greek,
///   Cyrillic, Armenian, Georgian, Cherokee, Coptic, Lisu, Tifinagh, Osage:
///   `clean-а` with a Cyrillic `а` is `clean-\u{430}`), one not in
///   Unicode's composed form NFC (a decomposed `élève`, which renders like
///   the composed one), or one holding a compatibility character (a
///   full-width `ａ`, a mathematical `𝐚`, the ligature `ﬁ`).
///
/// Reading it back is unambiguous (`\\`, `\n`, `\t`, `\xNN`, `\u{…}`
/// are the only escapes, and no escape holds a `/`), so ids are injective:
/// distinct folders, distinct ids.
fn name_text(name: &std::ffi::OsStr) -> String {
    let bytes = name.as_encoded_bytes();
    let chunks: Vec<_> = bytes.utf8_chunks().collect();
    let spell_out = could_pass_for_another(chunks.iter().map(|c| c.valid()));
    let plain = !spell_out
        && chunks.len() <= 1
        && chunks.iter().all(|c| c.invalid().is_empty())
        && !chunks.iter().any(|c| {
            let v = c.valid();
            v.starts_with(' ')
                || v.ends_with(' ')
                || v.chars().next().is_some_and(is_combining_mark)
                || v.chars().any(|c| c == '\\' || invisible(c))
        });
    if plain {
        return chunks
            .first()
            .map_or(String::new(), |c| c.valid().to_string());
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    // Whether the last thing written shows a character as itself (a
    // combining mark is kept only after one: it would sit on an escape).
    let mut after_literal = false;
    let n = chunks.len();
    for (i, chunk) in chunks.iter().enumerate() {
        let valid = chunk.valid();
        for (at, c) in valid.char_indices() {
            let first = i == 0 && at == 0;
            let last = i + 1 == n && chunk.invalid().is_empty() && at + c.len_utf8() == valid.len();
            if c == '\\' {
                out.push_str("\\\\");
                after_literal = false;
                continue;
            }
            let escape = invisible(c)
                || (spell_out && !c.is_ascii())
                || (c == ' ' && (first || last))
                || (is_combining_mark(c) && !after_literal);
            if !escape {
                out.push(c);
                after_literal = true;
                continue;
            }
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c if c.is_ascii() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            }
            after_literal = false;
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
            after_literal = false;
        }
    }
    out
}

fn is_combining_mark(c: char) -> bool {
    unicode_normalization::char::is_combining_mark(c)
}

/// Characters a name may hold that show as nothing, as a blank, or as
/// something else than themselves: on top of what reports never show
/// literally ([`text::hidden`](crate::text::hidden)), every
/// whitespace but a plain space, unassigned and private-use code points,
/// Unicode's default-ignorable code points (zero width space, joiners,
/// word joiner and invisible operators, soft hyphen, Mongolian vowel
/// separator and variation selectors, variation selectors, the BOM,
/// Hangul fillers, tags...), the other format characters (Arabic number
/// signs, the interlinear annotation marks...) and the Braille blank.
fn invisible(c: char) -> bool {
    if c.is_ascii() {
        return crate::text::hidden(c);
    }
    crate::text::hidden(c)
        || c.is_whitespace()
        || !unicode_normalization::char::is_public_assigned(c)
        || matches!(c,
            // Default_Ignorable_Code_Point.
            '\u{ad}'
            | '\u{34f}'
            | '\u{61c}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff0}'..='\u{fff8}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
            // The other format characters (General_Category=Cf).
            | '\u{600}'..='\u{605}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{fff9}'..='\u{fffb}'
            // Blank.
            | '\u{2800}')
}

/// Scripts whose letters look like Latin ones (or like each other's).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum LookAlike {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Georgian,
    Cherokee,
    Coptic,
    Lisu,
    Tifinagh,
    Osage,
}

/// Which of the [`LookAlike`] scripts `c` belongs to, if any (its block;
/// digits, punctuation, marks and other scripts are none).
fn look_alike_script(c: char) -> Option<LookAlike> {
    use LookAlike::*;
    Some(match c {
        'A'..='Z'
        | 'a'..='z'
        | '\u{aa}'
        | '\u{ba}'
        | '\u{c0}'..='\u{d6}'
        | '\u{d8}'..='\u{f6}'
        | '\u{f8}'..='\u{2af}'
        | '\u{1d00}'..='\u{1dbf}'
        | '\u{1e00}'..='\u{1eff}'
        | '\u{2c60}'..='\u{2c7f}'
        | '\u{a720}'..='\u{a7ff}'
        | '\u{ab30}'..='\u{ab6f}'
        | '\u{fb00}'..='\u{fb06}'
        | '\u{ff21}'..='\u{ff3a}'
        | '\u{ff41}'..='\u{ff5a}'
        | '\u{10780}'..='\u{107bf}'
        | '\u{1df00}'..='\u{1dfff}' => Latin,
        '\u{370}'..='\u{3ff}' | '\u{1f00}'..='\u{1fff}' => Greek,
        '\u{400}'..='\u{52f}'
        | '\u{1c80}'..='\u{1c8f}'
        | '\u{2de0}'..='\u{2dff}'
        | '\u{a640}'..='\u{a69f}'
        | '\u{1e030}'..='\u{1e08f}' => Cyrillic,
        '\u{531}'..='\u{58f}' | '\u{fb13}'..='\u{fb17}' => Armenian,
        '\u{10a0}'..='\u{10ff}' | '\u{1c90}'..='\u{1cbf}' | '\u{2d00}'..='\u{2d2f}' => Georgian,
        '\u{13a0}'..='\u{13ff}' | '\u{ab70}'..='\u{abbf}' => Cherokee,
        '\u{2c80}'..='\u{2cff}' => Coptic,
        '\u{a4d0}'..='\u{a4ff}' => Lisu,
        '\u{2d30}'..='\u{2d7f}' => Tifinagh,
        '\u{104b0}'..='\u{104ff}' => Osage,
        _ => return None,
    })
}

/// Whether a name (its UTF-8 pieces) could be read as another name: it
/// mixes [`LookAlike`] scripts, is not in NFC, or holds a compatibility
/// character (one NFKC would replace: full-width and mathematical letters,
/// ligatures, superscripts...).
fn could_pass_for_another<'a>(pieces: impl Iterator<Item = &'a str>) -> bool {
    let mut script = None;
    for piece in pieces {
        if piece.is_ascii() {
            if piece.bytes().any(|b| b.is_ascii_alphabetic()) {
                if script.is_some_and(|s| s != LookAlike::Latin) {
                    return true;
                }
                script = Some(LookAlike::Latin);
            }
            continue;
        }
        if !unicode_normalization::is_nfc(piece) {
            return true;
        }
        for c in piece.chars() {
            if compatibility(c) {
                return true;
            }
            if let Some(s) = look_alike_script(c) {
                if script.is_some_and(|t| t != s) {
                    return true;
                }
                script = Some(s);
            }
        }
    }
    false
}

/// Whether NFKC replaces `c` by something else than NFC does.
fn compatibility(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    let (mut canonical, mut compatible) = (String::new(), String::new());
    unicode_normalization::char::decompose_canonical(c, |d| canonical.push(d));
    unicode_normalization::char::decompose_compatible(c, |d| compatible.push(d));
    canonical != compatible
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    fn id(name: &[u8]) -> String {
        name_text(OsStr::from_bytes(name))
    }

    /// Reads an id's spelling back into the name's bytes: the escapes of
    /// [`name_text`], and nothing else, are understood.
    fn read_back(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            rest = &rest[c.len_utf8()..];
            if c != '\\' {
                out.extend(c.to_string().as_bytes());
                continue;
            }
            let e = rest.chars().next().expect("an escape after a backslash");
            rest = &rest[1..];
            match e {
                '\\' => out.push(b'\\'),
                'n' => out.push(b'\n'),
                't' => out.push(b'\t'),
                'x' => {
                    out.push(u8::from_str_radix(&rest[..2], 16).unwrap());
                    rest = &rest[2..];
                }
                'u' => {
                    let end = rest.find('}').unwrap();
                    let c = char::from_u32(u32::from_str_radix(&rest[1..end], 16).unwrap());
                    out.extend(c.unwrap().to_string().as_bytes());
                    rest = &rest[end + 1..];
                }
                other => panic!("unknown escape \\{other} in {text:?}"),
            }
        }
        out
    }

    #[test]
    fn plain_names_are_their_own_ids() {
        for name in [
            "alice",
            "bob carol",
            "élève",
            "日本",
            "שלום",
            "Петя-2",
            "naïve_o'brien.v2",
            "ελληνικά",
            "emoji-🙂",
            "a=b",
        ] {
            assert_eq!(id(name.as_bytes()), name);
        }
    }

    #[test]
    fn a_byte_and_its_spelling_get_different_ids() {
        assert_eq!(id(b"\xff"), "\\xff");
        assert_eq!(id(b"\\xff"), "\\\\xff");
        assert_eq!(id(b"bob\\carol"), "bob\\\\carol");
        assert_eq!(id(b"\\"), "\\\\");
        // A character below U+0080 is `\xNN` too, never a byte escape: such
        // bytes are always UTF-8.
        assert_eq!(
            id(b"new\nline\x1b[31m\x7f\t"),
            "new\\nline\\x1b[31m\\x7f\\t"
        );
        // C1 controls are characters, not bytes: `\u{9b}`, never `\x9b`.
        assert_eq!(id("a\u{9b}".as_bytes()), "a\\u{9b}");
        assert_eq!(id(b"a\x9b"), "a\\x9b");
        assert_eq!(id(b"\xc3"), "\\xc3");
        assert_eq!(id(b"\xc3\xa9"), "é");
    }

    #[test]
    fn invisible_characters_are_escaped() {
        for (name, shown) in [
            ("clean-a\u{200b}", "clean-a\\u{200b}"),
            ("clean\u{200d}-a", "clean\\u{200d}-a"),
            ("\u{feff}clean-a", "\\u{feff}clean-a"),
            ("clean\u{ad}-a", "clean\\u{ad}-a"),
            ("clean\u{2060}-a", "clean\\u{2060}-a"),
            ("clean\u{2063}-a", "clean\\u{2063}-a"),
            ("clean\u{180e}-a", "clean\\u{180e}-a"),
            ("clean-a\u{fe0f}", "clean-a\\u{fe0f}"),
            ("clean-a\u{e0061}", "clean-a\\u{e0061}"),
            ("clean-a\u{e0100}", "clean-a\\u{e0100}"),
            ("clean-a\u{3164}", "clean-a\\u{3164}"),
            ("clean-a\u{202e}", "clean-a\\u{202e}"),
            ("clean-a\u{2028}", "clean-a\\u{2028}"),
            ("clean\u{a0}a", "clean\\u{a0}a"),
            ("clean\u{3000}a", "clean\\u{3000}a"),
            ("clean\u{2009}a", "clean\\u{2009}a"),
            ("clean\u{85}a", "clean\\u{85}a"),
            ("clean\u{e000}a", "clean\\u{e000}a"),
            ("clean\u{10ffff}a", "clean\\u{10ffff}a"),
            ("clean-a ", "clean-a\\x20"),
            (" clean-a", "\\x20clean-a"),
            ("\u{301}clean", "\\u{301}clean"),
            ("\u{200b}\u{301}clean", "\\u{200b}\\u{301}clean"),
            ("\u{600}1", "\\u{600}1"),
            ("a\u{2800}b", "a\\u{2800}b"),
        ] {
            assert_eq!(id(name.as_bytes()), shown, "{name:?}");
        }
        // A combining mark on a letter shown as itself stays: an accent.
        assert_eq!(id("cafe\u{301}".as_bytes()), "cafe\\u{301}", "not NFC");
        assert_eq!(id("שָׁלוֹם".as_bytes()), "שָׁלוֹם");
    }

    #[test]
    fn names_that_could_pass_for_others_are_spelled_out() {
        // Latin with a Cyrillic `а` (U+0430), Greek `ο` (U+03BF).
        assert_eq!(id("clean-\u{430}".as_bytes()), "clean-\\u{430}");
        assert_eq!(id("g\u{3bf}od".as_bytes()), "g\\u{3bf}od");
        assert_eq!(id("Пeтя".as_bytes()), "\\u{41f}e\\u{442}\\u{44f}");
        assert_eq!(id("élèvе".as_bytes()), "\\u{e9}l\\u{e8}v\\u{435}");
        // Cyrillic with Greek.
        assert_eq!(id("\u{430}\u{3b1}".as_bytes()), "\\u{430}\\u{3b1}");
        // Decomposed: renders like the composed `élève`.
        assert_eq!(
            id("e\u{301}le\u{300}ve".as_bytes()),
            "e\\u{301}le\\u{300}ve"
        );
        // Compatibility characters: full-width, mathematical, ligatures.
        assert_eq!(id("clean-\u{ff41}".as_bytes()), "clean-\\u{ff41}");
        assert_eq!(id("clean-\u{1d41a}".as_bytes()), "clean-\\u{1d41a}");
        assert_eq!(id("\u{fb01}le".as_bytes()), "\\u{fb01}le");
        // Latin with Han, or Hebrew, is no look-alike.
        assert_eq!(id("日本-notes".as_bytes()), "日本-notes");
        assert_eq!(id("שלום-v2".as_bytes()), "שלום-v2");
        // Across a byte that is not UTF-8 too.
        assert_eq!(id(b"clean\xff-\xd0\xb0"), "clean\\xff-\\u{430}");
    }

    #[test]
    fn ids_read_back_to_the_name_so_no_two_names_share_one() {
        use rand::{Rng, SeedableRng};
        let mut names: Vec<Vec<u8>> = [
            &b"\xff"[..],
            b"\\xff",
            b"\\\\xff",
            b"bob\\carol",
            b"bob_carol",
            b"\\u{200b}",
            b"\\n",
            b"\n",
            b"a\\",
            b"",
        ]
        .iter()
        .map(|n| n.to_vec())
        .collect();
        let pieces: &[&[u8]] = &[
            b"a",
            b"\\",
            b"x",
            b"u",
            b"{",
            b"}",
            b"0",
            b"f",
            b" ",
            b"\n",
            b"\xff",
            b"\xc3",
            b"\xa9",
            "é".as_bytes(),
            "\u{301}".as_bytes(),
            "\u{200b}".as_bytes(),
            "\u{430}".as_bytes(),
            "\u{9b}".as_bytes(),
            "\u{ff41}".as_bytes(),
            b"\x1b",
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        for _ in 0..20_000 {
            let len = rng.gen_range(1..7);
            names.push(
                (0..len)
                    .flat_map(|_| pieces[rng.gen_range(0..pieces.len())].to_vec())
                    .collect(),
            );
        }
        let mut seen = std::collections::HashMap::new();
        for name in names {
            let shown = id(&name);
            assert_eq!(read_back(&shown), name, "{shown:?}");
            assert!(!shown.contains('/'));
            if let Some(other) = seen.insert(shown.clone(), name.clone()) {
                assert_eq!(other, name, "two names are {shown:?}");
            }
        }
    }

    fn make(dir: &Path, name: &[u8], file: &str) {
        let dir = dir.join(OsStr::from_bytes(name));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), "x").unwrap();
    }

    #[test]
    fn look_alike_folders_are_distinct_sorted_submissions() {
        let root = tempfile::tempdir().unwrap();
        for name in [
            &b"\xff"[..],
            b"\\xff",
            b"bob\\carol",
            b"bob_carol",
            b"clean-a",
            "clean-a\u{200b}".as_bytes(),
            "clean-\u{430}".as_bytes(),
        ] {
            make(root.path(), name, "main.py");
        }
        make(
            &root.path().join("sec"),
            "élève".as_bytes(),
            "recording.json",
        );
        let ids: Vec<String> = discover(root.path())
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(
            ids,
            [
                "\\\\xff",
                "\\xff",
                "bob\\\\carol",
                "bob_carol",
                "clean-\\u{430}",
                "clean-a",
                "clean-a\\u{200b}",
                "sec/élève",
            ]
        );
    }

    /// Makes `depth` nested folders of `name` under `dir` (through open
    /// folders: the whole path is longer than the system takes), a file
    /// `file` in the last; returns the path of the last.
    fn deep(dir: &Path, name: &str, depth: usize, file: &str) -> PathBuf {
        use rustix::fs::{openat, Mode, OFlags};
        let mut fd = openat(rustix::fs::CWD, dir, OFlags::DIRECTORY, Mode::empty()).unwrap();
        let mut path = dir.to_path_buf();
        for _ in 0..depth {
            rustix::fs::mkdirat(&fd, name, Mode::RWXU).unwrap();
            fd = openat(&fd, name, OFlags::DIRECTORY, Mode::empty()).unwrap();
            path.push(name);
        }
        let f = openat(
            &fd,
            file,
            OFlags::CREATE | OFlags::WRONLY,
            Mode::RUSR | Mode::WUSR,
        );
        drop(f.unwrap());
        path
    }

    #[test]
    fn a_folder_past_the_path_limit_says_why_with_its_path_shortened() {
        let root = tempfile::tempdir().unwrap();
        make(root.path(), b"alice", "main.py");
        std::fs::create_dir(root.path().join("alice-deep")).unwrap();
        deep(
            &root.path().join("alice-deep"),
            &"d".repeat(250),
            20,
            "main.py",
        );
        let found = discover(root.path()).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].id, "alice");
        let SubmissionSource::Unusable(why) = &found[1].source else {
            panic!("{:?}", found[1]);
        };
        assert!(found[1].id.starts_with("alice-deep/ddd"), "{}", found[1].id);
        let long = found[1].dir.join("main.py").as_os_str().len();
        assert!(long > 4095);
        assert!(
            why.ends_with(&format!(
                "/main.py: cannot be read: its path is {long} bytes long, more than \
                 the system takes (File name too long (os error 36))"
            )),
            "{why}"
        );
        assert!(why.contains(" characters left out) …"), "{why}");
        assert!(why.chars().count() < 600, "{why}");
    }

    #[test]
    fn a_main_py_past_the_path_limit_says_why() {
        // The folder's own path fits, its main.py's does not.
        let root = tempfile::tempdir().unwrap();
        let base = root.path().join("s");
        std::fs::create_dir(&base).unwrap();
        let prefix = base.as_os_str().len() + 1;
        // Folders of 250 then one sized to end 4 bytes short of the limit.
        let full = 4095 - 4;
        let mut n = (full - prefix) / 251;
        if (full - prefix) % 251 == 0 {
            n -= 1;
        }
        let last = full - prefix - n * 251;
        let dir = deep(&base, &"d".repeat(250), n, "x");
        let dir = deep(&dir, &"e".repeat(last), 1, "main.py");
        assert!(dir.as_os_str().len() <= 4095 && dir.as_os_str().len() + 8 > 4095);
        let found = discover(&base).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        let SubmissionSource::Unusable(why) = &found[0].source else {
            panic!("{:?}", found[0]);
        };
        assert!(
            why.ends_with(
                "/main.py: cannot be read: its path is 4099 bytes long, more than \
                 the system takes (File name too long (os error 36))"
            ),
            "{why}"
        );
    }
}
