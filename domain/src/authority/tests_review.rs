//! Four-eyes review of every kind of change: propose, approve, the author's
//! own approval refused, stale, reject, refused when the direct command is.

use chrono::NaiveDate;

use super::*;
use crate::testing::given;
use crate::values::{CountryCode, Slug};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("test date")
}

fn state(events: Vec<AuthorityEvent>) -> Authority {
    let mut state = Authority::default();
    for event in events {
        state.apply(event);
    }
    state
}

fn who(name: &str) -> Option<Slug> {
    Some(Slug::parse(name).expect("slug"))
}

fn contact(id: &str, name: &str, email: &str) -> PartyContact {
    PartyContact {
        id: id.into(),
        role: Role::CompetentAuthority,
        details: ContactInput {
            ca_name: Some(name.into()),
            channels: Channels {
                email: Some(email.into()),
                phone: Some("+49-340-2103-0".into()),
                ..Channels::default()
            },
            ..ContactInput::default()
        }
        .validate()
        .expect("valid contact"),
        provenance: ContactProvenance::default(),
        retired: Vec::new(),
        sources: Vec::new(),
        also_focal_point: false,
        role_basis: None,
    }
}

/// A record of `code` with two competent authorities, `c1` primary.
fn registered(code: &str) -> AuthorityEvent {
    AuthorityEvent::AuthorityRegistered(AuthorityRegistered {
        country: CountryCode::parse(code).expect("code"),
        country_name: "Somewhere".into(),
        source: None,
        notes: None,
        contacts: vec![
            contact("c1", "Umweltbundesamt", "basel@uba.de"),
            contact("c2", "Landesamt", "post@land.de"),
        ],
        primary: Some("c1".into()),
        steward: None,
    })
}

fn add_by(steward: &str) -> AuthorityCommand {
    AuthorityCommand::AddContact(AddContact {
        contact: NewContact {
            details: ContactInput {
                ca_name: Some("Neues Amt".into()),
                channels: Channels {
                    email: Some("neu@amt.de".into()),
                    ..Channels::default()
                },
                ..ContactInput::default()
            },
            ..NewContact::default()
        },
        max_contacts: DEFAULT_MAX_CONTACTS,
        steward: who(steward),
        today: day("2026-11-21"),
    })
}

fn remove_by(steward: &str, id: &str) -> AuthorityCommand {
    AuthorityCommand::RemoveContact(RemoveContact {
        contact_id: id.into(),
        reason: "office closed".into(),
        steward: who(steward),
    })
}

fn primary_by(steward: &str, id: &str) -> AuthorityCommand {
    AuthorityCommand::DesignatePrimary(DesignatePrimary {
        contact_id: id.into(),
        steward: who(steward),
    })
}

fn retire_by(steward: &str) -> AuthorityCommand {
    AuthorityCommand::Retire(RetireAuthority {
        reason: "created in error".into(),
        steward: who(steward),
    })
}

fn propose(command: AuthorityCommand) -> AuthorityCommand {
    AuthorityCommand::Review(ReviewCommand::Propose {
        proposal_id: "p1".into(),
        command: Box::new(command),
    })
}

fn approve(approver: &str) -> AuthorityCommand {
    AuthorityCommand::Review(ReviewCommand::Approve {
        proposal_id: "p1".into(),
        approver: Slug::parse(approver).expect("slug"),
        today: day("2026-11-22"),
    })
}

/// The record of `code` and `command` proposed by its author, with the
/// proposal event.
fn proposed(code: &str, command: AuthorityCommand) -> (Vec<AuthorityEvent>, ChangeProposed) {
    let history = vec![registered(code)];
    let events = given::<Authority>(history.clone())
        .when(propose(command))
        .result()
        .expect("proposed");
    let [AuthorityEvent::ChangeProposed(p)] = events.as_slice() else {
        panic!("one ChangeProposed: {events:?}");
    };
    let p = p.clone();
    ([history, events].concat(), p)
}

/// Approved by `ben`: the events after `ProposalApproved`, which names him
/// and the author `ana`.
fn approved(history: Vec<AuthorityEvent>) -> Vec<AuthorityEvent> {
    let mut events = given::<Authority>(history)
        .when(approve("ben"))
        .result()
        .expect("approved");
    let first = events.remove(0);
    assert!(
        matches!(&first, AuthorityEvent::ProposalApproved(a) if a.approver.as_str() == "ben" && a.proposer.as_str() == "ana"),
        "{first:?}"
    );
    events
}

