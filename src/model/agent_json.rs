//! Reading Agent and Message from JSON, with an exact path on every invalid_input error.
//!
//! Readers take the path of the value they read (`agent.tools[1]`) and extend it for every
//! field, so an error names the exact place: `agent.tools[1].parameters[0].kind`.
//!
//! Written for size: one typed field reader and one "expected …, got …" error for every kind
//! of field, one loop (`each`) over the lists of tools, properties, messages and parts,
//! messages built with `concat` rather than `format!`. Values are filled in place (a blank
//! agent, tool, property or message first, its fields written by readers that return only the
//! error), so a failure drops the one half-read value instead of a ladder of parts, and no
//! call site copies out a `Result`.

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

    /// A string field, borrowed.
    #[inline(never)]
    fn str_of(&self, key: &str) -> Result<Option<&'a str>> {
        Ok(self.typed(key, STRING)?.and_then(Value::as_str))
    }

    // The string readers write into the field they fill and return only the error (one word):
    // a returned `Result<String>` is copied out and matched at every call site.

    /// A string field into `slot`, `None` when absent (or empty, unless `keep_empty`).
    #[inline(never)]
    fn opt_str(&self, key: &str, slot: &mut Option<String>, keep_empty: bool) -> Result<()> {
        *slot = self.str_of(key)?.filter(|s| keep_empty || !s.is_empty()).map(str::to_owned);
        Ok(())
    }

    /// A string field into `slot`, empty when absent.
    #[inline(never)]
    fn str_or_empty(&self, key: &str, slot: &mut String) -> Result<()> {
        *slot = self.str_of(key)?.unwrap_or_default().to_owned();
        Ok(())
    }

    /// A string that must be present and non-empty.
    #[inline(never)]
    fn req_str(&self, key: &str, slot: &mut String) -> Result<()> {
        self.str_or_empty(key, slot)?;
        if slot.is_empty() {
            return Err(Error::invalid_input(self.at(key), concat(&["`", key, "` is required"])));
        }
        Ok(())
    }

    /// A string from a closed list of values (space-separated).
    #[inline(never)]
    fn one_of(&self, key: &str, allowed: &str, default: Option<&str>, slot: &mut String) -> Result<()> {
        let got = match (self.str_of(key)?, default) {
            (Some(s), _) if crate::json::key_index(s.as_bytes(), allowed) != usize::MAX => s,
            (None, Some(d)) => d,
            (Some(s), _) => return Err(self.not_one_of(key, allowed, &crate::json::write::quoted(s))),
            (None, None) => return Err(self.not_one_of(key, allowed, "nothing")),
        };
        *slot = got.to_owned();
        Ok(())
    }

    fn not_one_of(&self, key: &str, allowed: &str, got: &str) -> Error {
        let mut message = String::from("expected one of ");
        // The lists are ASCII: a byte is its char.
        for &b in allowed.as_bytes() {
            match b {
                b' ' => message.push_str(", "),
                b => message.push(char::from(b)),
            }
        }
        message.push_str(", got ");
        message.push_str(got);
        Error::invalid_input(self.at(key), message)
    }

    #[inline(never)]
    fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        Ok(self.typed(key, BOOLEAN)?.and_then(Value::as_bool))
    }

    /// A boolean field into `slot`, false when absent.
    #[inline(never)]
    fn flag(&self, key: &str, slot: &mut bool) -> Result<()> {
        *slot = self.opt_bool(key)?.unwrap_or(false);
        Ok(())
    }

    /// An object field, copied into `slot` (empty when absent).
    #[inline(never)]
    fn map_into(&self, key: &str, slot: &mut Map) -> Result<()> {
        *slot = self.opt_object(key)?.cloned().unwrap_or_default();
        Ok(())
    }

    #[inline(never)]
    fn opt_number(&self, key: &str, slot: &mut Option<Value>) -> Result<()> {
        *slot = self.typed(key, NUMBER)?.cloned();
        Ok(())
    }

    fn opt_array(&self, key: &str) -> Result<&'a [Value]> {
        Ok(self.typed(key, ARRAY)?.and_then(Value::as_array).map_or(&[], Vec::as_slice))
    }

    fn opt_object(&self, key: &str) -> Result<Option<&'a Map>> {
        Ok(self.typed(key, OBJECT)?.and_then(Value::as_object))
    }

    #[inline(never)]
    fn strings(&self, key: &str, slot: &mut Option<Vec<String>>) -> Result<()> {
        if self.get(key).is_none() {
            return Ok(());
        }
        let path = self.at(key);
        let strings = slot.insert(Vec::new());
        for (i, item) in self.opt_array(key)?.iter().enumerate() {
            match item {
                Value::String(s) => strings.push(s.clone()),
                other => return Err(wrong(index(&path, i), STRING, other)),
            }
        }
        Ok(())
    }

    /// A property list appended onto `slot` (empty): an array, or Prompty's `{properties: [...]}`
    /// wrapper.
    #[inline(never)]
    fn properties(&self, key: &str, slot: &mut Vec<Property>) -> Result<()> {
        let path = self.at(key);
        match self.get(key) {
            None => Ok(()),
            Some(Value::Object(map)) if map.contains_key("properties") => {
                Obj { map, path: &path }.properties("properties", slot)
            }
            Some(value) => read_properties(value, &path, slot),
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

/// Reads every element of the array `value` at `path` with `read`, given the element's path.
/// One loop for every list, the element reader called through `dyn`.
#[inline(never)]
fn each(value: &Value, path: &str, read: &mut dyn FnMut(&Value, &str) -> Result<()>) -> Result<()> {
    let Value::Array(items) = value else { return Err(wrong(path.to_owned(), ARRAY, value)) };
    for (i, item) in items.iter().enumerate() {
        read(item, &index(path, i))?;
    }
    Ok(())
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
            each(list, &agent.at("tools"), &mut |item, path| read_tool(item, path, &mut read.tools))?;
        }
        agent.properties("outputs", &mut read.outputs)?;
        Ok(read)
    }
}

