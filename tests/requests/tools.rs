//! Tool projection (§7.1.3): every kind ends as a function definition.

use llm_wire::{register_tool, unregister_tool};
use serde_json::{json, Value};

use super::{agent, assert_invalid_at, assert_limit_at, body, chat, error, user};

/// The `function` objects of the Chat tools built for `tools`.
fn functions(tools: Value) -> Vec<Value> {
    let b = body(&chat(json!({"tools": tools})), user(json!("hi")));
    b["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(t["type"], "function");
            t["function"].clone()
        })
        .collect()
}

#[test]
fn bound_parameters_leave_properties_and_required() {
    let f = functions(
        json!([{"kind": "function", "name": "get", "bindings": {"token": {"input": "secret"}}, "parameters": [
            {"name": "city", "kind": "string", "required": true},
            {"name": "token", "kind": "string", "required": true},
        ]}]),
    );
    assert_eq!(
        f[0]["parameters"],
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    );
}

#[test]
fn binding_the_only_required_parameter_drops_required() {
    let f = functions(
        json!([{"kind": "function", "name": "get", "bindings": [{"name": "token", "input": "secret"}], "parameters": [
            {"name": "token", "kind": "string", "required": true}, {"name": "q", "kind": "string"},
        ]}]),
    );
    assert_eq!(f[0]["parameters"], json!({"type": "object", "properties": {"q": {"type": "string"}}}));
}

#[test]
fn a_strict_function_flags_the_definition_and_closes_the_schema_recursively() {
    let f = functions(json!([{"kind": "function", "name": "f", "strict": true, "parameters": [
        {"name": "a", "kind": "string", "required": true},
        {"name": "o", "kind": "object", "properties": [{"name": "x", "kind": "boolean"}]},
    ]}]));
    assert_eq!(f[0]["strict"], true);
    assert_eq!(
        f[0]["parameters"],
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "o": {"type": ["object", "null"], "properties": {"x": {"type": ["boolean", "null"]}}, "required": ["x"], "additionalProperties": false},
            },
            "required": ["a", "o"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn a_tool_that_is_not_strict_has_no_strict_flag() {
    let f = functions(json!([{"kind": "function", "name": "f"}]));
    assert!(f[0].get("strict").is_none());
}

#[test]
fn a_prompty_tool_projects_its_childs_inputs_with_the_child_description_as_fallback() {
    let f = functions(json!([{"kind": "prompty", "name": "summarise", "path": "./s.prompty", "child": {
        "description": "Summarise a text", "inputs": [{"name": "text", "kind": "string", "required": true}],
    }}]));
    assert_eq!(
        f[0],
        json!({"name": "summarise", "description": "Summarise a text",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}})
    );
}

#[test]
fn a_prompty_tools_own_description_wins_over_the_childs() {
    let f = functions(
        json!([{"kind": "prompty", "name": "s", "description": "mine", "child": {"description": "child's", "inputs": []}}]),
    );
    assert_eq!(f[0]["description"], "mine");
}

#[test]
fn a_prompty_tool_without_its_child_is_invalid_input_at_child() {
    let e =
        error(&chat(json!({"tools": [{"kind": "prompty", "name": "s", "path": "./s.prompty"}]})), user(json!("hi")));
    assert_invalid_at(&e, "agent.tools[0].child");
}

fn mcp_tools() -> Value {
    json!([
        {"name": "read_file", "description": "Read a file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "write_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "data": {"type": "string"}}}},
        {"name": "list"},
    ])
}

