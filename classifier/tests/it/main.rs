//! Integration tests of the classifier crate (one test binary).

mod classifier;
mod classifier_codes;
mod classifier_dictionary;
mod classifier_explanations;
mod classifier_golden;
mod classifier_properties;
mod classifier_roles;
mod classifier_word_roles;
mod common;
mod trade_cases;
