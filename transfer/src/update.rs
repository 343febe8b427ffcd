//! Planning the rows of a Party that is already in the store: its record's
//! own fields, then each contact (see [`super::plan`] for the rules).

use domain::authority::{
    AddContact, Authority, AuthorityCommand, CheckOutcome, ContactField, ContactPatch,
    DesignatePrimary, PartyContact, SubmitVerificationUpdate, VerificationMethod,
};

use super::check::{Blame, ContactWant, PartyWant};
use super::plan::{mark, new_contact, party_check, simulate, Context, Plan, Status};

/// The Party's record itself: its notes and `party_last_attempt` become one
/// check of the record (only while it has no primary authority); its
/// registration `source` cannot change.
pub(super) fn party_fields(
    party: &PartyWant,
    ctx: &Context<'_>,
    sim: &mut Authority,
    plan: &mut Plan,
    blame: &mut Blame<'_>,
) {
    let cc = party.country.as_str();
    if !party.first_release_source && party.source.is_some() && party.source != sim.source {
        let message = "differs from the directory's; import cannot change what a registered Party's record relied on";
        blame.at(party.row, cc, "party_source", message);
        mark(plan, 0, Status::Refused, Vec::new());
    }
    let notes = party.notes.clone().filter(|n| *n != sim.notes);
    let attempt = party
        .last_attempt
        .filter(|d| sim.last_attempt.is_none_or(|a| *d > a));
    if notes.is_none() && attempt.is_none() {
        return;
    }
    if sim.primary.is_some() {
        let field = if notes.is_some() {
            "party_notes"
        } else {
            "party_last_attempt"
        };
        let message = "the Party has a primary competent authority: its record's own notes and checks are those of a Party without one";
        blame.at(party.row, cc, field, message);
        mark(plan, 0, Status::Refused, Vec::new());
        return;
    }
    let mut what = Vec::new();
    let mut changes = ContactPatch::new();
    if let Some(notes) = notes {
        changes.insert(ContactField::Notes, notes);
        what.push("party_notes".to_owned());
    }
    let outcome = changes.is_empty().then_some(CheckOutcome::NoAnswer);
    let day = attempt.unwrap_or(ctx.today);
    what.push(format!("one check of the Party's record on {day}"));
    let check = party_check(ctx, changes, outcome, day);
    let ok = simulate(sim, check, (party.row, "", cc), plan, blame);
    mark(
        plan,
        0,
        if ok { Status::Updated } else { Status::Refused },
        what,
    );
}

/// One contact: added, checked (with its corrections), made primary, or
/// left as it is.
pub(super) fn contact(
    party: &PartyWant,
    want: &ContactWant,
    unit: usize,
    ctx: &Context<'_>,
    sim: &mut Authority,
    plan: &mut Plan,
    blame: &mut Blame<'_>,
) {
    let at = (want.row, want.prefix.as_str(), party.country.as_str());
    let id = want.id.clone().or_else(|| sim.primary.clone());
    let Some(current) = id.as_deref().and_then(|id| sim.contact(id)).cloned() else {
        let add = AddContact {
            max_contacts: ctx.max_contacts,
            contact: new_contact(want),
            steward: Some(ctx.steward.clone()),
            today: ctx.today,
        };
        let ok = simulate(sim, AuthorityCommand::AddContact(add), at, plan, blame);
        let role = want
            .role
            .unwrap_or(domain::authority::Role::CompetentAuthority);
        let what = vec![format!("a new {}", role.as_str())];
        mark(
            plan,
            unit,
            if ok { Status::Added } else { Status::Refused },
            what,
        );
        return;
    };
    if let Some(role) = want.role.filter(|r| *r != current.role) {
        let message = format!(
            "`{}` is a {}: import cannot make it a {} (withdraw it and add a new contact)",
            current.id,
            current.role.as_str(),
            role.as_str()
        );
        blame.at(want.row, at.2, &format!("{}role", want.prefix), &message);
        mark(plan, unit, Status::Refused, Vec::new());
        return;
    }
    let mut ok = true;
    let mut what = Vec::new();
    if let Some((check, found)) = check_of(want, &current, ctx) {
        ok = simulate(sim, check, at, plan, blame);
        what = found;
    }
    if ok && want.primary == Some(true) && sim.primary.as_deref() != Some(current.id.as_str()) {
        let designate = DesignatePrimary {
            contact_id: current.id.clone(),
            steward: Some(ctx.steward.clone()),
        };
        ok = simulate(
            sim,
            AuthorityCommand::DesignatePrimary(designate),
            at,
            plan,
            blame,
        );
        what.push("made primary".into());
    }
    let status = match (ok, what.is_empty()) {
        (false, _) => Status::Refused,
        (true, true) => Status::Unchanged,
        (true, false) => Status::Updated,
    };
    mark(plan, unit, status, what);
}

/// The one check a changed contact gets, with what changes in words; `None`
/// when the row states nothing new about it.
fn check_of(
    want: &ContactWant,
    current: &PartyContact,
    ctx: &Context<'_>,
) -> Option<(AuthorityCommand, Vec<String>)> {
    let p = &current.provenance;
    let mut what = Vec::new();
    let mut changes = ContactPatch::new();
    for (field, value) in &want.details {
        if current.details.get(*field) != *value {
            changes.insert(*field, value.clone());
            what.push(field.name().to_owned());
        }
    }
    let verified = want.verified.unwrap_or(p.verified);
    if verified != p.verified {
        what.push("verified".into());
    }
    // A check keeps its own source and never replaces the contact's: a
    // stated source equal to either is nothing new.
    let checked_against = p.last_check.as_ref().map(|c| c.source.as_str());
    if want
        .source
        .as_deref()
        .is_some_and(|s| Some(s) != p.source.as_deref() && Some(s) != checked_against)
    {
        what.push("source".into());
    }
    // The last check of any kind: an unverified one does not move
    // `last_checked`, yet the file's date is then no news.
    let last_check = p.last_check.as_ref().map(|c| c.checked_on);
    let later = want
        .last_checked
        .filter(|d| p.last_checked.max(last_check).is_none_or(|c| *d > c));
    let previous = p.last_checked.max(p.last_attempt).max(last_check);
    let fits = |day: chrono::NaiveDate| previous.is_none_or(|p| day >= p);
    let (outcome, checked_on) = if !what.is_empty() || later.is_some() {
        (None, later.filter(|d| fits(*d)).unwrap_or(ctx.today))
    } else {
        let outcome = want.outcome.filter(|o| !o.reached())?;
        let day = want
            .last_attempt
            .filter(|d| p.last_attempt.is_none_or(|a| *d > a))?;
        (Some(outcome), if fits(day) { day } else { ctx.today })
    };
    what.push(match outcome {
        None => format!("one check on {checked_on}"),
        Some(o) => format!("one {} check on {checked_on}", o.as_str()),
    });
    let check = SubmitVerificationUpdate {
        contact_id: Some(current.id.clone()),
        outcome,
        verified: verified && outcome.is_none(),
        checked_on,
        method: VerificationMethod::Other,
        source: want
            .source
            .clone()
            .unwrap_or_else(|| format!("import of {}", ctx.file)),
        note: Some(format!("imported from {}", ctx.file)),
        changes,
        steward: Some(ctx.steward.clone()),
        today: ctx.today,
    };
    Some((AuthorityCommand::SubmitVerification(check), what))
}
