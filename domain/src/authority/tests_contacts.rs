//! Contacts (roles, primary, withdrawal) and honest check outcomes.

use chrono::NaiveDate;

use super::*;
use crate::testing::given;
use crate::values::{CountryCode, Slug};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("test date")
}

fn ana() -> Option<Slug> {
    Slug::parse("ana").ok()
}

/// DE as the seed registers it: only the focal point is known.
fn de_focal_point_only() -> Vec<AuthorityEvent> {
    let command = RegisterAuthority {
        country: CountryCode::parse("DE").expect("code"),
        country_name: "Germany".into(),
        contact: ContactInput {
            notes: Some("No competent authority is known.".into()),
            ..ContactInput::default()
        },
        verified: false,
        last_checked: None,
        source: None,
        contacts: vec![NewContact {
            role: Some(Role::FocalPoint),
            details: ContactInput {
                ca_name: Some("Umweltbundesamt".into()),
                channels: Channels {
                    email: Some("focal.point.basel@uba.de".into()),
                    phone: Some("+49-30-8903-3296".into()),
                    ..Channels::default()
                },
                ..ContactInput::default()
            },
            source: Some("fact sheet".into()),
            last_checked: Some(day("2002-11-20")),
            ..NewContact::default()
        }],
        steward: None,
        today: day("2026-11-21"),
    };
    given::<Authority>(vec![])
        .when(AuthorityCommand::Register(command))
        .result()
        .expect("registered")
}

fn state_after(events: Vec<AuthorityEvent>) -> Authority {
    let mut state = Authority::default();
    for event in events {
        state.apply(event);
    }
    state
}

fn saxony() -> AddContact {
    AddContact {
        max_contacts: DEFAULT_MAX_CONTACTS,
        contact: NewContact {
            details: ContactInput {
                ca_name: Some("Landesdirektion Sachsen".into()),
                channels: Channels {
                    email: Some("abfall@lds.sachsen.de".into()),
                    phone: Some("+49-371-532-0".into()),
                    ..Channels::default()
                },
                area: Some("Saxony".into()),
                movements: Some("import, export".into()),
                ..ContactInput::default()
            },
            source: Some("https://www.lds.sachsen.de".into()),
            ..NewContact::default()
        },
        steward: ana(),
        today: day("2026-11-21"),
    }
}

fn with_saxony() -> Vec<AuthorityEvent> {
    let mut events = de_focal_point_only();
    let state = state_after(events.clone());
    events.extend(
        state
            .decide(&AuthorityCommand::AddContact(saxony()))
            .expect("added"),
    );
    events
}

fn check(outcome: Option<CheckOutcome>, verified: bool) -> SubmitVerificationUpdate {
    SubmitVerificationUpdate {
        contact_id: Some("c2".into()),
        outcome,
        verified,
        checked_on: day("2026-11-20"),
        method: VerificationMethod::Phone,
        source: "call to the office".into(),
        note: None,
        changes: ContactPatch::new(),
        steward: ana(),
        today: day("2026-11-21"),
    }
}

fn fields(result: Result<Vec<AuthorityEvent>, AuthorityError>) -> Vec<String> {
    match result {
        Err(AuthorityError::Invalid(problems)) => problems.into_iter().map(|p| p.field).collect(),
        other => panic!("expected invalid fields, got {other:?}"),
    }
}

#[test]
fn a_focal_point_is_not_the_primary_authority() {
    let state = state_after(de_focal_point_only());
    assert_eq!(state.primary, None);
    assert_eq!(state.focal_point().map(|c| c.id.as_str()), Some("c1"));
    assert_eq!(
        state.notes.as_deref(),
        Some("No competent authority is known.")
    );
}

