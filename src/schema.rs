//! Property lists → JSON Schema (§7.1.4), strict mode included (docs/design.md, "Dispatch").
//!
//! Strict mode is what OpenAI's structured outputs accept: every property is listed in
//! `required`, a property that was optional becomes nullable instead, and every object closes
//! with `additionalProperties: false`, at every depth. Property lists are converted in one pass
//! (so `required` keeps the declared order); schemas that arrive as JSON Schema (MCP, OpenAPI,
//! custom tools) are made strict by [`make_strict`].

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::json::value;
use crate::json::{Map, Value};
use crate::model::agent::{Tool, ToolKind};
use crate::model::Property;
use crate::request::wire::{field, index, json as json_text, Array, Fields};
use crate::tools::FunctionDef;

/// The JSON Schema type of a Property kind (§7.1.4 table).
pub fn json_type(kind: &str) -> &'static str {
    match kind {
        "integer" => "integer",
        "float" => "number",
        "boolean" => "boolean",
        "array" => "array",
        "object" => "object",
        _ => "string",
    }
}

/// §7.1.4 `schema_to_wire`: `{type: "object", properties, required?}`; `required` is left out
/// when no property is required.
pub fn to_schema(properties: &[Property]) -> Value {
    object_schema(properties, false)
}

/// The strict form of [`to_schema`] (docs/design.md, "Dispatch"), for structured output and
/// strict tools.
pub fn to_strict_schema(properties: &[Property]) -> Value {
    object_schema(properties, true)
}

/// [`to_schema`], or [`to_strict_schema`] when `strict`: one call for the tools, whose
/// strictness is a flag.
pub(crate) fn object_schema(properties: &[Property], strict: bool) -> Value {
    typed_object_schema(properties, strict, value::string("object"))
}

/// `{type: kind, properties, required?}`; strict, every property is required, those that were
/// optional made nullable as they are built (what [`make_nullable`] makes of them).
fn typed_object_schema(properties: &[Property], strict: bool, kind: Value) -> Value {
    // A name given twice keeps its last schema.
    let props: Map = properties
        .iter()
        .map(|prop| (prop.name.clone(), property_schema(prop, strict, strict && !prop.required)))
        .collect();
    let required =
        properties.iter().filter(|prop| strict || prop.required).map(|prop| Value::String(prop.name.clone())).collect();
    object_value(kind, props, required, strict)
}

/// `{type: kind, properties, required?}`, closed with `additionalProperties: false` when
/// `strict`; `required` is left out when empty. (The OpenAPI operations and the empty schema
/// are built with it too.)
pub(crate) fn object_value(kind: Value, properties: Map, required: Vec<Value>, strict: bool) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), kind);
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if strict {
        schema.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(schema)
}

/// One property's schema: its type, description and enum, plus the nested `properties` of an
/// object and the `items` of an array. `nullable`: the type is `[type, "null"]` and an enum
/// also holds `null`.
fn property_schema(prop: &Property, strict: bool, nullable: bool) -> Value {
    let kind = |name: &str| {
        if nullable {
            Value::Array(vec![value::string(name), value::string("null")])
        } else {
            value::string(name)
        }
    };
    let mut schema = match (&prop.properties, &prop.items) {
        // An object with a declared shape, or a strict one without (which still may not grow
        // keys the model invents).
        (nested, _) if prop.kind == "object" && (nested.is_some() || strict) => {
            typed_object_schema(nested.as_deref().unwrap_or_default(), strict, kind("object"))
        }
        (_, Some(items)) if prop.kind == "array" => {
            value::object([("type", kind("array")), ("items", property_schema(items, strict, false))])
        }
        _ => value::object([("type", kind(json_type(&prop.kind)))]),
    };
    if let Value::Object(map) = &mut schema {
        if let Some(description) = &prop.description {
            map.insert("description".into(), Value::String(description.clone()));
        }
        if let Some(values) = prop.enum_values.as_ref().filter(|v| !v.is_empty()) {
            let mut values = values.clone();
            if nullable && !values.contains(&Value::Null) {
                values.push(Value::Null);
            }
            map.insert("enum".into(), Value::Array(values));
        }
    }
    schema
}

