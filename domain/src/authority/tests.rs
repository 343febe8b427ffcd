use chrono::NaiveDate;

use super::*;
use crate::testing::given;
use crate::values::{CountryCode, Email, Phone, Slug};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("test date")
}

fn de() -> CountryCode {
    CountryCode::parse("DE").expect("code")
}

fn full_contact() -> ContactInput {
    ContactInput {
        ca_name: Some("Umweltbundesamt".into()),
        channels: Channels {
            email: Some("basel@uba.de".into()),
            phone: Some("+49-340-2103-0".into()),
            address: Some("Wörlitzer Platz 1, Dessau".into()),
            ..Channels::default()
        },
        ..ContactInput::default()
    }
}

fn register(verified: bool, contact: ContactInput) -> RegisterAuthority {
    RegisterAuthority {
        country: de(),
        country_name: "Germany".into(),
        contact,
        verified,
        last_checked: Some(day("2026-01-10")),
        source: Some("official notification".into()),
        contacts: Vec::new(),
        steward: None,
        today: day("2026-11-21"),
    }
}

fn registered() -> AuthorityEvent {
    AuthorityEvent::AuthorityRegistered(AuthorityRegistered {
        country: de(),
        country_name: "Germany".into(),
        source: Some("official notification".into()),
        notes: None,
        contacts: vec![PartyContact {
            id: "c1".into(),
            role: Role::CompetentAuthority,
            details: full_contact().validate().expect("valid contact"),
            provenance: ContactProvenance {
                source: Some("official notification".into()),
                last_checked: Some(day("2026-01-10")),
                ..ContactProvenance::default()
            },
            retired: Vec::new(),
            sources: Vec::new(),
            also_focal_point: false,
            role_basis: None,
        }],
        primary: Some("c1".into()),
        steward: None,
    })
}

fn update(changes: ContactPatch) -> SubmitVerificationUpdate {
    SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: true,
        checked_on: day("2026-11-20"),
        method: VerificationMethod::Email,
        source: "reply from basel@uba.de".into(),
        note: None,
        changes,
        steward: Some(Slug::parse("ana").expect("slug")),
        today: day("2026-11-21"),
    }
}

fn recorded(verified: bool, checked_on: &str) -> AuthorityEvent {
    recorded_as(CheckOutcome::Confirmed, verified, checked_on)
}

fn recorded_as(outcome: CheckOutcome, verified: bool, checked_on: &str) -> AuthorityEvent {
    AuthorityEvent::VerificationRecorded(VerificationRecorded {
        contact_id: "c1".into(),
        outcome: Some(outcome),
        verified,
        checked_on: day(checked_on),
        method: VerificationMethod::Email,
        source: "reply from basel@uba.de".into(),
        steward: Some(Slug::parse("ana").expect("slug")),
        note: None,
    })
}

fn problems_of(result: Result<Vec<AuthorityEvent>, AuthorityError>) -> Vec<String> {
    match result {
        Err(AuthorityError::Invalid(problems)) => problems.into_iter().map(|p| p.field).collect(),
        other => panic!("expected invalid fields, got {other:?}"),
    }
}

#[test]
fn a_new_country_is_registered_with_its_details() {
    given::<Authority>(vec![])
        .when(AuthorityCommand::Register(register(false, full_contact())))
        .then_expect(vec![registered()]);
}

#[test]
fn a_country_is_registered_only_once() {
    given::<Authority>(vec![registered()])
        .when(AuthorityCommand::Register(register(false, full_contact())))
        .then_refused(AuthorityError::AlreadyRegistered(de()));
}

#[test]
fn registration_with_unknown_contact_fields_is_allowed_when_not_verified() {
    let result = given::<Authority>(vec![])
        .when(AuthorityCommand::Register(register(
            false,
            ContactInput::default(),
        )))
        .result();
    assert!(result.is_ok());
}

#[test]
fn a_record_cannot_be_registered_verified_with_empty_required_fields() {
    let full = full_contact();
    let contact = ContactInput {
        channels: Channels {
            email: None,
            phone: None,
            ..full.channels.clone()
        },
        ..full
    };
    let fields = problems_of(
        given::<Authority>(vec![])
            .when(AuthorityCommand::Register(register(true, contact)))
            .result(),
    );
    assert_eq!(fields, vec!["email", "phone"]);
}

