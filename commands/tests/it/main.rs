//! The one integration-test binary of the `commands` crate.

mod authority;
mod relay;
mod store_contract;
mod support;
