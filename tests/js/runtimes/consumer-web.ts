// A consumer of the web entry (`llm-wire/web`): a plain page that calls `init()` once. Its types
// have `init` and `initSync`, and the rest of `llm-wire`'s.
import init, { initSync, Accumulator, buildChatArgs, PartialJson } from "llm-wire/web";
import initStream, { Accumulator as StreamAccumulator } from "llm-wire/stream/web";
import type { InitOutput } from "llm-wire/web";

async function start(): Promise<void> {
  const exports: InitOutput = await init();
  await init({ module_or_path: new URL("https://example.com/llm_wire_bg.wasm") });
  await initStream();
  const acc = new Accumulator();
  const other = new StreamAccumulator({ format: "openai-chat" });
  void [exports, acc, other, buildChatArgs({ model: { id: "m" } }, []), new PartialJson()];
}
function startFrom(bytes: Uint8Array): void {
  initSync({ module: bytes });
}
void [start, startFrom];
