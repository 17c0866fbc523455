//! The arguments of a Vertex AI streamed function call (`streamFunctionCallArguments`),
//! assembled from its `partialArgs`: each one sets a value at a JSON path (`$.items[0].name`),
//! and a string whose `willContinue` is true goes on in the next one at the same path.
//!
//! Members keep the order they arrived in. An array index past the end appends (a gap is not
//! filled with nulls, which would cost memory the input does not bound); a value set where
//! another kind was makes that place the new kind.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::json::write;

/// How deep a path may reach: the depth to which the crate reads JSON.
const MAX_DEPTH: usize = 127;

#[derive(Debug)]
enum Node {
    Object(Object),
    Array(Vec<Node>),
    String(String),
    /// A number, `true`, `false` or `null`, as JSON text.
    Raw(String),
}

#[derive(Debug, Default)]
struct Object {
    members: Vec<(String, Node)>,
    /// Where each key is in `members`.
    positions: BTreeMap<String, usize>,
}

impl Object {
    /// The value of `key`, added (as `null`) when the object lacks it.
    fn member(&mut self, key: &str) -> &mut Node {
        let at = match self.positions.get(key) {
            Some(&at) => at,
            None => {
                self.positions.insert(key.to_owned(), self.members.len());
                self.members.push((key.to_owned(), null()));
                self.members.len() - 1
            }
        };
        &mut self.members[at].1
    }
}

fn null() -> Node {
    Node::Raw("null".to_owned())
}

/// One step of a JSON path.
#[derive(Debug, PartialEq)]
enum Step<'p> {
    Key(Cow<'p, str>),
    Index(usize),
}

/// A value a partial argument sets.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Leaf<'a> {
    String(&'a str),
    /// A number, `true`, `false` or `null`, as JSON text.
    Raw(&'a str),
}

/// A streamed call's arguments so far.
#[derive(Debug)]
pub(crate) struct Arguments {
    root: Node,
    /// The path of the string the last partial argument said goes on.
    continuing: Option<String>,
}

impl Default for Arguments {
    fn default() -> Self {
        Arguments { root: Node::Object(Object::default()), continuing: None }
    }
}

impl Arguments {
    /// Sets `value` at `path`, or appends it to the string there when the partial argument
    /// before said that string goes on. An error names what is wrong with the path.
    pub(crate) fn set(&mut self, path: &str, value: Leaf<'_>, will_continue: bool) -> Result<(), String> {
        let steps = parse_path(path).ok_or_else(|| format!("cannot read the jsonPath {}", write::quoted(path)))?;
        if steps.is_empty() {
            return Err("a partial argument sets the whole arguments, which must be an object".to_owned());
        }
        if steps.len() > MAX_DEPTH {
            return Err(format!("the jsonPath reaches deeper than {MAX_DEPTH} levels"));
        }
        let is_string = matches!(value, Leaf::String(_));
        let append = is_string && self.continuing.as_deref() == Some(path);
        self.continuing = (is_string && will_continue).then(|| path.to_owned());
        place(&mut self.root, &steps, value, append);
        Ok(())
    }

    /// The arguments as JSON text.
    pub(crate) fn to_json(&self) -> String {
        let mut out = String::new();
        write_node(&mut out, &self.root);
        out
    }
}

/// Sets `value` at `steps` below `node`, making each place on the way the container the next
/// step needs.
fn place(node: &mut Node, steps: &[Step<'_>], value: Leaf<'_>, append: bool) {
    let Some((step, rest)) = steps.split_first() else {
        match (node, value) {
            (Node::String(text), Leaf::String(more)) if append => text.push_str(more),
            (node, Leaf::String(text)) => *node = Node::String(text.to_owned()),
            (node, Leaf::Raw(raw)) => *node = Node::Raw(raw.to_owned()),
        }
        return;
    };
    match (step, &mut *node) {
        (Step::Key(key), Node::Object(object)) => place(object.member(key), rest, value, append),
        (Step::Index(at), Node::Array(items)) => {
            if *at >= items.len() {
                items.push(null());
            }
            let at = (*at).min(items.len() - 1);
            place(&mut items[at], rest, value, append)
        }
        (Step::Key(_), _) => {
            *node = Node::Object(Object::default());
            place(node, steps, value, append)
        }
        (Step::Index(_), _) => {
            *node = Node::Array(Vec::new());
            place(node, steps, value, append)
        }
    }
}

fn write_node(out: &mut String, node: &Node) {
    match node {
        Node::Object(object) => {
            out.push('{');
            for (i, (key, value)) in object.members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write::string(out, key);
                out.push(':');
                write_node(out, value);
            }
            out.push('}');
        }
        Node::Array(items) => write::list(out, items, write_node),
        Node::String(text) => write::string(out, text),
        Node::Raw(raw) => out.push_str(raw),
    }
}

/// `$`, then `.name`, `[0]`, `['name']` or `["name"]` steps (a backslash escapes the next
/// character inside quotes); `None` for anything else.
fn parse_path(path: &str) -> Option<Vec<Step<'_>>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while let Some(c) = rest.chars().next() {
        rest = &rest[1..];
        match c {
            '.' => {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                if end == 0 {
                    return None;
                }
                steps.push(Step::Key(Cow::Borrowed(&rest[..end])));
                rest = &rest[end..];
            }
            '[' => {
                let close = match rest.chars().next()? {
                    quote @ ('\'' | '"') => {
                        let (key, after) = quoted_key(&rest[1..], quote)?;
                        steps.push(Step::Key(key));
                        after
                    }
                    _ => {
                        let end = rest.find(']')?;
                        let digits = &rest[..end];
                        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                            return None;
                        }
                        steps.push(Step::Index(digits.parse().ok()?));
                        &rest[end..]
                    }
                };
                rest = close.strip_prefix(']')?;
            }
            _ => return None,
        }
    }
    Some(steps)
}

