// Node (CommonJS): `require("llm-wire")`. The glue instantiates the module synchronously. The
// same surface as api.mjs: the glue's functions (the stream module has none of the request and
// response ones), the package's classes and helpers, and not the raw partial-JSON reader.
"use strict";
const { Accumulator, PartialJsonCore, partialJsonChanges, ...functions } = require("./llm_wire.cjs");
const { makeHelpers } = require("./helpers.cjs");
const { makePartial } = require("./partial.cjs");

module.exports = {
  ...functions,
  ...makeHelpers(Accumulator, functions.process),
  ...makePartial(PartialJsonCore, partialJsonChanges),
};
