//! Stop reason mapping for this API.
