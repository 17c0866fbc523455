//! The `#[wasm_bindgen]` surface: conversions only, every rule lives in the core; and the
//! module's allocator (`alloc`).

pub mod accumulator;
pub mod alloc;
pub mod convert;
pub(crate) mod js;
mod message;
mod partial;
// The npm package's stream entry (`llm-wire/stream`) is a module built without these: the
// Accumulator alone (see the Makefile and the README's "Two entries").
#[cfg(feature = "wasm-full")]
mod process;
#[cfg(feature = "wasm-full")]
mod request;

/// Helpers the wasm tests share: JS values from JSON text and back, and property reads.
#[cfg(test)]
mod test_support {
    use wasm_bindgen::JsValue;

    pub(crate) fn js(text: &str) -> JsValue {
        js_sys::JSON::parse(text).unwrap()
    }

    pub(crate) fn text(value: &JsValue) -> String {
        js_sys::JSON::stringify(value).unwrap().as_string().unwrap()
    }

    pub(crate) fn field(value: &JsValue, name: &str) -> JsValue {
        js_sys::Reflect::get(value, &name.into()).unwrap()
    }
}

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const INPUT_TYPES: &'static str = r#"
/** A typed property: tool parameters, prompty inputs, structured outputs. */
export interface Property {
  name: string;
  kind: "string" | "integer" | "float" | "boolean" | "array" | "object";
  description?: string;
  required?: boolean;
  enumValues?: unknown[];
  properties?: PropertyList;
  items?: Omit<Property, "name"> & { name?: string };
}
/** A property list: an array, or Prompty's wrapper `{properties: [...]}`. */
export type PropertyList = Property[] | { properties: Property[] };
export interface ModelOptions {
  temperature?: number; maxOutputTokens?: number; topP?: number; topK?: number;
  frequencyPenalty?: number; presencePenalty?: number; stopSequences?: string[]; seed?: number;
  allowMultipleToolCalls?: boolean;
  /** Passed through as top-level request keys (never overriding a mapped one). */
  additionalProperties?: Record<string, unknown>;
}
/** A model: its options, or just its id (`model: "gpt-4o"`). */
export interface Model {
  id: string;
  /** `"openai"` by default; `"anthropic"` selects the Messages API; any other is OpenAI-compatible. */
  provider?: string;
  apiType?: "chat" | "responses" | "embedding" | "image";
  options?: ModelOptions;
}
/** Parameters filled in by the caller and hidden from the model: by name, or Prompty's list. */
export type Bindings = Record<string, { input: string }> | { name: string; input: string }[];
interface ToolBase { name: string; description?: string; strict?: boolean; bindings?: Bindings }
/** An MCP server's tool, as its `tools/list` result gives it. */
export interface McpTool { name: string; description?: string; inputSchema?: Record<string, unknown> }
export type Tool =
  | (ToolBase & { kind: "function"; parameters?: PropertyList })
  | (ToolBase & { kind: "prompty"; path: string; child: { description?: string; inputs: PropertyList } })
  | (ToolBase & { kind: "mcp"; serverName?: string; allowedTools?: string[]; tools: McpTool[] | { tools: McpTool[] } })
  | (ToolBase & { kind: "openapi"; specification: Record<string, unknown> | string })
  | (ToolBase & { kind: string; parametersSchema?: Record<string, unknown> });
export interface Agent { model: Model | string; tools?: Tool[]; outputs?: PropertyList }
/** A text part's value may be left out (empty); every other kind needs one. */
export type ContentPart =
  | { kind: "text"; value?: string; mediaType?: string; detail?: string }
  | { kind: "image" | "audio" | "file"; value: string; mediaType?: string; detail?: string };
export interface Message {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: ContentPart[] | string;
  /** tool_call_id, name, tool_calls, ... passed through to the wire. */
  metadata?: Record<string, unknown>;
}
"#;
