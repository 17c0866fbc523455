//! wasm exports of buildChatArgs, buildRequest, genAiAttributes and registerTool.