/// Lets a schema also accept `null`: `"string"` becomes `["string", "null"]`, an enum gains
/// `null` (or the enum would still reject it), and a schema without a `type` is wrapped in
/// `anyOf`.
pub fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    match map.get_mut("type") {
        Some(Value::String(kind)) => {
            if kind != "null" {
                let kind = std::mem::take(kind);
                map.insert("type".into(), Value::Array(vec![Value::String(kind), value::string("null")]));
            }
        }
        Some(Value::Array(kinds)) => {
            if !kinds.iter().any(|kind| kind == "null") {
                kinds.push(value::string("null"));
            }
        }
        _ => {
            let inner = std::mem::take(map);
            map.insert(
                "anyOf".into(),
                Value::Array(vec![Value::Object(inner), value::object([("type", value::string("null"))])]),
            );
        }
    }
}

/// Makes a JSON Schema strict in place, at every depth: every object lists all its properties in
/// `required` (those that were optional become nullable) and gets `additionalProperties: false`.
/// Already-required names keep their order; the others follow.
pub fn make_strict(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    let is_object = map.get("type").is_some_and(|t| t == "object") || map.contains_key("properties");
    if is_object {
        let was_required: Vec<String> = match map.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(|n| n.as_str().map(str::to_owned)).collect(),
            _ => Vec::new(),
        };
        let is_required: HashSet<&str> = was_required.iter().map(String::as_str).collect();
        let mut required: Vec<Value> = Vec::new();
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, sub) in props.iter_mut() {
                make_strict(sub);
                if !is_required.contains(name.as_str()) {
                    make_nullable(sub);
                }
            }
            let declared = was_required.iter().filter(|n| props.contains_key(n.as_str()));
            required.extend(declared.map(|n| Value::String(n.clone())));
            let others = props.keys().filter(|k| !is_required.contains(k.as_str()));
            required.extend(others.map(|k| Value::String(k.clone())));
        } else {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
        map.insert("required".into(), Value::Array(required));
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(items) = map.get_mut("items") {
        make_strict(items);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(options)) = map.get_mut(key) {
            options.iter_mut().for_each(make_strict);
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get_mut(key) {
            defs.values_mut().for_each(make_strict);
        }
    }
}

