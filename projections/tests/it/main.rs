//! The one integration-test binary of the `projections` crate.

mod follow;
mod registry;
mod runner;
mod stream_gaps;
