//! What reading and showing one returned value may cost the grader.
//!
//! The sandbox bounds the student's time; these bound the grader's. A
//! recorded value is already capped in size (`recording::caps`: 4 MiB of
//! tagged JSON, 400,000 elements, 64 MiB a submission), and decoding and
//! comparing it is linear in that text. What is not linear is turning a
//! big int into decimal text and back (quadratic in num-bigint: 12 ms for
//! one 300,000-bit int, where reading its hexadecimal takes 0.2 ms), so:
//!
//! - `$int` text is read in decimal only up to [`MAX_INT_DIGITS`] digits
//!   (CPython's own limit), and only [`MAX_WIDE_DECIMAL_DIGITS`] digits of
//!   one value's ints over [`NARROW_DECIMAL_DIGITS`] digits (the harness
//!   writes any int over [`DECIMAL_BITS`] bits in hexadecimal,
//!   which reads in linear time): more makes the value
//!   `TaggedError::TooLarge`, and its case
//!   fails "returned a value too large to grade";
//! - a failure shows an int in decimal only up to [`MAX_INT_DIGITS`]
//!   digits, longer ones as `<int of N bits>` (CPython refuses to print
//!   them too, so no expected value ever holds one);
//! - a failure converts at most [`MAX_SHOWN_INT_DIGITS`] decimal digits of
//!   one value's ints; a value needing more shows every int outside i64 as
//!   `<int of N bits>`.
//!
//! Equality stays exact (comparing big ints is linear): a value within or
//! over these budgets passes exactly when it equals the expected one, and
//! only the text a failure shows is abridged, saying so
//! ([`Showing::Abridged`]).

use super::int_digits::{over_int_digits, MAX_INT_DIGITS};
use super::PyValue;
use num_bigint::BigInt;
use num_traits::ToPrimitive;

/// Decimal `$int` text of at most this many digits (every int of at most
/// 1,024 bits: 2^1024 has 309) reads in ~4 ns a digit; wider text costs
/// more a digit the wider it is (~11 ns at 4,300 digits, quadratic), so
/// the harness writes any wider int in hexadecimal (~1 ns a digit).
pub const NARROW_DECIMAL_DIGITS: usize = 309;

/// Tagged JSON writes an int in decimal only up to this many bits, wider
/// ones in hexadecimal: the harness (`DECIMAL_BITS` in `tagged.py`) and
/// `tagged::encode` alike.
pub const DECIMAL_BITS: u64 = 1024;

/// The decimal digits of one value's `$int` texts of more than
/// [`NARROW_DECIMAL_DIGITS`] digits, together: more makes the value
/// too large to grade. The harness never writes such text; a recording
/// made elsewhere may (CPython's repr), and no expected value of the
/// corpus holds more than 4,090 digits of ints in all.
pub const MAX_WIDE_DECIMAL_DIGITS: usize = 100_000;

/// The longest `$int` text, in characters: the harness's widest int
/// (300,000 bits) is 75,002 characters of hexadecimal with its sign.
pub const MAX_INT_TEXT_CHARS: usize = 100_000;

/// The decimal digits a failure may print of one value's ints outside
/// i64, together (printing 4,300 digits takes ~0.15 ms: 100,000 take a
/// few milliseconds, and a submission has at most 16 values of 4 MiB).
pub const MAX_SHOWN_INT_DIGITS: u64 = 100_000;

/// An upper bound on the decimal digits of `i` (at most one too many),
/// from its width alone: `floor(bits * log10(2)) + 1`.
pub fn decimal_digits_bound(i: &BigInt) -> u64 {
    // 30103/100000 is log10(2) rounded up: the bound stays a bound.
    i.bits() * 30_103 / 100_000 + 1
}

/// A lower bound on the decimal digits of `i` (at most one too few).
pub fn decimal_digits_floor(i: &BigInt) -> u64 {
    // 2^(bits-1) <= |i|, and 30102/100000 is log10(2) rounded down.
    (i.bits().saturating_sub(1) * 30_102 / 100_000 + 1).max(1)
}

