//! OpenAPI 3 → function definitions: one per operation (§7.1.3 `openapi`).
//!
//! Parameters are the operation's path, query and header parameters (cookies are the
//! transport's business) plus the properties of its JSON request body. Local `$ref`s are
//! inlined; a ref that reaches itself again stops as a plain object, and a total node budget
//! stops documents whose refs fan out exponentially.

use super::FunctionDef;
use crate::error::{Error, Result};
use crate::json::value;
use crate::json::{Map, Value};
use crate::request::wire::{field, get, join};
use crate::schema::object_value;
use crate::text::{find, find_byte};

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/// Where a parameter may be, as a `json::key_index` table.
const PARAMETER_PLACES: &str = "path query header";
/// How many schema nodes ref expansion may produce for one document.
const NODE_BUDGET: usize = 100_000;
/// How many refs may be followed inside one another: a long chain of distinct refs would
/// otherwise recurse deep enough to exhaust a wasm stack. (The error message spells it: 64.)
const MAX_REF_DEPTH: usize = 64;
/// OpenAI's limit on function names.
const MAX_NAME_LEN: usize = 64;

/// The document being projected, with the state of ref expansion.
struct Resolver<'a> {
    doc: &'a Value,
    path: &'a str,
    stack: Vec<String>,
    budget: usize,
}

/// Every operation of `doc` as a function definition, pushed onto `defs`; errors are at `path`.
pub(super) fn project(doc: &Value, path: &str, defs: &mut Vec<FunctionDef>) -> Result<()> {
    let Some(Value::Object(paths)) = get(doc, "paths") else {
        return Err(Error::invalid_input(field(path, "paths"), "the OpenAPI document has no `paths` object"));
    };
    let mut resolver = Resolver { doc, path, stack: Vec::new(), budget: NODE_BUDGET };
    for (route, item) in paths {
        let mut item = item.clone();
        resolver.resolve(&mut item)?;
        let shared = get(&item, "parameters").unwrap_or(&Value::Null);
        for method in METHODS {
            if let Some(operation) = get(&item, method).filter(|o| o.is_object()) {
                defs.push(operation_def(method, route, operation, shared));
            }
        }
    }
    Ok(())
}

