//! Reading Agent and Message from JSON, with an exact path on every invalid_input error.
//!
//! Readers take the path of the value they read (`agent.tools[1]`) and extend it for every
//! field, so an error names the exact place: `agent.tools[1].parameters[0].kind`. Every reader
//! returns what it read; the first error found ends the read.

use super::agent::{Agent, ContentPart, Message, MessageContent, Model, ModelOptions, Property, Tool, ToolKind};
use super::continuity::{assistant_turn, blocks_calls, blocks_text};
use super::{Block, RawJson, ToolCall};
use crate::error::{Error, Result};
use crate::json::value::parse_value;
use crate::json::{Map, Value};
use crate::request::wire::{field, index};

const PROPERTY_KINDS: &[&str] = &["string", "integer", "float", "boolean", "array", "object"];
const ROLES: &[&str] = &["system", "developer", "user", "assistant", "tool"];
const PART_KINDS: &[&str] = &["text", "image", "audio", "file"];
const API_TYPES: &[&str] = &["chat", "responses", "embedding", "image"];
const BLOCK_TYPES: &[&str] = &["text", "tool_call", "reasoning", "other"];
const MODEL_OPTIONS: &[&str] = &[
    "temperature",
    "maxOutputTokens",
    "topP",
    "topK",
    "frequencyPenalty",
    "presencePenalty",
    "stopSequences",
    "seed",
    "allowMultipleToolCalls",
    "additionalProperties",
];

/// The JSON types, as the error messages name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonType {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
}

impl JsonType {
    fn of(value: &Value) -> JsonType {
        match value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Number(_) => JsonType::Number,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "a boolean",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        }
    }
}

/// `expected <want>, got <the type of got>`: a value of the wrong JSON type at `path`.
fn wrong_type(path: String, want: JsonType, got: &Value) -> Error {
    Error::invalid_input(path, format!("expected {}, got {}", want.name(), JsonType::of(got).name()))
}

/// A JSON object being read, with its path.
struct Obj<'a> {
    map: &'a Map,
    path: &'a str,
}

impl<'a> Obj<'a> {
    fn new(value: &'a Value, path: &'a str) -> Result<Self> {
        match value {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(wrong_type(path.to_owned(), JsonType::Object, other)),
        }
    }

    fn at(&self, key: &str) -> String {
        field(self.path, key)
    }

    /// The field, with JSON `null` read as absent.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// The field when present, which must then be of the JSON type `want`.
    fn typed(&self, key: &str, want: JsonType) -> Result<Option<&'a Value>> {
        match self.get(key) {
            Some(value) if JsonType::of(value) != want => Err(wrong_type(self.at(key), want, value)),
            found => Ok(found),
        }
    }

    fn str(&self, key: &str) -> Result<Option<&'a str>> {
        Ok(self.typed(key, JsonType::String)?.and_then(Value::as_str))
    }

    /// A string field, empty when absent.
    fn string(&self, key: &str) -> Result<String> {
        Ok(self.str(key)?.unwrap_or_default().to_owned())
    }

    /// A string field that must be present and non-empty.
    fn required_string(&self, key: &str) -> Result<String> {
        let read = self.string(key)?;
        if read.is_empty() {
            return Err(Error::invalid_input(self.at(key), format!("`{key}` is required")));
        }
        Ok(read)
    }

    /// A string field, `None` when absent or empty.
    fn non_empty_string(&self, key: &str) -> Result<Option<String>> {
        Ok(self.str(key)?.filter(|s| !s.is_empty()).map(str::to_owned))
    }

    /// A string field, `None` only when absent.
    fn optional_string(&self, key: &str) -> Result<Option<String>> {
        Ok(self.str(key)?.map(str::to_owned))
    }

    /// A string from a closed list of values; `default` when absent (an error without one).
    fn one_of(&self, key: &str, allowed: &[&str], default: Option<&str>) -> Result<String> {
        let got = match (self.str(key)?, default) {
            (Some(s), _) if allowed.contains(&s) => return Ok(s.to_owned()),
            (None, Some(default)) => return Ok(default.to_owned()),
            (Some(s), _) => crate::json::write::quoted(s),
            (None, None) => "nothing".to_owned(),
        };
        Err(Error::invalid_input(self.at(key), format!("expected one of {}, got {got}", allowed.join(", "))))
    }

    fn bool(&self, key: &str) -> Result<Option<bool>> {
        Ok(self.typed(key, JsonType::Boolean)?.and_then(Value::as_bool))
    }

    /// A boolean field, false when absent.
    fn flag(&self, key: &str) -> Result<bool> {
        Ok(self.bool(key)?.unwrap_or(false))
    }

    /// A number field, kept as the JSON number it is.
    fn number(&self, key: &str) -> Result<Option<Value>> {
        Ok(self.typed(key, JsonType::Number)?.cloned())
    }

    /// An array field, empty when absent.
    fn array(&self, key: &str) -> Result<&'a [Value]> {
        Ok(self.typed(key, JsonType::Array)?.and_then(Value::as_array).map_or(&[], Vec::as_slice))
    }

    fn object(&self, key: &str) -> Result<Option<&'a Map>> {
        Ok(self.typed(key, JsonType::Object)?.and_then(Value::as_object))
    }

    /// An array of strings, `None` when absent.
    fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        let Some(list) = self.typed(key, JsonType::Array)? else { return Ok(None) };
        let path = self.at(key);
        let read = read_list(list, &path, |item, item_path| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(wrong_type(item_path.to_owned(), JsonType::String, other)),
        })?;
        Ok(Some(read))
    }

    /// A property list: an array, or Prompty's `{properties: [...]}` wrapper; empty when absent.
    fn properties(&self, key: &str) -> Result<Vec<Property>> {
        let path = self.at(key);
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Object(map)) if map.contains_key("properties") => {
                Obj { map, path: &path }.properties("properties")
            }
            Some(value) => read_properties(value, &path),
        }
    }
}

