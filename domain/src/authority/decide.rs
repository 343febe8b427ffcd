//! The decisions of the `Authority` aggregate, one function per command.

use chrono::NaiveDate;

use super::commands::{NewContact, RegisterAuthority, RetireAuthority, SubmitVerificationUpdate};
use super::contact::FieldChange;
use super::contact::{parse_field, Contact, ContactField, FieldProblem};
use super::decide_contacts::validate_new;
use super::details::ContactInput;
use super::events::{
    AuthorityEvent, AuthorityRegistered, AuthorityRetired, ContactAdded, ContactDetailsChanged,
    VerificationRecorded,
};
use super::party::{CheckOutcome, ContactProvenance, PartyContact, Role};
use super::{Authority, AuthorityError};

pub(super) const MAX_SOURCE_CHARS: usize = 1000;
pub(super) const MAX_NOTE_CHARS: usize = 4000;
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
    let country_name = checked_country_name(&command.country_name, &mut problems);
    let source = optional_text(
        "source",
        command.source.as_deref(),
        MAX_SOURCE_CHARS,
        &mut problems,
    );
    let (wanted, notes) = wanted_contacts(command, &source, &mut problems);
    let (contacts, primary) = validated_contacts(wanted, command, &mut problems);
    refuse_if_any(problems)?;
    Ok(vec![AuthorityEvent::AuthorityRegistered(
        AuthorityRegistered {
            country: command.country.clone(),
            country_name: country_name.to_owned(),
            source,
            notes,
            contacts,
            primary,
            steward: command.steward.clone(),
        },
    )])
}

/// Retires a record of a code that is not a Party (created in error).
pub(super) fn retire(
    state: &Authority,
    command: &RetireAuthority,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    let Some(country) = &state.country else {
        return Err(AuthorityError::NotRegistered);
    };
    if crate::parties::registry().party(country.as_str()).is_some() {
        return Err(AuthorityError::IsAParty(country.clone()));
    }
    let reason = required_reason(&command.reason, "the record is retired")?;
    Ok(vec![AuthorityEvent::AuthorityRetired(AuthorityRetired {
        reason,
        steward: command.steward.clone(),
    })])
}

/// A write's required reason, trimmed.
///
/// # Errors
/// [`AuthorityError::Invalid`] naming `reason` when it is empty, too long
/// or holds control characters.
pub(super) fn required_reason(raw: &str, why: &str) -> Result<String, AuthorityError> {
    let mut problems = Vec::new();
    let reason = optional_text("reason", Some(raw), MAX_NOTE_CHARS, &mut problems);
    if reason.is_none() && problems.is_empty() {
        problems.push(FieldProblem::new(
            "reason",
            format!("is required: say why {why}"),
        ));
    }
    refuse_if_any(problems)?;
    Ok(reason.unwrap_or_default())
}

/// The country name, trimmed; a problem when it is empty, too long or holds
/// control characters.
fn checked_country_name<'a>(name: &'a str, problems: &mut Vec<FieldProblem>) -> &'a str {
    let trimmed = name.trim();
    if trimmed.is_empty() || name.chars().count() > MAX_COUNTRY_NAME_CHARS {
        problems.push(FieldProblem::new(
            "country_name",
            "is required (at most 200 characters)",
        ));
    } else if trimmed.chars().any(char::is_control) {
        problems.push(FieldProblem::new(
            "country_name",
            "must not contain control characters (line breaks, tabs)",
        ));
    }
    trimmed
}

