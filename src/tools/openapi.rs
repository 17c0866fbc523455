//! OpenAPI 3 → function definitions: one per operation (§7.1.3 `openapi`).
//!
//! Parameters are the operation's path, query and header parameters (cookies are the
//! transport's business) plus the properties of its JSON request body. Local `$ref`s are
//! inlined; a ref that reaches itself again stops as a plain object, and a byte budget
//! ([`REF_BUDGET_BYTES`]) stops documents whose refs copy more than a request can use.

use std::collections::{BTreeMap, HashSet};

use super::budget::Budget;
use super::FunctionDef;
use crate::error::{Error, ErrorCode, Result};
use crate::json::value;
use crate::json::{Map, Value};
use crate::schema::object_value;

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/// How many refs may be followed inside one another: a long chain of distinct refs would
/// otherwise recurse deep enough to exhaust a wasm stack.
const MAX_REF_DEPTH: usize = 64;
/// How deep an expanded path item may nest, the depth to which the crate reads JSON: refs to
/// nested schemas inside nested schemas would otherwise build values too deep to walk.
const MAX_EXPANDED_DEPTH: usize = 128;
/// OpenAI's limit on function names.
const MAX_NAME_LEN: usize = 64;

/// What inlining `$ref`s may copy for one request, all its OpenAPI tools together, counted
/// before each copy is made as the bytes of its strings and keys plus 16 per JSON value; past it
/// projection fails with `limit_exceeded` at the tool's specification.
///
/// 16 MiB: a million tokens, more than any model's context, is about 4 MiB of text, so no
/// usable tool set comes near it; and a few refs to a large value can no longer be copied into
/// gigabytes (600 refs to an 8 MB description asked for 4.8 GB).
pub const REF_BUDGET_BYTES: usize = 16 << 20;

/// The document being projected, with the state of ref expansion.
struct Resolver<'a> {
    doc: &'a Value,
    path: &'a str,
    /// The refs being expanded, one inside the other.
    expanding: HashSet<String>,
    budget: &'a mut Budget,
}

/// Every operation of `doc` as a function definition, pushed onto `defs`; errors are at `path`.
pub(super) fn project(doc: &Value, path: &str, defs: &mut Vec<FunctionDef>, budget: &mut Budget) -> Result<()> {
    let Some(Value::Object(paths)) = doc.get("paths") else {
        return Err(Error::invalid_input(format!("{path}.paths"), "the OpenAPI document has no `paths` object"));
    };
    let mut resolver = Resolver { doc, path, expanding: HashSet::new(), budget };
    for (route, item) in paths {
        let mut item = item.clone();
        resolver.resolve(&mut item, 0)?;
        let shared = item.get("parameters").unwrap_or(&Value::Null);
        for method in METHODS {
            if let Some(operation) = item.get(method).filter(|o| o.is_object()) {
                defs.push(operation_def(method, route, operation, shared));
            }
        }
    }
    Ok(())
}

/// One operation of a path item whose refs are already inlined.
fn operation_def(method: &str, route: &str, operation: &Value, shared: &Value) -> FunctionDef {
    let name = match operation.get("operationId").and_then(Value::as_str).filter(|id| !id.is_empty()) {
        Some(id) => id.to_owned(),
        None => sanitise_name(&format!("{method}_{route}")),
    };
    let text = |key| operation.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let description = text("summary").or_else(|| text("description"));

    let mut properties = BTreeMap::new();
    let mut required = Vec::new();
    // Operation-level parameters come first, so they override path-level ones: a later parameter
    // with the name of one already taken is skipped. (That covers the same name and place: a
    // parameter identical in both to an earlier one that was not taken is not taken either.)
    let lists = [operation.get("parameters").unwrap_or(&Value::Null), shared];
    for parameter in lists.iter().flat_map(|list| list.as_array().map(Vec::as_slice).unwrap_or_default()) {
        let (Some(name), Some(place)) =
            (parameter.get("name").and_then(Value::as_str), parameter.get("in").and_then(Value::as_str))
        else {
            continue;
        };
        if !matches!(place, "path" | "query" | "header") || properties.contains_key(name) {
            continue;
        }
        let mut schema = match parameter.get("schema") {
            Some(schema) => schema.clone(),
            None => value::object([("type", value::string("string"))]),
        };
        if let (Value::Object(map), Some(text)) = (&mut schema, parameter.get("description")) {
            if !map.contains_key("description") {
                map.insert("description".into(), text.clone());
            }
        }
        properties.insert(name.to_owned(), schema);
        if place == "path" || matches!(parameter.get("required"), Some(Value::Bool(true))) {
            required.push(Value::String(name.to_owned()));
        }
    }
    if let Some(body) = operation.get("requestBody") {
        add_body(body, &mut properties, &mut required);
    }

    let parameters = object_value(value::string("object"), properties.into_iter().collect(), required, false);
    FunctionDef { name, description, parameters, strict: false }
}

