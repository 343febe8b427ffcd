//! commands (being built).
