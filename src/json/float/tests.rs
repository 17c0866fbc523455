use super::{parse, write};

/// splitmix64: a small seeded generator for the random inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn digits(&mut self, out: &mut String, n: u64) {
        (0..n).for_each(|_| out.push(char::from(b'0' + self.below(10) as u8)));
    }

    /// A decimal text in the standard library's grammar: short and long digit runs, leading
    /// and trailing zeros, exponents near the edges of `f64` and far beyond.
    fn decimal(&mut self) -> String {
        let mut t = String::new();
        match self.below(4) {
            0 => t.push('-'),
            1 if self.below(4) == 0 => t.push('+'),
            _ => {}
        }
        if self.below(6) == 0 {
            (0..self.below(4)).for_each(|_| t.push('0'));
        }
        let long = self.below(3) == 0;
        let int = self.below(if long { 30 } else { 8 });
        self.digits(&mut t, int);
        if int == 0 || self.below(2) == 0 {
            t.push('.');
            if self.below(3) == 0 {
                (0..self.below(8)).for_each(|_| t.push('0'));
            }
            let frac = self.below(if long { 30 } else { 10 }) + u64::from(int == 0);
            self.digits(&mut t, frac);
        }
        if self.below(2) == 0 {
            t.push(if self.below(2) == 0 { 'e' } else { 'E' });
            match self.below(3) {
                0 => t.push('-'),
                1 => t.push('+'),
                _ => {}
            }
            let exp = match self.below(4) {
                0 => self.below(10),
                1 => self.below(40),
                2 => 280 + self.below(60),
                _ => self.below(1000),
            };
            t.push_str(&exp.to_string());
        }
        t
    }

    /// A finite `f64`: random bits, short decimals, integers, values near the layout edges, and
    /// values halfway between two shortest candidates.
    fn float(&mut self) -> f64 {
        loop {
            let n = match self.below(5) {
                0 => f64::from_bits(self.next()),
                // Quarters in [2^50, 2^51): a 17th digit of 2 or 7 and a half, the ties.
                4 => ((1u64 << 52) | self.below(1 << 52)) as f64 / 4.0,
                1 => self.decimal().parse().unwrap_or(0.0),
                2 => (self.next() >> self.below(64)) as f64,
                _ => {
                    let digits = 1 + self.below(17) as u32;
                    let mantissa = (self.next() % 10u64.pow(digits)) as f64;
                    mantissa * 10f64.powi(self.below(50) as i32 - 25)
                }
            };
            if n.is_finite() {
                return n;
            }
        }
    }
}

/// serde_json's text for a finite `f64`: the reference for [`write`].
#[cfg(not(target_arch = "wasm32"))]
fn serde_text(n: f64) -> String {
    serde_json::Number::from_f64(n).unwrap().to_string()
}

fn ours(n: f64) -> String {
    let mut out = String::new();
    write(&mut out, n);
    out
}

#[cfg(not(target_arch = "wasm32"))]
fn same(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) if a.is_nan() => b.is_nan() && a.is_sign_negative() == b.is_sign_negative(),
        (Some(a), Some(b)) => a.to_bits() == b.to_bits(),
        (None, None) => true,
        _ => false,
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn parse_accepts_and_refuses_what_std_does() {
    let fixed = [
        "0",
        "-0",
        "+0",
        "00",
        "0.",
        ".0",
        ".",
        "",
        "-",
        "+",
        "e5",
        "1e",
        "1e+",
        "1e-",
        "1E5",
        "1.e5",
        ".5e-3",
        "1.5",
        "-1.5e-7",
        "inf",
        "-INF",
        "Infinity",
        "+infinity",
        "nan",
        "NaN",
        "-nan",
        "infinit",
        "nana",
        "0x10",
        "1_000",
        " 1",
        "1 ",
        "1e5.5",
        "1..2",
        "--1",
        "+-1",
        "1e--5",
        "123456789012345",
        "1234567890123456",
        "9007199254740993",
        "0.1",
        "0.3",
        "1e22",
        "1e23",
        "1e-22",
        "1e-23",
        "123456789012345e22",
        "123456789012345e-22",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "2e308",
        "4.9e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "5e-324",
        "1e-400",
        "0e999999999999999999999",
        "1e-999999999999999999999",
        "1e999999999999999999999",
        "0.000000000000000000000000000001e30",
        "100000000000000000000000e-23",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "٣",
        "1\u{0}",
    ];
    for text in fixed {
        assert!(same(parse(text), text.parse().ok()), "{text:?}: {:?} vs {:?}", parse(text), text.parse::<f64>());
    }
    let mut rng = Rng(7);
    let junk = b"+-.eE0123456789xinfatyINF _";
    for i in 0..400_000 {
        let mut text = rng.decimal();
        if i % 4 == 0 {
            // An edit anywhere: most of these are refused, and must be refused alike.
            let at = rng.below(text.len() as u64 + 1) as usize;
            let c = junk[rng.below(junk.len() as u64) as usize] as char;
            match rng.below(3) {
                0 => text.insert(at, c),
                1 if at < text.len() => _ = text.remove(at),
                _ => text.truncate(at),
            }
        }
        assert!(same(parse(&text), text.parse().ok()), "{text:?}: {:?} vs {:?}", parse(&text), text.parse::<f64>());
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn write_is_serde_jsons_text() {
    let fixed = [
        1.0,
        0.1,
        1e15,
        1e16,
        1e-5,
        1e-6,
        1.5e-7,
        123456789012345680.0,
        9007199254740993.0,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        -0.0,
        0.0,
        -2.5e-10,
        4.35,
        100.0,
        1e21,
        1e100,
        0.000123,
        999999999999999.9,
        9999999999999998.0,
        0.00001234,
        0.000001234,
    ];
    for n in fixed.into_iter().chain(fixed.map(|n| -n)) {
        assert_eq!(ours(n), serde_text(n), "{n:e}");
    }
    let mut rng = Rng(11);
    for _ in 0..1_000_000 {
        let n = rng.float();
        assert_eq!(ours(n), serde_text(n), "{n:e}");
    }
}

/// A digest of [`parse`] and [`write`] over seeded random inputs, so that wasm, where the
/// host does the hard cases, is checked against the same value as the native build.
fn digest(parse: impl Fn(&str) -> Option<f64>, write: impl Fn(f64) -> String) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    let mut rng = Rng(2026);
    for _ in 0..50_000 {
        let text = rng.decimal();
        feed(&parse(&text).map_or(u64::MAX, f64::to_bits).to_le_bytes());
        feed(write(rng.float()).as_bytes());
    }
    hash
}

/// The digest, computed natively with the standard library's parser and serde_json's writer.
const DIGEST: u64 = 5_676_142_572_892_788_546;

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn digest_of_the_references() {
    assert_eq!(digest(|t| t.parse().ok(), serde_text), DIGEST);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn digest_of_ours_is_the_references() {
    assert_eq!(digest(parse, ours), DIGEST);
}
