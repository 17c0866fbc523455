//! Gemini `generateContent` request bodies, the same for the Gemini API and Vertex AI
//! (docs/design.md, "Formats").
//!
//! System and developer text is `systemInstruction`; the other messages are `contents` turns of
//! role `user` or `model`, consecutive messages of one role joined in one turn, as tool results
//! must all be in the user turn after the calls. Tool calls are `functionCall` parts and tool
//! results `functionResponse` parts named by the call they answer. The options and structured
//! output go in `generationConfig`; the model is in the URL, not the body.

use std::collections::{BTreeMap, BTreeSet};

use super::data_url;
use super::schema::{self, Origin};
use super::Service;
use crate::error::{Error, Result};
use crate::json::value::parse_value;
use crate::json::write::quoted;
use crate::json::{Map, Value};
use crate::model::agent::{Tool, ToolKind};
use crate::model::continuity::BLOCKS;
use crate::model::{Agent, Block, ContentPart, Message, MessageContent, ToolCall};
use crate::providers::anthropic::request::sniff_media_type;
use crate::providers::openai_chat::request::unknown_part;
use crate::request::wire::{self, field, index, Array, Fields, Object};
use crate::request::{is_system, missing_call_id, system_text};
use crate::schema::object_schema;
use crate::tools::{project_tools_indexed, FunctionDef};

/// An `apiType` Gemini does not have.
pub(crate) fn unsupported_api_type(api_type: &str) -> Error {
    Error::invalid_input(
        "agent.model.apiType",
        format!("unknown apiType {} for Gemini: expected chat or embedding", quoted(api_type)),
    )
}

/// The model's resource name: `models/{id}`, or the id itself when it names one already
/// (`models/gemini-2.5-flash`, `tunedModels/...`).
pub(crate) fn resource(id: &str) -> String {
    if id.contains('/') {
        id.to_owned()
    } else {
        format!("models/{id}")
    }
}

/// `GenerationConfig` members: an `additionalProperties` key naming one (camelCase or
/// snake_case) goes into `generationConfig`, any other to the top level of the request.
const GENERATION_CONFIG: &[&str] = &[
    "audioTimestamp",
    "candidateCount",
    "enableAffectiveDialog",
    "enableEnhancedCivicAnswers",
    "frequencyPenalty",
    "imageConfig",
    "logprobs",
    "maxOutputTokens",
    "mediaResolution",
    "presencePenalty",
    "responseJsonSchema",
    "responseLogprobs",
    "responseMimeType",
    "responseModalities",
    "responseSchema",
    "routingConfig",
    "seed",
    "speechConfig",
    "stopSequences",
    "temperature",
    "thinkingConfig",
    "topK",
    "topP",
];

/// `snake_case` → `camelCase`; Google's JSON reads both spellings.
fn camel_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// What Google documents as the signature of a call Gemini did not make (another provider's, or
/// the caller's): Gemini 3 refuses a turn's calls when none is signed (docs/design.md, "Gemini").
const UNSIGNED_CALL: &str = "skip_thought_signature_validator";

/// A part of a turn: JSON text, or a `functionCall` part kept open until its turn is whole, as
/// the turn's signatures decide whether it needs [`UNSIGNED_CALL`].
enum Part {
    Written(String),
    Call { function: String, signature: Option<String> },
}

impl Part {
    fn finish(self) -> String {
        match self {
            Part::Written(part) => part,
            Part::Call { function, signature } => {
                let mut part = Fields::new();
                part.set("functionCall", function);
                if let Some(signature) = signature {
                    part.str("thoughtSignature", &signature);
                }
                part.finish()
            }
        }
    }
}

/// Members Google refuses together: of each pair, the one set first stays.
const EXCLUSIVE: &[(&str, &str)] = &[("responseSchema", "responseJsonSchema")];

/// An object whose keys Google reads in either spelling (`max_output_tokens` is
/// `maxOutputTokens`): a given key is compared by its camelCase form, so it never goes beside
/// its twin, nor beside a member it excludes, set already (docs/design.md, "Gemini").
struct Spelled<'a> {
    fields: &'a mut Fields,
    names: BTreeSet<String>,
}

impl<'a> Spelled<'a> {
    fn new(fields: &'a mut Fields) -> Self {
        Spelled { fields, names: BTreeSet::new() }
    }

    /// Sets one of the builder's own keys, which are camelCase.
    fn set(&mut self, key: &str, json: String) {
        self.names.insert(key.to_owned());
        self.fields.set(key, json);
    }