fn read_model(value: &Value, path: &str, read: &mut Model) -> Result<()> {
    let model = Obj::new(value, path)?;
    if let Some(options) = model.get("options") {
        read_options(options, &model.at("options"), &mut read.options)?;
    }
    model.req_str("id", &mut read.id)?;
    model.str_or_empty("provider", &mut read.provider)?;
    model.one_of("apiType", API_TYPES, Some("chat"), &mut read.api_type)?;
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
    // The keys a constant table, the slots beside them: no key is written to the stack.
    const NUMBERS: [&str; 6] =
        ["temperature", "maxOutputTokens", "topP", "topK", "frequencyPenalty", "presencePenalty"];
    let slots = [
        &mut read.temperature,
        &mut read.max_output_tokens,
        &mut read.top_p,
        &mut read.top_k,
        &mut read.frequency_penalty,
        &mut read.presence_penalty,
    ];
    for (key, slot) in NUMBERS.iter().zip(slots) {
        options.opt_number(key, slot)?;
    }
    options.strings("stopSequences", &mut read.stop_sequences)?;
    options.opt_number("seed", &mut read.seed)?;
    read.allow_multiple_tool_calls = options.opt_bool("allowMultipleToolCalls")?;
    options.map_into("additionalProperties", &mut read.additional_properties)?;
    Ok(())
}

impl Property {
    /// Reads a property list at `path` (for example `agent.outputs`).
    pub fn list_from_json(value: &Value, path: &str) -> Result<Vec<Property>> {
        let mut properties = Vec::new();
        read_properties(value, path, &mut properties)?;
        Ok(properties)
    }
}

/// Reads a property list at `path` onto `properties`.
fn read_properties(value: &Value, path: &str, properties: &mut Vec<Property>) -> Result<()> {
    each(value, path, &mut |item, path| read_property(item, path, true, push_blank(properties, Property::default())))
}

