//! Reading Agent and Message from JSON, with an exact path on every invalid_input error.
//!
//! Readers take the path of the value they read (`agent.tools[1]`) and extend it for every
//! field, so an error names the exact place: `agent.tools[1].parameters[0].kind`.
//!
//! Written for size: one typed field reader and one "expected …, got …" error for every kind
//! of field, plain loops over arrays, messages built with `concat` rather than `format!`.

use super::agent::{Agent, ContentPart, Message, MessageContent, Model, ModelOptions, Property, Tool, ToolKind};
use crate::error::{Error, Result};
use crate::json::value::parse_value;
use crate::json::{Map, Value};
use crate::request::wire::{field, index};
use crate::text::concat;

// The closed lists of values, space-separated (as `json::key_index` reads them).
const KINDS: &str = "string integer float boolean array object";
const ROLES: &str = "system developer user assistant tool";
/// The content part kinds (also read by the OpenAI Chat request writer).
pub(crate) const PART_KINDS: &str = "text image audio file";
/// The `apiType` values (also read by `request::Api::of`).
pub(crate) const API_TYPES: &str = "chat responses embedding image";

const STRING: &str = "a string";
const BOOLEAN: &str = "a boolean";
const NUMBER: &str = "a number";
const ARRAY: &str = "an array";
const OBJECT: &str = "an object";

/// A JSON object being read, with its path. Its readers are kept out of line: they are called
/// from dozens of places in this cold code, and inlined copies only made the module bigger.
struct Obj<'a> {
    map: &'a Map,
    path: &'a str,
}

impl<'a> Obj<'a> {
    #[inline(never)]
    fn new(value: &'a Value, path: &'a str) -> Result<Self> {
        match value {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(wrong(path.to_owned(), OBJECT, other)),
        }
    }

    fn at(&self, key: &str) -> String {
        field(self.path, key)
    }

    /// The field, with JSON `null` read as absent.
    #[inline(never)]
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// The field when it is of the JSON type `want` (one of the type names above).
    #[inline(never)]
    fn typed(&self, key: &str, want: &str) -> Result<Option<&'a Value>> {
        match self.get(key) {
            Some(value) if type_name(value) != want => Err(wrong(self.at(key), want, value)),
            found => Ok(found),
        }
    }

    #[inline(never)]
    fn opt_str(&self, key: &str) -> Result<Option<String>> {
        Ok(self.typed(key, STRING)?.and_then(Value::as_str).map(str::to_owned))
    }

    /// A string that must be present and non-empty.
    #[inline(never)]
    fn req_str(&self, key: &str) -> Result<String> {
        match self.opt_str(key)? {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(Error::invalid_input(self.at(key), concat(&["`", key, "` is required"]))),
        }
    }

    /// A string from a closed list of values (space-separated).
    #[inline(never)]
    fn one_of(&self, key: &str, allowed: &str, default: Option<&str>) -> Result<String> {
        let got = match (self.opt_str(key)?, default) {
            (Some(s), _) if crate::json::key_index(s.as_bytes(), allowed) != usize::MAX => return Ok(s),
            (None, Some(d)) => return Ok(d.to_owned()),
            (Some(s), _) => crate::json::write::quoted(&s),
            (None, None) => "nothing".to_owned(),
        };
        let mut message = String::from("expected one of ");
        // The lists are ASCII: a byte is its char.
        for &b in allowed.as_bytes() {
            match b {
                b' ' => message.push_str(", "),
                b => message.push(char::from(b)),
            }
        }
        message.push_str(", got ");
        message.push_str(&got);
        Err(Error::invalid_input(self.at(key), message))
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        Ok(self.typed(key, BOOLEAN)?.and_then(Value::as_bool))
    }

    fn opt_number(&self, key: &str) -> Result<Option<Value>> {
        Ok(self.typed(key, NUMBER)?.cloned())
    }

    fn opt_array(&self, key: &str) -> Result<&'a [Value]> {
        Ok(self.typed(key, ARRAY)?.and_then(Value::as_array).map_or(&[], Vec::as_slice))
    }

    fn opt_object(&self, key: &str) -> Result<Option<&'a Map>> {
        Ok(self.typed(key, OBJECT)?.and_then(Value::as_object))
    }

    #[inline(never)]
    fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        if self.get(key).is_none() {
            return Ok(None);
        }
        let path = self.at(key);
        let mut strings = Vec::new();
        for (i, item) in self.opt_array(key)?.iter().enumerate() {
            match item {
                Value::String(s) => strings.push(s.clone()),
                other => return Err(wrong(index(&path, i), STRING, other)),
            }
        }
        Ok(Some(strings))
    }

    /// A property list: an array, or Prompty's `{properties: [...]}` wrapper.
    #[inline(never)]
    fn properties(&self, key: &str) -> Result<Vec<Property>> {
        let path = self.at(key);
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Object(map)) if map.contains_key("properties") => {
                Obj { map, path: &path }.properties("properties")
            }
            Some(value) => Property::list_from_json(value, &path),
        }
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => BOOLEAN,
        Value::Number(_) => NUMBER,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

