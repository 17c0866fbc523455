//! The process-wide tool registry that custom tool kinds are looked up in (§7.1.3 `get_tool`).
//!
//! A `Mutex` rather than a thread-local: a Rust server registering tools at start-up expects
//! every worker thread to see them; in wasm there is one thread and the lock is free.

use std::sync::{Mutex, MutexGuard};

use super::empty_schema;
use crate::error::{Error, Result};
use crate::json::Value;
use crate::model::Property;
use crate::schema::to_schema;

/// What a custom tool is projected with.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisteredTool {
    pub description: Option<String>,
    /// A JSON Schema object.
    pub parameters: Value,
}

/// The registrations by name. A list searched in order rather than a map: a handful of entries,
/// and no map code of its own in the wasm module.
static REGISTRY: Mutex<Vec<(String, RegisteredTool)>> = Mutex::new(Vec::new());

fn registry() -> MutexGuard<'static, Vec<(String, RegisteredTool)>> {
    // A panic elsewhere while holding the lock cannot leave a map half-written: use it anyway.
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Registers (or replaces) `name` from `{description?, parameters?}`, where `parameters` is a
/// JSON Schema object or a Property list. Errors name `def.…`.
pub fn register_tool(name: &str, def: &Value) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid_input("name", "a registered tool needs a name"));
    }
    let Value::Object(map) = def else {
        return Err(Error::invalid_input("def", "expected an object {description?, parameters?}"));
    };
    let description = match map.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) => (!d.is_empty()).then(|| d.clone()),
        Some(_) => return Err(Error::invalid_input("def.description", "expected a string")),
    };
    let parameters = match map.get("parameters") {
        None | Some(Value::Null) => empty_schema(),
        Some(schema @ Value::Object(_)) => schema.clone(),
        Some(list @ Value::Array(_)) => to_schema(&Property::list_from_json(list, "def.parameters")?),
        Some(_) => {
            return Err(Error::invalid_input("def.parameters", "expected a JSON Schema object or a Property list"))
        }
    };
    let tool = RegisteredTool { description, parameters };
    let mut registry = registry();
    match registry.iter_mut().find(|(registered, _)| registered == name) {
        Some((_, slot)) => *slot = tool,
        None => registry.push((name.to_owned(), tool)),
    }
    Ok(())
}

/// The registration under `name`, if any.
pub fn registered_tool(name: &str) -> Option<RegisteredTool> {
    registry().iter().find(|(registered, _)| registered == name).map(|(_, tool)| tool.clone())
}

/// Removes `name`; true when it was registered.
pub fn unregister_tool(name: &str) -> bool {
    let mut registry = registry();
    let before = registry.len();
    registry.retain(|(registered, _)| registered != name);
    registry.len() != before
}
