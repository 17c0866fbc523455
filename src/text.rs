//! Byte-level stand-ins for `str::find(&str)`, `str::split(char)` and `split_once(char)`.
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
}
