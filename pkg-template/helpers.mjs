// The package's `Accumulator`, a thin class over the wasm one, and the JS conveniences over it:
// `streamEvents` (an async iterator over a ReadableStream of bytes), `AccumulatorStream` (a
// TransformStream) and `processResponse` (a whole `fetch` Response, streamed or not, to its
// result). Each releases the reader and frees the wasm object on completion, error and cancel.

/** An `Error` with a `code`, as the module's own errors carry. */
function codedError(code, message, path) {
  const error = new Error(message);
  error.code = code;
  if (path !== undefined) error.path = path;
  return error;
}

// U+FFFD in UTF-8: what a high surrogate whose pair never came becomes, as the encoder makes it.
const REPLACEMENT = new Uint8Array([0xef, 0xbf, 0xbd]);
/** The events of `chunk` pushed into the wasm accumulator, which gives a lone text event of the
 * first choice as its text alone, and other events as a flat list. */
function pushed(wasm, chunk) {
  const events = wasm.push(chunk);
  return typeof events === "string" ? [{ type: "text", text: events }] : eventsOf(events);
}

/**
 * The event objects of the flat list wasm's `push` gives (src/wasm/accumulator.rs, `Shape::Flat`):
 * the commonest events as a code and their fields in order, `choice` last and 0 when the event
 * has none, any other event as 0 and its object. Object literals in a loop are made several
 * times faster than `JSON.parse` makes the same objects; the keys and their order are those of
 * the events' JSON.
 */
function eventsOf(flat) {
  const events = [];
  let i = 0;
  // Each case reads its fields in order (an object literal's values are read left to right),
  // then `choice` reads the event's choice.
  const choice = (event) => {
    const n = flat[i++];
    if (n !== 0) event.choice = n;
    events.push(event);
  };
  while (i < flat.length) {
    switch (flat[i++]) {
      case 1: choice({ type: "text", text: flat[i++] }); break;
      case 2: choice({ type: "reasoning", text: flat[i++] }); break;
      case 3: choice({ type: "text_end" }); break;
      case 4: choice({ type: "reasoning_end" }); break;
      case 5: choice({ type: "tool_call_start", index: flat[i++], id: flat[i++], name: flat[i++] }); break;
      case 6: choice({ type: "tool_call_delta", index: flat[i++], argumentsDelta: flat[i++] }); break;
      case 7: choice({ type: "tool_call_end", index: flat[i++], id: flat[i++], name: flat[i++], arguments: flat[i++] }); break;
      case 8: choice({ type: "finish", reason: flat[i++], rawReason: flat[i++] }); break;
      default: events.push(flat[i++]);
    }
  }
  return events;
}
const encoder = new TextEncoder();
/** The UTF-16 length above which a string chunk is encoded in JS rather than by the glue. */
const LONG_TEXT = 16384;

/** Binds the package's classes and helpers to one module instance's wasm `Accumulator` class and,
 * for the full module, its `process` (which `processResponse` needs: without it there is none);
 * `PartialState` (partial.mjs) builds the values of live partial JSON events. */
