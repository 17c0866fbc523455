//! Property lists → JSON Schema (§7.1.4), strict mode included (DESIGN.md §3).
