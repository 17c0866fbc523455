//! Base64 (RFC 4648), the form the wire formats give bytes in: Bedrock's blobs, `data:` URLs,
//! base64 embeddings. Written out, it is the standard alphabet with padding; read, the URL-safe
//! characters are taken too and padding is optional.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as standard, padded base64.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (i, &byte)| n | u32::from(byte) << (16 - 8 * i));
        for k in 0..4 {
            let sextet = (n >> (18 - 6 * k)) & 63;
            out.push(if k <= group.len() { char::from(ALPHABET[sextet as usize]) } else { '=' });
        }
    }
    out
}

/// Why a text is not base64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// A character outside the alphabet, at this byte position.
    Invalid(usize),
    /// The text stops inside a byte (one character too many).
    Truncated,
}

/// The six bits a base64 character stands for, standard or URL-safe.
pub(crate) fn sextet(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some(u32::from(c - b'A')),
        b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
        b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// The bytes of a base64 text, padding optional.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, DecodeError> {
    let body = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, &c) in body.iter().enumerate() {
        acc = (acc << 6) | sextet(c).ok_or(DecodeError::Invalid(i))?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err(DecodeError::Truncated);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_4648_vectors_encode_and_decode_back() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (text, encoded) in vectors {
            assert_eq!(encode(text.as_bytes()), encoded, "{text}");
            assert_eq!(decode(encoded).unwrap(), text.as_bytes(), "{encoded}");
            assert_eq!(decode(encoded.trim_end_matches('=')).unwrap(), text.as_bytes(), "{encoded} unpadded");
        }
        assert_eq!(encode(&[0xff, 0xef, 0x00, 0x7f]), "/+8Afw==");
        assert_eq!(decode("_-8Afw").unwrap(), [0xff, 0xef, 0x00, 0x7f], "URL-safe");
    }

    #[test]
    fn a_character_outside_the_alphabet_or_a_dangling_one_is_an_error() {
        assert_eq!(decode("Zm9v!"), Err(DecodeError::Invalid(4)));
        assert_eq!(decode("Zm 9v"), Err(DecodeError::Invalid(2)));
        assert_eq!(decode("Zm9vY"), Err(DecodeError::Truncated));
    }
}
