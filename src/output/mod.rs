//! The output parser: a model's fields as an agent's output, tool-call arguments to actions, and
//! structured output validated against the agent's `outputs` (Orbiter's `parse_response`,
//! `parse_tool_arguments` and `parse_structured_output`).

mod lenient;
mod validate;

use serde::Serialize;

use crate::error::{Error, ErrorCode, Result};
use crate::json::value::parse_value_as_js;
use crate::json::write::{quoted, Object, WriteJson};
use crate::json::{Map, Value};
use crate::model::{Property, ToolCall, Usage};

/// What an agent turn produced: the model's text, tool calls and usage (Orbiter's
/// `AgentOutput`), as [`parse_response`] gives them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentOutput {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
}

impl WriteJson for AgentOutput {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.str("text", &self.text);
        self.tool_calls.write_json(o.key("toolCalls"));
        self.usage.write_json(o.key("usage"));
        o.end();
    }
}

/// The model's fields as an [`AgentOutput`]: a plain mapping that copies the text, the tool
/// calls and the usage and transforms nothing, so it cannot fail. The arguments stay JSON text,
/// even invalid; [`parse_tool_arguments`] parses them and [`parse_structured_output`] the text.
///
/// ```
/// use llm_wire::{parse_response, to_message};
///
/// let body = r#"{"choices": [{"message": {"content": "Here is the answer."}, "finish_reason": "stop"}],
///     "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}}"#;
/// let message = to_message(body, None).unwrap();
/// let output = parse_response(&message.text, &message.tool_calls, message.usage.as_ref().unwrap());
/// assert_eq!((output.text.as_str(), output.usage.total_tokens), ("Here is the answer.", 70));
/// ```
pub fn parse_response(content: &str, tool_calls: &[ToolCall], usage: &Usage) -> AgentOutput {
    AgentOutput { text: content.to_owned(), tool_calls: tool_calls.to_vec(), usage: usage.clone() }
}

/// A tool call ready to run: its arguments parsed to an object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    pub tool_call_id: String,
    pub tool_name: String,
    pub arguments: Map,
}

impl WriteJson for Action {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.str("toolCallId", &self.tool_call_id);
        o.str("toolName", &self.tool_name);
        self.arguments.write_json(o.key("arguments"));
        o.end();
    }
}

/// Parses every call's JSON arguments. An empty (or all-blank) string is `{}`, as models send
/// for tools without parameters; invalid JSON or a value that is not an object is
/// `invalid_json`, naming the call and with the path `toolCalls[i].arguments`.
///
/// Numbers are read as JavaScript's `JSON.parse` reads them: a literal beyond the double range
/// (`1e400`) is a valid number, ±infinity (see [`crate::Number`]), and the batch is parsed as
/// if it were any other number.
pub fn parse_tool_arguments(tool_calls: &[ToolCall]) -> Result<Vec<Action>> {
    let mut actions = Vec::with_capacity(tool_calls.len());
    for (i, call) in tool_calls.iter().enumerate() {
        let text = call.arguments.trim();
        let arguments = if text.is_empty() {
            Map::new()
        } else {
            match parse_value_as_js(text) {
                Ok(Value::Object(map)) => map,
                Ok(other) => {
                    return Err(bad_arguments(call, i, &format!("{}, not an object", validate::kind_of(&other))))
                }
                Err(e) => return Err(bad_arguments(call, i, &format!("not valid JSON: {e}"))),
            }
        };
        actions.push(Action { tool_call_id: call.id.clone(), tool_name: call.name.clone(), arguments });
    }
    Ok(actions)
}

/// `invalid_json` for call `i`: `tool call "<id>" (<name>): arguments are <why>`.
fn bad_arguments(call: &ToolCall, i: usize, why: &str) -> Error {
    let message = format!("tool call {} ({}): arguments are {why}", quoted(&call.id), call.name);
    Error::new(ErrorCode::InvalidJson, message).with_path(format!("toolCalls[{i}].arguments"))
}

/// `invalid_json` at `$`.
fn invalid_output(message: String) -> Error {
    Error::new(ErrorCode::InvalidJson, message).with_path("$")
}

/// Options of [`parse_structured_output`].
#[derive(Debug, Clone, Copy, Default)]
pub struct StructuredOptions {
    /// Accept the usual damage of model output when the text is not JSON as it stands: a
    /// fenced ```` ```json ```` block, prose around exactly one balanced object, trailing commas.
    /// A repair that does not yield one object is still an error, never `{}`.
    pub lenient: bool,
}

/// Parses `text` as JSON and validates it against `outputs`, the properties of the expected
/// object (types with integer apart from float, required, enums, nested objects and arrays, no
/// unknown keys: structured output is always strict, `docs/design.md`, "Dispatch").
///
/// Numbers are read as `JSON.parse` reads them, as in [`parse_tool_arguments`]: `1e400` is
/// infinity, a number (so a `float`, never an `integer`).
///
/// Text that is not JSON is `invalid_json` (path `$`); a value that breaks the schema is
/// `validation_failed` with the JSON path of the first violation, e.g. `$.items[2].name`.
pub fn parse_structured_output(text: &str, outputs: &[Property], options: StructuredOptions) -> Result<Value> {
    let value = match parse_value_as_js(text.trim()) {
        Ok(value) => value,
        Err(e) if options.lenient => match lenient::repair(text) {
            Ok(value) => value,
            Err(why) => {
                return Err(invalid_output(format!("the output is not JSON ({e}) and cannot be repaired: {why}")))
            }
        },
        Err(e) => return Err(invalid_output(format!("the output is not JSON: {e}"))),
    };
    validate::object(&value, outputs, &mut validate::JsonPath::root())?;
    Ok(value)
}