#[test]
fn an_mcp_tool_projects_every_listed_tool_with_its_input_schema() {
    let f = functions(json!([{"kind": "mcp", "name": "fs", "serverName": "files", "tools": mcp_tools()}]));
    assert_eq!(f.len(), 3);
    assert_eq!(
        f[0],
        json!({"name": "read_file", "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}})
    );
    assert_eq!(f[2], json!({"name": "list", "parameters": {"type": "object", "properties": {}}}));
}

#[test]
fn an_mcp_tool_keeps_only_the_allowed_tools() {
    let f = functions(json!([{"kind": "mcp", "name": "fs", "allowedTools": ["write_file"], "tools": mcp_tools()}]));
    let names: Vec<&str> = f.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["write_file"]);
}

#[test]
fn an_mcp_tool_accepts_the_whole_tools_list_result_object() {
    let f = functions(json!([{"kind": "mcp", "name": "fs", "tools": {"tools": mcp_tools()}}]));
    assert_eq!(f.len(), 3);
}

#[test]
fn a_strict_mcp_tool_makes_each_input_schema_strict() {
    let f = functions(
        json!([{"kind": "mcp", "name": "fs", "strict": true, "allowedTools": ["write_file"], "tools": mcp_tools()}]),
    );
    assert_eq!(f[0]["strict"], true);
    assert_eq!(f[0]["parameters"]["required"], json!(["data", "path"]));
    assert_eq!(f[0]["parameters"]["properties"]["data"]["type"], json!(["string", "null"]));
    assert_eq!(f[0]["parameters"]["additionalProperties"], false);
}

#[test]
fn an_mcp_listed_tool_without_a_name_is_invalid_input_at_its_name() {
    let e = error(
        &chat(json!({"tools": [{"kind": "mcp", "name": "fs", "tools": [{"inputSchema": {}}]}]})),
        user(json!("hi")),
    );
    assert_invalid_at(&e, "agent.tools[0].tools[0].name");
}

fn petstore() -> Value {
    json!({
        "openapi": "3.0.0",
        "paths": {
            "/pets/{petId}": {
                "parameters": [{"name": "petId", "in": "path", "schema": {"type": "integer"}, "description": "The pet"}],
                "get": {"operationId": "getPet", "summary": "Get a pet", "description": "long text", "parameters": [
                    {"name": "verbose", "in": "query", "schema": {"type": "boolean"}},
                    {"name": "X-Trace", "in": "header", "required": true, "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                ]},
                "put": {"description": "Replace a pet", "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"},
                }}}},
            },
            "/pets": {"post": {"requestBody": {"$ref": "#/components/requestBodies/Tags"}}},
        },
        "components": {
            "schemas": {
                "Pet": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string"}, "owner": {"$ref": "#/components/schemas/Person"},
                }},
                "Person": {"type": "object", "properties": {"name": {"type": "string"}, "pet": {"$ref": "#/components/schemas/Pet"}}},
            },
            "requestBodies": {"Tags": {"content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}},
        },
    })
}

fn by_name(functions: &[Value], name: &str) -> Value {
    functions.iter().find(|f| f["name"] == name).cloned().unwrap_or_else(|| panic!("no {name} in {functions:?}"))
}

