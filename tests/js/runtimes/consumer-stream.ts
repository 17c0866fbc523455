// A consumer of the stream entry's published types (`llm-wire/stream`), compiled with
// `tsc --strict` (no emit) in the tests beside consumer.ts.
import { Accumulator, AccumulatorStream, streamEvents } from "llm-wire/stream";
import type { AccumulatorOptions, FinalMessage, Span, StreamEvent, ToolCall } from "llm-wire/stream";

const spans: Span[] = [];
const options: AccumulatorOptions = {
  format: "anthropic",
  agent: { model: { id: "claude-sonnet-4-5", provider: "anthropic" } },
  onSpan: (span: Span) => spans.push(span),
};
const acc = new Accumulator(options);
const events: StreamEvent[] = acc.push("event: ping\ndata: {}\n\n");
const message: FinalMessage = acc.finish();
const calls: ToolCall[] = message.toolCalls;
void events;
void calls;

async function read(body: ReadableStream<Uint8Array>): Promise<FinalMessage | undefined> {
  for await (const item of streamEvents(body)) {
    if (item.type === "final") return item.message;
  }
  return undefined;
}

const piped: ReadableStream = new ReadableStream<Uint8Array>().pipeThrough(new AccumulatorStream());
void read;
void piped;

// Live partial JSON is in this entry too; the request and response functions are not.
import { PartialJson, parsePartialJson } from "llm-wire/stream";
import * as streamEntry from "llm-wire/stream";
import type { JsonValue } from "llm-wire/stream";

const reader = new PartialJson();
const value: JsonValue | undefined = reader.push("[1, 2");
const whole: JsonValue | undefined = parsePartialJson("[1, 2]");
// @ts-expect-error: the stream entry has no buildChatArgs
void streamEntry.buildChatArgs;
// @ts-expect-error: nor processResponse (it has no process for a body)
void streamEntry.processResponse;
void [value, whole];