#[test]
fn an_area_limited_authority_keeps_its_scope_and_is_not_primary_by_default() {
    let state = state_after(with_saxony());
    assert_eq!(state.primary, None);
    let saxony = state.contact("c2").expect("c2");
    assert_eq!(saxony.details.area.as_deref(), Some("Saxony"));
    assert_eq!(saxony.details.movements.as_deref(), Some("export,import"));
    assert_eq!(saxony.provenance.steward, ana());
    assert_eq!(state.last_steward, ana());
}

#[test]
fn the_first_national_authority_added_becomes_primary() {
    let mut events = with_saxony();
    let mut national = saxony();
    national.contact.details.area = None;
    national.contact.details.movements = None;
    national.contact.details.ca_name = Some("Umweltbundesamt".into());
    events.extend(
        state_after(events.clone())
            .decide(&AuthorityCommand::AddContact(national))
            .expect("added"),
    );
    let state = state_after(events);
    assert_eq!(state.primary.as_deref(), Some("c3"));
}

#[test]
fn a_defunct_primary_stops_being_primary() {
    let mut events = with_saxony();
    let mut national = saxony();
    national.contact.details.area = None;
    national.contact.details.movements = None;
    events.extend(
        state_after(events.clone())
            .decide(&AuthorityCommand::AddContact(national))
            .expect("added"),
    );
    let state = state_after(events.clone());
    assert_eq!(state.primary.as_deref(), Some("c3"));
    events.extend(
        state
            .decide(&AuthorityCommand::SubmitVerification(
                SubmitVerificationUpdate {
                    contact_id: Some("c3".into()),
                    ..check(Some(CheckOutcome::Defunct), false)
                },
            ))
            .expect("recorded"),
    );
    let after = state_after(events);
    assert_eq!(after.primary, None, "no other national authority");
    let c3 = after.contact("c3").expect("kept for history");
    assert!(c3.details.email.is_none() && c3.details.notes.is_none());
}

#[test]
fn a_second_focal_point_is_refused() {
    let state = state_after(de_focal_point_only());
    let mut add = saxony();
    add.contact.role = Some(Role::FocalPoint);
    assert_eq!(
        fields(state.decide(&AuthorityCommand::AddContact(add))),
        vec!["role"]
    );
}

#[test]
fn a_contact_needs_a_name_and_a_valid_scope() {
    let state = state_after(de_focal_point_only());
    let mut add = saxony();
    add.contact.details.ca_name = None;
    add.contact.details.movements = Some("smuggling".into());
    assert_eq!(
        fields(state.decide(&AuthorityCommand::AddContact(add))),
        vec!["movements", "ca_name"]
    );
}

#[test]
fn without_an_authority_a_check_concerns_the_party_and_cannot_verify() {
    let state = state_after(de_focal_point_only());
    let party_check = |verified| {
        AuthorityCommand::SubmitVerification(SubmitVerificationUpdate {
            contact_id: None,
            ..check(Some(CheckOutcome::NoAnswer), verified)
        })
    };
    assert_eq!(fields(state.decide(&party_check(true))), vec!["verified"]);
    let events = state.decide(&party_check(false)).expect("recorded");
    let after = state_after([de_focal_point_only(), events].concat());
    assert_eq!(after.last_attempt, Some(day("2026-11-20")));
    assert_eq!(after.primary, None);
    assert_eq!(
        after.focal_point().map(|c| c.provenance.last_attempt),
        Some(None)
    );
}

#[test]
fn a_confirmed_check_moves_last_checked_and_verifies() {
    let mut events = with_saxony();
    let state = state_after(events.clone());
    events.extend(
        state
            .decide(&AuthorityCommand::SubmitVerification(check(None, true)))
            .expect("checked"),
    );
    let c = state_after(events).contact("c2").cloned().expect("c2");
    assert_eq!(c.provenance.outcome, Some(CheckOutcome::Confirmed));
    assert_eq!(c.provenance.last_checked, Some(day("2026-11-20")));
    assert!(c.provenance.verified);
}

