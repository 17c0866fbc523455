//! Errors and values across the JS boundary.
