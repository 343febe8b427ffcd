//! The directory's data release `2026-11`: every traced record of
//! `data/ca_records_harvest.json`, `data/ca_records_found.json` and this
//! project's own `data/ca_records_extra.json` (see `data/CA_SOURCES.md`) as
//! contacts of their Party, with their provenance.
//!
//! Rules, each tested below:
//! - values are kept **as printed** in the contact's [`SourceRef`]; a served
//!   e-mail, phone, fax or website is derived from that text only
//!   mechanically (`(at)` → `@`, the first of several addresses, a phone
//!   regrouped as `+CC-…` with the country's calling code, checked by
//!   libphonenumber's metadata) and the source names every derived field;
//!   a value that cannot be derived is not served (the printed text stays);
//! - records of one office (same role, name and scope) are one contact whose
//!   sources are all of them, newest first; its served values come from the
//!   newest record alone, never completed from another;
//! - a `ca_and_focal_point` record is a competent authority that is also the
//!   focal point; the focal-point records of a Party are its one focal point;
//! - `ROLE INFERRED` / `ROLE UNCERTAIN` in a record's notes give
//!   `role_basis: inferred` / `uncertain`;
//! - a scope is read from `scope_area`: a known sub-national area (see
//!   `data/areas.json`) becomes the contact's area, "transit" alone limits
//!   its movements to transit; anything else leaves the contact national;
//! - the primary competent authority is one of national scope, preferring
//!   a current government source over a dated one, and a dated one over a
//!   Secretariat fact sheet; an area-limited authority is never primary;
//! - nothing is verified: no one has confirmed these with the authority;
//! - records of codes that are not Parties (`HK`, `MO`) and the rows the
//!   research marked `unverified_third_party` are left out.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::authority::{Channels, ContactInput, NewContact, Role, RoleBasis, SourceRef};
use crate::parties::{fold, registry};
use crate::values::{CountryCode, Email, Phone};

/// The release's name, recorded in every source it brings.
pub const RELEASE: &str = "2026-11";

const HARVEST_JSON: &str = include_str!("../data/ca_records_harvest.json");
const FOUND_JSON: &str = include_str!("../data/ca_records_found.json");
/// This project's own extension of the harvest, under the same rules and in
/// the same shape (`data/CA_SOURCES.md`, "Third hunt").
const EXTRA_JSON: &str = include_str!("../data/ca_records_extra.json");
const AREAS_JSON: &str = include_str!("../data/areas.json");

/// One Party's contacts in the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseParty {
    /// The Party.
    pub country: CountryCode,
    /// Its contacts, the primary competent authority marked.
    pub contacts: Vec<NewContact>,
}

/// The bundled release data could not be read (a build defect, caught by tests).
#[derive(Debug, thiserror::Error)]
#[error("bundled release data is malformed: {0}")]
pub struct ReleaseError(String);

#[derive(Deserialize)]
struct Harvest {
    country_code: String,
    role: String,
    name: Option<String>,
    contact_person: Option<String>,
    address: Option<String>,
    phone: Option<String>,
    fax: Option<String>,
    email: Option<String>,
    website: Option<String>,
    scope_area: Option<String>,
    source_url: String,
    source_title: Option<String>,
    source_date: Option<String>,
    source_kind: String,
    notes: Option<String>,
}

#[derive(Deserialize)]
struct Found {
    country_code: String,
    ca_name: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    fax: Option<String>,
    address: Option<String>,
    source_url_or_repo_path: Option<String>,
    source_date: Option<String>,
    notes: Option<String>,
    contact_type: String,
}

#[derive(Deserialize)]
struct AreasFile {
    areas: BTreeMap<String, Vec<Vec<String>>>,
}

/// One record as printed, before grouping.
struct Printed {
    country: String,
    role: String,
    name: Option<String>,
    person: Option<String>,
    address: Option<String>,
    phone: Option<String>,
    fax: Option<String>,
    email: Option<String>,
    website: Option<String>,
    scope: Option<String>,
    source: SourceRef,
}

/// The areas of `code`'s Party: each a list of names, the local one first.
pub fn areas(code: &str) -> Vec<Vec<String>> {
    serde_json::from_str::<AreasFile>(AREAS_JSON)
        .ok()
        .and_then(|mut f| f.areas.remove(code))
        .unwrap_or_default()
}

