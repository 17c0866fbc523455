//! The tool registry's bounds (`registerTool`): one registration may hold at most
//! `MAX_REGISTERED_TOOL_BYTES`, all of them `MAX_REGISTRY_BYTES`; past either, `limit_exceeded`,
//! and the registry goes on working. A binary of its own: these tests fill the process-wide
//! registry, which would fail the registrations of tests running beside them.

use std::sync::Mutex;

use llm_wire::tools::{MAX_REGISTERED_TOOL_BYTES, MAX_REGISTRY_BYTES};
use llm_wire::{build_chat_args_json, register_tool, unregister_tool, Error, ErrorCode};
use serde_json::{json, Value};

/// The tests here share the registry's total: one runs at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn register(name: &str, def: Value) -> Result<(), Error> {
    register_tool(name, &def.into())
}

/// A definition whose description is `bytes` long.
fn described(bytes: usize) -> Value {
    json!({"description": "d".repeat(bytes), "parameters": {"type": "object"}})
}

/// The description a custom tool of kind `kind` is built with, or the error.
fn description_of(kind: &str) -> Result<Option<usize>, Error> {
    let agent = json!({"model": "m", "tools": [{"kind": kind, "name": "t"}]});
    let body: Value = build_chat_args_json(&agent.into(), &json!([]).into())?.into();
    Ok(body["tools"][0]["function"]["description"].as_str().map(str::len))
}

#[test]
fn a_registration_larger_than_its_limit_is_refused_and_the_registry_still_works() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let e = register("too_big", described(MAX_REGISTERED_TOOL_BYTES)).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert_eq!(e.path.as_deref(), Some("def"));
    assert_eq!(description_of("too_big").unwrap_err().code, ErrorCode::InvalidInput);
    // A name alone can be too long, too.
    let e = register(&"n".repeat(MAX_REGISTERED_TOOL_BYTES), json!({})).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");

    register("too_big", described(1000)).unwrap();
    assert_eq!(description_of("too_big").unwrap(), Some(1000));
    assert!(unregister_tool("too_big"));
}

#[test]
fn the_registry_refuses_registrations_past_its_total_until_one_is_unregistered() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let size = MAX_REGISTERED_TOOL_BYTES * 9 / 10;
    let fit = MAX_REGISTRY_BYTES / size;
    let name = |i: usize| format!("fill_{i}");
    for i in 0..fit {
        register(&name(i), described(size - 100)).unwrap_or_else(|e| panic!("registration {i}: {e}"));
    }
    let e = register(&name(fit), described(size - 100)).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert_eq!(e.path, None);
    assert_eq!(description_of(&name(fit)).unwrap_err().code, ErrorCode::InvalidInput);
    // Full, a registration may still be replaced by one of its size, or smaller.
    register(&name(0), described(size - 200)).unwrap();
    assert_eq!(description_of(&name(0)).unwrap(), Some(size - 200));
    assert!(unregister_tool(&name(1)));
    register(&name(fit), described(size - 100)).unwrap();
    assert_eq!(description_of(&name(fit)).unwrap(), Some(size - 100));
    for i in (0..=fit).filter(|&i| i != 1) {
        assert!(unregister_tool(&name(i)), "{i}");
    }
}
