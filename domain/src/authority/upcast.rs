//! Reading the first release's events (version 1) into the current model.
//!
//! The first release kept one set of fields per country. Read today:
//! - `AuthorityRegistered` v1 becomes a registration with one contact,
//!   [`LEGACY_CONTACT_ID`], when any of name, e-mail, phone or address was
//!   known: a `focal_point` when the record said it was the focal point (the
//!   seed marked those with `[FOCAL POINT]` in the name or "This is the Basel
//!   focal point" in the notes), else the primary `competent_authority`. A
//!   record without details becomes a Party without contacts, its note kept
//!   as the Party's note. A mailbox whose domain the source note calls
//!   retired is moved to `retired` (not served).
//! - `ContactDetailsChanged` and `VerificationRecorded` v1 concern that
//!   contact; a v1 check has no outcome (`None`).
//!
//! The upcast is part of deserialising [`AuthorityEvent`], so every reader
//! (the write side, the projections from the events table or from JetStream,
//! replay, `as_of`) sees the same events.

use chrono::NaiveDate;
use serde::Deserialize;

use super::contact::FieldChange;
use super::contact::{Contact, ContactField};
use super::events::{
    AuthorityEvent, AuthorityRegistered, AuthorityRetired, ContactAdded, ContactDetailsChanged,
    ContactRemoved, EvidenceAttached, PrimaryDesignated, VerificationRecorded,
};
use super::events::{ChangeProposed, ProposalApproved, ProposalRejected, WorkAssigned};
use super::party::{ContactProvenance, PartyContact, Retired, Role, LEGACY_CONTACT_ID};
use super::VerificationMethod;
use crate::values::{CountryCode, Slug};

