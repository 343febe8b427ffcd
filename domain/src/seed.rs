//! The bundled seed dataset: one record per Basel Party (the EU is a Party but
//! not a country record), with contact details only where a traceable public
//! source exists (`data/ca_records_found.json`, see `data/CA_SOURCES.md`).
//!
//! Per country the most recent dated source record is used; undated records
//! (government pages that name the authority but give no contacts) are used
//! only when no dated one exists. Values are copied as the source states them;
//! the only transformation is regrouping a fact-sheet phone number into the
//! `+CC-...` format ([`Phone::from_fact_sheet`]), and the number as printed is
//! kept in the note. A field the source lacks, or whose text does not pass the
//! directory's rules, stays empty. Nothing is invented. Every seeded record is
//! unverified.

use chrono::NaiveDate;
use serde::Deserialize;

use crate::authority::{ContactInput, NewContact, Role};
use crate::values::{CountryCode, Email, Phone};

const PARTIES_JSON: &str = include_str!("../data/basel_parties.json");
const RECORDS_JSON: &str = include_str!("../data/ca_records_found.json");

/// One country's seed record, ready to be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRecord {
    /// The country.
    pub country: CountryCode,
    /// Its name (ISO short name).
    pub country_name: String,
    /// The competent authority's details from the source, or only a note
    /// when the source names none.
    pub contact: ContactInput,
    /// Other contacts: the focal point, when the source names only that.
    pub contacts: Vec<NewContact>,
    /// The source's date, where it gives a full date.
    pub last_checked: Option<NaiveDate>,
    /// The source's address (URL or repository path), where there is one.
    pub source: Option<String>,
}

/// The bundled data could not be read (a build defect, caught by tests).
#[derive(Debug, thiserror::Error)]
#[error("bundled seed data is malformed: {0}")]
pub struct SeedError(String);

#[derive(Deserialize)]
struct Parties {
    parties: Vec<Party>,
}

#[derive(Deserialize)]
struct Party {
    iso2: String,
    name_iso: String,
}

/// A record as `ca_records_found.json` has it.
#[derive(Debug, Clone, Deserialize)]
pub struct SourceRecord {
    /// ISO code.
    pub country_code: String,
    /// Authority name as printed.
    pub ca_name: Option<String>,
    /// E-mail as printed.
    pub email: Option<String>,
    /// Phone as printed.
    pub phone: Option<String>,
    /// Address as printed.
    pub address: Option<String>,
    /// Where it was found.
    pub source_url_or_repo_path: Option<String>,
    /// The source's date: `YYYY-MM-DD`, `YYYY`, or none.
    pub source_date: Option<String>,
    /// The researcher's note on the record.
    pub notes: Option<String>,
    /// `competent_authority`, `ca_and_focal_point`, `focal_point` or `unverified_third_party`.
    pub contact_type: String,
}

/// The source records bundled with the service, as found.
///
/// # Errors
/// [`SeedError`] if the bundled JSON does not parse.
pub fn source_records() -> Result<Vec<SourceRecord>, SeedError> {
    serde_json::from_str(RECORDS_JSON).map_err(|e| SeedError(format!("ca_records_found.json: {e}")))
}

/// The seed: one record per Basel Party except the EU, sorted by country code.
///
/// # Errors
/// [`SeedError`] if the bundled JSON does not parse.
pub fn bundled() -> Result<Vec<SeedRecord>, SeedError> {
    let parties: Parties = serde_json::from_str(PARTIES_JSON)
        .map_err(|e| SeedError(format!("basel_parties.json: {e}")))?;
    let records = source_records()?;
    let mut seed = Vec::with_capacity(parties.parties.len());
    for party in parties.parties.into_iter().filter(|p| p.iso2 != "EU") {
        let country = CountryCode::parse(&party.iso2).map_err(|e| SeedError(e.to_string()))?;
        let best = most_recent(
            records
                .iter()
                .filter(|r| r.country_code == country.as_str()),
        );
        seed.push(match best {
            Some(record) => from_source(country, party.name_iso, record),
            None => without_source(country, party.name_iso),
        });
    }
    seed.sort_by(|a, b| a.country.cmp(&b.country));
    Ok(seed)
}

/// The most recent record with a traceable source; dated before undated.
fn most_recent<'a>(records: impl Iterator<Item = &'a SourceRecord>) -> Option<&'a SourceRecord> {
    records
        .filter(|r| {
            r.contact_type != "unverified_third_party" && r.source_url_or_repo_path.is_some()
        })
        .max_by(|a, b| a.source_date.cmp(&b.source_date))
}

