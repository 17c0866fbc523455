//! Byte-level stand-ins for `str::find(&str)`, `str::split(char)`, `split_once(char)`,
//! `str::trim`, `String::from_utf8_lossy` and an integer parser.
//!
//! The few places that look for a separator in a string do it with these plain byte loops
//! rather than the standard library's pattern searchers (`StrSearcher`/`TwoWaySearcher`,
//! `CharSearcher`, `Split`): each searcher is a generic instance of its own that the wasm
//! module would carry for one or two calls on short strings. The needles are ASCII, so a match
//! always starts and ends on a character boundary and slicing at it cannot panic.

/// The byte offset of the first `needle` in `text` (`str::find(needle)`).
pub(crate) fn find(text: &str, needle: &str) -> Option<usize> {
    text.as_bytes().windows(needle.len()).position(|window| window == needle.as_bytes())
}

/// The byte offset of the first ASCII `byte` in `text` (`str::find(char)`).
pub(crate) fn find_byte(text: &str, byte: u8) -> Option<usize> {
    text.bytes().position(|b| b == byte)
}

/// The text before the first ASCII `byte`, or all of it (`split(char).next().unwrap()`).
pub(crate) fn until(text: &str, byte: u8) -> &str {
    &text[..find_byte(text, byte).unwrap_or(text.len())]
}

/// `parts.concat()` for string slices, without `join_generic_copy` (the generic join the
/// standard library's `concat` and `join` share): the error messages and paths are built
/// with it.
pub(crate) fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|part| part.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `format!("{before}{n}{after}")` for an unsigned integer, through
/// [`crate::json::write::uint`]: the messages and paths that carry a number (limits, byte
/// offsets, indexes) are built with this, so the standard library's formatting machinery
/// (`fmt::write`, `Formatter::pad`, the integer `Display`) stays out of the wasm module.
pub(crate) fn number(before: &str, n: u64, after: &str) -> String {
    let mut out = String::with_capacity(before.len() + 20 + after.len());
    out.push_str(before);
    crate::json::write::uint(&mut out, n);
    out.push_str(after);
    out
}

/// `text.trim_end_matches(char::from(byte))` for an ASCII `byte`.
pub(crate) fn trim_end_byte(text: &str, byte: u8) -> &str {
    let mut end = text.len();
    while end > 0 && text.as_bytes()[end - 1] == byte {
        end -= 1;
    }
    &text[..end]
}

/// The length of the white space character `bytes` starts with, 0 when it starts with none.
/// White space is Unicode's (`char::is_whitespace`): the ASCII tab, line feed, vertical tab,
/// form feed, carriage return and space, and U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
/// U+2029, U+202F, U+205F and U+3000, matched by their UTF-8 bytes: no char decoding in both
/// directions and no table, as the standard library's `trim` has.
fn space_len(bytes: &[u8]) -> usize {
    match bytes {
        [b'\t'..=b'\r' | b' ', ..] => 1,
        [0xC2, 0x85 | 0xA0, ..] => 2,
        [0xE1, 0x9A, 0x80, ..]
        | [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..]
        | [0xE2, 0x81, 0x9F, ..]
        | [0xE3, 0x80, 0x80, ..] => 3,
        _ => 0,
    }
}

/// `str::trim_start`.
pub(crate) fn trim_start(text: &str) -> &str {
    let mut start = 0;
    loop {
        match space_len(&text.as_bytes()[start..]) {
            0 => return &text[start..],
            n => start += n,
        }
    }
}

/// `str::trim_end`. The last one, two or three bytes are a white space character when they
/// are one's whole encoding: `text` is UTF-8, so they then start at a character boundary.
pub(crate) fn trim_end(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    'strip: loop {
        for n in 1..=end.min(3) {
            if space_len(&bytes[end - n..end]) == n {
                end -= n;
                continue 'strip;
            }
        }
        return &text[..end];
    }
}

/// `str::trim` (white space as [`space_len`] has it).
pub(crate) fn trim(text: &str) -> &str {
    trim_end(trim_start(text))
}