/// The release: one entry per Party with at least one traced record.
///
/// # Errors
/// [`ReleaseError`] if the bundled JSON does not parse.
pub fn parties() -> Result<Vec<ReleaseParty>, ReleaseError> {
    let mut harvest: Vec<Harvest> = serde_json::from_str(HARVEST_JSON)
        .map_err(|e| ReleaseError(format!("ca_records_harvest.json: {e}")))?;
    let extra: Vec<Harvest> = serde_json::from_str(EXTRA_JSON)
        .map_err(|e| ReleaseError(format!("ca_records_extra.json: {e}")))?;
    harvest.extend(extra);
    let found: Vec<Found> = serde_json::from_str(FOUND_JSON)
        .map_err(|e| ReleaseError(format!("ca_records_found.json: {e}")))?;
    let mut by_party: BTreeMap<String, Vec<Printed>> = BTreeMap::new();
    let records = harvest
        .into_iter()
        .map(Printed::from)
        .chain(found.into_iter().filter_map(Printed::from_found));
    for record in records.filter(|r| registry().party(&r.country).is_some()) {
        by_party
            .entry(record.country.clone())
            .or_default()
            .push(record);
    }
    by_party
        .into_iter()
        .map(|(code, records)| {
            let country = CountryCode::parse(&code).map_err(|e| ReleaseError(e.to_string()))?;
            Ok(ReleaseParty {
                contacts: contacts_of(&code, records),
                country,
            })
        })
        .collect()
}

impl From<Harvest> for Printed {
    fn from(h: Harvest) -> Self {
        let mut printed = BTreeMap::new();
        for (field, value) in [
            ("name", &h.name),
            ("contact_person", &h.contact_person),
            ("address", &h.address),
            ("phone", &h.phone),
            ("fax", &h.fax),
            ("email", &h.email),
            ("website", &h.website),
            ("scope_area", &h.scope_area),
        ] {
            if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
                printed.insert(field.to_owned(), v.to_owned());
            }
        }
        Self {
            country: h.country_code,
            role: h.role,
            name: h.name,
            person: h.contact_person,
            address: h.address,
            phone: h.phone,
            fax: h.fax,
            email: h.email,
            website: h.website,
            scope: h.scope_area,
            source: SourceRef {
                url: h.source_url,
                title: h.source_title,
                date: h.source_date,
                kind: h.source_kind,
                release: Some(RELEASE.to_owned()),
                printed,
                derived: Vec::new(),
                note: h.notes,
            },
        }
    }
}

impl Printed {
    /// A record of the first hunt; third-party rows and rows without a
    /// source are left out.
    fn from_found(f: Found) -> Option<Self> {
        let url = f.source_url_or_repo_path.filter(|u| !u.trim().is_empty())?;
        if f.contact_type == "unverified_third_party" {
            return None;
        }
        let name = f
            .ca_name
            .as_deref()
            .map(|n| n.replace("[FOCAL POINT]", "").trim().to_owned());
        let mut printed = BTreeMap::new();
        for (field, value) in [
            ("name", &f.ca_name),
            ("address", &f.address),
            ("phone", &f.phone),
            ("fax", &f.fax),
            ("email", &f.email),
        ] {
            if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
                printed.insert(field.to_owned(), v.to_owned());
            }
        }
        // The first hunt recorded no kind: a Secretariat fact sheet's
        // mirrors are named in CA_SOURCES.md (sources A and B).
        let sheet = [
            "muhaz.org",
            "scribd",
            "studylib",
            "docstoc",
            "1pdf",
            "5y1",
            "studyres",
        ]
        .iter()
        .any(|m| url.contains(m));
        let kind = match (sheet, &f.source_date) {
            (true, _) => "secretariat_factsheet",
            (false, None) => "government_current",
            (false, Some(_)) => "government_dated",
        };
        Some(Self {
            country: f.country_code,
            role: f.contact_type,
            name,
            person: None,
            address: f.address,
            phone: f.phone,
            fax: f.fax,
            email: f.email,
            website: None,
            scope: None,
            source: SourceRef {
                url,
                title: None,
                date: f.source_date,
                kind: kind.to_owned(),
                release: Some(RELEASE.to_owned()),
                printed,
                derived: Vec::new(),
                note: f.notes,
            },
        })
    }

    fn role_basis(&self) -> RoleBasis {
        let note = self.source.note.as_deref().unwrap_or_default();
        if note.contains("ROLE UNCERTAIN") {
            RoleBasis::Uncertain
        } else if note.contains("ROLE INFERRED") {
            RoleBasis::Inferred
        } else {
            RoleBasis::Stated
        }
    }

    /// How current the record is, for choosing the newest: a live
    /// government page first, then by date.
    fn recency(&self) -> (u8, String) {
        let rank = match self.source.kind.as_str() {
            "government_current" => 3,
            "government_dated" | "other_official" => 2,
            _ => 1,
        };
        (rank, self.source.date.clone().unwrap_or_default())
    }
}