export function makeHelpers(WasmAccumulator, process, PartialState) {
  /**
   * Raw SSE bytes in, normalised events and one final message out: the wasm class, with every
   * error carrying a `code`. After `free()` every call throws `finished`; a method called on
   * another object throws `invalid_input`. A string chunk is taken as its UTF-8 bytes, and one
   * that ends inside a surrogate pair keeps its high half for the next push, so string chunks
   * give the same message at every split, as bytes do.
   */
  class Accumulator {
    /** The wasm object; `null` while `finish()` runs (it calls `onSpan`), `undefined` once freed. */
    #wasm;
    /** A high surrogate that ended the last string chunk, or `undefined`. */
    #high;
    /** With `partialJson`: the value of each tool call (`"choice:index"`) and each choice's
     * output (`"choice"`), built copy-on-write from the changes the wasm events carry. */
    #partials;

    constructor(options) {
      this.#wasm = new WasmAccumulator(options);
      // Read once more here: the wasm constructor has checked it is a boolean.
      if (options?.partialJson === true) this.#partials = new Map();
    }

    /** Each partial event's changes, applied to its value, become the event's `value`. */
    #views(events) {
      const partials = this.#partials;
      if (partials === undefined) return events;
      for (const event of events) {
        let key;
        if (event.type === "tool_call_partial") key = `${event.choice ?? 0}:${event.index}`;
        else if (event.type === "output_partial") key = `${event.choice ?? 0}`;
        else continue;
        let state = partials.get(key);
        if (state === undefined) partials.set(key, (state = new PartialState()));
        const { changes } = event;
        delete event.changes;
        // The value goes before `choice`, where the documented shape has it.
        const choice = event.choice;
        delete event.choice;
        event.value = state.apply(changes);
        if (choice !== undefined) event.choice = choice;
      }
      return events;
    }

    /** Throws `invalid_input` when `self` is not an Accumulator (a method called on another object). */
    static #check(self) {
      if (Object(self) !== self || !(#wasm in self)) {
        throw codedError("invalid_input", "not an Accumulator: call the method on one", "this");
      }
    }

    /** The wasm object of `self`, or a coded error saying why there is none. */
    static #live(self) {
      Accumulator.#check(self);
      const wasm = self.#wasm;
      if (wasm) return wasm;
      throw wasm === null
        ? codedError("invalid_input", "the accumulator is busy: its onSpan callback cannot call it while finish() runs")
        : codedError("finished", "the accumulator was freed");
    }

    push(chunk) {
      // Checked first: a private method called on another object throws a plain TypeError.
      Accumulator.#check(this);
      return this.#views(this.#push(chunk));
    }

    /** One already-decoded event object of a supported format; the events its bytes would give. */
    pushJson(event) {
      const wasm = Accumulator.#live(this);
      const first = this.#release(wasm);
      const rest = wasm.pushJson(event);
      return this.#views(first.length ? first.concat(rest) : rest);
    }

    /** Normalised events from the caller's own converter; the events they give. */
    apply(events) {
      const wasm = Accumulator.#live(this);
      const first = this.#release(wasm);
      const rest = wasm.apply(events);
      return this.#views(first.length ? first.concat(rest) : rest);
    }

    #push(chunk) {
      const wasm = Accumulator.#live(this);
      if (typeof chunk === "string") return this.#pushText(wasm, chunk);
      if (this.#high === undefined || !(chunk instanceof Uint8Array || chunk instanceof ArrayBuffer)) {
        return pushed(wasm, chunk);
      }
      // Bytes after a held high surrogate: its pair will not come.
      const first = this.#release(wasm);
      const rest = pushed(wasm, chunk);
      return first.length ? first.concat(rest) : rest;
    }

    #pushText(wasm, text) {
      if (text === "") return pushed(wasm, text);
      const last = text.charCodeAt(text.length - 1);
      const high = last >= 0xd800 && last <= 0xdbff;
      if (this.#high !== undefined) text = this.#high + text;
      if (high) text = text.slice(0, -1);
      // A long string goes through the encoder: the glue would reserve three bytes of wasm memory
      // per UTF-16 unit of a string with any non-ASCII character. A short one costs less through
      // the glue.
      const events = pushed(wasm, text.length > LONG_TEXT ? encoder.encode(text) : text);
      this.#high = high ? String.fromCharCode(last) : undefined;
      return events;
    }

    /** Pushes a held high surrogate alone (it becomes U+FFFD); the events, if any. */
    #release(wasm) {
      if (this.#high === undefined) return [];
      this.#high = undefined;
      try {
        return pushed(wasm, REPLACEMENT);
      } catch {
        // The accumulator refuses input (it failed or was flushed): the held half goes with it.
        return [];
      }
    }

    flush() {
      const wasm = Accumulator.#live(this);
      const first = this.#release(wasm);
      const rest = wasm.flush();
      return this.#views(first.length ? first.concat(rest) : rest);
    }

    abort(message) {
      const wasm = Accumulator.#live(this);
      // A message that is not a string is refused below, with the object left as it was.
      const first = typeof message === "string" ? this.#release(wasm) : [];
      const rest = wasm.abort(message);
      return this.#views(first.length ? first.concat(rest) : rest);
    }

    finish() {
      const wasm = Accumulator.#live(this);
      this.#release(wasm);
      // `onSpan` runs inside: a call back into this object meets a coded error, not the wasm
      // object in use, and a `free()` from there frees it once finish() is done.
      this.#wasm = null;
      try {
        return wasm.finish();
      } finally {
        if (this.#wasm === null) this.#wasm = wasm;
        else wasm.free();
      }
    }

    /** The message so far, without ending the stream (`complete: false` until it has ended). */
    snapshot() {
      return Accumulator.#live(this).snapshot();
    }

    result() {
      const wasm = Accumulator.#live(this);
      this.#release(wasm);
      return wasm.result();
    }

    get format() {
      return Accumulator.#live(this).format;
    }

    /** Frees the wasm object now (the garbage collector would, later). Calling it again does nothing. */
    free() {
      Accumulator.#check(this);
      const wasm = this.#wasm;
      this.#wasm = undefined;
      wasm?.free();
    }
  }
  if (Symbol.dispose) Accumulator.prototype[Symbol.dispose] = Accumulator.prototype.free;

  /**
   * Yields every event of `body` and ends with `{ type: "final", message }`.
   * A reader error is reported through `abort` (the text so far is kept) and rethrown after the
   * final message has been yielded.
   */
  async function* streamEvents(body, options) {
    const reader = readerOf(body, "body");
    const acc = new Accumulator(options);
    let failure;
    try {
      for (;;) {
        let step;
        try {
          step = await reader.read();
        } catch (err) {
          failure = err;
          yield* acc.abort(String(err && err.message ? err.message : err));
          break;
        }
        if (step.done) break;
        yield* acc.push(step.value);
      }
      if (!failure) yield* acc.flush();
      yield { type: "final", message: acc.finish() };
    } finally {
      try { reader.releaseLock(); } catch { /* a pending read keeps the lock; cancel releases it */ }
      acc.free();
    }
    if (failure) throw failure;
  }

  /**
   * `response.body.pipeThrough(new AccumulatorStream())`: bytes in, events out, and a last
   * `{ type: "final", message }`. `.message` holds the final message once the stream has ended.
   */
  class AccumulatorStream extends TransformStream {
    constructor(options) {
      let acc = new Accumulator(options);
      const release = () => { if (acc) { acc.free(); acc = undefined; } };
      const self = {};
      super({
        transform(chunk, controller) {
          try {
            for (const event of acc.push(chunk)) controller.enqueue(event);
          } catch (err) {
            release(); // the stream errors with it: no later call frees the object
            throw err;
          }
        },
        flush(controller) {
          try {
            for (const event of acc.flush()) controller.enqueue(event);
            const message = acc.finish();
            self.message = message;
            controller.enqueue({ type: "final", message });
          } finally {
            release();
          }
        },
        cancel() { release(); },
      });
      Object.defineProperty(this, "message", { get: () => self.message });
    }
  }

  /**
   * §8's process for a `fetch` Response: reads it to the end and resolves to what `process`
   * gives for a body, or `result()` for a stream; `options.onSpan` receives the `process` span
   * either way. Streamed when the content type says so, else when its first byte that is not
   * blank is anything but `{` (a JSON body is an object). A failed response's `provider_error`
   * also learns what its headers and status say (see `withResponse`).
   */
  async function processResponse(agent, response, options) {
    let result;
    try {
      result = await readResponse(agent, response, options);
    } catch (err) {
      throw withResponse(err, response);
    }
    // A failed response that still read as an answer (`[]`, an event stream with no event in
    // it) is a failure all the same: its status says so.
    if (!response.ok) throw httpError(response, "");
    return result;
  }

  /** What `processResponse` resolves to, before a failed response's error is completed. */
  async function readResponse(agent, response, options) {
    if (Object(response) !== response || typeof response.headers?.get !== "function" || !("body" in response)) {
      throw codedError("invalid_input", "processResponse takes a fetch Response", "response");
    }
    if (response.bodyUsed) throw codedError("invalid_input", "the response's body has already been read", "response.body");
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    const reader = response.body === null ? undefined : readerOf(response.body, "response.body");
    let read = false;
    try {
      const first = reader ? await readToContent(reader) : [];
      const byte = firstByte(first);
      if (!response.ok && !STREAM_TYPES.some((t) => type.startsWith(t)) && byte !== 0x7b && byte !== 0x5b) {
        // Failed, and no JSON or stream to read a provider's error from: a gateway's HTML page,
        // a proxy's text, an empty body. Read as a stream it would resolve to no text at all.
        throw httpError(response, await readStart(reader, first, QUOTED_BYTES));
      }
      const streamed = STREAM_TYPES.some((t) => type.startsWith(t)) || (first.length > 0 && byte !== 0x7b);
      const result = streamed
        ? await readStream(agent, reader, first, options?.onSpan)
        : process(agent, withErrorType(response, await readText(reader, first)), options);
      read = true;
      return result;
    } finally {
      // A body left half read (a bad agent, a chunk refused) is cancelled: the connection closes;
      // cancelling one read to its end does nothing.
      if (!read) reader?.cancel().catch(() => {});
      try { reader?.releaseLock(); } catch { /* a pending read keeps the lock */ }
    }
  }

  /** The result of a stream whose first chunks are `first` and the rest `reader`'s. */
  async function readStream(agent, reader, first, onSpan) {
    let acc;
    try {
      acc = new Accumulator({ agent, onSpan });
    } catch (err) {
      // The agent is processResponse's first argument, not an option of its own.
      if (typeof err.path === "string" && err.path.startsWith("options.agent")) err.path = err.path.slice(8);
      throw err;
    }
    try {
      // A push the accumulator refuses (past a limit) ends the reading; its error is the answer.
      let refused;
      try {
        for (const chunk of first) acc.push(chunk);
        while (reader) {
          let step;
          try {
            step = await reader.read();
          } catch (err) {
            acc.abort(String(err && err.message ? err.message : err));
            break;
          }
          if (step.done) break;
          acc.push(step.value);
        }
      } catch (err) {
        refused = err;
      }
      acc.finish(); // sends the span, also when the result is an error
      if (refused) throw refused;
      return acc.result();
    } finally {
      acc.free();
    }
  }

  return process
    ? { Accumulator, streamEvents, AccumulatorStream, processResponse }
    : { Accumulator, streamEvents, AccumulatorStream };
}

