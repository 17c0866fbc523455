//! `data:` URLs (RFC 2397) read for `inlineData`, whose `data` is base64: a URL marked
//! `;base64` carries it already, any other has its payload percent-decoded and encoded.

use std::borrow::Cow;

use crate::request::{percent_decode, read_data_url};

/// A `data:` URL's media type (empty when it names none) and payload as base64; `None` for a
/// value that is not a `data:` URL, `Some(Err(()))` for a payload with a bad `%` escape.
pub(crate) fn read(url: &str) -> Option<(&str, Result<Cow<'_, str>, ()>)> {
    let url = read_data_url(url)?;
    if url.base64 {
        return Some((url.media_type, Ok(Cow::Borrowed(url.data))));
    }
    let (bytes, escapes) = percent_decode(url.data);
    Some((url.media_type, if escapes { Ok(Cow::Owned(crate::base64::encode(&bytes))) } else { Err(()) }))
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
