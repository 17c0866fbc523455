//! Every recorded stream in `tests/fixtures/` through the native `Accumulator`: it matches its
//! `.expect.json`, and gives the same final message and the same event contents at every
//! split point, one byte at a time, and at 100 seeded random splits.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{check_expect, expect_of, pieces, random_cuts, STREAM_DIRS, STREAM_EXTENSIONS};
use llm_wire::{Accumulator, AccumulatorOptions, FinalMessage, Format, StreamEvent, Usage};

/// The events of a stream concatenated per kind (coalescing may differ between splits, the
/// contents may not), the last usage (one per push, so how many depends on the split), and every
/// other event in order.
#[derive(Debug, Default, PartialEq)]
struct Digest {
    text: Vec<String>,
    reasoning: Vec<String>,
    arguments: Vec<Vec<String>>,
    usage: Option<Usage>,
    others: Vec<StreamEvent>,
}

impl Digest {
    fn add(&mut self, event: &StreamEvent) {
        fn slot<T: Default>(v: &mut Vec<T>, i: usize) -> &mut T {
            if v.len() <= i {
                v.resize_with(i + 1, T::default);
            }
            &mut v[i]
        }
        match event {
            StreamEvent::Text { text, choice } => slot(&mut self.text, *choice as usize).push_str(text),
            StreamEvent::Reasoning { text, choice } => slot(&mut self.reasoning, *choice as usize).push_str(text),
            StreamEvent::ToolCallDelta { index, arguments_delta, choice } => {
                slot(slot(&mut self.arguments, *choice as usize), *index as usize).push_str(arguments_delta)
            }
            StreamEvent::Usage { usage } => self.usage = Some(usage.clone()),
            other => self.others.push(other.clone()),
        }
    }
}

