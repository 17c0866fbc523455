// The public types of `llm-wire/stream`: the Accumulator, its helpers and live partial JSON, with
// the shapes they take and give (the same declarations as `llm-wire`'s).
export type {
  AccumulatorOptions,
  Agent,
  Block,
  ContentPart,
  FinalEvent,
  FinalMessage,
  FinishReason,
  JsonValue,
  Message,
  Model,
  ModelOptions,
  Outcome,
  PartialJsonOptions,
  Property,
  PropertyList,
  Result,
  Span,
  StreamError,
  StreamEvent,
  StreamFormat,
  Tool,
  ToolCall,
  Usage,
} from "../index.js";
export { Accumulator, AccumulatorStream, PartialJson, parsePartialJson, streamEvents } from "../index.js";
