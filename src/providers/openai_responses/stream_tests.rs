//! Stream rules of `output_item.*` items and of the items' lookups, on hand-made events.

use crate::{Accumulator, AccumulatorOptions, Block, FinalMessage, Format};

/// The message of a stream of these events' data, unfinished (no `response.completed`).
fn stream(events: &[&[u8]]) -> FinalMessage {
    let mut body = Vec::new();
    for data in events {
        body.extend_from_slice(b"data: ");
        body.extend_from_slice(data);
        body.extend_from_slice(b"\n\n");
    }
    let mut acc = Accumulator::new(AccumulatorOptions { format: Format::OpenAiResponses, ..Default::default() });
    acc.push(&body).unwrap();
    acc.finish()
}

/// An `output_item.done` event at output index 0 with this item text.
fn item_done(item: &[u8]) -> Vec<u8> {
    let mut data = br#"{"type":"response.output_item.done","output_index":0,"item": "#.to_vec();
    data.extend_from_slice(item);
    data.extend_from_slice(b" }");
    data
}

/// Where `part` first starts in `data`.
fn at(data: &[u8], part: &[u8]) -> usize {
    data.windows(part.len()).position(|w| w == part).unwrap()
}

/// An item is read once, where it is: one the stream cannot read as an item is kept whole with
/// exactly its text, and one that is not JSON refuses its event with the error of the first
/// fault in it, as a check of the whole item gives it, whether or not the fault is in a field
/// that is read, or after a field that already made the item unreadable.
#[test]
fn an_item_is_kept_whole_or_refused_by_its_whole_text() {
    // (item text, the kept block's type, or the error and the text of the item it is at)
    type Case = (&'static [u8], Result<&'static str, (&'static str, &'static [u8])>);
    let cases: [Case; 7] = [
        (br#"{"type": "message", "content": 5}"#, Ok("unknown")),
        (br#"[1, {"type": "message"}]"#, Ok("unknown")),
        (br#"{"type": "message", "content": [{"type": "output_text", "annotations": {}}]}"#, Ok("unknown")),
        (br#"{"type":"web_search_call","id":"ws_1","status":"completed"}"#, Ok("web_search_call")),
        (b"{\"type\":\"web_search_call\",\"status\":\"\xff\"}", Err(("invalid UTF-8", b"{"))),
        (b"{\"type\":\"function_call\",\"id\":\"\xff\"}", Err(("invalid UTF-8", b"{"))),
        (br#"{"type": "message", "content": 5, "x": tru}"#, Err(("expected a value", b"tru"))),
    ];
    for (item, expected) in cases {
        let data = item_done(item);
        let m = stream(&[&data]);
        let shown = String::from_utf8_lossy(item);
        match expected {
            Ok(kind) => {
                assert_eq!(m.error, None, "{shown}");
                let [Block::Other { provider_type, data: kept }] = &m.content[..] else { panic!("{shown}: {m:?}") };
                assert_eq!((provider_type.as_str(), kept.get().as_bytes()), (kind, item), "{shown}");
            }
            Err((what, part)) => {
                let byte = at(&data, item) + at(item, part);
                let message = format!("a stream event is not valid JSON: {what} at byte {byte}");
                assert_eq!(m.error.map(|e| e.message), Some(message), "{shown}");
                assert!(m.content.is_empty(), "{shown}");
            }
        }
    }
}

#[test]
fn a_null_item_adds_nothing() {
    let m = stream(&[&item_done(b"null")]);
    assert_eq!((m.error, m.content.len()), (None, 0));
}

/// The item named last is found without a search: naming items in turn must still mark each
/// part on its own item, so that each done event adds no text its deltas gave.
#[test]
fn parts_of_items_named_in_turn_are_marked_on_their_own_item() {
    let m = stream(&[
        br#"{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m_a","content":[]}}"#,
        br#"{"type":"response.output_text.delta","item_id":"m_a","output_index":0,"content_index":0,"delta":"a"}"#,
        br#"{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"m_b","content":[]}}"#,
        br#"{"type":"response.output_text.delta","item_id":"m_b","output_index":1,"content_index":0,"delta":"b"}"#,
        br#"{"type":"response.output_text.delta","item_id":"m_a","output_index":0,"content_index":1,"delta":"c"}"#,
        br#"{"type":"response.output_item.done","output_index":1,"item":{"type":"message","id":"m_b","content":[{"type":"output_text","text":"b"}]}}"#,
        br#"{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"m_a","content":[{"type":"output_text","text":"a"},{"type":"output_text","text":"c"}]}}"#,
    ]);
    assert_eq!(m.text, "abc");
}

/// Calls are found by their item id, the latest call with each: a call whose id an earlier
/// call had takes the id's deltas from then on, even right after the earlier call was named.
#[test]
fn arguments_go_to_the_latest_call_with_their_item_id() {
    let added = |index: u32, call: &str| {
        format!(
            r#"{{"type":"response.output_item.added","output_index":{index},"item":{{"type":"function_call","id":"fc_1","call_id":"{call}","name":"f","arguments":""}}}}"#
        )
    };
    let delta = |delta: &str| {
        format!(r#"{{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{delta}"}}"#)
    };
    let events = [added(0, "call_a"), delta("1"), added(1, "call_b"), delta("2")];
    let events: Vec<&[u8]> = events.iter().map(|e| e.as_bytes()).collect();
    let m = stream(&events);
    let calls: Vec<(&str, &str)> = m.tool_calls.iter().map(|c| (c.id.as_str(), c.arguments.as_str())).collect();
    assert_eq!(calls, [("call_a", "1"), ("call_b", "2")]);
}
