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
}

/// `JSON.stringify(value)` as a Rust string; `None` when it throws or gives `undefined`.
pub(crate) fn stringify_text(value: &JsValue) -> Option<String> {
    stringify(value).ok()?.as_string()
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
