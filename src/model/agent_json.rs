//! Reading Agent and Message from JSON, with an exact path on every invalid_input error.