/// The grouping key of a record: focal points together, authorities by name
/// and scope.
fn office_key(record: &Printed) -> (bool, String, String) {
    let focal = record.role == "focal_point";
    if focal {
        return (true, String::new(), String::new());
    }
    (
        false,
        fold(record.name.as_deref().unwrap_or_default()),
        fold(record.scope.as_deref().unwrap_or_default()),
    )
}

fn contacts_of(code: &str, records: Vec<Printed>) -> Vec<NewContact> {
    let mut groups: Vec<((bool, String, String), Vec<Printed>)> = Vec::new();
    for record in records {
        let key = office_key(&record);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, group)) => group.push(record),
            None => groups.push((key, vec![record])),
        }
    }
    let areas = areas(code);
    let mut contacts: Vec<(NewContact, (u8, String))> = groups
        .into_iter()
        .map(|(_, mut group)| {
            group.sort_by_key(|r| std::cmp::Reverse(r.recency()));
            let recency = group[0].recency();
            (contact_of(code, group, &areas), recency)
        })
        .collect();
    let best = contacts
        .iter()
        .enumerate()
        .filter(|(_, (c, _))| {
            c.role == Some(Role::CompetentAuthority)
                && c.details.area.is_none()
                && c.details.movements.is_none()
        })
        .max_by(|(_, (_, a)), (_, (_, b))| a.cmp(b))
        .map(|(i, _)| i);
    if let Some(i) = best {
        contacts[i].0.primary = true;
    }
    contacts.into_iter().map(|(c, _)| c).collect()
}

/// One office's contact: the newest record's values, every record a source.
fn contact_of(code: &str, group: Vec<Printed>, areas: &[Vec<String>]) -> NewContact {
    let head = &group[0];
    let mut derived = Vec::new();
    let email = head.email.as_deref().and_then(|e| {
        let (value, changed) = derive_email(e)?;
        if changed {
            derived.push("email".to_owned());
        }
        Some(value)
    });
    let mut phone_of = |field: &str, printed: &Option<String>| {
        let (value, changed) = derive_phone(code, printed.as_deref()?)?;
        if changed {
            derived.push(field.to_owned());
        }
        Some(value)
    };
    let phone = phone_of("phone", &head.phone);
    let fax = phone_of("fax", &head.fax);
    let website = head.website.as_deref().map(str::trim).map(|w| {
        if w.starts_with("http://") || w.starts_with("https://") {
            w.to_owned()
        } else {
            derived.push("website".to_owned());
            format!("http://{w}")
        }
    });
    let (area, movements) = scope_of(head, areas);
    if area.is_some() {
        derived.push("area".to_owned());
    }
    if movements.is_some() {
        derived.push("movements".to_owned());
    }
    let role = match head.role.as_str() {
        "focal_point" => Role::FocalPoint,
        _ => Role::CompetentAuthority,
    };
    let details = ContactInput {
        ca_name: head.name.clone(),
        channels: Channels {
            contact_person: head.person.clone(),
            email,
            phone,
            fax,
            website,
            address: head.address.clone(),
        },
        area,
        movements,
        notes: head.source.note.clone(),
        ..ContactInput::default()
    };
    let details = keep_valid(details);
    let role_basis = head.role_basis();
    let also_focal_point = group.iter().any(|r| r.role == "ca_and_focal_point");
    let mut sources: Vec<SourceRef> = group.into_iter().map(|r| r.source).collect();
    sources[0].derived = derived;
    NewContact {
        role: Some(role),
        source: Some(sources[0].url.clone()),
        details,
        sources,
        also_focal_point: also_focal_point && role == Role::CompetentAuthority,
        role_basis: Some(role_basis),
        ..NewContact::default()
    }
}

