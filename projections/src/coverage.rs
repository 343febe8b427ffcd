//! How much of the directory is known: counts over every Party, for
//! `GET /api/v1/coverage`, the `/metrics` gauges, the start page and the MCP
//! resource `basel://coverage`. Only Parties count (a record of a code the
//! registry does not hold as a Party is left out), and age is counted
//! honestly: a contact is as old as its newest source or its last verified
//! check, whichever is later.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;

use domain::authority::Role;

use crate::contacts::age;
use crate::directory::AuthorityRow;

/// The age bands, youngest first, and `unknown`.
pub const AGE_BANDS: [&str; 5] = ["under_1y", "1_to_5y", "5_to_15y", "over_15y", "unknown"];

/// Counts over the contacts of every Party.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ContactCounts {
    /// Contacts served (defunct ones are not).
    pub total: i64,
    /// By role: `competent_authority`, `focal_point`, and
    /// `competent_authority_and_focal_point` for an office that is both.
    pub by_role: BTreeMap<String, i64>,
    /// By the kind of their newest source (`unknown` without one).
    pub by_source_kind: BTreeMap<String, i64>,
    /// By age band (see [`AGE_BANDS`]).
    pub by_age_band: BTreeMap<String, i64>,
    /// Verified by a steward's check that reached the authority.
    pub verified: i64,
}

/// Counts over every Party of the directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Coverage {
    /// Parties in the directory (191 when every Party has its record).
    pub parties: i64,
    /// Parties with at least one contact traced to a public source.
    pub with_traced_contact: i64,
    /// Parties with a primary competent authority (of national scope).
    pub with_competent_authority: i64,
    /// Parties with competent authorities, none of national scope (e.g.
    /// only regional ones).
    pub with_area_authorities_only: i64,
    /// Parties whose only known contact is the focal point.
    pub focal_point_only: i64,
    /// Parties with no contact at all.
    pub no_contact: i64,
    /// Parties whose primary competent authority is verified.
    pub verified: i64,
    /// Parties whose record is stale (what is known of the primary
    /// authority is older than the bound or of unknown age, or there is none).
    pub stale: i64,
    /// Parties with a contact a steward's check reached and verified in the
    /// last 365 days.
    pub checked_last_365_days: i64,
    /// Parties by the age of their newest contact (see [`AGE_BANDS`]).
    pub parties_by_age_band: BTreeMap<String, i64>,
    /// Counts over the contacts.
    pub contacts: ContactCounts,
}

/// The coverage of `rows` on `today`, `stale_after_days` the staleness bound.
pub fn of(rows: &[AuthorityRow], today: NaiveDate, stale_after_days: i64) -> Coverage {
    let mut c = Coverage::default();
    for band in AGE_BANDS {
        c.parties_by_age_band.insert(band.to_owned(), 0);
        c.contacts.by_age_band.insert(band.to_owned(), 0);
    }
    let registry = domain::parties::registry();
    for row in rows
        .iter()
        .filter(|r| registry.party(&r.country_code).is_some())
    {
        party(&mut c, row, today, stale_after_days);
    }
    c
}

fn party(c: &mut Coverage, row: &AuthorityRow, today: NaiveDate, stale_after_days: i64) {
    let state = &row.state;
    let live: Vec<_> = state.contacts.iter().filter(|x| !x.defunct()).collect();
    c.parties += 1;
    let primary = state.primary_contact();
    let authorities = live.iter().any(|x| x.role == Role::CompetentAuthority);
    if primary.is_some() {
        c.with_competent_authority += 1;
    } else if authorities {
        c.with_area_authorities_only += 1;
    } else if !live.is_empty() {
        c.focal_point_only += 1;
    }
    if live.is_empty() {
        c.no_contact += 1;
    }
    if live.iter().any(|x| !x.sources.is_empty()) {
        c.with_traced_contact += 1;
    }
    if primary.is_some_and(|p| p.provenance.verified) {
        c.verified += 1;
    }
    if primary.is_none_or(|p| crate::contacts::stale(p, today, stale_after_days)) {
        c.stale += 1;
    }
    let recent = |x: &&&domain::authority::PartyContact| {
        x.provenance
            .last_checked
            .is_some_and(|d| (today - d).num_days() <= 365)
    };
    if live.iter().any(|x| recent(&x)) {
        c.checked_last_365_days += 1;
    }
    let newest = live.iter().filter_map(|x| x.as_of()).max();
    *c.parties_by_age_band
        .entry(age(newest, today).band)
        .or_default() += 1;
    for x in live {
        let k = &mut c.contacts;
        k.total += 1;
        let role = match (x.role, x.also_focal_point) {
            (Role::CompetentAuthority, true) => "competent_authority_and_focal_point",
            (role, _) => role.as_str(),
        };
        *k.by_role.entry(role.to_owned()).or_default() += 1;
        let kind = x.sources.first().map_or("unknown", |s| s.kind.as_str());
        *k.by_source_kind.entry(kind.to_owned()).or_default() += 1;
        *k.by_age_band.entry(age(x.as_of(), today).band).or_default() += 1;
        if x.provenance.verified {
            k.verified += 1;
        }
    }
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