fn every_kind() -> Vec<(&'static str, AuthorityCommand)> {
    vec![
        ("DE", add_by("ana")),
        ("DE", remove_by("ana", "c2")),
        ("DE", primary_by("ana", "c2")),
        ("ZZ", retire_by("ana")),
    ]
}

#[test]
fn an_added_contact_is_proposed_with_its_fields_and_added_as_its_author_on_approval() {
    let (history, p) = proposed("DE", add_by("ana"));
    let ProposedChange::AddContact(add) = &p.change else {
        panic!("an addition: {p:?}");
    };
    assert_eq!(add.contact.id, "c3");
    assert!(p.changes.iter().any(|c| c.field == ContactField::Email
        && c.old.is_none()
        && c.new.as_deref() == Some("neu@amt.de")));
    let state = state(history.clone());
    assert_eq!(state.contacts.len(), 2, "nothing added before approval");
    let events = approved(history);
    let [AuthorityEvent::ContactAdded(added)] = events.as_slice() else {
        panic!("one ContactAdded: {events:?}");
    };
    assert_eq!(added.contact.id, "c3");
    assert_eq!(added.contact.provenance.steward, who("ana"));
}

#[test]
fn a_withdrawal_is_proposed_with_the_fields_it_removes_and_withdrawn_as_its_author() {
    let (history, p) = proposed("DE", remove_by("ana", "c2"));
    assert_eq!(p.change.kind(), "remove_contact");
    assert!(p.changes.iter().any(|c| c.field == ContactField::CaName
        && c.old.as_deref() == Some("Landesamt")
        && c.new.is_none()));
    let events = approved(history);
    assert!(matches!(events.as_slice(),
        [AuthorityEvent::ContactRemoved(r)] if r.contact_id == "c2" && r.steward == who("ana")));
}

#[test]
fn a_designation_is_proposed_with_the_old_primary_and_made_as_its_author() {
    let (history, p) = proposed("DE", primary_by("ana", "c2"));
    assert_eq!(
        p.change,
        ProposedChange::DesignatePrimary(ProposedPrimary {
            contact_id: "c2".into(),
            old_primary: Some("c1".into()),
        })
    );
    let events = approved(history);
    assert!(matches!(events.as_slice(),
        [AuthorityEvent::PrimaryDesignated(d)] if d.contact_id == "c2" && d.steward == who("ana")));
}

#[test]
fn a_retirement_of_a_code_that_is_not_a_party_is_proposed_and_retired_as_its_author() {
    let (history, p) = proposed("ZZ", retire_by("ana"));
    assert_eq!(p.change.kind(), "retire");
    let events = approved(history);
    assert!(matches!(events.as_slice(),
        [AuthorityEvent::AuthorityRetired(r)] if r.steward == who("ana")));
}

#[test]
fn no_author_approves_their_own_proposal_of_any_kind() {
    for (code, command) in every_kind() {
        let (history, _) = proposed(code, command);
        given::<Authority>(history)
            .when(approve("ana"))
            .then_refused(AuthorityError::OwnProposal);
    }
}

#[test]
fn a_proposal_of_any_kind_goes_stale_when_the_record_changes() {
    for (code, command) in every_kind() {
        let (mut history, _) = proposed(code, command);
        history.push(AuthorityEvent::ContactDetailsChanged(
            ContactDetailsChanged {
                contact_id: "c1".into(),
                changes: vec![FieldChange {
                    field: ContactField::Fax,
                    old: None,
                    new: Some("+49-1".into()),
                }],
            },
        ));
        given::<Authority>(history)
            .when(approve("ben"))
            .then_refused(AuthorityError::StaleProposal);
    }
}

#[test]
fn a_rejected_proposal_of_any_kind_is_decided_once_and_changes_nothing() {
    for (code, command) in every_kind() {
        let (mut history, _) = proposed(code, command);
        let before = state(history.clone());
        let rejected = given::<Authority>(history.clone())
            .when(AuthorityCommand::Review(ReviewCommand::Reject {
                proposal_id: "p1".into(),
                reviewer: Slug::parse("ben").expect("slug"),
                reason: "not what the letter says".into(),
            }))
            .result()
            .expect("rejected");
        history.extend(rejected);
        let after = state(history.clone());
        assert_eq!(after.contacts, before.contacts);
        assert_eq!(after.primary, before.primary);
        assert!(after.proposals.is_empty() && after.retired.is_none());
        given::<Authority>(history)
            .when(approve("ben"))
            .then_refused(AuthorityError::UnknownProposal("p1".into()));
    }
}

