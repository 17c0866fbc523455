//! [`Value`] and [`Number`]: the crate's JSON data, in place of `serde_json::Value` and
//! `serde_json::Number` (whose `BTreeMap` objects bring the B-tree's code into the wasm
//! module). Names and methods follow serde_json's, the few this crate and its users
//! need; `From` converts both ways and `PartialEq` compares across, so Rust code can keep
//! building values with `serde_json::json!`.
//!
//! Numbers make serde_json's distinctions: an integer is a `u64`, or an `i64` when negative;
//! anything else is an `f64` (`-0` read from JSON text is the float `-0.0`), finite except
//! where [`Number`] says. Objects
//! iterate in key order ([`Map`]), as serde_json's default map does, so the JSON text written
//! from a value ([`std::fmt::Display`], and every body the crate writes) is the same.

use std::fmt;

use super::map::Map;
use super::write::WriteJson;

/// A JSON value.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map),
}

/// A JSON number: a `u64`, a negative `i64`, or an `f64`.
///
/// The `f64` is finite, except for a number the output parsers (`parse_tool_arguments`,
/// `parse_structured_output`, `process` with outputs) read from a literal beyond the double
/// range such as `1e400`: they read JSON as JavaScript's `JSON.parse` does, and that is
/// ±infinity. Such a number is written back as `1e999` / `-1e999` (which `JSON.parse` reads as
/// ±`Infinity` again) and becomes `null` in `serde_json` (as serde_json writes non-finite
/// floats). [`Number::from_f64`] still refuses the infinities.
#[derive(Clone, Copy, PartialEq)]
pub struct Number(N);

#[derive(Clone, Copy)]
enum N {
    PosInt(u64),
    /// Always below zero.
    NegInt(i64),
    /// Never NaN; infinite only when read from a literal beyond the double range.
    Float(f64),
}

/// As serde_json's: kinds compare apart (`1` is not `1.0`), floats by `==` (`0.0 == -0.0`).
impl PartialEq for N {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (N::PosInt(a), N::PosInt(b)) => a == b,
            (N::NegInt(a), N::NegInt(b)) => a == b,
            (N::Float(a), N::Float(b)) => a == b,
            _ => false,
        }
    }
}

/// No NaN is ever held.
impl Eq for Number {}

impl Number {
    /// The number of a finite `f64`; `None` for NaN and the infinities, which JSON cannot hold.
    pub fn from_f64(n: f64) -> Option<Number> {
        n.is_finite().then_some(Number(N::Float(n)))
    }

    /// ±infinity: what `JSON.parse` reads from a literal beyond the double range (`1e400`).
    pub(crate) fn infinity(negative: bool) -> Number {
        Number(N::Float(if negative { f64::NEG_INFINITY } else { f64::INFINITY }))
    }

    /// Whether it is an integer that fits `u64`.
    pub fn is_u64(&self) -> bool {
        matches!(self.0, N::PosInt(_))
    }

    /// Whether it is an integer that fits `i64`.
    pub fn is_i64(&self) -> bool {
        match self.0 {
            N::PosInt(n) => n <= i64::MAX as u64,
            N::NegInt(_) => true,
            N::Float(_) => false,
        }
    }

    /// Whether it is a float (read from JSON text: not an integer that fits 64 bits).
    pub fn is_f64(&self) -> bool {
        matches!(self.0, N::Float(_))
    }

    /// The integer, if it fits `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::PosInt(n) => Some(n),
            _ => None,
        }
    }

    /// The integer, if it fits `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::PosInt(n) => i64::try_from(n).ok(),
            N::NegInt(n) => Some(n),
            N::Float(_) => None,
        }
    }

    /// The number as an `f64` (integers rounded to the nearest); always `Some`, as serde_json's.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::PosInt(n) => n as f64,
            N::NegInt(n) => n as f64,
            N::Float(n) => n,
        })
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Self {
        Number(N::PosInt(n))
    }
}

/// A `u64` when not negative, as serde_json's.
impl From<i64> for Number {
    fn from(n: i64) -> Self {
        Number(if n < 0 { N::NegInt(n) } else { N::PosInt(n as u64) })
    }
}

impl From<u32> for Number {
    fn from(n: u32) -> Self {
        u64::from(n).into()
    }
}

