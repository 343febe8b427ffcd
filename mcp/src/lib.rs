//! mcp (being built).