fn from_source(country: CountryCode, country_name: String, record: &SourceRecord) -> SeedRecord {
    let retired = record
        .notes
        .as_deref()
        .zip(record.email.as_deref())
        .and_then(|(notes, email)| retired_domain(notes, email));
    let email = record
        .email
        .as_deref()
        .filter(|e| Email::parse(e).is_ok() && retired.is_none())
        .map(str::to_owned);
    let phone = record
        .phone
        .as_deref()
        .and_then(Phone::from_fact_sheet)
        .map(String::from);
    let date_text = record.source_date.as_deref().unwrap_or("undated");
    let note = source_note(record, date_text, phone.is_some(), retired.as_deref());
    let details = ContactInput {
        ca_name: record
            .ca_name
            .as_deref()
            .map(|n| n.replace("[FOCAL POINT]", "").trim().to_owned()),
        email,
        phone,
        address: record.address.clone(),
        notes: Some(note),
        ..ContactInput::default()
    };
    let last_checked = record
        .source_date
        .as_deref()
        .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
    let source = record.source_url_or_repo_path.clone();
    if record.contact_type == "focal_point" {
        return SeedRecord {
            country,
            country_name,
            contact: ContactInput {
                notes: Some(format!(
                    "No competent authority is known: the source ({date_text}) names only the Basel focal point, listed as a focal_point contact."
                )),
                ..ContactInput::default()
            },
            contacts: vec![NewContact {
                role: Some(Role::FocalPoint),
                details,
                source: source.clone(),
                last_checked,
                ..NewContact::default()
            }],
            last_checked: None,
            source,
        };
    }
    SeedRecord {
        country,
        country_name,
        contact: details,
        contacts: Vec::new(),
        last_checked,
        source,
    }
}

/// The seed record's note: where it comes from, and what of the source's
/// text is not served and why.
fn source_note(
    record: &SourceRecord,
    date_text: &str,
    phone_served: bool,
    retired: Option<&str>,
) -> String {
    let mut note = format!(
        "Unverified. Historic record from a public source ({date_text}): {}.",
        record
            .source_url_or_repo_path
            .as_deref()
            .unwrap_or("unknown")
    );
    if record.contact_type == "focal_point" {
        note.push_str(" This is the Basel focal point; the source says the competent authorities are available from it.");
    }
    match (&record.phone, phone_served) {
        (Some(printed), true) => {
            note.push_str(&format!(" Phone as printed in the source: {printed}."));
        }
        (Some(printed), false) => note.push_str(&format!(
            " Phone as printed in the source: {printed}; not served, it does not read as an international number."
        )),
        (None, _) => {}
    }
    if let (Some(domain), Some(printed)) = (retired, &record.email) {
        note.push_str(&format!(
            " E-mail as printed: {printed}; not served, the source note says the {domain} domain is retired."
        ));
    }
    if let Some(remark) = &record.notes {
        note.push_str(&format!(" Source note: {remark}"));
    }
    note
}

/// The domain of `email` that `notes` call retired ("… x.gov.uk domain retired").
fn retired_domain(notes: &str, email: &str) -> Option<String> {
    let before = &notes[..notes.find(" domain retired")?];
    let domain = before.rsplit([' ', ';', ',']).next()?.trim();
    let host = email.rsplit('@').next()?.to_ascii_lowercase();
    (!domain.is_empty() && (host == domain || host.ends_with(&format!(".{domain}"))))
        .then(|| domain.to_owned())
}