impl From<usize> for Number {
    fn from(n: usize) -> Self {
        (n as u64).into()
    }
}

impl From<i32> for Number {
    fn from(n: i32) -> Self {
        i64::from(n).into()
    }
}

/// The JSON text, as serde_json writes it (`1`, `-1`, `1.0`, `1e+21`).
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json_text())
    }
}

/// `Number(1.5)`, as serde_json's.
impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

/// A key or an index into a value: `str` and `String` look into objects, `usize` into arrays.
pub trait Index: private::Sealed {
    #[doc(hidden)]
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value>;
    #[doc(hidden)]
    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value>;
}

mod private {
    pub trait Sealed {}
    impl Sealed for str {}
    impl Sealed for String {}
    impl Sealed for usize {}
    impl<T: Sealed + ?Sized> Sealed for &T {}
}

impl Index for str {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        value.as_object()?.get(self)
    }

    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        value.as_object_mut()?.get_mut(self)
    }
}

impl Index for String {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(value)
    }

    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        self.as_str().index_into_mut(value)
    }
}

impl Index for usize {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        value.as_array()?.get(*self)
    }

    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        value.as_array_mut()?.get_mut(*self)
    }
}

impl<T: Index + ?Sized> Index for &T {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        (**self).index_into(value)
    }

    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        (**self).index_into_mut(value)
    }
}

impl Value {
    /// The member of an object (`value.get("key")`) or the element of an array
    /// (`value.get(0)`); `None` when there is none, or the value is of another kind.
    pub fn get<I: Index>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }

    /// [`Value::get`], to change.
    pub fn get_mut<I: Index>(&mut self, index: I) -> Option<&mut Value> {
        index.index_into_mut(self)
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// Whether it is a number that is an integer fitting `u64`.
    pub fn is_u64(&self) -> bool {
        matches!(self, Value::Number(n) if n.is_u64())
    }

    /// Whether it is a number that is an integer fitting `i64`.
    pub fn is_i64(&self) -> bool {
        matches!(self, Value::Number(n) if n.is_i64())
    }

    /// Whether it is a number that is a float.
    pub fn is_f64(&self) -> bool {
        matches!(self, Value::Number(n) if n.is_f64())
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    /// Any number as an `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The value, leaving `Null` in its place.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

/// `value["key"]`, `value[0]`: as [`Value::get`], but `Null` when there is nothing there (as
/// serde_json's).
impl<I: Index> std::ops::Index<I> for Value {
    type Output = Value;

    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&Value::Null)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Self {
        Value::Number(n)
    }
}

/// Integers, each a [`Number`].
macro_rules! from_integer {
    ($($ty:ty),*) => {$(
        impl From<$ty> for Value {
            fn from(n: $ty) -> Self {
                Value::Number(n.into())
            }
        }
    )*};
}

from_integer!(u64, i64, u32, i32, usize);

/// `Null` for NaN and the infinities, as serde_json's.
impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(items)
    }
}

impl From<Map> for Value {
    fn from(map: Map) -> Self {
        Value::Object(map)
    }
}

/// `Null` for `None`.
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

/// The JSON text, compact, as `serde_json::to_string` writes it.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json_text())
    }
}

/// As serde_json's: `Null`, `Bool(true)`, `Number(1)`, `String("a")`, `Array [...]`,
/// `Object {...}`.
impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Number(n) => fmt::Debug::fmt(n, f),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::Array(items) => {
                f.write_str("Array ")?;
                fmt::Debug::fmt(items, f)
            }
            Value::Object(map) => {
                f.write_str("Object ")?;
                fmt::Debug::fmt(map, f)
            }
        }
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

/// Equal to a number of the same value, as serde_json's: `value == 5` for integers that fit the
/// type, `value == 0.5` for any number.
macro_rules! eq_number {
    ($($ty:ty => $as:ident as $wide:ty),*) => {$(
        impl PartialEq<$ty> for Value {
            fn eq(&self, other: &$ty) -> bool {
                self.$as() == Some(<$wide>::from(*other))
            }
        }
    )*};
}

eq_number!(u32 => as_u64 as u64, u64 => as_u64 as u64, i32 => as_i64 as i64, i64 => as_i64 as i64, f64 => as_f64 as f64);

