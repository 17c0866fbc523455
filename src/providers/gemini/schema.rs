//! JSON Schema → the subset of OpenAPI 3.0 that Gemini's `Schema` holds, for function
//! parameters and `responseSchema` (docs/design.md, "Formats").
//!
//! Gemini refuses a request whose schema has a key its `Schema` lacks, so each key is kept,
//! converted or dropped:
//! - kept: `type`, `description`, `title`, `nullable`, `properties`, `required` (the names
//!   `properties` has), `items`, `anyOf`, `enum` (of strings), `minItems`, `maxItems`,
//!   `minLength`, `maxLength`, `minProperties`, `maxProperties`, `minimum`, `maximum`,
//!   `pattern`, `example`, `default`, `propertyOrdering`, and the `format`s Gemini knows
//!   (`date-time` and `enum` for strings, `float` and `double`, `int32` and `int64`);
//! - converted: a type list with `"null"` (`["string", "null"]`) to the type and
//!   `nullable: true`, any other type list to `anyOf`; `oneOf` to `anyOf`, and a
//!   `{type: "null"}` alternative to `nullable`; `const` to a one-value `enum`; `allOf` merged
//!   into the schema; local `$ref`s inlined (one that reaches itself again stops as
//!   `{type: "object"}`, as OpenAPI refs do);
//! - dropped: everything else (`additionalProperties`, `$schema`, `examples`, `not`,
//!   `exclusiveMinimum`, an `enum` that holds other than strings, other `format`s, ...), and
//!   `properties` left empty.
//!
//! Gemini's `Schema` needs the `items` of an array, with a type: one without (no `items`,
//! `items: true`, only `prefixItems` that differ) is `invalid_input` rather than a request Google
//! refuses; `prefixItems` that are all one schema, or all of one type, become the `items`.

use std::collections::BTreeSet;

use crate::error::{Error, ErrorCode, Result};
use crate::json::{Map, Value};
use crate::model::Property;
use crate::request::wire::{self, field, index};
use crate::tools::REF_BUDGET_BYTES;

/// How deep schemas nest, refs included: the depth to which the crate reads JSON.
const MAX_DEPTH: usize = 128;
/// How many refs may be followed inside one another.
const MAX_REF_DEPTH: usize = 64;
/// What a converted value counts besides its strings, as `$ref` budgets count it.
const VALUE_COST: usize = 16;

/// Where a schema comes from, for errors.
pub(crate) struct Origin<'a> {
    /// Where errors point (`agent.tools[0]`).
    pub(crate) path: &'a str,
    /// Whether `path` is where the schema itself is written in the input, so a place in the
    /// schema (`properties.tags.items`) extends it; else the place is named in the message only.
    pub(crate) exact: bool,
    /// What the schema is, as messages name it (function `f`).
    pub(crate) what: &'a str,
}

/// The schema being converted: its root (what local refs point into) and what is spent.
struct Converter<'a> {
    root: &'a Value,
    origin: Origin<'a>,
    /// The refs being expanded, one inside the other (and the refs an `allOf` merged, while
    /// its schema is converted), and how deep they nest.
    expanding: BTreeSet<String>,
    ref_depth: usize,
    /// What the converted schemas of one request count so far, against [`REF_BUDGET_BYTES`].
    spent: &'a mut usize,
}

/// `schema` in Gemini's form, as JSON text; `None` when it describes no parameters (an object
/// with no properties), which Gemini wants left out. `spent` counts what one request's
/// schemas expand to, refs included; past [`REF_BUDGET_BYTES`] it is `limit_exceeded`.
pub(crate) fn convert(schema: &Value, origin: Origin<'_>, spent: &mut usize) -> Result<Option<String>> {
    let converted =
        Converter { root: schema, origin, expanding: BTreeSet::new(), ref_depth: 0, spent }.node(schema, "", 0)?;
    if !converted.contains_key("properties") && !converted.contains_key("anyOf") {
        return Ok(None);
    }
    Ok(Some(wire::json(&Value::Object(converted))))
}

