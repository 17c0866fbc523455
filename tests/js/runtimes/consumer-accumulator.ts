// The package's Accumulator class as a consumer sees it, compiled with `tsc --strict` (no emit)
// beside consumer.ts: its options are optional, and its methods take and give what they declare.
import { Accumulator } from "llm-wire";
import { Accumulator as StreamAccumulator } from "llm-wire/stream";
import type { FinalMessage, Result, StreamEvent, StreamFormat } from "llm-wire";

const acc = new Accumulator();
const streamOnly = new StreamAccumulator({ format: "anthropic" });
const format: StreamFormat = acc.format;
const pushed: StreamEvent[] = acc.push("data: {}\n\n");
const buffered: StreamEvent[] = acc.push(new ArrayBuffer(0));
const flushed: StreamEvent[] = acc.flush();
const aborted: StreamEvent[] = acc.abort("connection reset");
const result: Result = acc.result();
const message: FinalMessage = acc.finish();
acc.free();
streamOnly[Symbol.dispose]();
// @ts-expect-error: the message of abort is a string
acc.abort(new Error("reset"));
// @ts-expect-error: a chunk is bytes or a string
acc.push(42);
// @ts-expect-error: the format cannot be set
acc.format = "anthropic";
void [format, pushed, buffered, flushed, aborted, result, message];