#[test]
fn an_openapi_tool_projects_one_function_per_operation() {
    let f = functions(json!([{"kind": "openapi", "name": "pets", "specification": petstore()}]));
    let mut names: Vec<&str> = f.iter().map(|f| f["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["getPet", "post_pets", "put_pets_petId"]);
}

#[test]
fn an_openapi_operation_takes_path_query_and_header_parameters_but_not_cookies() {
    let f = functions(json!([{"kind": "openapi", "name": "pets", "specification": petstore()}]));
    assert_eq!(
        by_name(&f, "getPet"),
        json!({"name": "getPet", "description": "Get a pet", "parameters": {
            "type": "object",
            "properties": {
                "petId": {"type": "integer", "description": "The pet"},
                "verbose": {"type": "boolean"},
                "X-Trace": {"type": "string"},
            },
            "required": ["X-Trace", "petId"],
        }})
    );
}

#[test]
fn an_openapi_json_body_adds_its_properties_with_refs_resolved_and_cycles_cut() {
    let f = functions(json!([{"kind": "openapi", "name": "pets", "specification": petstore()}]));
    let put = by_name(&f, "put_pets_petId");
    assert_eq!(put["description"], "Replace a pet");
    assert_eq!(put["parameters"]["required"], json!(["petId", "name"]));
    assert_eq!(put["parameters"]["properties"]["name"], json!({"type": "string"}));
    // Pet → owner (Person) → pet (Pet again): the second visit stops as a plain object.
    assert_eq!(put["parameters"]["properties"]["owner"]["properties"]["pet"], json!({"type": "object"}));
}

#[test]
fn an_openapi_body_that_is_not_an_object_becomes_one_body_parameter() {
    let f = functions(json!([{"kind": "openapi", "name": "pets", "specification": petstore()}]));
    assert_eq!(
        by_name(&f, "post_pets")["parameters"]["properties"]["body"],
        json!({"type": "array", "items": {"type": "string"}})
    );
}

#[test]
fn an_openapi_specification_may_be_json_text() {
    let f = functions(json!([{"kind": "openapi", "name": "pets", "specification": petstore().to_string()}]));
    assert_eq!(f.len(), 3);
}

#[test]
fn an_openapi_ref_outside_the_document_is_invalid_input_at_the_specification() {
    let spec = json!({"paths": {"/a": {"get": {"parameters": [{"$ref": "other.yaml#/p"}]}}}});
    let e = openapi_error(spec);
    assert_invalid_at(&e, "agent.tools[0].specification");
}

#[test]
fn an_openapi_specification_that_is_not_json_is_invalid_input() {
    let e = error(
        &chat(json!({"tools": [{"kind": "openapi", "name": "x", "specification": "openapi: 3.0.0"}]})),
        user(json!("hi")),
    );
    assert_invalid_at(&e, "agent.tools[0].specification");
}

/// The error of projecting an OpenAPI tool whose one operation posts a body of schema `S0`
/// among `schemas` (`S{i}` names, as the ref tests build them).
fn chain_error(schemas: serde_json::Map<String, Value>) -> llm_wire::Error {
    let spec = json!({"paths": {"/a": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}},
        "components": {"schemas": schemas}});
    openapi_error(spec)
}

fn openapi_error(spec: Value) -> llm_wire::Error {
    error(&chat(json!({"tools": [{"kind": "openapi", "name": "x", "specification": spec}]})), user(json!("hi")))
}

#[test]
fn an_openapi_ref_fan_out_is_bounded_instead_of_exhausting_memory() {
    // Each level references the next twice: 2^40 nodes if expanded naively.
    let mut schemas = serde_json::Map::new();
    for i in 0..40 {
        let next = json!({"$ref": format!("#/components/schemas/S{}", i + 1)});
        schemas.insert(format!("S{i}"), json!({"type": "object", "properties": {"a": next, "b": next}}));
    }
    schemas.insert("S40".into(), json!({"type": "string"}));
    let e = chain_error(schemas);
    assert_limit_at(&e, "agent.tools[0].specification");
}

/// An OpenAPI tool named `name` whose `count` operations each take the query parameter `P`,
/// whose description is `description_bytes` long, through a `$ref`.
fn tool_with_refs_to_a_large_parameter(name: &str, count: usize, description_bytes: usize) -> Value {
    let paths: serde_json::Map<String, Value> = (0..count)
        .map(|i| (format!("/p{i}"), json!({"get": {"parameters": [{"$ref": "#/components/parameters/P"}]}})))
        .collect();
    let parameter = json!({"name": "q", "in": "query", "description": "d".repeat(description_bytes)});
    let spec = json!({"paths": paths, "components": {"parameters": {"P": parameter}}});
    json!({"kind": "openapi", "name": name, "specification": spec})
}

#[test]
fn an_openapi_document_whose_refs_copy_a_large_value_hundreds_of_times_is_limit_exceeded() {
    // 600 refs to an 8 MB description would copy 4.8 GB.
    let tool = tool_with_refs_to_a_large_parameter("big", 600, 8 << 20);
    let e = error(&chat(json!({"tools": [tool]})), user(json!("hi")));
    assert_limit_at(&e, "agent.tools[0].specification");
    assert!(e.message.contains("16 MiB"), "{}", e.message);
}

#[test]
fn the_ref_budget_is_shared_by_the_openapi_tools_of_one_request() {
    // Six copies of a 1 MiB description each: two tools fit in 16 MiB, a third does not.
    let tool = |name| tool_with_refs_to_a_large_parameter(name, 6, 1 << 20);
    let f = functions(json!([tool("a"), tool("b")]));
    assert_eq!(f.len(), 12);
    assert_eq!(f[11]["parameters"]["properties"]["q"]["description"].as_str().map(str::len), Some(1 << 20));
    let e = error(&chat(json!({"tools": [tool("a"), tool("b"), tool("c")]})), user(json!("hi")));
    assert_limit_at(&e, "agent.tools[2].specification");
}

#[test]
fn refs_that_nest_values_deeper_than_json_allows_are_invalid_input_not_a_stack_overflow() {
    // Each schema nests 40 levels (20 objects and their `properties`) before its ref to the next:
    // 63 of them are 2520 deep.
    let mut schemas = serde_json::Map::new();
    for i in 0..63 {
        let mut schema = json!({"$ref": format!("#/components/schemas/S{}", i + 1)});
        for _ in 0..20 {
            schema = json!({"type": "object", "properties": {"a": schema}});
        }
        schemas.insert(format!("S{i}"), schema);
    }
    schemas.insert("S63".into(), json!({"type": "string"}));
    let e = chain_error(schemas.clone());
    assert_invalid_at(&e, "agent.tools[0].specification");
    assert_eq!(e.message, "the $refs nest values more than 128 deep");
    // Two of them, 80 deep, are sent.
    schemas.insert("S2".into(), json!({"type": "string"}));
    let spec = json!({"paths": {"/a": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}},
        "components": {"schemas": schemas}});
    let f = functions(json!([{"kind": "openapi", "name": "x", "specification": spec}]));
    assert_eq!(f[0]["parameters"]["properties"]["a"]["properties"]["a"]["type"], "object");
}

