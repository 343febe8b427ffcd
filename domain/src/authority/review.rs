//! Four-eyes review of checks (issue #28, `BASEL_REVIEW=required`): a
//! steward's check becomes a proposal; another steward approves it (then
//! the check's events are recorded, attributed to its author, after
//! `ProposalApproved` naming the approver) or rejects it with a reason.
//!
//! Rules (each refusal an [`AuthorityError`]):
//! - a proposal is decided like the check it proposes (refused the same way
//!   when the check would be);
//! - its author cannot approve it ([`AuthorityError::OwnProposal`]);
//! - a proposal goes stale when the record changes after it was made (any
//!   event but another proposal or a rejection): approving it is refused
//!   ([`AuthorityError::StaleProposal`]); it can only be rejected, and the
//!   check proposed again on the record as it is now;
//! - a proposal is decided once ([`AuthorityError::UnknownProposal`] after).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::commands::{ContactPatch, Evidence, SubmitVerificationUpdate, VerificationMethod};
use super::decide::submit_verification_with_evidence;
use super::events::{
    AuthorityEvent, ChangeProposed, FieldChange, ProposalApproved, ProposalRejected,
};
use super::party::CheckOutcome;
use super::{Authority, AuthorityError, FieldProblem};
use crate::values::Slug;

/// A check as a proposal records it (what `SubmitVerificationUpdate`
/// carries, but its author and today).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedCheck {
    /// The contact checked.
    pub contact_id: Option<String>,
    /// What the check found.
    pub outcome: Option<CheckOutcome>,
    /// Whether the contact is verified after it.
    pub verified: bool,
    /// The day of the check.
    pub checked_on: NaiveDate,
    /// How it was checked.
    pub method: VerificationMethod,
    /// What it was checked against.
    pub source: String,
    /// The author's note.
    pub note: Option<String>,
    /// The corrections (field → new value, `None` clears it).
    pub changes: ContactPatch,
    /// The files backing it, stored by hash.
    pub evidence: Vec<EvidenceRef>,
}

/// A file backing a proposed check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceRef {
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Its type, read from its content.
    pub media_type: String,
    /// Its name as sent.
    pub file_name: String,
    /// Its size in bytes.
    pub size: u64,
}

/// An open proposal of a Party's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// Its id.
    pub id: String,
    /// Who proposed it.
    pub proposer: Slug,
    /// The check proposed.
    pub check: ProposedCheck,
    /// The field changes it would make, as of when it was proposed.
    pub changes: Vec<FieldChange>,
    /// Whether the record changed since (then it cannot be approved).
    #[serde(default)]
    pub stale: bool,
}

/// What may be asked of a proposal.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewCommand {
    /// Propose a check (instead of recording it).
    Propose {
        /// The new proposal's id (drawn by the caller).
        proposal_id: String,
        /// The check, with its author as `steward`.
        update: SubmitVerificationUpdate,
        /// Its files.
        evidence: Vec<Evidence>,
    },
    /// Approve a proposal: its check is recorded.
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

/// The decision on a review command.
pub(super) fn decide(
    state: &Authority,
    command: &ReviewCommand,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    match command {
        ReviewCommand::Propose {
            proposal_id,
            update,
            evidence,
        } => propose(state, proposal_id, update, evidence),
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

fn propose(
    state: &Authority,
    proposal_id: &str,
    update: &SubmitVerificationUpdate,
    evidence: &[Evidence],
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    let Some(proposer) = update.steward.clone() else {
        return Err(AuthorityError::Invalid(vec![FieldProblem::new(
            "steward",
            "a proposal needs its author",
        )]));
    };
    // Decided like the check itself: a check that would be refused cannot
    // be proposed, and the diff shown to the reviewer is the real one.
    let events = submit_verification_with_evidence(state, update, evidence)?;
    let mut changes = Vec::new();
    let mut contact_id = update.contact_id.clone();
    for event in &events {
        match event {
            AuthorityEvent::ContactDetailsChanged(e) => changes.extend(e.changes.clone()),
            AuthorityEvent::VerificationRecorded(e) if !e.contact_id.is_empty() => {
                contact_id = Some(e.contact_id.clone());
            }
            _ => {}
        }
    }
    Ok(vec![AuthorityEvent::ChangeProposed(ChangeProposed {
        proposal_id: proposal_id.to_owned(),
        proposer,
        check: ProposedCheck {
            contact_id,
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
        },
        changes,
    })])
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
    let check = &proposal.check;
    let update = SubmitVerificationUpdate {
        contact_id: check.contact_id.clone(),
        outcome: check.outcome,
        verified: check.verified,
        checked_on: check.checked_on,
        method: check.method,
        source: check.source.clone(),
        note: check.note.clone(),
        changes: check.changes.clone(),
        steward: Some(proposal.proposer.clone()),
        today,
    };
    let evidence: Vec<Evidence> = check
        .evidence
        .iter()
        .map(|e| Evidence {
            sha256: e.sha256.clone(),
            media_type: e.media_type.clone(),
            file_name: e.file_name.clone(),
            size: e.size,
        })
        .collect();
    let mut events = vec![AuthorityEvent::ProposalApproved(ProposalApproved {
        proposal_id: proposal_id.to_owned(),
        approver: approver.clone(),
        proposer: proposal.proposer.clone(),
    })];
    events.extend(submit_verification_with_evidence(
        state, &update, &evidence,
    )?);
    Ok(events)
}
