//! Response processing.
