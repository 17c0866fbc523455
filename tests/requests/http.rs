//! buildRequest (URL, headers, streaming) and the §7.1.8 gen_ai attributes.

use llm_wire::{build_request, gen_ai_attributes, Agent, HttpRequest, Message, RequestOptions};
use serde_json::{json, Value};

use super::assert_invalid_at;

fn request(agent: Value, options: Value) -> HttpRequest {
    let agent = Agent::from_json(&agent.clone().into()).unwrap();
    build_request(&agent, &[Message::new("user", "hi")], &RequestOptions::from_json(&options.clone().into()).unwrap())
        .unwrap()
}

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn body(request: &HttpRequest) -> Value {
    serde_json::from_str(&request.body).unwrap()
}

#[test]
fn each_api_posts_to_its_endpoint() {
    let table = [
        (json!({"model": {"id": "m"}}), "https://api.openai.com/v1/chat/completions"),
        (json!({"model": {"id": "m", "apiType": "responses"}}), "https://api.openai.com/v1/responses"),
        (json!({"model": {"id": "m", "apiType": "embedding"}}), "https://api.openai.com/v1/embeddings"),
        (json!({"model": {"id": "m", "apiType": "image"}}), "https://api.openai.com/v1/images/generations"),
        (json!({"model": {"id": "m", "provider": "anthropic"}}), "https://api.anthropic.com/v1/messages"),
        (json!({"model": {"id": "m", "provider": "groq"}}), "https://api.groq.com/openai/v1/chat/completions"),
    ];
    for (agent, url) in table {
        let r = request(agent, json!({}));
        assert_eq!(r.url, url);
        assert_eq!(r.method, "POST");
    }
}

#[test]
fn a_base_url_replaces_the_default_and_a_trailing_slash_is_ignored() {
    let r = request(json!({"model": {"id": "m", "provider": "vllm"}}), json!({"baseUrl": "http://gpu:8000/v1/"}));
    assert_eq!(r.url, "http://gpu:8000/v1/chat/completions");
}

#[test]
fn the_query_of_a_base_url_stays_after_the_path() {
    let azure = "https://r.openai.azure.com/openai/deployments/dep";
    let table = [
        (
            json!({"model": {"id": "dep", "provider": "azure"}}),
            format!("{azure}?api-version=2024-10-21"),
            false,
            format!("{azure}/chat/completions?api-version=2024-10-21"),
        ),
        (
            json!({"model": {"id": "dep", "provider": "azure", "apiType": "embedding"}}),
            format!("{azure}/?api-version=2024-10-21&x=1"),
            false,
            format!("{azure}/embeddings?api-version=2024-10-21&x=1"),
        ),
        (
            json!({"model": {"id": "m", "provider": "vllm"}}),
            "http://gpu/v1?".to_owned(),
            false,
            "http://gpu/v1/chat/completions".to_owned(),
        ),
        // Gemini's streaming method has a query of its own: the base's joins it.
        (
            json!({"model": {"id": "gemini-2.5-flash", "provider": "gemini"}}),
            "https://proxy/v1beta?key=K".to_owned(),
            true,
            "https://proxy/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=K".to_owned(),
        ),
        (
            json!({"model": {"id": "amazon.nova-lite-v1:0", "provider": "bedrock"}}),
            "https://proxy/br/?t=1".to_owned(),
            false,
            "https://proxy/br/model/amazon.nova-lite-v1%3A0/converse?t=1".to_owned(),
        ),
    ];
    for (agent, base_url, stream, url) in table {
        assert_eq!(request(agent, json!({"baseUrl": base_url, "stream": stream})).url, url, "{base_url}");
    }
}

#[test]
fn a_provider_without_a_known_address_needs_a_base_url() {
    let agent = Agent::from_json(&json!({"model": {"id": "m", "provider": "azure"}}).into()).unwrap();
    let e = build_request(&agent, &[], &RequestOptions::default()).unwrap_err();
    assert_invalid_at(&e, "options.baseUrl");
}