/// `schema` in Gemini's form, kept even when it has no properties (a structured output).
pub(crate) fn convert_always(schema: &Value, origin: Origin<'_>, spent: &mut usize) -> Result<String> {
    let converted =
        Converter { root: schema, origin, expanding: BTreeSet::new(), ref_depth: 0, spent }.node(schema, "", 0)?;
    Ok(wire::json(&Value::Object(converted)))
}

/// What Gemini accepts as a `format`, by type.
fn known_format(kind: Option<&str>, format: &str) -> bool {
    match kind {
        Some("string") => matches!(format, "date-time" | "enum"),
        Some("number") => matches!(format, "float" | "double"),
        Some("integer") => matches!(format, "int32" | "int64"),
        _ => false,
    }
}

/// Whether a value is of the kind a key wants.
type Wanted = fn(&Value) -> bool;

/// Keys copied as they are when their value is of the kind Gemini wants.
const COPIED: &[(&str, Wanted)] = &[
    ("description", Value::is_string),
    ("title", Value::is_string),
    ("pattern", Value::is_string),
    ("nullable", Value::is_boolean),
    ("minItems", Value::is_u64),
    ("maxItems", Value::is_u64),
    ("minLength", Value::is_u64),
    ("maxLength", Value::is_u64),
    ("minProperties", Value::is_u64),
    ("maxProperties", Value::is_u64),
    ("minimum", Value::is_number),
    ("maximum", Value::is_number),
    ("example", |_| true),
    ("default", |_| true),
    ("propertyOrdering", Value::is_array),
];

/// `{type: "null"}` and nothing else: the alternative that makes a schema nullable.
fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null") && schema.as_object().is_some_and(|m| m.len() == 1)
}

fn string(text: &str) -> Value {
    Value::String(text.to_owned())
}

