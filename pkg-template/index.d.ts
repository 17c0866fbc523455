// The public types: everything wasm-bindgen declares from Rust, plus the JS helpers.
import type { AccumulatorOptions, FinalMessage, StreamEvent } from "./llm_wire.js";
export * from "./llm_wire.js";
export { default } from "./llm_wire.js";

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