/// `expected <want>, got <what value is>` at `path`.
#[inline(never)]
fn wrong(path: String, want: &str, got: &Value) -> Error {
    Error::invalid_input(path, concat(&["expected ", want, ", got ", type_name(got)]))
}

/// The elements of an array at `path`.
#[inline(never)]
fn items<'v>(value: &'v Value, path: &str) -> Result<&'v [Value]> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(wrong(path.to_owned(), ARRAY, other)),
    }
}

impl Agent {
    /// Reads an agent (DESIGN.md §2); errors carry paths starting with `agent`.
    pub fn from_json(value: &Value) -> Result<Agent> {
        let agent = Obj::new(value, "agent")?;
        // Filled in place: a failure drops the one agent, not a ladder of half-read parts.
        let mut read = Agent::default();
        match agent.get("model") {
            // Prompty's shorthand: `model: "gpt-4o"`.
            Some(Value::String(id)) if !id.is_empty() => read.model.id = id.clone(),
            Some(model) => read_model(model, &agent.at("model"), &mut read.model)?,
            None => return Err(Error::invalid_input("agent.model.id", "the model id is required")),
        }
        if let Some(list) = agent.get("tools") {
            let path = agent.at("tools");
            for (i, item) in items(list, &path)?.iter().enumerate() {
                read_tool(item, &index(&path, i), &mut read.tools)?;
            }
        }
        read.outputs = agent.properties("outputs")?;
        Ok(read)
    }
}

fn read_model(value: &Value, path: &str, read: &mut Model) -> Result<()> {
    let model = Obj::new(value, path)?;
    if let Some(options) = model.get("options") {
        read_options(options, &model.at("options"), &mut read.options)?;
    }
    read.id = model.req_str("id")?;
    read.provider = model.opt_str("provider")?.unwrap_or_default();
    read.api_type = model.one_of("apiType", API_TYPES, Some("chat"))?;
    Ok(())
}

fn read_options(value: &Value, path: &str, read: &mut ModelOptions) -> Result<()> {
    let options = Obj::new(value, path)?;
    const KNOWN: &str = "temperature maxOutputTokens topP topK frequencyPenalty presencePenalty stopSequences seed \
                         allowMultipleToolCalls additionalProperties";
    // A misspelt or provider-specific option would otherwise vanish without a trace.
    if let Some(key) = options.map.keys().find(|k| crate::json::key_index(k.as_bytes(), KNOWN) == usize::MAX) {
        return Err(Error::invalid_input(
            options.at(key),
            concat(&["unknown model option `", key, "`; provider-specific options go in `additionalProperties`"]),
        ));
    }
    for (key, slot) in [
        ("temperature", &mut read.temperature),
        ("maxOutputTokens", &mut read.max_output_tokens),
        ("topP", &mut read.top_p),
        ("topK", &mut read.top_k),
        ("frequencyPenalty", &mut read.frequency_penalty),
        ("presencePenalty", &mut read.presence_penalty),
    ] {
        *slot = options.opt_number(key)?;
    }
    read.stop_sequences = options.strings("stopSequences")?;
    read.seed = options.opt_number("seed")?;
    read.allow_multiple_tool_calls = options.opt_bool("allowMultipleToolCalls")?;
    read.additional_properties = options.opt_object("additionalProperties")?.cloned().unwrap_or_default();
    Ok(())
}

