//! Bedrock Converse requests: the recorded requests beside the fixtures rebuilt from equivalent
//! agents and messages, the URL and headers of `buildRequest`, every content part, options,
//! structured output and a finished turn sent back.

use std::path::Path;

use llm_wire::{build_chat_args_json, build_request, Agent, ErrorCode, Message, RequestOptions};
use serde_json::{json, Value};

fn recorded(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bedrock").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn body(agent: &Value, messages: &Value) -> Value {
    let built = build_chat_args_json(&agent.clone().into(), &messages.clone().into()).unwrap();
    built.into()
}

fn body_err(agent: &Value, messages: &Value) -> llm_wire::Error {
    build_chat_args_json(&agent.clone().into(), &messages.clone().into()).unwrap_err()
}

/// The recorded body without what the input shapes cannot say or the builder leaves out on
/// purpose: an empty `system` list and `inferenceConfig` (left out when there is nothing to
/// say), `cachePoint` blocks (agents and messages have no cache hints), and a tool result's
/// `status` (a `tool` message does not say whether the tool failed).
fn without_accepted_differences(mut body: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Array(items) => {
                items.retain(|item| item.get("cachePoint").is_none());
                items.iter_mut().for_each(strip);
            }
            Value::Object(map) => {
                if let Some(Value::Object(result)) = map.get_mut("toolResult") {
                    result.remove("status");
                }
                map.values_mut().for_each(strip);
            }
            _ => {}
        }
    }
    let map = body.as_object_mut().unwrap();
    for key in ["system", "inferenceConfig"] {
        if map.get(key).is_some_and(|v| v == &json!([]) || v == &json!({})) {
            map.remove(key);
        }
    }
    strip(&mut body);
    body
}