/** The AWS error type of a failed response: its `x-amzn-ErrorType` header, without the `:url`
 * AWS adds (`ThrottlingException:http://internal.amazon.com/...`); undefined without one. */
function awsErrorType(response) {
  if (response.ok) return undefined;
  return response.headers.get("x-amzn-errortype")?.split(":")[0] || undefined;
}

/** A failed response's body, given its AWS error type as `__type` (the member Bedrock reads it
 * from) when the header names one and the body is an object without its own. */
function withErrorType(response, text) {
  const type = awsErrorType(response);
  if (type === undefined) return text;
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (Object(body) !== body || Array.isArray(body) || "__type" in body) return text;
  return { ...body, __type: type };
}

/** HTTP statuses that name a transient failure: a rate limit, a server error, a gateway's. */
const RETRY_STATUSES = [429, 500, 502, 503, 504];

/** The longest part of a failed response's text that its error message quotes, in characters,
 * and how much of its body is read for it (the rest is cancelled). */
const QUOTED = 200;
const QUOTED_BYTES = 4096;

/**
 * The `provider_error` of a failed response whose body is no provider's error: the status (and
 * its text) with the start of the body, the status as `providerCode`, retryable when the status
 * names a transient failure.
 */
function httpError(response, text) {
  const said = [...text.replace(/\s+/g, " ").trim()];
  const quoted = said.length > QUOTED ? `${said.slice(0, QUOTED).join("")}…` : said.join("");
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const err = codedError("provider_error", quoted ? `${status}: ${quoted}` : status);
  err.providerCode = String(response.status);
  err.retryable = RETRY_STATUSES.includes(response.status);
  return err;
}

