//! Embeddings (§7.2) and images (§7.3).

use serde_json::json;

use super::{agent, body, user};

#[test]
fn one_embedding_text_is_a_single_string() {
    assert_eq!(
        body(&agent("openai", "embedding", json!({})), user(json!("hello"))),
        json!({"model": "m", "input": "hello"})
    );
}

#[test]
fn several_embedding_texts_are_an_array_from_every_message_and_text_part() {
    let messages = json!([
        {"role": "user", "content": [{"kind": "text", "value": "a"}, {"kind": "image", "value": "u"}, {"kind": "text", "value": "b"}]},
        {"role": "assistant", "content": "c"},
    ]);
    assert_eq!(body(&agent("openai", "embedding", json!({})), messages)["input"], json!(["a", "b", "c"]));
}

#[test]
fn embeddings_pass_additional_properties_but_no_sampling_options() {
    let agent = json!({"model": {"id": "m", "apiType": "embedding", "options": {"temperature": 1, "additionalProperties": {"dimensions": 256}}}});
    assert_eq!(body(&agent, user(json!("x"))), json!({"model": "m", "input": "x", "dimensions": 256}));
}

#[test]
fn the_image_prompt_is_the_first_text_of_the_last_user_message() {
    let messages = json!([
        {"role": "user", "content": "old"},
        {"role": "user", "content": [{"kind": "image", "value": "u"}, {"kind": "text", "value": "a cat"}, {"kind": "text", "value": "ignored"}]},
        {"role": "assistant", "content": "sure"},
    ]);
    assert_eq!(body(&agent("openai", "image", json!({})), messages), json!({"model": "m", "prompt": "a cat"}));
}

#[test]
fn the_image_prompt_is_empty_without_a_user_message() {
    let messages = json!([{"role": "system", "content": "x"}]);
    assert_eq!(body(&agent("openai", "image", json!({})), messages)["prompt"], "");
}

#[test]
fn image_requests_pass_options_through() {
    let agent = json!({"model": {"id": "m", "apiType": "image", "options": {"seed": 3, "additionalProperties": {"size": "1024x1024", "n": 2}}}});
    assert_eq!(
        body(&agent, user(json!("x"))),
        json!({"model": "m", "prompt": "x", "seed": 3, "size": "1024x1024", "n": 2})
    );
}