/// Merges the JSON request body: an object's properties become parameters; any other body
/// becomes one `body` parameter.
fn add_body(body: &Value, properties: &mut BTreeMap<String, Value>, required: &mut Vec<Value>) {
    let Some(Value::Object(content)) = body.get("content") else { return };
    let json_media = content
        .get("application/json")
        .or_else(|| content.iter().find(|(media, _)| media.contains("json")).map(|(_, v)| v));
    let Some(schema) = json_media.and_then(|m| m.get("schema")) else { return };
    let body_required = matches!(body.get("required"), Some(Value::Bool(true)));
    match schema.get("properties") {
        Some(Value::Object(props)) => {
            let inner_required: HashSet<&str> = match schema.get("required") {
                Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
                _ => HashSet::new(),
            };
            for (name, prop) in props {
                if properties.contains_key(name) {
                    continue;
                }
                properties.insert(name.clone(), prop.clone());
                if inner_required.contains(name.as_str()) {
                    required.push(Value::String(name.clone()));
                }
            }
        }
        _ => {
            properties.insert("body".into(), schema.clone());
            if body_required {
                required.push(value::string("body"));
            }
        }
    }
}

impl Resolver<'_> {
    /// Inlines every local `$ref` inside `value`, in place; `value` is `depth` levels inside the
    /// path item.
    fn resolve(&mut self, value: &mut Value, depth: usize) -> Result<()> {
        if depth > MAX_EXPANDED_DEPTH && (value.is_object() || value.is_array()) {
            return Err(Error::invalid_input(
                self.path,
                format!("the $refs nest values more than {MAX_EXPANDED_DEPTH} deep"),
            ));
        }
        match value {
            Value::Object(map) if reference_of(map).is_some() => {
                let ref_object = std::mem::take(map);
                *value = self.follow(&ref_object, depth)?;
            }
            Value::Object(map) => {
                for item in map.values_mut() {
                    self.resolve(item, depth + 1)?;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.resolve(item, depth + 1)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The target of the object's `$ref`, resolved in its place `depth` levels deep, with the ref
    /// object's sibling keys (OpenAPI 3.1 allows `description` beside `$ref`) laid over it.
    fn follow(&mut self, ref_object: &Map, depth: usize) -> Result<Value> {
        let reference = reference_of(ref_object).unwrap_or_default();
        let Some(pointer) = reference.strip_prefix('#') else {
            return Err(Error::invalid_input(
                self.path,
                format!("only local $refs can be resolved in a browser; `{reference}` points outside the document"),
            ));
        };
        if self.expanding.contains(reference) {
            // A recursive schema: stop at the second visit rather than expand forever.
            return Ok(value::object([("type", value::string("object"))]));
        }
        if self.expanding.len() >= MAX_REF_DEPTH {
            return Err(Error::invalid_input(self.path, format!("$refs nest more than {MAX_REF_DEPTH} deep")));
        }
        let Some(target) = resolve_pointer(self.doc, pointer) else {
            return Err(Error::invalid_input(
                self.path,
                format!("$ref `{reference}` points at nothing in the document"),
            ));
        };
        if !self.budget.spend(target) {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "the OpenAPI $refs expand to more than {} MiB, the limit for the OpenAPI tools of one request",
                    REF_BUDGET_BYTES >> 20
                ),
            )
            .with_path(self.path));
        }
        let mut resolved = target.clone();
        self.expanding.insert(reference.to_owned());
        let done = self.resolve(&mut resolved, depth);
        self.expanding.remove(reference);
        done?;
        if let Value::Object(map) = &mut resolved {
            for (key, value) in ref_object.iter().filter(|(k, _)| *k != "$ref") {
                let mut value = value.clone();
                self.resolve(&mut value, depth + 1)?;
                map.insert(key.clone(), value);
            }
        }
        Ok(resolved)
    }
}

/// The `$ref` of an object, when it is a string.
fn reference_of(map: &Map) -> Option<&str> {
    map.get("$ref").and_then(Value::as_str)
}

