//! Projection of every tool kind to function definitions (§7.1.3): function, prompty, mcp, openapi, custom.