/// Each recorded request, and the agent and messages that say the same.
fn equivalents() -> Vec<(&'static str, Value, Value)> {
    let bedrock = |id: &str, options: Value| json!({"id": id, "provider": "bedrock", "options": options});
    let thinking = json!({"additionalProperties": {"thinking": {"type": "enabled", "budget_tokens": 1024}}});
    let no_arguments = json!({"additionalProperties": false, "properties": {}, "type": "object"});
    let response = |properties: Value, required: Value| json!({"properties": properties, "required": required, "title": "Response", "type": "object"});
    let final_result = |schema: Value| json!({"kind": "custom", "name": "final_result", "description": "The final response which ends this conversation", "parametersSchema": schema});
    let chatbot = json!({"role": "system", "content": "You are a helpful chatbot."});
    let nova_tool = recorded("pyd-nova-tool-use.request.json");
    let nova_messages = &nova_tool["body"]["messages"];
    let temperature_tool = &nova_tool["body"]["toolConfig"]["tools"][0]["toolSpec"];
    let cache = recorded("pyd-cache-write.request.json");
    let cache_user = &cache["body"]["messages"][0]["content"];
    vec![
        (
            "pyd-max-tokens.request.json",
            json!({"model": bedrock("us.amazon.nova-micro-v1:0", json!({"maxOutputTokens": 5}))}),
            json!([chatbot, {"role": "user", "content": "What is the capital of France?"}]),
        ),
        (
            "pyd-nova-text-stream.request.json",
            json!({"model": bedrock("us.amazon.nova-micro-v1:0", json!({"temperature": 0.0}))}),
            json!([chatbot, {"role": "user", "content": "What is the capital of France?"}]),
        ),
        (
            "pyd-error-400-stream-endpoint.request.json",
            json!({"model": bedrock("us.does-not-exist-model-v1:0", json!({}))}),
            json!([{"role": "user", "content": "hello"}]),
        ),
        (
            "pyd-claude-reasoning-signature-stream.request.json",
            json!({"model": bedrock("us.anthropic.claude-sonnet-4-20250514-v1:0", thinking.clone())}),
            json!([{"role": "user", "content": "Hello"}]),
        ),
        (
            "pyd-claude-redacted-reasoning-stream.request.json",
            json!({"model": bedrock("us.anthropic.claude-3-7-sonnet-20250219-v1:0", thinking.clone())}),
            json!([{"role": "user", "content": "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB"}]),
        ),
        (
            "pyd-claude-reasoning-text-tool-use.request.json",
            json!({
                "model": bedrock("us.anthropic.claude-3-7-sonnet-20250219-v1:0", thinking),
                "tools": [{"kind": "custom", "name": "get_user_country", "parametersSchema": no_arguments}],
            }),
            json!([{"role": "user", "content": "What is the largest city in the user country?"}]),
        ),
        (
            "pyd-nova-code-interpreter-stream.request.json",
            json!({
                "model": bedrock("us.amazon.nova-2-lite-v1:0", json!({"additionalProperties": {"toolConfig": {
                    "tools": [{"systemTool": {"name": "nova_code_interpreter"}}],
                    "toolChoice": {"any": {}},
                }}})),
                "tools": [final_result(response(json!({"result": {"type": "number"}}), json!(["result"])))],
            }),
            json!([chatbot, {"role": "user", "content": "What is 1234 * 5678?"}]),
        ),
        (
            "pyd-nova-tool-use.request.json",
            json!({
                "model": bedrock("us.amazon.nova-micro-v1:0", json!({"additionalProperties": {"toolConfig": {"toolChoice": {"any": {}}}}})),
                "tools": [
                    {"kind": "custom", "name": "temperature", "description": temperature_tool["description"], "parametersSchema": temperature_tool["inputSchema"]["json"]},
                    final_result(response(
                        json!({"temperature": {"type": "string"}, "date": {"format": "date", "type": "string"}, "city": {"type": "string"}}),
                        json!(["temperature", "date", "city"]),
                    )),
                ],
            }),
            json!([
                chatbot,
                {"role": "user", "content": nova_messages[0]["content"][0]["text"]},
                {"role": "assistant", "content": "", "metadata": {"tool_calls": [{"id": "tooluse_Mj06ft-ITJik1Otgpkc1uA", "type": "function", "function": {"name": "temperature", "arguments": "{\"date\":\"2022-01-01\",\"city\":\"London\"}"}}]}},
                {"role": "tool", "content": "30°C", "metadata": {"tool_call_id": "tooluse_Mj06ft-ITJik1Otgpkc1uA"}},
                {"role": "assistant", "content": nova_messages[3]["content"][0]["text"]},
                {"role": "user", "content": nova_messages[4]["content"][0]["text"]},
            ]),
        ),
        (
            "pyd-cache-write.request.json",
            json!({
                "model": bedrock("us.anthropic.claude-sonnet-4-5-20250929-v1:0", json!({"additionalProperties": {"toolConfig": {"toolChoice": {"auto": {}}}}})),
                "tools": [
                    {"kind": "custom", "name": "catalog_lookup", "parametersSchema": no_arguments},
                    {"kind": "custom", "name": "diagnostics", "parametersSchema": no_arguments},
                ],
            }),
            json!([
                {"role": "system", "content": cache["body"]["system"][0]["text"]},
                {"role": "user", "content": [
                    {"kind": "text", "value": cache_user[0]["text"]},
                    {"kind": "file", "value": cache_user[1]["document"]["source"]["bytes"], "mediaType": "text/plain"},
                    {"kind": "text", "value": "\n"},
                    {"kind": "text", "value": "What is 10 + 11?"},
                ]},
            ]),
        ),
    ]
}

