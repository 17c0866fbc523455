//! Property lists → JSON Schema (§7.1.4) and the strict form (docs/design.md, "Dispatch").

use llm_wire::schema::{make_strict, to_schema, to_strict_schema};
use llm_wire::Property;
use serde_json::{json, Value};

fn props(value: Value) -> Vec<Property> {
    Property::list_from_json(&value.clone().into(), "p").unwrap()
}

#[test]
fn every_kind_maps_to_its_json_schema_type() {
    let list = props(json!([
        {"name": "s", "kind": "string"}, {"name": "i", "kind": "integer"}, {"name": "f", "kind": "float"},
        {"name": "b", "kind": "boolean"}, {"name": "a", "kind": "array"}, {"name": "o", "kind": "object"},
    ]));
    let schema = to_schema(&list);
    for (name, kind) in
        [("s", "string"), ("i", "integer"), ("f", "number"), ("b", "boolean"), ("a", "array"), ("o", "object")]
    {
        assert_eq!(schema["properties"][name]["type"], kind, "{name}");
    }
}

#[test]
fn required_is_left_out_when_nothing_is_required() {
    let schema = to_schema(&props(json!([{"name": "s", "kind": "string"}])));
    assert_eq!(schema, json!({"type": "object", "properties": {"s": {"type": "string"}}}));
}

#[test]
fn required_keeps_the_declared_order() {
    let list = props(json!([
        {"name": "z", "kind": "string", "required": true}, {"name": "a", "kind": "string", "required": true},
    ]));
    assert_eq!(to_schema(&list)["required"], json!(["z", "a"]));
    assert_eq!(to_strict_schema(&list)["required"], json!(["z", "a"]));
}

#[test]
fn descriptions_and_enums_are_carried() {
    let list = props(json!([{"name": "u", "kind": "string", "description": "unit", "enumValues": ["c", "f"]}]));
    assert_eq!(
        to_schema(&list)["properties"]["u"],
        json!({"type": "string", "description": "unit", "enum": ["c", "f"]})
    );
}

#[test]
fn nested_objects_and_array_items_are_converted() {
    let list = props(json!([
        {"name": "address", "kind": "object", "required": true, "properties": [
            {"name": "city", "kind": "string", "required": true},
            {"name": "zip", "kind": "integer"},
        ]},
        {"name": "tags", "kind": "array", "items": {"kind": "string", "enumValues": ["x", "y"]}},
    ]));
    let expected = json!({"type": "object", "required": ["address"], "properties": {
        "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}, "required": ["city"]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
    }});
    assert_eq!(to_schema(&list), expected);
}

#[test]
fn strict_mode_requires_everything_and_makes_optional_properties_nullable_at_every_depth() {
    let list = props(json!([
        {"name": "address", "kind": "object", "properties": [
            {"name": "city", "kind": "string", "required": true},
            {"name": "zip", "kind": "integer"},
        ]},
        {"name": "points", "kind": "array", "required": true, "items": {"kind": "object", "properties": [
            {"name": "x", "kind": "float"},
        ]}},
        {"name": "unit", "kind": "string", "enumValues": ["c", "f"]},
    ]));
    let expected = json!({
        "type": "object",
        "properties": {
            "address": {
                "type": ["object", "null"],
                "properties": {"city": {"type": "string"}, "zip": {"type": ["integer", "null"]}},
                "required": ["city", "zip"],
                "additionalProperties": false,
            },
            "points": {"type": "array", "items": {
                "type": "object",
                "properties": {"x": {"type": ["number", "null"]}},
                "required": ["x"],
                "additionalProperties": false,
            }},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", null]},
        },
        "required": ["address", "points", "unit"],
        "additionalProperties": false,
    });
    assert_eq!(to_strict_schema(&list), expected);
}

#[test]
fn make_strict_closes_a_json_schema_at_every_depth() {
    let mut schema: llm_wire::Value = json!({"type": "object", "required": ["b"], "properties": {
        "a": {"type": "object", "properties": {"c": {"type": "string"}}},
        "b": {"type": "array", "items": {"type": "object", "properties": {"d": {"type": ["integer"]}}}},
        "e": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    }})
    .into();
    make_strict(&mut schema);
    let expected = json!({"type": "object", "required": ["b", "a", "e"], "additionalProperties": false, "properties": {
        "a": {"type": ["object", "null"], "properties": {"c": {"type": ["string", "null"]}}, "required": ["c"], "additionalProperties": false},
        "b": {"type": "array", "items": {"type": "object", "properties": {"d": {"type": ["integer", "null"]}}, "required": ["d"], "additionalProperties": false}},
        "e": {"anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]},
    }});
    assert_eq!(schema, expected);
}
