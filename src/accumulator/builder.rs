//! The message builder every stream format feeds: it keeps the message in Rust (blocks in stream
//! order, tool calls, usage, finish, error) and produces the normalised events of one `push`.
//!
//! Consecutive text, reasoning and argument deltas of one push are coalesced into one event;
//! everything else about the events and the final message is independent of how the bytes were
//! split, because the builder only ever sees whole SSE events.

use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use super::live::{Fed, Feed, LiveOptions};
use super::think::{Part, ThinkSplitter};
use super::tool_calls::{call_id_stem, ToolCallState, ToolCalls};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Block, ErrorInfo, FinalMessage, FinishReason, Outcome, RawJson, StreamEvent, ToolCall, Usage};
use crate::providers::template::same_bytes;
use crate::Limits;

/// What one entry the builder or a decoder keeps (a choice, a block, a tool call, a citation,
/// a stream item) counts against `maxMessageBytes` besides its strings: about what its
/// bookkeeping takes in the wasm module (a choice takes twice that on a 64-bit target), so that
/// a stream of empty entries is bounded too.
pub(crate) const ENTRY_BYTES: usize = 128;

#[derive(Debug, Default)]
struct ChoiceState {
    index: u32,
    /// The content in stream order, as the final message's blocks. A tool call's block stays
    /// empty until the message is built: the k-th one is call k of `calls`.
    blocks: Vec<Block>,
    /// The next text or reasoning starts a block of its own (Anthropic block boundaries).
    break_block: bool,
    calls: ToolCalls,
    finish: Option<(FinishReason, String)>,
    refusal: String,
    splitter: ThinkSplitter,
    /// Listed in `MessageBuilder::to_end`: it got something that ending it acts on (content
    /// that may hold back text, a tool call, a refusal).
    to_end: bool,
    /// The kind of the text or reasoning block that got deltas and has not ended yet.
    open_part: Option<Part>,
    /// Live partial JSON: the reader of each tool call (by its position), and of the text.
    live_calls: Vec<Feed>,
    /// Boxed: most choices have none, and a choice is kept per index seen.
    live_output: Option<Box<Feed>>,
    /// The `reasoning_details` index of the last block, when that block came from one.
    detail_index: Option<u64>,
}

/// One entry of a chat delta's `reasoning_details` (OpenRouter, Vercel AI Gateway), its
/// absent strings empty.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReasoningDetail<'a> {
    pub(crate) index: u64,
    pub(crate) format: &'a str,
    /// A `reasoning.text`'s text or a `reasoning.summary`'s summary.
    pub(crate) text: &'a str,
    pub(crate) signature: &'a str,
    /// A `reasoning.encrypted`'s data.
    pub(crate) data: &'a str,
    pub(crate) id: &'a str,
}

/// A delta or tool-call-end event whose string is at least [`LEND`] bytes: the event is pushed
/// with its string empty, and the string is the bytes `start..end` of a block's text or a
/// call's arguments until [`MessageBuilder::fill_lent`] copies them in. The copy is made once
/// the input buffers of the push are gone, or never (the wasm module reads it from the message),
/// so one large event is not held three times at once (docs/design.md, "Speed, size and memory").
#[derive(Debug, Clone, Copy)]
struct Lent {
    event: usize,
    source: Source,
    start: usize,
    end: usize,
}

/// Where a lent string is kept: a block of a choice, or a tool call of a choice (positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Block(usize, usize),
    Call(usize, usize),
}

/// Event strings at least this long are lent rather than copied.
const LEND: usize = 64 * 1024;

/// What a live partial JSON reader reads next.
#[derive(Debug, Clone, Copy)]
enum Piece<'a> {
    /// Text the message copied.
    Text(&'a str),
    /// A block's text or a call's arguments that the message took whole, as it was decoded.
    Taken(Source),
    /// The end of the text.
    End,
}

/// What was just appended to a block or call, for its delta event: the bytes, or how many when
/// the block or call took a long string as it is (then at least [`LEND`]: the event lends them).
#[derive(Clone, Copy)]
enum Added<'s> {
    Bytes(&'s str),
    Taken(usize),
}

#[derive(Debug)]
pub(crate) struct MessageBuilder {
    limits: Limits,
    pub(crate) events: Vec<StreamEvent>,
    /// The events of `events` whose long string is still only in the message (see [`Lent`]).
    lent: Vec<Lent>,
    /// The choices in the order they first appeared.
    choices: Vec<ChoiceState>,
    /// The position in `choices` of each choice index (keyed as `u64`: the one integer-keyed map
    /// type the stream code uses).
    positions: BTreeMap<u64, usize>,
    /// The position of the choice looked up last: nearly every lookup is for it again.
    last: usize,
    /// How many choices have no finish reason yet.
    unfinished: usize,
    /// Positions of the choices that ending every choice must visit (see `ChoiceState::to_end`).
    to_end: Vec<usize>,
    started: bool,
    id: Option<String>,
    /// The stem of invented call ids, from `id` ([`call_id_stem`]).
    call_stem: String,
    model: Option<String>,
    provider: Option<String>,
    usage: UsageSoFar,
    /// The usage changed since the last `usage` event (see [`MessageBuilder::send_usage`]).
    usage_unsent: bool,
    error: Option<ErrorInfo>,
    done: bool,
    flushed: bool,
    /// Bytes kept for the message so far, held to `maxMessageBytes` (see [`Limits`]).
    kept: usize,
    live: LiveOptions,
}

/// The usage a stream has reported so far (see [`MessageBuilder::set_usage_text`]).
enum UsageSoFar {
    None,
    Made(Usage),
    Text { raw: String, make: fn(&str) -> Option<Usage> },
}

/// Shown as the usage it is, whether made yet or not: the two are the same state.
impl std::fmt::Debug for UsageSoFar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl UsageSoFar {
    /// Its JSON text.
    fn raw(&self) -> Option<&str> {
        match self {
            UsageSoFar::None => None,
            UsageSoFar::Made(usage) => Some(usage.raw.get()),
            UsageSoFar::Text { raw, .. } => Some(raw),
        }
    }

    fn is(&self, usage: &Usage) -> bool {
        match self {
            UsageSoFar::None => false,
            UsageSoFar::Made(made) => made == usage,
            UsageSoFar::Text { raw, make } => make(raw).as_ref() == Some(usage),
        }
    }

    fn get(&self) -> Option<Usage> {
        match self {
            UsageSoFar::None => None,
            UsageSoFar::Made(usage) => Some(usage.clone()),
            UsageSoFar::Text { raw, make } => make(raw),
        }
    }
}

impl MessageBuilder {
    pub(crate) fn new(limits: Limits, provider: Option<String>) -> Self {
        MessageBuilder {
            limits,
            events: Vec::new(),
            lent: Vec::new(),
            choices: Vec::new(),
            positions: BTreeMap::new(),
            last: 0,
            unfinished: 0,
            to_end: Vec::new(),
            started: false,
            id: None,
            call_stem: String::new(),
            model: None,
            provider,
            usage: UsageSoFar::None,
            usage_unsent: false,
            error: None,
            done: false,
            flushed: false,
            kept: 0,
            live: LiveOptions::default(),
        }
    }

    /// Turns live partial JSON on for what `live` names (before the first event).
    pub(crate) fn set_live(&mut self, live: LiveOptions) {
        self.live = live;
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Counts `n` more bytes kept for the message; past `maxMessageBytes` nothing is counted and
    /// the caller must not keep them.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn keep(&mut self, n: usize) -> Result<()> {
        keep_in(&mut self.kept, &self.limits, n)
    }

    /// `n` bytes counted by [`Self::keep`] are no longer kept.
    pub(crate) fn release(&mut self, n: usize) {
        self.kept = self.kept.saturating_sub(n);
    }

    /// How many messages [`Self::build`] writes for `choices` choices: one, or with several
    /// the first choice's on top and one per choice in `choices`.
    fn messages(choices: usize) -> usize {
        if choices > 1 {
            choices + 1
        } else {
            1
        }
    }

    fn messages_now(&self) -> usize {
        Self::messages(self.choices.len())
    }