#[test]
fn every_recorded_request_is_built_from_an_equivalent_agent_and_messages() {
    let all = equivalents();
    let files = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bedrock")).unwrap();
    let mut recorded_names: Vec<String> =
        files.map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| n.ends_with(".request.json")).collect();
    recorded_names.sort();
    let mut covered: Vec<String> = all.iter().map(|(name, ..)| name.to_string()).collect();
    covered.sort();
    assert_eq!(covered, recorded_names, "every recorded request has its equivalent here");
    for (name, agent, messages) in all {
        let request = recorded(name);
        assert_eq!(body(&agent, &messages), without_accepted_differences(request["body"].clone()), "{name}");
        // The URL too: the region's runtime, the model id percent-encoded, the stream's endpoint.
        let agent = Agent::from_json(&agent.into()).unwrap();
        let messages = Message::list_from_json(&messages.into()).unwrap();
        let stream = request["uri"].as_str().unwrap().ends_with("/converse-stream");
        let options = RequestOptions { region: Some("us-east-1".into()), stream, ..RequestOptions::default() };
        let built = build_request(&agent, &messages, &options).unwrap();
        assert_eq!(built.url, request["uri"].as_str().unwrap(), "{name}");
        let sent: Value = serde_json::from_str(&built.body).unwrap();
        assert_eq!(sent, without_accepted_differences(request["body"].clone()), "{name}: streaming adds nothing");
    }
}

fn agent_with(options: Value) -> Value {
    json!({"model": {"id": "anthropic.claude-3-haiku-20240307-v1:0", "provider": "bedrock", "options": options}})
}

#[test]
fn build_request_sends_a_bedrock_api_key_as_bearer_and_streams_from_its_own_endpoint() {
    let agent = Agent::from_json(&agent_with(json!({})).into()).unwrap();
    let messages = [Message::new("user", "hi")];
    let options = RequestOptions {
        region: Some("eu-west-3".into()),
        api_key: Some("bedrock-key".into()),
        stream: true,
        ..RequestOptions::default()
    };
    let request = build_request(&agent, &messages, &options).unwrap();
    assert_eq!(
        request.url,
        "https://bedrock-runtime.eu-west-3.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream"
    );
    let header = |name: &str| request.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    assert_eq!(header("Authorization"), Some("Bearer bedrock-key"));
    assert_eq!(header("Accept"), Some("application/vnd.amazon.eventstream"));
    assert_eq!(header("Content-Type"), Some("application/json"));
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert!(body.get("stream").is_none() && body.get("model").is_none(), "{body}");

    // An ARN is one path segment; a base URL (a VPC endpoint, a proxy) replaces the region's.
    let arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-v1";
    let mut agent = agent;
    agent.model.id = arn.into();
    let options = RequestOptions { base_url: Some("https://vpce.example/".into()), ..RequestOptions::default() };
    let request = build_request(&agent, &messages, &options).unwrap();
    assert_eq!(
        request.url,
        "https://vpce.example/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-v1/converse"
    );
    assert!(request.headers.iter().all(|(n, _)| n != "Authorization"), "no key: the caller signs the request");

    let err = build_request(&agent, &messages, &RequestOptions::default()).unwrap_err();
    assert_eq!((err.code, err.path.as_deref()), (ErrorCode::InvalidInput, Some("options.region")));
}

#[test]
fn the_region_option_is_read_from_json_and_must_be_a_string() {
    let options = RequestOptions::from_json(&json!({"region": "us-west-2", "stream": true}).into()).unwrap();
    assert_eq!(options.region.as_deref(), Some("us-west-2"));
    let err = RequestOptions::from_json(&json!({"region": 5}).into()).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("options.region"));
}

#[test]
fn options_go_to_inference_config_and_the_model_s_own_fields() {
    let options = json!({
        "temperature": 0.5, "maxOutputTokens": 100, "topP": 0.9, "topK": 40, "stopSequences": ["END"],
        "frequencyPenalty": 1, "presencePenalty": 1, "seed": 7,
        "additionalProperties": {
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "inferenceConfig": {"maxTokens": 5, "temperature": 1},
            "additionalModelRequestFields": {"top_k": 1, "anthropic_beta": ["x"]},
            "performanceConfig": {"latency": "optimized"},
            "guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1"},
        },
    });
    let built = body(&agent_with(options), &json!([{"role": "user", "content": "hi"}]));
    assert_eq!(
        built,
        json!({
            "messages": [{"role": "user", "content": [{"text": "hi"}]}],
            "inferenceConfig": {"maxTokens": 100, "temperature": 0.5, "topP": 0.9, "stopSequences": ["END"]},
            "additionalModelRequestFields": {"top_k": 40, "anthropic_beta": ["x"], "thinking": {"type": "enabled", "budget_tokens": 2048}},
            "performanceConfig": {"latency": "optimized"},
            "guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1"},
        }),
        "the mapped options win; penalties and seed have no Converse parameter"
    );
}

