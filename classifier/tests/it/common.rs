//! What the test modules share: one classifier built once per test
//! binary, and every code an answer lists.

use classifier::{Classification, Classifier};
use std::sync::OnceLock;

/// The bundled classifier, built once for the whole test binary.
pub fn classifier() -> &'static Classifier {
    static C: OnceLock<Classifier> = OnceLock::new();
    C.get_or_init(|| Classifier::bundled().expect("the embedded knowledge base builds"))
}

/// The A, B and Y codes of an answer, in that order.
pub fn all_codes(r: &Classification) -> Vec<&str> {
    r.a_codes
        .iter()
        .chain(&r.b_codes)
        .chain(&r.y_codes)
        .map(|c| c.code.as_ref())
        .collect()
}