    /// The bytes every message repeats: id, model, provider, usage and error.
    fn shared_bytes(&self) -> usize {
        let strings = [&self.id, &self.model, &self.provider].into_iter().flatten().map(String::len).sum::<usize>();
        let usage = self.usage.raw().map_or(0, str::len);
        strings + usage + self.error.as_ref().map_or(0, error_bytes)
    }

    /// Counts `n` more bytes of what every message repeats, once per message.
    fn keep_shared(&mut self, n: usize) -> Result<()> {
        self.keep(n.saturating_mul(self.messages_now()))
    }

    /// Records the message id, model and provider (first non-empty value wins) and emits the
    /// `start` event the first time it is called.
    pub(crate) fn start(&mut self, id: Option<&str>, model: Option<&str>, provider: Option<&str>) -> Result<()> {
        fn new_value<'v>(slot: &Option<String>, value: Option<&'v str>) -> Option<&'v str> {
            value.filter(|v| slot.is_none() && !v.is_empty())
        }
        let (id, model, provider) =
            (new_value(&self.id, id), new_value(&self.model, model), new_value(&self.provider, provider));
        self.keep_shared([id, model, provider].iter().flatten().map(|v| v.len()).sum())?;
        for (slot, value) in [(&mut self.id, id), (&mut self.model, model), (&mut self.provider, provider)] {
            if let Some(value) = value {
                *slot = Some(value.to_owned());
            }
        }
        if let Some(id) = id {
            self.call_stem = call_id_stem(id);
        }
        if !self.started {
            self.started = true;
            self.events.push(StreamEvent::Start {
                id: self.id.clone(),
                model: self.model.clone(),
                provider: self.provider.clone(),
            });
        }
        Ok(())
    }

    /// The position of choice `index`, when it has appeared.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn position(&mut self, index: u32) -> Option<usize> {
        if self.choices.get(self.last).is_some_and(|c| c.index == index) {
            return Some(self.last);
        }
        let at = *self.positions.get(&u64::from(index))?;
        self.last = at;
        Some(at)
    }

    /// The position of choice `index`, which appears now if it had not.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn position_or_new(&mut self, index: u32) -> Result<usize> {
        if self.choices.get(self.last).is_some_and(|c| c.index == index) {
            return Ok(self.last);
        }
        // What a new choice costs is known before the search, so that one search both finds a
        // choice and places a new one: each choice's message repeats what the message shares,
        // once there are several.
        let copies = Self::messages(self.choices.len() + 1) - self.messages_now();
        let cost = ENTRY_BYTES + copies * self.shared_bytes();
        let at = match self.positions.entry(u64::from(index)) {
            Entry::Occupied(found) => *found.get(),
            Entry::Vacant(place) => {
                keep_in(&mut self.kept, &self.limits, cost)?;
                let at = *place.insert(self.choices.len());
                self.choices.push(ChoiceState { index, ..ChoiceState::default() });
                self.unfinished += 1;
                at
            }
        };
        self.last = at;
        Ok(at)
    }

    /// Choice `index`, which appears now if it had not.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn choice(&mut self, index: u32) -> Result<&mut ChoiceState> {
        let at = self.position_or_new(index)?;
        Ok(&mut self.choices[at])
    }

    /// Choice `index` when it has appeared.
    fn existing(&mut self, index: u32) -> Option<&mut ChoiceState> {
        let at = self.position(index)?;
        Some(&mut self.choices[at])
    }

    /// Lists the choice at `at` for [`Self::end_all_choices`].
    fn list_to_end(&mut self, at: usize) {
        if !std::mem::replace(&mut self.choices[at].to_end, true) {
            self.to_end.push(at);
        }
    }

    /// Appends answer text.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn text(&mut self, choice: u32, s: &str) -> Result<()> {
        self.append(choice, Part::Text, s)
    }

    /// Appends reasoning text.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn reasoning(&mut self, choice: u32, s: &str) -> Result<()> {
        self.append(choice, Part::Reasoning, s)
    }

    /// [`Self::text`] taking a string the decoder made (an unescaped one): see [`Self::append_taking`].
    pub(crate) fn text_taking(&mut self, choice: u32, s: Cow<'_, str>) -> Result<()> {
        self.append_taking(choice, Part::Text, s)
    }

    /// [`Self::reasoning`] taking a string the decoder made: see [`Self::append_taking`].
    pub(crate) fn reasoning_taking(&mut self, choice: u32, s: Cow<'_, str>) -> Result<()> {
        self.append_taking(choice, Part::Reasoning, s)
    }

    /// [`Self::tagged_content`] taking a string the decoder made: a long one the splitter would
    /// pass on whole (nothing held, no `<` in it) is appended without being copied.
    #[inline(always)]
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn tagged_content_taking(&mut self, choice: u32, s: Cow<'_, str>) -> Result<()> {
        if let (Cow::Owned(_), true) = (&s, s.len() >= LEND) {
            let at = self.position_or_new(choice)?;
            if let Some(part) = self.choices[at].splitter.passes_whole(&s) {
                self.list_to_end(at);
                return self.append_taking(choice, part, s);
            }
        }
        self.tagged_content(choice, &s)
    }

    /// Appends content that may carry inline thinking tags (OpenAI-compatible `content`).
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn tagged_content(&mut self, choice: u32, s: &str) -> Result<()> {
        let at = self.position_or_new(choice)?;
        self.list_to_end(at);
        let mut splitter = std::mem::take(&mut self.choices[at].splitter);
        let outcome = splitter.feed(s, &mut |part, piece| self.append(choice, part, piece));
        self.choices[at].splitter = splitter;
        outcome
    }

    #[inline(always)]
    #[cfg_attr(llw_speed, optimize(speed))]
    fn append(&mut self, choice: u32, part: Part, s: &str) -> Result<()> {
        self.append_taking(choice, part, Cow::Borrowed(s))
    }

    /// Appends text or reasoning. A long string the decoder made (`Cow::Owned`, an unescaped
    /// one) becomes a new block's text as it is rather than copied: with the event's bytes still
    /// live, a copy would hold the text three times at once (docs/design.md, "Speed, size and
    /// memory"). Live partial JSON then reads the text where the block holds it.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn append_taking(&mut self, choice: u32, part: Part, s: Cow<'_, str>) -> Result<()> {
        if s.is_empty() {
            return Ok(());
        }
        let at = self.position_or_new(choice)?;
        let state = &self.choices[at];
        let extend = !state.break_block
            && matches!(
                (state.blocks.last(), part),
                (Some(Block::Text { .. }), Part::Text)
                    | (Some(Block::Reasoning { redacted: None, id: None, .. }), Part::Reasoning)
            );
        self.keep(s.len() + if extend { 0 } else { ENTRY_BYTES })?;
        if !extend || self.choices[at].open_part != Some(part) {
            self.end_part(at);
            self.choices[at].open_part = Some(part);
            self.list_to_end(at);
        }
        let len = s.len();
        let take = len >= LEND && matches!(s, Cow::Owned(_));
        let state = &mut self.choices[at];
        state.break_block = false;
        let (end, s) = match (extend, state.blocks.last_mut()) {
            (true, Some(Block::Text { text, .. })) | (true, Some(Block::Reasoning { text, .. })) => {
                text.push_str(&s);
                (text.len(), Some(s))
            }
            _ => {
                let (block, s) = if take { (s.into_owned(), None) } else { (String::from(&*s), Some(s)) };
                state.blocks.push(match part {
                    Part::Text => Block::text(block),
                    Part::Reasoning => Block::reasoning(block),
                });
                (len, s)
            }
        };
        let source = Source::Block(at, self.choices[at].blocks.len() - 1);
        let event = match (self.last_delta_event(), part) {
            (Some((i, StreamEvent::Text { choice: c, .. })), Part::Text) if *c == choice => i,
            (Some((i, StreamEvent::Reasoning { choice: c, .. })), Part::Reasoning) if *c == choice => i,
            _ => {
                self.events.push(match part {
                    Part::Text => StreamEvent::Text { text: String::new(), choice },
                    Part::Reasoning => StreamEvent::Reasoning { text: String::new(), choice },
                });
                self.events.len() - 1
            }
        };
        let added = s.as_deref().map_or(Added::Taken(len), Added::Bytes);
        self.add_to_event(event, source, end, added);
        if part == Part::Text {
            let piece = s.as_deref().map_or(Piece::Taken(source), Piece::Text);
            self.live_read(at, None, piece)?;
        }
        Ok(())
    }

    /// The event that more text or arguments extend, with its position: the last one, or the
    /// one before it when the last is the partial value that one fed (so deltas still coalesce
    /// with partial JSON).
    fn last_delta_event(&self) -> Option<(usize, &StreamEvent)> {
        let n = self.events.len();
        let at = match self.events.last()? {
            StreamEvent::ToolCallPartial { .. } | StreamEvent::OutputPartial { .. } if n >= 2 => n - 2,
            _ => n - 1,
        };
        Some((at, &self.events[at]))
    }

    /// Adds what was just appended to `source` (now `end` bytes long) to the string of delta
    /// event `event`: the string is lent (see [`Lent`]) once it reaches [`LEND`] bytes. A delta
    /// event only ever gets what was appended to one source in a row, so its string is always
    /// that source's last bytes.
    // Inlined, as are the per-delta helpers around it: as calls they made a whole-body push
    // of 5,000 text deltas about 5% slower (native, 1.23 against 1.29 ms).
    #[inline(always)]
    #[cfg_attr(llw_speed, optimize(speed))]
    fn add_to_event(&mut self, event: usize, source: Source, end: usize, added: Added<'_>) {
        if let Some(lent) = self.lent.last_mut().filter(|lent| lent.event == event) {
            lent.end = end;
            return;
        }
        let Some(text) = event_string(&mut self.events[event]) else { return };
        let len = match added {
            Added::Bytes(s) if text.len() + s.len() < LEND => return text.push_str(s),
            Added::Bytes(s) => s.len(),
            Added::Taken(len) => len,
        };
        let start = end - text.len() - len;
        *text = String::new();
        self.lent.push(Lent { event, source, start, end });
    }

    /// The text of a block, or the arguments of a call, that a [`Lent`] names.
    fn source_text(&self, source: Source) -> &str {
        source_text(&self.choices, source)
    }

    /// Each event whose string is lent, by its position in `events`, with that string.
    pub(crate) fn lent(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        self.lent.iter().map(|lent| (lent.event, &self.source_text(lent.source)[lent.start..lent.end]))
    }

    /// Copies every lent string into its event: the events are then whole.
    pub(crate) fn fill_lent(&mut self) {
        for lent in std::mem::take(&mut self.lent) {
            let text = self.source_text(lent.source)[lent.start..lent.end].to_owned();
            if let Some(slot) = event_string(&mut self.events[lent.event]) {
                *slot = text;
            }
        }
    }

    /// Forgets the events of the last call, before the next one.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn clear_events(&mut self) {
        self.events.clear();
        self.lent.clear();
    }

    /// The text or reasoning block of the choice at `at` that got deltas has ended: its
    /// `text_end` or `reasoning_end`, once.
    fn end_part(&mut self, at: usize) {
        let choice = self.choices[at].index;
        match self.choices[at].open_part.take() {
            Some(Part::Text) => self.events.push(StreamEvent::TextEnd { choice }),
            Some(Part::Reasoning) => self.events.push(StreamEvent::ReasoningEnd { choice }),
            None => {}
        }
    }

    /// Reads `text` (or, with `None`, the end) with the live reader of call `call`, or of the
    /// answer text without a call; what it changed becomes a partial event (merged into the
    /// last one when that is for the same value), a failure an `error` event that leaves the
    /// message as it is. What the reader keeps counts against `maxMessageBytes`.
    fn live_read(&mut self, at: usize, call: Option<usize>, piece: Piece<'_>) -> Result<()> {
        let ChoiceState { index: choice, blocks, calls, live_calls, live_output, .. } = &mut self.choices[at];
        let choice = *choice;
        let feed = match (call, &self.live.output) {
            (Some(call), _) => live_calls.get_mut(call),
            (None, Some(options)) => Some(&mut **live_output.get_or_insert_with(|| Box::new(Feed::new(options)))),
            (None, None) => None,
        };
        let Some(feed) = feed else { return Ok(()) };
        let fed = match piece {
            Piece::Text(text) => feed.push(text),
            Piece::Taken(source) => feed.push(text_in(blocks, calls, source)),
            Piece::End => feed.finish(),
        };
        let now = feed.kept_now();
        let before = std::mem::replace(&mut feed.kept, now);
        if now > before {
            self.keep(now - before)?;
        } else {
            self.release(before - now);
        }
        let changes = match fed {
            Fed::Changes(changes) if changes.is_empty() => return Ok(()),
            Fed::Changes(changes) => changes,
            Fed::Failed(error) => {
                let what = match call {
                    Some(call) => format!("the arguments of tool call {call}"),
                    None => "the structured output".to_owned(),
                };
                let at_path = error.path.as_deref().map(|p| format!(" (at {p})")).unwrap_or_default();
                self.events.push(StreamEvent::Error {
                    error: ErrorInfo {
                        message: format!("{what}: {}{at_path}", error.message),
                        code: Some(error.code.as_str().to_owned()),
                        outcome: Outcome::Determinate,
                        retryable: Some(false),
                        provider_type: None,
                        provider_code: None,
                    },
                });
                return Ok(());
            }
        };
        match (self.events.last_mut(), call) {
            (Some(StreamEvent::ToolCallPartial { index, changes: last, choice: c }), Some(call))
                if *index as usize == call && *c == choice =>
            {
                last.extend(changes)
            }
            (Some(StreamEvent::OutputPartial { changes: last, choice: c }), None) if *c == choice => {
                last.extend(changes)
            }
            (_, Some(call)) => self.events.push(StreamEvent::ToolCallPartial { index: call as u32, changes, choice }),
            (_, None) => self.events.push(StreamEvent::OutputPartial { changes, choice }),
        }
        Ok(())
    }

    /// The next text or reasoning of `choice` opens a new block (a provider block boundary).
    /// A choice that has not appeared has no block to break from.
    pub(crate) fn break_block(&mut self, choice: u32) {
        if let Some(at) = self.position(choice) {
            self.choices[at].break_block = true;
            self.end_part(at);
        }
    }

    /// Adds to the signature of the current reasoning block (one is opened when there is none).
    pub(crate) fn reasoning_signature(&mut self, choice: u32, signature: &str) -> Result<()> {
        if signature.is_empty() {
            return Ok(());
        }
        let at = self.position_or_new(choice)?;
        let state = &self.choices[at];
        // After a block boundary the signature belongs to a new (still empty) reasoning block.
        let opens = state.break_block || !matches!(state.blocks.last(), Some(Block::Reasoning { redacted: None, .. }));
        self.keep(signature.len() + if opens { ENTRY_BYTES } else { 0 })?;
        if opens {
            self.end_part(at);
        }
        let state = &mut self.choices[at];
        let last = if std::mem::take(&mut state.break_block) { None } else { state.blocks.last_mut() };
        match last {
            Some(Block::Reasoning { signature: Some(sig), redacted: None, .. }) => sig.push_str(signature),
            Some(Block::Reasoning { signature: sig @ None, redacted: None, .. }) => *sig = Some(signature.to_owned()),
            _ => state.blocks.push(Block::Reasoning {
                text: String::new(),
                signature: Some(signature.to_owned()),
                redacted: None,
                id: None,
                encrypted_content: None,
                format: None,
            }),
        }
        self.events.push(StreamEvent::ReasoningSignature { signature: signature.to_owned(), choice });
        Ok(())
    }

    /// A `reasoning_details` entry: it continues the reasoning block of its `index` when that
    /// block is the last one, and opens one otherwise. Its text is reasoning; its signature and
    /// encrypted data are reported as `reasoning_signature`, as Anthropic's are.
    pub(crate) fn reasoning_detail(&mut self, choice: u32, detail: ReasoningDetail<'_>) -> Result<()> {
        let ReasoningDetail { index, format, text, signature, data, id } = detail;
        if text.is_empty() && signature.is_empty() && data.is_empty() && id.is_empty() {
            return Ok(());
        }
        let at = self.position_or_new(choice)?;
        let state = &self.choices[at];
        let last = if state.break_block || state.detail_index != Some(index) { None } else { state.blocks.last() };
        let (continues, has_id) = match last {
            Some(Block::Reasoning { format: Some(_), id: own, .. }) => (true, own.is_some()),
            _ => (false, false),
        };
        let new_id = if has_id { 0 } else { id.len() };
        let opens = if continues { 0 } else { ENTRY_BYTES + format.len() };
        self.keep(opens + text.len() + signature.len() + data.len() + new_id)?;
        // A new block ends the one before; text makes this one a reasoning block that will end.
        if !continues {
            self.end_part(at);
        }
        if !text.is_empty() && self.choices[at].open_part != Some(Part::Reasoning) {
            self.end_part(at);
            self.choices[at].open_part = Some(Part::Reasoning);
            self.list_to_end(at);
        }
        let state = &mut self.choices[at];
        if !continues {
            state.blocks.push(Block::Reasoning {
                text: String::new(),
                signature: None,
                redacted: None,
                id: None,
                encrypted_content: None,
                format: Some(format.to_owned()),
            });
            state.break_block = false;
            state.detail_index = Some(index);
        }
        if let Some(Block::Reasoning { text: own_text, signature: own_signature, redacted, id: own_id, .. }) =
            state.blocks.last_mut()
        {
            own_text.push_str(text);
            for (slot, piece) in [(own_signature, signature), (redacted, data)] {
                if !piece.is_empty() {
                    slot.get_or_insert_with(String::new).push_str(piece);
                }
            }
            if own_id.is_none() && !id.is_empty() {
                *own_id = Some(id.to_owned());
            }
        }
        if !text.is_empty() {
            let event = match self.events.last() {
                Some(StreamEvent::Reasoning { choice: c, .. }) if *c == choice => self.events.len() - 1,
                _ => {
                    self.events.push(StreamEvent::Reasoning { text: String::new(), choice });
                    self.events.len() - 1
                }
            };
            let source = Source::Block(at, self.choices[at].blocks.len() - 1);
            let end = self.source_text(source).len();
            self.add_to_event(event, source, end, Added::Bytes(text));
        }
        for piece in [signature, data].into_iter().filter(|piece| !piece.is_empty()) {
            self.events.push(StreamEvent::ReasoningSignature { signature: piece.to_owned(), choice });
        }
        Ok(())
    }

    /// A signature on the current text block (Gemini's `thoughtSignature`). A block that has one
    /// already, or none to put it on, gives way to a new empty text block that carries it: two
    /// signed parts are never joined.
    pub(crate) fn text_signature(&mut self, choice: u32, signature: &str) -> Result<()> {
        if signature.is_empty() {
            return Ok(());
        }
        let at = self.position_or_new(choice)?;
        let state = &self.choices[at];
        let opens = state.break_block || !matches!(state.blocks.last(), Some(Block::Text { signature: None, .. }));
        self.keep(signature.len() + if opens { ENTRY_BYTES } else { 0 })?;
        if opens {
            self.end_part(at);
        }
        let state = &mut self.choices[at];
        state.break_block = false;
        match state.blocks.last_mut() {
            Some(Block::Text { signature: slot @ None, .. }) if !opens => *slot = Some(signature.to_owned()),
            _ => state.blocks.push(Block::Text {
                text: String::new(),
                citations: None,
                signature: Some(signature.to_owned()),
            }),
        }
        Ok(())
    }

    /// A signature on the tool call begun last in `choice` (Gemini's `thoughtSignature` on a
    /// `functionCall` part); nothing when the choice's last block is not a call.
    pub(crate) fn tool_call_signature(&mut self, choice: u32, signature: &str) -> Result<()> {
        if signature.is_empty() {
            return Ok(());
        }
        let Some(at) = self.position(choice) else { return Ok(()) };
        if !matches!(self.choices[at].blocks.last(), Some(Block::ToolCall { .. })) {
            return Ok(());
        }
        self.keep(signature.len())?;
        if let Some(Block::ToolCall { signature: slot, .. }) = self.choices[at].blocks.last_mut() {
            *slot = Some(signature.to_owned());
        }
        Ok(())
    }

    /// How many blocks `choice` has so far.
    pub(crate) fn block_count(&mut self, choice: u32) -> usize {
        self.existing(choice).map_or(0, |state| state.blocks.len())
    }

    /// A Responses reasoning item ended: its `id` goes on the reasoning blocks it gave (those
    /// from block `from` on), its `encrypted_content` on the first of them, once for the item;
    /// an item that gave none (an empty summary) gets an empty block, so that it goes back.
    pub(crate) fn reasoning_item(&mut self, choice: u32, from: usize, id: &str, encrypted: Option<&str>) -> Result<()> {
        let at = self.position_or_new(choice)?;
        let unmarked = |block: &Block| matches!(block, Block::Reasoning { id: None, format: None, .. });
        let marked = self.choices[at].blocks.iter().skip(from).filter(|block| unmarked(block)).count();
        let opens = if marked == 0 { ENTRY_BYTES + id.len() } else { 0 };
        self.keep(marked * id.len() + encrypted.map_or(0, str::len) + opens)?;
        let state = &mut self.choices[at];
        if marked == 0 {
            state.blocks.push(Block::reasoning(""));
            state.break_block = true;
        }
        let start = from.min(state.blocks.len());
        let mut first = true;
        for block in &mut state.blocks[start..] {
            if let Block::Reasoning { id: own @ None, format: None, encrypted_content, .. } = block {
                *own = Some(id.to_owned());
                if std::mem::take(&mut first) {
                    *encrypted_content = encrypted.map(str::to_owned);
                }
            }
        }
        Ok(())
    }

    /// A redacted reasoning block: opaque data, no text.
    pub(crate) fn redacted_reasoning(&mut self, choice: u32, data: &str) -> Result<()> {
        let at = self.position_or_new(choice)?;
        self.keep(data.len() + ENTRY_BYTES)?;
        self.end_part(at);
        let state = &mut self.choices[at];
        state.blocks.push(Block::Reasoning {
            text: String::new(),
            signature: None,
            redacted: Some(data.to_owned()),
            id: None,
            encrypted_content: None,
            format: None,
        });
        state.break_block = true;
        self.events.push(StreamEvent::ReasoningSignature { signature: data.to_owned(), choice });
        Ok(())
    }

    /// A citation attached to the current text block.
    pub(crate) fn citation(&mut self, choice: u32, citation: RawJson) -> Result<()> {
        let at = self.position_or_new(choice)?;
        let state = &self.choices[at];
        // Anthropic sends a block's citations before its text: after a boundary they open the block.
        let opens = state.break_block || !matches!(state.blocks.last(), Some(Block::Text { .. }));
        self.keep(citation.get().len() + ENTRY_BYTES + if opens { ENTRY_BYTES } else { 0 })?;
        if opens {
            self.end_part(at);
        }
        let state = &mut self.choices[at];
        let last = if std::mem::take(&mut state.break_block) { None } else { state.blocks.last_mut() };
        match last {
            Some(Block::Text { citations, .. }) => citations.get_or_insert_with(Vec::new).push(citation),
            _ => {
                state.blocks.push(Block::Text { text: String::new(), citations: Some(vec![citation]), signature: None })
            }
        }
        Ok(())
    }

    /// A provider block with no normalised form (server tool use, search results): kept whole.
    pub(crate) fn other_block(&mut self, choice: u32, provider_type: &str, data: RawJson) -> Result<()> {
        let at = self.position_or_new(choice)?;
        self.keep(provider_type.len() + data.get().len() + ENTRY_BYTES)?;
        self.end_part(at);
        let state = &mut self.choices[at];
        state.blocks.push(Block::Other { provider_type: provider_type.to_owned(), data });
        state.break_block = true;
        Ok(())
    }

    /// Opens a tool call and returns its position in the message's tool calls. A call with an
    /// item `key` is not indexed by its id: its decoder finds it by the key, in an index of its
    /// own that the key's bytes are counted for here. A call without an id gets one here, once:
    /// its start event, its end event and the message all carry that one.
    pub(crate) fn begin_tool_call(
        &mut self,
        choice: u32,
        id: &str,
        name: &str,
        provider_index: Option<u64>,
        key: Option<&str>,
    ) -> Result<usize> {
        let at = self.position_or_new(choice)?;
        let invented;
        let id = if id.is_empty() {
            invented = self.choices[at].calls.invented_id(&self.call_stem);
            invented.as_str()
        } else {
            id
        };
        self.keep(ENTRY_BYTES + ToolCalls::bytes_of(id, key) + name.len())?;
        self.list_to_end(at);
        self.end_part(at);
        let state = &mut self.choices[at];
        let call = ToolCall { id: id.to_owned(), name: name.to_owned(), arguments: String::new() };
        let index = state.calls.push(call, provider_index, key.is_some());
        if self.live.calls && state.live_calls.len() == index {
            state.live_calls.push(Feed::new(&Default::default()));
        }
        state.blocks.push(Block::tool_call(ToolCall::default()));
        state.break_block = true;
        self.events.push(StreamEvent::ToolCallStart {
            index: index as u32,
            id: id.to_owned(),
            name: name.to_owned(),
            choice,
        });
        Ok(index)
    }

    /// Finds the latest call at the provider's index.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn find_tool_call(&mut self, choice: u32, provider_index: Option<u64>) -> Option<usize> {
        self.existing(choice)?.calls.find(provider_index?)
    }

    /// Appends argument text to call `at`.
    #[inline(always)]
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn tool_arguments(&mut self, choice: u32, at: usize, delta: &str) -> Result<()> {
        self.tool_arguments_taking(choice, at, Cow::Borrowed(delta))
    }

    /// Appends argument text to call `at`; a call's long first arguments are taken as they are,
    /// as [`Self::append_taking`] takes text (live partial JSON reads them there).
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn tool_arguments_taking(&mut self, choice: u32, at: usize, delta: Cow<'_, str>) -> Result<()> {
        if delta.is_empty() {
            return Ok(());
        }
        let max = self.limits.max_tool_argument_bytes;
        if self.call(choice, at)?.arguments.len() + delta.len() > max {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("tool call arguments are larger than maxToolArgumentBytes ({max} bytes)"),
            ));
        }
        self.keep(delta.len())?;
        let (len, live) = (delta.len(), self.live.calls);
        let arguments = &mut self.call(choice, at)?.arguments;
        let (end, delta) = if arguments.is_empty() && len >= LEND && matches!(delta, Cow::Owned(_)) {
            *arguments = delta.into_owned();
            (len, None)
        } else {
            arguments.push_str(&delta);
            (arguments.len(), Some(delta))
        };
        let event = match self.last_delta_event() {
            Some((i, StreamEvent::ToolCallDelta { index, choice: c, .. })) if *index as usize == at && *c == choice => {
                i
            }
            _ => {
                let arguments_delta = String::new();
                self.events.push(StreamEvent::ToolCallDelta { index: at as u32, arguments_delta, choice });
                self.events.len() - 1
            }
        };
        let position = self.position_or_new(choice)?;
        let added = delta.as_deref().map_or(Added::Taken(len), Added::Bytes);
        self.add_to_event(event, Source::Call(position, at), end, added);
        if live {
            let piece = delta.as_deref().map_or(Piece::Taken(Source::Call(position, at)), Piece::Text);
            self.live_read(position, Some(at), piece)?;
        }
        Ok(())
    }

    /// Call `at` of `choice` (which it has: `at` came from opening or finding it).
    fn call(&mut self, choice: u32, at: usize) -> Result<&mut ToolCall> {
        Ok(&mut self.choice(choice)?.calls.calls[at].call)
    }

    /// Sets the whole arguments of call `at` when the provider sends them only at the end
    /// (a `.done` event without deltas); the missing suffix is emitted as a delta.
    pub(crate) fn tool_arguments_done(&mut self, choice: u32, at: usize, arguments: &str) -> Result<()> {
        if self.call(choice, at)?.arguments.is_empty() {
            return self.tool_arguments(choice, at, arguments);
        }
        Ok(())
    }

    /// Sets a call's name when it arrives after the call was opened.
    pub(crate) fn tool_name(&mut self, choice: u32, at: usize, name: &str) -> Result<()> {
        if self.call(choice, at)?.name.is_empty() {
            self.keep(name.len())?;
            self.call(choice, at)?.name = name.to_owned();
        }
        Ok(())
    }

    /// Ends call `at` (once): emits `tool_call_end` with the complete arguments.
    pub(crate) fn end_tool_call(&mut self, choice: u32, at: usize) {
        let Some(position) = self.position(choice) else { return };
        if self.choices[position].calls.calls[at].ended {
            return;
        }
        // Ending a reader only gives memory back: it cannot fail on a limit.
        let _ = self.live_read(position, Some(at), Piece::End);
        let state = &mut self.choices[position];
        let ToolCallState { call, ended } = &mut state.calls.calls[at];
        *ended = true;
        let (id, name) = (call.id.clone(), call.name.clone());
        let len = call.arguments.len();
        let arguments = if len < LEND {
            call.arguments.clone()
        } else {
            let source = Source::Call(position, at);
            self.lent.push(Lent { event: self.events.len(), source, start: 0, end: len });
            String::new()
        };
        self.events.push(StreamEvent::ToolCallEnd { index: at as u32, id, name, arguments, choice });
    }

    /// How many tool calls `choice` has: an OpenAI-style list of tool calls passes it to
    /// [`Self::chat_tool_call`] for each of its entries.
    pub(crate) fn tool_call_count(&mut self, choice: u32) -> Result<usize> {
        Ok(self.choice(choice)?.calls.calls.len())
    }

    /// An OpenAI-style tool-call entry of a list that began when the choice had `list_start`
    /// calls: resolved by id, then index (see `ToolCalls::resolve`). A complete call sent again
    /// under its id (its arguments equal to all the call has) adds nothing.
    #[cfg_attr(llw_speed, optimize(speed))]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn chat_tool_call(
        &mut self,
        choice: u32,
        list_start: usize,
        index: Option<u64>,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<Cow<'_, str>>,
    ) -> Result<()> {
        let arguments = arguments.unwrap_or_default();
        let calls = &self.choice(choice)?.calls;
        let found = calls.resolve(index, id, name, list_start);
        let at = match found {
            Some(at) => {
                let named = id.is_some_and(|id| !id.is_empty());
                if named && !arguments.is_empty() && calls.calls[at].call.arguments == arguments {
                    return Ok(());
                }
                if let Some(name) = name.filter(|n| !n.is_empty()) {
                    self.tool_name(choice, at, name)?;
                }
                at
            }
            None => self.begin_tool_call(choice, id.unwrap_or(""), name.unwrap_or(""), index, None)?,
        };
        self.tool_arguments_taking(choice, at, arguments)
    }

    /// One normalised event from the caller's own converter, fed as a decoder would feed it:
    /// the same message, limits and events (coalesced and ended as always). A tool call is
    /// keyed by the event's `index`; a partial event is left out (the builder makes its own);
    /// the stream is complete once every choice has finished.
    pub(crate) fn apply(&mut self, event: &StreamEvent) -> Result<()> {
        match event {
            StreamEvent::Start { id, model, provider } => {
                self.start(id.as_deref(), model.as_deref(), provider.as_deref())?
            }
            StreamEvent::Text { text, choice } => self.text(*choice, text)?,
            StreamEvent::Reasoning { text, choice } => self.reasoning(*choice, text)?,
            StreamEvent::ReasoningSignature { signature, choice } => self.reasoning_signature(*choice, signature)?,
            StreamEvent::TextEnd { choice } | StreamEvent::ReasoningEnd { choice } => self.break_block(*choice),
            StreamEvent::ToolCallStart { index, id, name, choice } => {
                if self.find_tool_call(*choice, Some((*index).into())).is_none() {
                    self.begin_tool_call(*choice, id, name, Some((*index).into()), None)?;
                }
            }
            StreamEvent::ToolCallDelta { index, arguments_delta, choice } => {
                let at = self.applied_call(*choice, *index)?;
                self.tool_arguments(*choice, at, arguments_delta)?;
            }
            StreamEvent::ToolCallEnd { index, arguments, choice, .. } => {
                let at = self.applied_call(*choice, *index)?;
                self.tool_arguments_done(*choice, at, arguments)?;
                self.end_tool_call(*choice, at);
            }
            StreamEvent::ToolCallPartial { .. } | StreamEvent::OutputPartial { .. } => {}
            StreamEvent::Usage { usage } => self.set_usage(usage.clone())?,
            StreamEvent::Finish { reason, raw_reason, choice } => {
                self.finish_reason(*choice, *reason, raw_reason.as_deref().unwrap_or(reason.as_str()))?;
                if self.all_choices_finished() {
                    self.done();
                }
            }
            StreamEvent::Error { error } => self.error(error.clone())?,
        }
        Ok(())
    }

    /// The call an applied event's `index` names, opened (without a name, its id invented) when
    /// it is new.
    fn applied_call(&mut self, choice: u32, index: u32) -> Result<usize> {
        match self.find_tool_call(choice, Some(index.into())) {
            Some(at) => Ok(at),
            None => self.begin_tool_call(choice, "", "", Some(index.into()), None),
        }
    }

    /// Refusal text (OpenAI `delta.refusal`), reported as one error when the choice ends.
    pub(crate) fn refusal(&mut self, choice: u32, s: &str) -> Result<()> {
        let at = self.position_or_new(choice)?;
        self.keep(s.len())?;
        self.list_to_end(at);
        self.choices[at].refusal.push_str(s);
        Ok(())
    }

    /// The choice finished: held text is released, open calls end, a refusal becomes the error.
    pub(crate) fn finish_reason(&mut self, choice: u32, reason: FinishReason, raw: &str) -> Result<()> {
        let at = self.position_or_new(choice)?;
        self.end_choice(at)?;
        let before = match &self.choices[at].finish {
            Some((_, r)) if r == raw => return Ok(()), // restated (OpenRouter repeats it)
            Some((_, r)) => r.len(),
            None => 0,
        };
        self.keep(raw.len())?;
        self.release(before);
        let state = &mut self.choices[at];
        if state.finish.replace((reason, raw.to_owned())).is_none() {
            self.unfinished -= 1;
        }
        self.events.push(StreamEvent::Finish { reason, raw_reason: Some(raw.to_owned()), choice });
        Ok(())
    }

    /// Ends the choice at `at`: held text is released, open calls end, a refusal becomes the
    /// error. Costs what it ends, so repeating it is cheap.
    fn end_choice(&mut self, at: usize) -> Result<()> {
        let choice = self.choices[at].index;
        let (part, held) = self.choices[at].splitter.flush();
        self.append(choice, part, &held)?;
        self.end_part(at);
        self.live_read(at, None, Piece::End)?;
        for call in self.choices[at].calls.take_open() {
            self.end_tool_call(choice, call);
        }
        let refusal = std::mem::take(&mut self.choices[at].refusal);
        self.release(refusal.len());
        if !refusal.is_empty() {
            self.error(ErrorInfo {
                message: format!("Model refused: {refusal}"),
                code: Some(ErrorCode::ModelRefused.as_str().to_owned()),
                outcome: Outcome::Determinate,
                retryable: Some(false),
                provider_type: None,
                provider_code: None,
            })?;
        }
        Ok(())
    }

    /// True when every choice seen so far has a finish reason.
    pub(crate) fn all_choices_finished(&self) -> bool {
        !self.choices.is_empty() && self.unfinished == 0
    }

    /// The usage so far; each report replaces the one before. Its event waits for
    /// [`MessageBuilder::send_usage`].
    pub(crate) fn set_usage(&mut self, usage: Usage) -> Result<()> {
        if self.usage.is(&usage) {
            return Ok(()); // cumulative usage restated on every chunk
        }
        self.replace_usage(usage.raw.get().len(), |slot| *slot = UsageSoFar::Made(usage))
    }

    /// The usage so far as its JSON text, which `make` turns into a usage (never `None` for a
    /// text given here) when it is wanted: at the end of the turn, in a snapshot or the message.
    /// Gemini restates a grown usage on every chunk and nearly all are replaced unread (paired,
    /// a Gemini stream in 64 B–4 KB chunks took 0.93 of the time of making each one).
    pub(crate) fn set_usage_text(&mut self, raw: &str, make: fn(&str) -> Option<Usage>) -> Result<()> {
        // By words: Gemini gives a usage on every chunk (paired, 0.97 of a Gemini stream's time).
        if self.usage.raw().is_some_and(|kept| same_bytes(kept.as_bytes(), raw.as_bytes())) {
            return Ok(());
        }
        self.replace_usage(raw.len(), |slot| match slot {
            UsageSoFar::Text { raw: kept, make: kept_make } => {
                kept.clear();
                kept.push_str(raw);
                *kept_make = make;
            }
            _ => *slot = UsageSoFar::Text { raw: raw.to_owned(), make },
        })
    }

    /// Counts a new usage of `len` bytes of JSON text in place of the one before, then lets
    /// `put` store it.
    fn replace_usage(&mut self, len: usize, put: impl FnOnce(&mut UsageSoFar)) -> Result<()> {
        let before = self.usage.raw().map_or(0, str::len);
        self.keep_shared(len)?;
        self.release(before * self.messages_now());
        put(&mut self.usage);
        self.usage_unsent = true;
        Ok(())
    }

    /// Ends one call's events with the usage, once the turn has ended: a choice has finished, the
    /// format's end was reached or the input ended. Until then every report is provisional
    /// (Gemini restates a grown usage on every chunk, Anthropic's `message_start` has no output
    /// yet), so the caller gets one `usage` event per turn with the final counts, which add up
    /// across turns; `snapshot()` has the running figure (docs/design.md, "Usage"). A report
    /// that changes the usage after that gives one more event, at the end of its call.
    pub(crate) fn send_usage(&mut self) {
        let turn_ended = self.unfinished < self.choices.len() || self.done || self.flushed;
        if !(turn_ended && self.usage_unsent) {
            return;
        }
        if let UsageSoFar::Text { raw, make } = &self.usage {
            self.usage = make(raw).map_or(UsageSoFar::None, UsageSoFar::Made);
        }
        if let UsageSoFar::Made(usage) = &self.usage {
            self.events.push(StreamEvent::Usage { usage: usage.clone() });
            self.usage_unsent = false;
        }
    }

    /// An error inside the stream: emitted, and the first one is kept on the message.
    pub(crate) fn error(&mut self, info: ErrorInfo) -> Result<()> {
        if self.error.is_none() {
            self.keep_shared(error_bytes(&info))?;
            self.error = Some(info.clone());
        }
        self.events.push(StreamEvent::Error { error: info });
        Ok(())
    }

    /// The error that ends the input (a limit, a failed transport): kept as [`Self::error`]
    /// keeps one, however little room is left, as it is short and nothing follows it.
    pub(crate) fn fatal_error(&mut self, info: ErrorInfo) {
        if self.error.is_none() {
            self.kept = self.kept.saturating_add(error_bytes(&info).saturating_mul(self.messages_now()));
            self.error = Some(info.clone());
        }
        self.events.push(StreamEvent::Error { error: info });
    }

    /// The format's own end of stream was reached (`[DONE]`, `message_stop`, ...).
    pub(crate) fn done(&mut self) {
        self.done = true;
    }

    /// End of input: every choice ends as if it had finished (idempotent).
    pub(crate) fn flush(&mut self) -> Result<()> {
        if self.flushed {
            return Ok(());
        }
        self.flushed = true;
        self.end_all_choices()
    }

    /// Every choice ends (held text released, open calls ended), in the order the choices
    /// appeared; only those with something to end are visited, so repeating it is cheap.
    pub(crate) fn end_all_choices(&mut self) -> Result<()> {
        let mut listed = std::mem::take(&mut self.to_end);
        // Choices are mostly listed as they appear: the size-minded sort (a heapsort) would
        // still cost n log n on a list already in order.
        if !listed.windows(2).all(|pair| pair[0] < pair[1]) {
            listed.sort_unstable();
        }
        for (i, &at) in listed.iter().enumerate() {
            if let Err(err) = self.end_choice(at) {
                self.to_end.extend_from_slice(&listed[i..]);
                return Err(err);
            }
            self.choices[at].to_end = false;
        }
        Ok(())
    }

    /// The consolidated message. Call after `flush`.
    pub(crate) fn build(mut self) -> FinalMessage {
        let error = self.error.take();
        let complete = self.done && error.is_none();
        let mut choices = std::mem::take(&mut self.choices);
        let mut order = self.index_order();
        if choices.is_empty() {
            choices.push(ChoiceState::default());
            order.push(0);
        }
        let several = choices.len() > 1;
        let mut first = self.choice_message(&mut choices[order[0]], &error, complete, !several);
        if several {
            let messages = order.iter().map(|&at| self.choice_message(&mut choices[at], &error, complete, true));
            first.choices = Some(messages.collect());
        }
        first
    }

    /// The positions of the choices in index order, read from `positions` (which is in that
    /// order) rather than sorting the choices: no sort of large entries, linear however many.
    fn index_order(&self) -> Vec<usize> {
        self.positions.values().copied().collect()
    }

    /// The message of one choice. The first choice's is built twice when there are several
    /// (rather than the message cloned); the `last` build of a choice takes its content and
    /// calls, so the message's texts are not copied once more at the end of a long stream.
    fn choice_message(
        &self,
        choice: &mut ChoiceState,
        error: &Option<ErrorInfo>,
        complete: bool,
        last: bool,
    ) -> FinalMessage {
        let tool_calls: Vec<ToolCall> = choice
            .calls
            .calls
            .iter_mut()
            .map(|c| if last { std::mem::take(&mut c.call) } else { c.call.clone() })
            .collect();
        let content = if last { std::mem::take(&mut choice.blocks) } else { choice.blocks.clone() };
        self.message_of(choice, tool_calls, content, error, complete)
    }

    /// The message so far, nothing ended (`complete` only once the stream has ended complete):
    /// text a choice holds back (a possible thinking tag) is not in it yet. Costs one copy of
    /// the message.
    pub(crate) fn snapshot(&self) -> FinalMessage {
        let complete = self.flushed && self.done && self.error.is_none();
        let one = |c: &ChoiceState| {
            let calls = c.calls.calls.iter().map(|c| c.call.clone()).collect();
            self.message_of(c, calls, c.blocks.clone(), &self.error, complete)
        };
        let choices: Vec<&ChoiceState> = self.index_order().into_iter().map(|at| &self.choices[at]).collect();
        match choices[..] {
            [] => one(&ChoiceState::default()),
            [only] => one(only),
            [first, ..] => FinalMessage { choices: Some(choices.iter().map(|c| one(c)).collect()), ..one(first) },
        }
    }

    /// The message of one choice from its calls and blocks.
    fn message_of(
        &self,
        choice: &ChoiceState,
        tool_calls: Vec<ToolCall>,
        mut content: Vec<Block>,
        error: &Option<ErrorInfo>,
        complete: bool,
    ) -> FinalMessage {
        let mut calls = tool_calls.iter();
        let (mut text, mut reasoning) = (String::new(), String::new());
        for block in &mut content {
            match block {
                Block::Text { text: t, .. } => text.push_str(t),
                Block::Reasoning { text: t, .. } => reasoning.push_str(t),
                // The call fills its block; a signature set on the block stays.
                Block::ToolCall { id, name, arguments, .. } => {
                    if let Some(call) = calls.next() {
                        (*id, *name, *arguments) = (call.id.clone(), call.name.clone(), call.arguments.clone());
                    }
                }
                Block::Other { .. } => {}
            }
        }
        let refused = error.as_ref().is_some_and(|e| e.code.as_deref() == Some(ErrorCode::ModelRefused.as_str()));
        let (unified, raw) = match &choice.finish {
            Some((reason, raw)) => (*reason, Some(raw.clone())),
            None => (FinishReason::Other, None),
        };
        let finish_reason = if refused {
            FinishReason::Refusal
        } else if error.is_some() {
            FinishReason::Error
        } else {
            unified
        };
        FinalMessage {
            role: "assistant",
            content,
            text,
            reasoning,
            tool_calls,
            usage: self.usage.get(),
            finish_reason,
            raw_finish_reason: raw,
            id: self.id.clone(),
            model: self.model.clone(),
            provider: self.provider.clone(),
            error: error.clone(),
            complete,
            choices: None,
        }
    }
}