/// Every element of the array `value` at `path`, read with `read` given the element's path.
fn read_list<T>(value: &Value, path: &str, mut read: impl FnMut(&Value, &str) -> Result<T>) -> Result<Vec<T>> {
    let Value::Array(items) = value else { return Err(wrong_type(path.to_owned(), JsonType::Array, value)) };
    items.iter().enumerate().map(|(i, item)| read(item, &index(path, i))).collect()
}

impl Agent {
    /// Reads an agent (docs/design.md, "Inputs"); errors carry paths starting with `agent`.
    pub fn from_json(value: &Value) -> Result<Agent> {
        let agent = Obj::new(value, "agent")?;
        let model = match agent.get("model") {
            // Prompty's shorthand: `model: "gpt-4o"`.
            Some(Value::String(id)) if !id.is_empty() => Model { id: id.clone(), ..Model::default() },
            Some(model) => read_model(model, &agent.at("model"))?,
            None => return Err(Error::invalid_input("agent.model.id", "the model id is required")),
        };
        let tools = match agent.get("tools") {
            Some(list) => read_list(list, &agent.at("tools"), read_tool)?,
            None => Vec::new(),
        };
        let outputs = agent.properties("outputs")?;
        Ok(Agent { model, tools, outputs })
    }
}

fn read_model(value: &Value, path: &str) -> Result<Model> {
    let model = Obj::new(value, path)?;
    let options = match model.get("options") {
        Some(options) => read_options(options, &model.at("options"))?,
        None => ModelOptions::default(),
    };
    let id = model.required_string("id")?;
    let provider = model.string("provider")?;
    let api_type = model.one_of("apiType", API_TYPES, Some("chat"))?;
    Ok(Model { id, provider, api_type, options })
}

fn read_options(value: &Value, path: &str) -> Result<ModelOptions> {
    let options = Obj::new(value, path)?;
    // A misspelt or provider-specific option would otherwise vanish without a trace.
    if let Some(key) = options.map.keys().find(|key| !MODEL_OPTIONS.contains(&key.as_str())) {
        return Err(Error::invalid_input(
            options.at(key),
            format!("unknown model option `{key}`; provider-specific options go in `additionalProperties`"),
        ));
    }
    // Read in this order, so the first bad option is the one reported.
    let temperature = options.number("temperature")?;
    let max_output_tokens = options.number("maxOutputTokens")?;
    let top_p = options.number("topP")?;
    let top_k = options.number("topK")?;
    let frequency_penalty = options.number("frequencyPenalty")?;
    let presence_penalty = options.number("presencePenalty")?;
    let stop_sequences = options.strings("stopSequences")?;
    let seed = options.number("seed")?;
    let allow_multiple_tool_calls = options.bool("allowMultipleToolCalls")?;
    let additional_properties = options.object("additionalProperties")?.cloned().unwrap_or_default();
    Ok(ModelOptions {
        temperature,
        max_output_tokens,
        top_p,
        top_k,
        frequency_penalty,
        presence_penalty,
        stop_sequences,
        seed,
        allow_multiple_tool_calls,
        additional_properties,
    })
}