#[test]
fn invalid_email_and_phone_are_refused_together() {
    let full = full_contact();
    let contact = ContactInput {
        channels: Channels {
            email: Some("not-an-address".into()),
            phone: Some("0340 2103".into()),
            ..full.channels.clone()
        },
        ..full
    };
    let fields = problems_of(
        given::<Authority>(vec![])
            .when(AuthorityCommand::Register(register(false, contact)))
            .result(),
    );
    assert_eq!(fields, vec!["email", "phone"]);
}

#[test]
fn a_phone_or_fax_without_a_country_calling_code_is_refused() {
    let full = full_contact();
    let contact = ContactInput {
        channels: Channels {
            phone: Some("+861-0-66-55-62-56".into()),
            fax: Some("+12-613-555-0100".into()),
            ..full.channels.clone()
        },
        ..full
    };
    let fields = problems_of(
        given::<Authority>(vec![])
            .when(AuthorityCommand::Register(register(false, contact)))
            .result(),
    );
    assert_eq!(fields, vec!["phone", "fax"]);
}

#[test]
fn a_country_name_with_a_line_break_inside_is_refused() {
    let command = RegisterAuthority {
        country_name: "Ruritania\r\n\t*".into(),
        ..register(false, full_contact())
    };
    let fields = problems_of(
        given::<Authority>(vec![])
            .when(AuthorityCommand::Register(command))
            .result(),
    );
    assert_eq!(fields, vec!["country_name"]);
}

#[test]
fn registration_needs_a_country_name() {
    let command = RegisterAuthority {
        country_name: "  ".into(),
        ..register(false, full_contact())
    };
    let fields = problems_of(
        given::<Authority>(vec![])
            .when(AuthorityCommand::Register(command))
            .result(),
    );
    assert_eq!(fields, vec!["country_name"]);
}

#[test]
fn a_verification_confirming_unchanged_data_is_still_recorded() {
    given::<Authority>(vec![registered()])
        .when(AuthorityCommand::SubmitVerification(update(
            ContactPatch::new(),
        )))
        .then_expect(vec![recorded(true, "2026-11-20")]);
}

#[test]
fn a_verification_with_changes_records_only_the_changed_fields() {
    let changes = ContactPatch::from([
        (ContactField::Email, Some("  basel@UBA.de ".into())),
        (ContactField::Phone, Some("+49-340-2103-2000".into())),
        (ContactField::CaName, Some("Umweltbundesamt".into())),
    ]);
    given::<Authority>(vec![registered()])
        .when(AuthorityCommand::SubmitVerification(update(changes)))
        .then_expect(vec![
            AuthorityEvent::ContactDetailsChanged(ContactDetailsChanged {
                contact_id: "c1".into(),
                changes: vec![FieldChange {
                    field: ContactField::Phone,
                    old: Some("+49-340-2103-0".into()),
                    new: Some("+49-340-2103-2000".into()),
                }],
            }),
            recorded_as(CheckOutcome::Changed, true, "2026-11-20"),
        ]);
}

#[test]
fn a_verification_in_the_future_is_refused() {
    let command = SubmitVerificationUpdate {
        checked_on: day("2026-11-22"),
        ..update(ContactPatch::new())
    };
    let fields = problems_of(
        given::<Authority>(vec![registered()])
            .when(AuthorityCommand::SubmitVerification(command))
            .result(),
    );
    assert_eq!(fields, vec!["checked_on"]);
}

#[test]
fn a_verification_before_the_previous_check_is_refused() {
    let command = SubmitVerificationUpdate {
        checked_on: day("2026-01-09"),
        ..update(ContactPatch::new())
    };
    let fields = problems_of(
        given::<Authority>(vec![registered()])
            .when(AuthorityCommand::SubmitVerification(command))
            .result(),
    );
    assert_eq!(fields, vec!["checked_on"]);
}

#[test]
fn a_check_on_the_same_day_as_the_previous_one_is_accepted() {
    let command = SubmitVerificationUpdate {
        checked_on: day("2026-01-10"),
        ..update(ContactPatch::new())
    };
    given::<Authority>(vec![registered()])
        .when(AuthorityCommand::SubmitVerification(command))
        .then_expect(vec![recorded(true, "2026-01-10")]);
}

