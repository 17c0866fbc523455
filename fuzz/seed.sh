#!/usr/bin/env bash
# Seeds the fuzz corpora from the test fixtures (idempotent; run from anywhere).
#   sse, accumulator    every tests/fixtures/**/*.sse, behind the stream header of
#                       fuzz/src/lib.rs (config byte, four limit bytes, 0 split points);
#                       the accumulator also gets every Bedrock *.eventstream, each Gemini
#                       and Vertex stream as the JSON array Gemini sends without alt=sse, and
#                       each stream once more with live partial JSON and an agent's outputs
#   process             every tests/fixtures/**/*.json response body (not the *.expect.json)
#                       and the response of every process vector
#   build_chat_args     every toRequest vector of tests/conformance/prompty-vectors.json as
#                       {"agent", "messages"}, (options {stream: true}), as it is and with the
#                       provider google, vertex and bedrock
#   openapi             a few hand-made OpenAPI documents: parameters in every place, $refs
#                       (shared, chained, cyclic, fanning out), JSON and other request bodies
#   structured_output   the text of the structured-output fixtures and a few hand-made cases
set -euo pipefail
cd "$(dirname "$0")/.."
C=fuzz/corpus
mkdir -p "$C"/{sse,accumulator,process,build_chat_args,openapi,structured_output}

# header <config byte> <limit bytes: event buffered arguments message> <file> <out>: the config
# byte, the four limit bytes (0 keeps a default, n makes it n x 16 bytes, arguments n x 4), 0
# split points, the stream. All numbers decimal.
header() {
  { printf "\\$(printf '%03o' "$1")"
    for b in $2; do printf "\\$(printf '%03o' "$b")"; done
    printf '\000'
    cat "$3"; } > "$4"
}

while IFS= read -r -d '' f; do
  name=$(echo "${f#tests/fixtures/}" | tr '/' '_')
  dir=$(echo "${f#tests/fixtures/}" | cut -d/ -f1)
  # The accumulator target's format numbers (fuzz/fuzz_targets/accumulator.rs).
  case "$dir" in
    anthropic) fmt=2 ;;
    openai-responses) fmt=3 ;;
    bedrock) fmt=4 ;;
    gemini | vertex) fmt=5 ;;
    *) fmt=1 ;;
  esac
  if [[ "$f" == *.sse ]]; then
    header 0 "0 0 0 0" "$f" "$C/sse/$name"                            # default limits
    header 0 "255 0 0 0" "$f" "$C/sse/$name.small"                    # maxEventBytes 4080
    header 0 "64 96 0 0" "$f" "$C/sse/$name.tiny"                     # event 1024, buffered 1536
  fi
  header 0 "0 0 0 0" "$f" "$C/accumulator/$name.auto"                 # auto, default limits
  header "$fmt" "0 0 0 0" "$f" "$C/accumulator/$name.fmt"             # its own format
  header "$fmt" "0 0 16 32" "$f" "$C/accumulator/$name.small-args"    # arguments 64, message 512
  header "$fmt" "64 96 64 128" "$f" "$C/accumulator/$name.tiny"       # every limit small
  header $((fmt + 24)) "0 0 0 0" "$f" "$C/accumulator/$name.partial"  # live partial JSON, outputs
  if [ "$fmt" = 5 ]; then
    # The same chunks as one JSON array, `[{…}\r\n,{…}]`, as Gemini streams without alt=sse.
    array="$(mktemp)"
    python3 -c 'import sys; d = [l[6:] for l in open(sys.argv[1], newline="").read().splitlines() if l.startswith("data: ")]; sys.stdout.write("[" + "\r\n,".join(d) + "]")' "$f" > "$array"
    header 0 "0 0 0 0" "$array" "$C/accumulator/$name.array.auto"
    header 5 "0 0 16 32" "$array" "$C/accumulator/$name.array.small-args"
    rm -f "$array"
  fi
done < <(find tests/fixtures \( -name '*.sse' -o -name '*.eventstream' \) -print0)

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
        # The same agent and messages for the providers the vectors do not cover.
        for provider in ("google", "vertex", "bedrock"):
            other = json.loads(json.dumps(seed))
            other["agent"]["model"]["provider"] = provider
            other["agent"]["model"].pop("apiType", None)
            (corpus / "build_chat_args" / f"vector-{vec['name']}-{provider}.json").write_text(json.dumps(other))
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
# OpenAPI documents: every parameter place, shared and chained $refs, a cycle, refs that fan out.
param = lambda name, place: {"name": name, "in": place, "schema": {"type": "string"}}
documents = {
    "petstore": {"openapi": "3.0.0", "paths": {
        "/pets/{petId}": {"parameters": [{"name": "petId", "in": "path", "schema": {"type": "integer"}}],
            "get": {"operationId": "getPet", "summary": "Get", "parameters": [param("v", "query"), {"$ref": "#/components/parameters/L"}]},
            "put": {"description": "Put it", "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}},
        "/pets": {"post": {"requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}}},
                  "delete": {"parameters": [param("h", "header"), param("c", "cookie")]}}},
        "components": {"parameters": {"L": {"name": "limit", "in": "query", "schema": {"type": "integer"}}},
            "schemas": {"Pet": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "self": {"$ref": "#/components/schemas/Pet"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}}}}},
    "chain": {"openapi": "3.1.0", "paths": {"/a": {"$ref": "#/components/pathItems/A"}},
        "components": {"pathItems": {"A": {"get": {"parameters": [{"$ref": "#/components/parameters/P0"}]}}},
            "parameters": {f"P{i}": {"$ref": f"#/components/parameters/P{i + 1}"} for i in range(8)} | {"P8": param("deep", "query")}}},
    "fan-out": {"openapi": "3.0.0", "paths": {"/f": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}},
        "components": {"schemas": {f"S{i}": {"type": "object", "properties": {"l": {"$ref": f"#/components/schemas/S{i + 1}"}, "r": {"$ref": f"#/components/schemas/S{i + 1}"}}} for i in range(6)}
            | {"S6": {"type": "string", "description": "leaf"}}}},
    "odd": {"openapi": "3.0.0", "paths": {"/~1x/{y}": {"get": {"operationId": "", "parameters": [{"$ref": "#/paths/~1~01x~1{y}"}, {"$ref": "other.json#/p"}, 7]}},
        "/b": {"trace": {}, "options": None, "head": {"requestBody": {"content": {"application/vnd.api+json": {"schema": {"type": "object", "properties": {"q": {}}}}}}}}}},
}
for name, document in documents.items():
    (corpus / "openapi" / f"{name}.json").write_text(json.dumps(document))
PY
echo "seeded: $(for t in sse accumulator process build_chat_args openapi structured_output; do printf '%s=%s ' "$t" "$(ls "$C/$t" | wc -l)"; done)"
