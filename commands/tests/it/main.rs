//! The one integration-test binary of the `commands` crate.

mod audit;
mod authority;
mod identity;
mod relay;
mod store_contract;
mod support;