    /// Sets a given key, as it is spelled, unless its camelCase form is set already or
    /// excluded by a member that is.
    fn set_absent(&mut self, key: &str, json: String) {
        let name = camel_case(key);
        let excluded =
            |(a, b): &(&str, &str)| (name == *a && self.names.contains(*b)) || (name == *b && self.names.contains(*a));
        if !EXCLUSIVE.iter().any(excluded) && self.names.insert(name) {
            self.fields.set(key, json);
        }
    }
}

/// A turn of `contents`: its role and parts.
struct Turn {
    role: &'static str,
    parts: Vec<Part>,
}

impl Turn {
    /// The parts as JSON text; in a model turn whose calls carry no signature at all, the first
    /// call gets [`UNSIGNED_CALL`].
    fn finish(mut self) -> Array {
        let signed = |part: &Part| matches!(part, Part::Call { signature: Some(_), .. });
        if self.role == "model" && !self.parts.iter().any(signed) {
            if let Some(Part::Call { signature, .. }) =
                self.parts.iter_mut().find(|part| matches!(part, Part::Call { .. }))
            {
                *signature = Some(UNSIGNED_CALL.to_owned());
            }
        }
        let mut parts = Array::new();
        self.parts.into_iter().for_each(|part| parts.push(part.finish()));
        parts
    }
}

/// The turns being written, and the names of the calls made so far by id, which tool results
/// need (a `functionResponse` is named by its function).
#[derive(Default)]
struct Contents {
    turns: Vec<Turn>,
    call_names: CallNames,
}

/// The name of each call id: the names in a `Vec`, the map holding their positions (the crate's
/// one string-keyed map type).
#[derive(Default)]
struct CallNames {
    positions: BTreeMap<String, usize>,
    names: Vec<String>,
}

impl CallNames {
    /// Notes the call; a later call with the same id renames it.
    fn insert(&mut self, call: &ToolCall) {
        match self.positions.get(&call.id) {
            Some(&at) => self.names[at].clone_from(&call.name),
            None => {
                self.positions.insert(call.id.clone(), self.names.len());
                self.names.push(call.name.clone());
            }
        }
    }

    fn get(&self, id: &str) -> Option<&str> {
        self.positions.get(id).map(|&at| self.names[at].as_str())
    }
}

impl Contents {
    /// Adds parts to the last turn when it has `role`, else as a new turn.
    fn add(&mut self, role: &'static str, mut parts: Vec<Part>) {
        match self.turns.last_mut() {
            Some(turn) if turn.role == role => turn.parts.append(&mut parts),
            _ => self.turns.push(Turn { role, parts }),
        }
    }
}

/// The request body onto `body`.
pub(crate) fn build(agent: &Agent, messages: &[Message], body: &mut Fields) -> Result<()> {
    let mut body = Spelled::new(body);
    let service = Service::of(agent.model.provider()).unwrap_or(Service::Gemini);
    let mut contents = Contents::default();
    for (i, message) in messages.iter().enumerate() {
        let path = index("messages", i);
        let (role, parts) = match message.role.as_str() {
            _ if is_system(message) => continue,
            "tool" => ("user", written(function_response(message, &path, &contents.call_names)?)),
            "assistant" => ("model", model_parts(message, &path, service, &mut contents.call_names)?),
            _ => ("user", written(user_parts(message, &path, service)?)),
        };
        contents.add(role, parts);
    }
    if contents.turns.is_empty() {
        return Err(Error::invalid_input(
            "messages",
            "Gemini needs at least one user, assistant or tool message: system and developer messages only make \
             the systemInstruction, and a request without contents is refused",
        ));
    }
    let mut written = Array::new();
    for turn in contents.turns {
        let role = turn.role;
        written.push(Object::new().array("parts", &turn.finish()).str("role", role).finish());
    }
    body.set("contents", written.finish());
    if let Some(system) = system_text(messages) {
        let mut parts = Array::new();
        parts.push(text_part(&system, None));
        body.set("systemInstruction", Object::new().array("parts", &parts).finish());
    }
    write_tools(agent, &mut body)?;
    write_generation_config(agent, &mut body)
}

/// Parts written whole.
fn written(parts: Vec<String>) -> Vec<Part> {
    parts.into_iter().map(Part::Written).collect()
}

/// `{text, thoughtSignature?}`.
fn text_part(text: &str, signature: Option<&str>) -> String {
    let mut part = Fields::new();
    part.str("text", text);
    if let Some(signature) = signature {
        part.str("thoughtSignature", signature);
    }
    part.finish()
}

