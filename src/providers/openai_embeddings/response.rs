//! An embeddings body (§8.2) → one vector, or a list of vectors. `embedding` is a list of
//! numbers, or (with `encoding_format: "base64"`) a base64 string of little-endian float32.

use crate::error::{Error, ErrorCode, Result};
use crate::json::{JsonResult, Kind, Reader};
use crate::model::ProcessResult;
use crate::process::errors::provider_error;
use crate::process::read_body;
use crate::providers::ErrorBody;

/// An embeddings body. A field of the wrong kind reads as absent rather than refusing the body
/// (`data` not a list: no embedding; an item not an object or an `embedding` neither a list nor
/// a string: that item has no embedding); a repeated key keeps its last value.
#[derive(Default)]
pub(crate) struct EmbeddingBody<'a> {
    data: Vec<Item>,
    pub(crate) error: Option<ErrorBody<'a>>,
}

struct Item {
    /// Where the item is in `data`, which the errors name.
    position: usize,
    /// `index`, or (none, or not a whole number) `u64::MAX`: last in the sort.
    index: u64,
    embedding: Option<Vector>,
}

/// A vector decoded from either encoding, or why it is not one (naming the element).
pub(crate) type Vector = std::result::Result<Vec<f64>, String>;

impl<'a> EmbeddingBody<'a> {
    /// Reads a body; an error when it is not JSON, or not an object.
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        let mut body = EmbeddingBody::default();
        read_body(text, &mut |r, key| {
            match key {
                b"data" => {
                    // A repeated `data` replaces the items.
                    body.data.clear();
                    r.array(|r| {
                        let item = Item::read(r, body.data.len())?;
                        body.data.push(item);
                        Ok(())
                    })?;
                }
                b"error" => body.error = ErrorBody::read_field(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(body)
    }
}

impl Item {
    /// The item at `position` in `data`; one that is not an object has no embedding.
    fn read(r: &mut Reader<'_>, position: usize) -> JsonResult<Item> {
        let mut item = Item { position, index: u64::MAX, embedding: None };
        r.object(|r, key| {
            match key {
                b"index" => item.index = r.index()?.unwrap_or(u64::MAX),
                b"embedding" => item.embedding = read_vector(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(item)
    }
}

/// A list of numbers or a base64 string; `None` (the value skipped) for anything else. An
/// element that is not a finite number makes the vector an error: one that is not a number, and
/// a literal beyond the double range (`1e400`), which JSON allows and a vector cannot hold.
pub(crate) fn read_vector(r: &mut Reader<'_>) -> JsonResult<Option<Vector>> {
    match r.peek()? {
        Kind::String => Ok(r.string()?.map(|text| decode_base64_f32(&text))),
        Kind::Array => {
            let (mut values, mut bad) = (Vec::new(), None);
            r.array(|r| {
                let at = values.len();
                if r.peek()? == Kind::Number {
                    let literal = r.raw()?;
                    // A JSON number literal always reads as an `f64`, infinite beyond its range.
                    let value = crate::json::float::parse(literal).unwrap_or(f64::NAN);
                    if !value.is_finite() {
                        bad.get_or_insert_with(|| format!("element {at} ({literal}) is not a finite number"));
                    }
                    values.push(value);
                } else {
                    // Left unread, and skipped; the place is kept so later elements are named right.
                    bad.get_or_insert_with(|| format!("element {at} is not a number"));
                    values.push(f64::NAN);
                }
                Ok(())
            })?;
            Ok(Some(bad.map_or(Ok(values), Err)))
        }
        // Left unread, and skipped.
        _ => Ok(None),
    }
}

impl EmbeddingBody<'_> {
    /// §8.2: exactly one item gives its vector, several give the list (in `index` order).
    ///
    /// An embedding value that is not a finite number (NaN or infinite float32 bits in base64,
    /// a list element beyond the double range or not a number) is `invalid_json` at
    /// `data[i].embedding`, its message naming the item and the element.
    pub(crate) fn result(self) -> Result<ProcessResult> {
        if let Some(error) = &self.error {
            return Err(provider_error(error));
        }
        let mut items = self.data;
        if items.is_empty() {
            return Err(Error::new(ErrorCode::EmptyResponse, "Empty embedding response: `data` holds no embedding"));
        }
        // The first bad item in the body's order, before the order changes.
        for item in &items {
            let why = match &item.embedding {
                Some(Ok(_)) => continue,
                Some(Err(why)) => format!("data[{}].embedding: {why}", item.position),
                None => format!("data[{}] has no `embedding`", item.position),
            };
            let path = format!("data[{}].embedding", item.position);
            return Err(Error::new(ErrorCode::InvalidJson, why).with_path(path));
        }
        // Servers answer in input order and say so in `index`; the sort is stable, so ties keep
        // the body's order.
        items.sort_by_key(|item| item.index);
        let mut vectors: Vec<Vec<f64>> = items.into_iter().filter_map(|item| item.embedding?.ok()).collect();
        if vectors.len() == 1 {
            return Ok(ProcessResult::Vector(vectors.pop().unwrap_or_default()));
        }
        Ok(ProcessResult::Vectors(vectors))
    }
}

/// Decodes standard or URL-safe base64 (padding optional) holding little-endian float32
/// values: each four bytes decoded make one value, in one pass. A value that is NaN or
/// infinite is an error naming its position.
pub(crate) fn decode_base64_f32(text: &str) -> Vector {
    let body = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(body.len() * 3 / 16);
    // `acc` holds the `bits` decoded bits not yet in a byte; `word` collects the bytes of one
    // float32, the first one lowest (little-endian).
    let (mut acc, mut bits, mut word, mut bytes) = (0u32, 0u32, 0u32, 0usize);
    for (i, &c) in body.iter().enumerate() {
        let v = crate::base64::sextet(c).ok_or_else(|| format!("the base64 text has an invalid character at {i}"))?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            word = (word >> 8) | ((acc >> bits) << 24);
            acc &= (1 << bits) - 1;
            bytes += 1;
            if bytes % 4 == 0 {
                let value = f32::from_bits(word);
                if !value.is_finite() {
                    let what = if value.is_nan() { "NaN" } else { "infinite" };
                    let at = out.len();
                    return Err(format!("element {at} (float32 bits {word:#010x}) is {what}, not a finite number"));
                }
                out.push(f64::from(value));
            }
        }
    }
    if bits >= 6 {
        return Err("the base64 text is truncated".to_owned());
    }
    if bytes % 4 != 0 {
        return Err(format!("the base64 text decodes to {bytes} bytes, not a whole number of float32"));
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
    fn bad_base64_is_an_error_not_a_panic() {
        for (text, why) in [
            ("AAC!", "the base64 text has an invalid character at 3"),
            ("AACA", "the base64 text decodes to 3 bytes, not a whole number of float32"),
            ("A", "the base64 text is truncated"),
            // 00 00 c0 7f: a quiet NaN; 00 00 80 ff: minus infinity.
            ("AACAPwAAwH8=", "element 1 (float32 bits 0x7fc00000) is NaN, not a finite number"),
            ("AACA/w==", "element 0 (float32 bits 0xff800000) is infinite, not a finite number"),
        ] {
            assert_eq!(decode_base64_f32(text).unwrap_err(), why, "{text}");
        }
    }
}
