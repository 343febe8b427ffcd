//! What importing one Party takes: its state compared with what the file
//! states, as the few commands that would make them agree, each decided
//! against a copy of the state (the domain is pure), so a refusal is found
//! before anything is written and `--dry-run` shows exactly what would be.
//!
//! - a Party not in the store: registered with its contacts (`registered`);
//! - a contact not in the store: added (`added`);
//! - a contact whose stated details, `verified` or `source` differ, or whose
//!   `last_checked` is later than its last check: one steward check with
//!   the corrections (`updated`), dated that `last_checked` when it is later
//!   and not before the contact's last check of any kind, else today;
//! - a `no_answer`/`defunct` outcome with a later `last_attempt`: one check
//!   with that outcome (`updated`);
//! - `primary: true` on a contact that is not primary: it is designated;
//! - anything else: nothing (`unchanged`). A contact in the store that the
//!   file leaves out is kept: import never withdraws.

use chrono::NaiveDate;

use domain::aggregate::Aggregate;
use domain::authority::{
    AddContact, Authority, AuthorityCommand, AuthorityError, CheckOutcome, ContactInput,
    ContactPatch, NewContact, RegisterAuthority, Role, SubmitVerificationUpdate,
    VerificationMethod,
};
use domain::values::Slug;

use super::check::{Blame, ContactWant, PartyWant};
use super::update;

/// What an import is attributed to and when it runs.
pub struct Context<'a> {
    /// The file, named in checks' sources and notes.
    pub file: &'a str,
    /// The steward the import is attributed to.
    pub steward: Slug,
    /// Today, by the clock of the machine importing.
    pub today: NaiveDate,
    /// The most contacts a Party may hold (`BASEL_MAX_CONTACTS_PER_PARTY`).
    pub max_contacts: usize,
}

/// What happens to one row (a contact, or a Party without contacts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Equal to the store: nothing is appended.
    Unchanged,
    /// An existing contact or Party gets a check (and maybe a designation).
    Updated,
    /// A new contact of an existing Party.
    Added,
    /// Part of a new Party.
    Registered,
    /// Refused: the problems say why; nothing of the file is written.
    Refused,
}

/// One row's fate, with what changes in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowReport {
    /// The row.
    pub row: usize,
    /// `(CC)` or `(CC) c2`.
    pub label: String,
    /// What happens to it.
    pub status: Status,
    /// What changes, for the report.
    pub what: Vec<String>,
}

/// The commands one Party needs, in order, each with the row it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The commands.
    pub steps: Vec<(usize, AuthorityCommand)>,
    /// One report per row of the Party.
    pub rows: Vec<RowReport>,
}

/// Plans `party` against its current `state`; refusals go to `blame`.
pub fn plan(
    party: &PartyWant,
    state: &Authority,
    ctx: &Context<'_>,
    blame: &mut Blame<'_>,
) -> Plan {
    let cc = party.country.as_str();
    let mut plan = Plan {
        steps: Vec::new(),
        rows: party
            .bare_rows
            .iter()
            .map(|row| report(*row, format!("({cc})")))
            .chain(party.contacts.iter().map(|c| {
                let id = c.id.as_deref().unwrap_or("primary");
                report(c.row, format!("({cc}) {id}"))
            }))
            .collect(),
    };
    let mut sim = state.clone();
    if state.country.is_none() {
        register(party, ctx, &mut sim, &mut plan, blame);
    } else {
        update::party_fields(party, ctx, &mut sim, &mut plan, blame);
        for (i, want) in party.contacts.iter().enumerate() {
            let unit = party.bare_rows.len() + i;
            update::contact(party, want, unit, ctx, &mut sim, &mut plan, blame);
        }
    }
    plan
}

fn report(row: usize, label: String) -> RowReport {
    RowReport {
        row,
        label,
        status: Status::Unchanged,
        what: Vec::new(),
    }
}

/// Decides `command` against `sim` and applies its events; a refusal
/// blames the row's fields.
pub(super) fn simulate(
    sim: &mut Authority,
    command: AuthorityCommand,
    (row, prefix, cc): (usize, &str, &str),
    plan: &mut Plan,
    blame: &mut Blame<'_>,
) -> bool {
    match sim.decide(&command) {
        Ok(events) => {
            for event in events {
                sim.apply(event);
            }
            plan.steps.push((row, command));
            true
        }
        Err(AuthorityError::Invalid(problems)) => {
            for p in problems {
                let field = format!("{prefix}{}", column_of(&p.field, &command));
                blame.at(row, cc, &field, &p.message);
            }
            false
        }
        Err(
            e @ (AuthorityError::AlreadyRegistered(_)
            | AuthorityError::NotRegistered
            | AuthorityError::Retired
            | AuthorityError::IsAParty(_)
            | AuthorityError::OwnProposal
            | AuthorityError::StaleProposal
            | AuthorityError::UnknownProposal(_)),
        ) => {
            blame.at(row, cc, "country_code", &e.to_string());
            false
        }
        Err(e @ (AuthorityError::UnknownContact(_) | AuthorityError::NoCompetentAuthority)) => {
            blame.at(row, cc, &format!("{prefix}contact_id"), &e.to_string());
            false
        }
    }
}

