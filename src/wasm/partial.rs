//! Live partial JSON for JS: the reader runs here and hands each piece's changes over as one
//! list, written in Rust and read by one `JSON.parse`; `partial.mjs` applies them to the JS
//! value copy-on-write (its `PartialJson` class and `parsePartialJson` wrap these two exports).

use wasm_bindgen::prelude::*;

use super::convert::{string_argument, to_json};
use super::js;
use crate::partial_json::{write_changes, Change, Parser, PartialOptions};

#[wasm_bindgen(typescript_custom_section)]
const PARTIAL_TYPES: &'static str = r#"
/** Options of `new PartialJson(...)` and `parsePartialJson`. */
export interface PartialJsonOptions {
  /** Read model output as the lenient `parseStructuredOutput` does: prose and an opening ```json fence skipped, what follows the object ignored, trailing commas accepted. */
  lenient?: boolean;
  /** The expected object's properties (an agent's `outputs`): a member that breaks them throws `validation_failed` as soon as it is read. */
  outputs?: PropertyList;
}
/** One piece's changes, applied by `partial.mjs` (see `write_changes` in the crate). */
export type PartialJsonChanges = (string | number | JsonValue)[];
"#;

/// The reader of one text; `push` and `finish` return the changes as JS data.
#[wasm_bindgen(js_name = PartialJsonCore)]
pub struct JsPartialJson {
    parser: Parser,
    changes: Vec<Change>,
    /// The JSON text of the changes of one call, reused across calls.
    out: String,
}

#[wasm_bindgen(js_class = PartialJsonCore)]
impl JsPartialJson {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PartialJsonOptions | undefined")] options: JsValue,
    ) -> Result<JsPartialJson, JsValue> {
        Ok(JsPartialJson { parser: Parser::new(&read_options(options)?), changes: Vec::new(), out: String::new() })
    }

    /// Reads the next piece of text; its changes. After an error every call throws it again.
    #[wasm_bindgen(unchecked_return_type = "PartialJsonChanges")]
    pub fn push(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
        self.push_bytes(string_argument(text, "text")?.as_bytes())
    }

    /// Reads the next piece as UTF-8 bytes, split anywhere (a character cut at the end waits
    /// for the next piece); its changes.
    #[wasm_bindgen(js_name = pushBytes, unchecked_return_type = "PartialJsonChanges")]
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        self.changes.clear();
        self.parser.push(bytes, &mut self.changes)?;
        changes_to_js(&self.changes, &mut self.out)
    }

    /// Ends the text; the last changes, or an error when the value is not complete.
    #[wasm_bindgen(unchecked_return_type = "PartialJsonChanges")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        self.changes.clear();
        self.parser.finish(&mut self.changes)?;
        changes_to_js(&self.changes, &mut self.out)
    }
}

/// The changes that build what `text` shows, and its value when it is complete JSON (the
/// one-shot `parsePartialJson`).
#[wasm_bindgen(js_name = partialJsonChanges, unchecked_return_type = "PartialJsonChanges")]
pub fn partial_json_changes(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PartialJsonOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let text = string_argument(text, "text")?;
    let mut parser = Parser::new(&read_options(options)?);
    let mut changes = Vec::new();
    parser.push(text.as_bytes(), &mut changes)?;
    if parser.can_finish() {
        parser.finish(&mut changes)?;
    }
    changes_to_js(&changes, &mut String::new())
}

fn read_options(options: JsValue) -> Result<PartialOptions, JsValue> {
    Ok(PartialOptions::from_json(&to_json(options, "options")?)?)
}

/// The changes as a JS array: written into `out`, then one `JSON.parse`.
fn changes_to_js(changes: &[Change], out: &mut String) -> Result<JsValue, JsValue> {
    out.clear();
    write_changes(changes, out);
    js::parse(out)
}
