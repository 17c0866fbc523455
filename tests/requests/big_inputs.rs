//! Large inputs of every shape the request side reads: each holds 100,000 of something (tools,
//! properties, required names, bindings, messages, MCP tools and allowed names, OpenAPI
//! operations, refs and parameters, headers), in an order that makes a sorted insert or a scan
//! per item quadratic. Each must build, and build right; a quadratic step would not finish.
//! They go through `build_request` alone (the path the wasm exports take): the other suites
//! check that both paths agree, and these inputs are slow to copy in a debug build.

use llm_wire::{build_request, Agent, Message, RequestOptions};

const N: usize = 100_000;

#[test]
fn a_hundred_thousand_extra_headers_are_each_sent_once_the_last_of_a_name_winning() {
    let agent = Agent::new("m");
    let mut headers: Vec<(String, String)> = (0..N).rev().map(|i| (format!("X-H{i}"), format!("{i}"))).collect();
    // The same names again in lower case, and one built header replaced.
    headers.extend((0..N).map(|i| (format!("x-h{i}"), format!("again {i}"))));
    headers.push(("user-agent".into(), "mine".into()));
    let options = RequestOptions { base_url: Some("http://x".into()), headers, ..Default::default() };
    let request = build_request(&agent, &[Message::new("user", "hi")], &options).unwrap();
    assert_eq!(request.headers.len(), 1 + N + 1);
    assert_eq!(request.headers[0], ("Content-Type".to_owned(), "application/json".to_owned()));
    assert_eq!(request.headers[1], ("x-h0".to_owned(), "again 0".to_owned()));
    assert_eq!(request.headers[N], (format!("x-h{}", N - 1), format!("again {}", N - 1)));
    assert_eq!(request.headers[N + 1], ("user-agent".to_owned(), "mine".to_owned()));
}
