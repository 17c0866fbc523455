//! Request body building (DESIGN.md §7). Filled in by the buildChatArgs work.
