//! The bundled seed dataset: one record per Basel Party (191: 190 States and
//! the European Union, from the [Party registry](crate::parties)), under its
//! United Nations name, with the contacts of the data release
//! ([`crate::release`]) where a traced public source exists.
//!
//! Values are those of the release: as printed, with mechanically derived
//! channels marked as derived in each contact's source. Nothing is invented,
//! and every seeded contact is unverified: only a steward's check that
//! reaches the authority verifies it.

use chrono::NaiveDate;

use crate::authority::{ContactInput, NewContact};
use crate::parties::registry;
use crate::release::{self, ReleaseError};
use crate::values::CountryCode;

/// One Party's seed record, ready to be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRecord {
    /// The Party.
    pub country: CountryCode,
    /// Its United Nations name.
    pub country_name: String,
    /// The record's own notes (no office: the contacts are in `contacts`).
    pub contact: ContactInput,
    /// Its contacts from the data release.
    pub contacts: Vec<NewContact>,
    /// Always `None`: a release is not a check.
    pub last_checked: Option<NaiveDate>,
    /// What the registration relied on: the registry and the release.
    pub source: Option<String>,
}

/// The bundled data could not be read (a build defect, caught by tests).
#[derive(Debug, thiserror::Error)]
#[error("bundled seed data is malformed: {0}")]
pub struct SeedError(String);

impl From<ReleaseError> for SeedError {
    fn from(error: ReleaseError) -> Self {
        Self(error.to_string())
    }
}

/// The seed: one record per Basel Party, sorted by code.
///
/// # Errors
/// [`SeedError`] if the bundled JSON does not parse.
pub fn bundled() -> Result<Vec<SeedRecord>, SeedError> {
    let mut released = release::parties()?;
    let mut seed = Vec::new();
    for party in registry().parties() {
        let country = CountryCode::parse(&party.code).map_err(|e| SeedError(e.to_string()))?;
        let contacts = released
            .iter_mut()
            .find(|p| p.country == country)
            .map(|p| std::mem::take(&mut p.contacts))
            .unwrap_or_default();
        let notes = if contacts.is_empty() {
            "No contact is known yet: no traceable public source was found for this Party's competent authority or focal point."
        } else if !contacts.iter().any(|c| c.primary) {
            "No competent authority of national scope is known from the sources: see the contacts (focal point, area-limited authorities)."
        } else {
            ""
        };
        seed.push(SeedRecord {
            country,
            country_name: party.name.clone(),
            contact: ContactInput {
                notes: (!notes.is_empty()).then(|| notes.to_owned()),
                ..ContactInput::default()
            },
            contacts,
            last_checked: None,
            source: Some(format!(
                "Basel Party registry; data release {}",
                release::RELEASE
            )),
        });
    }
    seed.sort_by(|a, b| a.country.cmp(&b.country));
    Ok(seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_has_one_record_per_party_the_eu_included() {
        let seed = bundled().expect("bundled seed");
        assert_eq!(seed.len(), 191);
        assert!(seed.iter().any(|r| r.country.as_str() == "EU"));
        let mut codes: Vec<_> = seed.iter().map(|r| r.country.clone()).collect();
        codes.dedup();
        assert_eq!(codes.len(), seed.len());
        let kr = seed
            .iter()
            .find(|r| r.country.as_str() == "KR")
            .expect("KR");
        assert_eq!(kr.country_name, "Republic of Korea");
    }

    #[test]
    fn at_least_100_parties_have_a_traced_contact_and_none_is_verified() {
        let seed = bundled().expect("bundled seed");
        let with = seed.iter().filter(|r| !r.contacts.is_empty()).count();
        assert!(with >= 100, "{with}");
        assert!(seed
            .iter()
            .flat_map(|r| &r.contacts)
            .all(|c| !c.verified && c.last_checked.is_none() && !c.sources.is_empty()));
    }

    #[test]
    fn every_seed_record_passes_the_directory_rules() {
        for record in bundled().expect("bundled seed") {
            assert!(record.contact.validate().is_ok(), "{}", record.country);
            for c in &record.contacts {
                assert!(c.details.validate().is_ok(), "{}", record.country);
            }
        }
    }
}
