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
