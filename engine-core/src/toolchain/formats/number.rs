//! Number syntax shared by the text formats: decimal, `0x` hex, optional sign.

/// Parses a signed integer written in decimal or as `0x…` hex (either case), with an
/// optional leading `+` or `-`. Surrounding whitespace is not accepted. Returns `None`
/// for anything else, including overflow of `i64`.
pub fn parse_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i64::from_str_radix(hex, 16).ok()?
    } else {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<i64>().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Parses a number as FreeSO reads `.evt` fields: `0x…` is hex, plain digits are decimal,
/// and a value that contains any of the letters a–f (either case) is read as hex even
/// without the prefix.
pub fn parse_int_lenient_hex(text: &str) -> Option<i64> {
    if let Some(value) = parse_int(text) {
        return Some(value);
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let magnitude = i64::from_str_radix(digits, 16).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// Converts a parsed value to the 32-bit pattern stored in HIT data: values from
/// `i32::MIN` to `u32::MAX` are accepted (negative ones wrap to their two's complement).
pub fn to_u32_bits(value: i64) -> Option<u32> {
    if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&value) {
        Some(value as u32)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_and_hex() {
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("-7"), Some(-7));
        assert_eq!(parse_int("+7"), Some(7));
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int("0XfF"), Some(255));
        assert_eq!(parse_int("-0x10"), Some(-16));
        for bad in [
            "",
            "-",
            "0x",
            "1a",
            "12 ",
            " 1",
            "0x1g",
            "99999999999999999999",
        ] {
            assert_eq!(parse_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn lenient_hex_reads_letters_as_hex() {
        assert_eq!(parse_int_lenient_hex("10"), Some(10));
        assert_eq!(parse_int_lenient_hex("1a"), Some(26));
        assert_eq!(parse_int_lenient_hex("7DBD9F3A"), Some(0x7DBD_9F3A));
        assert_eq!(parse_int_lenient_hex("xyz"), None);
    }

    #[test]
    fn u32_bits_wrap_negatives() {
        assert_eq!(to_u32_bits(-1), Some(u32::MAX));
        assert_eq!(to_u32_bits(i64::from(u32::MAX)), Some(u32::MAX));
        assert_eq!(to_u32_bits(i64::from(u32::MAX) + 1), None);
        assert_eq!(to_u32_bits(i64::from(i32::MIN) - 1), None);
    }
}
