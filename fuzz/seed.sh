#!/usr/bin/env bash
# Seeds the fuzz corpora from the test fixtures (idempotent; run from anywhere).
#   sse, accumulator    every tests/fixtures/**/*.sse, behind the 2-byte stream header of
#                       fuzz/src/lib.rs (config byte, 0 split points)
#   process             every tests/fixtures/**/*.json response body (not the *.expect.json)
#                       and the response of every process vector
#   build_chat_args     every toRequest vector of tests/conformance/prompty-vectors.json as
#                       {"agent", "messages"}, (options {stream: true})
#   structured_output   the text of the structured-output fixtures and a few hand-made cases
set -euo pipefail
cd "$(dirname "$0")/.."
C=fuzz/corpus
mkdir -p "$C"/{sse,accumulator,process,build_chat_args,structured_output}

# header <config byte, decimal> <file> <out>: the config byte, 0 split points, the stream.
header() { { printf "\\$(printf '%03o' "$1")\\000"; cat "$2"; } > "$3"; }

while IFS= read -r -d '' f; do
  name=$(echo "${f#tests/fixtures/}" | tr '/' '_')
  dir=$(echo "${f#tests/fixtures/}" | cut -d/ -f1)
  case "$dir" in
    anthropic) fmt=2 ;;
    openai-responses) fmt=3 ;;
    *) fmt=1 ;;
  esac
  header 0 "$f" "$C/sse/$name"                                   # default limits
  header 1 "$f" "$C/sse/$name.small"                             # maxEventBytes 4096
  header 0 "$f" "$C/accumulator/$name.auto"                      # auto, default limits
  header "$fmt" "$f" "$C/accumulator/$name.fmt"                  # its own format
  header $((fmt + 4 * 2)) "$f" "$C/accumulator/$name.small-args" # small tool/message limits
  header $((fmt + 4 * 3)) "$f" "$C/accumulator/$name.tiny"       # every limit small
done < <(find tests/fixtures -name '*.sse' -print0)

while IFS= read -r -d '' f; do
  cp "$f" "$C/process/$(echo "${f#tests/fixtures/}" | tr '/' '_')"
done < <(find tests/fixtures -name '*.json' ! -name '*.expect.json' -print0)

python3 - "$C" <<'PY'
import json, pathlib, sys, glob
corpus = pathlib.Path(sys.argv[1])
vectors = json.load(open("tests/conformance/prompty-vectors.json"))["vectors"]
for v in vectors:
    vec, inp = v["vector"], v["vector"]["input"]
    if v["operation"] == "toRequest":
        agent = {"model": {"id": inp.get("model_id"), "provider": inp.get("provider"),
                           "apiType": inp.get("apiType"), "options": inp.get("options")},
                 "tools": inp.get("tools"), "outputs": inp.get("outputs")}
        agent = {k: v for k, v in agent.items() if v is not None}
        agent["model"] = {k: v for k, v in agent["model"].items() if v is not None}
        seed = {"agent": agent, "messages": inp.get("messages", []), "options": {"stream": True}}
        (corpus / "build_chat_args" / f"vector-{vec['name']}.json").write_text(json.dumps(seed))
    elif v["operation"] == "process" and isinstance(inp.get("response"), dict):
        (corpus / "process" / f"vector-{vec['name']}.json").write_text(json.dumps(inp["response"]))
# Structured output: model texts, damaged the usual ways.
texts = {
    "plain": '{"city": "Paris", "temp": 22.5, "count": 3, "ok": true}',
    "fenced": 'Here you go:\n```json\n{"city": "Paris", "temp": 22}\n```\n',
    "prose": 'The answer is {"unit": "c", "tags": ["a", "b"], "matrix": [[1, 2], [3]]} as requested.',
    "trailing-comma": '{"items": [{"name": "x", "price": 1.5, "meta": {"__proto__": "p", "constructor": 1},},], "level": 2,}',
    "nested": '{"items": [{"name": "a"}, {"name": "b", "meta": {}}], "level": 3}',
}
for name, text in texts.items():
    (corpus / "structured_output" / name).write_text(text)
PY
echo "seeded: $(for t in sse accumulator process build_chat_args structured_output; do printf '%s=%s ' "$t" "$(ls "$C/$t" | wc -l)"; done)"
