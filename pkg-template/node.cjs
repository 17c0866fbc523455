// Node (CommonJS): `require("llm-wire")`. The glue instantiates the module synchronously.
"use strict";
const glue = require("./llm_wire.cjs");
const { makeHelpers } = require("./helpers.cjs");

module.exports = { ...glue, ...makeHelpers(glue.Accumulator) };