#[test]
fn a_change_the_direct_command_refuses_cannot_be_proposed() {
    let record = || given::<Authority>(vec![registered("DE")]);
    record()
        .when(propose(remove_by("ana", "c9")))
        .then_refused(AuthorityError::UnknownContact("c9".into()));
    assert!(matches!(
        record().when(propose(primary_by("ana", "c1"))).result(),
        Err(AuthorityError::Invalid(_))
    ));
    record()
        .when(propose(retire_by("ana")))
        .then_refused(AuthorityError::IsAParty(
            CountryCode::parse("DE").expect("code"),
        ));
    let mut no_reason = remove_by("ana", "c2");
    if let AuthorityCommand::RemoveContact(r) = &mut no_reason {
        r.reason = " ".into();
    }
    assert!(matches!(
        record().when(propose(no_reason)).result(),
        Err(AuthorityError::Invalid(p)) if p[0].field == "reason"
    ));
}

#[test]
fn a_registration_or_an_assignment_is_not_a_proposal_and_a_proposal_needs_its_author() {
    let record = || given::<Authority>(vec![registered("DE")]);
    let refused_on = |result: Result<Vec<AuthorityEvent>, AuthorityError>, field: &str| {
        assert!(
            matches!(&result, Err(AuthorityError::Invalid(p)) if p[0].field == field),
            "{result:?}"
        );
    };
    refused_on(
        record()
            .when(propose(AuthorityCommand::Assign(
                Slug::parse("ana").expect("slug"),
            )))
            .result(),
        "change",
    );
    let mut anonymous = add_by("ana");
    if let AuthorityCommand::AddContact(a) = &mut anonymous {
        a.steward = None;
    }
    refused_on(record().when(propose(anonymous)).result(), "steward");
}

#[test]
fn a_proposal_stored_by_the_first_release_still_reads_as_a_check() {
    let stored = serde_json::json!({"ChangeProposed": {
        "proposal_id": "p0", "proposer": "ana",
        "check": {"contact_id": "c1", "outcome": "changed", "verified": false,
            "checked_on": "2026-11-20", "method": "email", "source": "reply",
            "note": null, "changes": {"email": "new@uba.de"}, "evidence": []},
        "changes": [{"field": "email", "old": "basel@uba.de", "new": "new@uba.de"}]
    }});
    let event: AuthorityEvent = serde_json::from_value(stored).expect("the old shape reads");
    let AuthorityEvent::ChangeProposed(p) = &event else {
        panic!("{event:?}");
    };
    let ProposedChange::Check(check) = &p.change else {
        panic!("a check: {p:?}");
    };
    assert_eq!(check.contact_id.as_deref(), Some("c1"));
    assert_eq!(p.changes.len(), 1);
    // Written again, it keeps the first shape.
    let again = serde_json::to_value(&event).expect("serialises");
    assert_eq!(again["ChangeProposed"]["check"]["source"], "reply");
}

#[test]
fn an_open_proposal_in_a_stored_state_reads_with_its_kind() {
    let (history, _) = proposed("DE", primary_by("ana", "c2"));
    let state = state(history);
    let json = serde_json::to_value(&state).expect("serialises");
    assert_eq!(
        json["proposals"][0]["designate_primary"]["contact_id"],
        "c2"
    );
    let read: Authority = serde_json::from_value(json).expect("reads back");
    assert_eq!(read, state);
}

#[test]
fn a_batch_is_decided_in_order_and_approved_as_one() {
    let history = vec![registered("DE")];
    let batch = AuthorityCommand::Review(ReviewCommand::ProposeBatch {
        proposal_id: "p1".into(),
        commands: vec![add_by("ana"), primary_by("ana", "c3")],
    });
    let events = given::<Authority>(history.clone())
        .when(batch)
        .result()
        .expect("proposed: c3 is made primary on the record as its addition leaves it");
    let [AuthorityEvent::ChangeProposed(p)] = events.as_slice() else {
        panic!("one ChangeProposed: {events:?}");
    };
    assert_eq!(p.change.kind(), "batch");
    let history = [history, events].concat();
    let made = approved(history);
    assert!(matches!(made.as_slice(),
        [AuthorityEvent::ContactAdded(a), AuthorityEvent::PrimaryDesignated(d)]
            if a.contact.id == "c3" && d.contact_id == "c3" && d.steward == who("ana")));
    given::<Authority>(vec![registered("DE")])
        .when(AuthorityCommand::Review(ReviewCommand::ProposeBatch {
            proposal_id: "p2".into(),
            commands: vec![add_by("ana"), primary_by("ben", "c3")],
        }))
        .then_refused(AuthorityError::Invalid(vec![FieldProblem::new(
            "steward",
            "one proposal has one author",
        )]));
}
