//! Python values in CPython's `marshal` format, version 2: byte for byte
//! what `marshal.dumps(value, 2)` writes (CPython's `Python/marshal.c`,
//! the same from 3.4 to 3.13). The harness builds each call's fresh
//! arguments with `marshal.loads` from these bytes, and tells whether a
//! call changed them by dumping them again and comparing: so the bytes
//! must be exactly CPython's, which the harness checks before any
//! submission runs. Version 2 writes no back-references, so a value's
//! bytes are the same wherever it stands (a list of them is their
//! concatenation after the list's head).

use super::{PyDict, PyStr, PyValue};
use num_bigint::{BigInt, Sign};
use num_traits::ToPrimitive;

/// A value that no case input holds, so has no bytes here.
#[derive(Debug, thiserror::Error)]
#[error("{0} is not a value a function is called with")]
pub struct NotMarshalled(&'static str);

/// Appends `v`'s bytes to `out`.
pub fn write(v: &PyValue, out: &mut Vec<u8>) -> Result<(), NotMarshalled> {
    match v {
        PyValue::None => out.push(b'N'),
        PyValue::Bool(true) => out.push(b'T'),
        PyValue::Bool(false) => out.push(b'F'),
        PyValue::Int(i) => write_int(i, out),
        PyValue::Float(f) => write_float(*f, out),
        PyValue::Str(s) => write_str(s, out),
        PyValue::List(items) => write_items(b'[', items, out)?,
        PyValue::Tuple(items) => write_items(b'(', items, out)?,
        PyValue::Dict(d) => {
            out.push(b'{');
            for (k, v) in d.iter() {
                write(k, out)?;
                write(v, out)?;
            }
            out.push(b'0'); // TYPE_NULL ends a dict
        }
        PyValue::Opaque { .. } => return Err(NotMarshalled("an opaque value")),
        PyValue::Match(_) => return Err(NotMarshalled("a matcher")),
    }
    Ok(())
}

/// A size or a TYPE_INT: 4 bytes, little-endian, signed.
fn write_i32(n: i32, out: &mut Vec<u8>) {
    out.extend_from_slice(&n.to_le_bytes());
}

/// A length as marshal writes it (W_SIZE). Values over 2^31 elements are
/// not case inputs (the corpus caps sizes far below).
fn write_len(n: usize, out: &mut Vec<u8>) {
    write_i32(i32::try_from(n).unwrap_or(i32::MAX), out);
}

fn write_items(kind: u8, items: &[PyValue], out: &mut Vec<u8>) -> Result<(), NotMarshalled> {
    out.push(kind);
    write_len(items.len(), out);
    for x in items {
        write(x, out)?;
    }
    Ok(())
}

/// TYPE_INT for what fits in 32 bits, else TYPE_LONG: the count of base
/// 2^15 digits (negative for a negative number), then the digits, least
/// significant first, as few as the magnitude needs.
fn write_int(i: &BigInt, out: &mut Vec<u8>) {
    if let Some(small) = i.to_i32() {
        out.push(b'i');
        write_i32(small, out);
        return;
    }
    out.push(b'l');
    let bytes = i.magnitude().to_bytes_le();
    let bits = i.magnitude().bits() as usize;
    let digits = bits.div_ceil(15);
    let count = i32::try_from(digits).unwrap_or(i32::MAX);
    write_i32(
        if i.sign() == Sign::Minus {
            -count
        } else {
            count
        },
        out,
    );
    // The magnitude's bits, 15 at a time, from the least significant.
    let (mut acc, mut held) = (0u32, 0u32);
    let mut bytes = bytes.iter();
    for _ in 0..digits {
        while held < 15 {
            acc |= u32::from(bytes.next().copied().unwrap_or(0)) << held;
            held += 8;
        }
        out.extend_from_slice(&((acc & 0x7FFF) as u16).to_le_bytes());
        acc >>= 15;
        held -= 15;
    }
}

/// TYPE_BINARY_FLOAT: the double's 8 bytes, little-endian. A NaN is
/// written as `float("nan")` is (the case's value was read as that).
fn write_float(f: f64, out: &mut Vec<u8>) {
    out.push(b'g');
    let f = if f.is_nan() { f64::NAN } else { f };
    out.extend_from_slice(&f.to_le_bytes());
}

/// TYPE_UNICODE: its length, then its UTF-8 with `surrogatepass` (each
/// code point on its own, a lone surrogate as its three bytes; two
/// surrogates in a row are two code points, never joined into one).
fn write_str(s: &PyStr, out: &mut Vec<u8>) {
    out.push(b'u');
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    for &cp in s.code_points() {
        match cp {
            0..=0x7F => out.push(cp as u8),
            0x80..=0x7FF => {
                out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8])
            }
            0x800..=0xFFFF => out.extend_from_slice(&[
                0xE0 | (cp >> 12) as u8,
                0x80 | (cp >> 6 & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
            ]),
            _ => out.extend_from_slice(&[
                0xF0 | (cp >> 18) as u8,
                0x80 | (cp >> 12 & 0x3F) as u8,
                0x80 | (cp >> 6 & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
            ]),
        }
    }
    let len = out.len() - at - 4;
    out[at..at + 4].copy_from_slice(&(i32::try_from(len).unwrap_or(i32::MAX)).to_le_bytes());
}

/// A `bytes` object (TYPE_STRING): its length, then the bytes.
pub fn write_bytes(b: &[u8], out: &mut Vec<u8>) {
    out.push(b's');
    write_len(b.len(), out);
    out.extend_from_slice(b);
}

/// The head of a tuple or list of `n` items, which follow it.
pub fn write_head(tuple: bool, n: usize, out: &mut Vec<u8>) {
    out.push(if tuple { b'(' } else { b'[' });
    write_len(n, out);
}

/// A `str` of Rust text (TYPE_UNICODE).
pub fn write_text(s: &str, out: &mut Vec<u8>) {
    out.push(b'u');
    write_len(s.len(), out);
    out.extend_from_slice(s.as_bytes());
}

/// `v`'s bytes.
pub fn to_bytes(v: &PyValue) -> Result<Vec<u8>, NotMarshalled> {
    let mut out = Vec::new();
    write(v, &mut out)?;
    Ok(out)
}

/// Why bytes are not a value [`read`] takes.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ReadError {
    #[error("marshal bytes end inside a value")]
    Truncated,
    #[error("marshal bytes go on after the value")]
    Trailing,
    #[error("marshal type code {0:#04x} is not a plain value's")]
    UnknownCode(u8),
    #[error("marshal text is not UTF-8 (with lone surrogates)")]
    BadText,
    #[error("a marshal back-reference to {0}, which is not a finished value")]
    BadRef(u32),
    #[error("an unhashable marshal dict key")]
    UnhashableKey,
    #[error("marshal value nested deeper than {0} levels")]
    TooDeep(usize),
    #[error("marshal value of more than {0} nodes")]
    TooLarge(usize),
}

