//! Live partial JSON in the accumulator (docs/design.md, "Streaming"): one incremental reader
//! per streamed tool call, fed by its argument deltas, and one per choice for the answer text
//! when the agent has `outputs`. Each byte is read once, whatever the splits; the builder turns
//! what a piece changed into a `tool_call_partial` or `output_partial` event.

use crate::error::Error;
use crate::model::Property;
use crate::partial_json::{Change, Parser, PartialOptions};

/// What the builder reads as it streams, set once from the accumulator's options.
#[derive(Debug, Default)]
pub(crate) struct LiveOptions {
    /// Tool-call arguments are read (`partial_json`).
    pub(crate) calls: bool,
    /// The answer text is read as the structured output, leniently and checked against these
    /// properties; `None` without `partial_json` or without outputs.
    pub(crate) output: Option<PartialOptions>,
}

impl LiveOptions {
    pub(crate) fn new(partial_json: bool, outputs: &[Property]) -> Self {
        let output =
            (partial_json && !outputs.is_empty()).then(|| PartialOptions { lenient: true, outputs: outputs.to_vec() });
        LiveOptions { calls: partial_json, output }
    }
}

/// One reader and where it is.
pub(crate) struct Feed {
    parser: Parser,
    /// Something was read: ending an empty feed reports nothing.
    fed: bool,
    /// It failed (reported once) or ended: later text is not read.
    stopped: bool,
    /// What the reader kept at the last count, as counted against `maxMessageBytes`.
    pub(crate) kept: usize,
    /// Closes read since the last event: they change no value, so they wait for the next
    /// change that does (an event comes only when the value changed).
    closes: usize,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed").field("fed", &self.fed).field("stopped", &self.stopped).finish()
    }
}

/// What a piece did: the changes it made, or the error to report (once).
pub(crate) enum Fed {
    Changes(Vec<Change>),
    Failed(Error),
}

impl Feed {
    pub(crate) fn new(options: &PartialOptions) -> Self {
        Feed { parser: Parser::new(options), fed: false, stopped: false, kept: 0, closes: 0 }
    }

    /// Reads the next piece.
    pub(crate) fn push(&mut self, text: &str) -> Fed {
        if self.stopped {
            return Fed::Changes(Vec::new());
        }
        self.fed = true;
        let mut changes = Vec::new();
        match self.parser.push(text.as_bytes(), &mut changes) {
            Ok(()) => Fed::Changes(self.visible(changes)),
            Err(error) => self.fail(error),
        }
    }

    /// Ends the text (once): the last changes (a top-level number completes), or the error when
    /// the text read is not complete JSON. Nothing for a feed that read nothing.
    pub(crate) fn finish(&mut self) -> Fed {
        if self.stopped || !self.fed {
            self.stop();
            return Fed::Changes(Vec::new());
        }
        let mut changes = Vec::new();
        let result = self.parser.finish(&mut changes);
        self.stop();
        match result {
            Ok(()) => Fed::Changes(self.visible(changes)),
            Err(error) => Fed::Failed(error),
        }
    }

    /// The changes to send: none when they only close containers (held for the next ones),
    /// else the held closes first.
    fn visible(&mut self, changes: Vec<Change>) -> Vec<Change> {
        if changes.iter().all(|c| matches!(c, Change::Close)) {
            self.closes += changes.len();
            return Vec::new();
        }
        let held = std::mem::take(&mut self.closes);
        if held == 0 {
            return changes;
        }
        std::iter::repeat(Change::Close).take(held).chain(changes).collect()
    }

    /// What the reader keeps now.
    pub(crate) fn kept_now(&self) -> usize {
        self.parser.kept_bytes()
    }

    fn fail(&mut self, error: Error) -> Fed {
        self.stop();
        Fed::Failed(error)
    }

    /// Later text is not read, and what the reader kept goes back to the allocator.
    fn stop(&mut self) {
        self.stopped = true;
        self.parser = Parser::new(&PartialOptions::default());
    }
}
