//! Errors and values across the JS boundary: JS data in as the crate's `Value`, plain JSON data
//! out through one `JSON.parse`, and crate errors as JS `Error`s carrying `code` and `path`.

use wasm_bindgen::prelude::*;

use super::js;
use crate::error::Error;
use crate::json::value::{parse_value, parse_value_bytes};
use crate::json::write::WriteJson;
use crate::json::Value;
#[cfg(feature = "wasm-full")]
use crate::model::Agent;
use crate::model::ProcessResult;

/// A JS value as JSON; `undefined` and `null` are `null`.
///
/// Read through the engine's own `JSON.stringify` and the crate's JSON reader
/// (`json::value`): faster on real bodies than walking the object property by property, and
/// no deserializer of its own in the binary.
/// A value `JSON.stringify` refuses (a `BigInt`, a cycle) is `invalid_input` at `path`; lone
/// surrogates in strings become U+FFFD.
pub(crate) fn to_json(value: JsValue, path: &str) -> Result<Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Null);
    }
    let bad = |why: String| JsValue::from(Error::invalid_input(path, ["not JSON data: ", &why].concat()));
    let text = js::stringify(&value).map_err(|e| {
        let message = js::get(&e, &"message".into()).ok().and_then(|m| m.as_string());
        bad(message.unwrap_or_else(|| "JSON.stringify refused it".into()))
    })?;
    // A function or a Symbol stringifies to `undefined`, not to text.
    let text = js::string_text(&text).ok_or_else(|| bad("a function or a symbol is not data".into()))?;
    match parse_value(&text) {
        Ok(json) => Ok(json),
        Err(err) => match crate::providers::repair_lone_surrogates(text.as_bytes()) {
            Some(repaired) => parse_value_bytes(&repaired).map_err(|e| bad(e.message())),
            None => Err(bad(err.message())),
        },
    }
}

/// A string argument, taken as any JS value: anything else is an `invalid_input` at `path`
/// (the glue's own check for a `&str` parameter throws an error with no `code`).
pub(crate) fn string_argument(value: JsValue, path: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| Error::invalid_input(path, "expected a string").into())
}

/// The `agent` argument of an export, read by the core's path-precise reader.
#[cfg(feature = "wasm-full")]
pub(crate) fn read_agent(agent: JsValue) -> Result<Agent, JsValue> {
    Ok(Agent::from_json(&to_json(agent, "agent")?)?)
}

/// Any of the crate's result values as plain JS data: written to JSON text in Rust (by hand,
/// as serde_json would write it, without serde's serializer), parsed once by the engine's
/// `JSON.parse` (one crossing, no per-property calls).
pub(crate) fn to_js(value: &dyn WriteJson) -> Result<JsValue, JsValue> {
    let mut out = String::with_capacity(128);
    value.write_json(&mut out);
    js::parse(&out)
}

/// A result as JS data: a text result is made a JS string straight from its bytes (a long answer
/// is not escaped into JSON text in wasm memory and parsed back), any other through [`to_js`].
pub(crate) fn result_to_js(result: &ProcessResult) -> Result<JsValue, JsValue> {
    match result {
        ProcessResult::Text(text) => Ok(JsValue::from_str(text)),
        other => to_js(other),
    }
}

/// The crate error as a JS `Error` with `code` (and `path` for input errors); a
/// `provider_error` also carries the provider's own `providerType`, `providerCode` and
/// `retryable`. What `?` makes of a crate error in every export.
impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        let js: JsValue = js::Error::new(&error.message).into();
        let set = |key: &str, value: JsValue| {
            let _ = js::set(&js, &key.into(), &value);
        };
        set("code", error.code.as_str().into());
        if let Some(path) = &error.path {
            set("path", path.as_str().into());
        }
        if let Some(detail) = &error.provider {
            if let Some(kind) = &detail.kind {
                set("providerType", kind.as_str().into());
            }
            if let Some(code) = &detail.code {
                set("providerCode", code.as_str().into());
            }
            set("retryable", detail.retryable.into());
        }
        js
    }
}

/// Installs the panic hook once per instance, so a bug shows its message in the console. Test
/// and `cargo` builds (stable, `panic = abort`) keep it. The npm package's module is built on
/// nightly with `-Cpanic=immediate-abort` (see the Makefile), which sets
/// `cfg(panic = "immediate-abort")`: there a panic traps at once (`RuntimeError: unreachable`)
/// and the hook could never run, so the start function and the hook's code and JS imports are
/// left out.
#[cfg(not(panic = "immediate-abort"))]
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}
