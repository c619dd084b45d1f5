//! The one guard on JSON text from outside (a harness reply, a shipped
//! recording, a stored outcome): its nesting is measured before serde reads
//! it, so serde's own recursion limit (128, which a returned value may
//! exceed legitimately) can be off and no text can overflow the stack.
//! Every nesting limit is named here.

use serde::Deserialize;

/// JSON nesting of one returned value (the harness encodes 100 levels of
/// Python containers, a tuple taking two).
pub const MAX_VALUE_NESTING: usize = 1024;
/// JSON nesting of one outcome text: its object around a value of
/// [`MAX_VALUE_NESTING`] levels, and one level of slack.
pub const MAX_OUTCOME_NESTING: usize = MAX_VALUE_NESTING + 2;
/// JSON nesting of a whole recording file (its outcomes, their values).
pub const MAX_RECORDING_NESTING: usize = 512;
/// JSON nesting of the head of a harness reply (its output, its findings).
pub const MAX_REPLY_HEAD_NESTING: usize = 4096;

/// Why JSON text was not read.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    #[error("nested deeper than {limit} levels")]
    TooDeep { limit: usize },
    #[error(transparent)]
    Syntax(#[from] serde_json::Error),
}

/// Reads `T` from JSON text nested at most `max_nesting` levels, with
/// serde's recursion limit off (the nesting is bounded here instead).
pub fn from_slice<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    max_nesting: usize,
) -> Result<T, JsonError> {
    if nesting(bytes) > max_nesting {
        return Err(JsonError::TooDeep { limit: max_nesting });
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Deepest `[`/`{` nesting outside strings.
pub fn nesting(bytes: &[u8]) -> usize {
    json_shape(bytes).0
}

/// The depth of `[`/`{` nesting and the number of elements (one per
/// container and per comma, outside strings: at least one per value but
/// the first of each container) of JSON text. Read twice or three times
/// per value graded, so strings (most of a large value's text: a wide
/// int's hexadecimal, a long str) are skipped 8 bytes at a time.
pub fn json_shape(bytes: &[u8]) -> (usize, usize) {
    let (mut depth, mut max, mut elements) = (0usize, 0usize, 1usize);
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                i = string_end(bytes, i + 1);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
                elements += 1;
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' => elements += 1,
            _ => {}
        }
        i += 1;
    }
    (max, elements)
}

/// Just past the `"` that ends the JSON string whose text starts at `i`
/// (a `\` escapes the byte after it); the length when none does.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    loop {
        i = to_quote_or_backslash(bytes, i);
        match bytes.get(i) {
            None => return bytes.len(),
            Some(b'"') => return i + 1,
            Some(_) => i += 2,
        }
    }
}

/// The first `"` or `\` at or after `i` (the length when none is).
fn to_quote_or_backslash(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Non-zero when a byte of `w` is `b` (the classic zero-byte test).
    let holds = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGHS
    };
    while let Some(Ok(chunk)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) {
        let w = u64::from_le_bytes(chunk);
        if holds(w, b'"') | holds(w, b'\\') != 0 {
            break;
        }
        i += 8;
    }
    while bytes.get(i).is_some_and(|&b| b != b'"' && b != b'\\') {
        i += 1;
    }
    i.min(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_count_outside_strings() {
        assert_eq!(json_shape(b"[0,0,[1]]"), (2, 5));
        assert_eq!(json_shape(br#"["a,[b", "\",{"]"#), (1, 3));
    }

    /// The shape byte by byte, as a state machine: what [`json_shape`]
    /// must agree with.
    fn json_shape_bytewise(bytes: &[u8]) -> (usize, usize) {
        let (mut depth, mut max, mut elements) = (0usize, 0usize, 1usize);
        let (mut in_str, mut escaped) = (false, false);
        for &b in bytes {
            if in_str {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'[' | b'{' => {
                    depth += 1;
                    max = max.max(depth);
                    elements += 1;
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                b',' => elements += 1,
                _ => {}
            }
        }
        (max, elements)
    }

    #[test]
    fn shapes_skip_strings_as_the_bytewise_reading_does() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        let alphabet = b"[]{},\"\\ax0";
        for _ in 0..20_000 {
            let len = rng.gen_range(0..60);
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.gen_bool(0.5) {
                        b'a'
                    } else {
                        alphabet[rng.gen_range(0..alphabet.len())]
                    }
                })
                .collect();
            assert_eq!(
                json_shape(&text),
                json_shape_bytewise(&text),
                "{}",
                String::from_utf8_lossy(&text)
            );
        }
        let wide = format!(
            "[{{\"$int\": \"0x{}\"}}, \"a\\\"]\", [[1]]]",
            "f".repeat(75_000)
        );
        assert_eq!(json_shape(wide.as_bytes()), (3, 7));
        assert_eq!(
            json_shape(wide.as_bytes()),
            json_shape_bytewise(wide.as_bytes())
        );
    }
}