/// One operation of a path item whose refs are already inlined.
fn operation_def(method: &str, route: &str, operation: &Value, shared: &Value) -> FunctionDef {
    let name = match get(operation, "operationId").and_then(Value::as_str).filter(|id| !id.is_empty()) {
        Some(id) => id.to_owned(),
        None => sanitise_name(&join(method, "_", route)),
    };
    let text = |key| get(operation, key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let description = text("summary").or_else(|| text("description"));

    let mut properties = Map::new();
    let mut required = Vec::new();
    // Operation-level parameters come first, so they override path-level ones: a later parameter
    // with the name of one already taken is skipped. (That covers the same name and place: a
    // parameter identical in both to an earlier one that was not taken is not taken either.)
    let lists = [get(operation, "parameters").unwrap_or(&Value::Null), shared];
    for parameter in lists.iter().flat_map(|list| list.as_array().map(Vec::as_slice).unwrap_or_default()) {
        let (Some(name), Some(place)) =
            (get(parameter, "name").and_then(Value::as_str), get(parameter, "in").and_then(Value::as_str))
        else {
            continue;
        };
        if crate::json::key_index(place.as_bytes(), PARAMETER_PLACES) == usize::MAX || properties.contains_key(name) {
            continue;
        }
        let mut schema = match get(parameter, "schema") {
            Some(schema) => schema.clone(),
            None => value::object([("type", value::string("string"))]),
        };
        if let (Value::Object(map), Some(text)) = (&mut schema, get(parameter, "description")) {
            if !map.contains_key("description") {
                map.insert("description".into(), text.clone());
            }
        }
        properties.insert(name.to_owned(), schema);
        if place == "path" || matches!(get(parameter, "required"), Some(Value::Bool(true))) {
            required.push(Value::String(name.to_owned()));
        }
    }
    if let Some(body) = get(operation, "requestBody") {
        add_body(body, &mut properties, &mut required);
    }

    let parameters = object_value(value::string("object"), properties, required, false);
    FunctionDef { name, description, parameters, strict: false }
}

/// Merges the JSON request body: an object's properties become parameters; any other body
/// becomes one `body` parameter.
fn add_body(body: &Value, properties: &mut Map, required: &mut Vec<Value>) {
    let Some(Value::Object(content)) = get(body, "content") else { return };
    let json_media = content
        .get("application/json")
        .or_else(|| content.iter().find(|(media, _)| find(media, "json").is_some()).map(|(_, v)| v));
    let Some(schema) = json_media.and_then(|m| get(m, "schema")) else { return };
    let body_required = matches!(get(body, "required"), Some(Value::Bool(true)));
    match get(schema, "properties") {
        Some(Value::Object(props)) => {
            let inner_required = match get(schema, "required") {
                Some(Value::Array(names)) => names.as_slice(),
                _ => &[],
            };
            for (name, prop) in props {
                if properties.contains_key(name) {
                    continue;
                }
                properties.insert(name.clone(), prop.clone());
                if inner_required.iter().any(|n| n.as_str() == Some(name)) {
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
    /// Inlines every local `$ref` inside `value`, in place (a copy of the document's part, so no
    /// second tree is built beside it).
    fn resolve(&mut self, value: &mut Value) -> Result<()> {
        self.budget = self.budget.checked_sub(1).ok_or_else(|| {
            Error::invalid_input(self.path, "the OpenAPI document expands to too many schema nodes through its $refs")
        })?;
        match value {
            Value::Object(map) if reference_of(map).is_some() => {
                let ref_object = std::mem::take(map);
                *value = self.follow(&ref_object)?;
            }
            Value::Object(map) => {
                for item in map.values_mut() {
                    self.resolve(item)?;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.resolve(item)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The target of the object's `$ref`, resolved, with the ref object's sibling keys (OpenAPI
    /// 3.1 allows `description` beside `$ref`) laid over it.
    fn follow(&mut self, ref_object: &Map) -> Result<Value> {
        let reference = reference_of(ref_object).unwrap_or_default();
        let Some(pointer) = reference.strip_prefix('#') else {
            return Err(Error::invalid_input(
                self.path,
                join("only local $refs can be resolved in a browser; `", reference, "` points outside the document"),
            ));
        };
        if self.stack.iter().any(|r| r == reference) {
            // A recursive schema: stop at the second visit rather than expand forever.
            return Ok(value::object([("type", value::string("object"))]));
        }
        if self.stack.len() >= MAX_REF_DEPTH {
            return Err(Error::invalid_input(self.path, "$refs nest more than 64 deep"));
        }
        let Some(target) = resolve_pointer(self.doc, pointer) else {
            return Err(Error::invalid_input(
                self.path,
                join("$ref `", reference, "` points at nothing in the document"),
            ));
        };
        let mut resolved = target.clone();
        self.stack.push(reference.to_owned());
        let done = self.resolve(&mut resolved);
        self.stack.pop();
        done?;
        if let Value::Object(map) = &mut resolved {
            for (key, value) in ref_object.iter().filter(|(k, _)| *k != "$ref") {
                let mut value = value.clone();
                self.resolve(&mut value)?;
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

/// `Value::pointer` (RFC 6901) with byte loops instead of `split('/')` and two
/// `replace(&str, ..)`s, whose searchers the module would carry for this one call: the value at
/// `pointer` in `doc`, or `None`. Each `/`-separated token has `~1` decoded to `/` and `~0` to
/// `~`; an array index is ASCII digits without a leading zero (or `0` itself) that fit a usize.
fn resolve_pointer<'a>(doc: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut target = doc;
    if pointer.is_empty() {
        return Some(target);
    }
    let mut rest = pointer.strip_prefix('/')?;
    loop {
        let end = find_byte(rest, b'/');
        let token = unescape_token(&rest[..end.unwrap_or(rest.len())]);
        target = match target {
            Value::Object(map) => map.get(&token)?,
            Value::Array(list) => list.get(array_index(&token)?)?,
            _ => return None,
        };
        match end {
            Some(end) => rest = &rest[end + 1..],
            None => return Some(target),
        }
    }
}

/// A pointer token with `~1` decoded to `/` and `~0` to `~` (a `~` before anything else stays).
fn unescape_token(raw: &str) -> String {
    let mut token = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = find_byte(rest, b'~') {
        let decoded = match rest.as_bytes().get(at + 1) {
            Some(b'1') => "/",
            Some(b'0') => "~",
            _ => {
                token.push_str(&rest[..at + 1]); // not `..=at`: no inclusive str range
                rest = &rest[at + 1..];
                continue;
            }
        };
        token.push_str(&rest[..at]);
        token.push_str(decoded);
        rest = &rest[at + 2..];
    }
    token.push_str(rest);
    token
}

/// An array index token: ASCII digits, no leading zero unless it is `0`, within a usize.
fn array_index(token: &str) -> Option<usize> {
    // `parse_uint` also takes a leading `+`, which a JSON Pointer index may not have.
    if token.starts_with(['+', '0']) && token != "0" {
        return None;
    }
    let index = crate::text::parse_uint(token.as_bytes(), 10, usize::MAX as u64)?;
    usize::try_from(index).ok()
}

/// `get_/users/{id}` → `get_users_id`: function names allow letters, digits, `_` and `-` only.
/// Read byte by byte: every byte of a non-ASCII character becomes `_` and runs of `_` collapse,
/// so a character and its bytes give the same name, and the name is ASCII.
fn sanitise_name(raw: &str) -> String {
    let mut name = String::with_capacity(raw.len());
    for &b in raw.as_bytes() {
        let c = if b.is_ascii_alphanumeric() || b == b'-' { char::from(b) } else { '_' };
        if !(c == '_' && (name.is_empty() || name.ends_with('_'))) {
            name.push(c);
        }
    }
    let trimmed = crate::text::trim_end_byte(&name, b'_');
    trimmed.get(..trimmed.len().min(MAX_NAME_LEN)).unwrap_or(trimmed).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitised_names_are_those_of_the_char_by_char_rule() {
        fn reference(raw: &str) -> String {
            let mut name = String::new();
            for c in raw.chars() {
                let c = if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' };
                if !(c == '_' && (name.is_empty() || name.ends_with('_'))) {
                    name.push(c);
                }
            }
            name.trim_end_matches('_').chars().take(MAX_NAME_LEN).collect()
        }
        let long = "a/".repeat(40);
        let longer = "x".repeat(70);
        for raw in
            ["", "_", "get_/users/{id}", "é", "aé", "éa", "a-é-b", "日本/x", "__a__", "a😀b", "-é-", &long, &longer]
        {
            assert_eq!(sanitise_name(raw), reference(raw), "{raw:?}");
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
        for token in ["", "~", "~~", "~0~1", "~10", "~01", "a~1b~0c", "~~01", "é~1ü", "~1~", "x~"] {
            assert_eq!(unescape_token(token), token.replace("~1", "/").replace("~0", "~"), "{token:?}");
        }
        for token in [
            "",
            "0",
            "00",
            "01",
            "1",
            "+1",
            "-1",
            "10",
            "4294967295",
            "4294967296",
            "18446744073709551615",
            "18446744073709551616",
            "1a",
            "١",
        ] {
            let std = if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
                None
            } else {
                token.parse::<usize>().ok()
            };
            assert_eq!(array_index(token), std, "{token:?}");
        }
    }
}
