//! The decisions on a Party's contacts: add, withdraw, make primary.
//!
//! Rules: at most one focal point; ids are `[a-z0-9-]`, at most 40
//! characters, unique and never reused; only a competent authority can be
//! primary; a withdrawal needs a reason; when the primary authority is
//! withdrawn the first remaining authority (in the order added) becomes
//! primary.

use chrono::NaiveDate;

use super::commands::{AddContact, DesignatePrimary, NewContact, RemoveContact};
use super::contact::FieldProblem;
use super::decide::{
    check_date, optional_text, require_verifiable, required_reason, MAX_SOURCE_CHARS,
};
use super::events::{AuthorityEvent, ContactAdded, ContactRemoved, PrimaryDesignated};
use super::party::{ContactProvenance, PartyContact, Role};
use super::{Authority, AuthorityError};
use crate::values::Slug;

const MAX_ID_CHARS: usize = 40;

/// Adds a contact.
pub(super) fn add(
    state: &Authority,
    command: &AddContact,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    if state.country.is_none() {
        return Err(AuthorityError::NotRegistered);
    }
    if state.contacts.len() >= command.max_contacts {
        return Err(AuthorityError::Invalid(vec![FieldProblem {
            field: "contacts".into(),
            message: format!(
                "a Party holds at most {} contacts: withdraw one first",
                command.max_contacts
            ),
        }]));
    }
    let named = command
        .contact
        .details
        .ca_name
        .as_deref()
        .is_some_and(|n| !n.trim().is_empty());
    let checked = validate_new(
        state,
        &command.contact,
        command.steward.as_ref(),
        command.today,
    );
    let contact = match (checked, named) {
        (Ok(contact), true) => Ok(contact),
        (Ok(_), false) => Err(vec![name_required()]),
        (Err(mut found), named) => {
            if !named {
                found.push(name_required());
            }
            Err(found)
        }
    };
    let contact = contact.map_err(AuthorityError::Invalid)?;
    // Only a competent authority of national scope becomes primary by
    // default; an area- or movement-limited one only when asked.
    let primary = contact.role == Role::CompetentAuthority
        && (command.contact.primary || (state.primary.is_none() && contact.national()));
    Ok(vec![AuthorityEvent::ContactAdded(ContactAdded {
        contact,
        primary,
    })])
}

/// Checks a new contact against the Party's current contacts.
pub(super) fn validate_new(
    state: &Authority,
    new: &NewContact,
    steward: Option<&Slug>,
    today: NaiveDate,
) -> Result<PartyContact, Vec<FieldProblem>> {
    let mut problems = Vec::new();
    let role = new.role.unwrap_or(Role::CompetentAuthority);
    let id = checked_id(state, new.id.as_ref(), &mut problems);
    check_role(state, role, new.primary, &mut problems);
    let source = optional_text(
        "source",
        new.source.as_deref(),
        MAX_SOURCE_CHARS,
        &mut problems,
    );
    if let Some(day) = new.last_checked {
        check_date("last_checked", day, None, today, &mut problems);
    }
    if let Some(day) = new.last_attempt {
        check_date("last_attempt", day, None, today, &mut problems);
    }
    let details = match new.details.validate() {
        Ok(details) => details,
        Err(found) => {
            problems.extend(found);
            super::Contact::default()
        }
    };
    if new.verified {
        require_verifiable(
            &details,
            new.last_checked.is_some(),
            "last_checked",
            &mut problems,
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(PartyContact {
        id,
        role,
        details,
        provenance: ContactProvenance {
            source,
            verified: new.verified,
            last_checked: new.last_checked,
            last_attempt: new.last_attempt,
            outcome: new.outcome,
            steward: steward.cloned(),
            ..ContactProvenance::default()
        },
        retired: Vec::new(),
        sources: new.sources.clone(),
        also_focal_point: new.also_focal_point,
        role_basis: new.role_basis,
    })
}

/// The new contact's id: the one asked for (a problem when it is malformed
/// or taken), else the Party's next `cN`.
fn checked_id(
    state: &Authority,
    wanted: Option<&String>,
    problems: &mut Vec<FieldProblem>,
) -> String {
    let Some(id) = wanted else {
        return state.next_contact_id();
    };
    let valid = !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        problems.push(FieldProblem::new(
            "contact_id",
            "must be 1 to 40 characters of a-z, 0-9 and -",
        ));
    } else if state.contact(id).is_some() {
        problems.push(FieldProblem::new(
            "contact_id",
            format!("the Party already has a contact `{id}`"),
        ));
    }
    id.clone()
}

/// At most one focal point; only a competent authority can be primary.
fn check_role(state: &Authority, role: Role, primary: bool, problems: &mut Vec<FieldProblem>) {
    if role == Role::FocalPoint && state.contacts.iter().any(|c| c.role == Role::FocalPoint) {
        problems.push(FieldProblem::new(
            "role",
            "the Party already has a focal point (at most one): withdraw it first",
        ));
    }
    if primary && role != Role::CompetentAuthority {
        problems.push(FieldProblem::new(
            "primary",
            "only a competent authority can be primary",
        ));
    }
}

/// Withdraws a contact.
pub(super) fn remove(
    state: &Authority,
    command: &RemoveContact,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    if state.country.is_none() {
        return Err(AuthorityError::NotRegistered);
    }
    if state.contact(&command.contact_id).is_none() {
        return Err(AuthorityError::UnknownContact(command.contact_id.clone()));
    }
    let reason = required_reason(&command.reason, "the contact is withdrawn")?;
    let new_primary = if state.primary.as_deref() == Some(command.contact_id.as_str()) {
        state
            .default_primary(Some(&command.contact_id))
            .map(|c| c.id.clone())
    } else {
        None
    };
    Ok(vec![AuthorityEvent::ContactRemoved(ContactRemoved {
        contact_id: command.contact_id.clone(),
        reason,
        steward: command.steward.clone(),
        new_primary,
    })])
}

/// Makes a competent authority the primary one.
pub(super) fn designate(
    state: &Authority,
    command: &DesignatePrimary,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    if state.country.is_none() {
        return Err(AuthorityError::NotRegistered);
    }
    let contact = state
        .contact(&command.contact_id)
        .ok_or_else(|| AuthorityError::UnknownContact(command.contact_id.clone()))?;
    if contact.role != Role::CompetentAuthority {
        return Err(AuthorityError::Invalid(vec![FieldProblem::new(
            "contact_id",
            "only a competent authority can be primary",
        )]));
    }
    if state.primary.as_deref() == Some(contact.id.as_str()) {
        return Err(AuthorityError::Invalid(vec![FieldProblem::new(
            "contact_id",
            "is already the primary competent authority",
        )]));
    }
    Ok(vec![AuthorityEvent::PrimaryDesignated(PrimaryDesignated {
        contact_id: contact.id.clone(),
        steward: command.steward.clone(),
    })])
}

fn name_required() -> FieldProblem {
    FieldProblem::new("ca_name", "is required: the institution's name")
}