/// The stored form of an event, of any version.
#[derive(Deserialize)]
pub(super) enum Wire {
    AuthorityRegistered(Registered),
    ContactDetailsChanged(Changed),
    VerificationRecorded(Verified),
    ContactAdded(ContactAdded),
    ContactRemoved(ContactRemoved),
    PrimaryDesignated(PrimaryDesignated),
    AuthorityRetired(AuthorityRetired),
    EvidenceAttached(EvidenceAttached),
    ChangeProposed(ChangeProposed),
    ProposalApproved(ProposalApproved),
    ProposalRejected(ProposalRejected),
    WorkAssigned(WorkAssigned),
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Registered {
    Current(AuthorityRegistered),
    First(RegisteredV1),
}

/// `AuthorityRegistered` as the first release wrote it.
#[derive(Deserialize)]
pub(super) struct RegisteredV1 {
    country: CountryCode,
    country_name: String,
    contact: Contact,
    verified: bool,
    last_checked: Option<NaiveDate>,
    source: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Changed {
    #[serde(default = "legacy_id")]
    contact_id: String,
    changes: Vec<FieldChange>,
}

#[derive(Deserialize)]
pub(super) struct Verified {
    #[serde(default = "legacy_id")]
    contact_id: String,
    #[serde(default)]
    outcome: Option<super::party::CheckOutcome>,
    verified: bool,
    checked_on: NaiveDate,
    method: VerificationMethod,
    source: String,
    steward: Option<Slug>,
    note: Option<String>,
}

fn legacy_id() -> String {
    LEGACY_CONTACT_ID.to_owned()
}

impl From<Wire> for AuthorityEvent {
    fn from(wire: Wire) -> Self {
        match wire {
            Wire::AuthorityRegistered(Registered::Current(mut e)) => {
                e.contacts.iter_mut().for_each(retire_misprinted_numbers);
                Self::AuthorityRegistered(e)
            }
            Wire::AuthorityRegistered(Registered::First(v1)) => {
                Self::AuthorityRegistered(registered(v1))
            }
            Wire::ContactDetailsChanged(c) => Self::ContactDetailsChanged(ContactDetailsChanged {
                contact_id: c.contact_id,
                changes: c.changes,
            }),
            Wire::VerificationRecorded(v) => Self::VerificationRecorded(VerificationRecorded {
                contact_id: v.contact_id,
                outcome: v.outcome,
                verified: v.verified,
                checked_on: v.checked_on,
                method: v.method,
                source: v.source,
                steward: v.steward,
                note: v.note,
            }),
            Wire::ContactAdded(e) => Self::ContactAdded(e),
            Wire::ContactRemoved(e) => Self::ContactRemoved(e),
            Wire::PrimaryDesignated(e) => Self::PrimaryDesignated(e),
            Wire::AuthorityRetired(e) => Self::AuthorityRetired(e),
            Wire::EvidenceAttached(e) => Self::EvidenceAttached(e),
            Wire::ChangeProposed(e) => Self::ChangeProposed(e),
            Wire::ProposalApproved(e) => Self::ProposalApproved(e),
            Wire::ProposalRejected(e) => Self::ProposalRejected(e),
            Wire::WorkAssigned(e) => Self::WorkAssigned(e),
        }
    }
}

const FOCAL_MARK: &str = "[FOCAL POINT]";
const FOCAL_NOTE: &str = "This is the Basel focal point";

/// Whether a first-release record described the focal point, by the marks
/// the first release's seed put on such records.
pub fn is_focal_point_record(contact: &Contact) -> bool {
    contact
        .ca_name
        .as_deref()
        .is_some_and(|n| n.contains(FOCAL_MARK))
        || contact
            .notes
            .as_deref()
            .is_some_and(|n| n.contains(FOCAL_NOTE))
}

/// The mailbox of `contact` whose domain its note calls retired
/// ("… gsi.gov.uk domain retired"), if any.
pub fn retired_mailbox(contact: &Contact) -> Option<Retired> {
    let email = contact.email.as_ref()?.as_str().to_owned();
    let notes = contact.notes.as_deref()?;
    let before = &notes[..notes.find(" domain retired")?];
    let domain = before.rsplit([' ', ';', ',']).next()?.trim();
    let host = email.rsplit('@').next()?.to_ascii_lowercase();
    (!domain.is_empty() && (host == domain || host.ends_with(&format!(".{domain}")))).then(|| {
        Retired {
            field: ContactField::Email,
            value: email,
            reason: format!("the source note says the {domain} domain is retired"),
        }
    })
}

/// Moves a phone or fax number whose first group is no country calling code
/// (the first release's seed turned the fact sheet's misprinted
/// "(861 0) 66 55 62 56" into `+861-0-66-55-62-56`) out of the served
/// fields into `retired`. Input never gets such a number past
/// [`crate::values::Phone::parse_input`], so only seeded records have them.
fn retire_misprinted_numbers(contact: &mut PartyContact) {
    for field in [ContactField::Phone, ContactField::Fax] {
        let slot = match field {
            ContactField::Phone => &mut contact.details.phone,
            _ => &mut contact.details.fax,
        };
        if let Some(number) = slot.take_if(|n| !n.has_assigned_calling_code()) {
            contact.retired.push(Retired {
                field,
                value: number.to_string(),
                reason: "the number as printed in the source gives no valid country calling code"
                    .into(),
            });
        }
    }
}

fn registered(v1: RegisteredV1) -> AuthorityRegistered {
    let mut details = v1.contact;
    let known = [
        ContactField::CaName,
        ContactField::Email,
        ContactField::Phone,
        ContactField::Address,
    ]
    .into_iter()
    .any(|f| details.get(f).is_some());
    if !known {
        return AuthorityRegistered {
            country: v1.country,
            country_name: v1.country_name,
            source: v1.source,
            notes: details.notes,
            contacts: Vec::new(),
            primary: None,
            steward: None,
        };
    }
    let role = if is_focal_point_record(&details) {
        Role::FocalPoint
    } else {
        Role::CompetentAuthority
    };
    if let Some(name) = details.ca_name.take() {
        details.ca_name = Some(name.replace(FOCAL_MARK, "").trim().to_owned());
    }
    let retired: Vec<Retired> = retired_mailbox(&details).into_iter().collect();
    if !retired.is_empty() {
        details.email = None;
    }
    let mut contact = PartyContact {
        id: legacy_id(),
        role,
        details,
        provenance: ContactProvenance {
            source: v1.source.clone(),
            verified: v1.verified,
            last_checked: v1.last_checked,
            ..ContactProvenance::default()
        },
        retired,
        sources: Vec::new(),
        also_focal_point: false,
        role_basis: None,
    };
    retire_misprinted_numbers(&mut contact);
    AuthorityRegistered {
        country: v1.country,
        country_name: v1.country_name,
        source: v1.source,
        notes: None,
        primary: (role == Role::CompetentAuthority).then(legacy_id),
        contacts: vec![contact],
        steward: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authority::{CheckOutcome, Contact};
    use serde_json::json;

    fn decode(value: serde_json::Value) -> AuthorityEvent {
        serde_json::from_value(value).expect("decodes")
    }

    #[test]
    fn a_first_release_focal_point_record_becomes_a_focal_point_contact() {
        let event = decode(json!({"AuthorityRegistered": {
            "country": "DE", "country_name": "Germany",
            "contact": {"ca_name": "Umweltbundesamt [FOCAL POINT]", "email": "focal.point.basel@uba.de",
                        "phone": "+49-30-8903-3296", "address": "Berlin",
                        "notes": "Unverified. This is the Basel focal point; …"},
            "verified": false, "last_checked": "2002-11-20", "source": "fact sheet"}}));
        let AuthorityEvent::AuthorityRegistered(e) = event else {
            panic!("not a registration")
        };
        assert_eq!(e.primary, None);
        assert_eq!(e.contacts.len(), 1);
        let c = &e.contacts[0];
        assert_eq!((c.id.as_str(), c.role), ("c1", Role::FocalPoint));
        assert_eq!(c.details.ca_name.as_deref(), Some("Umweltbundesamt"));
        assert_eq!(
            c.provenance.last_checked,
            NaiveDate::from_ymd_opt(2002, 11, 20)
        );
    }

    #[test]
    fn a_first_release_record_without_details_has_no_contact() {
        let event = decode(json!({"AuthorityRegistered": {
            "country": "AF", "country_name": "Afghanistan",
            "contact": {"ca_name": null, "email": null, "phone": null, "address": null, "notes": "No source."},
            "verified": false, "last_checked": null, "source": null}}));
        let AuthorityEvent::AuthorityRegistered(e) = event else {
            panic!("not a registration")
        };
        assert!(e.contacts.is_empty());
        assert_eq!(e.notes.as_deref(), Some("No source."));
    }

    #[test]
    fn a_first_release_authority_record_becomes_the_primary_authority() {
        let event = decode(json!({"AuthorityRegistered": {
            "country": "JP", "country_name": "Japan",
            "contact": {"ca_name": "Ministry of the Environment", "email": null, "phone": null, "address": null, "notes": null},
            "verified": false, "last_checked": null, "source": "x"}}));
        let AuthorityEvent::AuthorityRegistered(e) = event else {
            panic!("not a registration")
        };
        assert_eq!(e.primary.as_deref(), Some("c1"));
        assert_eq!(e.contacts[0].role, Role::CompetentAuthority);
    }

    #[test]
    fn a_misprinted_seed_phone_is_retired_in_either_version() {
        let v1 = decode(json!({"AuthorityRegistered": {
            "country": "CN", "country_name": "China",
            "contact": {"ca_name": "Ministry of Environmental Protection", "email": null,
                        "phone": "+861-0-66-55-62-56", "address": null, "notes": null},
            "verified": false, "last_checked": null, "source": "fact sheet"}}));
        let AuthorityEvent::AuthorityRegistered(e) = v1 else {
            panic!("not a registration")
        };
        let c = &e.contacts[0];
        assert_eq!(c.details.phone, None);
        assert_eq!(c.retired.len(), 1);
        assert_eq!(
            (c.retired[0].field, c.retired[0].value.as_str()),
            (ContactField::Phone, "+861-0-66-55-62-56")
        );
        let current = decode(
            serde_json::to_value(AuthorityEvent::AuthorityRegistered(AuthorityRegistered {
                contacts: vec![PartyContact {
                    details: Contact {
                        phone: crate::values::Phone::parse("+861-0-66-55-62-56").ok(),
                        fax: crate::values::Phone::parse("+86-10-6615-1762").ok(),
                        ..Contact::default()
                    },
                    retired: Vec::new(),
                    sources: Vec::new(),
                    also_focal_point: false,
                    role_basis: None,
                    ..c.clone()
                }],
                ..e.clone()
            }))
            .expect("serialises"),
        );
        let AuthorityEvent::AuthorityRegistered(e) = current else {
            panic!("not a registration")
        };
        let c = &e.contacts[0];
        assert_eq!(c.details.phone, None);
        assert_eq!(
            c.details.fax.as_ref().map(ToString::to_string).as_deref(),
            Some("+86-10-6615-1762")
        );
        assert_eq!(c.retired.len(), 1);
    }

    #[test]
    fn a_mailbox_on_a_retired_domain_is_not_served() {
        let contact = Contact {
            email: crate::values::Email::parse("Jane.Stratford@defra.gsi.gov.uk").ok(),
            notes: Some("Personal mailbox; gsi.gov.uk domain retired.".into()),
            ..Contact::default()
        };
        let retired = retired_mailbox(&contact).expect("retired");
        assert_eq!(retired.field, ContactField::Email);
        let other = Contact {
            email: crate::values::Email::parse("a@example.org").ok(),
            ..contact
        };
        assert!(retired_mailbox(&other).is_none());
    }

    #[test]
    fn first_release_changes_and_checks_concern_the_legacy_contact() {
        let changed = decode(json!({"ContactDetailsChanged": {"changes": [
            {"field": "phone", "old": null, "new": "+49-30-1"}]}}));
        assert!(
            matches!(changed, AuthorityEvent::ContactDetailsChanged(ref c) if c.contact_id == "c1")
        );
        let checked = decode(json!({"VerificationRecorded": {"verified": true,
            "checked_on": "2026-01-02", "method": "email", "source": "letter",
            "steward": "ana", "note": null}}));
        let AuthorityEvent::VerificationRecorded(v) = checked else {
            panic!("not a check")
        };
        assert_eq!((v.contact_id.as_str(), v.outcome), ("c1", None));
        let current = decode(
            serde_json::to_value(AuthorityEvent::VerificationRecorded(VerificationRecorded {
                outcome: Some(CheckOutcome::NoAnswer),
                ..v.clone()
            }))
            .expect("serialises"),
        );
        assert!(
            matches!(current, AuthorityEvent::VerificationRecorded(ref c)
            if c.outcome == Some(CheckOutcome::NoAnswer))
        );
    }
}
