//! Python values in CPython's `marshal` format, version 2: byte for byte
//! what `marshal.dumps(value, 2)` writes (CPython's `Python/marshal.c`,
//! the same from 3.4 to 3.13). The harness builds each call's fresh
//! arguments with `marshal.loads` from these bytes, and tells whether a
//! call changed them by dumping them again and comparing: so the bytes
//! must be exactly CPython's, which the harness checks before any
//! submission runs. Version 2 writes no back-references, so a value's
//! bytes are the same wherever it stands (a list of them is their
//! concatenation after the list's head).

use super::{PyStr, PyValue};
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
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
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
    /// Valid, but it would build more than [`Limits`] allow: found before
    /// it is built.
    #[error("marshal value of more than {max} {what} once every back-reference is expanded")]
    TooLarge { what: &'static str, max: usize },
}

/// What a read may build, every back-reference counted as the whole value
/// it copies: checked as the bytes are read, before anything is built.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Levels of nesting.
    pub depth: usize,
    /// Values (a container, each of its items, a dict's keys too).
    pub nodes: usize,
    /// Bytes of the value's tagged JSON ([`Size::tagged_bytes`]).
    pub tagged_bytes: usize,
    /// Characters of one int's `$int` text (`-0x...`).
    pub int_text_chars: usize,
}

/// What a value builds, each back-reference counted in full.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    pub nodes: usize,
    /// The length of its tagged JSON text as `tagged::Tagged` writes it:
    /// exact, but for each int outside i64 of at most
    /// [`budget::DECIMAL_BITS`] bits, counted a digit short at most (its
    /// decimal digits are bounded from its width, never converted), and
    /// for a forged dict holding a key twice (counted twice).
    ///
    /// [`budget::DECIMAL_BITS`]: super::budget::DECIMAL_BITS
    pub tagged_bytes: usize,
}

/// The value `marshal.dumps` (any version: back-references included)
/// wrote in `bytes`, when it holds only None, bools, ints, floats, str,
/// tuples, lists and dicts, within `limits` once every back-reference is
/// expanded. Anything else, or bytes left over, is an error. The bytes are
/// measured first ([`measure`]: nothing is built past the limits), then
/// read, so the work is linear in the bytes and in what is built.
pub fn read(bytes: &[u8], limits: Limits) -> Result<PyValue, ReadError> {
    measure(bytes, limits)?.build(bytes)
}

/// What [`read`] would build of `bytes`, building nothing: linear in the
/// bytes (a back-reference's size is kept with what it names).
pub fn measure(bytes: &[u8], limits: Limits) -> Result<Measured, ReadError> {
    let mut r = Reader::new(bytes, limits, None);
    r.whole()?;
    let keep = r
        .refs
        .iter()
        .map(|s| s.as_ref().is_some_and(|s| s.referenced))
        .collect();
    Ok(Measured {
        size: r.built,
        limits,
        keep,
    })
}

/// Bytes [`measure`]d: what their value builds, and which of their flagged
/// values a back-reference names (only those are kept while building).
#[derive(Clone, Debug)]
pub struct Measured {
    pub size: Size,
    limits: Limits,
    keep: Vec<bool>,
}

impl Measured {
    /// The value of the bytes measured (the same bytes: anything else is
    /// an error, never a value past the limits).
    pub fn build(self, bytes: &[u8]) -> Result<PyValue, ReadError> {
        Reader::new(bytes, self.limits, Some(self.keep)).whole()
    }
}

/// marshal's FLAG_REF: the value is kept for later back-references.
const FLAG_REF: u8 = 0x80;

/// What a dict key needs known of a value.
#[derive(Clone, Copy)]
struct Kind {
    hashable: bool,
    /// Text a JSON object key carries as itself (no lone surrogate, no
    /// leading `$`).
    plain_key: bool,
}

const CONTAINER: Kind = Kind {
    hashable: false,
    plain_key: false,
};
const SCALAR: Kind = Kind {
    hashable: true,
    plain_key: false,
};