fn fixtures_of(dirs: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for dir in dirs {
        for entry in fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| STREAM_EXTENSIONS.iter().any(|x| e == *x)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn name(path: &Path) -> String {
    let dir = path.parent().unwrap().file_name().unwrap().to_string_lossy();
    format!("{dir}/{}", path.file_name().unwrap().to_string_lossy())
}

/// Runs `pieces` through an accumulator: the final message and the event digest.
fn run(pieces: &[&[u8]], format: Format) -> (FinalMessage, Digest) {
    let mut acc = Accumulator::new(AccumulatorOptions { format, ..Default::default() });
    let mut digest = Digest::default();
    for piece in pieces {
        for event in acc.push(piece).expect("fixtures stay within the limits") {
            digest.add(event);
        }
    }
    for event in acc.flush() {
        digest.add(event);
    }
    (acc.finish(), digest)
}

fn dirs_of_format(format: &str) -> Vec<&'static str> {
    STREAM_DIRS.iter().filter(|(_, f)| *f == format).map(|(d, _)| *d).collect()
}

fn format_named(format: &str) -> Format {
    Format::from_name(format).unwrap()
}

fn check_split_invariance(format: &str, every_cut: bool) {
    let fixtures = fixtures_of(&dirs_of_format(format));
    assert!(!fixtures.is_empty(), "no {format} fixtures");
    for path in fixtures {
        let body = fs::read(&path).unwrap();
        let name = name(&path);
        for format in [format_named(format), Format::Auto] {
            let whole = run(&[&body], format);
            let bytewise: Vec<&[u8]> = body.chunks(1).collect();
            assert!(run(&bytewise, format) == whole, "{name} ({format:?}) differs fed one byte at a time");
            for seed in 0..100 {
                let cuts = random_cuts(body.len(), seed);
                assert!(
                    run(&pieces(&body, &cuts), format) == whole,
                    "{name} ({format:?}) differs at random split seed {seed}: cuts {cuts:?}"
                );
            }
        }
        if every_cut {
            // Every single cut, with the format given; both cores share the cuts.
            let format = format_named(format);
            let whole = run(&[&body], format);
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            std::thread::scope(|scope| {
                for t in 0..threads {
                    let (body, whole, name) = (&body, &whole, &name);
                    scope.spawn(move || {
                        for cut in (t..=body.len()).step_by(threads) {
                            let (a, b) = body.split_at(cut);
                            assert!(
                                run(&[a, b], format) == *whole,
                                "{name} ({format:?}) differs when cut at byte {cut}"
                            );
                        }
                    });
                }
            });
        }
    }
}

fn check_expectations(format: &str) {
    let mut checked = 0;
    for path in fixtures_of(&dirs_of_format(format)) {
        let expect_path = path.with_extension("expect.json");
        let Ok(expect) = fs::read_to_string(&expect_path) else { continue };
        let expect = expect_of(format, serde_json::from_str(&expect).unwrap());
        let (message, _) = run(&[&fs::read(&path).unwrap()], format_named(format));
        let message = serde_json::to_value(message).unwrap();
        if let Err(why) = check_expect(&message, &expect) {
            panic!("{}: {why}\nfinal message: {message:#}", name(&path));
        }
        checked += 1;
    }
    assert!(checked > 0, "no expectations checked for {format}");
}

#[test]
fn every_openai_chat_fixture_matches_its_expectations() {
    check_expectations("openai-chat");
}

#[test]
fn every_openai_chat_fixture_gives_one_message_at_every_split() {
    check_split_invariance("openai-chat", true);
}

#[test]
fn every_anthropic_fixture_matches_its_expectations() {
    check_expectations("anthropic");
}

#[test]
fn every_anthropic_fixture_gives_one_message_at_every_split() {
    check_split_invariance("anthropic", true);
}

#[test]
fn every_openai_responses_fixture_matches_its_expectations() {
    check_expectations("openai-responses");
}

#[test]
fn every_openai_responses_fixture_gives_one_message_at_every_split() {
    check_split_invariance("openai-responses", true);
}

#[test]
fn every_bedrock_fixture_matches_its_expectations() {
    check_expectations("bedrock");
}

#[test]
fn every_bedrock_fixture_gives_one_message_at_every_split() {
    check_split_invariance("bedrock", true);
}

#[test]
fn every_gemini_and_vertex_fixture_matches_its_expectations() {
    check_expectations("gemini");
}

#[test]
fn every_gemini_and_vertex_fixture_gives_one_message_at_every_split() {
    check_split_invariance("gemini", true);
}

#[test]
fn auto_detection_picks_the_format_of_every_stream_fixture() {
    for (dir, format) in STREAM_DIRS {
        for path in fixtures_of(&[dir]) {
            let mut acc = Accumulator::new(AccumulatorOptions::default());
            acc.push(&fs::read(&path).unwrap()).unwrap();
            assert_eq!(acc.format(), format_named(format), "{}", name(&path));
        }
    }
}

/// Fixture directories recorded for formats the crate does not read yet; their suites come
/// with their readers, which take them off this list.
const NOT_READ_YET: [&str; 0] = [];

#[test]
fn every_fixture_directory_is_known_to_the_suites() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let has_streams = fs::read_dir(&path)
            .unwrap()
            .any(|e| e.unwrap().path().extension().is_some_and(|x| STREAM_EXTENSIONS.iter().any(|s| x == *s)));
        let dir = path.file_name().unwrap().to_string_lossy().into_owned();
        let run = common::format_of(&dir).is_some();
        assert!(!(run && NOT_READ_YET.contains(&dir.as_str())), "{dir} is read now: take it off NOT_READ_YET");
        if has_streams && !NOT_READ_YET.contains(&dir.as_str()) {
            assert!(run, "{dir} holds streams but no suite runs them");
        }
    }
}

#[test]
fn the_wasm_suite_embeds_every_stream_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let listed = fs::read_to_string(root.join("wasm_fixtures.rs")).unwrap();
    for path in fixtures_of(&STREAM_DIRS.iter().map(|(d, _)| *d).collect::<Vec<_>>()) {
        let stem = name(&path);
        let (stem, extension) = stem.rsplit_once('.').unwrap();
        let has_expect = path.with_extension("expect.json").exists();
        // An SSE entry names no extension; an event-stream one ends with `, eventstream`.
        let entry = match extension {
            "sse" => format!("fixture!(\"{stem}\", {has_expect})"),
            other => format!("fixture!(\"{stem}\", {has_expect}, {other})"),
        };
        assert!(listed.contains(&entry), "tests/wasm_fixtures.rs does not list {entry}");
    }
}
