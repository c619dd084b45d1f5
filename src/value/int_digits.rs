//! CPython's limit on int <-> decimal text conversion
//! (`sys.int_info.default_max_str_digits`): the most decimal digits the
//! grader reads from text (case files, `$int`) or prints of one int. The
//! reader, tagged JSON, the reference core and failure texts all keep it.

use num_bigint::BigInt;

/// The most decimal digits of one int CPython converts to or from text.
pub const MAX_INT_DIGITS: usize = 4300;

/// Every int of at most this many bits has at most [`MAX_INT_DIGITS`]
/// decimal digits (2^14284 < 10^4300 < 2^14286).
pub const PRINTABLE_INT_BITS: u64 = 14_284;

/// Whether `i` has more than [`MAX_INT_DIGITS`] decimal digits (CPython's
/// `int.__repr__` refuses it), decided without converting it.
pub fn over_int_digits(i: &BigInt) -> bool {
    let bits = i.bits();
    if bits <= PRINTABLE_INT_BITS {
        return false;
    }
    if bits > PRINTABLE_INT_BITS + 1 {
        return true;
    }
    static LIMIT: std::sync::OnceLock<BigInt> = std::sync::OnceLock::new();
    let limit = LIMIT.get_or_init(|| num_traits::pow(BigInt::from(10), MAX_INT_DIGITS));
    i.magnitude() >= limit.magnitude()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digit_limit_is_cpythons() {
        let limit: BigInt = num_traits::pow(BigInt::from(10), MAX_INT_DIGITS);
        let below: BigInt = &limit - 1u8;
        for i in [
            below.clone(),
            -below.clone(),
            BigInt::from(1) << PRINTABLE_INT_BITS,
        ] {
            assert!(!over_int_digits(&i), "{} bits", i.bits());
        }
        for i in [limit.clone(), -limit.clone(), BigInt::from(1) << 14_286] {
            assert!(over_int_digits(&i), "{} bits", i.bits());
        }
        assert_eq!(
            (BigInt::from(1) << PRINTABLE_INT_BITS).to_string().len(),
            4300
        );
        assert_eq!(below.bits(), PRINTABLE_INT_BITS + 1);
    }
}
