//! Recording a check from the console, in three steps, each a form with its
//! own CSRF token:
//!
//! 1. `GET /steward/party/{cc}/check[?contact=ID]`: the form (contact,
//!    outcome, verified, date, method, source, note, and every field of the
//!    contact prefilled: a field typed differently is a correction);
//! 2. `POST …/check/preview`: the domain decides the command against the
//!    record as the directory shows it (`Aggregate::decide`, pure, nothing
//!    written) and the page shows exactly the events it would record, each
//!    field old → new, or the form again with each problem next to its
//!    field and every value kept;
//! 3. `POST …/check`: the same command through
//!    `AuthorityCommands::submit_verification_at`, pinned to the version
//!    the preview was made against. If the record moved on meanwhile, the
//!    409 page shows what the steward meant and what the record holds now
//!    (with the events since), and the form again to redo the change.
//!
//! A token is spent once, so a form submitted twice records once.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{NaiveDate, Utc};
use maud::{html, Markup};

use commands::authority::AuthorityCommands;
use commands::CommandError;
use domain::authority::{
    AuthorityCommand, AuthorityError, CheckOutcome, ContactField, ContactPatch, Evidence,
    FieldProblem, SubmitVerificationUpdate, VerificationMethod,
};
use domain::values::CountryCode;
use domain::Aggregate;
use projections::directory::AuthorityRow;
use projections::registry::Projection;

use super::evidence::{hidden_value, referenced, store, unavailable, FileProblem};
use super::html::{field, message, page, respond, select, Chrome};
use super::party::{load, what};
use super::session::{FormData, Signed};
use crate::state::{Console, Handle};

const OUTCOMES: [(&str, &str); 5] = [
    ("", "Decide from the corrections (confirmed or changed)"),
    ("confirmed", "Confirmed: the authority confirmed the record"),
    ("changed", "Changed: the authority gave corrections"),
    ("no_answer", "No answer: nobody was reached"),
    ("defunct", "Defunct: the contact no longer exists"),
];

const METHODS: [(&str, &str); 5] = [
    ("email", "E-mail"),
    ("phone", "Phone"),
    ("website", "Website"),
    ("official_notification", "Official notification"),
    ("other", "Other"),
];

const VERIFIED: [(&str, &str); 2] = [("yes", "Yes"), ("no", "No")];

/// A check as the form holds it: every value as typed (kept on errors).
#[derive(Debug, Clone, Default)]
pub struct Draft {
    contact: String,
    outcome: String,
    verified: String,
    checked_on: String,
    method: String,
    source: String,
    note: String,
    fields: BTreeMap<ContactField, String>,
    expected_version: i64,
    evidence: Vec<Evidence>,
}

/// Field name → message, shown next to the field.
type Problems = BTreeMap<String, String>;

fn input_name(field: ContactField) -> String {
    format!("field_{}", field.name())
}

impl Draft {
    /// A fresh draft of a check of `contact` (default: the primary one).
    fn fresh(row: &AuthorityRow, contact: Option<&str>) -> Self {
        let state = &row.state;
        let contact = contact
            .and_then(|id| state.contact(id))
            .or_else(|| state.primary_contact())
            .or_else(|| state.contacts.first());
        Self {
            contact: contact.map(|c| c.id.clone()).unwrap_or_default(),
            verified: "yes".into(),
            checked_on: Utc::now().date_naive().to_string(),
            method: "email".into(),
            fields: ContactField::ALL
                .into_iter()
                .map(|f| {
                    let value = contact.and_then(|c| c.details.get(f)).unwrap_or_default();
                    (f, value)
                })
                .collect(),
            expected_version: row.version,
            ..Self::default()
        }
    }

    /// The draft a form sent; a contact field it did not send keeps the
    /// contact's current value (no correction).
    fn of(form: &FormData, row: &AuthorityRow) -> Self {
        let contact = row
            .state
            .contact(form.get("contact").unwrap_or_default().trim());
        Self {
            contact: form.text("contact"),
            outcome: form.text("outcome"),
            verified: form.text("verified"),
            checked_on: form.text("checked_on"),
            method: form.text("method"),
            source: form.text("source"),
            note: form.text("note"),
            fields: ContactField::ALL
                .into_iter()
                .map(|f| {
                    let value = match form.get(&input_name(f)) {
                        Some(typed) => typed.trim().to_owned(),
                        None => contact.and_then(|c| c.details.get(f)).unwrap_or_default(),
                    };
                    (f, value)
                })
                .collect(),
            expected_version: form.text("expected_version").parse().unwrap_or(0),
            evidence: Vec::new(),
        }
    }