impl Converter<'_> {
    fn spend(&mut self, bytes: usize) -> Result<()> {
        *self.spent = self.spent.saturating_add(VALUE_COST + bytes);
        if *self.spent > REF_BUDGET_BYTES {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "the tool schemas expand to more than {} MiB, the limit of one request",
                    REF_BUDGET_BYTES >> 20
                ),
            )
            .with_path(self.origin.path));
        }
        Ok(())
    }

    /// One schema, as the members of a Gemini `Schema`; `at` is its place in the schema
    /// (`properties.tags`, empty for the root).
    fn node(&mut self, schema: &Value, at: &str, depth: usize) -> Result<Map> {
        if depth > MAX_DEPTH {
            return Err(Error::invalid_input(self.origin.path, format!("the schema nests more than {MAX_DEPTH} deep")));
        }
        let Value::Object(map) = schema else {
            // `true` (anything) and other non-objects: no constraint Gemini can say.
            self.spend(at.len())?;
            return Ok(Map::new());
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.follow(reference, map, at, depth);
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            let (merged, refs) = self.merge_all_of(map, parts)?;
            // The refs it merged are being expanded while the merged schema is converted: one
            // that is reached again inside it stops, as a `$ref` does.
            self.ref_depth += 1;
            let added: Vec<String> = refs.into_iter().filter(|r| self.expanding.insert(r.clone())).collect();
            let converted = self.node(&merged, at, depth + 1);
            for reference in &added {
                self.expanding.remove(reference);
            }
            self.ref_depth -= 1;
            return converted;
        }
        let mut out = Map::new();
        // Its place (named in errors) counts too: a long name's children each repeat it.
        let mut strings = at.len();
        let kind = self.write_type(map, &mut out, at, depth)?;
        for (key, wanted) in COPIED {
            if let Some(value) = map.get(key).filter(|v| wanted(v)) {
                strings += value.as_str().map_or(0, str::len);
                out.insert((*key).to_owned(), value.clone());
            }
        }
        if let Some(format) = map.get("format").and_then(Value::as_str).filter(|f| known_format(kind.as_deref(), f)) {
            out.insert("format".into(), string(format));
        }
        if let Some(values) = enum_strings(map, &mut out) {
            strings += values.iter().map(|v| v.as_str().map_or(0, str::len)).sum::<usize>();
            out.insert("enum".into(), Value::Array(values));
            if kind.is_none() && !out.contains_key("anyOf") {
                out.insert("type".into(), string("string"));
            }
        }
        if let Some(Value::Object(properties)) =
            map.get("properties").filter(|p| p.as_object().is_some_and(|p| !p.is_empty()))
        {
            let mut converted = Map::new();
            for (name, property) in properties {
                strings += name.len();
                let place = within(at, &format!("properties.{name}"));
                converted.insert(name.clone(), Value::Object(self.node(property, &place, depth + 1)?));
            }
            let required: Vec<Value> = map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|name| name.as_str().is_some_and(|n| properties.contains_key(n)))
                .cloned()
                .collect();
            out.insert("properties".into(), Value::Object(converted));
            if !required.is_empty() {
                out.insert("required".into(), Value::Array(required));
            }
        }
        let items_at = within(at, "items");
        let items = match map.get("items") {
            Some(items @ Value::Object(_)) => Some(self.node(items, &items_at, depth + 1)?),
            // The old tuple form: its first schema stands for all.
            Some(Value::Array(items)) if !items.is_empty() => {
                Some(self.node(&items[0], &index(&items_at, 0), depth + 1)?)
            }
            _ => None,
        };
        let items = match items {
            Some(items) if typed(&items) => Some(items),
            given => self.prefix_items(map, at, depth)?.or(given),
        };
        let array = kind.as_deref() == Some("array");
        match items {
            Some(items) if !array || typed(&items) => {
                out.insert("items".into(), Value::Object(items));
            }
            // A lone `anyOf` alternative may have brought the items already.
            _ if array && !out.contains_key("items") => return Err(self.no_items(&items_at)),
            _ => {}
        }
        self.spend(strings)?;
        Ok(out)
    }

    /// The one schema `prefixItems` all have, or else the one type they all have, as `items`.
    fn prefix_items(&mut self, map: &Map, at: &str, depth: usize) -> Result<Option<Map>> {
        let Some(Value::Array(prefix)) = map.get("prefixItems") else { return Ok(None) };
        let mut converted = Vec::with_capacity(prefix.len());
        for (k, item) in prefix.iter().enumerate() {
            converted.push(self.node(item, &index(&within(at, "prefixItems"), k), depth + 1)?);
        }
        let Some(first) = converted.first().filter(|first| typed(first)) else { return Ok(None) };
        if converted.iter().all(|item| item == first) {
            return Ok(Some(first.clone()));
        }
        let kind = first.get("type").filter(|kind| kind.is_string());
        let one_type = kind.is_some() && converted.iter().all(|item| item.get("type") == kind);
        Ok(one_type.then(|| kind.into_iter().map(|kind| ("type".to_owned(), kind.clone())).collect()))
    }

    /// An array without the item schema Gemini needs, at `items_at` in the schema.
    fn no_items(&self, items_at: &str) -> Error {
        let Origin { path, exact, what } = self.origin;
        let path = if exact { field(path, items_at) } else { path.to_owned() };
        Error::invalid_input(
            path,
            format!(
                "{what}: the array at `{}` has no item schema, and Gemini needs one (`items` with a type)",
                items_at.strip_suffix(".items").unwrap_or("the root")
            ),
        )
    }

    /// `type` (a name, or a list of names), `anyOf`/`oneOf` and their `null` alternatives,
    /// onto `out`; returns the one type name the schema has, if so.
    fn write_type(&mut self, map: &Map, out: &mut Map, at: &str, depth: usize) -> Result<Option<String>> {
        let mut nullable = false;
        let mut kind = None;
        match map.get("type") {
            Some(Value::String(name)) => kind = Some(name.clone()),
            Some(Value::Array(names)) => {
                let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
                nullable = names.contains(&"null");
                let rest: Vec<&str> = names.into_iter().filter(|n| *n != "null").collect();
                match rest.as_slice() {
                    [] if nullable => kind = Some("null".to_owned()),
                    [] => {}
                    [one] => kind = Some((*one).to_owned()),
                    several => {
                        let one =
                            |name: &&str| Value::Object([("type".to_owned(), string(name))].into_iter().collect());
                        out.insert("anyOf".into(), Value::Array(several.iter().map(one).collect()));
                    }
                }
            }
            _ => {}
        }
        let (name, alternatives) = match (map.get("anyOf"), map.get("oneOf")) {
            (Some(Value::Array(any)), _) => ("anyOf", Some(any)),
            (None, Some(Value::Array(one))) => ("oneOf", Some(one)),
            _ => ("", None),
        };
        if let Some(alternatives) = alternatives {
            nullable |= alternatives.iter().any(is_null_type);
            let place = |k: usize| index(&within(at, name), k);
            let rest: Vec<(usize, &Value)> =
                alternatives.iter().enumerate().filter(|(_, a)| !is_null_type(a)).collect();
            match rest.as_slice() {
                [] => {}
                // One alternative left: the schema is that one (its own keys win over it).
                [(k, one)] => {
                    for (key, value) in self.node(one, &place(*k), depth + 1)? {
                        if key == "type" && kind.is_none() {
                            kind = value.as_str().map(str::to_owned);
                        }
                        if !out.contains_key(&key) {
                            out.insert(key, value);
                        }
                    }
                }
                several => {
                    let mut any = Vec::with_capacity(several.len());
                    for (k, alternative) in several {
                        any.push(Value::Object(self.node(alternative, &place(*k), depth + 1)?));
                    }
                    out.insert("anyOf".into(), Value::Array(any));
                }
            }
        }
        if let Some(kind) = &kind {
            out.insert("type".into(), string(kind));
        }
        if nullable {
            out.insert("nullable".into(), Value::Bool(true));
        }
        Ok(kind)
    }

    /// The schema a local `$ref` names, converted, with the ref's other keys (a `description`
    /// beside it) laid over it.
    fn follow(&mut self, reference: &str, map: &Map, at: &str, depth: usize) -> Result<Map> {
        if self.expanding.contains(reference) {
            // A recursive schema: stop at the second visit rather than expand forever.
            return Ok([("type".to_owned(), string("object"))].into_iter().collect());
        }
        if self.ref_depth >= MAX_REF_DEPTH {
            return Err(Error::invalid_input(self.origin.path, format!("$refs nest more than {MAX_REF_DEPTH} deep")));
        }
        let root = self.root;
        let target =
            reference.strip_prefix('#').and_then(|pointer| pointer_target(root, pointer)).ok_or_else(|| {
                Error::invalid_input(self.origin.path, format!("$ref `{reference}` points at nothing in the schema"))
            })?;
        self.expanding.insert(reference.to_owned());
        self.ref_depth += 1;
        let converted = self.node(target, at, depth + 1);
        self.ref_depth -= 1;
        self.expanding.remove(reference);
        let mut converted = converted?;
        let mut siblings = map.clone();
        siblings.remove("$ref");
        if !siblings.is_empty() {
            for (key, value) in self.node(&Value::Object(siblings), at, depth + 1)? {
                converted.insert(key, value);
            }
        }
        Ok(converted)
    }

    /// The schema with its `allOf` parts merged in: `properties` and `required` joined, any
    /// other key from the first that has it (the schema itself first). A part that is a local
    /// `$ref` is merged as what it names, and a part's own `allOf` right after it; each `$ref`
    /// is merged once, so parts that name the schema again (directly or not) end; a `$ref` being
    /// expanded already merges as `{type: "object"}`, where a `$ref` would stop. With the refs
    /// it merged.
    fn merge_all_of(&mut self, map: &Map, parts: &[Value]) -> Result<(Value, Vec<String>)> {
        let root = self.root;
        let mut merged = map.clone();
        merged.remove("allOf");
        // `required` is joined apart, each name once, in a set: parts may list many names.
        let mut required: Vec<Value> = Vec::new();
        let mut names: BTreeSet<&str> = BTreeSet::new();
        if let Some(list) = map.get("required") {
            join_required(list, &mut names, &mut required);
        }
        let mut pending: Vec<&Value> = parts.iter().rev().collect();
        let mut merged_refs: BTreeSet<&str> = BTreeSet::new();
        while let Some(part) = pending.pop() {
            let named = part.get("$ref").and_then(Value::as_str);
            if named.is_some_and(|reference| !merged_refs.insert(reference)) {
                continue;
            }
            if named.is_some_and(|reference| self.expanding.contains(reference)) {
                if !merged.contains_key("type") {
                    merged.insert("type".to_owned(), string("object"));
                }
                continue;
            }
            let target = named.and_then(|r| r.strip_prefix('#')).and_then(|pointer| pointer_target(root, pointer));
            let Value::Object(part) = target.unwrap_or(part) else { continue };
            self.spend(0)?;
            if let Some(Value::Array(nested)) = part.get("allOf") {
                pending.extend(nested.iter().rev());
            }
            for (key, value) in part {
                match (key.as_str(), merged.get_mut(key), value) {
                    ("allOf", ..) => {}
                    ("required", ..) => join_required(value, &mut names, &mut required),
                    ("properties", Some(Value::Object(into)), Value::Object(from)) => {
                        for (name, schema) in from {
                            if !into.contains_key(name) {
                                into.insert(name.clone(), schema.clone());
                            }
                        }
                    }
                    (_, None, value) => {
                        merged.insert(key.clone(), value.clone());
                    }
                    _ => {}
                }
            }
        }
        if !required.is_empty() {
            merged.insert("required".into(), Value::Array(required));
        }
        Ok((Value::Object(merged), merged_refs.into_iter().map(str::to_owned).collect()))
    }
}

