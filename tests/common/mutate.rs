//! JSON trees walked and edited by path, for the differential harnesses (`size_proc_diff.rs`,
//! `size_req_diff.rs`): every node of an input is replaced or deleted in turn (and, in
//! `size_proc_diff.rs`, doubled).

use serde_json::Value;

/// One step down a tree: an array index or an object key.
#[derive(Clone)]
pub enum Step {
    I(usize),
    K(String),
}

/// Every value in the tree (the root included), by path of steps.
pub fn paths(v: &Value) -> Vec<Vec<Step>> {
    fn walk(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        out.push(at.clone());
        match v {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    at.push(Step::I(i));
                    walk(item, at, out);
                    at.pop();
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    at.push(Step::K(k.clone()));
                    walk(item, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

/// The node at `path` (which `paths` gave for this tree).
pub fn node<'v>(v: &'v mut Value, path: &[Step]) -> &'v mut Value {
    let mut v = v;
    for s in path {
        v = match s {
            Step::I(i) => &mut v[*i],
            Step::K(k) => &mut v[k.as_str()],
        };
    }
    v
}

/// The tree without the node at `path` (the root cannot be deleted).
pub fn delete(v: &mut Value, path: &[Step]) {
    let Some((last, parent)) = path.split_last() else { return };
    match (node(v, parent), last) {
        (Value::Array(items), Step::I(i)) => {
            items.remove(*i);
        }
        (Value::Object(map), Step::K(k)) => {
            map.remove(k);
        }
        _ => {}
    }
}