#[test]
fn openai_compatible_requests_use_bearer_auth_and_name_the_library() {
    let r = request(json!({"model": {"id": "m"}}), json!({"apiKey": "sk-1"}));
    assert_eq!(header(&r, "Authorization"), Some("Bearer sk-1"));
    assert_eq!(header(&r, "Content-Type"), Some("application/json"));
    assert_eq!(header(&r, "User-Agent"), Some(concat!("llm-wire/", env!("CARGO_PKG_VERSION"))));
    assert_eq!(header(&r, "x-api-key"), None);
}

#[test]
fn anthropic_requests_use_x_api_key_and_anthropic_version() {
    let r = request(json!({"model": {"id": "m", "provider": "anthropic"}}), json!({"apiKey": "k"}));
    assert_eq!(header(&r, "x-api-key"), Some("k"));
    assert_eq!(header(&r, "anthropic-version"), Some("2023-06-01"));
    assert_eq!(header(&r, "Authorization"), None);
}

#[test]
fn azure_uses_the_api_key_header() {
    let r = request(
        json!({"model": {"id": "m", "provider": "azure"}}),
        json!({"apiKey": "k", "baseUrl": "https://x.openai.azure.com/openai/v1"}),
    );
    assert_eq!(header(&r, "api-key"), Some("k"));
}

#[test]
fn no_api_key_means_no_auth_header() {
    let r = request(json!({"model": {"id": "m", "provider": "ollama"}}), json!({}));
    assert_eq!(r.url, "http://localhost:11434/v1/chat/completions");
    assert_eq!(header(&r, "Authorization"), None);
}

#[test]
fn streaming_openai_chat_asks_for_usage_in_the_stream() {
    let r = request(json!({"model": {"id": "m"}}), json!({"stream": true}));
    let b = body(&r);
    assert_eq!(b["stream"], true);
    assert_eq!(b["stream_options"], json!({"include_usage": true}));
    assert_eq!(header(&r, "Accept"), Some("text/event-stream"));
}

#[test]
fn streaming_anthropic_and_responses_set_only_stream() {
    for agent in
        [json!({"model": {"id": "m", "provider": "anthropic"}}), json!({"model": {"id": "m", "apiType": "responses"}})]
    {
        let b = body(&request(agent, json!({"stream": true})));
        assert_eq!(b["stream"], true);
        assert!(b.get("stream_options").is_none());
    }
}

#[test]
fn a_request_that_does_not_stream_has_no_stream_key() {
    assert!(body(&request(json!({"model": {"id": "m"}}), json!({}))).get("stream").is_none());
}

#[test]
fn streaming_an_embedding_request_is_invalid_input() {
    let agent = Agent::from_json(&json!({"model": {"id": "m", "apiType": "embedding"}}).into()).unwrap();
    let e = build_request(&agent, &[], &RequestOptions { stream: true, ..Default::default() }).unwrap_err();
    assert_invalid_at(&e, "options.stream");
}

#[test]
fn the_request_as_json_has_url_method_headers_and_a_body_string() {
    let r = request(json!({"model": {"id": "m"}}), json!({"apiKey": "k"}));
    let j = r.to_json();
    assert_eq!(j["method"], "POST");
    assert_eq!(j["headers"]["Authorization"], "Bearer k");
    assert_eq!(serde_json::from_str::<Value>(j["body"].as_str().unwrap()).unwrap()["model"], "m");
}

#[test]
fn request_options_errors_name_the_option() {
    assert_invalid_at(&RequestOptions::from_json(&json!({"stream": "yes"}).into()).unwrap_err(), "options.stream");
    assert_invalid_at(&RequestOptions::from_json(&json!({"apiKey": 1}).into()).unwrap_err(), "options.apiKey");
}

