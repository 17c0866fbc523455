//! Floating-point numbers to and from text, without the standard library's float parser and
//! formatter in the wasm module.
//!
//! `str::parse::<f64>` (its code and its table of powers of five) and serde_json's float
//! formatter (zmij and its table of powers of ten) would be a large share of the module, for
//! numbers that are rare on the wire (tool arguments, sampling options, logprobs, embeddings).
//! The JavaScript engine hosting the module already converts both ways correctly, so in wasm
//! the hard cases go to it:
//!
//! - [`parse`] reads the standard library's grammar itself. A number of at most 15 significant
//!   digits whose decimal exponent is within ±22 is converted exactly here (both the digits and
//!   the power of ten are exact `f64`s, so one correctly rounded operation gives the nearest
//!   `f64`). Every other number goes, rewritten as JSON, to the host: `JSON.parse` in wasm,
//!   `str::parse` natively. Both are correctly rounded, so the bits are the same everywhere.
//! - [`write`] takes the shortest digits that read back as the same `f64` from the host
//!   (`JSON.stringify` in wasm, serde_json's natively) and lays them out as serde_json does.
//!   Both choose the candidate closest to the value, and the even one of two equally close
//!   (the standard library's `{:e}` does not: it rounds such ties up), so this is serde_json's
//!   text.
//!
//! Tests check both against the standard library and serde_json natively on random bits and
//! random decimal texts, and the same digests again inside wasm (Node and Chromium).

/// The exact powers of ten as `f64`: `10^22` is the largest that `f64` holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Exponents beyond this (in either direction) are kept at it: no text can hold enough digits
/// to bring such a number back into range, so the value (zero or infinity) is the same.
const EXP_LIMIT: i64 = 1 << 40;