/// The parts of a user message: its content, and `{text: ""}` for a message with none (Gemini
/// refuses a turn without parts).
fn user_parts(message: &Message, path: &str, service: Service) -> Result<Vec<String>> {
    let mut parts = Vec::new();
    write_content(&message.content, path, service, &mut parts)?;
    if parts.is_empty() {
        parts.push(text_part("", None));
    }
    Ok(parts)
}

/// A message's content parts onto `parts`; empty text is left out.
fn write_content(content: &MessageContent, path: &str, service: Service, parts: &mut Vec<String>) -> Result<()> {
    match content {
        MessageContent::Text(text) => {
            if !text.is_empty() {
                parts.push(text_part(text, None));
            }
        }
        MessageContent::Parts(list) => {
            let path = field(path, "content");
            for (j, part) in list.iter().enumerate() {
                if !(part.is_text() && part.value.is_empty()) {
                    parts.push(content_part(part, &index(&path, j), service)?);
                }
            }
        }
    }
    Ok(())
}

/// One content part: text; a URL (`http(s)`, `gs://`) as `fileData`, with its `mediaType`
/// (which Vertex AI requires); a `data:` URL or bare base64 as `inlineData` with its media type
/// (from `mediaType`, the `data:` URL, or for images and PDFs the data's first bytes); a `data:`
/// URL that is not `;base64` is percent-decoded and encoded.
fn content_part(part: &ContentPart, path: &str, service: Service) -> Result<String> {
    if !matches!(part.kind.as_str(), "text" | "image" | "audio" | "file") {
        return Err(unknown_part(&part.kind, path));
    }
    if part.is_text() {
        return Ok(text_part(&part.value, None));
    }
    let value = part.value.as_str();
    if ["https://", "http://", "gs://"].iter().any(|scheme| value.starts_with(scheme)) {
        let mut file = Fields::new();
        file.str("fileUri", value);
        match part.media_type.as_deref().filter(|m| !m.is_empty()) {
            Some(media_type) => file.str("mimeType", media_type),
            None if service == Service::Vertex => {
                let kind = &part.kind;
                let message =
                    format!("Vertex AI needs the mediaType of a {kind} given by URL (image/png, video/mp4, ...)");
                return Err(Error::invalid_input(field(path, "mediaType"), message));
            }
            None => {}
        }
        return Ok(Object::new().json("fileData", &file.finish()).finish());
    }
    let (media_type, data) = match data_url::read(value) {
        Some((media_type, Ok(data))) => (part.media_type.as_deref().unwrap_or(media_type), data),
        Some((_, Err(()))) => {
            return Err(Error::invalid_input(
                field(path, "value"),
                "the data: URL has a % not followed by two hex digits, so its data cannot be read",
            ))
        }
        None => (part.media_type.as_deref().or_else(|| sniff_media_type(value)).unwrap_or(""), value.into()),
    };
    if media_type.is_empty() {
        return Err(Error::invalid_input(
            field(path, "mediaType"),
            format!("a base64 {} part needs a mediaType (image/png, audio/wav, application/pdf, ...)", part.kind),
        ));
    }
    let inline = Object::new().str("data", &data).str("mimeType", media_type).finish();
    Ok(Object::new().json("inlineData", &inline).finish())
}

/// Tool-call arguments as the object `functionCall.args` wants; an empty string is `{}`.
fn call_args(call: &ToolCall, path: &str) -> Result<String> {
    if call.arguments.trim().is_empty() {
        return Ok("{}".to_owned());
    }
    match parse_value(&call.arguments) {
        Ok(args @ Value::Object(_)) => Ok(wire::json(&args)),
        _ => Err(Error::invalid_input(path, format!("the arguments of tool call `{}` are not a JSON object", call.id))),
    }
}

/// `{functionCall: {args, id, name}, thoughtSignature?}`.
fn call_part(call: &ToolCall, signature: Option<&str>, path: &str) -> Result<Part> {
    let function = Object::new().json("args", &call_args(call, path)?).str("id", &call.id).str("name", &call.name);
    Ok(Part::Call { function: function.finish(), signature: signature.map(str::to_owned) })
}

/// The parts of an assistant message: from `metadata.blocks` when it has them, else its
/// content and `metadata.tool_calls`. The names of its calls are noted for the results.
fn model_parts(message: &Message, path: &str, service: Service, call_names: &mut CallNames) -> Result<Vec<Part>> {
    let mut parts = Vec::new();
    match message.blocks(path)? {
        Some(blocks) => {
            let path = field(path, &format!("metadata.{BLOCKS}"));
            for (k, block) in blocks.iter().enumerate() {
                if let Some(part) = block_part(block, &index(&path, k), call_names)? {
                    parts.push(part);
                }
            }
        }
        None => {
            let mut content = Vec::new();
            write_content(&message.content, path, service, &mut content)?;
            parts = written(content);
            let calls_path = field(path, "metadata.tool_calls");
            for (k, call) in message.tool_call_list(path)?.iter().enumerate() {
                parts.push(call_part(call, None, &index(&calls_path, k))?);
                call_names.insert(call);
            }
        }
    }
    if parts.is_empty() {
        parts.push(Part::Written(text_part("", None)));
    }
    Ok(parts)
}

