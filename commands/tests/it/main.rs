//! The one integration-test binary of the `commands` crate.

mod store_contract;
mod support;