/// `blank` pushed onto `list`, to be filled in place there.
fn push_blank<T>(list: &mut Vec<T>, blank: T) -> &mut T {
    list.push(blank);
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
    if named {
        prop.req_str("name", &mut read.name)?;
    } else {
        prop.str_or_empty("name", &mut read.name)?;
    }
    prop.one_of("kind", KINDS, None, &mut read.kind)?;
    prop.opt_str("description", &mut read.description, false)?;
    prop.flag("required", &mut read.required)?;
    if prop.get("properties").is_some() {
        prop.properties("properties", read.properties.insert(Vec::new()))?;
    }
    Ok(())
}

/// Reads one tool onto the end of `tools`, filled in place there.
fn read_tool(value: &Value, path: &str, tools: &mut Vec<Tool>) -> Result<()> {
    let tool = Obj::new(value, path)?;
    let mut kind_name = String::new();
    tool.req_str("kind", &mut kind_name)?;
    let read = push_blank(
        tools,
        Tool {
            name: String::new(),
            description: None,
            strict: false,
            bindings: Map::new(),
            kind: ToolKind::Function { parameters: Vec::new() },
        },
    );
    tool.req_str("name", &mut read.name)?;
    let name = &read.name;
    // The kind's variant first, then its fields filled in place.
    read.kind = match crate::json::key_index(kind_name.as_bytes(), "function prompty mcp openapi") {
        0 => ToolKind::Function { parameters: Vec::new() },
        1 => ToolKind::Prompty { path: String::new(), child_description: None, child_inputs: Vec::new() },
        2 => ToolKind::Mcp { server_name: None, allowed_tools: None, tools: Vec::new() },
        3 => ToolKind::OpenApi { specification: Value::Null },
        _ => ToolKind::Custom { kind: kind_name, parameters_schema: None },
    };
    match &mut read.kind {
        ToolKind::Function { parameters } => tool.properties("parameters", parameters)?,
        ToolKind::Prompty { path, child_description, child_inputs } => {
            let child_path = tool.at("child");
            let child = match tool.get("child") {
                Some(child) => Obj::new(child, &child_path)?,
                None => {
                    return Err(tool_fail(
                        child_path,
                        "prompty",
                        name,
                        "` must carry its loaded child ({description?, inputs})",
                    ))
                }
            };
            tool.str_or_empty("path", path)?;
            child.opt_str("description", child_description, true)?;
            child.properties("inputs", child_inputs)?;
        }
        ToolKind::Mcp { server_name, allowed_tools, tools } => {
            tool.opt_str("serverName", server_name, true)?;
            tool.strings("allowedTools", allowed_tools)?;
            read_mcp_tools(&tool, name, tools)?;
        }
        ToolKind::OpenApi { specification } => read_specification(&tool, name, specification)?,
        ToolKind::Custom { parameters_schema, .. } => {
            *parameters_schema = tool.opt_object("parametersSchema")?.map(|m| Value::Object(m.clone()))
        }
    }
    tool.opt_str("description", &mut read.description, false)?;
    tool.flag("strict", &mut read.strict)?;
    read_bindings(&tool, &mut read.bindings)?;
    Ok(())
}

/// `<kind> tool `<name><why>` at `path`: a tool that lacks what its kind needs.
#[inline(never)]
fn tool_fail(path: String, kind: &str, name: &str, why: &str) -> Error {
    Error::invalid_input(path, concat(&[kind, " tool `", name, why]))
}

/// `tools` into `slot`: the `tools/list` result's array, or the whole result object `{tools: [...]}`.
fn read_mcp_tools(tool: &Obj<'_>, name: &str, slot: &mut Vec<Value>) -> Result<()> {
    let path = tool.at("tools");
    let tools = match tool.get("tools") {
        Some(Value::Object(result)) => Obj { map: result, path: &path }.opt_array("tools")?,
        Some(_) => tool.opt_array("tools")?,
        None => return Err(tool_fail(path, "mcp", name, "` must carry the server's tools/list result")),
    };
    for (i, item) in tools.iter().enumerate() {
        Obj::new(item, &index(&path, i))?.req_str("name", &mut String::new())?;
    }
    *slot = tools.to_vec();
    Ok(())
}

