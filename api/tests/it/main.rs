//! Integration tests of the `basel` binary and the REST edge.

mod cli;
mod serve;
mod support;