    /// The command this draft asks for, against `row`, or the problems of
    /// its fields.
    fn command(
        &self,
        row: &AuthorityRow,
        signed: &Signed,
    ) -> Result<SubmitVerificationUpdate, Problems> {
        let mut problems = Problems::new();
        let contact = row.state.contact(&self.contact);
        if contact.is_none() && !row.state.contacts.is_empty() {
            problems.insert(
                "contact".into(),
                "choose one of the Party's contacts".into(),
            );
        }
        let outcome = match self.outcome.as_str() {
            "" => None,
            other => {
                let parsed = CheckOutcome::parse(other);
                if parsed.is_none() {
                    problems.insert("outcome".into(), "choose an outcome from the list".into());
                }
                parsed
            }
        };
        let checked_on = NaiveDate::parse_from_str(&self.checked_on, "%Y-%m-%d");
        if checked_on.is_err() {
            problems.insert(
                "checked_on".into(),
                "a date as YYYY-MM-DD, e.g. 2026-03-01".into(),
            );
        }
        let method = VerificationMethod::parse(&self.method);
        if method.is_none() {
            problems.insert("method".into(), "choose how the record was checked".into());
        }
        let mut changes = ContactPatch::new();
        for (field, typed) in &self.fields {
            let current = contact
                .and_then(|c| c.details.get(*field))
                .unwrap_or_default();
            if typed != &current {
                changes.insert(*field, (!typed.is_empty()).then(|| typed.clone()));
            }
        }
        match (checked_on, method) {
            (Ok(checked_on), Some(method)) if problems.is_empty() => Ok(SubmitVerificationUpdate {
                contact_id: contact.map(|c| c.id.clone()),
                outcome,
                verified: self.verified != "no",
                checked_on,
                method,
                source: self.source.clone(),
                note: (!self.note.is_empty()).then(|| self.note.clone()),
                changes,
                steward: Some(signed.steward.id.clone()),
                today: Utc::now().date_naive(),
            }),
            _ => Err(problems),
        }
    }

    fn hidden(&self) -> Markup {
        html! {
            input type="hidden" name="contact" value=(self.contact);
            input type="hidden" name="outcome" value=(self.outcome);
            input type="hidden" name="verified" value=(self.verified);
            input type="hidden" name="checked_on" value=(self.checked_on);
            input type="hidden" name="method" value=(self.method);
            input type="hidden" name="source" value=(self.source);
            input type="hidden" name="note" value=(self.note);
            @for (f, value) in &self.fields {
                input type="hidden" name=(input_name(*f)) value=(value);
            }
            input type="hidden" name="expected_version" value=(self.expected_version);
            @for file in &self.evidence {
                input type="hidden" name="evidence" value=(hidden_value(file));
            }
        }
    }
}

/// The domain's problems as form problems (`changes.email` → `field_email`).
fn from_domain(found: Vec<FieldProblem>) -> Problems {
    found
        .into_iter()
        .map(|p| {
            let name = match p.field.strip_prefix("changes.") {
                Some(f) => format!("field_{f}"),
                None => p.field,
            };
            (name, p.message)
        })
        .collect()
}