#[test]
fn clearing_a_required_field_while_marking_verified_is_refused() {
    let changes = ContactPatch::from([(ContactField::Email, None)]);
    let fields = problems_of(
        given::<Authority>(vec![registered()])
            .when(AuthorityCommand::SubmitVerification(update(changes)))
            .result(),
    );
    assert_eq!(fields, vec!["email"]);
}

#[test]
fn clearing_a_field_is_allowed_when_marking_unverified() {
    let changes = ContactPatch::from([(ContactField::Email, None)]);
    let command = SubmitVerificationUpdate {
        verified: false,
        ..update(changes)
    };
    let events = given::<Authority>(vec![registered()])
        .when(AuthorityCommand::SubmitVerification(command))
        .result()
        .expect("accepted");
    assert_eq!(events.len(), 2);
}

#[test]
fn invalid_changes_name_the_field_under_changes() {
    let changes = ContactPatch::from([(ContactField::Phone, Some("12345".into()))]);
    let fields = problems_of(
        given::<Authority>(vec![registered()])
            .when(AuthorityCommand::SubmitVerification(update(changes)))
            .result(),
    );
    assert_eq!(fields, vec!["changes.phone"]);
}

#[test]
fn a_verification_needs_a_source() {
    let command = SubmitVerificationUpdate {
        source: "   ".into(),
        ..update(ContactPatch::new())
    };
    let fields = problems_of(
        given::<Authority>(vec![registered()])
            .when(AuthorityCommand::SubmitVerification(command))
            .result(),
    );
    assert_eq!(fields, vec!["source"]);
}

#[test]
fn an_unregistered_country_cannot_be_verified() {
    given::<Authority>(vec![])
        .when(AuthorityCommand::SubmitVerification(update(
            ContactPatch::new(),
        )))
        .then_refused(AuthorityError::NotRegistered);
}

#[test]
fn applying_events_rebuilds_the_record() {
    let mut state = Authority::default();
    let changed = AuthorityEvent::ContactDetailsChanged(ContactDetailsChanged {
        contact_id: "c1".into(),
        changes: vec![FieldChange {
            field: ContactField::Phone,
            old: None,
            new: Some("+49-340-1".into()),
        }],
    });
    for event in [registered(), changed, recorded(true, "2026-11-20")] {
        state.apply(event);
    }
    let primary = state.primary_contact().expect("primary");
    assert_eq!(primary.details.phone, Phone::parse("+49-340-1").ok());
    assert_eq!(primary.details.email, Email::parse("basel@uba.de").ok());
    assert!(primary.provenance.verified);
    assert_eq!(primary.provenance.last_checked, Some(day("2026-11-20")));
}

#[test]
fn events_keep_their_published_names() {
    use crate::aggregate::DomainEvent;
    let names: Vec<_> = [registered(), recorded(true, "2026-11-20")]
        .iter()
        .map(|e| e.event_type())
        .collect();
    assert_eq!(names, vec!["AuthorityRegistered", "VerificationRecorded"]);
    let json = serde_json::to_value(recorded(false, "2026-11-20")).expect("json");
    assert_eq!(json["VerificationRecorded"]["method"], "email");
    assert_eq!(json["VerificationRecorded"]["checked_on"], "2026-11-20");
}

fn check_by(steward: &str, email: &str) -> SubmitVerificationUpdate {
    let mut changes = ContactPatch::new();
    changes.insert(ContactField::Email, Some(email.into()));
    SubmitVerificationUpdate {
        contact_id: Some("c1".into()),
        outcome: None,
        verified: false,
        checked_on: day("2026-11-20"),
        method: VerificationMethod::Email,
        source: "reply of the ministry".into(),
        note: None,
        changes,
        steward: Some(Slug::parse(steward).expect("slug")),
        today: day("2026-11-21"),
    }
}

fn proposed(steward: &str, email: &str) -> Vec<AuthorityEvent> {
    given::<Authority>(vec![registered()])
        .when(AuthorityCommand::Review(ReviewCommand::propose_check(
            "p1".into(),
            check_by(steward, email),
            Vec::new(),
        )))
        .result()
        .expect("proposed")
}