impl Property {
    /// Reads a property list at `path` (for example `agent.outputs`).
    pub fn list_from_json(value: &Value, path: &str) -> Result<Vec<Property>> {
        read_properties(value, path)
    }
}

fn read_properties(value: &Value, path: &str) -> Result<Vec<Property>> {
    read_list(value, path, |item, item_path| read_property(item, item_path, true))
}

/// Reads one property; `named` is false for array `items`, whose name means nothing.
fn read_property(value: &Value, path: &str, named: bool) -> Result<Property> {
    let prop = Obj::new(value, path)?;
    let items = match prop.get("items") {
        Some(items) => Some(Box::new(read_property(items, &prop.at("items"), false)?)),
        None => None,
    };
    let enum_values = prop.typed("enumValues", JsonType::Array)?.and_then(Value::as_array).cloned();
    let name = if named { prop.required_string("name")? } else { prop.string("name")? };
    let kind = prop.one_of("kind", PROPERTY_KINDS, None)?;
    let description = prop.non_empty_string("description")?;
    let required = prop.flag("required")?;
    let properties = match prop.get("properties") {
        Some(_) => Some(prop.properties("properties")?),
        None => None,
    };
    Ok(Property { name, kind, description, required, enum_values, properties, items })
}

fn read_tool(value: &Value, path: &str) -> Result<Tool> {
    let tool = Obj::new(value, path)?;
    let kind_name = tool.required_string("kind")?;
    let name = tool.required_string("name")?;
    let kind = match kind_name.as_str() {
        "function" => ToolKind::Function { parameters: tool.properties("parameters")? },
        "prompty" => read_prompty(&tool, &name)?,
        "mcp" => read_mcp(&tool, &name)?,
        "openapi" => ToolKind::OpenApi { specification: read_specification(&tool, &name)? },
        _ => {
            let parameters_schema = tool.object("parametersSchema")?.map(|schema| Value::Object(schema.clone()));
            ToolKind::Custom { kind: kind_name, parameters_schema }
        }
    };
    let description = tool.non_empty_string("description")?;
    let strict = tool.flag("strict")?;
    let bindings = read_bindings(&tool)?;
    Ok(Tool { name, description, strict, bindings, kind })
}

/// A prompty tool, which carries its child already loaded: `{description?, inputs}`.
fn read_prompty(tool: &Obj<'_>, name: &str) -> Result<ToolKind> {
    let child_path = tool.at("child");
    let Some(child) = tool.get("child") else {
        return Err(Error::invalid_input(
            child_path,
            format!("prompty tool `{name}` must carry its loaded child ({{description?, inputs}})"),
        ));
    };
    let child = Obj::new(child, &child_path)?;
    let path = tool.string("path")?;
    let child_description = child.optional_string("description")?;
    let child_inputs = child.properties("inputs")?;
    Ok(ToolKind::Prompty { path, child_description, child_inputs })
}

/// An MCP tool, which carries the server's `tools/list` result: its array, or the whole result
/// object `{tools: [...]}`.
fn read_mcp(tool: &Obj<'_>, name: &str) -> Result<ToolKind> {
    let server_name = tool.optional_string("serverName")?;
    let allowed_tools = tool.strings("allowedTools")?;
    let path = tool.at("tools");
    let tools = match tool.get("tools") {
        Some(Value::Object(result)) => Obj { map: result, path: &path }.array("tools")?,
        Some(_) => tool.array("tools")?,
        None => {
            return Err(Error::invalid_input(
                path,
                format!("mcp tool `{name}` must carry the server's tools/list result"),
            ))
        }
    };
    for (i, item) in tools.iter().enumerate() {
        Obj::new(item, &index(&path, i))?.required_string("name")?;
    }
    Ok(ToolKind::Mcp { server_name, allowed_tools, tools: tools.to_vec() })
}

