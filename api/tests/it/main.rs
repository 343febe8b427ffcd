//! Integration tests of the `basel` binary and the REST edge.

mod cli;
mod rest;
mod serve;
mod support;
