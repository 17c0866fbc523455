//! Projection of every tool kind to function definitions (§7.1.3): function, prompty, mcp, openapi, custom.
//!
//! Every provider format starts from the same [`FunctionDef`] list and only changes the
//! envelope (`{type, function: {...}}`, flat, or Anthropic's `input_schema`).

mod budget;
mod openapi;
mod registry;

pub use openapi::REF_BUDGET_BYTES;
pub use registry::{register_tool, registered_tool, unregister_tool, RegisteredTool};
pub use registry::{MAX_REGISTERED_TOOL_BYTES, MAX_REGISTRY_BYTES};

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::json::value;
use crate::json::{Map, Value};
use crate::model::agent::{Agent, Tool, ToolKind};
use crate::request::wire::{field, index, Array, Fields, Object};
use crate::request::Api;
use crate::schema::{check_strict_tool, make_strict, object_schema, object_value, write_schema};
use budget::Budget;

/// One function the model may call, whatever tool it came from.
///
/// `parameters` is a JSON Schema `Value` (the type parameter lets it be another form of one).
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef<P = Value> {
    pub name: String,
    pub description: Option<String>,
    /// A JSON Schema object, bound parameters already removed.
    pub parameters: P,
    /// `strict: true` goes on the function definition, not inside the schema (§7.1.3).
    pub strict: bool,
}

/// §7.1.3 `tools_to_wire` without the envelope: every tool projected, bound parameters
/// stripped, strict schemas made strict. Errors name `agent.tools[i]...`; the `$ref`s of all
/// OpenAPI tools together may copy at most [`REF_BUDGET_BYTES`] (`limit_exceeded` beyond).
pub fn project_tools(tools: &[Tool]) -> Result<Vec<FunctionDef>> {
    Ok(project_tools_indexed(tools)?.into_iter().map(|(_, def)| def).collect())
}

/// [`project_tools`], each definition with the index of the tool it came from (for error paths).
pub(crate) fn project_tools_indexed(tools: &[Tool]) -> Result<Vec<(usize, FunctionDef)>> {
    let mut defs = Vec::new();
    let mut owners = Vec::new();
    let mut ref_budget = Budget::new(REF_BUDGET_BYTES);
    for (i, tool) in tools.iter().enumerate() {
        let start = defs.len();
        let make_strict_now = project_tool(tool, &index("agent.tools", i), &mut defs, &mut ref_budget)?;
        for def in defs.get_mut(start..).unwrap_or_default() {
            if make_strict_now {
                make_strict(&mut def.parameters);
                def.strict = true;
            }
            strip_bindings(&mut def.parameters, &tool.bindings);
        }
        owners.resize(defs.len(), i);
    }
    Ok(owners.into_iter().zip(defs).collect())
}

/// Where the API's own tools are given (web search, code execution, ...).
const GIVEN_TOOLS_PATH: &str = "agent.model.options.additionalProperties.tools";