// serde: natively, for the model types' `Serialize` and for users; never in the wasm module.

/// As serde_json's: the number as a `u64`, an `i64` or an `f64`.
impl serde::Serialize for Number {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            N::PosInt(n) => serializer.serialize_u64(n),
            N::NegInt(n) => serializer.serialize_i64(n),
            N::Float(n) => serializer.serialize_f64(n),
        }
    }
}

/// As serde_json's `Value`: `serde_json::to_string` writes the same text for both.
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => n.serialize(serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => serializer.collect_seq(items),
            Value::Object(map) => map.serialize(serializer),
        }
    }
}

impl serde::Serialize for Map {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self)
    }
}

/// Through `serde_json::Value` (a key given twice keeps its last value).
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_json::Value::deserialize(deserializer).map(Value::from)
    }
}

// Both ways to serde_json's types, and equality across.

impl From<serde_json::Number> for Number {
    fn from(n: serde_json::Number) -> Self {
        match (n.as_u64(), n.as_i64()) {
            (Some(n), _) => n.into(),
            (None, Some(n)) => n.into(),
            // serde_json's numbers are finite too.
            _ => Number(N::Float(n.as_f64().unwrap_or_default())),
        }
    }
}

/// serde_json's numbers are finite: ±infinity becomes the nearest one it holds, ±`f64::MAX`
/// (a [`Value`] holding it converts to `null` instead).
impl From<Number> for serde_json::Number {
    fn from(n: Number) -> Self {
        match n.0 {
            N::PosInt(n) => n.into(),
            N::NegInt(n) => n.into(),
            N::Float(n) => serde_json::Number::from_f64(n.clamp(f64::MIN, f64::MAX)).unwrap_or_else(|| 0.into()),
        }
    }
}

impl From<serde_json::Value> for Value {
    fn from(value: serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n.into()),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => Value::Array(items.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(map) => Value::Object(map.into()),
        }
    }
}

impl From<serde_json::Map<String, serde_json::Value>> for Map {
    fn from(map: serde_json::Map<String, serde_json::Value>) -> Self {
        map.into_iter().map(|(key, value)| (key, Value::from(value))).collect()
    }
}

impl From<Value> for serde_json::Value {
    fn from(value: Value) -> Self {
        match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            // ±infinity is `null`, as serde_json writes a non-finite float.
            Value::Number(n) if n.as_f64().is_some_and(f64::is_infinite) => serde_json::Value::Null,
            Value::Number(n) => serde_json::Value::Number(n.into()),
            Value::String(s) => serde_json::Value::String(s),
            Value::Array(items) => serde_json::Value::Array(items.into_iter().map(Into::into).collect()),
            Value::Object(map) => serde_json::Value::Object(map.into()),
        }
    }
}

impl From<Map> for serde_json::Map<String, serde_json::Value> {
    fn from(map: Map) -> Self {
        map.into_iter().map(|(key, value)| (key, value.into())).collect()
    }
}

/// Equal kinds and numbers, and equal contents, as `Value::from(other) == *self`.
impl PartialEq<serde_json::Value> for Value {
    fn eq(&self, other: &serde_json::Value) -> bool {
        match (self, other) {
            (Value::Null, serde_json::Value::Null) => true,
            (Value::Bool(a), serde_json::Value::Bool(b)) => a == b,
            (Value::Number(a), serde_json::Value::Number(b)) => *a == Number::from(b.clone()),
            (Value::String(a), serde_json::Value::String(b)) => a == b,
            (Value::Array(a), serde_json::Value::Array(b)) => a == b,
            (Value::Object(a), serde_json::Value::Object(b)) => a == b,
            _ => false,
        }
    }
}

impl PartialEq<serde_json::Map<String, serde_json::Value>> for Map {
    fn eq(&self, other: &serde_json::Map<String, serde_json::Value>) -> bool {
        // By key, not side by side: serde_json's map keeps insertion order when any crate in
        // the build turns on its `preserve_order` feature.
        self.len() == other.len() && self.iter().all(|(key, a)| other.get(key).is_some_and(|b| a == b))
    }
}

impl PartialEq<Value> for serde_json::Value {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<Map> for serde_json::Map<String, serde_json::Value> {
    fn eq(&self, other: &Map) -> bool {
        other == self
    }
}
