//! A Python `str`: a sequence of Unicode code points that may include lone
//! surrogates (U+D800..U+DFFF), which a Rust `String` cannot hold.

use std::fmt;

/// A Python string as its code points. Indices and lengths are in code points,
/// exactly as Python's `len` and slicing count them.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PyStr(Vec<u32>);

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

    /// Whether every code point is in the given ASCII set, as a regex
    /// character class `[...]` with ASCII semantics would test it.
    pub fn all_ascii_in(&self, allowed: impl Fn(u8) -> bool) -> bool {
        self.0.iter().all(|&c| c < 0x80 && allowed(c as u8))
    }
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
