//! A test-only AWS event-stream encoder, for the messages no recording shows: exceptions,
//! errors, every header value type, and lengths and CRCs that lie. Its CRC-32 is the
//! bit-at-a-time definition, independent of the decoder's table.

/// A header value of each of the format's ten types.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    True,
    False,
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Bytes(&'a [u8]),
    Str(&'a str),
    Timestamp(i64),
    Uuid([u8; 16]),
}

pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
        }
    }
    !crc
}

/// The header section for `headers`, in order.
pub fn headers(headers: &[(&str, Value<'_>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in headers {
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        let (kind, bytes): (u8, Vec<u8>) = match *value {
            Value::True => (0, vec![]),
            Value::False => (1, vec![]),
            Value::Byte(v) => (2, v.to_be_bytes().to_vec()),
            Value::Short(v) => (3, v.to_be_bytes().to_vec()),
            Value::Int(v) => (4, v.to_be_bytes().to_vec()),
            Value::Long(v) => (5, v.to_be_bytes().to_vec()),
            Value::Bytes(v) => (6, sized(v)),
            Value::Str(v) => (7, sized(v.as_bytes())),
            Value::Timestamp(v) => (8, v.to_be_bytes().to_vec()),
            Value::Uuid(v) => (9, v.to_vec()),
        };
        out.push(kind);
        out.extend_from_slice(&bytes);
    }
    out
}

fn sized(bytes: &[u8]) -> Vec<u8> {
    let mut out = (bytes.len() as u16).to_be_bytes().to_vec();
    out.extend_from_slice(bytes);
    out
}

/// A message of `header_bytes` and `payload` with honest lengths and CRCs.
pub fn message(header_bytes: &[u8], payload: &[u8]) -> Vec<u8> {
    let total = 16 + header_bytes.len() + payload.len();
    let mut body = header_bytes.to_vec();
    body.extend_from_slice(payload);
    with_lengths(total as u32, header_bytes.len() as u32, &body)
}

/// A message announcing `total` and `headers_len` whatever `body` holds, its prelude CRC and
/// message CRC computed over what is actually written: a length that lies.
pub fn with_lengths(total: u32, headers_len: u32, body: &[u8]) -> Vec<u8> {
    let mut out = total.to_be_bytes().to_vec();
    out.extend_from_slice(&headers_len.to_be_bytes());
    out.extend_from_slice(&crc32(&out).to_be_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&crc32(&out).to_be_bytes());
    out
}

/// An `event` message as Bedrock sends it.
pub fn event(event_type: &str, payload: &[u8]) -> Vec<u8> {
    named(":event-type", event_type, "event", payload)
}

/// An `exception` message: the exception's type and its JSON body.
pub fn exception(exception_type: &str, payload: &[u8]) -> Vec<u8> {
    named(":exception-type", exception_type, "exception", payload)
}

/// A JSON message named by `header`, its headers in Bedrock's order.
fn named(header: &str, name: &str, message_type: &str, payload: &[u8]) -> Vec<u8> {
    message(
        &headers(&[
            (header, Value::Str(name)),
            (":content-type", Value::Str("application/json")),
            (":message-type", Value::Str(message_type)),
        ]),
        payload,
    )
}

/// An `error` message: a code and a message in headers, no payload.
pub fn error(code: &str, text: &str) -> Vec<u8> {
    message(
        &headers(&[
            (":error-code", Value::Str(code)),
            (":error-message", Value::Str(text)),
            (":message-type", Value::Str("error")),
        ]),
        b"",
    )
}
