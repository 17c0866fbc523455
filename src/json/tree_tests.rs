//! [`Map`], [`Value`] and [`Number`] against serde_json's: the same order, the same last value of
//! a key given twice, the same numbers, both ways through `From` without a change.

use serde_json::json;

use super::{Map, Number, Value};

/// A well-mixed 64-bit number for `i` (splitmix64's finaliser).
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn keys(map: &Map) -> Vec<&str> {
    map.keys().map(String::as_str).collect()
}

#[test]
fn a_map_iterates_in_key_order_whatever_the_order_of_inserts() {
    let mut map = Map::new();
    for key in ["b", "a", "é", "B", "", "aa", "a\u{0}", "Z", "ab", "😀"] {
        assert_eq!(map.insert(key.into(), Value::from(key)), None, "{key:?}");
    }
    // Byte order, as `BTreeMap<String, _>`'s: uppercase first, `"a\0"` after `"a"`, UTF-8 last.
    assert_eq!(keys(&map), ["", "B", "Z", "a", "a\u{0}", "aa", "ab", "b", "é", "😀"]);
    assert!(map.iter().all(|(key, value)| value == key.as_str()));
    assert_eq!(map.len(), 10);
    assert_eq!(map.values().count(), 10);
}

#[test]
fn a_key_inserted_twice_keeps_its_last_value_and_its_place() {
    let mut map = Map::new();
    map.insert("k".into(), json!(1).into());
    map.insert("a".into(), json!(2).into());
    assert_eq!(map.insert("k".into(), json!(3).into()), Some(Value::from(1u64)));
    assert_eq!(map.insert("a".into(), Value::Null), Some(Value::from(2u64)));
    assert_eq!(keys(&map), ["a", "k"]);
    assert_eq!(map.get("k"), Some(&Value::from(3u64)));
    assert_eq!(map.get("a"), Some(&Value::Null));
    assert_eq!(map, serde_json::from_str::<serde_json::Map<_, _>>(r#"{"k":1,"a":2,"k":3,"a":null}"#).unwrap());
}

#[test]
fn get_insert_remove_and_contains_key() {
    let mut map = Map::new();
    assert!(map.is_empty() && map.get("x").is_none() && !map.contains_key("x") && map.remove("x").is_none());
    for i in (0..50u64).rev() {
        map.insert(format!("k{i:02}"), i.into());
    }
    assert_eq!(map.len(), 50);
    for i in 0..50u64 {
        let key = format!("k{i:02}");
        assert!(map.contains_key(&key));
        assert_eq!(map.get(&key).and_then(Value::as_u64), Some(i));
        assert_eq!(map[key.as_str()], Value::from(i));
    }
    assert!(!map.contains_key("k50") && !map.contains_key("k") && !map.contains_key("k000"));
    *map.get_mut("k07").unwrap() = Value::from("seven");
    assert_eq!(map.get("k07").and_then(Value::as_str), Some("seven"));
    assert_eq!(map.remove("k07"), Some(Value::from("seven")));
    assert_eq!(map.remove("k07"), None);
    assert!(!map.contains_key("k07") && map.len() == 49);
    map.retain(|key, _| key.ends_with('0'));
    assert_eq!(keys(&map), ["k00", "k10", "k20", "k30", "k40"]);
    let mut other = Map::new();
    other.insert("k10".into(), Value::Null);
    other.insert("a".into(), Value::Bool(true));
    map.append(&mut other);
    assert!(other.is_empty());
    assert_eq!(keys(&map), ["a", "k00", "k10", "k20", "k30", "k40"]);
    assert_eq!(map["k10"], Value::Null);
    for (_, value) in map.iter_mut() {
        *value = Value::Null;
    }
    map.values_mut().for_each(|value| *value = Value::Bool(false));
    assert!(map.values().all(|value| *value == false));
    let owned: Vec<(String, Value)> = map.clone().into_iter().collect();
    assert_eq!(owned.len(), 6);
    assert_eq!(owned[0], ("a".to_owned(), Value::Bool(false)));
}

#[test]
fn maps_built_in_any_order_are_the_maps_serde_json_builds() {
    // Random keys from a small alphabet (so duplicates come often), in random order: built by
    // inserts, from the pairs in one go (as the JSON reader does), and by serde_json.
    for round in 0..400u64 {
        let len = (mix(round) % 70) as usize;
        let pairs: Vec<(String, u64)> = (0..len as u64)
            .map(|i| {
                let r = mix(round * 1000 + i);
                let key: String = (0..r % 4).map(|j| char::from(b'a' + ((r >> (8 * j + 8)) % 5) as u8)).collect();
                (key, r)
            })
            .collect();
        let mut inserted = Map::new();
        let mut theirs = serde_json::Map::new();
        for (key, n) in &pairs {
            inserted.insert(key.clone(), (*n).into());
            theirs.insert(key.clone(), (*n).into());
        }
        let collected: Map = pairs.iter().map(|(key, n)| (key.clone(), Value::from(*n))).collect();
        assert_eq!(inserted, theirs, "round {round}");
        assert_eq!(collected, theirs, "round {round}");
        assert_eq!(collected, inserted, "round {round}");
        let text = serde_json::to_string(&theirs).unwrap();
        assert_eq!(Value::Object(collected).to_string(), text);
        assert_eq!(super::value::parse_value(&text).unwrap(), serde_json::Value::Object(theirs));
    }
}

#[test]
fn a_large_object_out_of_order_reads_in_n_log_n() {
    // 200 000 keys in descending order: sorted once, not shifted one insert at a time.
    let n = 200_000;
    let text = format!("{{{}}}", (0..n).rev().map(|i| format!("\"{i:06}\":{i}")).collect::<Vec<_>>().join(","));
    let value = super::value::parse_value(&text).unwrap();
    let map = value.as_object().unwrap();
    assert_eq!(map.len(), n);
    assert!(map.keys().zip(map.keys().skip(1)).all(|(a, b)| a < b));
    assert_eq!(map["000123"], 123u64);
}

/// serde_json's value of every kind and number at the edges.
fn edge_values() -> serde_json::Value {
    json!({
        "null": null, "true": true, "false": false, "string": "é\u{0}\"😀", "empty": {}, "list": [],
        "u64 max": u64::MAX, "i64 min": i64::MIN, "i64 max": i64::MAX, "zero": 0, "minus one": -1,
        "minus zero": -0.0, "plus zero": 0.0, "floats": [0.1, 1e300, -2.5e-300, 5e-324, f64::MAX, f64::MIN, 1.0],
        "nested": [{"b": [1, {"c": null}], "a": "x"}, [[[]]]],
    })
}

#[test]
fn values_convert_both_ways_without_a_change() {
    let theirs = edge_values();
    let ours = Value::from(theirs.clone());
    assert_eq!(ours, theirs);
    assert_eq!(theirs, ours);
    assert_eq!(serde_json::Value::from(ours.clone()), theirs);
    assert_eq!(ours.to_string(), theirs.to_string());
    assert_eq!(serde_json::to_string(&ours).unwrap(), theirs.to_string());
    assert_eq!(serde_json::from_str::<Value>(&theirs.to_string()).unwrap(), ours);
    assert_eq!(format!("{ours:?}"), format!("{theirs:?}"));
    // Numbers keep their kind and their bits.
    assert_eq!(ours["u64 max"].as_u64(), Some(u64::MAX));
    assert!(ours["u64 max"].is_u64() && !ours["u64 max"].is_i64());
    assert_eq!(ours["i64 min"].as_i64(), Some(i64::MIN));
    assert!(ours["i64 min"].is_i64() && !ours["i64 min"].is_u64() && ours["i64 min"].as_u64().is_none());
    assert!(ours["i64 max"].is_u64() && ours["i64 max"].is_i64());
    assert!(ours["zero"].is_u64() && !ours["zero"].is_f64());
    assert!(ours["minus one"].is_i64() && !ours["minus one"].is_u64());
    let minus_zero = &ours["minus zero"];
    assert!(minus_zero.is_f64());
    assert_eq!(minus_zero.as_f64().map(f64::to_bits), Some((-0.0f64).to_bits()));
    assert_eq!(minus_zero.to_string(), "-0.0");
    assert_eq!(serde_json::Value::from(minus_zero.clone()).as_f64().map(f64::to_bits), Some((-0.0f64).to_bits()));
    // As serde_json's: `-0.0 == 0.0`, and an integer is never equal to a float.
    assert_eq!(*minus_zero, ours["plus zero"]);
    assert_ne!(ours["zero"], ours["plus zero"]);
    let floats = ours["floats"].as_array().unwrap();
    let back = serde_json::Value::from(ours["floats"].clone());
    for (i, f) in floats.iter().enumerate() {
        assert!(f.is_f64());
        assert_eq!(f.as_f64().map(f64::to_bits), theirs["floats"][i].as_f64().map(f64::to_bits));
        assert_eq!(back[i].as_f64().map(f64::to_bits), theirs["floats"][i].as_f64().map(f64::to_bits));
    }
}

#[test]
fn numbers_are_made_as_serde_jsons_are() {
    for n in [0i64, 1, -1, i64::MIN, i64::MAX] {
        assert_eq!(Value::from(n), serde_json::Value::from(n), "{n}");
        assert_eq!(Number::from(n).as_i64(), Some(n));
    }
    for n in [0u64, 1, u64::MAX, 1 << 63] {
        assert_eq!(Value::from(n), serde_json::Value::from(n), "{n}");
    }
    assert_eq!(Value::from(-5i32), serde_json::Value::from(-5i32));
    assert_eq!(Value::from(7u32), serde_json::Value::from(7u32));
    assert_eq!(Value::from(7usize), serde_json::Value::from(7usize));
    for f in [0.5, -0.0, 1e-7, 1e21, f64::MAX] {
        assert_eq!(Value::from(f), serde_json::Value::from(f), "{f}");
        assert_eq!(Value::from(f).to_string(), serde_json::Value::from(f).to_string(), "{f}");
    }
    for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(Number::from_f64(f), None);
        assert_eq!(Value::from(f), Value::Null);
    }
    // Integers and floats of the same value differ; equal floats are equal.
    assert_ne!(Value::from(1u64), Value::from(1.0));
    assert_eq!(Value::from(1.5), Value::from(1.5));
    assert_eq!(Number::from(-1i64).as_f64(), Some(-1.0));
    assert_eq!(Number::from(u64::MAX).as_i64(), None);
}

#[test]
fn values_are_looked_into_and_compared_as_serde_jsons_are() {
    let theirs = edge_values();
    let mut ours = Value::from(theirs.clone());
    assert_eq!(ours["nested"][0]["b"][1]["c"], Value::Null);
    assert_eq!(ours["missing"]["deeper"][3], Value::Null);
    assert_eq!(ours.get("nested").and_then(|n| n.get(1)).map(|v| v.is_array()), Some(true));
    assert_eq!(ours.get(0), None);
    assert_eq!(ours["string"], "é\u{0}\"😀");
    assert_eq!(ours["true"], true);
    assert_eq!(ours["u64 max"], u64::MAX);
    assert_eq!(ours["minus one"], -1);
    assert_eq!(ours["floats"][0], 0.1);
    for (key, value) in ours.as_object().unwrap() {
        assert_eq!(*value, theirs[key.as_str()], "{key}");
    }
    *ours.get_mut("list").unwrap() = Value::from(vec![Value::from("x")]);
    ours.get_mut("nested").and_then(|n| n.get_mut(0)).and_then(Value::as_object_mut).unwrap().remove("a");
    assert_eq!(ours["list"], json!(["x"]));
    assert_eq!(ours["nested"][0], json!({"b": [1, {"c": null}]}));
    let taken = ours.as_object_mut().unwrap().get_mut("string").unwrap().take();
    assert_eq!((taken.as_str(), &ours["string"]), (Some("é\u{0}\"😀"), &Value::Null));
    assert_eq!(Value::from(Some("a")), "a");
    assert_eq!(Value::from(None::<bool>), Value::Null);
}
