//! buildChatArgs, buildRequest and the gen_ai tracing attributes (§7): dispatch by provider and apiType.