/// A block of a finished turn as a Gemini part, or `None` for one Gemini does not take back
/// (docs/design.md, "Reasoning that goes back"): text and tool calls with their signatures, and
/// `other` blocks that are Gemini parts (their data has a member named by their `providerType`,
/// as `executableCode` has) as they came. Reasoning is not sent back: Gemini's thoughts travel
/// as signatures on the other parts.
fn block_part(block: &Block, path: &str, call_names: &mut CallNames) -> Result<Option<Part>> {
    match block {
        Block::Text { text, signature, .. } => {
            let signature = signed(signature);
            Ok((!text.is_empty() || signature.is_some()).then(|| Part::Written(text_part(text, signature))))
        }
        Block::ToolCall { id, name, arguments, signature } => {
            let call = ToolCall { id: id.clone(), name: name.clone(), arguments: arguments.clone() };
            call_names.insert(&call);
            call_part(&call, signed(signature), &field(path, "arguments")).map(Some)
        }
        Block::Other { provider_type, data } => {
            let data = parse_value(data.get()).ok().filter(|data| data.get(provider_type).is_some());
            Ok(data.filter(Value::is_object).map(|data| Part::Written(wire::json(&data))))
        }
        Block::Reasoning { .. } => Ok(None),
    }
}

/// A signature that is there and not empty.
fn signed(signature: &Option<String>) -> Option<&str> {
    signature.as_deref().filter(|s| !s.is_empty())
}

/// A tool result as `{functionResponse: {id, name, response}}`. The name is that of the call
/// with the result's `tool_call_id` in an earlier assistant message (else `metadata.name`);
/// the response is the content when it is a JSON object, and otherwise `{output: content}`
/// (the content parsed when it is JSON, else as text), the key Google documents for output.
fn function_response(message: &Message, path: &str, call_names: &CallNames) -> Result<Vec<String>> {
    let id = message.tool_call_id();
    let given_name = message.metadata.get("name").and_then(Value::as_str);
    let name = match (id.and_then(|id| call_names.get(id)), given_name) {
        (Some(name), _) => name,
        (None, Some(name)) => name,
        (None, None) => {
            let Some(id) = id else { return Err(missing_call_id(path)) };
            return Err(Error::invalid_input(
                field(path, "metadata.tool_call_id"),
                format!(
                    "no earlier assistant message made the call {}: Gemini names a function response by its \
                     function (give metadata.name)",
                    quoted(id)
                ),
            ));
        }
    };
    if let MessageContent::Parts(parts) = &message.content {
        if let Some(j) = parts.iter().position(|p| !p.is_text()) {
            return Err(Error::invalid_input(
                index(&field(path, "content"), j),
                "a Gemini function response carries text or JSON only",
            ));
        }
    }
    let content = message.content.text();
    let response = match parse_value(&content) {
        Ok(object @ Value::Object(_)) => wire::json(&object),
        Ok(value) => Object::new().json("output", &wire::json(&value)).finish(),
        Err(_) => Object::new().str("output", &content).finish(),
    };
    let mut function = Fields::new();
    if let Some(id) = id {
        function.str("id", id);
    }
    function.str("name", name);
    function.set("response", response);
    Ok(vec![Object::new().json("functionResponse", &function.finish()).finish()])
}

/// Every tool kind projected (§7.1.3) as `functionDeclarations` in one tool, each schema in
/// Gemini's form (a function without parameters has none), followed by the tools given in
/// `additionalProperties.tools`: Gemini's own (`googleSearch`, `codeExecution`, `urlContext`).
fn write_tools(agent: &Agent, body: &mut Spelled) -> Result<()> {
    let defs = project_tools_indexed(&agent.tools)?;
    let given = agent.model.options.additional_properties.get("tools").and_then(Value::as_array);
    let mut tools = Array::new();
    if !defs.is_empty() {
        tools.push(Object::new().array("functionDeclarations", &declarations(&agent.tools, &defs)?).finish());
    }
    given.into_iter().flatten().for_each(|tool| tools.push(wire::json(tool)));
    if !tools.is_empty() {
        body.set("tools", tools.finish());
    }
    Ok(())
}