/// Appends to `required` each name of `list` not in `names` yet.
fn join_required<'v>(list: &'v Value, names: &mut BTreeSet<&'v str>, required: &mut Vec<Value>) {
    for name in list.as_array().into_iter().flatten() {
        if name.as_str().is_some_and(|n| names.insert(n)) {
            required.push(name.clone());
        }
    }
}

/// `at` extended by `key`: a place in a schema, empty for the root.
fn within(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_owned()
    } else {
        field(at, key)
    }
}

/// A converted schema Gemini can read as an array's items: one with a type (or alternatives).
fn typed(schema: &Map) -> bool {
    schema.contains_key("type") || schema.contains_key("anyOf")
}

/// The first `array` property of `properties` (at `path`, their list) without `items`, as
/// `invalid_input` at its `items`: Gemini needs the item schema of every array. Properties named
/// in `skip` (bound parameters, which are not sent) are passed over.
pub(crate) fn check_items(properties: &[Property], path: &str, skip: &Map, what: &str) -> Result<()> {
    match crate::schema::itemless_property(properties, path, skip) {
        Some(at) => Err(Error::invalid_input(
            at,
            format!("{what}: Gemini needs the item schema of an array; give this array's `items` with a kind"),
        )),
        None => Ok(()),
    }
}

/// The string values of `enum` (or `const`), without `null` (which makes `out` nullable);
/// `None` when there is none, or one that is not a string or `null`.
fn enum_strings(map: &Map, out: &mut Map) -> Option<Vec<Value>> {
    let values: Vec<&Value> = match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (None, Some(one)) => vec![one],
        _ => return None,
    };
    if values.iter().any(|v| !v.is_string() && !v.is_null()) {
        return None;
    }
    if values.iter().any(|v| v.is_null()) {
        out.insert("nullable".into(), Value::Bool(true));
    }
    let strings: Vec<Value> = values.into_iter().filter(|v| v.is_string()).cloned().collect();
    (!strings.is_empty()).then_some(strings)
}

/// The value at the JSON Pointer `pointer` (RFC 6901) in `root`; objects only, as schemas
/// point into `$defs`, `definitions` and `properties`.
fn pointer_target<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut target = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = token.replace("~1", "/").replace("~0", "~");
        target = target.as_object()?.get(&token)?;
    }
    Some(target)
}