/// [`project_tools`] with each schema written as JSON text: made strict and stripped of bound
/// parameters as it is written, so no schema is copied and changed. Each definition is put in
/// the envelope of `api`, then come the API's own tools given in `additionalProperties.tools`
/// (docs/design.md, "Tools"), and the array is set as the request's `tools`, with the API's
/// parallel-calls option from `allowMultipleToolCalls` (OpenAI `parallel_tool_calls`,
/// Anthropic `tool_choice.disable_parallel_tool_use`). Without tools nothing is set: the APIs
/// reject the option without them.
pub(crate) fn write_tools(body: &mut Fields, agent: &Agent, api: Api) -> Result<()> {
    let tools = &agent.tools;
    let anthropic = api == Api::Anthropic;
    let mut written = Array::new();
    let mut names = Vec::new();
    let mut ref_budget = Budget::new(REF_BUDGET_BYTES);
    let mut projected = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        projected.clear();
        let make_strict_now = project_tool(tool, &index("agent.tools", i), &mut projected, &mut ref_budget)?;
        for def in &projected {
            if tool.strict && matches!(api, Api::OpenAiChat | Api::OpenAiResponses) {
                check_strict_tool(tool, def, &index("agent.tools", i))?;
            }
            // `{name, description?, <schema key>: parameters, strict?}`; Anthropic has no `strict`.
            let mut function = Fields::new();
            function.str("name", &def.name);
            if let Some(description) = &def.description {
                function.str("description", description);
            }
            let parameters = write_schema(&def.parameters, make_strict_now, false, &tool.bindings);
            function.set(if anthropic { "input_schema" } else { "parameters" }, parameters);
            if !anthropic && (def.strict || make_strict_now) {
                function.bool("strict", true);
            }
            written.push(match api {
                Api::OpenAiChat => Object::new().json("function", &function.finish()).str("type", "function").finish(),
                Api::OpenAiResponses => {
                    function.str("type", "function");
                    function.finish()
                }
                _ => function.finish(),
            });
        }
        names.extend(projected.drain(..).map(|def| def.name));
    }
    let given = given_tools(agent)?;
    // Looked up only when the API's own tools are given (a set: a request may have 100,000 tools).
    let names: BTreeSet<&str> =
        if given.is_empty() { BTreeSet::new() } else { names.iter().map(String::as_str).collect() };
    for (k, tool) in given.iter().enumerate() {
        if let Some(name) = given_tool_name(tool).filter(|name| names.contains(*name)) {
            return Err(Error::invalid_input(
                index(GIVEN_TOOLS_PATH, k),
                format!("this tool has the name `{name}` of one of the agent's tools"),
            ));
        }
        written.value(tool);
    }
    if written.is_empty() {
        return Ok(());
    }
    body.set("tools", written.finish());
    let allow = agent.model.options.allow_multiple_tool_calls;
    if anthropic {
        if allow == Some(false) {
            if let Some(choice) = single_call_choice(agent) {
                body.set("tool_choice", choice);
            }
        }
    } else if let Some(allow) = allow {
        body.bool("parallel_tool_calls", allow);
    }
    Ok(())
}

/// Anthropic's `tool_choice` allowing one call at most: the one given in `additionalProperties`
/// (`auto`, `any`, `tool`) with `disable_parallel_tool_use: true`, else `auto` with it. `None`
/// for a given `none` choice, which has no such field and is sent as given.
fn single_call_choice(agent: &Agent) -> Option<String> {
    let mut choice = Fields::new();
    match agent.model.options.additional_properties.get("tool_choice") {
        Some(Value::Object(given)) if given.get("type").and_then(Value::as_str) == Some("none") => return None,
        Some(Value::Object(given)) => given.iter().for_each(|(key, value)| choice.value(key, value)),
        _ => choice.str("type", "auto"),
    }
    choice.bool("disable_parallel_tool_use", true);
    Some(choice.finish())
}

/// The tools given in `additionalProperties.tools`, which must be a list.
fn given_tools(agent: &Agent) -> Result<&[Value]> {
    match agent.model.options.additional_properties.get("tools") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(tools)) => Ok(tools),
        Some(_) => Err(Error::invalid_input(GIVEN_TOOLS_PATH, "must be a list of the API's own tools")),
    }
}

/// The name a given tool is called by: `name` (Anthropic's server tools, Responses' function
/// and custom tools), or that of Chat's `function` or `custom` envelope.
fn given_tool_name(tool: &Value) -> Option<&str> {
    let named = |key: &str| tool.get(key).and_then(|inner| inner.get("name"));
    tool.get("name").or_else(|| named("function")).or_else(|| named("custom")).and_then(Value::as_str)
}

