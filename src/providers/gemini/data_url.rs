//! `data:` URLs (RFC 2397) read for `inlineData`, whose `data` is base64: a URL marked
//! `;base64` carries it already, any other has its payload percent-decoded and encoded.

use std::borrow::Cow;

/// A `data:` URL's media type (empty when it names none) and payload as base64; `None` for a
/// value that is not a `data:` URL, `Some(Err(()))` for a payload with a bad `%` escape.
pub(crate) fn read(url: &str) -> Option<(&str, Result<Cow<'_, str>, ()>)> {
    let (header, payload) = url.strip_prefix("data:")?.split_once(',')?;
    let mut params = header.split(';');
    let media_type = params.next().unwrap_or_default();
    if params.any(|param| param.eq_ignore_ascii_case("base64")) {
        return Some((media_type, Ok(Cow::Borrowed(payload))));
    }
    Some((media_type, percent_decode(payload).map(|bytes| Cow::Owned(crate::base64::encode(&bytes)))))
}

/// `%XX` escapes as their bytes, every other byte as it is; a `%` without two hex digits
/// after it is an error.
fn percent_decode(text: &str) -> Result<Vec<u8>, ()> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let digit = |at: usize| bytes.get(at).and_then(|&b| (b as char).to_digit(16)).ok_or(());
            out.push((digit(i + 1)? * 16 + digit(i + 2)?) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_url_gives_its_media_type_and_base64_payload() {
        let cases = [
            ("data:image/png;base64,iVBORw0KGgo=", "image/png", "iVBORw0KGgo="),
            ("data:text/plain;charset=utf-8;BASE64,aGk=", "text/plain", "aGk="),
            ("data:text/plain,hello%20world", "text/plain", "aGVsbG8gd29ybGQ="),
            ("data:text/plain;charset=utf-8,%C3%A9+", "text/plain", "w6kr"),
            ("data:,abcd", "", "YWJjZA=="),
        ];
        for (url, media_type, payload) in cases {
            let (read_type, read_payload) = read(url).unwrap();
            assert_eq!((read_type, read_payload.unwrap().as_ref()), (media_type, payload), "{url}");
        }
        assert_eq!(read("iVBORw0KGgo="), None);
    }

    #[test]
    fn a_bad_percent_escape_is_an_error() {
        for url in ["data:text/plain,100%", "data:text/plain,%4", "data:text/plain,%zz", "data:text/plain,%+1"] {
            assert_eq!(read(url).map(|(_, payload)| payload.is_err()), Some(true), "{url}");
        }
    }
}
