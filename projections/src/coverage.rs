//! How much of the directory is known: integer counts over every Party, for
//! `GET /api/v1/coverage`, the `/metrics` gauges and the MCP resource
//! `basel://coverage`.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;

use domain::authority::Role;

use crate::directory::AuthorityRow;

/// Counts over every Party of the directory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Coverage {
    /// Parties in the directory.
    pub parties: i64,
    /// Parties with at least one competent authority (a primary one).
    pub with_competent_authority: i64,
    /// Parties whose only known contact is the focal point.
    pub focal_point_only: i64,
    /// Parties with no contact at all.
    pub no_contact: i64,
    /// Parties whose primary competent authority is verified.
    pub verified: i64,
    /// Parties whose record is stale (the primary authority's last check is
    /// older than the bound, or missing — also when none is known).
    pub stale: i64,
    /// Parties with a contact a check reached in the last 365 days.
    pub checked_last_365_days: i64,
}

/// The coverage of `rows` on `today`, `stale_after_days` the staleness bound.
pub fn of(rows: &[AuthorityRow], today: NaiveDate, stale_after_days: i64) -> Coverage {
    let mut c = Coverage::default();
    let within =
        |day: Option<NaiveDate>, days: i64| day.is_some_and(|d| (today - d).num_days() <= days);
    for row in rows {
        let state = &row.state;
        c.parties += 1;
        let primary = state.primary_contact();
        if primary.is_some() {
            c.with_competent_authority += 1;
        } else if state.contacts.iter().any(|x| x.role == Role::FocalPoint) {
            c.focal_point_only += 1;
        }
        if state.contacts.is_empty() {
            c.no_contact += 1;
        }
        if row.verified {
            c.verified += 1;
        }
        if !within(
            primary.and_then(|p| p.provenance.last_checked),
            stale_after_days,
        ) {
            c.stale += 1;
        }
        if state
            .contacts
            .iter()
            .any(|x| within(x.provenance.last_checked, 365) && x.provenance.steward.is_some())
        {
            c.checked_last_365_days += 1;
        }
    }
    c
}

/// The coverage of the whole directory now.
///
/// # Errors
/// [`crate::ProjectionError::Database`] when the directory cannot be read.
pub async fn now(
    db: &crate::ReadDb,
    today: NaiveDate,
    stale_after_days: i64,
) -> Result<Coverage, crate::ProjectionError> {
    let rows = crate::directory::Reader::new(db.clone()).all().await?;
    Ok(of(&rows, today, stale_after_days))
}
