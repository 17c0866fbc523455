//! The JavaScript built-ins the module calls, declared here rather than taken from `js-sys`.
//!
//! Linking `js-sys` for these few functions also kept about forty of its closure trampolines
//! (typed arrays' `forEach` callbacks, its JSPI futures) in the module's function table, where
//! nothing reaches them but no tool can prove it. `js-sys` is still used by the wasm tests.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse(text)`: throws a `SyntaxError` for text that is not JSON.
    #[wasm_bindgen(js_namespace = JSON, catch)]
    pub(crate) fn parse(text: &str) -> Result<JsValue, JsValue>;

    /// `JSON.stringify(value)`: a string, or `undefined` for a function or a symbol; throws for a
    /// `BigInt` or a cycle.
    #[wasm_bindgen(js_namespace = JSON, catch)]
    pub(crate) fn stringify(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `Reflect.get(target, key)`: throws when `target` is not an object.
    #[wasm_bindgen(js_namespace = Reflect, js_name = get, catch)]
    pub(crate) fn get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;

    /// `Reflect.set(target, key, value)`: throws when `target` is not an object.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set, catch)]
    pub(crate) fn set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<bool, JsValue>;

    /// `Array.isArray(value)`.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray)]
    pub(crate) fn is_array(value: &JsValue) -> bool;

    /// An `Array`.
    #[wasm_bindgen(js_name = Array)]
    pub(crate) type Array;

    /// `new Array()`: empty.
    #[wasm_bindgen(constructor, js_class = "Array")]
    pub(crate) fn new() -> Array;

    /// `Object.keys(value)`: its own enumerable string keys, in order.
    #[wasm_bindgen(js_namespace = Object, js_name = keys)]
    fn keys(value: &JsValue) -> Array;

    /// An `Object`.
    #[wasm_bindgen(js_name = Object)]
    type Object;

    /// `Object.create(prototype)`: empty; with `null`, a key `__proto__` set on it is its own
    /// member, not its prototype.
    #[wasm_bindgen(js_namespace = Object, js_name = create)]
    fn create(prototype: &JsValue) -> Object;

    /// A `Uint8Array` (of this realm: `instanceof`).
    #[wasm_bindgen(js_name = Uint8Array)]
    pub(crate) type Uint8Array;

    /// `new Uint8Array(buffer)`: a view of a whole `ArrayBuffer`; throws when it is detached
    /// (transferred to a worker, say).
    #[wasm_bindgen(constructor, js_class = "Uint8Array", catch)]
    pub(crate) fn new(buffer: &ArrayBuffer) -> Result<Uint8Array, JsValue>;

    /// `Uint8Array.prototype`.
    #[wasm_bindgen(thread_local_v2, js_namespace = Uint8Array, js_name = prototype)]
    static UINT8_ARRAY_PROTOTYPE: JsValue;

    /// `Reflect.get(Uint8Array.prototype, key, receiver)`: with `key` "length", the typed
    /// array's own length (the `%TypedArray%.prototype` getter run on `receiver`), whatever
    /// `receiver.length` was redefined to; throws when `receiver` is not a typed array.
    #[wasm_bindgen(js_namespace = Reflect, js_name = get, catch)]
    fn get_on(target: &JsValue, key: &JsValue, receiver: &Uint8Array) -> Result<f64, JsValue>;

    /// `Uint8Array.prototype.set.call(target, source)`: copies `source` into `target`, a view of
    /// wasm memory that must be exactly as long; throws when `source`'s buffer is detached.
    #[wasm_bindgen(js_namespace = Uint8Array, js_name = "prototype.set.call", catch)]
    fn copy_into_view(target: &mut [u8], source: &Uint8Array) -> Result<(), JsValue>;

    /// An `ArrayBuffer` (of this realm: `instanceof`).
    #[wasm_bindgen(js_name = ArrayBuffer)]
    pub(crate) type ArrayBuffer;

    /// A function: anything whose `typeof` is `"function"`.
    #[wasm_bindgen(js_name = Function, is_type_of = JsValue::is_function)]
    pub(crate) type Function;

    /// `f.call(this_arg, arg)`: what `f` throws is thrown.
    #[wasm_bindgen(method, js_class = "Function", js_name = call, catch)]
    pub(crate) fn call1(this: &Function, this_arg: &JsValue, arg: &JsValue) -> Result<JsValue, JsValue>;

    /// A string primitive (`typeof` is "string").
    #[wasm_bindgen(is_type_of = JsValue::is_string)]
    type JsString;

    /// `text.length`: its length in UTF-16 units.
    #[wasm_bindgen(method, getter, structural)]
    fn length(this: &JsString) -> u32;

    /// A `TextEncoder`.
    #[wasm_bindgen(js_name = TextEncoder)]
    type TextEncoder;

    /// `new TextEncoder()`.
    #[wasm_bindgen(constructor, js_class = "TextEncoder")]
    fn new() -> TextEncoder;

    /// `encoder.encode(text)`: the UTF-8 of a string, a lone surrogate as U+FFFD.
    #[wasm_bindgen(method, js_class = "TextEncoder")]
    fn encode(this: &TextEncoder, text: &JsString) -> Uint8Array;

    /// An `Error`.
    #[wasm_bindgen(js_name = Error)]
    pub(crate) type Error;

    /// `new Error(message)`.
    #[wasm_bindgen(constructor, js_class = "Error")]
    pub(crate) fn new(message: &str) -> Error;
}

