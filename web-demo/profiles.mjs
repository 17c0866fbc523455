// The demo's provider profiles, shared by the page (the agent given to buildChatArgs and the
// Accumulator), the server (the recorded stream it replays) and the Playwright test.
// `fixture` is a path under tests/fixtures/; its recording is what the provider answered.

const fn = (name, description, parameters = []) => ({ kind: "function", name, description, parameters });

export const PROFILES = [
  {
    id: "openai-text",
    label: "OpenAI Chat · text and usage",
    fixture: "openai-chat/pyd-text-stream-usage.sse",
    agent: { model: { id: "gpt-4o-mini", provider: "openai", apiType: "chat" } },
    prompt: "What is the capital of the UK?",
  },
  {
    id: "anthropic-thinking",
    label: "Anthropic · thinking, then text",
    fixture: "anthropic/pyd-thinking-signature-stream.sse",
    agent: {
      model: {
        id: "claude-sonnet-4-20250514", provider: "anthropic",
        options: { maxOutputTokens: 2048, additionalProperties: { thinking: { type: "enabled", budget_tokens: 1024 } } },
      },
    },
    prompt: "How do I cross the street safely?",
  },
  {
    id: "responses-reasoning-tools",
    label: "OpenAI Responses · reasoning summary and a tool call",
    fixture: "openai-responses/vercel-reasoning-summary-tool-calls.part1.sse",
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
  },
  {
    id: "deepseek-reasoning-tool",
    label: "DeepSeek · reasoning and a tool call",
    fixture: "deepseek/vercel-reasoning-tool-call.sse",
    agent: {
      model: { id: "deepseek-reasoner", provider: "deepseek" },
      tools: [fn("weather", "The current weather at a location.", [{ name: "location", kind: "string", required: true }])],
    },
    prompt: "What is the weather in San Francisco?",
  },
  {
    id: "minimax-think-tags",
    label: "MiniMax · <think> tags in the text",
    fixture: "minimax/gomodel-m27-think-tags-stream.sse",
    agent: { model: { id: "MiniMax-M2.7", provider: "minimax" } },
    prompt: "Prove that the sum of two odd numbers is even. Be concise.",
  },
  {
    id: "parallel-tools",
    label: "OpenAI Chat · parallel tool calls",
    fixture: "openai-chat/pyd-parallel-tool-calls.sse",
    agent: {
      model: { id: "gpt-4o", provider: "openai", options: { allowMultipleToolCalls: true } },
      tools: [fn("get_country", "The user's country."), fn("get_product_name", "The product's name.")],
    },
    prompt: "Which country am I in, and what is the product called?",
  },
  {
    id: "openrouter-error",
    label: "OpenRouter · an error mid-stream",
    fixture: "openrouter/pyd-stream-error-minimax.sse",
    agent: { model: { id: "minimax/minimax-m2:free", provider: "openrouter", options: { maxOutputTokens: 10 } } },
    prompt: "Hello!",
  },
  {
    id: "groq-error-event",
    label: "Groq · reasoning, then an error event",
    fixture: "groq/pyd-error-event-mid-stream.sse",
    agent: {
      model: { id: "openai/gpt-oss-120b", provider: "groq" },
      tools: [fn("get_something_by_name", "Looks a thing up by name.", [{ name: "name", kind: "string", required: true }])],
    },
    prompt: "Call the tool with invalid parameters first, then with valid ones.",
  },
];

export const SYSTEM = "You are a concise assistant.";

/** The wire API of an agent: what the server forwards to and how it asks for a stream. */
export function apiOf(agent) {
  if (agent.model.provider === "anthropic") return "anthropic";
  return agent.model.apiType === "responses" ? "responses" : "chat";
}

/** The request body as sent: buildChatArgs's body with streaming switched on. */
export function streamingBody(agent, body) {
  return apiOf(agent) === "chat" ? { ...body, stream: true, stream_options: { include_usage: true } } : { ...body, stream: true };
}
