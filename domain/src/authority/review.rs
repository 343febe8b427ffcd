//! Four-eyes review (`BASEL_REVIEW=required`): any steward
//! change of one Party's record — a check, adding, withdrawing or making
//! primary a contact, retiring the record — becomes a proposal
//! ([`ProposedChange`]); another steward approves it (then the change's
//! events are recorded, attributed to its author, after `ProposalApproved`
//! naming the approver) or rejects it with a reason.
//!
//! Rules, the same for every kind (each refusal an [`AuthorityError`]):
//! - a proposal is decided like the change it proposes: refused at proposal
//!   time exactly when the direct command would be, and its diff is the
//!   direct command's;
//! - its author cannot approve it ([`AuthorityError::OwnProposal`]);
//! - a proposal goes stale when the record changes after it was made (any
//!   event but another proposal, a decision or an assignment): approving it
//!   is refused ([`AuthorityError::StaleProposal`]); it can only be
//!   rejected, and the change proposed again on the record as it is now;
//! - a proposal is decided once ([`AuthorityError::UnknownProposal`] after).
//!
//! Registering a Party stays direct: there is no record yet to hang a
//! proposal on (and `POST /ca` only creates records of Parties the
//! registry names, with the same rules as the operator's import).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

pub use super::proposal::{
    EvidenceRef, ProposedChange, ProposedCheck, ProposedContact, ProposedPrimary, ProposedRemoval,
    ProposedRetirement,
};

use super::commands::{
    AuthorityCommand, DesignatePrimary, Evidence, RemoveContact, RetireAuthority,
    SubmitVerificationUpdate,
};
use super::contact::FieldChange;
use super::events::{
    AuthorityEvent, ChangeProposed, ContactAdded, ProposalApproved, ProposalRejected,
};
use super::proposal::whole_contact;
use super::{Authority, AuthorityError, FieldProblem};
use crate::aggregate::Aggregate;
use crate::values::Slug;

/// An open proposal of a Party's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// Its id.
    pub id: String,
    /// Who proposed it.
    pub proposer: Slug,
    /// The change proposed (stored flattened: `check`, `add_contact`, …).
    #[serde(flatten)]
    pub change: ProposedChange,
    /// The field changes it would make, as of when it was proposed.
    pub changes: Vec<FieldChange>,
    /// Whether the record changed since (then it cannot be approved).
    #[serde(default)]
    pub stale: bool,
}

/// What may be asked of a proposal.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewCommand {
    /// Propose a change instead of making it: `command` is the direct
    /// command (a check, with or without evidence; add, withdraw or make
    /// primary a contact; retire), its steward the author.
    Propose {
        /// The new proposal's id (drawn by the caller).
        proposal_id: String,
        /// The change as the direct command.
        command: Box<AuthorityCommand>,
    },
    /// Propose several changes of the record as one proposal, decided in
    /// order each on the record as the ones before leave it (one Party's
    /// rows of an import); all by the same author.
    ProposeBatch {
        /// The new proposal's id (drawn by the caller).
        proposal_id: String,
        /// The changes as direct commands, in order.
        commands: Vec<AuthorityCommand>,
    },
    /// Approve a proposal: its change is made.
    Approve {
        /// The proposal.
        proposal_id: String,
        /// The approving steward.
        approver: Slug,
        /// Today by the caller's clock.
        today: NaiveDate,
    },
    /// Reject a proposal with a reason.
    Reject {
        /// The proposal.
        proposal_id: String,
        /// The rejecting steward.
        reviewer: Slug,
        /// Why (required).
        reason: String,
    },
}

impl ReviewCommand {
    /// A check proposed for review.
    pub fn propose_check(
        proposal_id: String,
        update: SubmitVerificationUpdate,
        evidence: Vec<Evidence>,
    ) -> Self {
        Self::Propose {
            proposal_id,
            command: Box::new(AuthorityCommand::SubmitVerificationWithEvidence(
                update, evidence,
            )),
        }
    }
}

/// The decision on a review command.
pub(super) fn decide(
    state: &Authority,
    command: &ReviewCommand,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    match command {
        ReviewCommand::Propose {
            proposal_id,
            command,
        } => propose(state, proposal_id, std::slice::from_ref(command.as_ref())),
        ReviewCommand::ProposeBatch {
            proposal_id,
            commands,
        } => propose(state, proposal_id, commands),
        ReviewCommand::Approve {
            proposal_id,
            approver,
            today,
        } => approve(state, proposal_id, approver, *today),
        ReviewCommand::Reject {
            proposal_id,
            reviewer,
            reason,
        } => {
            open(state, proposal_id)?;
            let reason = reason.trim();
            if reason.is_empty() {
                return Err(AuthorityError::Invalid(vec![FieldProblem::new(
                    "reason",
                    "is required: say why the proposal is rejected",
                )]));
            }
            Ok(vec![AuthorityEvent::ProposalRejected(ProposalRejected {
                proposal_id: proposal_id.clone(),
                reviewer: reviewer.clone(),
                reason: reason.to_owned(),
            })])
        }
    }
}

