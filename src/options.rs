//! ModelOptions → provider request parameters (§7.1.5, §7.6).
