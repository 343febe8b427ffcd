//! Integration tests of the `basel` binary and the REST edge.

mod broken_store;
mod cli;
mod faults;
mod harness;
mod inproc;
mod mcp;
mod replay;
mod rest;
mod rest_browser;
mod rest_contract;
mod rest_fuzz;
mod rest_steward;
mod serve;
mod support;
