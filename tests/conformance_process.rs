//! Every `process` vector of Prompty's conformance suite (`tests/conformance/`) through
//! `process`, from the parsed object and from the raw body text: the result equals `expected`.

use std::path::Path;

use llm_wire::model::{Model, Property};
use llm_wire::{process, Agent};
use serde_json::Value;

/// A flat vector input as the agent it stands for; `has_outputs` gives one output property.
fn agent_of(input: &Value) -> Agent {
    let text = |k: &str| input[k].as_str().unwrap_or_default().to_owned();
    let outputs = if input["has_outputs"] == true {
        vec![Property { name: "result".into(), kind: "object".into(), ..Property::default() }]
    } else {
        Vec::new()
    };
    Agent {
        model: Model { provider: text("provider"), api_type: text("apiType"), ..Model::default() },
        outputs,
        ..Agent::default()
    }
}

fn process_vectors() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/prompty-vectors.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vectors: Vec<Value> =
        all["vectors"].as_array().unwrap().iter().filter(|v| v["operation"] == "process").cloned().collect();
    assert!(!vectors.is_empty());
    vectors
}

#[test]
fn every_process_vector_gives_its_expected_result_from_the_parsed_object() {
    for entry in process_vectors() {
        let vector = &entry["vector"];
        let input = &vector["input"];
        let got = process(&agent_of(input), &llm_wire::Value::from(input["response"].clone()))
            .unwrap_or_else(|e| panic!("{}: {e}", vector["name"]));
        assert_eq!(serde_json::to_value(got).unwrap(), vector["expected"]["result"], "{}", vector["name"]);
    }
}

#[test]
fn every_process_vector_gives_its_expected_result_from_the_raw_body_text() {
    for entry in process_vectors() {
        let vector = &entry["vector"];
        let input = &vector["input"];
        let body = serde_json::to_string_pretty(&input["response"]).unwrap();
        let got = process(&agent_of(input), body.as_str()).unwrap_or_else(|e| panic!("{}: {e}", vector["name"]));
        assert_eq!(serde_json::to_value(got).unwrap(), vector["expected"]["result"], "{}", vector["name"]);
    }
}
