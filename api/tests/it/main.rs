//! Integration tests of the `basel` binary and the REST edge.
//!
//! Two harnesses: [`process`] runs the real `basel` binary, [`inproc`] the
//! REST app in this process; [`support`] holds what they share.

mod broken_store;
mod cli;
mod faults;
mod first_release;
mod inproc;
mod mcp;
mod process;
mod replay;
mod rest;
mod rest_browser;
mod rest_changes;
mod rest_contacts;
mod rest_errors;
mod rest_fuzz;
mod rest_history;
mod rest_list;
mod rest_openapi;
mod rest_ops;
mod rest_record;
mod rest_register;
mod rest_shipments;
mod rest_steward;
mod serve;
mod support;
