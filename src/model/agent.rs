//! The inputs of DESIGN.md §2 (Prompty shapes): agent, model, options, properties, tools, messages.
//!
//! These are plain typed structs. Reading them from JSON (with an exact `path` on every
//! `invalid_input` error) lives in `from_json`, beside them.

use serde_json::{Map, Value};

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
    pub additional_properties: Map<String, Value>,
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

/// A tool of any kind; every kind is projected to a function definition on the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum Tool {
    Function {
        name: String,
        description: Option<String>,
        parameters: Vec<Property>,
        strict: bool,
        /// Parameter name → the input it is bound to; bound parameters are hidden from the model.
        bindings: Map<String, Value>,
    },
    Prompty {
        name: String,
        description: Option<String>,
        path: String,
        child_description: Option<String>,
        child_inputs: Vec<Property>,
    },
    Mcp {
        name: String,
        server_name: Option<String>,
        allowed_tools: Option<Vec<String>>,
        /// The server's `tools/list` result: `{name, description?, inputSchema}` each.
        tools: Vec<Value>,
    },
    OpenApi {
        name: String,
        /// The OpenAPI 3 document (a string is parsed as JSON).
        specification: Value,
    },
    Custom {
        kind: String,
        name: String,
        description: Option<String>,
        parameters_schema: Option<Value>,
    },
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

/// A message's content: a plain string is one text part.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageContent {
    Text(String),
    Parts(Vec<ContentPart>),
}

/// A conversation message. `metadata` (tool_call_id, name, tool_calls, ...) passes through.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: String,
    pub content: MessageContent,
    pub metadata: Map<String, Value>,
}

impl Agent {
    /// True when the agent asks for structured output (§7.7): results are JSON-parsed.
    pub fn has_outputs(&self) -> bool {
        !self.outputs.is_empty()
    }
}
