// A consumer of the published types: compiled with `tsc --strict` (no emit) in the tests.
// Assignments with explicit types make a wrong declaration a compile error.
import { Accumulator, AccumulatorStream, buildChatArgs, streamEvents } from "llm-wire";
import type { Agent, FinalMessage, Message, StreamEvent, ToolCall, Usage } from "llm-wire";

const agent: Agent = { model: { id: "gpt-4o-mini", provider: "openai", options: { temperature: 0.2 } } };
const messages: Message[] = [{ role: "user", content: [{ kind: "text", value: "Hi" }] }];
const body: Record<string, unknown> = buildChatArgs(agent, messages);

const acc = new Accumulator({ format: "openai-chat", maxEventBytes: 1 << 20 });
const events: StreamEvent[] = acc.push(new Uint8Array([100, 97, 116, 97]));
for (const event of events) {
  if (event.type === "text") {
    const text: string = event.text;
    void text;
  } else if (event.type === "tool_call_delta") {
    const delta: string = event.argumentsDelta;
    void delta;
  }
}
const message: FinalMessage = acc.finish();
const calls: ToolCall[] = message.toolCalls;
const usage: Usage | null = message.usage;
const complete: boolean = message.complete;

async function consume(stream: ReadableStream<Uint8Array>): Promise<FinalMessage | undefined> {
  for await (const item of streamEvents(stream, { format: "auto" })) {
    if (item.type === "final") return item.message;
  }
  return undefined;
}
const transform: AccumulatorStream = new AccumulatorStream();
const last: FinalMessage | undefined = transform.message;
void [body, calls, usage, complete, consume, last];