impl Property {
    /// Reads a property list at `path` (for example `agent.outputs`).
    pub fn list_from_json(value: &Value, path: &str) -> Result<Vec<Property>> {
        let mut properties = Vec::new();
        for (i, item) in items(value, path)?.iter().enumerate() {
            read_property(item, &index(path, i), true, push_default(&mut properties))?;
        }
        Ok(properties)
    }
}

/// A default value pushed onto `list`, to be filled in place.
fn push_default<T: Default>(list: &mut Vec<T>) -> &mut T {
    list.push(T::default());
    let last = list.len() - 1;
    &mut list[last]
}

/// Reads one property into `read`; `named` is false for array `items`, whose name means nothing.
fn read_property(value: &Value, path: &str, named: bool, read: &mut Property) -> Result<()> {
    let prop = Obj::new(value, path)?;
    if let Some(items) = prop.get("items") {
        read_property(items, &prop.at("items"), false, read.items.insert(Box::default()))?;
    }
    read.enum_values = prop.typed("enumValues", ARRAY)?.and_then(Value::as_array).cloned();
    read.name = if named { prop.req_str("name")? } else { prop.opt_str("name")?.unwrap_or_default() };
    read.kind = prop.one_of("kind", KINDS, None)?;
    read.description = prop.opt_str("description")?.filter(|d| !d.is_empty());
    read.required = prop.opt_bool("required")?.unwrap_or(false);
    if prop.get("properties").is_some() {
        read.properties = Some(prop.properties("properties")?);
    }
    Ok(())
}

/// Reads one tool onto the end of `tools`, filled in place there.
fn read_tool(value: &Value, path: &str, tools: &mut Vec<Tool>) -> Result<()> {
    let tool = Obj::new(value, path)?;
    let kind_name = tool.req_str("kind")?;
    tools.push(Tool {
        name: String::new(),
        description: None,
        strict: false,
        bindings: Map::new(),
        kind: ToolKind::Function { parameters: Vec::new() },
    });
    let Some(read) = tools.last_mut() else { return Ok(()) };
    read.name = tool.req_str("name")?;
    let name = &read.name;
    read.kind = match crate::json::key_index(kind_name.as_bytes(), "function prompty mcp openapi") {
        0 => ToolKind::Function { parameters: tool.properties("parameters")? },
        1 => {
            let child_path = tool.at("child");
            let child = match tool.get("child") {
                Some(child) => Obj::new(child, &child_path)?,
                None => {
                    return Err(Error::invalid_input(
                        child_path,
                        concat(&["prompty tool `", name, "` must carry its loaded child ({description?, inputs})"]),
                    ))
                }
            };
            ToolKind::Prompty {
                path: tool.opt_str("path")?.unwrap_or_default(),
                child_description: child.opt_str("description")?,
                child_inputs: child.properties("inputs")?,
            }
        }
        2 => ToolKind::Mcp {
            server_name: tool.opt_str("serverName")?,
            allowed_tools: tool.strings("allowedTools")?,
            tools: read_mcp_tools(&tool, name)?,
        },
        3 => ToolKind::OpenApi { specification: read_specification(&tool, name)? },
        _ => ToolKind::Custom {
            kind: kind_name,
            parameters_schema: tool.opt_object("parametersSchema")?.map(|m| Value::Object(m.clone())),
        },
    };
    read.description = tool.opt_str("description")?.filter(|d| !d.is_empty());
    read.strict = tool.opt_bool("strict")?.unwrap_or(false);
    read.bindings = read_bindings(&tool)?;
    Ok(())
}