/// How a failure may show a returned value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Showing {
    /// As CPython's repr.
    Full,
    /// With some ints as `<int of N bits>`; why, in words.
    Abridged { all_big_ints: bool, why: String },
}

/// How a failure shows `v`, from a walk that converts nothing.
pub fn showing(v: &PyValue) -> Showing {
    let mut digits = 0u64;
    let mut widest_over: Option<u64> = None;
    walk_ints(v, &mut |i| {
        if i.to_i64().is_some() {
            return;
        }
        if over_int_digits(i) {
            widest_over = widest_over.max(Some(i.bits()));
        } else {
            // A lower bound: "more than the budget" is then true.
            digits += decimal_digits_floor(i);
        }
    });
    if digits > MAX_SHOWN_INT_DIGITS {
        Showing::Abridged {
            all_big_ints: true,
            why: format!(
                "its ints would print as more than the {MAX_SHOWN_INT_DIGITS} digits a failure shows"
            ),
        }
    } else if let Some(bits) = widest_over {
        Showing::Abridged {
            all_big_ints: false,
            why: format!(
                "an int of {bits} bits, more than the {MAX_INT_DIGITS} digits Python prints"
            ),
        }
    } else {
        Showing::Full
    }
}

/// Calls `f` on every int in `v` (keys included).
fn walk_ints(v: &PyValue, f: &mut impl FnMut(&BigInt)) {
    match v {
        PyValue::Int(i) => f(i),
        PyValue::List(items) | PyValue::Tuple(items) => {
            for x in items {
                walk_ints(x, f);
            }
        }
        PyValue::Dict(d) => {
            for (k, x) in d.iter() {
                walk_ints(k, f);
                walk_ints(x, f);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_writes_decimal_as_far_as_tagged_json_does() {
        let harness = include_str!("../runner/harness/tagged.py");
        assert!(
            harness.contains(&format!("\nDECIMAL_BITS = {DECIMAL_BITS}\n")),
            "tagged.py's DECIMAL_BITS is budget::DECIMAL_BITS"
        );
        // And decimal text that wide is narrow.
        let widest = (BigInt::from(1) << DECIMAL_BITS) - 1u8;
        assert_eq!(widest.to_string().len(), NARROW_DECIMAL_DIGITS);
    }

    #[test]
    fn digit_bounds_hold() {
        let mut i = BigInt::from(1);
        for _ in 0..3000 {
            let digits = i.to_string().len() as u64;
            assert!(decimal_digits_floor(&i) <= digits, "{i}");
            assert!(decimal_digits_bound(&i) >= digits, "{i}");
            assert!(
                decimal_digits_bound(&i) - decimal_digits_floor(&i) <= 1,
                "{i}"
            );
            i = i * 3 + 1;
        }
    }

    #[test]
    fn what_a_failure_may_show() {
        let big = |bits: u64| PyValue::Int(BigInt::from(1) << bits);
        assert_eq!(showing(&PyValue::List(vec![big(100); 50])), Showing::Full);
        assert_eq!(
            showing(&PyValue::List(vec![big(14_000); 23])),
            Showing::Full
        );
        let Showing::Abridged { all_big_ints, why } =
            showing(&PyValue::List(vec![big(14_000); 24]))
        else {
            panic!("24 ints of 4215 digits are over the budget")
        };
        assert!(all_big_ints);
        assert!(why.contains("more than the 100000 digits"), "{why}");
        let Showing::Abridged { all_big_ints, why } =
            showing(&PyValue::dict_of(vec![("x", big(299_990))]))
        else {
            panic!("a 299,991-bit int is over CPython's limit")
        };
        assert!(!all_big_ints);
        assert_eq!(
            why,
            "an int of 299991 bits, more than the 4300 digits Python prints"
        );
        // Ints in i64 cost nothing to print, however many.
        assert_eq!(
            showing(&PyValue::List(vec![PyValue::int(i64::MIN); 400_000])),
            Showing::Full
        );
    }
}
