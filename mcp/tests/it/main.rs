//! In-process tests of the MCP server: the router on port 0 over a fresh
//! SQLite store, driven by the rmcp client and by raw HTTP.

mod contacts;
mod dormant;
mod http;
mod interop;
mod live;
mod node_clients;
mod resources;
mod schema;
mod sessions;
mod streams;
mod support;
mod tools;