/// `schema` as JSON text: made strict first when `strict` ([`make_strict`]), then nullable when
/// `nullable` ([`make_nullable`]), and with the `bound` parameters removed from its top-level
/// `properties` and `required` as `tools` strips bindings (an emptied `required` is dropped).
/// Written from the schema as it is, without changing a copy of it.
pub(crate) fn write_schema(schema: &Value, strict: bool, nullable: bool, bound: &Map) -> String {
    let Value::Object(map) = schema else { return json_text(schema) };
    let unbound = Map::new();
    let strict_object = strict && (map.get("type").is_some_and(|t| t == "object") || map.contains_key("properties"));
    let binds = !bound.is_empty();
    let mut out = Fields::new();
    for (key, value) in map {
        let written = match key.as_str() {
            // Written below, rewritten: not written here to be replaced.
            "properties" if strict_object || (binds && value.is_object()) => continue,
            "required" if strict_object || (binds && value.is_array()) => continue,
            "additionalProperties" if strict_object => continue,
            // Strict, the subschemas are written strict in their place.
            "items" if strict => write_schema(value, true, false, &unbound),
            "anyOf" | "oneOf" | "allOf" if strict && value.is_array() => {
                let mut written = Array::new();
                for option in value.as_array().into_iter().flatten() {
                    written.push(write_schema(option, true, false, &unbound));
                }
                written.finish()
            }
            "$defs" | "definitions" if strict && value.is_object() => {
                let mut written = Fields::new();
                for (name, def) in value.as_object().into_iter().flatten() {
                    written.set(name, write_schema(def, true, false, &unbound));
                }
                written.finish()
            }
            _ => json_text(value),
        };
        out.set(key, written);
    }
    // The declared names in order (repeats kept, as `make_strict` keeps them), and as a set.
    let was_required: Vec<&str> = match map.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let is_required: HashSet<&str> = was_required.iter().copied().collect();
    let props = match map.get("properties") {
        Some(Value::Object(props)) => Some(props),
        _ => None,
    };
    // Not strict, a property is written as it is (`write_schema` then writes what `json` does).
    if strict_object || (props.is_some() && binds) {
        let mut properties = Fields::new();
        for (name, sub) in props.unwrap_or(&unbound).iter().filter(|(name, _)| !bound.contains_key(name)) {
            let optional = !is_required.contains(name.as_str());
            properties.set(name, write_schema(sub, strict_object, strict_object && optional, &unbound));
        }
        out.set("properties", properties.finish());
    }
    if strict_object {
        let props = props.unwrap_or(&unbound);
        // The declared names first, in their order, then the others.
        let mut required = Array::new();
        for &name in &was_required {
            if props.contains_key(name) && !bound.contains_key(name) {
                required.str(name);
            }
        }
        for name in props.keys() {
            if !is_required.contains(name.as_str()) && !bound.contains_key(name) {
                required.str(name);
            }
        }
        if !binds || !required.is_empty() {
            out.set("required", required.finish());
        }
        out.bool("additionalProperties", false);
    } else if binds {
        if let Some(Value::Array(names)) = map.get("required") {
            let mut kept = Array::new();
            for name in names {
                if !matches!(name.as_str(), Some(n) if bound.contains_key(n)) {
                    kept.value(name);
                }
            }
            if !kept.is_empty() {
                out.set("required", kept.finish());
            }
        }
    }
    if nullable {
        if let Some(Value::Array(values)) = map.get("enum") {
            if !values.contains(&Value::Null) {
                out.set("enum", with_last(values, "null"));
            }
        }
        let kinds = match map.get("type") {
            Some(Value::Array(kinds)) => kinds.as_slice(),
            Some(kind @ Value::String(_)) => std::slice::from_ref(kind),
            _ => return format!(r#"{{"anyOf":[{},{{"type":"null"}}]}}"#, out.finish()),
        };
        // A type that is `"null"`, or lists it, stays as it is.
        if !kinds.iter().any(|k| k == "null") {
            out.set("type", with_last(kinds, r#""null""#));
        }
    }
    out.finish()
}

/// What a strict schema's array without `items` is told: OpenAI's strict mode refuses it
/// ("array schema missing items"), so it is not sent (docs/design.md, "Schemas").
const NO_ITEMS: &str = "a strict schema needs the item schema of every array, and OpenAI refuses one without";

/// `invalid_input` at the `items` of the first array of the strict property list `properties`
/// (at `path`, their list) that has none, at any depth; properties named in `skip` (bound
/// parameters, which are not sent) are passed over.
pub(crate) fn check_strict_items(properties: &[Property], path: &str, skip: &Map) -> Result<()> {
    match itemless_property(properties, path, skip) {
        Some(at) => Err(Error::invalid_input(at, format!("{NO_ITEMS}: give this array's `items` with a kind"))),
        None => Ok(()),
    }
}

/// The `items` path of the first array in `properties` (at `path`, their list) without them, at
/// any depth; properties named in `skip` are passed over.
pub(crate) fn itemless_property(properties: &[Property], path: &str, skip: &Map) -> Option<String> {
    let mut sent = properties.iter().enumerate().filter(|(_, prop)| !skip.contains_key(&prop.name));
    sent.find_map(|(j, prop)| {
        let mut at = index(path, j);
        let mut prop = prop;
        // Down a chain of arrays of arrays to one without items, or to the innermost items.
        while prop.kind == "array" {
            at = field(&at, "items");
            match prop.items.as_deref() {
                Some(items) => prop = items,
                None => return Some(at),
            }
        }
        match &prop.properties {
            Some(nested) if prop.kind == "object" => itemless_property(nested, &field(&at, "properties"), &Map::new()),
            _ => None,
        }
    })
}

/// `invalid_input` for an array without `items` in the parameters of the strict tool `tool`
/// (at `path`), whose projection is `def`: at the property's `items` for a property list, a
/// custom tool's `parametersSchema` or an MCP tool's `inputSchema`; at the tool, naming the
/// place in the message, for an OpenAPI or registered schema. Bound parameters are not sent, so
/// not checked.
pub(crate) fn check_strict_tool(tool: &Tool, def: &FunctionDef, path: &str) -> Result<()> {
    let schema_path = match &tool.kind {
        ToolKind::Function { parameters } => {
            return check_strict_items(parameters, &field(path, "parameters"), &tool.bindings)
        }
        ToolKind::Prompty { child_inputs, .. } => {
            return check_strict_items(child_inputs, &field(path, "child.inputs"), &tool.bindings)
        }
        ToolKind::Custom { parameters_schema: Some(_), .. } => Some(field(path, "parametersSchema")),
        ToolKind::Mcp { tools, .. } => tools
            .iter()
            .position(|listed| listed.get("name").and_then(Value::as_str) == Some(&def.name))
            .map(|k| field(&index(&field(path, "tools"), k), "inputSchema")),
        _ => None,
    };
    let Some(at) = itemless_schema(&def.parameters, "", &tool.bindings) else { return Ok(()) };
    Err(match schema_path {
        Some(schema_path) => {
            Error::invalid_input(field(&schema_path, &at), format!("{NO_ITEMS}: give this array its `items`"))
        }
        None => Error::invalid_input(
            path,
            format!("function `{}`: the array at `{at}` has no `items`; {NO_ITEMS}", def.name),
        ),
    })
}

/// The place (`properties.tags.items`) of the `items` missing from the first array of a JSON
/// Schema, at `at` in it, through what strict mode goes through: `properties` (those named in
/// `skip` passed over), `items`, `anyOf`, `oneOf`, `allOf`, `$defs` and `definitions`.
fn itemless_schema(schema: &Value, at: &str, skip: &Map) -> Option<String> {
    let Value::Object(map) = schema else { return None };
    let within = |key: &str| if at.is_empty() { key.to_owned() } else { field(at, key) };
    let is_array = match map.get("type") {
        Some(Value::String(kind)) => kind == "array",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "array"),
        _ => false,
    };
    if is_array && !map.contains_key("items") {
        return Some(within("items"));
    }
    // The subschemas strict mode goes into, each with its place.
    let mut subschemas: Vec<(String, &Value)> = Vec::new();
    if let Some(Value::Object(props)) = map.get("properties") {
        let sent = props.iter().filter(|(name, _)| !skip.contains_key(name.as_str()));
        subschemas.extend(sent.map(|(name, sub)| (field(&within("properties"), name), sub)));
    }
    if let Some(items) = map.get("items") {
        subschemas.push((within("items"), items));
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(options)) = map.get(key) {
            subschemas.extend(options.iter().enumerate().map(|(k, option)| (index(&within(key), k), option)));
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get(key) {
            subschemas.extend(defs.iter().map(|(name, def)| (field(&within(key), name), def)));
        }
    }
    subschemas.into_iter().find_map(|(at, sub)| itemless_schema(sub, &at, &Map::new()))
}

/// `values` and then `last` (JSON text), as a JSON array.
fn with_last(values: &[Value], last: &str) -> String {
    let mut written = Array::new();
    for value in values {
        written.value(value);
    }
    written.push(last.to_owned());
    written.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A property built nullable is the property built as it is, then made nullable.
    #[test]
    fn properties_built_nullable_are_the_properties_made_nullable() {
        let list = json!([
            {"name": "s", "kind": "string", "enumValues": ["a", null]},
            {"name": "e", "kind": "integer", "enumValues": [1, 2], "description": "d"},
            {"name": "x", "kind": "boolean", "enumValues": []},
            {"name": "o", "kind": "object", "properties": [{"name": "i", "kind": "float"}]},
            {"name": "p", "kind": "object"},
            {"name": "a", "kind": "array", "items": {"kind": "object", "properties": []}, "enumValues": [[1]]},
            {"name": "b", "kind": "array"},
            {"name": "n", "kind": "object", "items": {"kind": "string"}},
        ]);
        let props = Property::list_from_json(&list.into(), "p").unwrap();
        for strict in [false, true] {
            for prop in &props {
                let mut made = property_schema(prop, strict, false);
                make_nullable(&mut made);
                assert_eq!(property_schema(prop, strict, true), made, "{prop:?} strict {strict}");
            }
        }
    }

    /// `write_schema` writes what `make_strict` then `make_nullable` make of the same schema.
    #[test]
    fn written_schemas_are_the_changed_schemas_serialised() {
        let schemas = [
            json!({"type": "object", "required": ["b", "zz", "b"], "properties": {
                "a": {"type": "string", "enum": ["x"]}, "b": {"type": ["number"]}, "c": {"anyOf": [{"type": "string"}]},
                "d": {"type": "object", "properties": {"e": {"enum": [1, null]}}}, "f": {"items": {"type": "object"}},
                "g": {"type": 5}, "h": {"type": ["string", "null"]}, "i": {"type": "null", "enum": 3}},
                "$defs": {"X": {"properties": {}}}, "definitions": {"Y": {"type": "object", "properties": 5}},
                "allOf": [{"type": "object"}], "oneOf": [{"properties": {"k": {}}}], "anyOf": 7}),
            json!({"type": "array", "items": {"type": "object", "properties": {"z": {"type": "boolean"}}}}),
            json!({"enum": ["a", "b"]}),
            json!({"type": "object"}),
            json!(true),
        ]
        .map(Value::from);
        for schema in &schemas {
            for (strict, nullable) in [(false, false), (true, false), (false, true), (true, true)] {
                let mut changed = schema.clone();
                if strict {
                    make_strict(&mut changed);
                }
                if nullable {
                    make_nullable(&mut changed);
                }
                let written = write_schema(schema, strict, nullable, &Map::new());
                assert_eq!(written, changed.to_string(), "{schema} strict {strict} nullable {nullable}");
            }
        }
    }

    /// With bound parameters, `write_schema` writes what `make_strict` then the tools' binding
    /// strip make of the schema (declared required names first, then the others).
    #[test]
    fn written_schemas_with_bindings_are_the_stripped_schemas_serialised() {
        let schemas = [
            json!({"type": "object", "required": ["b", "zz", "a", "b"], "properties": {
                "a": {"type": "string"}, "b": {"type": "number"}, "c": {}, "é": {"type": "object", "properties": {"a": {}}}}}),
            json!({"type": "object", "required": ["a"], "properties": {"a": {}}}),
            json!({"type": "object", "required": [], "properties": {"x": {}}}),
            json!({"type": "object", "required": ["a", 5, "c"], "properties": {"a": {}, "c": {}}}),
            json!({"properties": {"a": {}, "b": {}}}),
            json!({"type": "object"}),
            json!({"type": "string", "required": ["a"]}),
        ]
        .map(Value::from);
        let bindings = [json!({"a": {}}), json!({"a": {}, "b": {}, "c": {}, "é": {}}), json!({"zz": {}, "x": {}})]
            .map(Value::from);
        for schema in &schemas {
            for bound in &bindings {
                let bound = bound.as_object().unwrap();
                for strict in [false, true] {
                    let mut changed = schema.clone();
                    if strict {
                        make_strict(&mut changed);
                    }
                    crate::tools::strip_bindings(&mut changed, bound);
                    let written = write_schema(schema, strict, false, bound);
                    assert_eq!(written, changed.to_string(), "{schema} strict {strict} bound {bound:?}");
                }
            }
        }
    }
}
