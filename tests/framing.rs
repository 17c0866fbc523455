//! The framings below the format decoders (`llm_wire::framing`): the AWS event stream against
//! Bedrock's recordings and hand-made messages, streamed JSON arrays built from the Gemini and
//! Vertex recordings, detection, and hostile input. Every stream is decoded whole, one byte at
//! a time, cut at every point and in seeded random pieces, and must decode the same each way.

mod common;
#[path = "framing/encoder.rs"]
mod encoder;
#[path = "framing/event_stream.rs"]
mod event_stream;
#[path = "framing/frame_decoder.rs"]
mod frame_decoder;
#[path = "framing/json_array.rs"]
mod json_array;

use std::path::{Path, PathBuf};

use common::{pieces, random_cuts};
use llm_wire::Error;

/// The recordings in `dir` (under `tests/fixtures`) whose name ends with `suffix`, sorted.
fn recordings(dir: &str, suffix: &str) -> Vec<(String, Vec<u8>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no {suffix} files in {dir}");
    files
        .into_iter()
        .map(|p| (format!("{dir}/{}", p.file_name().unwrap().to_str().unwrap()), std::fs::read(&p).unwrap()))
        .collect()
}

/// The ways a body of `len` bytes is cut: whole, one byte at a time, 64 seeded random cuttings
/// (1 to 64 pieces), and when `every_point`, in two at every point.
fn cuttings(len: usize, every_point: bool) -> Vec<Vec<usize>> {
    let mut all = vec![vec![], (1..len).collect()];
    all.extend((0..64).map(|seed| random_cuts(len, seed)));
    if every_point {
        all.extend((0..=len).map(|cut| vec![cut]));
    }
    all
}

/// Runs `decode` on `body` cut every way and checks each gives what the whole body gives.
/// Returns that.
fn same_at_every_split<T: PartialEq + std::fmt::Debug>(name: &str, body: &[u8], decode: &dyn Fn(&[&[u8]]) -> T) -> T {
    same_when_cut(name, body, decode, true)
}

/// [`same_at_every_split`] without the cuts at every point, for what another test already
/// cuts at every point.
fn same_at_random_splits<T: PartialEq + std::fmt::Debug>(name: &str, body: &[u8], decode: &dyn Fn(&[&[u8]]) -> T) -> T {
    same_when_cut(name, body, decode, false)
}

fn same_when_cut<T: PartialEq + std::fmt::Debug>(
    name: &str,
    body: &[u8],
    decode: &dyn Fn(&[&[u8]]) -> T,
    every_point: bool,
) -> T {
    let whole = decode(&[body]);
    for cuts in cuttings(body.len(), every_point) {
        let got = decode(&pieces(body, &cuts));
        if got != whole {
            panic!("{name}: cut at {cuts:?} gives\n{got:?}\nwhole gives\n{whole:?}");
        }
    }
    whole
}

/// One call into a decoder: a piece to feed, or `None` to finish.
type Step<'a> = dyn FnMut(Option<&[u8]>) -> Result<(), Error> + 'a;

/// Feeds `pieces` through `step`, then finishes, until an error, and returns it after checking
/// that the decoder refuses more input and a finish with it.
fn run_to_end(pieces: &[&[u8]], step: &mut Step<'_>) -> Option<Error> {
    let mut outcome = Ok(());
    for piece in pieces {
        outcome = step(Some(piece));
        if outcome.is_err() {
            break;
        }
    }
    let err = outcome.and_then(|_| step(None)).err()?;
    assert_eq!(step(Some(b"[1]\0\0\0\x10data: x\n\n")).unwrap_err(), err, "input after an error");
    assert_eq!(step(None).unwrap_err(), err, "a finish after an error");
    Some(err)
}
