//! The output parser: tool-argument parsing and structured-output validation.
