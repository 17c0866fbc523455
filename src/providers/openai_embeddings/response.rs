//! An embeddings body (§8.2) → one vector, or a list of vectors. `embedding` is a list of
//! numbers, or (with `encoding_format: "base64"`) a base64 string of little-endian float32.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use crate::error::{Error, ErrorCode, Result};
use crate::model::ProcessResult;
use crate::process::errors::ErrorField;

#[derive(Deserialize)]
pub(crate) struct EmbeddingBody<'a> {
    #[serde(default)]
    data: Option<Vec<Item>>,
    #[serde(default, borrow)]
    pub(crate) error: ErrorField<'a>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    embedding: Option<Vector>,
}

/// A vector, decoded from either encoding; `Err` keeps the reason a base64 string was bad.
struct Vector(std::result::Result<Vec<f64>, String>);

impl<'de> Deserialize<'de> for Vector {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vector;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of numbers or a base64 string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(Vector(decode_base64_f32(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(x) = seq.next_element::<f64>()? {
                    out.push(x);
                }
                Ok(Vector(Ok(out)))
            }
        }
        deserializer.deserialize_any(V)
    }
}

impl EmbeddingBody<'_> {
    /// §8.2: exactly one item gives its vector, several give the list (in `index` order).
    pub(crate) fn result(self) -> Result<ProcessResult> {
        self.error.check()?;
        let mut items = self.data.unwrap_or_default();
        if items.is_empty() {
            return Err(Error::new(ErrorCode::EmptyResponse, "Empty embedding response: `data` holds no embedding"));
        }
        // Servers answer in input order and say so in `index`; a stable sort keeps ties.
        items.sort_by_key(|item| item.index.unwrap_or(u64::MAX));
        let mut vectors = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let vector = item.embedding.ok_or_else(|| {
                Error::new(ErrorCode::InvalidJson, format!("data[{i}] has no `embedding`"))
                    .with_path(format!("data[{i}].embedding"))
            })?;
            vectors.push(
                vector
                    .0
                    .map_err(|why| Error::new(ErrorCode::InvalidJson, why).with_path(format!("data[{i}].embedding")))?,
            );
        }
        if vectors.len() == 1 {
            return Ok(ProcessResult::Vector(vectors.remove(0)));
        }
        Ok(ProcessResult::Vectors(vectors))
    }
}

/// Decodes standard base64 (padding optional) holding little-endian float32 values.
pub(crate) fn decode_base64_f32(text: &str) -> std::result::Result<Vec<f64>, String> {
    let bytes = decode_base64(text)?;
    if bytes.len() % 4 != 0 {
        return Err(format!("a base64 embedding decodes to {} bytes, not a whole number of float32", bytes.len()));
    }
    Ok(bytes.chunks_exact(4).map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect())
}

fn decode_base64(text: &str) -> std::result::Result<Vec<u8>, String> {
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
    let body = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, &c) in body.iter().enumerate() {
        let v = value(c).ok_or_else(|| format!("a base64 embedding has an invalid character at {i}"))?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("a base64 embedding is truncated".to_owned());
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
        assert!(decode_base64_f32("AAC!").is_err());
        assert!(decode_base64_f32("AACA").is_err()); // 3 bytes, not a float32
        assert!(decode_base64_f32("A").is_err());
    }
}