#[test]
fn an_unverified_check_leaves_freshness_and_the_source_alone() {
    let mut events = with_saxony();
    let state = state_after(events.clone());
    let before = state.contact("c2").cloned().expect("c2");
    events.extend(
        state
            .decide(&AuthorityCommand::SubmitVerification(
                SubmitVerificationUpdate {
                    contact_id: Some("c2".into()),
                    ..check(Some(CheckOutcome::Confirmed), false)
                },
            ))
            .expect("checked"),
    );
    let after = state_after(events).contact("c2").cloned().expect("c2");
    assert_eq!(
        after.provenance.last_checked,
        before.provenance.last_checked
    );
    assert_eq!(after.provenance.source, before.provenance.source);
    let check = after.provenance.last_check.expect("the check is kept");
    assert_eq!(check.source, "call to the office");
    assert!(!check.verified);
}

#[test]
fn a_changed_check_needs_a_change_and_records_it() {
    let state = state_after(with_saxony());
    assert_eq!(
        fields(state.decide(&AuthorityCommand::SubmitVerification(check(
            Some(CheckOutcome::Changed),
            true
        )))),
        vec!["outcome"]
    );
    let mut command = check(Some(CheckOutcome::Changed), true);
    command
        .changes
        .insert(ContactField::Phone, Some("+49-371-532-1".into()));
    let events = state
        .decide(&AuthorityCommand::SubmitVerification(command))
        .expect("checked");
    let after = state_after([with_saxony(), events].concat());
    let c = after.contact("c2").expect("c2");
    assert_eq!(c.provenance.outcome, Some(CheckOutcome::Changed));
    assert_eq!(c.provenance.last_checked, Some(day("2026-11-20")));
    assert_eq!(
        c.details.phone.as_ref().map(|p| p.as_str()),
        Some("+49-371-532-1")
    );
}

#[test]
fn a_check_without_answer_is_an_attempt_and_changes_nothing_else() {
    let before = state_after(with_saxony());
    assert_eq!(
        fields(before.decide(&AuthorityCommand::SubmitVerification(check(
            Some(CheckOutcome::NoAnswer),
            true
        )))),
        vec!["verified"]
    );
    let events = before
        .decide(&AuthorityCommand::SubmitVerification(check(
            Some(CheckOutcome::NoAnswer),
            false,
        )))
        .expect("recorded");
    let c = state_after([with_saxony(), events].concat())
        .contact("c2")
        .cloned()
        .expect("c2");
    assert_eq!(c.provenance.last_checked, None);
    assert_eq!(c.provenance.last_attempt, Some(day("2026-11-20")));
    assert_eq!(c.provenance.outcome, Some(CheckOutcome::NoAnswer));
    assert!(c.details.email.is_some());
}

#[test]
fn a_defunct_check_retires_every_channel() {
    let before = state_after(with_saxony());
    let events = before
        .decide(&AuthorityCommand::SubmitVerification(check(
            Some(CheckOutcome::Defunct),
            false,
        )))
        .expect("recorded");
    let c = state_after([with_saxony(), events].concat())
        .contact("c2")
        .cloned()
        .expect("c2");
    assert_eq!(c.details.email, None);
    assert_eq!(c.details.phone, None);
    assert_eq!(
        c.details.ca_name.as_deref(),
        Some("Landesdirektion Sachsen")
    );
    let retired: Vec<_> = c.retired.iter().map(|r| r.field).collect();
    assert_eq!(retired, vec![ContactField::Email, ContactField::Phone]);
    assert_eq!(c.provenance.last_checked, None);
    assert!(!c.provenance.verified);
}