fn form_markup(row: &AuthorityRow, draft: &Draft, problems: &Problems, csrf: &str) -> Markup {
    let contacts = crate::party::contact_choices(row);
    let contact_options: Vec<(&str, &str)> = contacts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let error = |name: &str| problems.get(name).map(String::as_str);
    html! {
        @if !problems.is_empty() {
            p class="error" role="alert" { "The check was not previewed: " (problems.len()) " field(s) need attention (see below)." }
        }
        @if let Some(general) = error("changes") { p class="error" role="alert" { (general) } }
        form method="post" enctype="multipart/form-data" action=(format!("/steward/party/{}/check/preview", row.country_code)) {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="expected_version" value=(draft.expected_version);
            @for file in &draft.evidence {
                input type="hidden" name="evidence" value=(hidden_value(file));
            }
            @if !contact_options.is_empty() {
                (select("contact", "Contact checked", &contact_options, &draft.contact, error("contact")))
            }
            (select("outcome", "Outcome", &OUTCOMES, &draft.outcome, error("outcome")))
            (select("verified", "Verified after this check", &VERIFIED, &draft.verified, error("verified")))
            (field("checked_on", "Checked on (YYYY-MM-DD)", &draft.checked_on, error("checked_on")))
            (select("method", "Method", &METHODS, &draft.method, error("method")))
            (field("source", "Evidence: what it was checked against (e.g. the authority's reply of 3 March)", &draft.source, error("source")))
            (field("note", "Note (optional)", &draft.note, error("note")))
            @if !draft.evidence.is_empty() {
                p { "Attached: " @for file in &draft.evidence { (file.file_name) " (" (file.media_type) ", " (file.size) " bytes) " } }
            }
            label for="evidence" { "Evidence files (PDF, e-mail .eml, PNG, JPEG or GIF; at most 4 MiB each; optional)" }
            @if let Some(problem) = error("evidence") {
                input id="evidence" name="evidence_file" type="file" multiple accept=".pdf,.eml,.png,.jpg,.jpeg,.gif" aria-invalid="true" aria-describedby="evidence-error";
                p id="evidence-error" class="error" role="alert" { (problem) }
            } @else {
                input id="evidence" name="evidence_file" type="file" multiple accept=".pdf,.eml,.png,.jpg,.jpeg,.gif";
            }
            fieldset {
                legend { "Corrections: change a field to correct it, empty it to clear it" }
                @for (f, value) in &draft.fields {
                    (field(&input_name(*f), f.name(), value, error(&input_name(*f))))
                }
            }
            button type="submit" { "Preview the check" }
        }
    }
}

/// The form page (`status` 422 with problems).
async fn form_page(
    console: &Console,
    signed: &Signed,
    row: &AuthorityRow,
    draft: &Draft,
    problems: &Problems,
    status: StatusCode,
) -> Response {
    let t = match console.form_tokens(signed, 2).await {
        Ok(t) => t,
        Err(response) => return response,
    };
    let title = format!(
        "Record a check of {} ({})",
        row.country_name, row.country_code
    );
    let body = html! {
        h1 { (title) }
        p { a href=(format!("/steward/party/{}", row.country_code)) { "Back to " (row.country_name) } }
        (form_markup(row, draft, problems, &t[0]))
    };
    respond(
        status,
        page(&title, Some(&Chrome::of(signed, &t[1])), &body),
    )
}

/// `?contact=` of the form page.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Which {
    contact: Option<String>,
}

/// `GET /steward/party/{cc}/check`.
pub async fn form(
    State(console): State<Handle>,
    signed: Signed,
    Path(country): Path<String>,
    Query(which): Query<Which>,
) -> Response {
    let (row, _) = match load(&console, &country).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let draft = Draft::fresh(&row, which.contact.as_deref());
    form_page(
        &console,
        &signed,
        &row,
        &draft,
        &Problems::new(),
        StatusCode::OK,
    )
    .await
}

/// The form again with what is wrong in it (422).
async fn invalid(
    console: &Console,
    signed: &Signed,
    row: &AuthorityRow,
    draft: &Draft,
    problems: &Problems,
) -> Response {
    form_page(
        console,
        signed,
        row,
        draft,
        problems,
        StatusCode::UNPROCESSABLE_ENTITY,
    )
    .await
}

/// The draft a preview shows: the form's fields, the files it names and
/// the files it uploads; what is wrong with the files goes into `problems`.
async fn drafted(
    console: &Console,
    form: &FormData,
    row: &AuthorityRow,
    problems: &mut Problems,
) -> Result<Draft, Response> {
    let mut draft = Draft::of(form, row);
    match referenced(console, &form.all("evidence")).await {
        Ok(files) => draft.evidence = files,
        Err(FileProblem::Refused(refusals)) => {
            problems.insert("evidence".into(), refusals.join("; "));
        }
        Err(FileProblem::Store) => return Err(unavailable()),
    }
    match store(console, &form.files).await {
        Ok(files) => draft.evidence.extend(files),
        Err(FileProblem::Refused(refusals)) => {
            problems.insert("evidence".into(), refusals.join("; "));
        }
        Err(FileProblem::Store) => return Err(unavailable()),
    }
    Ok(draft)
}