/// `tools`: the `tools/list` result's array, or the whole result object `{tools: [...]}`.
fn read_mcp_tools(tool: &Obj<'_>, name: &str) -> Result<Vec<Value>> {
    let path = tool.at("tools");
    let tools = match tool.get("tools") {
        Some(Value::Object(result)) => Obj { map: result, path: &path }.opt_array("tools")?,
        Some(_) => tool.opt_array("tools")?,
        None => {
            return Err(Error::invalid_input(
                path,
                concat(&["mcp tool `", name, "` must carry the server's tools/list result"]),
            ))
        }
    };
    for (i, item) in tools.iter().enumerate() {
        Obj::new(item, &index(&path, i))?.req_str("name")?;
    }
    Ok(tools.to_vec())
}

/// `specification`: an OpenAPI document as an object, or as JSON text.
fn read_specification(tool: &Obj<'_>, name: &str) -> Result<Value> {
    let path = tool.at("specification");
    let why = match tool.get("specification") {
        Some(doc @ Value::Object(_)) => return Ok(doc.clone()),
        Some(Value::String(text)) => match parse_value(text) {
            Ok(doc @ Value::Object(_)) => return Ok(doc),
            _ => "`: the specification is not a JSON object",
        },
        _ => "` must carry its OpenAPI 3 document",
    };
    Err(Error::invalid_input(path, concat(&["openapi tool `", name, why])))
}

/// `bindings`: `{param: {input}}`, or Prompty's list form `[{name, input}]`, as one map.
fn read_bindings(tool: &Obj<'_>) -> Result<Map> {
    match tool.get("bindings") {
        None => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(Value::Array(items)) => {
            let path = tool.at("bindings");
            let mut map = Map::new();
            for (i, item) in items.iter().enumerate() {
                let item_path = index(&path, i);
                let binding = Obj::new(item, &item_path)?;
                map.insert(binding.req_str("name")?, item.clone());
            }
            Ok(map)
        }
        Some(other) => Err(wrong(tool.at("bindings"), OBJECT, other)),
    }
}

impl Message {
    /// Reads a message list; errors carry paths starting with `messages`.
    pub fn list_from_json(value: &Value) -> Result<Vec<Message>> {
        let mut messages = Vec::new();
        for (i, item) in items(value, "messages")?.iter().enumerate() {
            messages.push(Message::new("", ""));
            let last = messages.len() - 1;
            read_message(item, &index("messages", i), &mut messages[last])?;
        }
        Ok(messages)
    }

    /// Reads one message at `path`.
    pub fn from_json(value: &Value, path: &str) -> Result<Message> {
        let mut read = Message::new("", "");
        read_message(value, path, &mut read)?;
        Ok(read)
    }
}

/// Reads one message into `read`, filled in place.
fn read_message(value: &Value, path: &str, read: &mut Message) -> Result<()> {
    let message = Obj::new(value, path)?;
    read.content = match message.get("content") {
        None => MessageContent::Parts(Vec::new()),
        Some(Value::String(text)) => MessageContent::Text(text.clone()),
        Some(list) => {
            let path = message.at("content");
            let mut parts = Vec::new();
            for (j, item) in items(list, &path)?.iter().enumerate() {
                read_part(item, &index(&path, j), push_default(&mut parts))?;
            }
            MessageContent::Parts(parts)
        }
    };
    read.role = message.one_of("role", ROLES, None)?;
    read.metadata = message.opt_object("metadata")?.cloned().unwrap_or_default();
    Ok(())
}

fn read_part(value: &Value, path: &str, read: &mut ContentPart) -> Result<()> {
    let part = Obj::new(value, path)?;
    read.kind = part.one_of("kind", PART_KINDS, None)?;
    read.value = match part.get("value") {
        Some(Value::String(s)) => s.clone(),
        None if read.kind == "text" => String::new(),
        _ => {
            return Err(Error::invalid_input(
                part.at("value"),
                concat(&["a ", &read.kind, " part needs a string `value`"]),
            ))
        }
    };
    read.media_type = part.opt_str("mediaType")?.filter(|m| !m.is_empty());
    // §7.1.2: an empty detail is never sent, so it is not kept either.
    read.detail = part.opt_str("detail")?.filter(|d| !d.is_empty());
    Ok(())
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
