//! The decisions of the `Authority` aggregate, one function per command.

use chrono::NaiveDate;

use super::commands::{RegisterAuthority, SubmitVerificationUpdate};
use super::contact::{parse_field, Contact, FieldProblem};
use super::events::{
    AuthorityEvent, AuthorityRegistered, ContactDetailsChanged, FieldChange, VerificationRecorded,
};
use super::{Authority, AuthorityError};

const MAX_SOURCE_CHARS: usize = 1000;
const MAX_NOTE_CHARS: usize = 4000;
const MAX_COUNTRY_NAME_CHARS: usize = 200;

/// Registers a new country's authority.
pub(super) fn register(
    state: &Authority,
    command: &RegisterAuthority,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    if state.country.is_some() {
        return Err(AuthorityError::AlreadyRegistered(command.country.clone()));
    }
    let mut problems = Vec::new();
    let country_name = command.country_name.trim();
    if country_name.is_empty() || command.country_name.chars().count() > MAX_COUNTRY_NAME_CHARS {
        problems.push(FieldProblem::new(
            "country_name",
            "is required (at most 200 characters)",
        ));
    }
    let source = optional_text(
        "source",
        command.source.as_deref(),
        MAX_SOURCE_CHARS,
        &mut problems,
    );
    if let Some(day) = command.last_checked {
        check_date("last_checked", day, None, command.today, &mut problems);
    }
    let contact = match command.contact.validate() {
        Ok(contact) => contact,
        Err(mut found) => {
            problems.append(&mut found);
            Contact::default()
        }
    };
    if command.verified {
        require_verifiable(
            &contact,
            command.last_checked.is_some(),
            "last_checked",
            &mut problems,
        );
    }
    refuse_if_any(problems)?;
    Ok(vec![AuthorityEvent::AuthorityRegistered(
        AuthorityRegistered {
            country: command.country.clone(),
            country_name: country_name.to_owned(),
            contact,
            verified: command.verified,
            last_checked: command.last_checked,
            source,
        },
    )])
}

/// Records a steward's check, with the changes it brings.
pub(super) fn submit_verification(
    state: &Authority,
    command: &SubmitVerificationUpdate,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    if state.country.is_none() {
        return Err(AuthorityError::NotRegistered);
    }
    let mut problems = Vec::new();
    check_date(
        "checked_on",
        command.checked_on,
        state.last_checked,
        command.today,
        &mut problems,
    );
    let source = optional_text(
        "source",
        Some(&command.source),
        MAX_SOURCE_CHARS,
        &mut problems,
    );
    if source.is_none() {
        problems.push(FieldProblem::new(
            "source",
            "is required: say what the record was checked against",
        ));
    }
    let note = optional_text(
        "note",
        command.note.as_deref(),
        MAX_NOTE_CHARS,
        &mut problems,
    );
    let mut updated = state.contact.clone();
    let mut changes = Vec::new();
    for (field, raw) in &command.changes {
        match parse_field(*field, raw.as_deref()) {
            Ok(new) => {
                let old = state.contact.get(*field);
                if old != new {
                    updated.set(*field, new.clone());
                    changes.push(FieldChange {
                        field: *field,
                        old,
                        new,
                    });
                }
            }
            Err(problem) => problems.push(FieldProblem::new(
                format!("changes.{}", problem.field),
                problem.message,
            )),
        }
    }
    if command.verified {
        require_verifiable(&updated, true, "checked_on", &mut problems);
    }
    refuse_if_any(problems)?;
    let mut events = Vec::with_capacity(2);
    if !changes.is_empty() {
        events.push(AuthorityEvent::ContactDetailsChanged(
            ContactDetailsChanged { changes },
        ));
    }
    events.push(AuthorityEvent::VerificationRecorded(VerificationRecorded {
        verified: command.verified,
        checked_on: command.checked_on,
        method: command.method,
        source: source.unwrap_or_default(),
        steward: command.steward.clone(),
        note,
    }));
    Ok(events)
}

fn check_date(
    field: &str,
    day: NaiveDate,
    previous: Option<NaiveDate>,
    today: NaiveDate,
    problems: &mut Vec<FieldProblem>,
) {
    if day > today {
        problems.push(FieldProblem::new(field, format!("{day} is in the future")));
    }
    if let Some(previous) = previous.filter(|p| day < *p) {
        problems.push(FieldProblem::new(
            field,
            format!("{day} is before the previous check on {previous}"),
        ));
    }
}

fn require_verifiable(
    contact: &Contact,
    has_date: bool,
    date_field: &str,
    problems: &mut Vec<FieldProblem>,
) {
    for field in contact.missing_for_verified() {
        problems.push(FieldProblem::new(
            field.name(),
            "is required to mark the record verified",
        ));
    }
    if !has_date {
        problems.push(FieldProblem::new(
            date_field,
            "is required to mark the record verified",
        ));
    }
}

fn optional_text(
    field: &str,
    raw: Option<&str>,
    max: usize,
    problems: &mut Vec<FieldProblem>,
) -> Option<String> {
    // The limit counts the text as sent (the OpenAPI `maxLength`).
    if raw.is_some_and(|raw| raw.chars().count() > max) {
        problems.push(FieldProblem::new(
            field,
            format!("must be at most {max} characters"),
        ));
        return None;
    }
    let text = raw.map(str::trim).filter(|t| !t.is_empty())?;
    if text.chars().any(|c| c.is_control() && c != '\n') {
        problems.push(FieldProblem::new(
            field,
            "must not contain control characters",
        ));
        return None;
    }
    Some(text.to_owned())
}

fn refuse_if_any(problems: Vec<FieldProblem>) -> Result<(), AuthorityError> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(AuthorityError::Invalid(problems))
    }
}