/// `text` as an unsigned integer of at most `max`, read as the standard library's
/// `from_str_radix` reads one: an optional `+`, then one or more digits; `None` for anything
/// else or a larger value.
pub(crate) fn parse_uint(text: &[u8], radix: u32, max: u64) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?;
    u64::from_str_radix(text, radix).ok().filter(|&n| n <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXTS: &[&str] = &[
        "",
        "a",
        "```",
        "``",
        "````",
        "x```y```z",
        "é```ü",
        "日本```語",
        "a;b;c",
        ";",
        ";;a",
        "a;;",
        "ab;",
        "data:image/png;base64,AAAA",
        "~0~1",
        "json",
        "application/vnd.api+json",
        "ünïcödé\n",
        "\n\n",
    ];
    const NEEDLES: &[&str] = &["```", "json", ";", ",", "\n", "~1", "é"];

    #[test]
    fn find_is_str_find() {
        for text in TEXTS {
            for needle in NEEDLES {
                assert_eq!(find(text, needle), text.find(needle), "{text:?} {needle:?}");
            }
        }
    }

    #[test]
    fn find_byte_and_until_are_the_char_searches() {
        for text in TEXTS {
            for byte in [b';', b',', b'\n', b'/', b'a'] {
                let c = char::from(byte);
                assert_eq!(find_byte(text, byte), text.find(c), "{text:?} {c:?}");
                assert_eq!(until(text, byte), text.split(c).next().unwrap(), "{text:?} {c:?}");
            }
        }
    }

    #[test]
    fn concat_is_slice_concat() {
        for parts in [&[][..], &[""], &["a"], &["", "é", ""], &["a", "日本", "🎉", "b"], TEXTS] {
            assert_eq!(concat(parts), parts.concat(), "{parts:?}");
        }
    }

    #[test]
    fn number_is_the_format() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX - 1, u64::MAX] {
            assert_eq!(number("", n, ""), n.to_string());
            assert_eq!(number("data[", n, "].é"), format!("data[{n}].é"));
        }
    }

    #[test]
    fn the_integer_reader_is_str_parse() {
        let mut tokens: Vec<String> = [
            "",
            "+",
            "-",
            "0",
            "-0",
            "+0",
            "00",
            "007",
            "+-1",
            "-+1",
            "--1",
            "++1",
            "1+",
            " 1",
            "1 ",
            "1_0",
            "1.0",
            "1e3",
            "65535",
            "65536",
            "+65535",
            "ffff",
            "FFFF",
            "fFfF",
            "+fff",
            "-fff",
            "g",
            "dead",
            "DEAD",
            "12ab",
            "１",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999",
            "0000000000000000000000001",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 24) as usize;
            let alphabet = b"0123456789+-afAFxz";
            tokens.push(
                (0..len).map(|i| char::from(alphabet[((seed >> (i % 8 * 8)) as usize + i) % alphabet.len()])).collect(),
            );
        }
        for t in &tokens {
            let b = t.as_bytes();
            assert_eq!(parse_uint(b, 10, u64::MAX), t.parse::<u64>().ok(), "{t:?}");
            assert_eq!(parse_uint(b, 10, u16::MAX.into()), t.parse::<u16>().ok().map(u64::from), "{t:?}");
            assert_eq!(parse_uint(b, 16, u16::MAX.into()), u16::from_str_radix(t, 16).ok().map(u64::from), "{t:?}");
        }
    }

    #[test]
    fn trim_is_str_trim() {
        let mut texts: Vec<String> = TEXTS.iter().map(|t| t.to_string()).collect();
        // Every character alone and between others, white space or not.
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            if c.is_whitespace() || c < '\u{3100}' && u32::from(c) % 7 == 0 {
                texts.push(c.to_string());
                texts.push(format!("{c}{c}x {c}y{c}\u{a0}{c}"));
            }
        }
        texts.extend(
            ["\u{2000}\u{200b}\u{200a}", "\u{180e}a\u{180e}", "\u{3000}\u{3001}", " \u{1c}\u{1f} "].map(String::from),
        );
        for t in &texts {
            assert_eq!(trim_start(t), t.trim_start(), "{t:?}");
            assert_eq!(trim_end(t), t.trim_end(), "{t:?}");
            assert_eq!(trim(t), t.trim(), "{t:?}");
            for byte in [b'/', b'=', b'_', b' ', b'a'] {
                let c = char::from(byte);
                assert_eq!(trim_end_byte(t, byte), t.trim_end_matches(c), "{t:?} {c:?}");
                let t = format!("{t}{c}{c}");
                assert_eq!(trim_end_byte(&t, byte), t.trim_end_matches(c), "{t:?} {c:?}");
            }
        }
    }
}
