//! The hand-written JSON writers against serde_json's serializer, the oracle: everything the
//! wasm exports hand to JS must come out byte for byte as `serde_json::to_string` writes it.

use serde::Serialize;
use serde_json::{json, Number, Value};

use super::WriteJson;

/// Our text for `value`, after checking it is serde's.
#[track_caller]
fn same<T: WriteJson + Serialize + ?Sized>(value: &T) -> String {
    let ours = value.to_json_text();
    assert_eq!(ours, serde_json::to_string(value).unwrap());
    ours
}

/// Every ASCII character, the escapes, non-BMP text.
fn nasty() -> String {
    let mut s: String = (0u8..=0x7f).map(char::from).collect();
    s.push_str("é ü ñ 中文 🎉 𝄞 \u{2028}\u{2029}\u{feff} \u{10ffff} \\\" \\\\ \\u0000 </script>");
    s
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn floats() -> Vec<f64> {
    let mut out = vec![
        1e21,
        1e-7,
        0.1 + 0.2,
        -0.0,
        0.0,
        1.0,
        -1.5,
        1e20,
        1e22,
        1e15,
        1e16,
        1e17,
        123456789012345680.0,
        0.000001,
        0.0000001,
        1.7976931348623157e308,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::from_bits(0x000f_ffff_ffff_ffff),
        0.0123456,
        9007199254740993.0,
        u64::MAX as f64,
        i64::MIN as f64,
        std::f64::consts::PI,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        // Random bit patterns (every exponent) and random "decimal-looking" values.
        out.push(f64::from_bits(rng.next()));
        out.push((rng.next() % 2_000_001) as f64 / 1000.0 - 1000.0);
        out.push((rng.next() as f64) * 10f64.powi((rng.next() % 80) as i32 - 40));
    }
    out
}

#[test]
fn floats_and_integers_are_written_as_serde_writes_them() {
    let floats = floats();
    // As `f64`s (NaN and the infinities are `null`), alone and in lists.
    for f in &floats {
        same(f);
    }
    same(&floats);
    same(&floats.chunks(1000).map(<[f64]>::to_vec).collect::<Vec<_>>());
    // As `Value` numbers: floats, and integers at both ends of their ranges.
    let mut numbers: Vec<Value> = floats.iter().filter_map(|&f| Number::from_f64(f)).map(Value::Number).collect();
    let mut rng = Rng(7);
    for n in [0, 1, 9, 10, 99, 100, u64::MAX, u64::MAX - 1, i64::MAX as u64, 1 << 53, 10_000_000_000_000_000_000] {
        numbers.push(n.into());
    }
    for n in [-1, -9, -10, i64::MIN, i64::MIN + 1, -(1 << 53)] {
        numbers.push(n.into());
    }
    for _ in 0..10_000 {
        let n = rng.next();
        numbers.push((n >> (n % 64)).into());
        numbers.push(((n as i64) >> (n % 64)).into());
    }
    for n in &numbers {
        same(n);
    }
    same(&Value::Array(numbers));
    assert_eq!(
        same(&json!([1e21, 1e-7, -0.0, u64::MAX, i64::MIN])),
        "[1e+21,1e-7,-0.0,18446744073709551615,-9223372036854775808]"
    );
}

/// A random `Value` tree: every kind, nasty strings and keys, deep and wide.
fn random_value(rng: &mut Rng, depth: u32) -> Value {
    let pick = if depth >= 6 { rng.next() % 5 } else { rng.next() % 7 };
    let string = |rng: &mut Rng| {
        let nasty: Vec<char> = nasty().chars().collect();
        let len = (rng.next() % 12) as usize;
        (0..len).map(|_| nasty[(rng.next() % nasty.len() as u64) as usize]).collect::<String>()
    };
    match pick {
        0 => Value::Null,
        1 => Value::Bool(rng.next() % 2 == 0),
        2 => Number::from_f64(f64::from_bits(rng.next())).map_or(Value::Null, Value::Number),
        3 => match rng.next() % 2 {
            0 => rng.next().into(),
            _ => (rng.next() as i64).into(),
        },
        4 => Value::String(string(rng)),
        5 => Value::Array((0..rng.next() % 5).map(|_| random_value(rng, depth + 1)).collect()),
        _ => Value::Object((0..rng.next() % 5).map(|_| (string(rng), random_value(rng, depth + 1))).collect()),
    }
}

#[test]
fn strings_and_value_trees_are_written_as_serde_writes_them() {
    let nasty = nasty();
    same(nasty.as_str());
    for c in (0..=0x10ffff).filter_map(char::from_u32).step_by(7) {
        same(&format!("{c}a{c}"));
    }
    same(&json!({nasty.clone(): [nasty.clone(), {}, [], {"": null}, [[]]], "": "", "a\u{0}": true}));
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let value = random_value(&mut rng, 0);
        same(&value);
        if let Value::Object(map) = &value {
            same(map);
        }
    }
    let mut deep = json!(1);
    for i in 0..200 {
        deep = if i % 2 == 0 { json!([deep]) } else { json!({"k": deep}) };
    }
    same(&deep);
}