#[test]
fn system_messages_are_system_blocks_and_turns_of_one_role_join() {
    let messages = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": "Answer in French."},
        {"role": "user", "content": "a"},
        {"role": "user", "content": ""},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "c"},
    ]);
    assert_eq!(
        body(&agent_with(json!({})), &messages),
        json!({
            "system": [{"text": "Be brief."}, {"text": "Answer in French."}],
            "messages": [
                {"role": "user", "content": [{"text": "a"}, {"text": "b"}]},
                {"role": "assistant", "content": [{"text": "c"}]},
            ],
        })
    );
}

#[test]
fn each_content_part_becomes_its_converse_block() {
    const PNG: &str =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    // (part, block)
    let cases = [
        (
            json!({"kind": "image", "value": format!("data:image/png;base64,{PNG}")}),
            json!({"image": {"format": "png", "source": {"bytes": PNG}}}),
        ),
        (json!({"kind": "image", "value": PNG}), json!({"image": {"format": "png", "source": {"bytes": PNG}}})),
        (
            json!({"kind": "image", "value": "/9j/4AAQ", "mediaType": "image/jpeg"}),
            json!({"image": {"format": "jpeg", "source": {"bytes": "/9j/4AAQ"}}}),
        ),
        (
            json!({"kind": "image", "value": "s3://bucket/cat.webp"}),
            json!({"image": {"format": "webp", "source": {"s3Location": {"uri": "s3://bucket/cat.webp"}}}}),
        ),
        (
            json!({"kind": "file", "value": "data:application/pdf;base64,JVBERi0x"}),
            json!({"document": {"format": "pdf", "name": "Document 1", "source": {"bytes": "JVBERi0x"}}}),
        ),
        (
            json!({"kind": "file", "value": "aGk=", "mediaType": "text/markdown"}),
            json!({"document": {"format": "md", "name": "Document 1", "source": {"bytes": "aGk="}}}),
        ),
        (
            json!({"kind": "file", "value": "data:video/mp4;base64,AAAA"}),
            json!({"video": {"format": "mp4", "source": {"bytes": "AAAA"}}}),
        ),
        (
            json!({"kind": "audio", "value": "data:audio/mpeg;base64,SUQz"}),
            json!({"audio": {"format": "mp3", "source": {"bytes": "SUQz"}}}),
        ),
        (
            json!({"kind": "audio", "value": "UklG", "mediaType": "audio/wav"}),
            json!({"audio": {"format": "wav", "source": {"bytes": "UklG"}}}),
        ),
    ];
    for (part, block) in cases {
        let messages = json!([{"role": "user", "content": [part.clone()]}]);
        assert_eq!(body(&agent_with(json!({})), &messages)["messages"][0]["content"], json!([block]), "{part}");
    }
    // (part, path of the error)
    let refused = [
        (json!({"kind": "image", "value": "https://example.com/cat.png"}), "messages[0].content[0].value"),
        (json!({"kind": "image", "value": "data:image/bmp;base64,Qk0="}), "messages[0].content[0].mediaType"),
        (json!({"kind": "file", "value": "data:application/zip;base64,UEs="}), "messages[0].content[0].mediaType"),
        (json!({"kind": "image", "value": "AAAA"}), "messages[0].content[0].mediaType"),
        (json!({"kind": "hologram", "value": "x"}), "messages[0].content[0].kind"),
    ];
    for (part, path) in refused {
        let err = body_err(&agent_with(json!({})), &json!([{"role": "user", "content": [part.clone()]}]));
        assert_eq!((err.code, err.path.as_deref()), (ErrorCode::InvalidInput, Some(path)), "{part}");
    }
}