/// An OpenAPI document, given as an object or as JSON text.
fn read_specification(tool: &Obj<'_>, name: &str) -> Result<Value> {
    let path = tool.at("specification");
    match tool.get("specification") {
        Some(doc @ Value::Object(_)) => Ok(doc.clone()),
        Some(Value::String(text)) => match parse_value(text) {
            Ok(doc @ Value::Object(_)) => Ok(doc),
            _ => Err(Error::invalid_input(
                path,
                format!("openapi tool `{name}`: the specification is not a JSON object"),
            )),
        },
        _ => Err(Error::invalid_input(path, format!("openapi tool `{name}` must carry its OpenAPI 3 document"))),
    }
}

/// `bindings`: `{param: {input}}`, or Prompty's list form `[{name, input}]` (a name given twice
/// keeps its last binding).
fn read_bindings(tool: &Obj<'_>) -> Result<Map> {
    match tool.get("bindings") {
        None => Ok(Map::new()),
        Some(Value::Object(bindings)) => Ok(bindings.clone()),
        Some(list @ Value::Array(_)) => {
            let named = read_list(list, &tool.at("bindings"), |item, path| {
                Ok((Obj::new(item, path)?.required_string("name")?, item.clone()))
            })?;
            Ok(named.into_iter().collect())
        }
        Some(other) => Err(wrong_type(tool.at("bindings"), JsonType::Object, other)),
    }
}

impl Message {
    /// Reads a message list; errors carry paths starting with `messages`.
    pub fn list_from_json(value: &Value) -> Result<Vec<Message>> {
        read_list(value, "messages", read_message)
    }

    /// Reads one message at `path`.
    pub fn from_json(value: &Value, path: &str) -> Result<Message> {
        read_message(value, path)
    }
}

fn read_message(value: &Value, path: &str) -> Result<Message> {
    if is_final_message(value) {
        return Message::from_final_json(value, path);
    }
    let message = Obj::new(value, path)?;
    let content = match message.get("content") {
        None => MessageContent::Parts(Vec::new()),
        Some(Value::String(text)) => MessageContent::Text(text.clone()),
        Some(list) => MessageContent::Parts(read_list(list, &message.at("content"), read_part)?),
    };
    let role = message.one_of("role", ROLES, None)?;
    let metadata = message.object("metadata")?.cloned().unwrap_or_default();
    Ok(Message { role, content, metadata })
}

fn read_part(value: &Value, path: &str) -> Result<ContentPart> {
    let part = Obj::new(value, path)?;
    let kind = part.one_of("kind", PART_KINDS, None)?;
    let value = match part.get("value") {
        Some(Value::String(s)) => s.clone(),
        None if kind == "text" => String::new(),
        _ => return Err(Error::invalid_input(part.at("value"), format!("a {kind} part needs a string `value`"))),
    };
    let media_type = part.non_empty_string("mediaType")?;
    // §7.1.2: an empty detail is never sent, so it is not kept either.
    let detail = part.non_empty_string("detail")?;
    Ok(ContentPart { kind, value, media_type, detail })
}

/// Whether a message in a list is a `FinalMessage` (docs/design.md, "Inputs"): the assistant's
/// (or of no role), and its `content` is a list of blocks (items with `type`, where parts have
/// `kind`), or it has `toolCalls` or `finishReason`. A message of another role is read as one,
/// so that its errors name its parts.
fn is_final_message(value: &Value) -> bool {
    let Some(map) = value.as_object() else { return false };
    if map.get("role").is_some_and(|role| !role.is_null() && role.as_str() != Some("assistant")) {
        return false;
    }
    let has = |key: &str| map.get(key).is_some_and(|v| !v.is_null());
    let block_list = match map.get("content") {
        Some(Value::Array(items)) => items.first().and_then(Value::as_object).is_some_and(|first| {
            first.get("type").is_some_and(|t| !t.is_null()) && !first.get("kind").is_some_and(|k| !k.is_null())
        }),
        _ => false,
    };
    block_list || has("toolCalls") || has("finishReason")
}

