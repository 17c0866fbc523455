// The public types: everything wasm-bindgen declares from Rust, plus the JS classes and helpers.
import type { AccumulatorOptions, FinalMessage, Result, StreamEvent, StreamFormat } from "./llm_wire.js";
export * from "./llm_wire.js";
export { default } from "./llm_wire.js";

/**
 * Raw SSE bytes in, normalised events and one final message out. Every error it throws is an
 * `Error` with a `code`: `finished` after `free()` (and for `push` after `flush()` or
 * `finish()`), `invalid_input` for a bad argument, `limit_exceeded` past a limit.
 */
export declare class Accumulator {
  constructor(options?: AccumulatorOptions);
  /**
   * Feeds the next bytes (split anywhere) and returns the events they complete. A string is
   * taken as its UTF-8 bytes; one that ends inside a surrogate pair keeps its high half for the
   * next push.
   */
  push(chunk: Uint8Array | ArrayBuffer | string): StreamEvent[];
  /**
   * Ends the input and returns the last events (an unterminated event, held-back text,
   * tool-call ends). `push` is refused afterwards.
   */
  flush(): StreamEvent[];
  /**
   * Reports a transport failure (a reader error): the message keeps its text and ends
   * incomplete with an `indeterminate` error. Returns the last events.
   */
  abort(message: string): StreamEvent[];
  /** The consolidated message (flushing first when needed). May be called again. */
  finish(): FinalMessage;
  /**
   * The §8.6 view: tool calls, or the text (JSON-parsed when the agent has outputs).
   * Throws `model_refused` on a refusal and the stream's error on a failed stream.
   */
  result(): Result;
  /** The format in use: the configured one, or the detected one once known (`"auto"` before). */
  readonly format: StreamFormat;
  /** Frees the wasm object now (the garbage collector would, later); again, it does nothing. */
  free(): void;
  [Symbol.dispose](): void;
}

/** The last item of `streamEvents` and of an `AccumulatorStream`. */
export interface FinalEvent { type: "final"; message: FinalMessage }

/** Every event of a byte stream, then `{ type: "final", message }`. Frees its wasm object. */
export declare function streamEvents(
  body: ReadableStream<Uint8Array>,
  options?: AccumulatorOptions,
): AsyncGenerator<StreamEvent | FinalEvent, void, undefined>;

/** `response.body.pipeThrough(new AccumulatorStream())`: bytes in, events out. */
export declare class AccumulatorStream extends TransformStream<Uint8Array | ArrayBuffer | string, StreamEvent | FinalEvent> {
  constructor(options?: AccumulatorOptions);
  /** The final message, once the stream has ended. */
  readonly message: FinalMessage | undefined;
}
