//! A Python `str`: a sequence of Unicode code points that may include lone
//! surrogates (U+D800..U+DFFF), which a Rust `String` cannot hold.

mod casing;

use std::fmt;

/// A Python string as its code points. Indices and lengths are in code points,
/// exactly as Python's `len` and slicing count them.
#[derive(
    Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "Vec<u32>")]
pub struct PyStr(Vec<u32>);

/// A cache file's code points, checked as [`PyStr::from_code_points`] wants them.
impl TryFrom<Vec<u32>> for PyStr {
    type Error = &'static str;

    fn try_from(cps: Vec<u32>) -> Result<PyStr, &'static str> {
        if cps.iter().all(|&c| c <= 0x10FFFF) {
            Ok(PyStr(cps))
        } else {
            Err("a code point above U+10FFFF")
        }
    }
}

impl PyStr {
    /// An empty string.
    pub fn new() -> Self {
        PyStr(Vec::new())
    }

    /// Builds a string from raw code points; each must be at most U+10FFFF.
    pub fn from_code_points(cps: Vec<u32>) -> Self {
        debug_assert!(cps.iter().all(|&c| c <= 0x10FFFF));
        PyStr(cps)
    }

    /// The code points.
    pub fn code_points(&self) -> &[u32] {
        &self.0
    }

    /// Consumes the string into its code points.
    pub fn into_code_points(self) -> Vec<u32> {
        self.0
    }

    /// Python's `len(s)`.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `len(s) == 0`.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the string holds a lone surrogate (so `s.encode('utf-8')` fails).
    pub fn has_surrogate(&self) -> bool {
        self.0.iter().any(|&c| is_surrogate(c))
    }

    /// The length of `s.encode('utf-8')`, or `None` when that raises.
    pub fn utf8_len(&self) -> Option<usize> {
        let mut n = 0usize;
        for &c in &self.0 {
            n += match c {
                0..=0x7F => 1,
                0x80..=0x7FF => 2,
                0xD800..=0xDFFF => return None,
                0x800..=0xFFFF => 3,
                _ => 4,
            };
        }
        Some(n)
    }

    /// The string as Rust UTF-8, or `None` when it holds a lone surrogate.
    pub fn to_rust_string(&self) -> Option<String> {
        self.0.iter().map(|&c| char::from_u32(c)).collect()
    }

    /// The string as Rust UTF-8 with lone surrogates replaced by U+FFFD
    /// (for display only; never for comparison).
    pub fn to_string_lossy(&self) -> String {
        self.0
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
            .collect()
    }

    /// Python's `s[start:end]` for `0 <= start <= end <= len(s)`.
    pub fn slice(&self, start: usize, end: usize) -> PyStr {
        PyStr(self.0[start..end].to_vec())
    }

    /// Python's `s + t`.
    pub fn concat(&self, other: &PyStr) -> PyStr {
        let mut v = Vec::with_capacity(self.0.len() + other.0.len());
        v.extend_from_slice(&self.0);
        v.extend_from_slice(&other.0);
        PyStr(v)
    }

    /// Python's `s * n` (n <= 0 gives the empty string).
    pub fn repeat(&self, n: usize) -> PyStr {
        PyStr(self.0.repeat(n))
    }

    /// Whether the string equals the given Rust text.
    pub fn eq_str(&self, s: &str) -> bool {
        self.0.len() == s.chars().count()
            && self.0.iter().zip(s.chars()).all(|(&a, b)| a == b as u32)
    }

    /// Python's `s.lower()`: the full Unicode mapping of CPython 3.11
    /// (`'İ'.lower()` is two code points), with its final-sigma rule
    /// (`'ΟΔΟΣ'.lower()` is `'οδος'`, ending in U+03C2). Lone surrogates stay.
    pub fn lower(&self) -> PyStr {
        let mut out = Vec::with_capacity(self.0.len());
        for (i, &c) in self.0.iter().enumerate() {
            if c == 0x3A3 {
                out.push(if final_sigma(&self.0, i) {
                    0x3C2
                } else {
                    0x3C3
                });
                continue;
            }
            match casing::LOWER.binary_search_by_key(&c, |&(cp, _, _)| cp) {
                Ok(k) => {
                    let (_, first, second) = casing::LOWER[k];
                    out.push(first);
                    if second != 0 {
                        out.push(second);
                    }
                }
                Err(_) => out.push(c),
            }
        }
        PyStr(out)
    }

    /// Python's `s.strip()` with no argument: removes, at both ends, the code
    /// points for which `str.isspace()` is true (not Rust's `trim()`, which
    /// keeps U+001C..U+001F).
    pub fn strip(&self) -> PyStr {
        let start = self.0.iter().position(|&c| !is_space(c));
        let Some(start) = start else {
            return PyStr::new();
        };
        let end = self.0.iter().rposition(|&c| !is_space(c)).unwrap_or(start);
        PyStr(self.0[start..=end].to_vec())
    }

    /// Python's `s.startswith(prefix)`.
    pub fn starts_with(&self, prefix: &PyStr) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// Python's `needle in s` (a substring test; `'' in s` is true).
    pub fn contains(&self, needle: &PyStr) -> bool {
        needle.0.is_empty() || self.0.windows(needle.0.len()).any(|w| w == needle.0)
    }

    /// Python's `s[:n]` for any int `n` (negative counts from the end).
    pub fn head(&self, n: i64) -> PyStr {
        let len = self.0.len() as i64;
        let end = if n < 0 { (len + n).max(0) } else { n.min(len) };
        PyStr(self.0[..end as usize].to_vec())
    }

    /// Whether every code point is in the given ASCII set, as a regex
    /// character class `[...]` with ASCII semantics would test it.
    pub fn all_ascii_in(&self, allowed: impl Fn(u8) -> bool) -> bool {
        self.0.iter().all(|&c| c < 0x80 && allowed(c as u8))
    }
}

/// Python's `str.isspace()` for one code point (CPython 3.11, Unicode
/// 14.0.0): the 29 code points `str.strip()` removes, U+001C..U+001F included.
pub fn is_space(cp: u32) -> bool {
    casing::WHITESPACE.binary_search(&cp).is_ok()
}

fn in_ranges(ranges: &[(u32, u32)], cp: u32) -> bool {
    ranges
        .binary_search_by(|&(first, last)| {
            if last < cp {
                std::cmp::Ordering::Less
            } else if first > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// U+03A3 at `i` lowers to final sigma U+03C2 when a cased character
/// precedes it (case-ignorable ones skipped) and none follows: CPython's
/// `handle_capital_sigma`.
fn final_sigma(cps: &[u32], i: usize) -> bool {
    let before = cps[..i]
        .iter()
        .rev()
        .find(|&&c| !in_ranges(casing::SIGMA_IGNORABLE, c));
    let cased = |c: &u32| in_ranges(casing::SIGMA_CASED, *c);
    if !before.is_some_and(cased) {
        return false;
    }
    let after = cps[i + 1..]
        .iter()
        .find(|&&c| !in_ranges(casing::SIGMA_IGNORABLE, c));
    !after.is_some_and(cased)
}

/// Whether a code point is a UTF-16 surrogate.
pub fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

impl From<&str> for PyStr {
    fn from(s: &str) -> Self {
        PyStr(s.chars().map(|c| c as u32).collect())
    }
}

impl From<String> for PyStr {
    fn from(s: String) -> Self {
        PyStr::from(s.as_str())
    }
}

impl fmt::Debug for PyStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PyStr({:?})", self.to_string_lossy())
    }
}