fn without_source(country: CountryCode, country_name: String) -> SeedRecord {
    SeedRecord {
        country,
        country_name,
        contact: ContactInput {
            notes: Some("No verified record exists yet: no traceable public source was found for this country's competent authority.".into()),
            ..ContactInput::default()
        },
        contacts: Vec::new(),
        last_checked: None,
        source: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(text: &str) -> String {
        text.chars().filter(char::is_ascii_digit).collect()
    }

    #[test]
    fn the_seed_has_one_record_per_party_and_no_eu() {
        let seed = bundled().expect("bundled seed");
        assert_eq!(seed.len(), 190);
        assert!(seed.iter().all(|r| r.country.as_str() != "EU"));
        let mut codes: Vec<_> = seed.iter().map(|r| r.country.clone()).collect();
        codes.dedup();
        assert_eq!(codes.len(), seed.len());
    }

    #[test]
    fn every_non_null_contact_field_comes_from_a_source_record() {
        let sources = source_records().expect("sources");
        let seed = bundled().expect("bundled seed");
        let mut with_contacts = 0;
        for record in &seed {
            let mut offices: Vec<(&ContactInput, &Option<String>, Option<NaiveDate>)> = record
                .contacts
                .iter()
                .map(|n| (&n.details, &n.source, n.last_checked))
                .collect();
            let c = &record.contact;
            if c.ca_name.is_none() && c.email.is_none() && c.phone.is_none() && c.address.is_none()
            {
                assert!(
                    record.last_checked.is_none()
                        && (record.source.is_none() || !offices.is_empty()),
                    "{} has provenance but no data",
                    record.country
                );
            } else {
                offices.push((c, &record.source, record.last_checked));
            }
            for (c, source, last_checked) in offices {
                with_contacts += 1;
                let origin = sources
                    .iter()
                    .find(|s| {
                        s.country_code == record.country.as_str()
                            && &s.source_url_or_repo_path == source
                            && s.ca_name
                                .as_deref()
                                .map(|n| n.replace("[FOCAL POINT]", "").trim().to_owned())
                                == c.ca_name
                            && s.address == c.address
                            && (c.email.is_none() || s.email == c.email)
                            && (c.phone.is_none()
                                || s.phone.as_deref().map(digits).is_some_and(|d| {
                                    d.starts_with(&digits(c.phone.as_deref().unwrap_or_default()))
                                }))
                    })
                    .unwrap_or_else(|| {
                        panic!(
                            "{}: no source record has these exact values",
                            record.country
                        )
                    });
                if let Some(day) = last_checked {
                    assert_eq!(
                        origin.source_date.as_deref(),
                        Some(day.to_string().as_str())
                    );
                }
            }
        }
        assert!(
            with_contacts >= 10,
            "only {with_contacts} records carry sourced contacts"
        );
    }

    #[test]
    fn focal_points_are_focal_point_contacts_and_retired_mailboxes_are_not_served() {
        let seed = bundled().expect("bundled seed");
        let find = |code: &str| {
            seed.iter()
                .find(|r| r.country.as_str() == code)
                .expect(code)
        };
        for code in ["DE", "GB"] {
            let record = find(code);
            assert_eq!(
                record.contact.ca_name, None,
                "{code}: no authority is known"
            );
            assert_eq!(record.contacts.len(), 1);
            assert_eq!(record.contacts[0].role, Some(Role::FocalPoint));
            let name = record.contacts[0]
                .details
                .ca_name
                .as_deref()
                .unwrap_or_default();
            assert!(!name.contains("FOCAL POINT"), "{name}");
        }
        let gb = &find("GB").contacts[0].details;
        assert_eq!(gb.email, None);
        assert!(gb
            .notes
            .as_deref()
            .is_some_and(|n| n.contains("Jane.Stratford@defra.gsi.gov.uk; not served")));
        assert_eq!(
            find("DE").contacts[0].details.email.as_deref(),
            Some("focal.point.basel@uba.de")
        );
    }

    #[test]
    fn every_seed_record_passes_the_directory_rules() {
        for record in bundled().expect("bundled seed") {
            assert!(
                record.contact.validate().is_ok(),
                "{} breaks a rule: {:?}",
                record.country,
                record.contact.validate()
            );
        }
    }

    #[test]
    fn a_misprinted_phone_is_not_served_and_its_printed_form_is_in_the_note() {
        let seed = bundled().expect("bundled seed");
        let cn = seed
            .iter()
            .find(|r| r.country.as_str() == "CN")
            .expect("CN");
        assert_eq!(cn.contact.phone, None);
        assert!(cn.contact.notes.as_deref().is_some_and(|n| n.contains(
            "Phone as printed in the source: (861 0) 66 55 62 56/65 18/62 57; not served"
        )));
        for record in &seed {
            if let Some(phone) = &record.contact.phone {
                let parsed = Phone::parse_input(phone);
                assert!(parsed.is_ok(), "{}: {phone}", record.country);
            }
        }
    }

    #[test]
    fn the_most_recent_dated_record_wins() {
        let seed = bundled().expect("bundled seed");
        let sg = seed
            .iter()
            .find(|r| r.country.as_str() == "SG")
            .expect("SG");
        assert_eq!(
            sg.source.as_deref(),
            Some("https://www.scribd.com/document/478422229/singapore")
        );
        assert_eq!(sg.contact.phone.as_deref(), Some("+65-67-31-96-54"));
        let ca = seed
            .iter()
            .find(|r| r.country.as_str() == "CA")
            .expect("CA");
        assert_eq!(ca.contact.email.as_deref(), Some("TMB@ec.gc.ca"));
        assert_eq!(ca.last_checked, None, "a year alone is not a date");
    }
}