/// A value flagged FLAG_REF, once it is finished.
struct Slot {
    /// The value itself, kept only while building and only when a
    /// back-reference names it (so a chain of nested flagged containers
    /// costs no copy of each).
    value: Option<PyValue>,
    size: Size,
    kind: Kind,
    referenced: bool,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Values flagged FLAG_REF, in the order they began (None while a
    /// container is still being read).
    refs: Vec<Option<Slot>>,
    /// What the value read so far builds.
    built: Size,
    limits: Limits,
    /// Building: for each flagged value, whether a back-reference names
    /// it (from a [`measure`] of the same bytes). Measuring: `None`, and
    /// every value read stands as `None`.
    keep: Option<Vec<bool>>,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], limits: Limits, keep: Option<Vec<bool>>) -> Self {
        Reader {
            bytes,
            at: 0,
            refs: Vec::new(),
            built: Size::default(),
            limits,
            keep,
        }
    }

    fn building(&self) -> bool {
        self.keep.is_some()
    }

    fn whole(&mut self) -> Result<PyValue, ReadError> {
        let (v, _) = self.value(0)?;
        if self.at != self.bytes.len() {
            return Err(ReadError::Trailing);
        }
        Ok(v)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
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

    /// Counts what is about to be built, before it is.
    fn charge(&mut self, nodes: usize, tagged_bytes: usize) -> Result<(), ReadError> {
        let b = &mut self.built;
        b.nodes = b.nodes.saturating_add(nodes);
        b.tagged_bytes = b.tagged_bytes.saturating_add(tagged_bytes);
        if b.nodes > self.limits.nodes {
            return Err(ReadError::TooLarge {
                what: "nodes",
                max: self.limits.nodes,
            });
        }
        if b.tagged_bytes > self.limits.tagged_bytes {
            return Err(ReadError::TooLarge {
                what: "bytes of tagged JSON",
                max: self.limits.tagged_bytes,
            });
        }
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<(PyValue, Kind), ReadError> {
        if depth > self.limits.depth {
            return Err(ReadError::TooDeep(self.limits.depth));
        }
        let code = self.byte()?;
        let slot = match code & FLAG_REF != 0 {
            true => {
                self.refs.push(None);
                Some(self.refs.len() - 1)
            }
            false => None,
        };
        let before = self.built;
        let (v, kind) = match code & !FLAG_REF {
            b'r' => return self.reference(),
            b'N' => {
                self.charge(1, 4)?;
                (PyValue::None, SCALAR)
            }
            b'T' => {
                self.charge(1, 4)?;
                (PyValue::Bool(true), SCALAR)
            }
            b'F' => {
                self.charge(1, 5)?;
                (PyValue::Bool(false), SCALAR)
            }
            b'i' => {
                let i = self.i32()?;
                self.charge(1, decimal_len(u64::from(i.unsigned_abs()), i < 0))?;
                (PyValue::Int(BigInt::from(i)), SCALAR)
            }
            b'l' => (self.long()?, SCALAR),
            b'g' => {
                let b = self.take(8)?;
                let f = f64::from_le_bytes(b.try_into().expect("8 bytes"));
                self.charge(1, float_len(f))?;
                (PyValue::Float(f), SCALAR)
            }
            b'u' | b't' | b'a' | b'A' => {
                let n = self.len()?;
                let b = self.take(n)?;
                self.str(b)?
            }
            b'z' | b'Z' => {
                let n = usize::from(self.byte()?);
                let b = self.take(n)?;
                self.str(b)?
            }
            c @ (b'(' | b')' | b'[') => {
                let n = match c {
                    b')' => usize::from(self.byte()?),
                    _ => self.len()?,
                };
                let tuple = c != b'[';
                // `[]`, and `{"$tuple":` ... `}` around a tuple's.
                self.charge(1, if tuple { 13 } else { 2 })?;
                // Each item takes at least one byte: a forged count
                // reserves no more than what is left.
                let mut items = match self.building() {
                    true => Vec::with_capacity(n.min(self.bytes.len() - self.at)),
                    false => Vec::new(),
                };
                let mut hashable = true;
                for i in 0..n {
                    if i > 0 {
                        self.charge(0, 1)?;
                    }
                    let (item, kind) = self.value(depth + 1)?;
                    hashable &= kind.hashable;
                    if self.building() {
                        items.push(item);
                    }
                }
                match tuple {
                    true => (
                        PyValue::Tuple(items),
                        Kind {
                            hashable,
                            plain_key: false,
                        },
                    ),
                    false => (PyValue::List(items), CONTAINER),
                }
            }
            b'{' => {
                // `{}` (a `{"$dict":[...]}` counted once its keys are known).
                self.charge(1, 2)?;
                let mut pairs = Vec::new();
                let (mut n, mut plain) = (0usize, true);
                loop {
                    if self.bytes.get(self.at) == Some(&b'0') {
                        self.at += 1;
                        break;
                    }
                    // `,` before it, `:` after its key.
                    self.charge(0, usize::from(n > 0) + 1)?;
                    let (k, kind) = self.value(depth + 1)?;
                    if !kind.hashable {
                        return Err(ReadError::UnhashableKey);
                    }
                    plain &= kind.plain_key;
                    let (v, _) = self.value(depth + 1)?;
                    if self.building() {
                        pairs.push((k, v));
                    }
                    n += 1;
                }
                if !plain {
                    // `{"$dict":[` ... `]}`, `[k,v]` for `k:v`.
                    self.charge(0, 10usize.saturating_add(n.saturating_mul(2)))?;
                }
                // By key hash: linear in the keys, however many.
                (PyValue::Dict(pairs.into_iter().collect()), CONTAINER)
            }
            _ => return Err(ReadError::UnknownCode(code)),
        };
        if let Some(slot) = slot {
            let size = Size {
                nodes: self.built.nodes - before.nodes,
                tagged_bytes: self.built.tagged_bytes - before.tagged_bytes,
            };
            let keep = self
                .keep
                .as_ref()
                .is_some_and(|k| k.get(slot) == Some(&true));
            self.refs[slot] = Some(Slot {
                value: keep.then(|| v.clone()),
                size,
                kind,
                referenced: false,
            });
        }
        Ok((v, kind))
    }

    /// TYPE_REF: a copy of a finished flagged value, counted in full
    /// before it is made.
    fn reference(&mut self) -> Result<(PyValue, Kind), ReadError> {
        let i = self.i32()?;
        let slot = usize::try_from(i)
            .ok()
            .and_then(|i| self.refs.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or(ReadError::BadRef(i as u32))?;
        slot.referenced = true;
        let (size, kind) = (slot.size, slot.kind);
        self.charge(size.nodes, size.tagged_bytes)?;
        let slot = self.refs[i as usize].as_ref().expect("found above");
        let v = match (&slot.value, self.building()) {
            (Some(v), true) => v.clone(),
            (None, true) => return Err(ReadError::BadRef(i as u32)),
            (_, false) => PyValue::None,
        };
        Ok((v, kind))
    }

    /// Text (UTF-8 with lone surrogates), counted before it is built.
    fn str(&mut self, b: &[u8]) -> Result<(PyValue, Kind), ReadError> {
        let t = text_size(b)?;
        self.charge(1, t.tagged_bytes)?;
        let kind = Kind {
            hashable: true,
            plain_key: !t.surrogate && b.first() != Some(&b'$'),
        };
        match self.building() {
            true => Ok((PyValue::Str(text(b)?), kind)),
            false => Ok((PyValue::None, kind)),
        }
    }

    /// TYPE_LONG: a signed count of base 2^15 digits, then the digits,
    /// least significant first. Counted from its width, then built in
    /// linear time.
    fn long(&mut self) -> Result<PyValue, ReadError> {
        let n = self.i32()?;
        let digits = n.unsigned_abs() as usize;
        let raw = self.take(digits.checked_mul(2).ok_or(ReadError::Truncated)?)?;
        let digit = |i: usize| u16::from_le_bytes([raw[2 * i], raw[2 * i + 1]]);
        if (0..digits).any(|i| digit(i) > 0x7FFF) {
            return Err(ReadError::UnknownCode(b'l'));
        }
        let top = (0..digits).rev().find(|&i| digit(i) != 0);
        let bits = top.map_or(0, |i| {
            15 * i as u64 + u64::from(16 - digit(i).leading_zeros())
        });
        let negative = n < 0 && bits > 0;
        let sign = usize::from(negative);
        let text = if bits <= 64 {
            let mut m = 0u64;
            for i in (0..digits.min(5)).rev() {
                m = m << 15 | u64::from(digit(i));
            }
            // -2^63 is in i64 too; any other 64 bits are not.
            match bits <= 63 || (negative && m == 1 << 63) {
                true => decimal_len(m, negative),
                false => 11 + decimal_len(m, negative),
            }
        } else if bits <= super::budget::DECIMAL_BITS {
            // `{"$int":"..."}`, its digits at most one short.
            11 + sign + ((bits - 1) * 30_102 / 100_000 + 1) as usize
        } else {
            let chars = sign + 2 + bits.div_ceil(4) as usize;
            if chars > self.limits.int_text_chars {
                return Err(ReadError::TooLarge {
                    what: "characters of an int's text",
                    max: self.limits.int_text_chars,
                });
            }
            11 + chars
        };
        self.charge(1, text)?;
        if !self.building() {
            return Ok(PyValue::None);
        }
        // The digits' bits, 32 at a time, from the least significant.
        let mut words = Vec::with_capacity(digits * 15 / 32 + 1);
        let (mut acc, mut held) = (0u64, 0u32);
        for i in 0..digits {
            acc |= u64::from(digit(i)) << held;
            held += 15;
            if held >= 32 {
                words.push(acc as u32);
                acc >>= 32;
                held -= 32;
            }
        }
        words.push(acc as u32);
        let magnitude = num_bigint::BigUint::new(words);
        Ok(PyValue::Int(BigInt::from_biguint(
            if n < 0 { Sign::Minus } else { Sign::Plus },
            magnitude,
        )))
    }
}

/// The characters of `m` in decimal, with a `-` when `negative`.
fn decimal_len(m: u64, negative: bool) -> usize {
    let mut digits = 1;
    let mut rest = m / 10;
    while rest > 0 {
        digits += 1;
        rest /= 10;
    }
    digits + usize::from(negative)
}

/// The characters of a float's tagged JSON.
fn float_len(f: f64) -> usize {
    /// Counts what is written to it.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    if f.is_finite() {
        // As serde_json writes it (the tagged codec's writer).
        let mut count = Count(0);
        serde_json::to_writer(&mut count, &f).map_or(3, |()| count.0)
    } else if f.is_nan() || f > 0.0 {
        16 // {"$float":"nan"}, {"$float":"inf"}
    } else {
        17
    }
}

/// What a marshal text's tagged JSON takes.
struct TextSize {
    tagged_bytes: usize,
    surrogate: bool,
}

/// The tagged JSON of marshal text (UTF-8 with lone surrogates, see
/// [`text`]), measured without building it: a JSON string as serde_json
/// escapes it, or, with a lone surrogate, `{"$str":[code points]}`.
fn text_size(b: &[u8]) -> Result<TextSize, ReadError> {
    let (mut json, mut points, mut count) = (2usize, 11usize, 0usize);
    let mut surrogate = false;
    let mut i = 0;
    while i < b.len() {
        let (cp, n) = match b[i] {
            c @ 0x00..=0x7F => (u32::from(c), 1),
            _ => decode_one(b, i)?,
        };
        json += match cp {
            0x08 | 0x09 | 0x0A | 0x0C | 0x0D | 0x22 | 0x5C => 2,
            0..=0x1F => 6,
            _ => n,
        };
        surrogate |= (0xD800..=0xDFFF).contains(&cp);
        points += decimal_len(u64::from(cp), false) + usize::from(count > 0);
        count += 1;
        i += n;
    }
    Ok(TextSize {
        tagged_bytes: if surrogate { points } else { json },
        surrogate,
    })
}

/// The code point at `b[i]` (not ASCII) and its length.
fn decode_one(b: &[u8], i: usize) -> Result<(u32, usize), ReadError> {
    let c = b[i];
    let (n, min, init) = match c {
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
    Ok((cp, n))
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
        let (cp, n) = match b[i] {
            c @ 0x00..=0x7F => (u32::from(c), 1),
            _ => decode_one(b, i)?,
        };
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
    use crate::value::tagged::Tagged;
    use crate::value::PyDict;

    const LIMITS: Limits = Limits {
        depth: 100,
        nodes: 10_000,
        tagged_bytes: 1 << 30,
        int_text_chars: 100_000,
    };

    fn read_all(bytes: &[u8]) -> Result<PyValue, ReadError> {
        read(bytes, LIMITS)
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
        let too_large = ReadError::TooLarge {
            what: "nodes",
            max: 10_000,
        };
        assert_eq!(read_all(&v).err(), Some(too_large.clone()));
        assert_eq!(measure(&v, LIMITS).err(), Some(too_large));
    }

    fn tagged_len(v: &PyValue) -> usize {
        serde_json::to_string(&Tagged(v)).unwrap().len()
    }

    /// A measure is the length of the value's tagged JSON (an int outside
    /// i64 of at most 1024 bits at most a digit short), in version 2 bytes
    /// and in CPython's version 4 ones with back-references.
    #[test]
    fn a_measure_is_the_tagged_json_length() {
        let text = |cps: Vec<u32>| PyValue::Str(PyStr::from_code_points(cps));
        let mut odd_keys = PyDict::new();
        odd_keys.insert(PyValue::int(1), PyValue::str("one"));
        odd_keys.insert(PyValue::str("$k"), PyValue::Tuple(vec![]));
        let exact = vec![
            PyValue::None,
            PyValue::Bool(true),
            PyValue::Bool(false),
            PyValue::int(0),
            PyValue::int(-7),
            PyValue::int(i64::from(i32::MIN)),
            PyValue::int(i64::MAX),
            PyValue::int(i64::MIN),
            PyValue::Int(BigInt::from(u64::MAX)),
            PyValue::Int(-(BigInt::from(1) << 64u32)),
            PyValue::Int(BigInt::from(1) << 1024u32),
            PyValue::Int(-(BigInt::from(3).pow(5000u32))),
            PyValue::Float(0.1),
            PyValue::Float(-1e300),
            PyValue::Float(5e-324),
            PyValue::Float(2.0),
            PyValue::Float(f64::NAN),
            PyValue::Float(f64::INFINITY),
            PyValue::Float(f64::NEG_INFINITY),
            PyValue::str(""),
            PyValue::str("plain \" \\ \n\t\r\x08\x0c \x01\x1f\x7f é ☃ 😀"),
            text(vec![0x61, 0xD800, 0x1F600, 0xDFFF, 0x0A]),
            PyValue::List(vec![]),
            PyValue::Tuple(vec![]),
            PyValue::Tuple(vec![PyValue::int(1), PyValue::str("x")]),
            PyValue::dict_of(vec![]),
            PyValue::dict_of(vec![("a", PyValue::int(1)), ("b\"", PyValue::None)]),
            PyValue::Dict(odd_keys),
            PyValue::List(vec![
                PyValue::dict_of(vec![("k", PyValue::List(vec![PyValue::Float(1.5)]))]),
                PyValue::Tuple(vec![PyValue::Tuple(vec![])]),
            ]),
        ];
        for v in &exact {
            let bytes = to_bytes(v).unwrap();
            let size = measure(&bytes, LIMITS).unwrap().size;
            assert_eq!(size.tagged_bytes, tagged_len(v), "{v:?}");
        }
        // Decimal ints outside i64: their digits bounded from their width.
        for bits in [65u32, 100, 333, 1000, 1024] {
            for v in [BigInt::from(1) << (bits - 1), (BigInt::from(1) << bits) - 1] {
                let v = PyValue::Int(v);
                let measured = measure(&to_bytes(&v).unwrap(), LIMITS)
                    .unwrap()
                    .size
                    .tagged_bytes;
                let want = tagged_len(&v);
                assert!(
                    measured <= want && want <= measured + 1,
                    "{bits}: {measured} {want}"
                );
            }
        }
        // Version 4: `{'a': [x, x], 'b': 'a', 'c': (1,)}` for `x = [7]`.
        let bytes = b"{\xda\x01a[\x02\x00\x00\x00\xdb\x01\x00\x00\x00\xe9\x07\x00\x00\x00r\x01\x00\x00\x00\xda\x01br\x00\x00\x00\x00\xda\x01c\xa9\x01\xe9\x01\x00\x00\x000";
        let v = read_all(bytes).unwrap();
        let size = measure(bytes, LIMITS).unwrap().size;
        assert_eq!(size.tagged_bytes, tagged_len(&v));
        assert_eq!(size.nodes, 12);
    }

    /// One long text and back-references to it, 5 bytes each (a forged
    /// result of 105 KB stood for 750 MB): each counts the whole text, so
    /// the value is too large before anything is built, at once.
    #[test]
    fn a_reference_counts_what_it_copies() {
        let refs = 800_000u32;
        let mut v = b"[".to_vec();
        v.extend_from_slice(&(refs + 1).to_le_bytes());
        v.push(b'u' | FLAG_REF);
        v.extend_from_slice(&100_000u32.to_le_bytes());
        v.extend(std::iter::repeat_n(b'x', 100_000));
        for _ in 0..refs {
            v.extend_from_slice(b"r\x00\x00\x00\x00");
        }
        let limits = Limits {
            nodes: 1_000_000,
            tagged_bytes: 4 << 20,
            ..LIMITS
        };
        let too_large = ReadError::TooLarge {
            what: "bytes of tagged JSON",
            max: 4 << 20,
        };
        let started = std::time::Instant::now();
        assert_eq!(read(&v, limits).err(), Some(too_large.clone()));
        assert_eq!(measure(&v, limits).err(), Some(too_large));
        assert!(
            started.elapsed().as_secs_f64() < 2.0,
            "{:?}",
            started.elapsed()
        );
        // Within the limits, the copies are built.
        let few = [
            b"[\x03\x00\x00\x00\xf5\x02\x00\x00\x00hir\x00\x00\x00\x00r\x00\x00\x00\x00".as_slice(),
        ];
        let got = read_all(few[0]).unwrap();
        assert!(same(&got, &PyValue::List(vec![PyValue::str("hi"); 3])));
        assert_eq!(
            measure(few[0], LIMITS).unwrap().size.tagged_bytes,
            tagged_len(&got)
        );
    }

    /// A wide int is read in linear time (262,144 digits took 2 s), and
    /// one whose `$int` text would be over the limit is too large unread.
    #[test]
    fn wide_ints_read_in_linear_time_within_their_text() {
        let digits = |n: i32, d: &[u8; 2]| {
            let mut v = b"l".to_vec();
            v.extend_from_slice(&n.to_le_bytes());
            v.extend(std::iter::repeat_n(*d, n.unsigned_abs() as usize).flatten());
            v
        };
        let started = std::time::Instant::now();
        assert_eq!(
            read_all(&digits(262_144, b"\xff\x7f")).err(),
            Some(ReadError::TooLarge {
                what: "characters of an int's text",
                max: 100_000,
            })
        );
        // 26,000 digits of 15 bits: 97,500 hexadecimal digits.
        let v = read_all(&digits(-26_000, b"\xff\x7f")).unwrap();
        let want: BigInt = -((BigInt::from(1) << (26_000u32 * 15)) - 1u8);
        assert!(matches!(&v, PyValue::Int(i) if *i == want));
        assert!(
            started.elapsed().as_secs_f64() < 2.0,
            "{:?}",
            started.elapsed()
        );
        // A zero top digit (never written by CPython) is no digit.
        let padded = b"l\x02\x00\x00\x00\x05\x00\x00\x00";
        assert!(matches!(read_all(padded).unwrap(), PyValue::Int(i) if i == BigInt::from(5)));
        assert_eq!(measure(padded, LIMITS).unwrap().size.tagged_bytes, 1);
    }

    /// A dict of many keys is built by key hash (40,000 int keys took
    /// 6.6 s compared one with another).
    #[test]
    fn a_dict_of_many_keys_reads_in_linear_time() {
        let n = 40_000i32;
        let mut v = b"{".to_vec();
        for k in 0..n {
            v.push(b'i');
            v.extend_from_slice(&k.to_le_bytes());
            v.push(b'N');
        }
        // A key again: Python keeps the first key, the last value.
        v.extend_from_slice(b"i\x00\x00\x00\x00T0");
        let started = std::time::Instant::now();
        let PyValue::Dict(d) = read(
            &v,
            Limits {
                nodes: 100_000,
                ..LIMITS
            },
        )
        .unwrap() else {
            panic!("a dict")
        };
        assert!(
            started.elapsed().as_secs_f64() < 2.0,
            "{:?}",
            started.elapsed()
        );
        assert_eq!(d.len(), n as usize);
        assert!(matches!(d.get(&PyValue::int(0)), Some(PyValue::Bool(true))));
        assert!(matches!(
            d.get(&PyValue::int(i64::from(n - 1))),
            Some(PyValue::None)
        ));
    }
}