#[test]
fn a_custom_tool_uses_its_inline_parameters_schema() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let f = functions(
        json!([{"kind": "bing_search", "name": "search", "description": "Search", "parametersSchema": schema}]),
    );
    assert_eq!(f[0], json!({"name": "search", "description": "Search", "parameters": schema}));
}

#[test]
fn a_custom_tool_is_looked_up_in_the_registry_by_name() {
    register_tool(
        "registry_by_name_test",
        &json!({"description": "Registered", "parameters": [
            {"name": "n", "kind": "integer", "required": true},
        ]})
        .into(),
    )
    .unwrap();
    let f = functions(json!([{"kind": "my_kind", "name": "registry_by_name_test"}]));
    unregister_tool("registry_by_name_test");
    assert_eq!(
        f[0],
        json!({"name": "registry_by_name_test", "description": "Registered",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}})
    );
}

#[test]
fn a_custom_tool_is_looked_up_in_the_registry_by_kind_when_its_name_is_not_registered() {
    let schema = json!({"type": "object", "properties": {"url": {"type": "string"}}});
    register_tool("registry_kind_test", &json!({"parameters": schema}).into()).unwrap();
    let f = functions(json!([{"kind": "registry_kind_test", "name": "fetch", "description": "Fetch"}]));
    unregister_tool("registry_kind_test");
    assert_eq!(f[0], json!({"name": "fetch", "description": "Fetch", "parameters": schema}));
}

#[test]
fn a_custom_tool_with_no_schema_and_no_registration_is_an_error_naming_the_tool() {
    let e = error(
        &chat(json!({"tools": [{"kind": "function", "name": "ok"}, {"kind": "unheard_of", "name": "mystery"}]})),
        user(json!("hi")),
    );
    assert_invalid_at(&e, "agent.tools[1]");
    assert!(e.message.contains("mystery") && e.message.contains("unheard_of"), "{}", e.message);
}

#[test]
fn registering_a_tool_with_a_bad_property_is_invalid_input_at_the_property() {
    let e =
        register_tool("bad_registration", &json!({"parameters": [{"name": "x", "kind": "text"}]}).into()).unwrap_err();
    assert_invalid_at(&e, "def.parameters[0].kind");
}