#[test]
fn a_proposal_records_the_diff_and_changes_nothing_else() {
    let events = proposed("ana", "new@uba.de");
    let [AuthorityEvent::ChangeProposed(p)] = events.as_slice() else {
        panic!("one ChangeProposed: {events:?}");
    };
    assert_eq!(p.changes.len(), 1);
    assert_eq!(p.changes[0].old.as_deref(), Some("basel@uba.de"));
    assert_eq!(p.changes[0].new.as_deref(), Some("new@uba.de"));
}

#[test]
fn the_author_cannot_approve_and_another_steward_records_the_authors_check() {
    let history = [vec![registered()], proposed("ana", "new@uba.de")].concat();
    let approve = |who: &str| {
        AuthorityCommand::Review(ReviewCommand::Approve {
            proposal_id: "p1".into(),
            approver: Slug::parse(who).expect("slug"),
            today: day("2026-11-21"),
        })
    };
    given::<Authority>(history.clone())
        .when(approve("ana"))
        .then_refused(AuthorityError::OwnProposal);
    let events = given::<Authority>(history)
        .when(approve("ben"))
        .result()
        .expect("approved");
    assert!(
        matches!(&events[0], AuthorityEvent::ProposalApproved(a) if a.approver.as_str() == "ben" && a.proposer.as_str() == "ana")
    );
    assert!(events.iter().any(|e| matches!(e,
        AuthorityEvent::VerificationRecorded(v) if v.steward.as_ref().map(Slug::as_str) == Some("ana"))));
}

#[test]
fn a_change_of_the_record_makes_a_proposal_stale() {
    let mut history = [vec![registered()], proposed("ana", "new@uba.de")].concat();
    history.extend(
        given::<Authority>(history.clone())
            .when(AuthorityCommand::SubmitVerification(check_by(
                "ben",
                "other@uba.de",
            )))
            .result()
            .expect("a direct check"),
    );
    given::<Authority>(history)
        .when(AuthorityCommand::Review(ReviewCommand::Approve {
            proposal_id: "p1".into(),
            approver: Slug::parse("ben").expect("slug"),
            today: day("2026-11-21"),
        }))
        .then_refused(AuthorityError::StaleProposal);
}

#[test]
fn evidence_is_typed_by_its_content_not_its_name() {
    assert_eq!(Evidence::sniff(b"%PDF-1.7\n"), Some("application/pdf"));
    assert_eq!(Evidence::sniff(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
    assert_eq!(
        Evidence::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
        Some("image/jpeg")
    );
    assert_eq!(Evidence::sniff(b"GIF89a"), Some("image/gif"));
    assert_eq!(
        Evidence::sniff(b"Received: x\r\nFrom: a@b.org\r\n\r\nbody"),
        Some("message/rfc822")
    );
    assert_eq!(Evidence::sniff(b"<html><script>x</script>"), None);
    assert_eq!(Evidence::sniff(b"Subject: no sender\r\n\r\nbody"), None);
    assert_eq!(Evidence::sniff(b"MZ\x90\x00"), None);
}

#[test]
fn a_check_with_evidence_names_each_file_after_the_check() {
    let file = Evidence {
        sha256: "a".repeat(64),
        media_type: "application/pdf".into(),
        file_name: "letter.pdf".into(),
        size: 12,
    };
    let events = given::<Authority>(vec![registered()])
        .when(AuthorityCommand::SubmitVerificationWithEvidence(
            check_by("ana", "basel@uba.de"),
            vec![file.clone()],
        ))
        .result()
        .expect("recorded");
    assert!(
        matches!(events.last(), Some(AuthorityEvent::EvidenceAttached(e)) if e.contact_id == "c1" && e.sha256 == file.sha256)
    );
    let bad = Evidence {
        media_type: "text/html".into(),
        ..file
    };
    let refused = given::<Authority>(vec![registered()])
        .when(AuthorityCommand::SubmitVerificationWithEvidence(
            check_by("ana", "basel@uba.de"),
            vec![bad],
        ))
        .result();
    assert!(matches!(refused, Err(AuthorityError::Invalid(p)) if p[0].field == "evidence"));
}