/// The value `marshal.dumps` (any version: back-references included)
/// wrote in `bytes`, when it holds only None, bools, ints, floats, str,
/// tuples, lists and dicts; at most `max_depth` deep and `max_nodes`
/// nodes once every back-reference is expanded (a reference copies what
/// it stands for). Anything else, or bytes left over, is an error.
pub fn read(bytes: &[u8], max_depth: usize, max_nodes: usize) -> Result<PyValue, ReadError> {
    let mut r = Reader {
        bytes,
        at: 0,
        refs: Vec::new(),
        nodes: 0,
        max_depth,
        max_nodes,
    };
    let v = r.value(0)?;
    if r.at != bytes.len() {
        return Err(ReadError::Trailing);
    }
    Ok(v)
}

/// marshal's FLAG_REF: the value is kept for later back-references.
const FLAG_REF: u8 = 0x80;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Values flagged FLAG_REF, in the order they began (None while a
    /// container is still being read).
    refs: Vec<Option<PyValue>>,
    nodes: usize,
    max_depth: usize,
    max_nodes: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], ReadError> {
        let end = self.at.checked_add(n).ok_or(ReadError::Truncated)?;
        let got = self.bytes.get(self.at..end).ok_or(ReadError::Truncated)?;
        self.at = end;
        Ok(got)
    }

    fn byte(&mut self) -> Result<u8, ReadError> {
        Ok(self.take(1)?[0])
    }

    fn i32(&mut self) -> Result<i32, ReadError> {
        let b = self.take(4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A size (W_SIZE): never negative.
    fn len(&mut self) -> Result<usize, ReadError> {
        usize::try_from(self.i32()?).map_err(|_| ReadError::Truncated)
    }

    fn count(&mut self, n: usize) -> Result<(), ReadError> {
        self.nodes += n;
        if self.nodes > self.max_nodes {
            return Err(ReadError::TooLarge(self.max_nodes));
        }
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<PyValue, ReadError> {
        if depth > self.max_depth {
            return Err(ReadError::TooDeep(self.max_depth));
        }
        let code = self.byte()?;
        let flagged = code & FLAG_REF != 0;
        let slot = match flagged {
            true => {
                self.refs.push(None);
                Some(self.refs.len() - 1)
            }
            false => None,
        };
        let v = match code & !FLAG_REF {
            b'r' => {
                let i = self.i32()?;
                let v = usize::try_from(i)
                    .ok()
                    .and_then(|i| self.refs.get(i).cloned().flatten())
                    .ok_or(ReadError::BadRef(i as u32))?;
                self.count(nodes_in(&v))?;
                return Ok(v);
            }
            b'N' => PyValue::None,
            b'T' => PyValue::Bool(true),
            b'F' => PyValue::Bool(false),
            b'i' => PyValue::Int(BigInt::from(self.i32()?)),
            b'l' => PyValue::Int(self.long()?),
            b'g' => {
                let b = self.take(8)?;
                PyValue::Float(f64::from_le_bytes(b.try_into().expect("8 bytes")))
            }
            b'u' | b't' | b'a' | b'A' => {
                let n = self.len()?;
                PyValue::Str(text(self.take(n)?)?)
            }
            b'z' | b'Z' => {
                let n = usize::from(self.byte()?);
                PyValue::Str(text(self.take(n)?)?)
            }
            b'(' | b')' | b'[' => {
                let n = match code & !FLAG_REF {
                    b')' => usize::from(self.byte()?),
                    _ => self.len()?,
                };
                // Each item takes at least one byte: a forged count
                // reserves no more than what is left.
                let mut items = Vec::with_capacity(n.min(self.bytes.len() - self.at));
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                match code & !FLAG_REF {
                    b'[' => PyValue::List(items),
                    _ => PyValue::Tuple(items),
                }
            }
            b'{' => {
                let mut d = PyDict::new();
                loop {
                    if self.bytes.get(self.at) == Some(&b'0') {
                        self.at += 1;
                        break;
                    }
                    let k = self.value(depth + 1)?;
                    if !k.is_hashable() {
                        return Err(ReadError::UnhashableKey);
                    }
                    let v = self.value(depth + 1)?;
                    d.insert(k, v);
                }
                PyValue::Dict(d)
            }
            _ => return Err(ReadError::UnknownCode(code)),
        };
        self.count(1)?;
        if let Some(slot) = slot {
            self.refs[slot] = Some(v.clone());
        }
        Ok(v)
    }

    /// TYPE_LONG: a signed count of base 2^15 digits, then the digits,
    /// least significant first.
    fn long(&mut self) -> Result<BigInt, ReadError> {
        let n = self.i32()?;
        let digits = n.unsigned_abs() as usize;
        let raw = self.take(digits.checked_mul(2).ok_or(ReadError::Truncated)?)?;
        let mut magnitude = num_bigint::BigUint::default();
        for pair in raw.chunks_exact(2).rev() {
            let d = u16::from_le_bytes([pair[0], pair[1]]);
            if d > 0x7FFF {
                return Err(ReadError::UnknownCode(b'l'));
            }
            magnitude = (magnitude << 15u32) + num_bigint::BigUint::from(d);
        }
        Ok(BigInt::from_biguint(
            if n < 0 { Sign::Minus } else { Sign::Plus },
            magnitude,
        ))
    }
}

/// The nodes a copied value counts: itself and everything in it.
fn nodes_in(v: &PyValue) -> usize {
    match v {
        PyValue::List(items) | PyValue::Tuple(items) => {
            1 + items.iter().map(nodes_in).sum::<usize>()
        }
        PyValue::Dict(d) => {
            1 + d
                .iter()
                .map(|(k, v)| nodes_in(k) + nodes_in(v))
                .sum::<usize>()
        }
        _ => 1,
    }
}

/// UTF-8 as marshal writes a str (`surrogatepass`: a lone surrogate as
/// its three bytes, each code point on its own).
fn text(b: &[u8]) -> Result<PyStr, ReadError> {
    if let Ok(s) = std::str::from_utf8(b) {
        return Ok(PyStr::from_code_points(s.chars().map(u32::from).collect()));
    }
    let mut cps = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let (n, min, init) = match c {
            0x00..=0x7F => (1, 0, u32::from(c)),
            0xC2..=0xDF => (2, 0x80, u32::from(c & 0x1F)),
            0xE0..=0xEF => (3, 0x800, u32::from(c & 0x0F)),
            0xF0..=0xF4 => (4, 0x10000, u32::from(c & 0x07)),
            _ => return Err(ReadError::BadText),
        };
        let tail = b.get(i + 1..i + n).ok_or(ReadError::BadText)?;
        let mut cp = init;
        for &t in tail {
            if t & 0xC0 != 0x80 {
                return Err(ReadError::BadText);
            }
            cp = cp << 6 | u32::from(t & 0x3F);
        }
        if cp < min || cp > 0x10FFFF {
            return Err(ReadError::BadText);
        }
        cps.push(cp);
        i += n;
    }
    Ok(PyStr::from_code_points(cps))
}

#[cfg(test)]
mod tests {
    //! The reader takes what the writer writes, and CPython's version 4
    //! forms (back-references, short and interned text, small tuples);
    //! forged bytes are an error, never a panic or a huge value. What the
    //! harness's results read as, against CPython's own encoding, is
    //! `runner::harness`'s `a_marshalled_result_reads_as_the_general_checks_write_it`.
    use super::*;

    fn read_all(bytes: &[u8]) -> Result<PyValue, ReadError> {
        read(bytes, 100, 10_000)
    }

    fn same(a: &PyValue, b: &PyValue) -> bool {
        let text = |v| serde_json::to_string(&crate::value::tagged::Tagged(v)).unwrap();
        text(a) == text(b)
    }

    #[test]
    fn reads_what_it_writes() {
        let mut d = PyDict::new();
        d.insert(PyValue::int(1), PyValue::str("one"));
        d.insert(PyValue::str("$k"), PyValue::Tuple(vec![PyValue::None]));
        d.insert(
            PyValue::Tuple(vec![PyValue::Bool(true), PyValue::Float(-0.0)]),
            PyValue::List(vec![]),
        );
        let values = vec![
            PyValue::None,
            PyValue::Bool(false),
            PyValue::int(-(1 << 31)),
            PyValue::Int(BigInt::from(1) << 200u32),
            PyValue::Int(-(BigInt::from(3).pow(90u32))),
            PyValue::Float(f64::NAN),
            PyValue::Float(5e-324),
            PyValue::Str(PyStr::from_code_points(vec![
                0x61, 0xD800, 0x1F600, 0xDFFF, 0xE9,
            ])),
            PyValue::List(vec![PyValue::Dict(d), PyValue::Tuple(vec![])]),
        ];
        for v in values {
            let bytes = to_bytes(&v).unwrap();
            let got = read_all(&bytes).unwrap();
            assert!(same(&got, &v), "{v:?} read as {got:?}");
        }
    }

    /// `marshal.dumps({'a': [x, x], 'b': 'a', 'c': (1,)}, 4)` for `x =
    /// [7]`, as CPython 3.11 writes it: what is held elsewhere flagged (the
    /// list, 7, the interned keys, the constant tuple), the second `x` and
    /// the value 'a' back-references, short text and a small tuple.
    #[test]
    fn reads_version_4_back_references() {
        let bytes = b"{\xda\x01a[\x02\x00\x00\x00\xdb\x01\x00\x00\x00\xe9\x07\x00\x00\x00r\x01\x00\x00\x00\xda\x01br\x00\x00\x00\x00\xda\x01c\xa9\x01\xe9\x01\x00\x00\x000";
        let got = read_all(bytes).unwrap();
        let x = PyValue::List(vec![PyValue::int(7)]);
        let want = PyValue::dict_of(vec![
            ("a", PyValue::List(vec![x.clone(), x])),
            ("b", PyValue::str("a")),
            ("c", PyValue::Tuple(vec![PyValue::int(1)])),
        ]);
        assert!(same(&got, &want), "{got:?}");
    }

    #[test]
    fn forged_bytes_are_errors() {
        use ReadError::*;
        let cases: &[(&[u8], ReadError)] = &[
            (b"", Truncated),
            (b"[\x02\x00\x00\x00N", Truncated),
            (b"[\xff\xff\xff\x7fN", Truncated),
            (b"u\x05\x00\x00\x00ab", Truncated),
            (b"l\x02\x00\x00\x00\x01\x00", Truncated),
            (b"NN", Trailing),
            (b"<\x00\x00\x00\x00", UnknownCode(b'<')),
            (b"s\x01\x00\x00\x00x", UnknownCode(b's')),
            (b"c", UnknownCode(b'c')),
            (b"r\x00\x00\x00\x00", BadRef(0)),
            // A reference to the list it is in: a cycle.
            (b"\xdb\x01\x00\x00\x00r\x00\x00\x00\x00", BadRef(0)),
            (b"{[\x00\x00\x00\x00N0", UnhashableKey),
            (b"z\x02\xff\xfe", BadText),
            (b"z\x02\xed\xa0", BadText),
            (b"l\x01\x00\x00\x00\xff\xff", UnknownCode(b'l')),
        ];
        for (bytes, want) in cases {
            assert_eq!(read_all(bytes).as_ref().err(), Some(want), "{bytes:?}");
        }
        let deep: Vec<u8> = std::iter::repeat_n(*b")\x01", 101)
            .flatten()
            .chain(*b"N")
            .collect();
        assert_eq!(read_all(&deep).err(), Some(TooDeep(100)));
    }

    /// Each reference copies what it stands for, so a few bytes could
    /// stand for an exponential value: the nodes are counted as copied.
    #[test]
    fn references_cannot_blow_a_value_up() {
        // Built from the inside out: the innermost list holds None twice;
        // each list around it holds it and a reference to it. Lists are
        // numbered as they begin, the outermost first.
        let levels = 40u32;
        let mut v = b"\xdb\x02\x00\x00\x00NN".to_vec();
        for i in 1..levels {
            let mut outer = b"\xdb\x02\x00\x00\x00".to_vec();
            outer.extend_from_slice(&v);
            outer.push(b'r');
            outer.extend_from_slice(&(levels - i).to_le_bytes());
            v = outer;
        }
        assert_eq!(read_all(&v).err(), Some(ReadError::TooLarge(10_000)));
    }
}
