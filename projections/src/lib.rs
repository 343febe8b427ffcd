//! projections (being built).
