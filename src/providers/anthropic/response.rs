//! Non-streamed response processing (DESIGN.md §8). Filled in by the process work.
