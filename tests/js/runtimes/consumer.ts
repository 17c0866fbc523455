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

// Optional arguments may be left out, as the README leaves them out.
import { buildRequest, genAiAttributes, parsePartialJson, parseStructuredOutput, PartialJson, process, processResponse, toMessage } from "llm-wire";
import type { GenAiAttributes, HttpRequest, JsonValue, Result, Span } from "llm-wire";
import * as wire from "llm-wire";

const request: HttpRequest = buildRequest(agent, messages);
const streamed: HttpRequest = buildRequest(agent, messages, { stream: true, apiKey: "k" });
const text = '{"choices":[{"message":{"content":"{\\"city\\":\\"Oslo\\"}"},"finish_reason":"stop"}]}';
const result: Result = process(agent, text);
const spans: Span[] = [];
const traced: Result = process(agent, JSON.parse(text), { onSpan: (span) => spans.push(span) });
const fromBody: FinalMessage = toMessage(text);
const withAgent: FinalMessage = toMessage(JSON.parse(text), agent);
const attributes: GenAiAttributes = genAiAttributes(agent, request);
const withResponse: GenAiAttributes = genAiAttributes(agent, body, fromBody);
const parsed: JsonValue = parseStructuredOutput('{"city":"Oslo"}', [{ name: "city", kind: "string" }]);
const lenient: JsonValue = parseStructuredOutput("```json\n{}\n```", [], { lenient: true });

async function fromFetch(response: Response): Promise<Result> {
  return processResponse(agent, response, { onSpan: (span) => spans.push(span) });
}
const promised: Promise<Result> = processResponse(agent, new Response("{}"));

const partial = new PartialJson({ lenient: true });
const sofar: JsonValue | undefined = partial.push('{"a": [1, "x');
const bytes: JsonValue | undefined = partial.push(new Uint8Array([34, 93, 125]));
const done: JsonValue = partial.finish();
const current: JsonValue | undefined = partial.value;
partial.free();
const oneShot: JsonValue | undefined = parsePartialJson('{"a": tr');
const checked: JsonValue | undefined = parsePartialJson("{", { outputs: [{ name: "a", kind: "boolean" }] });

// The raw reader and the web entry's init are not part of this entry.
// @ts-expect-error: PartialJsonCore is internal
void wire.PartialJsonCore;
// @ts-expect-error: partialJsonChanges is internal
void wire.partialJsonChanges;
// @ts-expect-error: init is the web entry's (`llm-wire/web`) only
void wire.default;
// @ts-expect-error: initSync is the web entry's only
void wire.initSync;
// @ts-expect-error: processResponse takes a fetch Response
void processResponse(agent, "{}");
void [streamed, result, traced, withAgent, attributes, withResponse, parsed, lenient, fromFetch, promised];
void [sofar, bytes, done, current, oneShot, checked];

// Every input form the design accepts: a model by its id, property lists in Prompty's wrapper,
// an MCP `tools/list` result whole, bindings as a list, a text part without a value, and tool
// calls whose arguments are already parsed.
import { parseToolArguments } from "llm-wire";
import type { Action, ContentPart, PropertyList, Tool } from "llm-wire";

const byId: Agent = { model: "gpt-4o-mini", outputs: { properties: [{ name: "city", kind: "string" }] } };
const tools: Tool[] = [
  { kind: "function", name: "f", parameters: { properties: [{ name: "a", kind: "integer" }] }, bindings: [{ name: "a", input: "user_a" }] },
  { kind: "mcp", name: "fs", tools: { tools: [{ name: "read_file" }] } },
  { kind: "prompty", name: "p", path: "p.prompty", child: { inputs: [{ name: "text", kind: "string" }] } },
];
const empty: ContentPart = { kind: "text" };
const outputs: PropertyList = [{ name: "when", kind: "object", properties: { properties: [{ name: "day", kind: "integer" }] } }];
const actions: Action[] = parseToolArguments([{ id: "c", name: "f", arguments: { a: 1 } }, { id: "d", name: "g", arguments: "" }]);
const structured: JsonValue = parseStructuredOutput("{}", { properties: [] });
// @ts-expect-error: a part other than text needs its value
const noImage: ContentPart = { kind: "image" };
void [byId, tools, empty, outputs, actions, structured, noImage];