/**
 * A failed response's `provider_error`, completed from the response: the AWS error type from
 * its header when the body names none, and `retryable` from its status when the body names
 * neither a type nor a code (the type the header gave does not count). Other errors as they are.
 */
function withResponse(err, response) {
  if (err?.code === "invalid_input" || response.ok) return err;
  if (["empty_response", "invalid_json", "transport_error"].includes(err?.code)) {
    // The failed response's body holds no provider error (no answer, no JSON, a stream that
    // stopped short): its status is the error.
    const failed = httpError(response, "");
    failed.message += ` (the body: ${err.message})`;
    failed.cause = err;
    return failed;
  }
  if (err?.code !== "provider_error") return err;
  const type = awsErrorType(response);
  const said = err.providerCode !== undefined || (err.providerType !== undefined && err.providerType !== type);
  if (err.providerType === undefined && type !== undefined) err.providerType = type;
  if (!said && RETRY_STATUSES.includes(response.status)) err.retryable = true;
  return err;
}

/** Content types of streamed responses; anything else is told by its first bytes. */
const STREAM_TYPES = ["text/event-stream", "application/vnd.amazon.eventstream"];

/** The reader of a ReadableStream, or `invalid_input` at `path` for anything else. */
function readerOf(body, path) {
  if (typeof body?.getReader !== "function") {
    throw codedError("invalid_input", "expected a ReadableStream of bytes (a fetch Response's body)", path);
  }
  return body.getReader();
}

/** Whitespace that may come before a JSON body's first character. */
const isBlank = (byte) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** Reads chunks until one holds a byte that is not blank (or the end); the chunks read. */
async function readToContent(reader) {
  const chunks = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
    if (value.some((byte) => !isBlank(byte))) return chunks;
  }
}

/** The first byte of `chunks` that is not blank. */
function firstByte(chunks) {
  for (const chunk of chunks) {
    const byte = chunk.find((b) => !isBlank(b));
    if (byte !== undefined) return byte;
  }
  return undefined;
}

/** At least `max` bytes of the body as text, or all of it when shorter: `first`, then as many
 * of `reader`'s chunks as it takes. */
async function readStart(reader, first, max) {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (const chunk of first) {
    text += decoder.decode(chunk, { stream: true });
    bytes += chunk.length;
  }
  while (reader && bytes < max) {
    const step = await reader.read();
    if (step.done) break;
    text += decoder.decode(step.value, { stream: true });
    bytes += step.value.length;
  }
  return text + decoder.decode();
}

/** The whole body as text: `first`, then the rest of `reader`. */
async function readText(reader, first) {
  const decoder = new TextDecoder();
  let text = "";
  for (const chunk of first) text += decoder.decode(chunk, { stream: true });
  for (;;) {
    const step = reader ? await reader.read() : { done: true };
    if (step.done) return text + decoder.decode();
    text += decoder.decode(step.value, { stream: true });
  }
}