/// Counts `n` more bytes in `kept`, unless that passes `maxMessageBytes` (see
/// [`MessageBuilder::keep`]).
#[cfg_attr(llw_speed, optimize(speed))]
fn keep_in(kept: &mut usize, limits: &Limits, n: usize) -> Result<()> {
    let more = kept.saturating_add(n);
    if more > limits.max_message_bytes {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("the message is larger than maxMessageBytes ({} bytes)", limits.max_message_bytes),
        ));
    }
    *kept = more;
    Ok(())
}

/// The text of a block, or the arguments of a call, of `choices` that a [`Lent`] names.
fn source_text(choices: &[ChoiceState], source: Source) -> &str {
    let (Source::Block(at, _) | Source::Call(at, _)) = source;
    text_in(&choices[at].blocks, &choices[at].calls, source)
}

/// The text of a block, or the arguments of a call, that `source` names in the choice whose
/// `blocks` and `calls` these are.
fn text_in<'a>(blocks: &'a [Block], calls: &'a ToolCalls, source: Source) -> &'a str {
    match source {
        Source::Block(_, block) => match &blocks[block] {
            Block::Text { text, .. } | Block::Reasoning { text, .. } => text,
            _ => "",
        },
        Source::Call(_, call) => &calls.calls[call].call.arguments,
    }
}