/// The function declarations; `defs` each with the index of its tool in `tools`.
fn declarations(tools: &[Tool], defs: &[(usize, FunctionDef)]) -> Result<Array> {
    let mut spent = 0;
    let mut declarations = Array::new();
    // The place of each MCP entry by its name, for the tool whose definitions are being written:
    // made once per tool, not searched once per definition.
    let mut mcp_places: Option<(usize, BTreeMap<&str, usize>)> = None;
    for (i, def) in defs {
        let tool_path = index("agent.tools", *i);
        let what = format!("function `{}`", def.name);
        let (path, exact) = match &tools[*i].kind {
            ToolKind::Function { parameters } => {
                schema::check_items(parameters, &field(&tool_path, "parameters"), &tools[*i].bindings, &what)?;
                (tool_path, false)
            }
            ToolKind::Prompty { child_inputs, .. } => {
                schema::check_items(child_inputs, &field(&tool_path, "child.inputs"), &tools[*i].bindings, &what)?;
                (tool_path, false)
            }
            ToolKind::Custom { parameters_schema: Some(_), .. } => (field(&tool_path, "parametersSchema"), true),
            ToolKind::Mcp { tools, .. } => {
                if mcp_places.as_ref().is_none_or(|(owner, _)| owner != i) {
                    let mut places = BTreeMap::new();
                    for (k, tool) in tools.iter().enumerate() {
                        if let Some(name) = tool.get("name").and_then(Value::as_str) {
                            places.entry(name).or_insert(k);
                        }
                    }
                    mcp_places = Some((*i, places));
                }
                match mcp_places.as_ref().and_then(|(_, places)| places.get(def.name.as_str())) {
                    Some(&k) => (field(&index(&field(&tool_path, "tools"), k), "inputSchema"), true),
                    None => (tool_path, false),
                }
            }
            _ => (tool_path, false),
        };
        let mut function = Fields::new();
        function.str("name", &def.name);
        if let Some(description) = &def.description {
            function.str("description", description);
        }
        let origin = Origin { path: &path, exact, what: &what };
        if let Some(parameters) = schema::convert(&def.parameters, origin, &mut spent)? {
            function.set("parameters", parameters);
        }
        declarations.push(function.finish());
    }
    Ok(declarations)
}

/// `generationConfig`: the model options under Gemini's names, structured output
/// (`responseMimeType` and `responseSchema`), and the `additionalProperties` that are
/// generation settings (a `generationConfig` object given there is merged in); the other
/// `additionalProperties` go to the top level. Neither replaces what is set already, in either
/// spelling, and `responseJsonSchema` is left out beside `responseSchema`.
fn write_generation_config(agent: &Agent, body: &mut Spelled) -> Result<()> {
    let options = &agent.model.options;
    let mut written = Fields::new();
    let mut config = Spelled::new(&mut written);
    let numbers = [
        ("temperature", &options.temperature),
        ("maxOutputTokens", &options.max_output_tokens),
        ("topP", &options.top_p),
        ("topK", &options.top_k),
        ("frequencyPenalty", &options.frequency_penalty),
        ("presencePenalty", &options.presence_penalty),
        ("seed", &options.seed),
    ];
    for (name, value) in numbers {
        if let Some(value) = value {
            config.set(name, wire::json(value));
        }
    }
    if let Some(stop) = &options.stop_sequences {
        let mut list = Array::new();
        stop.iter().for_each(|s| list.str(s));
        config.set("stopSequences", list.finish());
    }
    if agent.has_outputs() {
        config.set("responseMimeType", wire::text("application/json"));
        schema::check_items(&agent.outputs, "agent.outputs", &Map::new(), "outputs")?;
        let schema = object_schema(&agent.outputs, false);
        let origin = Origin { path: "agent.outputs", exact: false, what: "outputs" };
        config.set("responseSchema", schema::convert_always(&schema, origin, &mut 0)?);
    }
    let mut top = Vec::new();
    for (key, value) in &options.additional_properties {
        match (camel_case(key), value) {
            (name, Value::Object(given)) if name == "generationConfig" => {
                given.iter().for_each(|(key, value)| config.set_absent(key, wire::json(value)))
            }
            (name, _) if GENERATION_CONFIG.contains(&name.as_str()) => config.set_absent(key, wire::json(value)),
            _ => top.push((key, value)),
        }
    }
    let config = written.finish();
    if config != "{}" {
        body.set("generationConfig", config);
    }
    top.into_iter().for_each(|(key, value)| body.set_absent(key, wire::json(value)));
    Ok(())
}