#[test]
fn withdrawing_the_primary_needs_a_reason_and_promotes_the_next_national_authority() {
    let mut events = with_saxony();
    for name in ["Umweltbundesamt", "Bundesamt für Logistik"] {
        let mut national = saxony();
        national.contact.details.ca_name = Some(name.into());
        national.contact.details.area = None;
        national.contact.details.movements = None;
        let state = state_after(events.clone());
        events.extend(
            state
                .decide(&AuthorityCommand::AddContact(national))
                .expect("added"),
        );
    }
    let state = state_after(events.clone());
    assert_eq!(state.primary.as_deref(), Some("c3"));
    let remove = |reason: &str| {
        AuthorityCommand::RemoveContact(RemoveContact {
            contact_id: "c3".into(),
            reason: reason.into(),
            steward: ana(),
        })
    };
    assert_eq!(fields(state.decide(&remove(" "))), vec!["reason"]);
    events.extend(state.decide(&remove("office merged")).expect("removed"));
    let state = state_after(events);
    assert_eq!(
        state.primary.as_deref(),
        Some("c4"),
        "not Saxony (area-limited)"
    );
    assert!(state.contact("c3").is_none());
    assert_eq!(state.next_contact_id(), "c5", "ids are never reused");
}

#[test]
fn only_a_competent_authority_can_be_made_primary() {
    let state = state_after(with_saxony());
    let designate = |id: &str| {
        AuthorityCommand::DesignatePrimary(DesignatePrimary {
            contact_id: id.into(),
            steward: ana(),
        })
    };
    assert_eq!(fields(state.decide(&designate("c1"))), vec!["contact_id"]);
    assert_eq!(
        state.decide(&designate("c9")),
        Err(AuthorityError::UnknownContact("c9".into()))
    );
}

#[test]
fn a_check_naming_an_authority_on_an_empty_record_adds_it() {
    let state = state_after(de_focal_point_only());
    let mut command = check(None, false);
    command.contact_id = None;
    command
        .changes
        .insert(ContactField::CaName, Some("Umweltbundesamt (CA)".into()));
    let events = state
        .decide(&AuthorityCommand::SubmitVerification(command))
        .expect("accepted");
    let after = state_after([de_focal_point_only(), events].concat());
    let primary = after.primary_contact().expect("added as primary");
    assert_eq!(primary.id, "c2");
    assert_eq!(
        primary.details.ca_name.as_deref(),
        Some("Umweltbundesamt (CA)")
    );
}

#[test]
fn a_contact_added_with_its_history_keeps_its_last_outcome_and_attempt() {
    let mut add = saxony();
    add.contact.outcome = Some(CheckOutcome::NoAnswer);
    add.contact.last_attempt = Some(day("2026-11-20"));
    let mut events = de_focal_point_only();
    events.extend(
        state_after(events.clone())
            .decide(&AuthorityCommand::AddContact(add.clone()))
            .expect("added"),
    );
    let state = state_after(events);
    let c = state.contact("c2").expect("c2");
    assert_eq!(c.provenance.outcome, Some(CheckOutcome::NoAnswer));
    assert_eq!(c.provenance.last_attempt, Some(day("2026-11-20")));

    add.contact.last_attempt = Some(day("2026-11-22"));
    let refused = state_after(de_focal_point_only()).decide(&AuthorityCommand::AddContact(add));
    assert!(
        matches!(&refused, Err(AuthorityError::Invalid(p)) if p[0].field == "last_attempt"),
        "{refused:?}"
    );
}

#[test]
fn a_party_at_its_contact_cap_refuses_one_more() {
    let state = state_after(with_saxony());
    assert_eq!(state.contacts.len(), 2);
    let mut third = saxony();
    third.contact.id = None;
    third.contact.details.ca_name = Some("Bezirksregierung Arnsberg".into());
    third.max_contacts = 2;
    let refused = state
        .decide(&AuthorityCommand::AddContact(third.clone()))
        .expect_err("at the cap");
    let AuthorityError::Invalid(problems) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(problems[0].field, "contacts");
    third.max_contacts = 3;
    assert!(state.decide(&AuthorityCommand::AddContact(third)).is_ok());
}