#[test]
fn gen_ai_attributes_name_the_operation_provider_model_and_every_request_option() {
    let agent = Agent::from_json(
        &json!({"model": {"id": "gpt-4o", "options": {"temperature": 0.2, "maxOutputTokens": 9,
        "stopSequences": ["x"], "additionalProperties": {"user": "u", "metadata": {"a": 1}}}}})
        .into(),
    )
    .unwrap();
    let body = llm_wire::build_chat_args(&agent, &[Message::new("user", "hi")]).unwrap();
    let a = gen_ai_attributes(&agent, &body, None);
    assert_eq!(
        a,
        json!({
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.request.temperature": 0.2,
            "gen_ai.request.max_tokens": 9,
            "gen_ai.request.stop_sequences": ["x"],
            "gen_ai.request.user": "u",
        })
    );
}

#[test]
fn gen_ai_attributes_read_usage_finish_reasons_and_id_from_a_chat_response() {
    let agent = Agent::new("m");
    let response = json!({"id": "chatcmpl-1", "model": "m-2024", "choices": [{"finish_reason": "stop"}, {"finish_reason": "length"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7}});
    let a = gen_ai_attributes(&agent, &json!({}).into(), Some(&response.clone().into()));
    assert_eq!(a["gen_ai.response.id"], "chatcmpl-1");
    assert_eq!(a["gen_ai.response.model"], "m-2024");
    assert_eq!(a["gen_ai.response.finish_reasons"], json!(["stop", "length"]));
    assert_eq!(a["gen_ai.usage.input_tokens"], 5);
    assert_eq!(a["gen_ai.usage.output_tokens"], 7);
}

#[test]
fn gen_ai_attributes_read_anthropic_responses_and_final_messages() {
    let agent = Agent::from_json(&json!({"model": {"id": "claude", "provider": "anthropic"}}).into()).unwrap();
    let anthropic = json!({"id": "msg_1", "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 4}});
    let a = gen_ai_attributes(&agent, &json!({"max_tokens": 4096}).into(), Some(&anthropic.clone().into()));
    assert_eq!(a["gen_ai.provider.name"], "anthropic");
    assert_eq!(a["gen_ai.request.max_tokens"], 4096);
    assert_eq!(a["gen_ai.response.finish_reasons"], json!(["end_turn"]));
    assert_eq!(a["gen_ai.usage.output_tokens"], 4);
    let final_message =
        json!({"finishReason": "stop", "rawFinishReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 2}});
    let a = gen_ai_attributes(&agent, &json!({}).into(), Some(&final_message.clone().into()));
    assert_eq!(a["gen_ai.response.finish_reasons"], json!(["end_turn"]));
    assert_eq!(a["gen_ai.usage.input_tokens"], 1);
}

#[test]
fn gen_ai_operation_names_follow_the_api() {
    for (api_type, operation) in [("embedding", "embeddings"), ("image", "generate_content"), ("responses", "chat")] {
        let agent = Agent::from_json(&json!({"model": {"id": "m", "apiType": api_type}}).into()).unwrap();
        assert_eq!(gen_ai_attributes(&agent, &json!({}).into(), None)["gen_ai.operation.name"], operation);
    }
}

#[test]
fn gen_ai_attributes_read_the_body_of_a_whole_built_request() {
    let agent = Agent::from_json(&json!({"model": {"id": "m", "options": {"seed": 4}}}).into()).unwrap();
    let built = build_request(&agent, &[Message::new("user", "hi")], &RequestOptions::default()).unwrap();
    assert_eq!(gen_ai_attributes(&agent, &built.to_json(), None)["gen_ai.request.seed"], 4);
}

#[test]
fn extra_headers_are_added_and_replace_built_ones_of_the_same_name() {
    let options = json!({"headers": {"user-agent": "my-app/1", "anthropic-dangerous-direct-browser-access": "true"}});
    let r = request(json!({"model": {"id": "m", "provider": "anthropic"}}), options);
    assert_eq!(header(&r, "User-Agent"), Some("my-app/1"));
    assert_eq!(r.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("user-agent")).count(), 1);
    assert_eq!(header(&r, "anthropic-dangerous-direct-browser-access"), Some("true"));
    assert_invalid_at(
        &RequestOptions::from_json(&json!({"headers": {"a": 1}}).into()).unwrap_err(),
        "options.headers.a",
    );
}
