//! How each event moves an [`Authority`]: no decisions, cannot fail. The
//! directory projection and `as_of` fold with this same function, so the
//! record clients see is the aggregate's state.

use super::contact::ContactField;
use super::events::{
    AuthorityEvent, ContactDetailsChanged, ProposalApproved, ProposalRejected, VerificationRecorded,
};
use super::party::{CheckOutcome, CheckRecord, ContactProvenance, PartyContact, Retired, Role};
use super::Authority;

/// Applies one event to `state`.
pub(super) fn apply(state: &mut Authority, event: AuthorityEvent) {
    let unchanged_record = matches!(
        event,
        AuthorityEvent::ChangeProposed(_)
            | AuthorityEvent::ProposalApproved(_)
            | AuthorityEvent::ProposalRejected(_)
            | AuthorityEvent::WorkAssigned(_)
    );
    if !unchanged_record {
        // The record changes (a proposal or an assignment does not change
        // it): what was proposed against it is stale.
        state.proposals.iter_mut().for_each(|p| p.stale = true);
    }
    match event {
        AuthorityEvent::AuthorityRegistered(e) => {
            state.country = Some(e.country);
            state.country_name = e.country_name;
            state.source = e.source;
            state.notes = e.notes;
            state.added = u32::try_from(e.contacts.len()).unwrap_or(u32::MAX);
            state.last_steward = e.steward;
            state.contacts = e.contacts;
            state.primary = e.primary;
        }
        AuthorityEvent::ContactDetailsChanged(e) => details_changed(state, e),
        AuthorityEvent::VerificationRecorded(e) => verification_recorded(state, e),
        AuthorityEvent::ContactAdded(e) => {
            if e.contact.provenance.steward.is_some() {
                state.last_steward.clone_from(&e.contact.provenance.steward);
            }
            add(state, e.contact, e.primary);
        }
        AuthorityEvent::ContactRemoved(e) => {
            state.contacts.retain(|c| c.id != e.contact_id);
            if state.primary.as_deref() == Some(e.contact_id.as_str()) {
                state.primary = e.new_primary;
            }
            if e.steward.is_some() {
                state.last_steward = e.steward;
            }
        }
        // The file backs the check before it; the record itself is unchanged
        // (the history lists the file with the check).
        AuthorityEvent::EvidenceAttached(_) => {}
        AuthorityEvent::WorkAssigned(e) => state.assigned_to = Some(e.steward),
        AuthorityEvent::ChangeProposed(e) => state.proposals.push(super::Proposal {
            id: e.proposal_id,
            proposer: e.proposer,
            change: e.change,
            changes: e.changes,
            stale: false,
        }),
        AuthorityEvent::ProposalApproved(ProposalApproved { proposal_id, .. })
        | AuthorityEvent::ProposalRejected(ProposalRejected { proposal_id, .. }) => {
            state.proposals.retain(|p| p.id != proposal_id);
        }
        AuthorityEvent::AuthorityRetired(e) => {
            state.retired = Some(e.reason);
            // Nothing more can be written to a retired record: its open
            // proposals can be neither approved nor rejected.
            state.proposals.clear();
            if e.steward.is_some() {
                state.last_steward = e.steward;
            }
        }
        AuthorityEvent::PrimaryDesignated(e) => {
            state.primary = Some(e.contact_id);
            if e.steward.is_some() {
                state.last_steward = e.steward;
            }
        }
    }
}

/// A correction: the Party record's notes (no contact id) or one contact's fields.
fn details_changed(state: &mut Authority, e: ContactDetailsChanged) {
    if e.contact_id.is_empty() {
        for change in e.changes {
            if change.field == ContactField::Notes {
                state.notes = change.new;
            }
        }
        return;
    }
    if state.contact(&e.contact_id).is_none() {
        // A first-release record that had no details got them from a
        // steward's correction: that contact was its authority.
        add(state, legacy_authority(&e.contact_id), false);
    }
    if let Some(contact) = contact_mut(state, &e.contact_id) {
        for change in e.changes {
            contact.details.set(change.field, change.new);
        }
    }
}

/// A check: the Party's last attempt (no contact id) or one contact's provenance.
fn verification_recorded(state: &mut Authority, e: VerificationRecorded) {
    if e.steward.is_some() {
        state.last_steward.clone_from(&e.steward);
    }
    if e.contact_id.is_empty() {
        state.last_attempt = Some(e.checked_on);
        return;
    }
    let Some(contact) = contact_mut(state, &e.contact_id) else {
        return;
    };
    let p = &mut contact.provenance;
    p.outcome = e.outcome;
    p.method = Some(e.method);
    p.steward.clone_from(&e.steward);
    p.steward_note.clone_from(&e.note);
    // A check keeps its own evidence; the contact's source stays.
    p.last_check = Some(CheckRecord {
        checked_on: e.checked_on,
        outcome: e.outcome,
        verified: e.verified,
        method: e.method,
        source: e.source,
        note: e.note,
    });
    match e.outcome {
        // Only a check that reached the authority and verified it
        // moves `last_checked` (freshness never overstates).
        None | Some(CheckOutcome::Confirmed | CheckOutcome::Changed) => {
            p.verified = e.verified;
            if e.verified {
                p.last_checked = Some(e.checked_on);
            }
        }
        Some(CheckOutcome::NoAnswer) => p.last_attempt = Some(e.checked_on),
        Some(CheckOutcome::Defunct) => {
            p.last_attempt = Some(e.checked_on);
            p.verified = false;
            retire_channels(contact);
            // A defunct authority is no longer primary.
            if state.primary.as_deref() == Some(e.contact_id.as_str()) {
                state.primary = state
                    .default_primary(Some(&e.contact_id))
                    .map(|c| c.id.clone());
            }
        }
    }
}

fn contact_mut<'a>(state: &'a mut Authority, id: &str) -> Option<&'a mut PartyContact> {
    state.contacts.iter_mut().find(|c| c.id == id)
}

fn add(state: &mut Authority, contact: PartyContact, primary: bool) {
    let authority = contact.role == Role::CompetentAuthority;
    if primary || (authority && state.primary.is_none() && contact.national()) {
        state.primary = Some(contact.id.clone());
    }
    state.contacts.push(contact);
    state.added += 1;
}

fn legacy_authority(id: &str) -> PartyContact {
    PartyContact {
        id: id.to_owned(),
        role: Role::CompetentAuthority,
        details: super::Contact::default(),
        provenance: ContactProvenance::default(),
        retired: Vec::new(),
        sources: Vec::new(),
        also_focal_point: false,
        role_basis: None,
    }
}

/// A defunct check: every channel, and the notes that may quote them, move
/// to `retired`, out of the served fields.
fn retire_channels(contact: &mut PartyContact) {
    for field in ContactField::CHANNELS
        .into_iter()
        .chain([ContactField::Notes])
    {
        if let Some(value) = contact.details.get(field) {
            contact.retired.push(Retired {
                field,
                value,
                reason: "a check found the contact defunct".into(),
            });
            contact.details.set(field, None);
        }
    }
}