/// A key up to the closing `quote`, and what follows that quote.
fn quoted_key(text: &str, quote: char) -> Option<(Cow<'_, str>, &str)> {
    let mut key = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => key.push(chars.next()?.1),
            c if c == quote => return Some((Cow::Owned(key), &text[at + 1..])),
            c => key.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_keys_indexes_and_quoted_keys() {
        let key = |k: &str| Step::Key(Cow::Owned(k.to_owned()));
        let cases: [(&str, Option<Vec<Step>>); 10] = [
            ("$", Some(vec![])),
            ("$.a", Some(vec![key("a")])),
            ("$.a[0].b", Some(vec![key("a"), Step::Index(0), key("b")])),
            ("$['a.b'][12]", Some(vec![key("a.b"), Step::Index(12)])),
            (r#"$["x\"y"]"#, Some(vec![key("x\"y")])),
            ("a.b", None),
            ("$.", None),
            ("$[x]", None),
            ("$['open", None),
            ("$[-1]", None),
        ];
        for (path, steps) in cases {
            assert_eq!(parse_path(path), steps, "{path}");
        }
    }

    #[test]
    fn strings_that_go_on_are_joined_and_values_keep_their_order() {
        let mut args = Arguments::default();
        args.set("$.z[0].name", Leaf::String("Bos"), true).unwrap();
        args.set("$.z[0].name", Leaf::String("ton"), true).unwrap();
        args.set("$.z[0].name", Leaf::String(""), false).unwrap();
        args.set("$.z[0].price", Leaf::Raw("0.5"), false).unwrap();
        args.set("$.z[5].name", Leaf::String("next"), false).unwrap();
        args.set("$.a", Leaf::Raw("true"), false).unwrap();
        args.set("$.a", Leaf::String("again"), false).unwrap();
        assert_eq!(args.to_json(), r#"{"z":[{"name":"Boston","price":0.5},{"name":"next"}],"a":"again"}"#);
    }

    #[test]
    fn a_string_continues_only_at_the_path_that_said_so() {
        let mut args = Arguments::default();
        args.set("$.a", Leaf::String("x"), true).unwrap();
        args.set("$.b", Leaf::String("y"), false).unwrap();
        args.set("$.a", Leaf::String("z"), false).unwrap();
        assert_eq!(args.to_json(), r#"{"a":"z","b":"y"}"#);
    }

    #[test]
    fn a_path_that_cannot_be_read_or_sets_the_root_is_refused() {
        let mut args = Arguments::default();
        assert!(args.set("$", Leaf::Raw("1"), false).is_err());
        assert!(args.set("a", Leaf::Raw("1"), false).is_err());
        assert!(args.set(&format!("${}", ".a".repeat(200)), Leaf::Raw("1"), false).is_err());
        assert_eq!(args.to_json(), "{}");
    }
}