/// The file's column for a field the domain names in a refusal: a check's
/// `checked_on` is the row's `last_checked` (or `last_attempt` for a check
/// that reached nobody, `party_last_attempt` for the Party's record), its
/// `changes.X` and a registration's `contacts.X` are the column `X`.
fn column_of(field: &str, command: &AuthorityCommand) -> String {
    let field = field
        .strip_prefix("changes.")
        .or_else(|| field.strip_prefix("contacts."))
        .unwrap_or(field);
    match command {
        AuthorityCommand::SubmitVerification(c) if field == "checked_on" => {
            let column = match (&c.contact_id, c.outcome.is_some_and(|o| !o.reached())) {
                (None, _) => "party_last_attempt",
                (Some(_), true) => "last_attempt",
                (Some(_), false) => "last_checked",
            };
            column.to_owned()
        }
        AuthorityCommand::SubmitVerification(c) if c.contact_id.is_none() && field == "notes" => {
            "party_notes".to_owned()
        }
        _ => field.to_owned(),
    }
}

/// Marks row `unit` of the plan; the most telling status wins.
pub(super) fn mark(plan: &mut Plan, unit: usize, status: Status, what: Vec<String>) {
    if let Some(r) = plan.rows.get_mut(unit) {
        r.status = r.status.max(status);
        r.what.extend(what);
    }
}

/// The contact a file's contact becomes when it is new to the store.
pub(super) fn new_contact(want: &ContactWant) -> NewContact {
    let mut details = ContactInput::default();
    for (field, value) in &want.details {
        details.set(*field, value.clone());
    }
    NewContact {
        id: want.id.clone(),
        role: want.role,
        details,
        source: want.source.clone(),
        verified: want.verified.unwrap_or(false),
        last_checked: want.last_checked,
        primary: want.primary.unwrap_or(false),
        outcome: want.outcome,
        last_attempt: want.last_attempt,
        sources: want.sources.clone(),
        also_focal_point: want.also_focal_point.unwrap_or(false),
        role_basis: want.role_basis,
    }
}

/// Whether a new Party lists more contacts than a Party may hold; if so,
/// each contact over the cap is blamed and every row refused.
fn over_cap(party: &PartyWant, ctx: &Context<'_>, plan: &mut Plan, blame: &mut Blame<'_>) -> bool {
    if party.contacts.len() <= ctx.max_contacts {
        return false;
    }
    // Registration itself has no cap: the file's Party must fit it.
    let message = format!(
        "a Party holds at most {} contacts (BASEL_MAX_CONTACTS_PER_PARTY); this Party lists {}",
        ctx.max_contacts,
        party.contacts.len()
    );
    for want in &party.contacts[ctx.max_contacts..] {
        let field = format!("{}contacts", want.prefix);
        blame.at(want.row, party.country.as_str(), &field, &message);
    }
    for unit in 0..plan.rows.len() {
        mark(plan, unit, Status::Refused, Vec::new());
    }
    true
}

/// A Party new to the store: registered with its contacts. When the file
/// gives its record a `party_last_attempt`, that check is recorded before
/// its competent authorities are added (a check of the Party's record is
/// one made while none was known).
fn register(
    party: &PartyWant,
    ctx: &Context<'_>,
    sim: &mut Authority,
    plan: &mut Plan,
    blame: &mut Blame<'_>,
) {
    let cc = party.country.as_str();
    if over_cap(party, ctx, plan, blame) {
        return;
    }
    let later = |c: &&ContactWant| {
        party.last_attempt.is_some()
            && c.role.unwrap_or(Role::CompetentAuthority) == Role::CompetentAuthority
    };
    let command = RegisterAuthority {
        country: party.country.clone(),
        country_name: party.country_name.clone(),
        contact: ContactInput {
            notes: party.notes.clone().flatten(),
            ..ContactInput::default()
        },
        verified: false,
        last_checked: None,
        source: party.source.clone(),
        contacts: party
            .contacts
            .iter()
            .filter(|c| !later(c))
            .map(new_contact)
            .collect(),
        steward: Some(ctx.steward.clone()),
        today: ctx.today,
    };
    let mut ok = simulate(
        sim,
        AuthorityCommand::Register(command),
        (party.row, "", cc),
        plan,
        blame,
    );
    if let (true, Some(day)) = (ok, party.last_attempt) {
        let check = party_check(ctx, ContactPatch::new(), Some(CheckOutcome::NoAnswer), day);
        ok = simulate(sim, check, (party.row, "", cc), plan, blame);
    }
    for want in party.contacts.iter().filter(later) {
        if !ok {
            break;
        }
        let add = AddContact {
            max_contacts: ctx.max_contacts,
            contact: new_contact(want),
            steward: Some(ctx.steward.clone()),
            today: ctx.today,
        };
        ok = simulate(
            sim,
            AuthorityCommand::AddContact(add),
            (want.row, &want.prefix, cc),
            plan,
            blame,
        );
    }
    let status = if ok {
        Status::Registered
    } else {
        Status::Refused
    };
    let count = party.contacts.len();
    for unit in 0..plan.rows.len() {
        mark(
            plan,
            unit,
            status,
            vec![format!("a new Party with {count} contact(s)")],
        );
    }
}

/// A check of the Party's record itself (it has no primary authority).
pub(super) fn party_check(
    ctx: &Context<'_>,
    changes: ContactPatch,
    outcome: Option<CheckOutcome>,
    checked_on: NaiveDate,
) -> AuthorityCommand {
    AuthorityCommand::SubmitVerification(SubmitVerificationUpdate {
        contact_id: None,
        outcome,
        verified: false,
        checked_on,
        method: VerificationMethod::Other,
        source: format!("import of {}", ctx.file),
        note: Some(format!("imported from {}", ctx.file)),
        changes,
        steward: Some(ctx.steward.clone()),
        today: ctx.today,
    })
}
