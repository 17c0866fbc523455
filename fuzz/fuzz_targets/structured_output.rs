//! `parse_structured_output` on arbitrary text against fixed schemas, strict and lenient:
//! never a panic; lenient accepts everything strict accepts, with the same value; an accepted
//! value is always an object. `parse_tool_arguments` on the same text as arguments.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use llm_wire::{parse_structured_output, parse_tool_arguments, Property, StructuredOptions, ToolCall};
use serde_json::json;

fn schemas() -> &'static [Vec<Property>] {
    static SCHEMAS: OnceLock<Vec<Vec<Property>>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        [
            json!([]),
            json!([
                {"name": "city", "kind": "string", "required": true},
                {"name": "temp", "kind": "float"},
                {"name": "count", "kind": "integer"},
                {"name": "ok", "kind": "boolean"}
            ]),
            json!([
                {"name": "unit", "kind": "string", "enumValues": ["c", "f"], "required": true},
                {"name": "tags", "kind": "array", "items": {"kind": "string"}},
                {"name": "matrix", "kind": "array", "items": {"kind": "array", "items": {"kind": "integer"}}}
            ]),
            json!([
                {"name": "items", "kind": "array", "required": true, "items": {"kind": "object", "properties": [
                    {"name": "name", "kind": "string", "required": true},
                    {"name": "price", "kind": "float"},
                    {"name": "meta", "kind": "object", "properties": [
                        {"name": "__proto__", "kind": "string"},
                        {"name": "constructor", "kind": "integer"}
                    ]}
                ]}},
                {"name": "level", "kind": "integer", "enumValues": [1, 2, 3]}
            ]),
        ]
        .iter()
        .map(|s| Property::list_from_json(&s.clone().into(), "outputs").expect("a fixed schema reads"))
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for outputs in schemas() {
        let strict = parse_structured_output(&text, outputs, StructuredOptions { lenient: false });
        let lenient = parse_structured_output(&text, outputs, StructuredOptions { lenient: true });
        if let Ok(value) = &strict {
            assert!(value.is_object(), "structured output accepted a non-object: {value}");
            assert_eq!(lenient.as_ref().ok(), Some(value), "lenient refused or changed what strict accepts");
        }
        if let Ok(value) = &lenient {
            assert!(value.is_object(), "lenient structured output accepted a non-object: {value}");
        }
    }
    let call = ToolCall { id: "call_1".into(), name: "f".into(), arguments: text.into_owned() };
    if let Ok(actions) = parse_tool_arguments(std::slice::from_ref(&call)) {
        assert_eq!(actions.len(), 1);
    }
});