#[test]
fn documents_are_numbered_across_the_request_so_their_names_are_unique() {
    let doc = json!({"kind": "file", "value": "aGk=", "mediaType": "text/plain"});
    let messages = json!([
        {"role": "user", "content": [doc, {"kind": "text", "value": "one"}]},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [doc, {"kind": "text", "value": "two"}]},
    ]);
    let built = body(&agent_with(json!({})), &messages);
    let names: Vec<&Value> = [0, 2].iter().map(|&i| &built["messages"][i]["content"][0]["document"]["name"]).collect();
    assert_eq!(names, [&json!("Document 1"), &json!("Document 2")]);
}

#[test]
fn tool_calls_and_their_results_become_tool_use_and_one_user_turn_of_results() {
    let call =
        |id: &str, args: &str| json!({"id": id, "type": "function", "function": {"name": "f", "arguments": args}});
    let messages = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "calling", "metadata": {"tool_calls": [call("a", "{\"x\":1}"), call("b", "")]}},
        {"role": "tool", "content": "1", "metadata": {"tool_call_id": "a"}},
        {"role": "tool", "content": [{"kind": "text", "value": "see"}, {"kind": "image", "value": "data:image/gif;base64,R0lG"}], "metadata": {"tool_call_id": "b"}},
        {"role": "user", "content": "thanks"},
    ]);
    assert_eq!(
        body(&agent_with(json!({})), &messages)["messages"],
        json!([
            {"role": "user", "content": [{"text": "go"}]},
            {"role": "assistant", "content": [
                {"text": "calling"},
                {"toolUse": {"toolUseId": "a", "name": "f", "input": {"x": 1}}},
                {"toolUse": {"toolUseId": "b", "name": "f", "input": {}}},
            ]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "a", "content": [{"text": "1"}]}},
                {"toolResult": {"toolUseId": "b", "content": [{"text": "see"}, {"image": {"format": "gif", "source": {"bytes": "R0lG"}}}]}},
                {"text": "thanks"},
            ]},
        ])
    );
    let bad = json!([{"role": "assistant", "content": "", "metadata": {"tool_calls": [call("a", "[1]")]}}]);
    let err = body_err(&agent_with(json!({})), &bad);
    assert_eq!(err.path.as_deref(), Some("messages[0].metadata.tool_calls[0]"));
    let err = body_err(&agent_with(json!({})), &json!([{"role": "tool", "content": "x"}]));
    assert_eq!(err.path.as_deref(), Some("messages[0].metadata.tool_call_id"));
}