/// The contacts a registration asks for, each with the prefix its problems
/// are named under (the root's office first, when it describes one), and
/// the Party's notes when the root describes no office.
fn wanted_contacts(
    command: &RegisterAuthority,
    source: &Option<String>,
    problems: &mut Vec<FieldProblem>,
) -> (Vec<(&'static str, NewContact)>, Option<String>) {
    let mut wanted = Vec::new();
    let mut notes = None;
    if describes_an_office(&command.contact) {
        let main = NewContact {
            id: None,
            role: Some(Role::CompetentAuthority),
            details: command.contact.clone(),
            source: source.clone(),
            verified: command.verified,
            last_checked: command.last_checked,
            primary: false,
            ..NewContact::default()
        };
        wanted.push(("", main));
    } else {
        if command.verified {
            require_verifiable(
                &Contact::default(),
                command.last_checked.is_some(),
                "last_checked",
                problems,
            );
        }
        notes = optional_text(
            "notes",
            command.contact.notes.as_deref(),
            MAX_NOTE_CHARS,
            problems,
        );
    }
    for (i, contact) in command.contacts.iter().enumerate() {
        let prefix = if i == 0 { "contacts[0]" } else { "contacts[]" };
        wanted.push((prefix, contact.clone()));
    }
    (wanted, notes)
}

/// The wanted contacts validated in order (ids are given as they would be
/// added), and the primary: the one marked so, else the first competent
/// authority of national scope.
fn validated_contacts(
    wanted: Vec<(&'static str, NewContact)>,
    command: &RegisterAuthority,
    problems: &mut Vec<FieldProblem>,
) -> (Vec<PartyContact>, Option<String>) {
    let mut draft = Authority::default();
    let mut contacts = Vec::new();
    let mut primary = None;
    for (prefix, new) in wanted {
        match validate_new(&draft, &new, command.steward.as_ref(), command.today) {
            Ok(contact) => {
                let by_default = primary.is_none() && contact.national();
                if (new.primary || by_default) && contact.role == Role::CompetentAuthority {
                    primary = Some(contact.id.clone());
                }
                draft.added += 1;
                draft.contacts.push(contact.clone());
                contacts.push(contact);
            }
            Err(found) => problems.extend(found.into_iter().map(|p| {
                if prefix.is_empty() {
                    p
                } else {
                    FieldProblem::new(format!("contacts.{}", p.field), p.message)
                }
            })),
        }
    }
    (contacts, primary)
}

/// Records a steward's check of one contact, with the corrections it brings.
/// Without a contact id the primary competent authority is checked; when
/// there is none and the corrections name one, it is added first (how the
/// first release's clients fill an empty record).
pub(super) fn submit_verification(
    state: &Authority,
    command: &SubmitVerificationUpdate,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    if state.country.is_none() {
        return Err(AuthorityError::NotRegistered);
    }
    let target = match &command.contact_id {
        Some(id) => Some(
            state
                .contact(id)
                .ok_or_else(|| AuthorityError::UnknownContact(id.clone()))?,
        ),
        None => state.primary_contact(),
    };
    let (current, id) = match target {
        Some(contact) => (contact.clone(), contact.id.clone()),
        None if names_an_office(&command.changes) => {
            // The first release's way to fill an empty record: the check's
            // corrections describe the Party's (first) competent authority.
            return add_authority_from_check(state, command);
        }
        // Nothing to check but the Party's record itself (e.g. a call that
        // found no authority): a check of the Party, `contact_id` empty.
        None => (party_record(state), String::new()),
    };
    let mut problems = Vec::new();
    let previous = current
        .provenance
        .last_checked
        .max(current.provenance.last_attempt)
        .max(current.provenance.last_check.as_ref().map(|c| c.checked_on));
    let (source, note) = checked_source_and_note(command, previous, &mut problems);
    let (updated, changes) = corrections(&current.details, &command.changes, &mut problems);
    let outcome = command.outcome.unwrap_or(if changes.is_empty() {
        CheckOutcome::Confirmed
    } else {
        CheckOutcome::Changed
    });
    check_outcome(outcome, command, changes.is_empty(), &mut problems);
    if id.is_empty() && command.verified && outcome.reached() {
        // No competent authority is known: name what verifying would need.
        require_verifiable(&Contact::default(), true, "checked_on", &mut problems);
    } else if command.verified && outcome.reached() {
        require_verifiable(&updated, true, "checked_on", &mut problems);
    }
    refuse_if_any(problems)?;
    let mut events = Vec::with_capacity(2);
    if !changes.is_empty() {
        events.push(AuthorityEvent::ContactDetailsChanged(
            ContactDetailsChanged {
                contact_id: id.clone(),
                changes,
            },
        ));
    }
    events.push(AuthorityEvent::VerificationRecorded(VerificationRecorded {
        contact_id: id,
        outcome: Some(outcome),
        verified: command.verified && outcome.reached(),
        checked_on: command.checked_on,
        method: command.method,
        source: source.unwrap_or_default(),
        steward: command.steward.clone(),
        note,
    }));
    Ok(events)
}

/// A check's date (not in the future, not before `previous`), its required
/// source and its optional note.
fn checked_source_and_note(
    command: &SubmitVerificationUpdate,
    previous: Option<NaiveDate>,
    problems: &mut Vec<FieldProblem>,
) -> (Option<String>, Option<String>) {
    check_date(
        "checked_on",
        command.checked_on,
        previous,
        command.today,
        problems,
    );
    let source = optional_text("source", Some(&command.source), MAX_SOURCE_CHARS, problems);
    if source.is_none() {
        problems.push(FieldProblem::new(
            "source",
            "is required: say what the record was checked against",
        ));
    }
    let note = optional_text("note", command.note.as_deref(), MAX_NOTE_CHARS, problems);
    (source, note)
}

/// The details with a check's corrections applied, and the fields that
/// really changed (old and new); unreadable corrections are problems named
/// `changes.<field>`.
fn corrections(
    current: &Contact,
    patch: &super::ContactPatch,
    problems: &mut Vec<FieldProblem>,
) -> (Contact, Vec<FieldChange>) {
    let mut updated = current.clone();
    let mut changes = Vec::new();
    for (field, raw) in patch {
        match parse_field(*field, raw.as_deref()) {
            Ok(new) => {
                let old = current.get(*field);
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
    (updated, changes)
}

/// Whether corrections name an office (any field but `notes`).
fn names_an_office(changes: &super::ContactPatch) -> bool {
    changes.iter().any(|(f, v)| {
        *f != ContactField::Notes && v.as_deref().is_some_and(|t| !t.trim().is_empty())
    })
}

/// The Party's record as a pseudo-contact: only its notes and last attempt.
fn party_record(state: &Authority) -> PartyContact {
    PartyContact {
        id: String::new(),
        role: Role::CompetentAuthority,
        details: Contact {
            notes: state.notes.clone(),
            ..Contact::default()
        },
        provenance: ContactProvenance {
            last_attempt: state.last_attempt,
            ..ContactProvenance::default()
        },
        retired: Vec::new(),
        sources: Vec::new(),
        also_focal_point: false,
        role_basis: None,
    }
}

/// A check of a Party without a competent authority whose corrections
/// describe one: the authority is added with those details, then checked.
fn add_authority_from_check(
    state: &Authority,
    command: &SubmitVerificationUpdate,
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    let mut problems = Vec::new();
    check_date(
        "checked_on",
        command.checked_on,
        None,
        command.today,
        &mut problems,
    );
    let contact = authority_from_corrections(state, command, &mut problems);
    let outcome = command.outcome.unwrap_or(CheckOutcome::Changed);
    if outcome != CheckOutcome::Changed {
        problems.push(FieldProblem::new(
            "outcome",
            "corrections that add the competent authority are a `changed` check",
        ));
    }
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
    if let (Some(contact), true) = (&contact, command.verified) {
        require_verifiable(&contact.details, true, "checked_on", &mut problems);
    }
    refuse_if_any(problems)?;
    let Some(contact) = contact else {
        return Err(AuthorityError::NoCompetentAuthority);
    };
    let id = contact.id.clone();
    Ok(vec![
        AuthorityEvent::ContactAdded(ContactAdded {
            contact,
            primary: true,
        }),
        AuthorityEvent::VerificationRecorded(VerificationRecorded {
            contact_id: id,
            outcome: Some(outcome),
            verified: command.verified,
            checked_on: command.checked_on,
            method: command.method,
            source: source.unwrap_or_default(),
            steward: command.steward.clone(),
            note,
        }),
    ])
}

/// The competent authority a check's corrections describe, validated as a
/// new primary contact; its problems are named `changes.<field>`.
fn authority_from_corrections(
    state: &Authority,
    command: &SubmitVerificationUpdate,
    problems: &mut Vec<FieldProblem>,
) -> Option<PartyContact> {
    let mut details = ContactInput::default();
    for (field, value) in &command.changes {
        details.set(*field, value.clone());
    }
    let new = NewContact {
        id: Some(state.next_contact_id()),
        role: Some(Role::CompetentAuthority),
        details,
        source: Some(command.source.clone()),
        verified: false,
        last_checked: None,
        primary: true,
        ..NewContact::default()
    };
    match validate_new(state, &new, command.steward.as_ref(), command.today) {
        Ok(contact) => Some(contact),
        Err(found) => {
            problems.extend(
                found
                    .into_iter()
                    .map(|p| FieldProblem::new(format!("changes.{}", p.field), p.message)),
            );
            None
        }
    }
}

/// The rules that tie an outcome to the rest of the check.
fn check_outcome(
    outcome: CheckOutcome,
    command: &SubmitVerificationUpdate,
    unchanged: bool,
    problems: &mut Vec<FieldProblem>,
) {
    match outcome {
        CheckOutcome::Confirmed if !unchanged => problems.push(FieldProblem::new(
            "outcome",
            "`confirmed` brings no corrections: use `changed`",
        )),
        CheckOutcome::Changed if unchanged => problems.push(FieldProblem::new(
            "outcome",
            "`changed` needs at least one correction that differs from the record",
        )),
        CheckOutcome::NoAnswer | CheckOutcome::Defunct => {
            if !unchanged {
                problems.push(FieldProblem::new(
                    "changes",
                    "a check that reached nobody cannot correct the record",
                ));
            }
            if command.verified {
                problems.push(FieldProblem::new(
                    "verified",
                    "a check that reached nobody cannot verify the record",
                ));
            }
        }
        CheckOutcome::Confirmed | CheckOutcome::Changed => {}
    }
}

/// Whether contact input names an office (name or a channel), rather than
/// only carrying a note.
pub(super) fn describes_an_office(input: &ContactInput) -> bool {
    ContactField::ALL
        .into_iter()
        .filter(|f| *f != ContactField::Notes)
        .any(|f| input.get(f).is_some_and(|t| !t.trim().is_empty()))
}

pub(super) fn check_date(
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

pub(super) fn require_verifiable(
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

pub(super) fn optional_text(
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

pub(super) fn refuse_if_any(problems: Vec<FieldProblem>) -> Result<(), AuthorityError> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(AuthorityError::Invalid(problems))
    }
}

/// The most files one check may carry.
pub(super) const MAX_EVIDENCE: usize = 5;

/// A check with the files that back it: the check's events, then one
/// `EvidenceAttached` per file, naming the contact the check concerned.
/// Refused like the check, and when a file's hash, type or name is not
/// well-formed (`evidence`), or there are more than [`MAX_EVIDENCE`].
pub(super) fn submit_verification_with_evidence(
    state: &Authority,
    command: &SubmitVerificationUpdate,
    evidence: &[super::Evidence],
) -> Result<Vec<AuthorityEvent>, AuthorityError> {
    let mut problems = Vec::new();
    if evidence.len() > MAX_EVIDENCE {
        problems.push(FieldProblem::new(
            "evidence",
            format!("at most {MAX_EVIDENCE} files back one check"),
        ));
    }
    for file in evidence {
        let hash_ok = file.sha256.len() == 64
            && file
                .sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let name_ok = !file.file_name.trim().is_empty()
            && file.file_name.chars().count() <= 200
            && !file.file_name.chars().any(char::is_control);
        if !hash_ok || !name_ok || !super::Evidence::MEDIA_TYPES.contains(&file.media_type.as_str())
        {
            problems.push(FieldProblem::new(
                "evidence",
                "each file needs its SHA-256 (64 lower-case hex), a type read from its content (PDF, e-mail, PNG, JPEG, GIF) and a name of at most 200 characters",
            ));
        }
    }
    refuse_if_any(problems)?;
    let mut events = submit_verification(state, command)?;
    let contact_id = events
        .iter()
        .find_map(|e| match e {
            AuthorityEvent::VerificationRecorded(v) => Some(v.contact_id.clone()),
            _ => None,
        })
        .unwrap_or_default();
    events.extend(evidence.iter().map(|file| {
        AuthorityEvent::EvidenceAttached(super::EvidenceAttached {
            contact_id: contact_id.clone(),
            sha256: file.sha256.clone(),
            media_type: file.media_type.clone(),
            file_name: file.file_name.trim().to_owned(),
            size: file.size,
            steward: command.steward.clone(),
        })
    }));
    Ok(events)
}