/// `POST /steward/party/{cc}/check/preview`.
pub async fn preview(
    State(console): State<Handle>,
    signed: Signed,
    Path(country): Path<String>,
    form: FormData,
) -> Response {
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    let (row, _) = match load(&console, &country).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let mut problems = Problems::new();
    let draft = match drafted(&console, &form, &row, &mut problems).await {
        Ok(draft) => draft,
        Err(response) => return response,
    };
    let command = match draft.command(&row, &signed) {
        Ok(command) if problems.is_empty() => command,
        Ok(_) => return invalid(&console, &signed, &row, &draft, &problems).await,
        Err(mut found) => {
            found.extend(problems);
            return invalid(&console, &signed, &row, &draft, &found).await;
        }
    };
    match row.state.decide(&with_files(command, &draft)) {
        Ok(events) => preview_page(&console, &signed, &row, &draft, &events).await,
        Err(AuthorityError::Invalid(found)) => {
            invalid(&console, &signed, &row, &draft, &from_domain(found)).await
        }
        Err(other) => refused(&other),
    }
}

/// The preview: the events recording the draft would append, a button
/// that records (or proposes) it, and the form to change it.
async fn preview_page(
    console: &Console,
    signed: &Signed,
    row: &AuthorityRow,
    draft: &Draft,
    events: &[domain::authority::AuthorityEvent],
) -> Response {
    let t = match console.form_tokens(signed, 3).await {
        Ok(t) => t,
        Err(response) => return response,
    };
    let title = format!(
        "Preview: a check of {} ({})",
        row.country_name, row.country_code
    );
    let body = html! {
        h1 { (title) }
        @if console.app.review {
            p role="status" { "Nothing is recorded yet. Four-eyes review is on: your check becomes a proposal, and another steward must approve it. Once approved, it appends exactly these events to the record (version " (row.version) " now):" }
        } @else {
            p role="status" { "Nothing is recorded yet. Recording this check will append exactly these events to version " (row.version) " of the record:" }
        }
        ol {
            @for event in events {
                li { (event_markup(event)) }
            }
        }
        form method="post" action=(format!("/steward/party/{}/check", row.country_code)) {
            input type="hidden" name="csrf" value=(t[0]);
            (draft.hidden())
            button type="submit" { (if console.app.review { "Propose this check for review" } else { "Record this check" }) }
        }
        h2 { "Or change it" }
        (form_markup(row, draft, &Problems::new(), &t[1]))
    };
    respond(
        StatusCode::OK,
        page(&title, Some(&Chrome::of(signed, &t[2])), &body),
    )
}

/// The command a draft asks for: the check, with its files if it has any.
fn with_files(command: SubmitVerificationUpdate, draft: &Draft) -> AuthorityCommand {
    if draft.evidence.is_empty() {
        AuthorityCommand::SubmitVerification(command)
    } else {
        AuthorityCommand::SubmitVerificationWithEvidence(command, draft.evidence.clone())
    }
}

/// One event as the preview lists it: its type, then what it changes.
pub(crate) fn event_markup(event: &domain::authority::AuthorityEvent) -> Markup {
    use domain::aggregate::DomainEvent;
    let name = event.event_type();
    let details = match serde_json::to_value(event) {
        Ok(serde_json::Value::Object(mut tagged)) => tagged.remove(name).unwrap_or_default(),
        _ => serde_json::Value::Null,
    };
    html! { strong { (name) } (what(name, &details)) }
}

fn refused(error: &AuthorityError) -> Response {
    message(
        StatusCode::CONFLICT,
        "This check cannot be recorded",
        &error.to_string(),
        ("/steward/worklist", "Back to the worklist"),
    )
}