#[test]
fn every_tool_kind_is_a_tool_spec_with_its_json_schema() {
    let agent = json!({
        "model": {"id": "m", "provider": "bedrock"},
        "tools": [
            {"kind": "function", "name": "weather", "description": "The weather", "strict": true,
             "parameters": [{"name": "city", "kind": "string", "required": true}]},
            {"kind": "mcp", "name": "fs", "tools": [{"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]},
        ],
    });
    let built = body(&agent, &json!([{"role": "user", "content": "hi"}]));
    assert_eq!(
        built["toolConfig"],
        json!({"tools": [
            {"toolSpec": {"name": "weather", "description": "The weather", "strict": true, "inputSchema": {"json": {
                "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false,
            }}}},
            {"toolSpec": {"name": "read_file", "inputSchema": {"json": {"type": "object", "properties": {"path": {"type": "string"}}}}}},
        ]})
    );
}

#[test]
fn structured_output_is_converse_s_output_config_with_the_strict_schema_as_text() {
    let agent = json!({
        "model": {"id": "m", "provider": "bedrock"},
        "outputs": [{"name": "city", "kind": "string", "required": true}, {"name": "population", "kind": "integer"}],
    });
    let built = body(&agent, &json!([{"role": "user", "content": "Oslo?"}]));
    let format = &built["outputConfig"]["textFormat"];
    assert_eq!(format["type"], "json_schema");
    let definition = &format["structure"]["jsonSchema"];
    assert_eq!(definition["name"], "structured_output");
    let schema: Value = serde_json::from_str(definition["schema"].as_str().expect("the schema is JSON text")).unwrap();
    let outputs = llm_wire::model::Property::list_from_json(&agent["outputs"].clone().into(), "outputs").unwrap();
    assert_eq!(schema, Value::from(llm_wire::schema::to_strict_schema(&outputs)));
    assert!(built.get("toolConfig").is_none(), "no tool is forced for the answer");
}

/// Converse refuses blank text, so an empty tool result's text is left out as any message's
/// is: the result is there, with nothing in it.
#[test]
fn an_empty_tool_result_has_no_blank_text_block() {
    let call = json!({"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}});
    for content in [json!(""), json!([{"kind": "text", "value": ""}])] {
        let messages = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "", "metadata": {"tool_calls": [call]}},
            {"role": "tool", "content": content, "metadata": {"tool_call_id": "a"}},
        ]);
        assert_eq!(
            body(&agent_with(json!({})), &messages)["messages"][2],
            json!({"role": "user", "content": [{"toolResult": {"toolUseId": "a", "content": []}}]}),
            "{content}"
        );
    }
}

/// Converse refuses a turn whose `content` is empty: such a turn (an assistant turn of
/// unsigned reasoning only, an empty user message) is left out, and its neighbours join when
/// they then share a role.
#[test]
fn a_turn_with_no_content_is_left_out_and_its_neighbours_join() {
    let unsigned = json!({"blocks": [{"type": "reasoning", "text": "thinking, cut off"}]});
    let messages = json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "metadata": unsigned},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": "a"},
        {"role": "user", "content": ""},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": [{"kind": "text", "value": ""}]},
    ]);
    assert_eq!(
        body(&agent_with(json!({})), &messages)["messages"],
        json!([
            {"role": "user", "content": [{"text": "q"}, {"text": "go on"}]},
            {"role": "assistant", "content": [{"text": "a"}, {"text": "b"}]},
        ])
    );
}

/// A caller's `outputConfig` is merged into the built one, as `inferenceConfig` and
/// `toolConfig` are: its other members kept, its `textFormat` losing to the agent's outputs.
#[test]
fn a_caller_s_output_config_is_merged_with_structured_output() {
    let given = json!({"effort": "high", "textFormat": {"type": "text"}});
    let with_outputs = json!({
        "model": {"id": "m", "provider": "bedrock", "options": {"additionalProperties": {"outputConfig": given}}},
        "outputs": [{"name": "city", "kind": "string", "required": true}],
    });
    let built = body(&with_outputs, &json!([{"role": "user", "content": "Oslo?"}]));
    assert_eq!(built["outputConfig"]["effort"], "high");
    assert_eq!(built["outputConfig"]["textFormat"]["type"], "json_schema");
    assert_eq!(built["outputConfig"].as_object().unwrap().len(), 2);
    // Without outputs it goes as given.
    let plain = agent_with(json!({"additionalProperties": {"outputConfig": given}}));
    assert_eq!(body(&plain, &json!([{"role": "user", "content": "q"}]))["outputConfig"], given);
}

