//! Usage normalisation for this API.