impl Message {
    /// A `FinalMessage` given as JSON, as the assistant message [`super::FinalMessage::to_message`]
    /// makes of it: its blocks read with exact paths (`path.content[2].type`), its text and tool
    /// calls taken from `text` and `toolCalls`, or from the blocks when those are absent. One
    /// without `content` has no blocks: it is its text and tool calls.
    pub fn from_final_json(value: &Value, path: &str) -> Result<Message> {
        let message = Obj::new(value, path)?;
        message.one_of("role", &["assistant"], Some("assistant"))?;
        let content = message.get("content");
        let blocks = match content {
            Some(list) => read_blocks(list, &message.at("content"))?,
            None => Vec::new(),
        };
        let text = match message.str("text")? {
            Some(text) => text.to_owned(),
            None => blocks_text(&blocks),
        };
        let calls = match message.get("toolCalls") {
            Some(list) => read_list(list, &message.at("toolCalls"), read_tool_call)?,
            None => blocks_calls(&blocks),
        };
        Ok(assistant_turn(text, &calls, content.map(|_| blocks.as_slice())))
    }
}

/// A tool call of a `FinalMessage`: `{id, name, arguments}`, `arguments` a JSON string or an
/// object (written as JSON).
fn read_tool_call(value: &Value, path: &str) -> Result<ToolCall> {
    let call = Obj::new(value, path)?;
    Ok(ToolCall { id: call.required_string("id")?, name: call.required_string("name")?, arguments: arguments(&call)? })
}

/// `arguments`: a JSON string, or an object or array written as JSON; empty when absent.
fn arguments(obj: &Obj<'_>) -> Result<String> {
    match obj.get("arguments") {
        None => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(value @ (Value::Object(_) | Value::Array(_))) => Ok(value.to_string()),
        Some(other) => Err(wrong_type(obj.at("arguments"), JsonType::String, other)),
    }
}

/// A list of `FinalMessage` content blocks at `path` (`metadata.blocks`, or a `FinalMessage`'s
/// `content`).
pub(crate) fn read_blocks(value: &Value, path: &str) -> Result<Vec<Block>> {
    read_list(value, path, read_block)
}

fn read_block(value: &Value, path: &str) -> Result<Block> {
    let block = Obj::new(value, path)?;
    let kind = block.one_of("type", BLOCK_TYPES, None)?;
    Ok(match kind.as_str() {
        "text" => {
            let citations = match block.typed("citations", JsonType::Array)? {
                Some(Value::Array(list)) => Some(list.iter().map(raw).collect()),
                _ => None,
            };
            Block::Text { text: block.string("text")?, citations, signature: block.optional_string("signature")? }
        }
        "tool_call" => Block::ToolCall {
            id: block.required_string("id")?,
            name: block.required_string("name")?,
            arguments: arguments(&block)?,
            signature: block.optional_string("signature")?,
        },
        "reasoning" => Block::Reasoning {
            text: block.string("text")?,
            signature: block.optional_string("signature")?,
            redacted: block.optional_string("redacted")?,
            id: block.optional_string("id")?,
            encrypted_content: block.optional_string("encryptedContent")?,
            format: block.optional_string("format")?,
        },
        _ => Block::Other {
            provider_type: block.required_string("providerType")?,
            data: block.get("data").map_or_else(RawJson::null, raw),
        },
    })
}

/// A value kept as JSON text, as the stream keeps a provider's.
fn raw(value: &Value) -> RawJson {
    RawJson::from_valid(&crate::request::wire::json(value))
}

#[cfg(test)]
mod tests {
    use crate::model::{Agent, Message};

    #[test]
    fn a_value_outside_a_closed_list_names_the_list() {
        let message = serde_json::json!([{"role": "robot", "content": "hi"}]);
        let err = Message::list_from_json(&message.into()).unwrap_err();
        assert_eq!(err.message, r#"expected one of system, developer, user, assistant, tool, got "robot""#);
        assert_eq!(err.path.as_deref(), Some("messages[0].role"));
        let agent = serde_json::json!({"model": {"id": "m", "apiType": 7}});
        let err = Agent::from_json(&agent.into()).unwrap_err();
        assert_eq!(err.message, "expected a string, got a number");
        let agent = serde_json::json!({"model": {"id": "m", "apiType": "rest"}});
        let err = Agent::from_json(&agent.into()).unwrap_err();
        assert_eq!(err.message, r#"expected one of chat, responses, embedding, image, got "rest""#);
        assert_eq!(err.path.as_deref(), Some("agent.model.apiType"));
        let err = Agent::from_json(&serde_json::json!({"model": {}}).into()).unwrap_err();
        assert_eq!(err.message, "`id` is required");
    }
}
