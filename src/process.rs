//! process and toMessage (§8): dispatch by provider and apiType.