/// A finished turn sent back: reasoning with its signature or redacted data (as base64 of its
/// bytes), text and tool calls, in their order; what Converse cannot take back is left out.
#[test]
fn a_finished_turn_s_blocks_are_sent_back_in_order() {
    let blocks = json!([
        {"type": "reasoning", "text": "think", "signature": "sig"},
        {"type": "reasoning", "text": "", "redacted": "UkVE"},
        {"type": "reasoning", "text": "no signature: not accepted back"},
        {"type": "text", "text": "Let me look."},
        {"type": "other", "providerType": "toolUse", "data": {"type": "server_tool_use"}},
        {"type": "tool_call", "id": "t1", "name": "lookup", "arguments": "{\"q\":\"x\"}"},
        {"type": "text", "text": ""},
    ]);
    let messages = json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "ignored when blocks are given", "metadata": {"blocks": blocks}},
    ]);
    assert_eq!(
        body(&agent_with(json!({})), &messages)["messages"][1]["content"],
        json!([
            {"reasoningContent": {"reasoningText": {"text": "think", "signature": "sig"}}},
            {"reasoningContent": {"redactedContent": "VWtWRQ=="}},
            {"text": "Let me look."},
            {"toolUse": {"toolUseId": "t1", "name": "lookup", "input": {"q": "x"}}},
        ])
    );
    // (blocks, path of the error)
    let refused = [
        (json!({"type": "text"}), "messages[0].metadata.blocks"),
        (json!([{"text": "x"}]), "messages[0].metadata.blocks[0].type"),
        (json!([{"type": "tool_call", "name": "f", "arguments": "{}"}]), "messages[0].metadata.blocks[0].id"),
        (json!([{"type": "tool_call", "id": "t", "name": "f", "arguments": "1"}]), "messages[0].metadata.blocks[0]"),
    ];
    for (blocks, path) in refused {
        let err = body_err(
            &agent_with(json!({})),
            &json!([{"role": "assistant", "content": "", "metadata": {"blocks": blocks}}]),
        );
        assert_eq!((err.code, err.path.as_deref()), (ErrorCode::InvalidInput, Some(path)), "{blocks}");
    }
}

#[test]
fn anthropic_thinking_replayed_by_to_message_is_sent_back_as_reasoning_content() {
    let thinking = json!([
        {"type": "thinking", "thinking": "hmm", "signature": "s1"},
        {"type": "redacted_thinking", "data": "UkVE"},
    ]);
    let messages = json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "metadata": {"anthropic_thinking": thinking}},
    ]);
    assert_eq!(
        body(&agent_with(json!({})), &messages)["messages"][1]["content"],
        json!([
            {"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "s1"}}},
            {"reasoningContent": {"redactedContent": "VWtWRQ=="}},
            {"text": "a"},
        ])
    );
}

#[test]
fn gen_ai_attributes_name_aws_bedrock_and_read_the_inference_config() {
    let agent_json = agent_with(json!({"maxOutputTokens": 9, "temperature": 0.2, "topP": 0.5, "stopSequences": ["x"]}));
    let agent = Agent::from_json(&agent_json.clone().into()).unwrap();
    let request = build_chat_args_json(&agent_json.into(), &json!([{"role": "user", "content": "hi"}]).into()).unwrap();
    let response = json!({"output": {"message": {"role": "assistant", "content": [{"text": "x"}]}}, "stopReason": "end_turn",
                          "usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7}});
    let attributes: Value = llm_wire::gen_ai_attributes(&agent, &request, Some(&response.into())).into();
    assert_eq!(attributes["gen_ai.provider.name"], "aws.bedrock");
    assert_eq!(attributes["gen_ai.request.model"], "anthropic.claude-3-haiku-20240307-v1:0");
    assert_eq!(attributes["gen_ai.request.max_tokens"], 9);
    assert_eq!(attributes["gen_ai.request.temperature"], 0.2);
    assert_eq!(attributes["gen_ai.request.top_p"], 0.5);
    assert_eq!(attributes["gen_ai.request.stop_sequences"], json!(["x"]));
    assert_eq!(attributes["gen_ai.response.finish_reasons"], json!(["end_turn"]));
    assert_eq!(attributes["gen_ai.usage.input_tokens"], 3);
    assert_eq!(attributes["gen_ai.usage.output_tokens"], 4);
}
