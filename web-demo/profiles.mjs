// The demo's conversations, shared by the page (the agent given to buildRequest and the
// Accumulator), the server (the recordings it replays, the agent it forwards live) and the
// Playwright test.
//
// One entry is one conversation: an agent, the user's first message and, for replay, the
// recorded provider stream of each assistant turn (paths under tests/fixtures/), in order. The
// page runs the tool calls of a turn itself (web-demo/tools.mjs) and sends the results in the
// next turn. A new provider (Gemini, Bedrock) is one more entry: the page builds its request
// with buildRequest and reads its stream with an Accumulator in format "auto", so neither the
// page nor the server names an API.
//
// Fields: `id`; `title` and `summary` (what the visitor reads); `api` (the wire format, as
// shown); `agent`; `prompt`; `turns`; `baseUrl` when the provider has no default address (shown
// in the request; live mode uses LLM_WIRE_BASE_URL).

const fn = (name, description, parameters = []) => ({ kind: "function", name, description, parameters });
const string = (name, description) => ({ name, kind: "string", description, required: true });

export const PROFILES = [
  {
    id: "anthropic-thinking",
    title: "Think, then answer",
    summary: "Extended thinking with its signature, then a markdown answer.",
    api: "Anthropic Messages",
    agent: {
      model: {
        id: "claude-sonnet-4-20250514", provider: "anthropic",
        options: { maxOutputTokens: 2048, additionalProperties: { thinking: { type: "enabled", budget_tokens: 1024 } } },
      },
    },
    prompt: "How do I cross the street safely?",
    turns: ["anthropic/pyd-thinking-signature-stream.sse"],
  },
  {
    id: "responses-calculator",
    title: "Calculator agent",
    summary: "A reasoning summary, then three tool calls run in the page and a fourth turn that answers.",
    api: "OpenAI Responses",
    agent: {
      model: {
        id: "gpt-5.1-codex-max", provider: "openai", apiType: "responses",
        options: { additionalProperties: { reasoning: { effort: "medium", summary: "auto" } } },
      },
      tools: [fn("calculator", "Basic arithmetic on two numbers.", [
        { name: "a", kind: "float", required: true },
        { name: "b", kind: "float", required: true },
        { name: "op", kind: "string", required: true, enumValues: ["add", "subtract", "multiply", "divide"] },
      ])],
    },
    prompt: "Add 12 and 7, multiply by 3, then by 10. Use the calculator.",
    turns: [1, 2, 3, 4].map((n) => `openai-responses/vercel-reasoning-summary-tool-calls.part${n}.sse`),
  },
  {
    id: "chat-agent",
    title: "Parallel tools, then a structured answer",
    summary: "Two tool calls at once, one more, then the answer as a tool's arguments: three turns.",
    api: "OpenAI Chat Completions",
    agent: {
      model: { id: "gpt-4o", provider: "openai", options: { allowMultipleToolCalls: true } },
      tools: [
        fn("get_country", "The user's country."),
        fn("get_product_name", "The product's name."),
        fn("get_weather", "The current weather in a city.", [string("city", "The city's name.")]),
        fn("final_result", "The final answer to the user.", [{
          name: "answers", kind: "array", required: true,
          items: { name: "answer", kind: "object", properties: [string("label", "What this answers."), string("answer", "The answer.")] },
        }]),
      ],
    },
    prompt: "Tell me: the capital of the country; the weather there; the product name.",
    turns: ["openai-chat/pyd-parallel-tool-calls.sse", "openai-chat/pyd-single-tool-call-split-args.sse", "openai-chat/pyd-tool-call-structured-args.sse"],
  },
  {
    id: "minimax-think-tags",
    title: "A proof, thinking inline",
    summary: "Reasoning sent as <think> tags inside the text, split out; a code block in the answer.",
    api: "OpenAI Chat Completions",
    agent: { model: { id: "MiniMax-M2.7", provider: "minimax" } },
    baseUrl: "https://api.minimax.io/v1",
    prompt: "Prove that the sum of two odd numbers is even. Be concise.",
    turns: ["minimax/gomodel-m27-think-tags-stream.sse"],
  },
  {
    id: "openai-text",
    title: "A quick answer",
    summary: "Plain text streamed in, with token usage at the end.",
    api: "OpenAI Chat Completions",
    agent: { model: { id: "gpt-4o-mini", provider: "openai" } },
    prompt: "What is the capital of the UK?",
    turns: ["openai-chat/pyd-text-stream-usage.sse"],
  },
  {
    id: "deepseek-reasoning-tool",
    title: "Reasoning, then a tool call",
    summary: "DeepSeek's reasoning_content, then a weather lookup. The recording ends at the call.",
    api: "OpenAI Chat Completions",
    agent: {
      model: { id: "deepseek-reasoner", provider: "deepseek" },
      tools: [fn("weather", "The current weather at a location.", [string("location", "A city or place.")])],
    },
    prompt: "What is the weather in San Francisco?",
    turns: ["deepseek/vercel-reasoning-tool-call.sse"],
  },
  {
    id: "openrouter-error",
    title: "An error mid-stream",
    summary: "OpenRouter stops with an error inside an ordinary chunk, after some reasoning.",
    api: "OpenAI Chat Completions",
    agent: { model: { id: "minimax/minimax-m2:free", provider: "openrouter", options: { maxOutputTokens: 10 } } },
    prompt: "Hello!",
    turns: ["openrouter/pyd-stream-error-minimax.sse"],
  },
  {
    id: "groq-error-event",
    title: "A tool call the server refused",
    summary: "Groq reasons, then sends an error event: the call did not match its schema.",
    api: "OpenAI Chat Completions",
    agent: {
      model: { id: "openai/gpt-oss-120b", provider: "groq" },
      tools: [fn("get_something_by_name", "Looks a thing up by name.", [string("name", "The thing's name.")])],
    },
    prompt: "Call the tool with invalid parameters first, then with valid ones.",
    turns: ["groq/pyd-error-event-mid-stream.sse"],
  },
];

export const SYSTEM = "You are a concise assistant.";

/** The profile's agent, with the model id replaced when live mode names one (LLM_WIRE_MODEL). */
export function agentOf(profile, model) {
  return model ? { ...profile.agent, model: { ...profile.agent.model, id: model } } : profile.agent;
}