/// `text` read as `str::parse::<f64>` reads it: the same texts accepted (an optional sign, then
/// `inf`, `infinity` or `nan` in any case, or digits with an optional `.` and exponent), the
/// same bits returned; `None` where it refuses.
pub(crate) fn parse(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    let magnitude = match Decimal::read(rest) {
        Some(decimal) => decimal.value()?,
        None => special(rest)?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `inf`, `infinity` and `nan`, in any case.
fn special(text: &[u8]) -> Option<f64> {
    if text.eq_ignore_ascii_case(b"inf") || text.eq_ignore_ascii_case(b"infinity") {
        Some(f64::INFINITY)
    } else if text.eq_ignore_ascii_case(b"nan") {
        Some(f64::NAN)
    } else {
        None
    }
}

/// An unsigned decimal as written: its integer and fraction digits and its exponent.
struct Decimal<'a> {
    int: &'a [u8],
    frac: &'a [u8],
    exp: i64,
}

impl<'a> Decimal<'a> {
    /// `digits [. [digits]] [e [sign] digits]` or `. digits [e …]`; `None` for anything else.
    fn read(text: &'a [u8]) -> Option<Self> {
        let int_len = text.iter().take_while(|b| b.is_ascii_digit()).count();
        let (int, mut rest) = text.split_at(int_len);
        let mut frac: &[u8] = &[];
        if let [b'.', after @ ..] = rest {
            let len = after.iter().take_while(|b| b.is_ascii_digit()).count();
            (frac, rest) = after.split_at(len);
        }
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let mut exp: i64 = 0;
        if let [b'e' | b'E', after @ ..] = rest {
            let (negative, digits) = match after {
                [b'-', digits @ ..] => (true, digits),
                [b'+', digits @ ..] => (false, digits),
                digits => (false, digits),
            };
            if digits.is_empty() {
                return None;
            }
            for &b in digits {
                if !b.is_ascii_digit() {
                    return None;
                }
                exp = (exp * 10 + i64::from(b - b'0')).min(EXP_LIMIT);
            }
            if negative {
                exp = -exp;
            }
            rest = &[];
        }
        rest.is_empty().then_some(Decimal { int, frac, exp })
    }

    /// The nearest `f64`, correctly rounded.
    fn value(&self) -> Option<f64> {
        // The significant digits as an integer, and the power of ten that scales it.
        let (mut mantissa, mut digits, mut exp) = (0u64, 0u32, self.exp - self.frac.len() as i64);
        for &b in self.int.iter().chain(self.frac) {
            if mantissa == 0 && b == b'0' {
                continue;
            }
            digits += 1;
            if digits > 15 {
                return self.host();
            }
            mantissa = mantissa * 10 + u64::from(b - b'0');
        }
        if mantissa == 0 {
            return Some(0.0);
        }
        // Trailing zeros of the digits belong in the exponent: `1500e-2` is `15e0`.
        while mantissa % 10 == 0 {
            mantissa /= 10;
            exp += 1;
        }
        let value = mantissa as f64;
        match exp {
            0..=22 => Some(value * POW10[exp as usize]),
            -22..=-1 => Some(value / POW10[-exp as usize]),
            _ => self.host(),
        }
    }

    /// The host's correctly rounded reading of this decimal, written as JSON.
    fn host(&self) -> Option<f64> {
        let int = match self.int.iter().position(|&b| b != b'0') {
            Some(first) => &self.int[first..],
            None => b"0",
        };
        let mut json = String::with_capacity(int.len() + self.frac.len() + 24);
        push_ascii(&mut json, int);
        if !self.frac.is_empty() {
            json.push('.');
            push_ascii(&mut json, self.frac);
        }
        json.push('e');
        super::write::int(&mut json, self.exp);
        host_parse(&json)
    }
}

/// Appends `n` as serde_json writes an `f64`: the shortest digits that read back as `n`, in
/// plain notation when the first digit's power of ten is within -5..=15 (`0.00001`, `1.5`,
/// `1000000000000000.0`, always with a fraction), otherwise as `1.5e-7` or `1e+16`; `0.0` and
/// `-0.0`. `n` must be finite.
pub(crate) fn write(out: &mut String, n: f64) {
    if n.is_sign_negative() {
        out.push('-');
    }
    if n == 0.0 {
        out.push_str("0.0");
        return;
    }
    let text = host_shortest(n.abs());
    let (digits, point) = shortest_digits(&text);
    let digits = &digits[..];
    let len = digits.len() as i32;
    if (-5..=15).contains(&point) {
        if point >= len - 1 {
            push_ascii(out, digits);
            (len..=point).for_each(|_| out.push('0'));
            out.push_str(".0");
        } else if point >= 0 {
            push_ascii(out, &digits[..=point as usize]);
            out.push('.');
            push_ascii(out, &digits[point as usize + 1..]);
        } else {
            out.push_str("0.");
            (1..-point).for_each(|_| out.push('0'));
            push_ascii(out, digits);
        }
    } else {
        push_ascii(out, &digits[..1]);
        if len > 1 {
            out.push('.');
            push_ascii(out, &digits[1..]);
        }
        out.push_str(if point < 0 { "e-" } else { "e+" });
        super::write::uint(out, u64::from(point.unsigned_abs()));
    }
}

/// Appends ASCII bytes (digits) to a string.
fn push_ascii(out: &mut String, bytes: &[u8]) {
    out.extend(bytes.iter().map(|&b| char::from(b)));
}

/// The significant digits of a positive number written by the host (`123.45`, `0.00012`,
/// `1e+21`, `1.5e-7`), without leading or trailing zeros, and the power of ten of the first.
fn shortest_digits(text: &str) -> (Vec<u8>, i32) {
    let mut digits = Vec::with_capacity(17);
    let (mut point, mut fraction, mut exp, mut exp_sign, mut in_exp) = (-1i32, false, 0i32, 1, false);
    for b in text.bytes() {
        match b {
            b'0'..=b'9' if in_exp => exp = exp * 10 + i32::from(b - b'0'),
            // A leading zero: after the point it lowers the first digit's power.
            b'0' if digits.is_empty() => point -= i32::from(fraction),
            b'0'..=b'9' => {
                digits.push(b);
                point += i32::from(!fraction);
            }
            b'.' => fraction = true,
            b'e' | b'E' => in_exp = true,
            b'-' => exp_sign = -1,
            _ => {}
        }
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, point + exp_sign * exp)
}

/// The shortest round-trip text of a positive finite `n`, from the host.
#[cfg(target_arch = "wasm32")]
fn host_shortest(n: f64) -> String {
    crate::wasm::js::stringify_text(&wasm_bindgen::JsValue::from_f64(n)).unwrap_or_default()
}

/// The shortest round-trip text of a positive finite `n`, natively: serde_json's own (the
/// standard library's `{:e}` breaks ties between two shortest candidates upwards, where
/// serde_json and JavaScript take the even one).
#[cfg(not(target_arch = "wasm32"))]
fn host_shortest(n: f64) -> String {
    serde_json::Number::from_f64(n).map(|n| n.to_string()).unwrap_or_default()
}

/// A JSON number's value from the host.
#[cfg(target_arch = "wasm32")]
fn host_parse(json: &str) -> Option<f64> {
    crate::wasm::js::parse(json).ok()?.as_f64()
}

/// A JSON number's value from the standard library.
#[cfg(not(target_arch = "wasm32"))]
fn host_parse(json: &str) -> Option<f64> {
    json.parse().ok()
}

#[cfg(test)]
mod tests;