/// `POST /steward/party/{cc}/check`.
pub async fn commit(
    State(console): State<Handle>,
    signed: Signed,
    Path(country): Path<String>,
    headers: HeaderMap,
    form: FormData,
) -> Response {
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    let (row, history) = match load(&console, &country).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let mut draft = Draft::of(&form, &row);
    match referenced(&console, &form.all("evidence")).await {
        Ok(files) => draft.evidence = files,
        Err(FileProblem::Refused(refusals)) => {
            let problems = Problems::from([("evidence".to_owned(), refusals.join("; "))]);
            return invalid(&console, &signed, &row, &draft, &problems).await;
        }
        Err(FileProblem::Store) => return unavailable(),
    }
    let command = match draft.command(&row, &signed) {
        Ok(command) => command,
        Err(problems) => return invalid(&console, &signed, &row, &draft, &problems).await,
    };
    let Ok(code) = CountryCode::parse(&country) else {
        return refused(&AuthorityError::NotRegistered);
    };
    let metadata = web::write::metadata(&signed.steward, &headers);
    match write(&console, &code, command, &draft, &metadata).await {
        Ok(committed) => {
            settle(&console, committed.position).await;
            if console.app.review {
                Redirect::to("/steward/reviews").into_response()
            } else {
                Redirect::to(&format!("/steward/party/{code}#history")).into_response()
            }
        }
        Err(
            CommandError::VersionMismatch { .. }
            | CommandError::Conflict
            | CommandError::IdempotencyKeyReused,
        ) => conflict(&console, &signed, &row, &history, &draft).await,
        Err(CommandError::Rejected(AuthorityError::Invalid(found))) => {
            invalid(&console, &signed, &row, &draft, &from_domain(found)).await
        }
        Err(CommandError::Rejected(other)) => refused(&other),
        Err(CommandError::Infrastructure(cause)) => {
            tracing::warn!(error = %cause, "console check not recorded");
            message(
                StatusCode::SERVICE_UNAVAILABLE,
                "The store is unavailable",
                "The check was not recorded. Try again in a moment.",
                ("/steward/worklist", "Back to the worklist"),
            )
        }
    }
}

/// Writes a check at the version the draft was made against: as a
/// proposal when four-eyes review is on, else straight onto the record.
async fn write(
    console: &Console,
    code: &CountryCode,
    command: SubmitVerificationUpdate,
    draft: &Draft,
    metadata: &domain::metadata::Metadata,
) -> Result<commands::executor::Committed, CommandError<AuthorityError>> {
    let commands = AuthorityCommands::new(&console.app.wiring.store);
    let version = Some(draft.expected_version);
    if console.app.review {
        let propose = domain::authority::ReviewCommand::propose_check(
            uuid::Uuid::new_v4().simple().to_string(),
            command,
            draft.evidence.clone(),
        );
        commands.review(code, propose, metadata, version).await
    } else if draft.evidence.is_empty() {
        commands
            .submit_verification_at(code, command, metadata, version)
            .await
    } else {
        commands
            .submit_verification_with_evidence_at(
                code,
                command,
                draft.evidence.clone(),
                metadata,
                version,
            )
            .await
    }
}

/// After a commit at `position`: rings the projector and waits (bounded,
/// as REST writes do) until the directory and history show it.
pub async fn settle(console: &Console, position: i64) {
    let app = &console.app;
    app.committed();
    let projector = &app.wiring.projector;
    let bound = web::write::READ_YOUR_WRITES;
    if projector
        .wait_for(Projection::Directory, position, bound)
        .await
    {
        projector
            .wait_for(Projection::History, position, bound)
            .await;
    }
}

/// 409: the record moved on since the preview. Both versions side by side,
/// and the form again (against the current version) to redo the change.
async fn conflict(
    console: &Console,
    signed: &Signed,
    row: &AuthorityRow,
    history: &[projections::history::HistoryRow],
    draft: &Draft,
) -> Response {
    let t = match console.form_tokens(signed, 2).await {
        Ok(t) => t,
        Err(response) => return response,
    };
    let current = row.state.contact(&draft.contact);
    let mut redo = draft.clone();
    redo.expected_version = row.version;
    let since: Vec<_> = history
        .iter()
        .filter(|h| h.sequence > draft.expected_version)
        .collect();
    let title = format!("The record of {} changed meanwhile", row.country_name);
    let body = html! {
        h1 { (title) }
        p role="alert" { "Nothing was recorded. You previewed version " (draft.expected_version)
            "; the record is now at version " (row.version) ". Compare, then redo your change below." }
        table {
            caption { "Contact " (draft.contact) ": your version and the record now" }
            thead { tr { th scope="col" { "Field" } th scope="col" { "Your version" } th scope="col" { "The record now (version " (row.version) ")" } } }
            tbody {
                @for (f, mine) in &draft.fields {
                    @let now = current.and_then(|c| c.details.get(*f)).unwrap_or_default();
                    tr { th scope="row" { (f.name()) } td class=[(mine != &now).then_some("new")] { (mine) } td { (now) } }
                }
            }
        }
        h2 { "What changed since version " (draft.expected_version) }
        ol { @for item in &since { li { (super::party::entry(item)) } } }
        h2 { "Redo your change" }
        (form_markup(row, &redo, &Problems::new(), &t[0]))
    };
    respond(
        StatusCode::CONFLICT,
        page(&title, Some(&Chrome::of(signed, &t[1])), &body),
    )
}