/// `specification` into `slot`: an OpenAPI document as an object, or as JSON text.
fn read_specification(tool: &Obj<'_>, name: &str, slot: &mut Value) -> Result<()> {
    let why = match tool.get("specification") {
        Some(doc @ Value::Object(_)) => {
            *slot = doc.clone();
            return Ok(());
        }
        Some(Value::String(text)) => match parse_value(text) {
            Ok(doc @ Value::Object(_)) => {
                *slot = doc;
                return Ok(());
            }
            _ => "`: the specification is not a JSON object",
        },
        _ => "` must carry its OpenAPI 3 document",
    };
    Err(tool_fail(tool.at("specification"), "openapi", name, why))
}

/// `bindings` into `map` (empty): `{param: {input}}`, or Prompty's list form `[{name, input}]`.
fn read_bindings(tool: &Obj<'_>, map: &mut Map) -> Result<()> {
    match tool.get("bindings") {
        None => {}
        Some(Value::Object(bindings)) => *map = bindings.clone(),
        Some(Value::Array(items)) => {
            let path = tool.at("bindings");
            for (i, item) in items.iter().enumerate() {
                let item_path = index(&path, i);
                let binding = Obj::new(item, &item_path)?;
                let mut name = String::new();
                binding.req_str("name", &mut name)?;
                map.insert(name, item.clone());
            }
        }
        Some(other) => return Err(wrong(tool.at("bindings"), OBJECT, other)),
    }
    Ok(())
}

impl Message {
    /// Reads a message list; errors carry paths starting with `messages`.
    pub fn list_from_json(value: &Value) -> Result<Vec<Message>> {
        let mut messages = Vec::new();
        each(value, "messages", &mut |item, path| {
            read_message(item, path, push_blank(&mut messages, blank_message()))
        })?;
        Ok(messages)
    }

    /// Reads one message at `path`.
    pub fn from_json(value: &Value, path: &str) -> Result<Message> {
        let mut read = blank_message();
        read_message(value, path, &mut read)?;
        Ok(read)
    }
}

/// A message to fill in place: no role, no parts, no metadata.
fn blank_message() -> Message {
    Message { role: String::new(), content: MessageContent::Parts(Vec::new()), metadata: Map::new() }
}

/// Reads one message into `read` (blank), filled in place.
fn read_message(value: &Value, path: &str, read: &mut Message) -> Result<()> {
    let message = Obj::new(value, path)?;
    match message.get("content") {
        // The blank message's content: no parts.
        None => {}
        Some(Value::String(text)) => read.content = MessageContent::Text(text.clone()),
        Some(list) => {
            let mut parts = Vec::new();
            each(list, &message.at("content"), &mut |item, path| {
                read_part(item, path, push_blank(&mut parts, ContentPart::default()))
            })?;
            read.content = MessageContent::Parts(parts);
        }
    }
    message.one_of("role", ROLES, None, &mut read.role)?;
    message.map_into("metadata", &mut read.metadata)?;
    Ok(())
}

fn read_part(value: &Value, path: &str, read: &mut ContentPart) -> Result<()> {
    let part = Obj::new(value, path)?;
    part.one_of("kind", PART_KINDS, None, &mut read.kind)?;
    match part.get("value") {
        Some(Value::String(s)) => read.value = s.clone(),
        // The default part's value: empty.
        None if read.kind == "text" => {}
        _ => {
            return Err(Error::invalid_input(
                part.at("value"),
                concat(&["a ", &read.kind, " part needs a string `value`"]),
            ))
        }
    }
    part.opt_str("mediaType", &mut read.media_type, false)?;
    // §7.1.2: an empty detail is never sent, so it is not kept either.
    part.opt_str("detail", &mut read.detail, false)?;
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
