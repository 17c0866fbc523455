//! Large inputs of every shape the request side reads: each holds 100,000 of something (tools,
//! properties, required names, bindings, messages, MCP tools and allowed names, OpenAPI
//! operations, refs and parameters, headers), in an order that makes a sorted insert or a scan
//! per item quadratic. Each must build, and build right; a quadratic step would not finish.
//! They go through `build_request` alone (the path the wasm exports take): the other suites
//! check that both paths agree, and these inputs are slow to copy in a debug build.

use llm_wire::{build_request, Agent, Message, RequestOptions};
use serde_json::{json, Value};

use super::{agent, chat, user};

const N: usize = 100_000;

/// The body `build_request` writes for JSON inputs.
fn body(agent: &Value, messages: Value) -> Value {
    let agent = Agent::from_json(&agent.clone().into()).unwrap();
    let messages = Message::list_from_json(&messages.into()).unwrap();
    let options = RequestOptions { base_url: Some("http://x".into()), ..Default::default() };
    serde_json::from_str(&build_request(&agent, &messages, &options).unwrap().body).unwrap()
}

/// The `function` objects of the Chat tools built for `tools`.
fn functions(tools: Value) -> Vec<Value> {
    let b = body(&chat(json!({"tools": tools})), user(json!("hi")));
    b["tools"].as_array().unwrap().iter().map(|t| t["function"].clone()).collect()
}

/// `p{i}` for i from N - 1 down to 0: names that arrive in reverse of their sorted order.
fn reversed_names() -> Vec<String> {
    (0..N).rev().map(|i| format!("p{i:06}")).collect()
}

#[test]
fn a_hundred_thousand_function_tools_are_all_sent_in_order() {
    let tools: Vec<Value> = (0..N).map(|i| json!({"kind": "function", "name": format!("f{i}")})).collect();
    let f = functions(json!(tools));
    assert_eq!(f.len(), N);
    assert_eq!(f[0]["name"], "f0");
    assert_eq!(f[N - 1]["name"], format!("f{}", N - 1));
}

#[test]
fn a_strict_tool_with_a_hundred_thousand_parameters_requires_them_in_declared_order() {
    let names = reversed_names();
    let parameters: Vec<Value> = names.iter().map(|name| json!({"name": name, "kind": "string"})).collect();
    let f = functions(json!([{"kind": "function", "name": "f", "strict": true, "parameters": parameters}]));
    let schema = &f[0]["parameters"];
    assert_eq!(schema["properties"].as_object().unwrap().len(), N);
    assert_eq!(schema["properties"][&names[7]], json!({"type": ["string", "null"]}));
    assert_eq!(schema["required"], json!(names));
}

#[test]
fn a_strict_json_schema_with_a_hundred_thousand_properties_keeps_declared_names_first() {
    // Every other name declared required, in reverse order; the rest follow in key order.
    let names = reversed_names();
    let properties: serde_json::Map<String, Value> =
        names.iter().map(|name| (name.clone(), json!({"type": "integer"}))).collect();
    let declared: Vec<&String> = names.iter().step_by(2).collect();
    let schema = json!({"type": "object", "properties": properties, "required": declared});
    let tool = json!({"kind": "search", "name": "s", "strict": true, "parametersSchema": schema});
    let written = &functions(json!([tool]))[0]["parameters"];
    let mut undeclared: Vec<&String> = names.iter().skip(1).step_by(2).collect();
    undeclared.sort();
    let expected: Vec<&String> = declared.iter().copied().chain(undeclared).collect();
    assert_eq!(written["required"], json!(expected));
    assert_eq!(written["properties"][&names[0]], json!({"type": "integer"}));
    assert_eq!(written["properties"][&names[1]], json!({"type": ["integer", "null"]}));

    // The public projection makes the same schema strict on the `Value` itself.
    let agent = Agent::from_json(&chat(json!({"tools": [tool]})).into()).unwrap();
    let defs = llm_wire::tools::project_tools(&agent.tools).unwrap();
    assert_eq!(Value::from(defs[0].parameters.clone()), *written);
}

#[test]
fn a_hundred_thousand_bindings_hide_as_many_parameters() {
    let names = reversed_names();
    let mut parameters: Vec<Value> =
        names.iter().map(|name| json!({"name": name, "kind": "string", "required": true})).collect();
    parameters.push(json!({"name": "free", "kind": "string", "required": true}));
    let bindings: Vec<Value> = names.iter().map(|name| json!({"name": name, "input": name})).collect();
    let f = functions(json!([{"kind": "function", "name": "f", "parameters": parameters, "bindings": bindings}]));
    assert_eq!(
        f[0]["parameters"],
        json!({"type": "object", "properties": {"free": {"type": "string"}}, "required": ["free"]})
    );
}

#[test]
fn an_mcp_server_with_a_hundred_thousand_tools_is_filtered_by_as_many_allowed_names() {
    let tools: Vec<Value> = (0..N).map(|i| json!({"name": format!("t{i}")})).collect();
    let allowed: Vec<String> = (0..N).rev().filter(|i| i % 2 == 0).map(|i| format!("t{i}")).collect();
    let f = functions(json!([{"kind": "mcp", "name": "m", "tools": tools, "allowedTools": allowed}]));
    assert_eq!(f.len(), N / 2);
    assert_eq!(f[1]["name"], "t2");
    assert_eq!(f[N / 2 - 1]["name"], format!("t{}", N - 2));
}