#[test]
fn an_openapi_ref_chain_deeper_than_the_limit_is_invalid_input_not_a_stack_overflow() {
    let mut schemas = serde_json::Map::new();
    for i in 0..5000 {
        schemas.insert(format!("S{i}"), json!({"$ref": format!("#/components/schemas/S{}", i + 1)}));
    }
    schemas.insert("S5000".into(), json!({"type": "object"}));
    let e = chain_error(schemas);
    assert_invalid_at(&e, "agent.tools[0].specification");
}

#[test]
fn an_openapi_ref_to_nothing_is_invalid_input() {
    let spec = json!({"paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/Missing"}]}}}});
    let e = openapi_error(spec);
    assert_invalid_at(&e, "agent.tools[0].specification");
    assert!(e.message.contains("Missing"), "{}", e.message);
}

#[test]
fn an_openapi_document_without_paths_is_invalid_input_at_paths() {
    let e = error(
        &chat(json!({"tools": [{"kind": "openapi", "name": "x", "specification": {"openapi": "3.0.0"}}]})),
        user(json!("hi")),
    );
    assert_invalid_at(&e, "agent.tools[0].specification.paths");
}

/// The agent of `api` with `extra`, for the OpenAI APIs whose strict mode needs array items.
fn openai(api: &str, extra: Value) -> Value {
    super::agent("openai", api, extra)
}

#[test]
fn a_strict_array_without_items_is_invalid_input_at_its_items() {
    let nested = json!([{"name": "a", "kind": "string"}, {"name": "o", "kind": "object", "properties": [
        {"name": "grid", "kind": "array", "items": {"kind": "array"}}]}]);
    for api in ["chat", "responses"] {
        let e = error(&openai(api, json!({"outputs": [{"name": "tags", "kind": "array"}]})), user(json!("hi")));
        assert_invalid_at(&e, "agent.outputs[0].items");
        assert!(e.message.contains("OpenAI refuses"), "{e}");
        let e = error(&openai(api, json!({"outputs": nested})), user(json!("hi")));
        assert_invalid_at(&e, "agent.outputs[1].properties[0].items.items");
        let tool = json!({"kind": "function", "name": "f", "strict": true, "parameters": nested});
        let e = error(&openai(api, json!({"tools": [tool]})), user(json!("hi")));
        assert_invalid_at(&e, "agent.tools[0].parameters[1].properties[0].items.items");
        let tool = json!({"kind": "prompty", "name": "p", "path": "p.prompty", "strict": true,
            "child": {"inputs": [{"name": "list", "kind": "array"}]}});
        let e = error(&openai(api, json!({"tools": [tool]})), user(json!("hi")));
        assert_invalid_at(&e, "agent.tools[0].child.inputs[0].items");
    }
}

#[test]
fn a_strict_json_schema_array_without_items_is_invalid_input_where_the_schema_says_it() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"},
        "tags": {"anyOf": [{"type": "string"}, {"type": ["array", "null"]}]}}});
    let custom = json!({"kind": "search", "name": "s", "strict": true, "parametersSchema": schema});
    let e = error(&chat(json!({"tools": [custom]})), user(json!("hi")));
    assert_invalid_at(&e, "agent.tools[0].parametersSchema.properties.tags.anyOf[1].items");
    let mcp = json!({"kind": "mcp", "name": "m", "strict": true, "tools": [{"name": "ok"}, {"name": "t", "inputSchema":
        {"type": "object", "$defs": {"L": {"type": "array"}}}}]});
    let e = error(&chat(json!({"tools": [mcp]})), user(json!("hi")));
    assert_invalid_at(&e, "agent.tools[0].tools[1].inputSchema.$defs.L.items");
    let spec = json!({"paths": {"/x": {"post": {"operationId": "post_x", "requestBody": {"content":
        {"application/json": {"schema": {"type": "object", "properties": {"ids": {"type": "array"}}}}}}}}}});
    let openapi = json!({"kind": "openapi", "name": "api", "strict": true, "specification": spec});
    let e = error(&chat(json!({"tools": [openapi]})), user(json!("hi")));
    assert_invalid_at(&e, "agent.tools[0]");
    assert!(e.message.contains("function `post_x`: the array at `properties.ids.items`"), "{e}");
}

