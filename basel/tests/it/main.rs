//! Integration tests of the `basel` binary and the REST edge.
//!
//! Two harnesses: [`process`] runs the real `basel` binary, [`inproc`] the
//! REST app in this process; [`support`] holds what they share.

mod audit;
mod broken_store;
mod browser_home;
mod cli;
mod cli_errors;
mod console;
mod console_browser;
mod console_forms;
mod console_mail;
mod directory_release;
mod divergence;
mod documents;
mod edge;
mod faults;
mod first_hour;
mod first_hour_frictions;
mod first_release;
mod fuzz;
mod hardening;
mod identity;
mod imports;
mod inproc;
mod lockout;
mod mail;
mod mcp;
mod nats_cluster;
mod process;
mod readiness_roles;
mod replay;
mod rest;
mod rest_browser;
mod rest_changes;
mod rest_consistency;
mod rest_contacts;
mod rest_errors;
mod rest_first_hour;
mod rest_fuzz;
mod rest_history;
mod rest_list;
mod rest_openapi;
mod rest_ops;
mod rest_record;
mod rest_register;
mod rest_shipments;
mod rest_steward;
mod running;
mod serve;
mod shipment_routes;
mod support;
mod tidy_ups;
mod traces;
mod transfer;
mod transfer_safety;