#[test]
fn an_openapi_document_with_a_hundred_thousand_operations_and_refs_projects_every_one() {
    let paths: serde_json::Map<String, Value> = (0..N)
        .map(|i| (format!("/r{i}"), json!({"get": {"parameters": [{"$ref": "#/components/parameters/Q"}]}})))
        .collect();
    let spec =
        json!({"paths": paths, "components": {"parameters": {"Q": {"name": "q", "in": "query", "required": true}}}});
    let f = functions(json!([{"kind": "openapi", "name": "api", "specification": spec}]));
    assert_eq!(f.len(), N);
    let parameters = json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
    assert!(f.iter().all(|def| def["parameters"] == parameters));
    assert_eq!(f[0]["name"], "get_r0");
}

#[test]
fn an_openapi_operation_with_a_hundred_thousand_parameters_and_body_properties_takes_each_once() {
    let names = reversed_names();
    let mut parameters: Vec<Value> = names.iter().map(|name| json!({"name": name, "in": "query"})).collect();
    // The path-level list repeats every name: the operation's own parameters win.
    let shared: Vec<Value> = names.iter().map(|name| json!({"name": name, "in": "header", "required": true})).collect();
    let body_properties: serde_json::Map<String, Value> =
        (0..N).map(|i| (format!("b{i:06}"), json!({"type": "boolean"}))).collect();
    let body_required: Vec<String> = (0..N).rev().filter(|i| i % 3 == 0).map(|i| format!("b{i:06}")).collect();
    parameters.push(json!({"name": "p000000", "in": "path"}));
    let request_body = json!({"content": {"application/json": {"schema": {"properties": body_properties, "required": body_required}}}});
    let spec = json!({"paths": {"/x": {"parameters": shared, "post": {"operationId": "big", "parameters": parameters, "requestBody": request_body}}}});
    let f = functions(json!([{"kind": "openapi", "name": "api", "specification": spec}]));
    let schema = &f[0]["parameters"];
    assert_eq!(schema["properties"].as_object().unwrap().len(), 2 * N);
    assert_eq!(schema["properties"]["p000000"], json!({"type": "string"}));
    let body_names = (0..N).filter(|i| i % 3 == 0).map(|i| format!("b{i:06}"));
    assert_eq!(schema["required"], json!(body_names.collect::<Vec<_>>()));
}

#[test]
fn a_hundred_thousand_messages_with_tool_calls_replay_in_every_format() {
    let mut messages = Vec::new();
    for i in 0..N / 2 {
        let id = format!("c{i}");
        let call = json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}});
        messages.push(json!({"role": "assistant", "content": "", "metadata": {"tool_calls": [call]}}));
        // The Responses item of the same call rides along: it must not be sent twice.
        let item = json!({"type": "function_call", "call_id": id, "name": "f", "arguments": "{}"});
        messages.push(
            json!({"role": "tool", "content": "r", "metadata": {"tool_call_id": id, "responses_function_call": item}}),
        );
    }
    let messages = json!(messages);
    let chat_body = body(&agent("openai", "chat", json!({})), messages.clone());
    assert_eq!(chat_body["messages"].as_array().unwrap().len(), N);
    let responses = body(&agent("openai", "responses", json!({})), messages.clone());
    let input = responses["input"].as_array().unwrap();
    assert_eq!(input.len(), N);
    assert_eq!(input[N - 2]["type"], "function_call");
    assert_eq!(
        input[N - 1],
        json!({"type": "function_call_output", "call_id": format!("c{}", N / 2 - 1), "output": "r"})
    );
    let anthropic = body(&agent("anthropic", "chat", json!({})), messages);
    let turns = anthropic["messages"].as_array().unwrap();
    assert_eq!(turns.len(), N);
    assert_eq!(turns[N - 1]["content"][0]["tool_use_id"], format!("c{}", N / 2 - 1));
}

#[test]
fn structured_output_with_a_hundred_thousand_properties_requires_them_in_declared_order() {
    let names = reversed_names();
    let outputs: Vec<Value> = names.iter().map(|name| json!({"name": name, "kind": "float"})).collect();
    let b = body(&chat(json!({"outputs": outputs})), user(json!("hi")));
    let schema = &b["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["required"], json!(names));
    assert_eq!(schema["properties"].as_object().unwrap().len(), N);
}

#[test]
fn a_hundred_thousand_extra_headers_are_each_sent_once_the_last_of_a_name_winning() {
    let agent = Agent::new("m");
    let mut headers: Vec<(String, String)> = (0..N).rev().map(|i| (format!("X-H{i}"), format!("{i}"))).collect();
    // The same names again in lower case, and one built header replaced.
    headers.extend((0..N).map(|i| (format!("x-h{i}"), format!("again {i}"))));
    headers.push(("user-agent".into(), "mine".into()));
    let options = RequestOptions { base_url: Some("http://x".into()), headers, ..Default::default() };
    let request = build_request(&agent, &[Message::new("user", "hi")], &options).unwrap();
    assert_eq!(request.headers.len(), 1 + N + 1);
    assert_eq!(request.headers[0], ("Content-Type".to_owned(), "application/json".to_owned()));
    assert_eq!(request.headers[1], ("x-h0".to_owned(), "again 0".to_owned()));
    assert_eq!(request.headers[N], (format!("x-h{}", N - 1), format!("again {}", N - 1)));
    assert_eq!(request.headers[N + 1], ("user-agent".to_owned(), "mine".to_owned()));
}
