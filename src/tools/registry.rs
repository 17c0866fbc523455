//! The process-wide tool registry that custom tool kinds are looked up in (§7.1.3 `get_tool`).
//!
//! A `Mutex` rather than a thread-local: a Rust server registering tools at start-up expects
//! every worker thread to see them. Nothing that can fail or allocate in proportion to the
//! caller's data runs while the lock is held: entries are built before it is taken and handed
//! out as `Arc`s after, the map's room is reserved fallibly, and replaced entries are dropped
//! after it is released. In wasm a trap while locked would leave the lock taken for good.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::budget::Budget;
use super::empty_schema;
use crate::error::{Error, ErrorCode, Result};
use crate::json::Value;
use crate::model::Property;
use crate::schema::to_schema;

/// The most one registration may hold (its name, description and schema, counted as
/// `$ref` copies are: the bytes of strings and keys plus 16 per JSON value): 1 MiB, a hundred
/// times a large real tool schema.
pub const MAX_REGISTERED_TOOL_BYTES: usize = 1 << 20;

/// The most all registrations together may hold, counted the same way: 16 MiB.
pub const MAX_REGISTRY_BYTES: usize = 16 << 20;

/// What a custom tool is projected with.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisteredTool {
    pub description: Option<String>,
    /// A JSON Schema object.
    pub parameters: Value,
}

/// A registration and what it counts for against [`MAX_REGISTRY_BYTES`].
struct Entry {
    tool: Arc<RegisteredTool>,
    size: usize,
}

#[derive(Default)]
struct Registry {
    tools: Option<HashMap<String, Entry>>,
    size: usize,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { tools: None, size: 0 });

fn registry() -> MutexGuard<'static, Registry> {
    // A panic while the lock was held cannot have left an entry half-written (entries are
    // whole before they go in): use the registry as it is.
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Registers (or replaces) `name` from `{description?, parameters?}`, where `parameters` is a
/// JSON Schema object or a Property list. Errors name `def.…`; a registration larger than
/// [`MAX_REGISTERED_TOOL_BYTES`], or one that would take the registry past
/// [`MAX_REGISTRY_BYTES`], is `limit_exceeded`.
pub fn register_tool(name: &str, def: &Value) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid_input("name", "a registered tool needs a name"));
    }
    let Value::Object(map) = def else {
        return Err(Error::invalid_input("def", "expected an object {description?, parameters?}"));
    };
    // Measured before anything is copied: an oversized definition is refused, not cloned.
    let mut budget = Budget::new(MAX_REGISTERED_TOOL_BYTES);
    if !(budget.take(name.len()) && budget.spend(def)) {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("a registered tool may hold at most {} KiB", MAX_REGISTERED_TOOL_BYTES >> 10),
        )
        .with_path("def"));
    }
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
    let size = MAX_REGISTERED_TOOL_BYTES - budget.left();
    let entry = Entry { tool: Arc::new(RegisteredTool { description, parameters }), size };
    let key = name.to_owned();
    // Made before the lock is taken: a new map's hasher may allocate.
    let fresh = HashMap::new();
    let mut replaced = None;
    let full = {
        let mut registry = registry();
        let registry = &mut *registry;
        let tools = registry.tools.get_or_insert(fresh);
        let kept = registry.size - tools.get(name).map_or(0, |old| old.size);
        // `try_reserve`: the insert below then cannot allocate, so cannot trap.
        let full = kept + size > MAX_REGISTRY_BYTES || tools.try_reserve(1).is_err();
        if !full {
            registry.size = kept + size;
            replaced = tools.insert(key, entry);
        }
        full
    };
    // The entry replaced (or refused) is dropped after the lock is released.
    drop(replaced);
    if full {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            format!(
                "the tool registry may hold at most {} MiB; unregister tools to make room",
                MAX_REGISTRY_BYTES >> 20
            ),
        ));
    }
    Ok(())
}

/// The registration under `name`, if any.
pub fn registered_tool(name: &str) -> Option<RegisteredTool> {
    lookup(name).map(|tool| RegisteredTool::clone(&tool))
}

/// The registration under `name`, shared: only the pointer is copied while the lock is held.
pub(crate) fn lookup(name: &str) -> Option<Arc<RegisteredTool>> {
    registry().tools.as_ref()?.get(name).map(|entry| Arc::clone(&entry.tool))
}

/// Removes `name`; true when it was registered.
pub fn unregister_tool(name: &str) -> bool {
    let removed = {
        let mut registry = registry();
        let removed = registry.tools.as_mut().and_then(|tools| tools.remove(name));
        if let Some(entry) = &removed {
            registry.size -= entry.size;
        }
        removed
    };
    removed.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Held by the tests that read the registry's size, which the others would change meanwhile.
    static SIZE_TESTS: Mutex<()> = Mutex::new(());

    fn schema_of(name: &str) -> Option<Value> {
        lookup(name).map(|tool| tool.parameters.clone())
    }

    #[test]
    fn a_poisoned_registry_lock_is_recovered() {
        let _alone = SIZE_TESTS.lock().unwrap_or_else(PoisonError::into_inner);
        let schema = json!({"type": "object", "properties": {"p": {"type": "string"}}});
        register_tool("poison_before", &json!({"parameters": schema}).into()).unwrap();
        let poisoner = std::thread::spawn(|| {
            let _held = REGISTRY.lock();
            panic!("a panic while the registry is locked");
        });
        assert!(poisoner.join().is_err());
        assert!(REGISTRY.is_poisoned());
        assert_eq!(schema_of("poison_before"), Some(schema.clone().into()));
        register_tool("poison_after", &json!({"parameters": schema}).into()).unwrap();
        assert_eq!(schema_of("poison_after"), Some(schema.into()));
        assert!(unregister_tool("poison_before") && unregister_tool("poison_after"));
    }

    #[test]
    fn replacing_and_unregistering_give_the_room_back() {
        let _alone = SIZE_TESTS.lock().unwrap_or_else(PoisonError::into_inner);
        let before = registry().size;
        let def = |n: usize| -> Value { json!({"description": "d".repeat(n)}).into() };
        register_tool("room", &def(1000)).unwrap();
        let one = registry().size - before;
        register_tool("room", &def(10)).unwrap();
        assert_eq!(registry().size - before, one - 990);
        assert!(unregister_tool("room"));
        assert!(!unregister_tool("room"));
        assert_eq!(registry().size, before);
    }
}
