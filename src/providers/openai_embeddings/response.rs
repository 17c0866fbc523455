//! An embeddings body (§8.2) → one vector, or a list of vectors. `embedding` is a list of
//! numbers, or (with `encoding_format: "base64"`) a base64 string of little-endian float32.

use crate::error::{Error, ErrorCode, Result};
use crate::json::key_index;
use crate::json::{JsonResult, Kind, Reader};
use crate::model::ProcessResult;
use crate::process::errors::provider_error;
use crate::process::read_body;
use crate::providers::ErrorBody;
use crate::text::number;

/// An embeddings body, read by hand with the crate's JSON reader. Where the serde derive this
/// replaces refused the whole body, a field of the wrong kind now reads as absent (`data` not a
/// list: no embedding; an item not an object or an `embedding` neither a list nor a string: that
/// item has no embedding) or, for a list element that is not a number, fails that vector alone;
/// a repeated key keeps its last value.
#[derive(Default)]
pub(crate) struct EmbeddingBody<'a> {
    data: Vec<Item>,
    pub(crate) error: Option<ErrorBody<'a>>,
}

#[derive(Default)]
struct Item {
    /// `index`, or (none, or not a whole number) `u64::MAX`: last in the sort.
    index: u64,
    embedding: Option<Vector>,
}

/// A vector, decoded from either encoding; `Err` keeps the reason it was bad.
struct Vector(std::result::Result<Vec<f64>, String>);