/// §7.1.3 `project_tool`: one tool → its function definitions, pushed onto `defs`, and whether
/// their schemas (which arrived as JSON Schema: MCP, OpenAPI, custom) must still be made
/// strict. Schemas made from Property lists are strict already when the tool is. `ref_budget`
/// is what OpenAPI `$ref`s may still copy in this request.
fn project_tool(tool: &Tool, path: &str, defs: &mut Vec<FunctionDef>, ref_budget: &mut Budget) -> Result<bool> {
    let (description, properties) = match &tool.kind {
        ToolKind::Function { parameters } => (tool.description.as_ref(), parameters),
        ToolKind::Prompty { child_description, child_inputs, .. } => {
            (tool.description.as_ref().or(child_description.as_ref()), child_inputs)
        }
        ToolKind::Mcp { allowed_tools, tools, .. } => {
            project_mcp(allowed_tools.as_deref(), tools, path, defs)?;
            return Ok(tool.strict);
        }
        ToolKind::OpenApi { specification } => {
            openapi::project(specification, &field(path, "specification"), defs, ref_budget)?;
            return Ok(tool.strict);
        }
        ToolKind::Custom { kind, parameters_schema } => {
            defs.push(project_custom(tool, kind, parameters_schema.as_ref(), path)?);
            return Ok(tool.strict);
        }
    };
    let parameters = object_schema(properties, tool.strict);
    defs.push(FunctionDef {
        name: tool.name.clone(),
        description: description.cloned(),
        parameters,
        strict: tool.strict,
    });
    Ok(false)
}

/// The carried `tools/list` result, filtered by `allowedTools` (an empty list filters nothing,
/// as in §7.1.3 where an empty list is falsy); each `inputSchema` becomes the parameters, pushed
/// onto `defs`.
fn project_mcp(allowed: Option<&[String]>, tools: &[Value], path: &str, defs: &mut Vec<FunctionDef>) -> Result<()> {
    let allowed: Option<BTreeSet<&str>> =
        allowed.filter(|list| !list.is_empty()).map(|list| list.iter().map(String::as_str).collect());
    for (j, item) in tools.iter().enumerate() {
        let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
        if allowed.as_ref().is_some_and(|allowed| !allowed.contains(name)) {
            continue;
        }
        let parameters = match item.get("inputSchema") {
            None | Some(Value::Null) => empty_schema(),
            Some(schema @ Value::Object(_)) => schema.clone(),
            Some(_) => {
                return Err(Error::invalid_input(
                    format!("{path}.tools[{j}].inputSchema"),
                    format!("mcp tool `{name}`: inputSchema must be a JSON Schema object"),
                ))
            }
        };
        let description = item.get("description").and_then(Value::as_str).filter(|d| !d.is_empty());
        defs.push(FunctionDef {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            parameters,
            strict: false,
        });
    }
    Ok(())
}

/// A custom kind: the inline `parametersSchema`, else the registry entry under the tool's name
/// (as §7.1.3 `get_tool(tool.name)`), else under its kind.
fn project_custom(tool: &Tool, kind: &str, inline: Option<&Value>, path: &str) -> Result<FunctionDef> {
    let registered = registry::lookup(&tool.name).or_else(|| registry::lookup(kind));
    let parameters = match (inline, &registered) {
        (Some(schema), _) => schema.clone(),
        (None, Some(registered)) => registered.parameters.clone(),
        (None, None) => {
            let name = &tool.name;
            return Err(Error::invalid_input(
                path,
                format!(
                    "tool `{name}` has the custom kind `{kind}` but no `parametersSchema`, and nothing is registered \
                     under `{name}` or `{kind}` (see registerTool)"
                ),
            ));
        }
    };
    let description = tool.description.clone().or_else(|| registered.and_then(|r| r.description.clone()));
    Ok(FunctionDef { name: tool.name.clone(), description, parameters, strict: false })
}

/// A schema that takes no arguments.
pub(crate) fn empty_schema() -> Value {
    object_value(value::string("object"), Map::new(), Vec::new(), false)
}

/// Removes bound parameters from `properties` and `required` (docs/design.md, "Dispatch": keyed
/// by parameter name); an emptied `required` is dropped, as §7.1.4 never sends an empty one.
pub(crate) fn strip_bindings(schema: &mut Value, bindings: &Map) {
    if bindings.is_empty() {
        return;
    }
    let Value::Object(map) = schema else { return };
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.retain(|name, _| !bindings.contains_key(name));
    }
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|name| !matches!(name.as_str(), Some(n) if bindings.contains_key(n)));
        if required.is_empty() {
            map.remove("required");
        }
    }
}
