//! The inputs (Prompty shapes; docs/design.md, "Inputs"): agent, model, options, properties,
//! tools, messages.
//!
//! These are plain typed structs. Reading them from JSON (with an exact `path` on every
//! `invalid_input` error) lives in `agent_json`, beside them: `Agent::from_json`,
//! `Message::list_from_json`, `Property::list_from_json`.

use std::borrow::Cow;

use crate::json::{Map, Value};

/// The agent: the model to call, the tools it may use, and the structured output it must give.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Agent {
    pub model: Model,
    pub tools: Vec<Tool>,
    pub outputs: Vec<Property>,
}

/// `agent.model`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    pub id: String,
    /// `"openai"` when absent; `"anthropic"` selects the Anthropic Messages API.
    pub provider: String,
    /// `"chat"` (default), `"responses"`, `"embedding"` or `"image"`.
    pub api_type: String,
    pub options: ModelOptions,
}

/// `agent.model.options`. Numbers are kept as JSON numbers so they go on the wire unchanged.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelOptions {
    pub temperature: Option<Value>,
    pub max_output_tokens: Option<Value>,
    pub top_p: Option<Value>,
    pub top_k: Option<Value>,
    pub frequency_penalty: Option<Value>,
    pub presence_penalty: Option<Value>,
    pub stop_sequences: Option<Vec<String>>,
    pub seed: Option<Value>,
    /// OpenAI `parallel_tool_calls`, sent only when the request has tools.
    pub allow_multiple_tool_calls: Option<bool>,
    pub additional_properties: Map,
}

/// A typed property (inputs, outputs, tool parameters).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Property {
    pub name: String,
    /// `string`, `integer`, `float`, `boolean`, `array` or `object`.
    pub kind: String,
    pub description: Option<String>,
    pub required: bool,
    pub enum_values: Option<Vec<Value>>,
    pub properties: Option<Vec<Property>>,
    pub items: Option<Box<Property>>,
}

/// A tool of any kind; every kind is projected to one or more function definitions on the wire.
///
/// `strict` and `bindings` apply after projection whatever the kind (§7.1.3 `tools_to_wire`),
/// so they live here rather than in one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: Option<String>,
    pub strict: bool,
    /// Parameter name → `{input}`; bound parameters are injected at call time, hidden from the model.
    pub bindings: Map,
    pub kind: ToolKind,
}

/// What a tool is, and what its projection needs.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolKind {
    Function {
        parameters: Vec<Property>,
    },
    /// A child prompty, carried already loaded: its inputs become the parameters.
    Prompty {
        path: String,
        child_description: Option<String>,
        child_inputs: Vec<Property>,
    },
    Mcp {
        server_name: Option<String>,
        allowed_tools: Option<Vec<String>>,
        /// The server's `tools/list` result: `{name, description?, inputSchema}` each.
        tools: Vec<Value>,
    },
    OpenApi {
        /// The OpenAPI 3 document (a string is parsed as JSON when projected).
        specification: Value,
    },
    Custom {
        kind: String,
        /// A JSON Schema carried inline; otherwise the tool registry is asked.
        parameters_schema: Option<Value>,
    },
}

impl ToolKind {
    /// The `kind` string as the input spelled it.
    pub fn name(&self) -> &str {
        match self {
            ToolKind::Function { .. } => "function",
            ToolKind::Prompty { .. } => "prompty",
            ToolKind::Mcp { .. } => "mcp",
            ToolKind::OpenApi { .. } => "openapi",
            ToolKind::Custom { kind, .. } => kind,
        }
    }
}

/// One part of a message's content.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContentPart {
    /// `text`, `image`, `audio` or `file`.
    pub kind: String,
    pub value: String,
    pub media_type: Option<String>,
    pub detail: Option<String>,
}

impl ContentPart {
    pub fn text(value: impl Into<String>) -> Self {
        ContentPart { kind: "text".into(), value: value.into(), ..Default::default() }
    }

    pub fn is_text(&self) -> bool {
        self.kind == "text"
    }
}

/// A message's content: a plain string is one text part.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageContent {
    Text(String),
    Parts(Vec<ContentPart>),
}

impl MessageContent {
    /// The content as a part list; a plain string is one text part.
    pub fn parts(&self) -> Cow<'_, [ContentPart]> {
        match self {
            MessageContent::Text(text) => Cow::Owned(vec![ContentPart::text(text.clone())]),
            MessageContent::Parts(parts) => Cow::Borrowed(parts),
        }
    }

    /// The text of every text part, joined without separator (non-text parts are skipped).
    pub fn text(&self) -> String {
        match self {
            MessageContent::Text(text) => text.clone(),
            MessageContent::Parts(parts) => parts.iter().filter(|p| p.is_text()).map(|p| p.value.as_str()).collect(),
        }
    }

    /// True when there is nothing to send: no parts, or one empty string.
    pub fn is_empty(&self) -> bool {
        match self {
            MessageContent::Text(text) => text.is_empty(),
            MessageContent::Parts(parts) => parts.is_empty(),
        }
    }
}

/// A conversation message. `metadata` (tool_call_id, name, tool_calls, ...) passes through.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: String,
    pub content: MessageContent,
    pub metadata: Map,
}

impl Message {
    /// A message with plain text content and no metadata.
    pub fn new(role: impl Into<String>, text: impl Into<String>) -> Self {
        Message { role: role.into(), content: MessageContent::Text(text.into()), metadata: Map::new() }
    }

    /// `metadata.tool_calls` (OpenAI shape), when the message carries any.
    pub fn tool_calls(&self) -> &[Value] {
        match self.metadata.get("tool_calls") {
            Some(Value::Array(calls)) => calls,
            _ => &[],
        }
    }

    /// `metadata.tool_call_id` as a string, when present.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.metadata.get("tool_call_id").and_then(Value::as_str)
    }
}

impl Model {
    /// The provider, `"openai"` when none was given.
    pub fn provider(&self) -> &str {
        if self.provider.is_empty() {
            "openai"
        } else {
            &self.provider
        }
    }

    /// The API type, `"chat"` when none was given.
    pub fn api_type(&self) -> &str {
        if self.api_type.is_empty() {
            "chat"
        } else {
            &self.api_type
        }
    }
}

impl Agent {
    /// An agent for `model_id` with the default provider and API and nothing else.
    pub fn new(model_id: impl Into<String>) -> Self {
        Agent { model: Model { id: model_id.into(), ..Default::default() }, ..Default::default() }
    }

    /// True when the agent asks for structured output (§7.7): results are JSON-parsed.
    pub fn has_outputs(&self) -> bool {
        !self.outputs.is_empty()
    }
}