impl Uint8Array {
    /// Its length in bytes, as the engine knows it (`length_key` is the JS string "length"): an
    /// own `length` property that says otherwise is not asked. `None` for an object that only
    /// inherits from `Uint8Array.prototype`.
    pub(crate) fn length(&self, length_key: &JsValue) -> Option<usize> {
        let n = UINT8_ARRAY_PROTOTYPE.with(|prototype| get_on(prototype, length_key, self)).ok()?;
        Some(n as usize)
    }

    /// Copies all its bytes into `target`, which must be exactly [`Uint8Array::length`] long;
    /// `None` when they cannot be read (a detached buffer).
    pub(crate) fn copy_to(&self, target: &mut [u8]) -> Option<()> {
        Uint8Array::copy_into_view(target, self).ok()
    }

    /// Its bytes copied into `scratch`, which grows as needed and is never shrunk here (one call
    /// into JS for the length, one for the copy). A failure leaves `scratch` holding bytes, as
    /// it may after a success, but nothing is read from it.
    pub(crate) fn copy_into<'s>(
        &self,
        scratch: &'s mut Vec<u8>,
        length_key: &JsValue,
    ) -> Result<&'s [u8], CopyFailure> {
        let n = self.length(length_key).ok_or(CopyFailure::Unreadable)?;
        // Zero-filled only when it grows: `copy_to` overwrites what it is given.
        if scratch.len() < n {
            let grow = n - scratch.len();
            scratch.try_reserve(grow).map_err(|_| CopyFailure::NoMemory)?;
            // One `memory.fill`: `resize` wrote the zeros a byte at a time in the size-optimised
            // module (paired: a 0.9 MB Gemini body pushed whole took 0.96 of the time without it).
            // SAFETY: `try_reserve` made room for `grow` more bytes; they are written (zeroed)
            // before `set_len` counts them.
            unsafe {
                scratch.spare_capacity_mut().as_mut_ptr().write_bytes(0, grow);
                scratch.set_len(n);
            }
        }
        let bytes = &mut scratch[..n];
        self.copy_to(bytes).ok_or(CopyFailure::Unreadable)?;
        Ok(bytes)
    }
}

/// Why a `Uint8Array`'s bytes could not be copied in.
pub(crate) enum CopyFailure {
    /// A view of a detached buffer, or an object that only inherits from `Uint8Array.prototype`.
    Unreadable,
    /// More bytes than the module can take.
    NoMemory,
}

/// Strings at least this long (in UTF-16 units) are encoded by the engine's `TextEncoder`.
const LONG_STRING: u32 = 1024;

/// A JS string's text; `None` when `value` is not a string. A long one is encoded by the
/// engine's `TextEncoder` and copied in whole: the glue copies a string one UTF-16 unit at a
/// time while it is ASCII, which was 38 % of `buildChatArgs`' time on 129 KB of messages. Lone
/// surrogates become U+FFFD either way.
pub(crate) fn string_text(value: &JsValue) -> Option<String> {
    let text = value.dyn_ref::<JsString>()?;
    if text.length() < LONG_STRING {
        return value.as_string();
    }
    // Copied into an empty buffer, which then holds exactly the encoded bytes.
    let mut out = Vec::new();
    match TextEncoder::new().encode(text).copy_into(&mut out, &JsValue::from_str("length")) {
        Ok(_) => {}
        // No room for this copy: the glue's, which needs no more, as before.
        Err(CopyFailure::NoMemory) => return value.as_string(),
        Err(CopyFailure::Unreadable) => return None,
    }
    // SAFETY: `TextEncoder` writes UTF-8, which the glue trusts for every string it passes in
    // (wasm-bindgen makes a `String` of its `encodeInto` output unchecked).
    Some(unsafe { String::from_utf8_unchecked(out) })
}

