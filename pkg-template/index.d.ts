// The public types of `llm-wire` (the stream entry and the web entry re-export from here): the
// shapes wasm-bindgen declares from Rust, the functions that come straight from the glue, and
// the package's JS classes and helpers. The raw partial-JSON reader is not part of it.
import type {
  AccumulatorOptions,
  Agent,
  FinalMessage,
  JsonValue,
  PartialJsonOptions,
  ProcessOptions,
  Result,
  StreamEvent,
  StreamFormat,
} from "./llm_wire.js";

export type {
  AccumulatorOptions,
  Action,
  Agent,
  AgentOutput,
  Block,
  ContentPart,
  FinalMessage,
  FinishReason,
  GenAiAttributes,
  HttpRequest,
  JsonValue,
  Message,
  Model,
  ModelOptions,
  Outcome,
  PartialJsonOptions,
  ProcessOptions,
  Property,
  PropertyList,
  Bindings,
  McpTool,
  RequestOptions,
  ResponseFields,
  Result,
  Span,
  StreamError,
  StreamEvent,
  StreamFormat,
  StructuredOptions,
  Tool,
  ToolCall,
  ToolCallInput,
  ToolDefinition,
  Usage,
} from "./llm_wire.js";
export {
  asMessage,
  buildChatArgs,
  buildRequest,
  genAiAttributes,
  parseResponse,
  parseStructuredOutput,
  parseToolArguments,
  process,
  registerTool,
  toMessage,
} from "./llm_wire.js";

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
   * One already-decoded event object of a supported format (a Chat chunk, a Gemini response,
   * an Anthropic or Responses event, a Bedrock ConverseStream event as the AWS SDK gives it, or
   * its JSON text): the events its bytes would give.
   */
  pushJson(event: object | string): StreamEvent[];
  /**
   * Normalised events made by your own converter, for a format llm-wire does not read: the same
   * message, result and limits as if llm-wire had decoded them (complete once every choice has
   * a `finish`). Returns the events they give.
   */
  apply(events: StreamEvent[]): StreamEvent[];
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
   * The message so far, without ending the stream: `complete` is false until it has ended.
   * Costs one copy of the message: call it when a view is needed, not on every push.
   */
  snapshot(): FinalMessage;
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

/**
 * Every event of a byte stream, then `{ type: "final", message }`. Frees its wasm object. A
 * `null` body (a response without one) throws `invalid_input`.
 */
export declare function streamEvents(
  body: ReadableStream<Uint8Array> | null,
  options?: AccumulatorOptions,
): AsyncGenerator<StreamEvent | FinalEvent, void, undefined>;

/** `response.body.pipeThrough(new AccumulatorStream())`: bytes in, events out. */
export declare class AccumulatorStream extends TransformStream<Uint8Array | ArrayBuffer | string, StreamEvent | FinalEvent> {
  constructor(options?: AccumulatorOptions);
  /** The final message, once the stream has ended. */
  readonly message: FinalMessage | undefined;
}

/**
 * §8's process for a `fetch` Response, streamed or not: read to its end, it resolves to what
 * `process` gives for its body or `result()` for its stream, and `options.onSpan` receives the
 * `process` span. Streamed when its content type is `text/event-stream` (or AWS's event stream),
 * else when its first byte that is not blank is anything but `{`. Only in `llm-wire`: the stream
 * entry has no `process` for a body that is not streamed.
 */
export declare function processResponse(agent: Agent, response: Response, options?: ProcessOptions): Promise<Result>;

/**
 * JSON text read in pieces (strings, or UTF-8 bytes split anywhere), and the value so far after
 * each: strings grow, arrays and objects gain members, numbers and literals appear complete.
 * Text that stops being JSON throws `invalid_json` (and every later call does); with `outputs`,
 * a member that breaks them throws `validation_failed`. Unchanged subtrees keep their identity.
 */
export declare class PartialJson {
  constructor(options?: PartialJsonOptions);
  /** The value so far: `undefined` until something can be shown. */
  readonly value: JsonValue | undefined;
  /** Reads the next piece; the value so far (the same object when nothing changed). */
  push(piece: string | Uint8Array): JsonValue | undefined;
  /** Ends the text: the final value; throws when it is not complete JSON. */
  finish(): JsonValue;
  /** Frees the wasm reader now (the garbage collector would, later). */
  free(): void;
}

/**
 * What `text` shows so far, or its value when it is complete JSON; `undefined` when nothing can
 * be shown yet. Throws `invalid_json` when the text cannot be the start of JSON.
 */
export declare function parsePartialJson(text: string, options?: PartialJsonOptions): JsonValue | undefined;