/// The details with every field that breaks a directory rule left empty
/// (its printed text stays in the source).
fn keep_valid(details: ContactInput) -> ContactInput {
    let mut kept = ContactInput::default();
    for field in crate::authority::ContactField::ALL {
        let raw = details.get(field).map(str::to_owned);
        if crate::authority::parse_field(field, raw.as_deref()).is_ok() {
            kept.set(field, raw);
        }
    }
    kept
}

/// The first address of the printed text, de-obfuscated; whether it differs
/// from the text as printed.
fn derive_email(printed: &str) -> Option<(String, bool)> {
    let text = printed
        .replace("(at)", "@")
        .replace("[at]", "@")
        .replace("(dot)", ".")
        .replace("[dot]", ".");
    let first = text
        .split([';', ',', '/'])
        .flat_map(|part| part.split(" or "))
        .next()?
        .trim()
        .replace(" @", "@")
        .replace("@ ", "@");
    let email = Email::parse(&first).ok()?;
    let value = email.as_str().to_owned();
    let changed = value != printed.trim();
    Some((value, changed))
}

/// The first number of the printed text in the house format `+CC-…`, when
/// libphonenumber's metadata says it is a valid number of the Party's
/// country; whether it differs from the text as printed.
fn derive_phone(code: &str, printed: &str) -> Option<(String, bool)> {
    let region: phonenumber::country::Id = code.parse().ok()?;
    let first = printed
        .split([',', ';'])
        .flat_map(|part| part.split(" or "))
        .flat_map(|part| part.split(" and "))
        .next()?
        .trim();
    // A fact sheet's bracketed calling code first, then the number as a
    // number of the Party's country.
    let candidates = [
        Phone::from_fact_sheet(first).map(|p| p.as_str().replace('-', " ")),
        Some(first.split('/').next().unwrap_or(first).to_owned()),
    ];
    for candidate in candidates.into_iter().flatten() {
        let Ok(number) = phonenumber::parse(Some(region), &candidate) else {
            continue;
        };
        if !phonenumber::is_valid(&number) || number.country().id() != Some(region) {
            continue;
        }
        let international = number
            .format()
            .mode(phonenumber::Mode::International)
            .to_string();
        let house: String = international
            .split([' ', '-'])
            .filter(|g| !g.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        let phone = Phone::parse_input(&house).ok()?;
        let value = phone.as_str().to_owned();
        let changed = value != printed.trim();
        return Some((value, changed));
    }
    None
}

/// The scope a record's text states: a known area, and "transit" alone.
fn scope_of(record: &Printed, areas: &[Vec<String>]) -> (Option<String>, Option<String>) {
    let scope = record.scope.as_deref().unwrap_or_default();
    let folded = fold(scope);
    let area = areas
        .iter()
        .find(|names| {
            names.iter().any(|n| {
                let n = fold(n);
                folded == n || folded.starts_with(&format!("{n} "))
            })
        })
        .map(|names| {
            let local = &names[0];
            if fold(scope).starts_with(&fold(local)) {
                scope.trim().to_owned()
            } else {
                local.clone()
            }
        });
    let words = format!(
        "{folded} {}",
        fold(record.name.as_deref().unwrap_or_default())
    );
    let transit_only = words.contains("transit")
        && !["import", "export", "dispatch", "destination"]
            .iter()
            .any(|w| words.contains(w));
    let movements = if transit_only {
        Some("transit".to_owned())
    } else if folded.contains("competent authority for import and export") {
        Some("export,import".to_owned())
    } else {
        None
    };
    (area, movements)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn party(code: &str) -> ReleaseParty {
        parties()
            .expect("release")
            .into_iter()
            .find(|p| p.country.as_str() == code)
            .unwrap_or_else(|| panic!("{code} not in the release"))
    }

    #[test]
    fn the_release_covers_at_least_100_parties_and_no_non_party() {
        let all = parties().expect("release");
        assert!(all.len() >= 100, "{} Parties", all.len());
        for p in &all {
            assert!(
                registry().party(p.country.as_str()).is_some(),
                "{}",
                p.country
            );
            assert!(!p.contacts.is_empty());
        }
    }

    #[test]
    fn every_contact_is_sourced_valid_and_unverified() {
        for p in parties().expect("release") {
            for c in &p.contacts {
                assert!(!c.verified && c.last_checked.is_none(), "{}", p.country);
                assert!(!c.sources.is_empty() && c.source.is_some(), "{}", p.country);
                assert!(c
                    .sources
                    .iter()
                    .all(|s| !s.url.is_empty() && !s.kind.is_empty()));
                assert!(
                    c.details.validate().is_ok(),
                    "{}: {:?}",
                    p.country,
                    c.details
                );
            }
            let primaries = p.contacts.iter().filter(|c| c.primary).count();
            assert!(primaries <= 1, "{}", p.country);
            let focal = p
                .contacts
                .iter()
                .filter(|c| c.role == Some(Role::FocalPoint))
                .count();
            assert!(focal <= 1, "{}: {focal} focal points", p.country);
        }
    }

    #[test]
    fn served_values_come_from_the_printed_text_of_their_newest_source() {
        let digits = |t: &str| t.chars().filter(char::is_ascii_digit).collect::<String>();
        for p in parties().expect("release") {
            for c in &p.contacts {
                let printed = &c.sources[0].printed;
                if let Some(phone) = &c.details.channels.phone {
                    let printed = digits(&printed["phone"]);
                    let served = digits(phone);
                    // The served number's national part is printed (the
                    // calling code may be added).
                    assert!(
                        printed.contains(&served[served.len() - 6..]),
                        "{}: {phone} vs {printed}",
                        p.country
                    );
                }
                if let Some(name) = &c.details.ca_name {
                    let printed = printed["name"].replace("[FOCAL POINT]", "");
                    assert_eq!(name, printed.trim(), "{}", p.country);
                }
            }
        }
    }

    #[test]
    fn obfuscated_and_listed_emails_are_derived_and_marked() {
        assert_eq!(
            derive_email("notifizierung(at)sbb-mbh(dot)de"),
            Some(("notifizierung@sbb-mbh.de".to_owned(), true))
        );
        assert_eq!(
            derive_email("a@x.org or b@y.org").map(|e| e.0),
            Some("a@x.org".to_owned())
        );
        assert_eq!(derive_email("[email protected]"), None);
    }

    #[test]
    fn unusual_but_derivable_phones_are_derived_with_the_countrys_code() {
        assert_eq!(
            derive_phone("BR", "(5561) 3316-1566").map(|p| p.0),
            Some("+55-61-3316-1566".to_owned())
        );
        assert_eq!(
            derive_phone("AR", "(54-11) 4348-8425").map(|p| p.0),
            Some("+54-11-4348-8425".to_owned())
        );
        // The Bahamas are in zone 1: "(242)" is an area code, not Congo's.
        let bs = derive_phone("BS", "(242)322-4546").map(|p| p.0);
        assert!(
            bs.as_deref().is_none_or(|p| p.starts_with("+1-242")),
            "{bs:?}"
        );
    }

    #[test]
    fn an_area_limited_authority_is_never_primary_and_scopes_are_read() {
        let de = party("DE");
        let bavaria: Vec<_> = de
            .contacts
            .iter()
            .filter(|c| {
                c.details
                    .area
                    .as_deref()
                    .is_some_and(|a| a.starts_with("Bayern"))
            })
            .collect();
        assert!(!bavaria.is_empty());
        assert!(de
            .contacts
            .iter()
            .all(|c| !c.primary || c.details.area.is_none()));
        let fr = party("FR");
        let transit = fr
            .contacts
            .iter()
            .find(|c| {
                c.details
                    .ca_name
                    .as_deref()
                    .is_some_and(|n| n.starts_with("le ministre"))
            })
            .expect("FR transit authority");
        assert_eq!(transit.details.movements.as_deref(), Some("transit"));
        assert!(!transit.primary);
    }

    #[test]
    fn both_roles_of_an_office_are_kept_and_inferred_roles_are_marked() {
        let all = parties().expect("release");
        assert!(all
            .iter()
            .flat_map(|p| &p.contacts)
            .any(|c| c.also_focal_point));
        assert!(all
            .iter()
            .flat_map(|p| &p.contacts)
            .any(|c| c.role_basis == Some(RoleBasis::Inferred)));
    }
}