/// The value at the JSON Pointer `pointer` (RFC 6901) in `doc`, as `serde_json`'s
/// `Value::pointer` finds it.
fn resolve_pointer<'a>(doc: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(doc);
    }
    pointer.strip_prefix('/')?.split('/').try_fold(doc, |target, token| {
        let token = token.replace("~1", "/").replace("~0", "~");
        match target {
            Value::Object(map) => map.get(&token),
            Value::Array(list) => list.get(array_index(&token)?),
            _ => None,
        }
    })
}

/// An array index token: ASCII digits, no leading zero unless it is `0`, within a usize.
fn array_index(token: &str) -> Option<usize> {
    // `parse` also takes a leading `+` and leading zeros, which a JSON Pointer index may not have.
    if token.starts_with(['+', '0']) && token != "0" {
        return None;
    }
    token.parse().ok()
}

/// `get_/users/{id}` → `get_users_id`: function names allow ASCII letters, digits, `_` and `-`
/// only. Every other character becomes `_`, runs of `_` collapse, and none starts or ends it.
fn sanitise_name(raw: &str) -> String {
    let mut name = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' };
        if !(c == '_' && (name.is_empty() || name.ends_with('_'))) {
            name.push(c);
        }
    }
    name.trim_end_matches('_').chars().take(MAX_NAME_LEN).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitised_names_keep_letters_digits_and_dashes_with_one_underscore_between() {
        let long = "a/".repeat(40);
        let cases = [
            ("", ""),
            ("_", ""),
            ("get_/users/{id}", "get_users_id"),
            ("é", ""),
            ("aé", "a"),
            ("éa", "a"),
            ("a-é-b", "a-_-b"),
            ("日本/x", "x"),
            ("__a__", "a"),
            ("a😀b", "a_b"),
            ("post_/a b/c-d", "post_a_b_c-d"),
            (&long, &long.replace('/', "_")[..64]),
            (&"x".repeat(70), &"x".repeat(64)),
        ];
        for (raw, name) in cases {
            assert_eq!(sanitise_name(raw), name, "{raw:?}");
        }
    }

    #[test]
    fn resolve_pointer_is_value_pointer() {
        let theirs: serde_json::Value = serde_json::from_str(
            r#"{"a":{"b":[10,{"c":"d"},12]},"":{"":1,"x":2},"a/b":3,"m~n":4,"~1":5,"~":6,"~01":7,"/":8,
               "é":{"日本":[0,1,2,3,4,5,6,7,8,9,10,11]},"~x":9,"list":[[1,[2]]],"0":"zero","01":"lead"}"#,
        )
        .unwrap();
        let doc = Value::from(theirs.clone());
        let pointers = [
            "",
            "/",
            "//",
            "/a",
            "/a/",
            "/a/b",
            "/a/b/0",
            "/a/b/1/c",
            "/a/b/2",
            "/a/b/3",
            "/a/b/01",
            "/a/b/+1",
            "/a/b/-1",
            "/a/b/ 1",
            "/a/b/1x",
            "/a/b/",
            "/a/b/18446744073709551616",
            "/a/b/99999999999999999999",
            "a",
            "#/a",
            "/a~1b",
            "/m~0n",
            "/~01",
            "/~001",
            "/~0",
            "/~",
            "/~1",
            "/~x",
            "/~2",
            "/~",
            "/~~1",
            "/é/日本/11",
            "/é/日本/010",
            "/list/0/1/0",
            "/list/0/1/0/0",
            "/0",
            "/01",
            "/a/b/1/c/d",
            "/missing",
            "/a//",
            "/~1~1",
        ];
        for pointer in pointers {
            assert_eq!(
                resolve_pointer(&doc, pointer).cloned().map(serde_json::Value::from),
                theirs.pointer(pointer).cloned(),
                "{pointer:?}"
            );
        }
        let indexes = [
            ("", None),
            ("0", Some(0)),
            ("00", None),
            ("01", None),
            ("1", Some(1)),
            ("+1", None),
            ("-1", None),
            ("10", Some(10)),
            ("4294967295", Some(4_294_967_295)),
            ("4294967296", Some(4_294_967_296)),
            ("18446744073709551615", Some(u64::MAX)),
            ("18446744073709551616", None),
            ("1a", None),
            ("١", None),
        ];
        for (token, index) in indexes {
            // Beyond a usize there is no index, whatever the target's width.
            let index = index.and_then(|i: u64| usize::try_from(i).ok());
            assert_eq!(array_index(token), index, "{token:?}");
        }
    }
}