/// The string of a delta or tool-call-end event, the one that may be lent.
#[inline(always)]
#[cfg_attr(llw_speed, optimize(speed))]
fn event_string(event: &mut StreamEvent) -> Option<&mut String> {
    match event {
        StreamEvent::Text { text, .. } | StreamEvent::Reasoning { text, .. } => Some(text),
        StreamEvent::ToolCallDelta { arguments_delta, .. } => Some(arguments_delta),
        StreamEvent::ToolCallEnd { arguments, .. } => Some(arguments),
        _ => None,
    }
}

/// What keeping an error takes: its message and code.
fn error_bytes(error: &ErrorInfo) -> usize {
    let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    error.message.len() + text(&error.code) + text(&error.provider_type) + text(&error.provider_code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partial_json::{PartialTree, PartialValue};

    /// The message takes the builder's texts and arguments rather than copying them: at the end
    /// of a long stream a copy would double the memory the message needs.
    #[test]
    fn the_message_takes_the_streamed_text_and_arguments_without_copying_them() {
        let mut b = MessageBuilder::new(Limits::default(), None);
        b.text(0, "hello, ").unwrap();
        b.text(0, "world").unwrap();
        let call = b.begin_tool_call(0, "call_1", "lookup", Some(0), None).unwrap();
        b.tool_arguments(0, call, "{\"q\":").unwrap();
        b.tool_arguments(0, call, "1}").unwrap();
        let state = &b.choices[0];
        let Some(Block::Text { text, .. }) = state.blocks.first() else { panic!("a text block") };
        let (text_at, arguments_at) = (text.as_ptr(), state.calls.calls[0].call.arguments.as_ptr());
        let message = b.build();
        let Some(Block::Text { text, .. }) = message.content.first() else { panic!("a text block") };
        assert_eq!((text.as_str(), text.as_ptr()), ("hello, world", text_at));
        let arguments = &message.tool_calls[0].arguments;
        assert_eq!((arguments.as_str(), arguments.as_ptr()), ("{\"q\":1}", arguments_at));
        assert!(message.choices.is_none());
    }

    /// A usage reported as its text is the usage `make` gives it wherever it is looked at, is
    /// counted by its text's length in place of the one before, and gives its event once the
    /// turn has ended, like one made at once; the same usage made at once is no change.
    #[test]
    fn a_usage_reported_as_text_is_the_usage_it_makes() {
        fn make(raw: &str) -> Option<Usage> {
            let input_tokens = raw.len() as u64;
            let raw = RawJson::from_valid(raw);
            Some(Usage {
                input_tokens,
                output_tokens: 1,
                total_tokens: input_tokens + 1,
                reasoning_tokens: None,
                cache_read_tokens: None,
                cache_write_tokens: None,
                raw,
            })
        }
        let usage_events =
            |b: &MessageBuilder| b.events.iter().filter(|e| matches!(e, StreamEvent::Usage { .. })).count();
        let mut b = MessageBuilder::new(Limits::default(), None);
        b.text(0, "a").unwrap();
        let kept = b.kept;
        b.set_usage_text("[1]", make).unwrap();
        b.set_usage_text("[1, 2]", make).unwrap();
        assert_eq!(b.kept, kept + "[1, 2]".len());
        assert_eq!(b.usage.get(), make("[1, 2]"));
        b.send_usage();
        assert_eq!(usage_events(&b), 0, "the turn goes on");
        b.done();
        b.send_usage();
        let Some(StreamEvent::Usage { usage }) = b.events.last() else { panic!("{:?}", b.events) };
        assert_eq!(Some(usage.clone()), make("[1, 2]"));
        b.set_usage(make("[1, 2]").unwrap()).unwrap();
        b.set_usage_text("[1, 2]", make).unwrap();
        b.send_usage();
        assert_eq!((usage_events(&b), b.kept), (1, kept + "[1, 2]".len()), "the same usage again");
        b.set_usage_text("[3]", make).unwrap();
        b.send_usage();
        assert_eq!(usage_events(&b), 2, "a later change");
        assert_eq!(b.build().usage, make("[3]"));
    }

    /// Ending every choice visits them in the order they appeared, also when they were listed
    /// for it out of that order; the message and a snapshot list them by index, whatever order
    /// they appeared in.
    #[test]
    fn choices_end_in_the_order_they_appeared_and_the_message_lists_them_by_index() {
        let mut b = MessageBuilder::new(Limits::default(), None);
        b.text(2, "two").unwrap();
        b.reasoning_signature(0, "sig").unwrap();
        b.begin_tool_call(1, "call_1", "f", Some(0), None).unwrap();
        b.begin_tool_call(0, "call_0", "g", Some(0), None).unwrap();
        b.clear_events();
        b.end_all_choices().unwrap();
        let ended: Vec<(u32, &str)> = b
            .events
            .iter()
            .map(|event| match event {
                StreamEvent::TextEnd { choice } => (*choice, "text_end"),
                StreamEvent::ToolCallEnd { choice, id, .. } => (*choice, id.as_str()),
                other => panic!("an end event, not {other:?}"),
            })
            .collect();
        assert_eq!(ended, [(2, "text_end"), (0, "call_0"), (1, "call_1")]);
        let listed = |message: &FinalMessage| -> Vec<(String, String)> {
            let choices = message.choices.as_deref().unwrap_or_default();
            let call = |m: &FinalMessage| m.tool_calls.first().map_or(String::new(), |c| c.id.clone());
            choices.iter().map(|m| (m.text.clone(), call(m))).collect()
        };
        let expected = [("", "call_0"), ("", "call_1"), ("two", "")].map(|(t, c)| (t.to_owned(), c.to_owned()));
        let snapshot = b.snapshot();
        assert_eq!((listed(&snapshot), snapshot.tool_calls[0].id.as_str()), (expected.to_vec(), "call_0"));
        let message = b.build();
        assert_eq!((listed(&message), message.tool_calls[0].id.as_str()), (expected.to_vec(), "call_0"));
    }

    /// A long delta is lent from the message and, filled, is the same event a copy gave: small
    /// deltas before and after it in the same push coalesce with it, and a call's end lends its
    /// whole arguments.
    #[test]
    fn long_deltas_are_lent_from_the_message_and_filled_with_the_same_text() {
        let long = "é\"x".repeat(LEND);
        let mut b = MessageBuilder::new(Limits { max_tool_argument_bytes: 1 << 30, ..Limits::default() }, None);
        b.text(0, "a").unwrap();
        b.text(0, &long).unwrap();
        b.text(0, "b").unwrap();
        let call = b.begin_tool_call(0, "call_1", "f", Some(0), None).unwrap();
        b.tool_arguments(0, call, &long).unwrap();
        b.tool_arguments(0, call, "}").unwrap();
        b.end_tool_call(0, call);
        let (text, arguments) = (["a", &long, "b"].concat(), [long.as_str(), "}"].concat());
        let lent: Vec<(usize, String)> = b.lent().map(|(i, s)| (i, s.to_owned())).collect();
        assert_eq!(lent, [(0, text.clone()), (3, arguments.clone()), (4, arguments.clone())]);
        assert!(lent.iter().all(|(i, _)| event_string(&mut b.events[*i]).is_some_and(|s| s.is_empty())));
        b.fill_lent();
        assert!(matches!(&b.events[0], StreamEvent::Text { text: t, .. } if *t == text));
        assert!(matches!(&b.events[3], StreamEvent::ToolCallDelta { arguments_delta: a, .. } if *a == arguments));
        assert!(matches!(&b.events[4], StreamEvent::ToolCallEnd { arguments: a, .. } if *a == arguments));
        assert_eq!(b.lent().count(), 0);
    }

    /// A long string the decoder made becomes the message's text or a call's first arguments
    /// as it is (the same buffer), unless thinking tags must split it, live partial JSON or not;
    /// the message and the events are the same either way.
    #[test]
    fn long_decoded_strings_are_taken_by_the_message_unless_split() {
        let long = "é \"x\" ".repeat(LEND);
        let tagged = ["<think>", &long, "</think>", &long].concat();
        let limits = Limits { max_tool_argument_bytes: 1 << 30, ..Limits::default() };
        // (content, live partial JSON, whether the buffer is taken, the text, the reasoning)
        let cases = [
            (&long, false, true, long.clone(), ""),
            (&tagged, false, false, long.clone(), long.as_str()),
            (&long, true, true, long.clone(), ""),
        ];
        for (content, live, taken, text, reasoning) in cases {
            let mut b = MessageBuilder::new(limits, None);
            let outputs = [crate::model::Property { name: "x".into(), ..Default::default() }];
            b.set_live(LiveOptions::new(live, if live { &outputs } else { &[] }));
            let (owned, arguments) = (content.clone(), long.clone());
            let (at, arguments_at) = (owned.as_ptr(), arguments.as_ptr());
            b.tagged_content_taking(0, Cow::Owned(owned)).unwrap();
            let call = b.begin_tool_call(0, "call_1", "f", Some(0), None).unwrap();
            b.tool_arguments_taking(0, call, Cow::Owned(arguments)).unwrap();
            let taken_arguments = b.choices[0].calls.calls[0].call.arguments.as_ptr() == arguments_at;
            b.tool_arguments_taking(0, call, Cow::Borrowed("}")).unwrap();
            let block_at = b.choices[0].blocks.iter().find_map(|block| match block {
                Block::Text { text, .. } => Some(text.as_ptr()),
                _ => None,
            });
            assert_eq!(block_at == Some(at), taken, "text taken, live {live}");
            assert!(taken_arguments, "arguments taken, live {live}");
            b.fill_lent();
            let streamed: String = b
                .events
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(streamed, text);
            b.flush().unwrap();
            let message = b.build();
            assert_eq!((message.text, message.reasoning.as_str()), (text, reasoning));
            assert_eq!(message.tool_calls[0].arguments, [long.as_str(), "}"].concat());
        }
    }

    /// Live partial JSON reads a long text or arguments the message took where the message
    /// holds them: the values its changes build are the whole JSON.
    #[test]
    fn live_partial_json_reads_taken_strings() {
        let long = "é \"x\" \\ ".repeat(LEND);
        let json = ["{\"x\":", &crate::json::write::quoted(&long), "}"].concat();
        let limits = Limits { max_tool_argument_bytes: 1 << 30, ..Limits::default() };
        let mut b = MessageBuilder::new(limits, None);
        let outputs = [crate::model::Property { name: "x".into(), ..Default::default() }];
        b.set_live(LiveOptions::new(true, &outputs));
        b.tagged_content_taking(0, Cow::Owned(json.clone())).unwrap();
        let call = b.begin_tool_call(0, "call_1", "f", Some(0), None).unwrap();
        b.tool_arguments_taking(0, call, Cow::Owned(json.clone())).unwrap();
        b.flush().unwrap();
        let (mut output, mut arguments) = (PartialTree::default(), PartialTree::default());
        for event in &b.events {
            match event {
                StreamEvent::OutputPartial { changes, .. } => output.apply(changes),
                StreamEvent::ToolCallPartial { changes, .. } => arguments.apply(changes),
                _ => None,
            };
        }
        let expected = crate::json::value::parse_value(&json).unwrap();
        assert_eq!(output.value().map(PartialValue::to_value), Some(expected.clone()));
        assert_eq!(arguments.value().map(PartialValue::to_value), Some(expected));
    }
}