fn open<'a>(state: &'a Authority, id: &str) -> Result<&'a Proposal, AuthorityError> {
    state
        .proposals
        .iter()
        .find(|p| p.id == id)
        .ok_or_else(|| AuthorityError::UnknownProposal(id.to_owned()))
}

/// The author of a command that may be proposed; `None` for one that may
/// not (a registration, a review, an assignment).
fn author(command: &AuthorityCommand) -> Option<Option<&Slug>> {
    match command {
        AuthorityCommand::SubmitVerification(u)
        | AuthorityCommand::SubmitVerificationWithEvidence(u, _) => Some(u.steward.as_ref()),
        AuthorityCommand::AddContact(a) => Some(a.steward.as_ref()),
        AuthorityCommand::RemoveContact(r) => Some(r.steward.as_ref()),
        AuthorityCommand::DesignatePrimary(d) => Some(d.steward.as_ref()),
        AuthorityCommand::Retire(r) => Some(r.steward.as_ref()),
        AuthorityCommand::Register(_)
        | AuthorityCommand::Review(_)
        | AuthorityCommand::Assign(_) => None,
    }
}

fn propose(
    state: &Authority,
    proposal_id: &str,
    commands: &[AuthorityCommand],
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    let refused = |field: &str, message: &str| {
        Err(AuthorityError::Invalid(vec![FieldProblem::new(
            field, message,
        )]))
    };
    let mut proposer: Option<Slug> = None;
    let mut parts = Vec::new();
    let mut changes = Vec::new();
    // Each change is decided like the direct command on the record as the
    // ones before leave it: a change that would be refused cannot be
    // proposed, and the diff shown to the reviewer is the real one.
    let mut sim = state.clone();
    for command in commands {
        let Some(author) = author(command) else {
            return refused(
                "change",
                "only a check, a contact's addition, withdrawal or designation as primary, or a retirement can be proposed",
            );
        };
        let Some(author) = author else {
            return refused("steward", "a proposal needs its author");
        };
        if proposer.get_or_insert_with(|| author.clone()) != author {
            return refused("steward", "one proposal has one author");
        }
        let events = sim.decide(command)?;
        let (change, diff) = proposed(&sim, command, &events)?;
        parts.push(change);
        changes.extend(diff);
        events.into_iter().for_each(|e| sim.apply(e));
    }
    let (Some(proposer), Some(first)) = (proposer, parts.first().cloned()) else {
        return refused("change", "a proposal needs a change");
    };
    let change = if parts.len() == 1 {
        first
    } else {
        ProposedChange::Batch(parts)
    };
    Ok(vec![AuthorityEvent::ChangeProposed(ChangeProposed {
        proposal_id: proposal_id.to_owned(),
        proposer,
        change,
        changes,
    })])
}

/// The proposal of `command`, from the events the direct command decided.
fn proposed(
    state: &Authority,
    command: &AuthorityCommand,
    events: &[AuthorityEvent],
) -> Result<(ProposedChange, Vec<FieldChange>), AuthorityError> {
    let mut changes = Vec::new();
    let mut contact_id = None;
    let mut added = None;
    let mut new_primary = None;
    let mut reason = None;
    for event in events {
        match event {
            AuthorityEvent::ContactDetailsChanged(e) => changes.extend(e.changes.clone()),
            AuthorityEvent::VerificationRecorded(e) if !e.contact_id.is_empty() => {
                contact_id = Some(e.contact_id.clone());
            }
            AuthorityEvent::ContactAdded(e) => {
                changes.extend(whole_contact(&e.contact, true));
                added = Some(ProposedContact {
                    contact: e.contact.clone(),
                    primary: e.primary,
                });
            }
            AuthorityEvent::ContactRemoved(e) => {
                new_primary.clone_from(&e.new_primary);
                reason = Some(e.reason.clone());
            }
            AuthorityEvent::AuthorityRetired(e) => reason = Some(e.reason.clone()),
            _ => {}
        }
    }
    let change = match (command, added) {
        (AuthorityCommand::AddContact(_), Some(added)) => {
            ProposedChange::AddContact(Box::new(added))
        }
        (AuthorityCommand::RemoveContact(r), _) => {
            if let Some(contact) = state.contact(&r.contact_id) {
                changes.extend(whole_contact(contact, false));
            }
            ProposedChange::RemoveContact(ProposedRemoval {
                contact_id: r.contact_id.clone(),
                reason: reason.unwrap_or_default(),
                new_primary,
            })
        }
        (AuthorityCommand::DesignatePrimary(d), _) => {
            ProposedChange::DesignatePrimary(ProposedPrimary {
                contact_id: d.contact_id.clone(),
                old_primary: state.primary.clone(),
            })
        }
        (AuthorityCommand::Retire(_), _) => ProposedChange::Retire(ProposedRetirement {
            reason: reason.unwrap_or_default(),
        }),
        (AuthorityCommand::SubmitVerificationWithEvidence(u, evidence), _) => {
            ProposedChange::Check(proposed_check(u, evidence, contact_id))
        }
        (AuthorityCommand::SubmitVerification(u), _) => {
            ProposedChange::Check(proposed_check(u, &[], contact_id))
        }
        // Not reached: `author` refused the others, and an addition always
        // decides a `ContactAdded`.
        _ => {
            return Err(AuthorityError::Invalid(vec![FieldProblem::new(
                "change",
                "this change cannot be proposed",
            )]))
        }
    };
    Ok((change, changes))
}

