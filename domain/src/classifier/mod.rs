//! The waste classifier (being built).
