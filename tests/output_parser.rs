//! The output parser's rules, one test each, including hostile model output.

use llm_wire::model::Property;
use llm_wire::{parse_structured_output, parse_tool_arguments, ErrorCode, StructuredOptions, ToolCall};
use serde_json::{json, Value};

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() }
}

fn prop(name: &str, kind: &str, required: bool) -> Property {
    Property { name: name.into(), kind: kind.into(), required, ..Property::default() }
}

/// `{city: string (required), temperature: float, count: integer, unit: "c"|"f",
///   items: [{name: string (required), qty: integer}], meta: object (free-form)}`
fn schema() -> Vec<Property> {
    let item = Property {
        kind: "object".into(),
        properties: Some(vec![prop("name", "string", true), prop("qty", "integer", false)]),
        ..Property::default()
    };
    vec![
        prop("city", "string", true),
        prop("temperature", "float", false),
        prop("count", "integer", false),
        Property { enum_values: Some(vec![json!("c").into(), json!("f").into()]), ..prop("unit", "string", false) },
        Property { items: Some(Box::new(item)), ..prop("items", "array", false) },
        prop("meta", "object", false),
        prop("ok", "boolean", false),
    ]
}

fn strict(text: &str) -> Result<Value, llm_wire::Error> {
    parse_structured_output(text, &schema(), StructuredOptions::default()).map(Value::from)
}

fn lenient(text: &str) -> Result<Value, llm_wire::Error> {
    parse_structured_output(text, &schema(), StructuredOptions { lenient: true }).map(Value::from)
}

fn fails_at(result: Result<Value, llm_wire::Error>, code: ErrorCode, path: &str) {
    let err = result.expect_err("must fail");
    assert_eq!(err.code, code, "{err}");
    assert_eq!(err.path.as_deref(), Some(path), "{err}");
}