fn proposed_check(
    update: &SubmitVerificationUpdate,
    evidence: &[Evidence],
    contact_id: Option<String>,
) -> ProposedCheck {
    ProposedCheck {
        contact_id: contact_id.or_else(|| update.contact_id.clone()),
        outcome: update.outcome,
        verified: update.verified,
        checked_on: update.checked_on,
        method: update.method,
        source: update.source.clone(),
        note: update.note.clone(),
        changes: update.changes.clone(),
        evidence: evidence
            .iter()
            .map(|e| EvidenceRef {
                sha256: e.sha256.clone(),
                media_type: e.media_type.clone(),
                file_name: e.file_name.clone(),
                size: e.size,
            })
            .collect(),
    }
}

fn approve(
    state: &Authority,
    proposal_id: &str,
    approver: &Slug,
    today: NaiveDate,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    let proposal = open(state, proposal_id)?;
    if &proposal.proposer == approver {
        return Err(AuthorityError::OwnProposal);
    }
    if proposal.stale {
        return Err(AuthorityError::StaleProposal);
    }
    let mut events = vec![AuthorityEvent::ProposalApproved(ProposalApproved {
        proposal_id: proposal_id.to_owned(),
        approver: approver.clone(),
        proposer: proposal.proposer.clone(),
    })];
    events.extend(made(state, &proposal.change, &proposal.proposer, today)?);
    Ok(events)
}

/// The events `change` makes on `state`, attributed to `author`.
fn made(
    state: &Authority,
    change: &ProposedChange,
    author: &Slug,
    today: NaiveDate,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    let steward = Some(author.clone());
    let command = match change {
        // The addition as decided when proposed: the record has not changed
        // since (else the proposal is stale), so its id is still free.
        ProposedChange::AddContact(add) => {
            return Ok(vec![AuthorityEvent::ContactAdded(ContactAdded {
                contact: add.contact.clone(),
                primary: add.primary,
            })]);
        }
        ProposedChange::Batch(parts) => {
            let mut sim = state.clone();
            let mut events = Vec::new();
            for part in parts {
                let made = made(&sim, part, author, today)?;
                made.iter().cloned().for_each(|e| sim.apply(e));
                events.extend(made);
            }
            return Ok(events);
        }
        ProposedChange::Check(check) => check_command(check, steward, today),
        ProposedChange::RemoveContact(r) => AuthorityCommand::RemoveContact(RemoveContact {
            contact_id: r.contact_id.clone(),
            reason: r.reason.clone(),
            steward,
        }),
        ProposedChange::DesignatePrimary(p) => {
            AuthorityCommand::DesignatePrimary(DesignatePrimary {
                contact_id: p.contact_id.clone(),
                steward,
            })
        }
        ProposedChange::Retire(r) => AuthorityCommand::Retire(RetireAuthority {
            reason: r.reason.clone(),
            steward,
        }),
    };
    state.decide(&command)
}

/// The check a proposal carries, as its author's command.
fn check_command(
    check: &ProposedCheck,
    author: Option<Slug>,
    today: NaiveDate,
) -> AuthorityCommand {
    let update = SubmitVerificationUpdate {
        contact_id: check.contact_id.clone(),
        outcome: check.outcome,
        verified: check.verified,
        checked_on: check.checked_on,
        method: check.method,
        source: check.source.clone(),
        note: check.note.clone(),
        changes: check.changes.clone(),
        steward: author,
        today,
    };
    let evidence = check
        .evidence
        .iter()
        .map(|e| Evidence {
            sha256: e.sha256.clone(),
            media_type: e.media_type.clone(),
            file_name: e.file_name.clone(),
            size: e.size,
        })
        .collect();
    AuthorityCommand::SubmitVerificationWithEvidence(update, evidence)
}