impl<'a> EmbeddingBody<'a> {
    /// Reads a body; an error when it is not JSON, or not an object.
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        let mut body = EmbeddingBody::default();
        read_body(text, &mut |r, key| {
            match key_index(key, "data error") {
                0 => {
                    // A repeated `data` replaces the items.
                    body.data.clear();
                    r.array(|r| {
                        body.data.push(Item::read(r)?);
                        Ok(())
                    })?;
                }
                1 => body.error = ErrorBody::read_field(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(body)
    }
}

impl Item {
    /// An item; one that is not an object has no embedding.
    fn read(r: &mut Reader<'_>) -> JsonResult<Item> {
        let mut item = Item { index: u64::MAX, embedding: None };
        r.object(|r, key| {
            match key_index(key, "index embedding") {
                0 => item.index = r.index()?.unwrap_or(u64::MAX),
                1 => item.embedding = Vector::read(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(item)
    }
}

impl Vector {
    /// A list of numbers or a base64 string; `None` (the value skipped) for anything else.
    fn read(r: &mut Reader<'_>) -> JsonResult<Option<Vector>> {
        match r.peek()? {
            Kind::String => Ok(r.string()?.map(|text| Vector(decode_base64_f32(&text)))),
            Kind::Array => {
                let (mut out, mut bad) = (Vec::new(), None);
                r.array(|r| {
                    let at = out.len();
                    let number = if r.peek()? == Kind::Number { crate::json::float::parse(r.raw()?) } else { None };
                    match number.filter(|x| x.is_finite()) {
                        Some(x) => out.push(x),
                        // An element that is not a number is left unread, and skipped.
                        None => _ = bad.get_or_insert(at),
                    }
                    Ok(())
                })?;
                Ok(Some(Vector(match bad {
                    Some(at) => Err(number("element ", at as u64, " of a list embedding is not a finite number")),
                    None => Ok(out),
                })))
            }
            // Left unread, and skipped.
            _ => Ok(None),
        }
    }
}

impl EmbeddingBody<'_> {
    /// §8.2: exactly one item gives its vector, several give the list (in `index` order).
    pub(crate) fn result(self) -> Result<ProcessResult> {
        if let Some(error) = &self.error {
            return Err(provider_error(error));
        }
        let mut items = self.data;
        if items.is_empty() {
            return Err(Error::new(ErrorCode::EmptyResponse, "Empty embedding response: `data` holds no embedding"));
        }
        // Servers answer in input order and say so in `index`; a stable sort keeps ties. A merge
        // sort: a body of 100,000 items in reverse order would be quadratic by insertion.
        crate::json::map::merge_sort(&mut items, |a, b| a.index <= b.index);
        let mut vectors = Vec::new();
        // Each vector is moved out of its item; the items are dropped once, at the end.
        for (i, item) in items.iter_mut().enumerate() {
            let why = match item.embedding.take() {
                Some(Vector(Ok(vector))) => {
                    vectors.push(vector);
                    continue;
                }
                Some(Vector(Err(why))) => why,
                None => number("data[", i as u64, "] has no `embedding`"),
            };
            return Err(Error::new(ErrorCode::InvalidJson, why).with_path(number("data[", i as u64, "].embedding")));
        }
        if vectors.len() == 1 {
            return Ok(ProcessResult::Vector(vectors.pop().unwrap_or_default()));
        }
        Ok(ProcessResult::Vectors(vectors))
    }
}

/// Decodes standard base64 (padding optional) holding little-endian float32 values: each four
/// bytes decoded make one value, in one pass.
pub(crate) fn decode_base64_f32(text: &str) -> std::result::Result<Vec<f64>, String> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' | b'-' => Some(62),
            b'/' | b'_' => Some(63),
            _ => None,
        }
    }
    let body = crate::text::trim_end_byte(text, b'=').as_bytes();
    let mut out = Vec::new();
    // `word` collects the bytes of one float32, the first one lowest (little-endian).
    let (mut acc, mut bits, mut word, mut bytes) = (0u32, 0u32, 0u32, 0u64);
    for (i, &c) in body.iter().enumerate() {
        let v = value(c).ok_or_else(|| number("a base64 embedding has an invalid character at ", i as u64, ""))?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            word = (word >> 8) | ((acc >> bits) << 24);
            acc &= (1 << bits) - 1;
            bytes += 1;
            if bytes % 4 == 0 {
                out.push(f64::from(f32::from_bits(word)));
            }
        }
    }
    if bits >= 6 {
        return Err("a base64 embedding is truncated".to_owned());
    }
    if bytes % 4 != 0 {
        return Err(number("a base64 embedding decodes to ", bytes, " bytes, not a whole number of float32"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_of_little_endian_float32_decodes_to_numbers() {
        // 1.0f32 = 00 00 80 3f, -2.5f32 = 00 00 20 c0
        assert_eq!(decode_base64_f32("AACAPwAAIMA=").unwrap(), vec![1.0, -2.5]);
        assert_eq!(decode_base64_f32("AACAPwAAIMA").unwrap(), vec![1.0, -2.5]);
    }

    #[test]
    fn a_body_is_read_by_the_json_reader_and_a_bad_element_fails_its_vector() {
        let body = r#"{"data":[{"index":1,"embedding":[3,4.5]},{"index":0,"embedding":"AACAPw=="}]}"#;
        let vectors = EmbeddingBody::read(body).unwrap().result().unwrap();
        assert_eq!(vectors, ProcessResult::Vectors(vec![vec![1.0], vec![3.0, 4.5]]));
        for bad in [r#"{"data":[{"embedding":[1,"x"]}]}"#, r#"{"data":[{"embedding":[1e400]}]}"#, r#"{"data":[7]}"#] {
            let err = EmbeddingBody::read(bad).unwrap().result().unwrap_err();
            assert_eq!((err.code, err.path.as_deref()), (ErrorCode::InvalidJson, Some("data[0].embedding")), "{bad}");
        }
        assert_eq!(EmbeddingBody::read("[1]").err().map(|e| e.what), Some("expected an object"));
    }

    #[test]
    fn bad_base64_is_an_error_not_a_panic() {
        assert!(decode_base64_f32("AAC!").is_err());
        assert!(decode_base64_f32("AACA").is_err()); // 3 bytes, not a float32
        assert!(decode_base64_f32("A").is_err());
    }
}