#[test]
fn an_array_without_items_is_sent_when_not_strict_not_bound_or_not_to_openai() {
    let params = json!([{"name": "tags", "kind": "array"}, {"name": "q", "kind": "string"}]);
    let loose = json!({"kind": "function", "name": "f", "parameters": params});
    let b = body(&chat(json!({"tools": [loose]})), user(json!("hi")));
    assert_eq!(b["tools"][0]["function"]["parameters"]["properties"]["tags"], json!({"type": "array"}));
    let bound = json!({"kind": "function", "name": "f", "strict": true, "parameters": params,
        "bindings": {"tags": {"input": "t"}}});
    let b = body(&chat(json!({"tools": [bound]})), user(json!("hi")));
    assert!(b["tools"][0]["function"]["parameters"]["properties"].get("tags").is_none(), "{b}");
    let strict = json!({"kind": "function", "name": "f", "strict": true, "parameters": params});
    let b = body(&super::agent("anthropic", "chat", json!({"tools": [strict]})), user(json!("hi")));
    assert_eq!(b["tools"][0]["input_schema"]["properties"]["tags"], json!({"type": ["array", "null"]}));
}

/// An agent of `provider`/`api_type` with one function tool `f` and `options`.
fn with_function_and(provider: &str, api_type: &str, options: Value) -> Value {
    let mut agent = agent(provider, api_type, json!({"tools": [{"kind": "function", "name": "f"}]}));
    agent["model"]["options"] = options;
    agent
}

#[test]
fn anthropic_server_tools_given_in_additional_properties_follow_the_function_tools() {
    let server = json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 2});
    let agent = with_function_and("anthropic", "chat", json!({"additionalProperties": {"tools": [server]}}));
    let b = body(&agent, user(json!("hi")));
    let names: Vec<&str> = b["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["f", "web_search"]);
    assert_eq!(b["tools"][1], server);
}

#[test]
fn responses_hosted_tools_given_in_additional_properties_follow_the_function_tools() {
    let hosted = json!([{"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["vs_1"]}]);
    let options = json!({"allowMultipleToolCalls": false, "additionalProperties": {"tools": hosted}});
    let b = body(&with_function_and("openai", "responses", options), user(json!("hi")));
    let tools = b["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 3);
    assert_eq!((tools[0]["type"].clone(), tools[0]["name"].clone()), (json!("function"), json!("f")));
    assert_eq!(tools[1..], hosted.as_array().unwrap()[..]);
    assert_eq!(b["parallel_tool_calls"], false);
}

#[test]
fn given_tools_alone_are_sent_as_the_tools() {
    let mut agent = agent("openai", "responses", json!({}));
    agent["model"]["options"] = json!({"additionalProperties": {"tools": [{"type": "web_search"}]}});
    assert_eq!(body(&agent, user(json!("hi")))["tools"], json!([{"type": "web_search"}]));
}

#[test]
fn a_given_tool_named_like_a_function_tool_is_invalid_input() {
    let cases = [
        ("anthropic", "chat", json!({"type": "web_search_20250305", "name": "f"})),
        ("openai", "responses", json!({"type": "custom", "name": "f"})),
        ("openai", "chat", json!({"type": "function", "function": {"name": "f"}})),
    ];
    for (provider, api_type, given) in cases {
        let options = json!({"additionalProperties": {"tools": [{"type": "web_search"}, given]}});
        let e = error(&with_function_and(provider, api_type, options), user(json!("hi")));
        assert_invalid_at(&e, "agent.model.options.additionalProperties.tools[1]");
    }
}

#[test]
fn given_tools_that_are_not_a_list_are_invalid_input() {
    let options = json!({"additionalProperties": {"tools": {"type": "web_search"}}});
    let e = error(&with_function_and("openai", "responses", options), user(json!("hi")));
    assert_invalid_at(&e, "agent.model.options.additionalProperties.tools");
}