#[test]
fn tool_arguments_parse_to_actions_with_id_and_name() {
    let actions = parse_tool_arguments(&[
        call("call_1", "search", r#"{"query": "AI safety"}"#),
        call("call_2", "calc", r#"{"x": 42}"#),
    ])
    .unwrap();
    assert_eq!(
        serde_json::to_value(actions).unwrap(),
        json!([
            {"toolCallId": "call_1", "toolName": "search", "arguments": {"query": "AI safety"}},
            {"toolCallId": "call_2", "toolName": "calc", "arguments": {"x": 42}}
        ])
    );
}

#[test]
fn empty_tool_arguments_are_an_empty_object() {
    let actions = parse_tool_arguments(&[call("c", "get_time", ""), call("d", "now", "  \n")]).unwrap();
    assert!(actions.iter().all(|a| a.arguments.is_empty()));
}

#[test]
fn invalid_tool_argument_json_is_invalid_json_naming_the_call() {
    let err = parse_tool_arguments(&[call("a", "ok", "{}"), call("call_9", "broken", "{\"x\": ")]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidJson);
    assert_eq!(err.path.as_deref(), Some("toolCalls[1].arguments"));
    assert!(err.message.contains("call_9") && err.message.contains("broken"), "{}", err.message);
}

#[test]
fn tool_arguments_that_are_not_an_object_are_invalid_json() {
    for args in ["[1,2]", "\"text\"", "42", "null", "true"] {
        let err = parse_tool_arguments(&[call("c", "f", args)]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidJson, "{args}");
        assert!(err.message.contains("not an object"), "{args}: {}", err.message);
    }
}

#[test]
fn valid_structured_output_is_returned_as_parsed() {
    let text = r#"{"city":"Paris","temperature":21.5,"count":3,"unit":"c","items":[{"name":"a","qty":1}],"meta":{"any":[1]},"ok":true}"#;
    assert_eq!(strict(text).unwrap(), serde_json::from_str::<Value>(text).unwrap());
}

#[test]
fn a_missing_required_property_fails_at_its_path() {
    fails_at(strict(r#"{"count": 1}"#), ErrorCode::ValidationFailed, "$.city");
    fails_at(strict(r#"{"city": null}"#), ErrorCode::ValidationFailed, "$.city");
}

#[test]
fn optional_properties_may_be_absent_or_null() {
    assert!(strict(r#"{"city": "x", "count": null}"#).is_ok());
}

#[test]
fn a_wrong_type_fails_at_its_path() {
    fails_at(strict(r#"{"city": 5}"#), ErrorCode::ValidationFailed, "$.city");
    fails_at(strict(r#"{"city": "x", "ok": "yes"}"#), ErrorCode::ValidationFailed, "$.ok");
    fails_at(strict(r#"{"city": "x", "temperature": "warm"}"#), ErrorCode::ValidationFailed, "$.temperature");
    fails_at(strict(r#"{"city": "x", "meta": []}"#), ErrorCode::ValidationFailed, "$.meta");
}

#[test]
fn an_integer_property_rejects_fractions_and_accepts_whole_floats() {
    fails_at(strict(r#"{"city": "x", "count": 2.5}"#), ErrorCode::ValidationFailed, "$.count");
    assert!(strict(r#"{"city": "x", "count": 2.0}"#).is_ok());
    assert!(strict(r#"{"city": "x", "temperature": 2}"#).is_ok(), "an integer is a float");
}

#[test]
fn a_value_outside_the_enum_fails() {
    fails_at(strict(r#"{"city": "x", "unit": "k"}"#), ErrorCode::ValidationFailed, "$.unit");
}

#[test]
fn nested_arrays_of_objects_fail_at_the_first_bad_item() {
    let text = r#"{"city":"x","items":[{"name":"a"},{"name":"b","qty":1},{"qty":2},{"qty":"bad"}]}"#;
    fails_at(strict(text), ErrorCode::ValidationFailed, "$.items[2].name");
    fails_at(strict(r#"{"city":"x","items":[{"name":"a","qty":1.5}]}"#), ErrorCode::ValidationFailed, "$.items[0].qty");
}

#[test]
fn unknown_keys_are_rejected_because_structured_output_is_strict() {
    fails_at(strict(r#"{"city": "x", "extra": 1}"#), ErrorCode::ValidationFailed, "$.extra");
    fails_at(
        strict(r#"{"city":"x","items":[{"name":"a","colour":"red"}]}"#),
        ErrorCode::ValidationFailed,
        "$.items[0].colour",
    );
}

#[test]
fn an_object_without_declared_properties_is_free_form() {
    assert!(strict(r#"{"city": "x", "meta": {"anything": {"deep": [1, "two"]}}}"#).is_ok());
}

#[test]
fn a_top_level_value_that_is_not_an_object_fails_at_the_root() {
    fails_at(strict("[1, 2]"), ErrorCode::ValidationFailed, "$");
    fails_at(strict("\"Paris\""), ErrorCode::ValidationFailed, "$");
}

#[test]
fn text_that_is_not_json_is_invalid_json_when_strict() {
    fails_at(strict("Sure! {\"city\": \"x\"}"), ErrorCode::InvalidJson, "$");
    fails_at(strict("```json\n{\"city\": \"x\"}\n```"), ErrorCode::InvalidJson, "$");
}

#[test]
fn lenient_parsing_takes_the_object_out_of_a_fenced_json_block() {
    assert_eq!(lenient("Here you go:\n```json\n{\"city\": \"Paris\"}\n```\nEnjoy!").unwrap(), json!({"city": "Paris"}));
    assert_eq!(lenient("```\n{\"city\": \"Paris\"}\n```").unwrap(), json!({"city": "Paris"}));
}

#[test]
fn lenient_parsing_takes_one_balanced_object_out_of_surrounding_text() {
    let text = "The answer is {\"city\": \"Pa}ris\", \"items\": [{\"name\": \"{x}\"}]} — hope it helps, it's \"done\".";
    assert_eq!(lenient(text).unwrap(), json!({"city": "Pa}ris", "items": [{"name": "{x}"}]}));
}

#[test]
fn lenient_parsing_removes_trailing_commas_outside_strings() {
    let text = "{\"city\": \"a,}\", \"items\": [{\"name\": \"b\",},],}";
    assert_eq!(lenient(text).unwrap(), json!({"city": "a,}", "items": [{"name": "b"}]}));
}

#[test]
fn lenient_parsing_never_returns_an_empty_object_for_text_without_one() {
    fails_at(lenient("I cannot answer that."), ErrorCode::InvalidJson, "$");
    fails_at(lenient("{\"city\": \"a\"} or {\"city\": \"b\"}"), ErrorCode::InvalidJson, "$");
    fails_at(lenient("{\"city\": \"unterminated"), ErrorCode::InvalidJson, "$");
}

#[test]
fn lenient_parsing_still_validates_the_repaired_object() {
    fails_at(lenient("```json\n{\"town\": \"x\"}\n```"), ErrorCode::ValidationFailed, "$.city");
}

#[test]
fn hostile_proto_keys_are_unknown_keys_not_prototype_writes() {
    fails_at(strict(r#"{"city": "x", "__proto__": {"admin": true}}"#), ErrorCode::ValidationFailed, "$.__proto__");
    let actions =
        parse_tool_arguments(&[call("c", "f", r#"{"__proto__": {"admin": true}, "constructor": 1}"#)]).unwrap();
    assert_eq!(actions[0].arguments["__proto__"], json!({"admin": true}), "kept as plain data");
}

#[test]
fn hostile_deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{{\"city\": \"x\", \"meta\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(strict(&deep).unwrap_err().code, ErrorCode::InvalidJson);
    assert_eq!(lenient(&deep).unwrap_err().code, ErrorCode::InvalidJson);
    let args = "{\"a\":".repeat(50_000);
    assert_eq!(parse_tool_arguments(&[call("c", "f", &args)]).unwrap_err().code, ErrorCode::InvalidJson);
}

#[test]
fn hostile_huge_numbers_are_rejected_or_fail_validation_never_wrapped() {
    // `1e400` is infinity, as `JSON.parse` reads it: a number, and no integer.
    fails_at(strict(r#"{"city": "x", "count": 1e400}"#), ErrorCode::ValidationFailed, "$.count");
    fails_at(
        strict(r#"{"city": "x", "count": 123456789012345678901234567890}"#),
        ErrorCode::ValidationFailed,
        "$.count",
    );
    fails_at(strict(r#"{"city": "x", "count": 9007199254740993}"#), ErrorCode::ValidationFailed, "$.count");
    assert!(strict(r#"{"city": "x", "count": 9007199254740991}"#).is_ok());
    assert!(strict(r#"{"city": "x", "temperature": 1e300}"#).is_ok());
}

#[test]
fn hostile_lone_surrogates_are_invalid_json() {
    assert_eq!(strict(r#"{"city": "\ud800"}"#).unwrap_err().code, ErrorCode::InvalidJson);
    assert_eq!(lenient(r#"text {"city": "\udfff"} text"#).unwrap_err().code, ErrorCode::InvalidJson);
    assert_eq!(parse_tool_arguments(&[call("c", "f", r#"{"q": "\ud83d"}"#)]).unwrap_err().code, ErrorCode::InvalidJson);
}

#[test]
fn keys_that_are_not_identifiers_are_quoted_in_the_path() {
    let outputs = vec![prop("a b", "string", true)];
    let err = parse_structured_output(r#"{"a b": 1}"#, &outputs, StructuredOptions::default()).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("$[\"a b\"]"));
}

#[test]
fn messages_quote_names_as_json_strings() {
    let missing = strict(r#"{"count": 1}"#).expect_err("must fail");
    assert!(missing.message.contains(r#"the required property "city" is missing"#), "{missing}");
    let unknown = strict("{\"city\": \"x\", \"a\\\"b\\n\": 1}").expect_err("must fail");
    assert!(unknown.message.contains(r#""a\"b\n" is not a property of the output schema"#), "{unknown}");
    let call = parse_tool_arguments(&[call("id\t1", "f", "{")]).expect_err("must fail");
    assert!(call.message.starts_with(r#"tool call "id\t1" (f): "#), "{call}");
}

#[test]
fn an_object_of_100_000_keys_is_checked_against_a_schema_of_as_many_properties_key_by_key() {
    let outputs: Vec<Property> = (0..100_000).map(|i| prop(&format!("k{i}"), "integer", false)).collect();
    let members: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\": {i}")).collect();
    let text = format!("{{{}}}", members.join(", "));
    let value = parse_structured_output(&text, &outputs, StructuredOptions::default()).unwrap();
    assert_eq!((value.as_object().unwrap().len(), &value["k99999"]), (100_000, &llm_wire::Value::from(99_999)));
    // One key renamed: the schema does not have it, and the error names it.
    let renamed = text.replacen("\"k77777\"", "\"x77777\"", 1);
    fails_at(
        parse_structured_output(&renamed, &outputs, StructuredOptions::default()).map(Value::from),
        ErrorCode::ValidationFailed,
        "$.x77777",
    );
}
