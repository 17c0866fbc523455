//! Request body building.
