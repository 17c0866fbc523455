//! The agent's `outputs` as the partial reader checks them: each rule applied as soon as the
//! part of the value it needs has been read, with the messages of `parse_structured_output`.

use crate::json::write::{quoted, WriteJson};
use crate::json::Value;
use crate::model::Property;

/// The largest integer a JS number holds exactly (2^53 - 1), as `parse_structured_output` has it.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The kind of a value, known from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Object,
    Array,
    String,
    Number,
    Boolean,
    Null,
}

impl Shape {
    /// The name messages use, as `parse_structured_output`'s.
    fn name(self) -> &'static str {
        match self {
            Shape::Object => "an object",
            Shape::Array => "an array",
            Shape::String => "a string",
            Shape::Number => "a number",
            Shape::Boolean => "a boolean",
            Shape::Null => "null",
        }
    }
}

/// One property, its nested properties and items as indexes into [`Schema::nodes`]: the
/// reader's open containers refer to their node by index.
struct Node {
    name: String,
    /// What a value must be; `None` for a kind the output parser does not know (no constraint).
    want: Option<Shape>,
    kind: String,
    integer: bool,
    required: bool,
    enum_values: Vec<Value>,
    fields: Vec<usize>,
    items: Option<usize>,
}

/// The properties of the expected object, flattened; node 0 is the object itself.
pub(super) struct Schema {
    nodes: Vec<Node>,
}

impl Schema {
    /// The schema of an object with `outputs` as its properties; `None` when there are none.
    pub(super) fn new(outputs: &[Property]) -> Option<Schema> {
        if outputs.is_empty() {
            return None;
        }
        let root = Property { kind: "object".into(), properties: Some(outputs.to_vec()), ..Property::default() };
        let mut schema = Schema { nodes: Vec::new() };
        schema.add(&root);
        Some(schema)
    }

    /// Adds `property` and everything under it; its index.
    fn add(&mut self, property: &Property) -> usize {
        let want = match property.kind.as_str() {
            "string" => Some(Shape::String),
            "boolean" => Some(Shape::Boolean),
            "float" | "number" | "integer" => Some(Shape::Number),
            "array" => Some(Shape::Array),
            "object" => Some(Shape::Object),
            _ => None,
        };
        let at = self.nodes.len();
        self.nodes.push(Node {
            name: property.name.clone(),
            want,
            kind: property.kind.clone(),
            integer: property.kind == "integer",
            required: property.required,
            enum_values: property.enum_values.clone().unwrap_or_default(),
            fields: Vec::new(),
            items: None,
        });
        let fields: Vec<usize> = property.properties.iter().flatten().map(|p| self.add(p)).collect();
        let items = property.items.as_deref().map(|item| self.add(item));
        self.nodes[at].fields = fields;
        self.nodes[at].items = items;
        at
    }

    /// How many properties object `node` declares (none: a free-form object).
    pub(super) fn field_count(&self, node: usize) -> usize {
        self.nodes[node].fields.len()
    }

    /// The member `key` of object `node`: its position among the properties and its node, or
    /// `None` when the object is free-form; an error when `key` is not one of its properties.
    pub(super) fn field(&self, node: usize, key: &str) -> Result<Option<(usize, usize)>, String> {
        let fields = &self.nodes[node].fields;
        if fields.is_empty() {
            return Ok(None);
        }
        match fields.iter().position(|&f| self.nodes[f].name == key) {
            Some(at) => Ok(Some((at, fields[at]))),
            None => Err([&quoted(key), " is not a property of the output schema"].concat()),
        }
    }

    /// The node of the items of array `node`.
    pub(super) fn items(&self, node: usize) -> Option<usize> {
        self.nodes[node].items
    }

    /// A value of `shape` begins where node `at` applies; `item` says it is an array's item.
    pub(super) fn begin(&self, at: usize, shape: Shape, item: bool) -> Result<(), String> {
        let node = &self.nodes[at];
        match (shape, node.want) {
            // The expected object itself is named as `parse_structured_output` names it.
            (_, Some(want)) if at == 0 && shape != want => Err(["expected an object, got ", shape.name()].concat()),
            (Shape::Null, _) if item => Err("expected an item, got null".into()),
            (Shape::Null, _) if node.required => {
                Err(["the required property ", &quoted(&node.name), " is missing"].concat())
            }
            (Shape::Null, _) | (_, None) => Ok(()),
            (shape, Some(want)) if shape == want => Ok(()),
            (shape, Some(_)) => Err(["expected ", &node.kind, ", got ", shape.name()].concat()),
        }
    }

    /// A complete scalar (not null) where `node` applies: integers whole, enum values allowed.
    pub(super) fn scalar(&self, node: usize, value: &Value) -> Result<(), String> {
        let node = &self.nodes[node];
        if node.integer && !is_integer(value) {
            return Err(["expected ", &node.kind, ", got a non-integer number"].concat());
        }
        if !node.enum_values.is_empty() && !node.enum_values.iter().any(|allowed| same(allowed, value)) {
            return Err([&value.to_json_text(), " is not one of ", &node.enum_values.to_json_text()].concat());
        }
        Ok(())
    }

    /// Whether `node` limits its strings to an enum: their text is then kept while they grow.
    pub(super) fn has_enum(&self, node: usize) -> bool {
        !self.nodes[node].enum_values.is_empty()
    }

    /// A string still growing where `node` applies: it must begin one of the enum's strings.
    pub(super) fn string_so_far(&self, node: usize, text: &str) -> Result<(), String> {
        let allowed = &self.nodes[node].enum_values;
        if allowed.is_empty() || allowed.iter().any(|a| a.as_str().is_some_and(|a| a.starts_with(text))) {
            return Ok(());
        }
        Err(["a string beginning ", &quoted(text), " is not one of ", &allowed.to_json_text()].concat())
    }

    /// Object `node` closes having seen the properties marked in `seen`: the first required one
    /// missing, as an error with its name.
    pub(super) fn missing(&self, node: usize, seen: &[bool]) -> Option<(String, String)> {
        let fields = &self.nodes[node].fields;
        let at = fields.iter().zip(seen).position(|(&f, &seen)| self.nodes[f].required && !seen)?;
        let name = self.nodes[fields[at]].name.clone();
        let message = ["the required property ", &quoted(&name), " is missing"].concat();
        Some((name, message))
    }
}

/// A whole number a JS number holds exactly: `3` and `3.0`, not `3.5` or `1e300` (an integer
/// read as `u64` or `i64` is checked as the `f64` JS would hold).
fn is_integer(value: &Value) -> bool {
    let number = value.as_f64();
    number.is_some_and(|n| n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER)
}

/// Enum membership: numbers compare by value (`1` matches `1.0`), everything else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