/// `JSON.stringify(value)` as a Rust string; `None` when it throws or gives `undefined`.
pub(crate) fn stringify_text(value: &JsValue) -> Option<String> {
    string_text(&stringify(value).ok()?)
}

/// [`stringify_text`] with each `Uint8Array` as the base64 of its bytes, its wire form: the AWS
/// SDK gives blobs (`redactedContent`, a chunk's `bytes`) as `Uint8Array`s, which
/// `JSON.stringify` writes as `{"0":69,...}` (docs/design.md, "Bedrock"). Only text that has
/// such an object (an object whose first key is `0`, outside any string) is written again, from
/// a copy; an empty `Uint8Array` stays `{}`, whatever is beside it.
pub(crate) fn stringify_wire(value: &JsValue) -> Option<String> {
    let text = stringify_text(value)?;
    if !text.contains(r#"{"0":"#) {
        return Some(text);
    }
    let length_key = JsValue::from_str("length");
    stringify_text(&with_base64_bytes(value, &length_key, 0))
}

/// Past the nesting the JSON reader refuses (128), a copy goes no deeper.
const MAX_DEPTH: usize = 128;

/// `value` with each `Uint8Array` within plain objects and arrays replaced by its base64; what is
/// not a plain object or array (or has a `toJSON`, or is nested past the JSON depth) is kept.
fn with_base64_bytes(value: &JsValue, length_key: &JsValue, depth: usize) -> JsValue {
    if !value.is_object() || depth > MAX_DEPTH {
        return value.clone();
    }
    if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        let mut read = vec![0; bytes.length(length_key).unwrap_or(0)];
        if read.is_empty() {
            // `{}` as when nothing else needs the copy: an empty blob reads as absent either way.
            return value.clone();
        }
        return match bytes.copy_to(&mut read) {
            Some(()) => JsValue::from_str(&crate::base64::encode(&read)),
            None => value.clone(),
        };
    }
    let item = |key: &JsValue| get(value, key).map(|item| with_base64_bytes(&item, length_key, depth + 1));
    let copied: Result<JsValue, JsValue> = (|| {
        if Array::is_array(value) {
            let length = get(value, length_key)?.as_f64().unwrap_or(0.0) as u32;
            let copy = Array::new();
            for i in 0..length {
                set(&copy, &i.into(), &item(&i.into())?)?;
            }
            return Ok(copy.into());
        }
        if get(value, &"toJSON".into())?.is_function() {
            return Ok(value.clone());
        }
        let keys = Object::keys(value);
        let copy = Object::create(&JsValue::NULL);
        for i in 0..get(&keys, length_key)?.as_f64().unwrap_or(0.0) as u32 {
            let key = get(&keys, &i.into())?;
            set(&copy, &key, &item(&key)?)?;
        }
        Ok(copy.into())
    })();
    copied.unwrap_or_else(|_| value.clone())
}

/// The `onSpan` callback of an options object: `None` when it is not a function. A getter that
/// throws throws out of here.
pub(crate) fn on_span(options: &JsValue) -> Result<Option<Function>, JsValue> {
    let value = get(options, &"onSpan".into())?;
    Ok(if value.is_function() { Some(value.unchecked_into()) } else { None })
}

#[cfg(test)]
mod tests {
    use super::{string_text, LONG_STRING};
    use crate::wasm::test_support::js;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Long strings, read through `TextEncoder`, give the text the glue gives: ASCII, other
    /// scripts and emoji, lone surrogates (U+FFFD), at and around the length where the way
    /// changes; anything but a string is `None`.
    #[wasm_bindgen_test]
    fn strings_read_as_the_glue_reads_them_long_or_short() {
        let n = LONG_STRING as usize;
        let mut values: Vec<JsValue> = ["a", "é", "🙂", "\"\\\n"]
            .iter()
            .flat_map(|unit| [n - 1, n, n + 1, 5 * n].map(|len| JsValue::from_str(&unit.repeat(len))))
            .collect();
        // Lone surrogates can only be made in JS.
        values.push(js(&format!("\"{}\\ud83d{}\\ude0a\"", "x".repeat(n), "y".repeat(n))));
        values.push(js("\"\\ud83d\""));
        for value in &values {
            let text = string_text(value).expect("a string");
            assert_eq!(Some(&text), value.as_string().as_ref());
        }
        assert!(string_text(&js(&format!("\"{}\\ud83d\"", "x".repeat(n)))).unwrap().ends_with('\u{fffd}'));
        for not_a_string in [JsValue::from_f64(1.0), JsValue::NULL, JsValue::UNDEFINED, js("[\"a\"]")] {
            assert_eq!(string_text(&not_a_string), None);
        }
    }
}
