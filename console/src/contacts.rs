//! A Party's contacts from the console: **add** one, **withdraw** one (with
//! a reason), **make** one the primary competent authority. Each is the
//! check's three steps, each a form with its own CSRF token:
//!
//! 1. `GET /steward/party/{cc}/contacts/{action}[?contact=ID]`: the form;
//! 2. `POST …/{action}/preview`: the form is read as the REST body is
//!    (`rest::v1::ca::contacts::parse_add` for an addition), the domain decides
//!    the command against the record as the directory shows it (pure,
//!    nothing written) and the page lists exactly the events it would
//!    record, or the form again with each problem next to its field;
//! 3. `POST …/{action}`: the same command through
//!    `AuthorityCommands::execute_at`, pinned to the version the preview
//!    saw; a record that moved on meanwhile is the 409 page (the steward's
//!    change beside the record now, the events since, the form to redo).
//!
//! With `BASEL_REVIEW=required` step 3 proposes the command instead
//! (`ReviewCommand::Propose`, pinned the same way): nothing changes until
//! another steward approves it in the review queue, where the steward is
//! sent to see it.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use maud::{html, Markup};
use serde_json::{json, Map, Value};

use commands::authority::AuthorityCommands;
use commands::CommandError;
use domain::authority::{
    AddContact, AuthorityCommand, AuthorityError, ContactField, DesignatePrimary, FieldProblem,
    RemoveContact, ReviewCommand,
};
use domain::values::CountryCode;
use domain::Aggregate;
use projections::directory::AuthorityRow;
use projections::history::HistoryRow;

use super::html::{field, message, page, respond, select, Chrome};
use super::party::load;
use super::session::{FormData, Signed};
use crate::state::{Console, Handle};
use web::error::ApiError;

/// What a contact form does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Add a contact.
    Add,
    /// Withdraw a contact (reason required).
    Withdraw,
    /// Make a competent authority the primary one.
    Primary,
}

impl Action {
    fn parse(segment: &str) -> Option<Self> {
        match segment {
            "add" => Some(Self::Add),
            "withdraw" => Some(Self::Withdraw),
            "primary" => Some(Self::Primary),
            _ => None,
        }
    }

    fn segment(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Withdraw => "withdraw",
            Self::Primary => "primary",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Self::Add => "Add a contact to",
            Self::Withdraw => "Withdraw a contact of",
            Self::Primary => "Make a contact primary for",
        }
    }

    fn button(self) -> &'static str {
        match self {
            Self::Add => "Add this contact",
            Self::Withdraw => "Withdraw this contact",
            Self::Primary => "Make it primary",
        }
    }

    /// The form's fields: `(name, label)`.
    fn fields(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::Add => &[
                ("role", "Role"),
                ("ca_name", "Name of the institution"),
                ("contact_person", "Contact person (optional)"),
                ("email", "E-mail"),
                ("phone", "Phone"),
                ("fax", "Fax (optional)"),
                ("website", "Website (optional)"),
                ("address", "Address"),
                ("area", "Scope: area (optional, e.g. a province)"),
                ("wastes", "Scope: wastes (optional)"),
                (
                    "movements",
                    "Scope: movements (optional, comma-separated: import, export, transit)",
                ),
                (
                    "source",
                    "Source: where these details come from (e.g. the Secretariat's factsheet of 2024)",
                ),
                ("primary", "Primary competent authority"),
            ],
            Self::Withdraw => &[("contact", "Contact"), ("reason", "Reason (required)")],
            Self::Primary => &[("contact", "Contact")],
        }
    }
}

const ROLES: [(&str, &str); 2] = [
    ("competent_authority", "Competent authority"),
    ("focal_point", "Focal point"),
];

const YES_NO: [(&str, &str); 2] = [("no", "No"), ("yes", "Yes")];

/// A contact form as typed (kept on errors).
#[derive(Debug, Clone)]
struct Draft {
    action: Action,
    values: BTreeMap<&'static str, String>,
    expected_version: i64,
}

/// Field name → message, shown next to the field (`general` above the form).
type Problems = BTreeMap<String, String>;

impl Draft {
    fn fresh(action: Action, row: &AuthorityRow, contact: Option<&str>) -> Self {
        let mut values: BTreeMap<&'static str, String> = action
            .fields()
            .iter()
            .map(|(name, _)| (*name, String::new()))
            .collect();
        if action == Action::Add {
            values.insert("role", "competent_authority".into());
            values.insert("primary", "no".into());
        } else {
            let chosen = contact
                .and_then(|id| row.state.contact(id))
                .or_else(|| row.state.contacts.first());
            values.insert("contact", chosen.map(|c| c.id.clone()).unwrap_or_default());
        }
        Self {
            action,
            values,
            expected_version: row.version,
        }
    }

    fn of(action: Action, form: &FormData) -> Self {
        Self {
            action,
            values: action
                .fields()
                .iter()
                .map(|(name, _)| (*name, form.text(name)))
                .collect(),
            expected_version: form.text("expected_version").parse().unwrap_or(0),
        }
    }

    fn value(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    /// The body `POST /api/v1/ca/{cc}/contacts` would get for this form.
    fn rest_body(&self) -> Value {
        let mut body = Map::new();
        let mut scope = Map::new();
        for (name, value) in &self.values {
            if value.is_empty() {
                continue;
            }
            match *name {
                "primary" => {
                    body.insert("primary".into(), Value::Bool(value == "yes"));
                }
                "ca_name" => {
                    body.insert("name".into(), json!(value));
                }
                "area" | "wastes" => {
                    scope.insert((*name).into(), json!(value));
                }
                "movements" => {
                    let list: Vec<&str> = value
                        .split(',')
                        .map(str::trim)
                        .filter(|m| !m.is_empty())
                        .collect();
                    scope.insert("movements".into(), json!(list));
                }
                other => {
                    body.insert(other.into(), json!(value));
                }
            }
        }
        if !scope.is_empty() {
            body.insert("scope".into(), Value::Object(scope));
        }
        Value::Object(body)
    }

    /// The command this form asks for, against `row`, or its problems.
    fn command(
        &self,
        console: &Console,
        row: &AuthorityRow,
        signed: &Signed,
    ) -> Result<AuthorityCommand, Problems> {
        let steward = Some(signed.steward.id.clone());
        match self.action {
            Action::Add => {
                let mut contact =
                    match web::contact::parse_add(&console.app.schemas, &self.rest_body()) {
                        Ok(contact) => contact,
                        Err(ApiError::Invalid(found)) => return Err(to_form(found)),
                        Err(_) => {
                            return Err(Problems::from([(
                                "general".into(),
                                "the form could not be read".into(),
                            )]))
                        }
                    };
                contact.id = Some(row.state.next_contact_id());
                Ok(AuthorityCommand::AddContact(AddContact {
                    contact,
                    max_contacts: console.app.wiring.max_contacts,
                    steward,
                    today: Utc::now().date_naive(),
                }))
            }
            Action::Withdraw | Action::Primary => {
                // The domain decides whether the contact exists and the
                // reason is given (the preview shows its refusals).
                let contact = self.value("contact");
                let reason = self.value("reason");
                Ok(if self.action == Action::Withdraw {
                    AuthorityCommand::RemoveContact(RemoveContact {
                        contact_id: contact.to_owned(),
                        reason: reason.to_owned(),
                        steward,
                    })
                } else {
                    AuthorityCommand::DesignatePrimary(DesignatePrimary {
                        contact_id: contact.to_owned(),
                        steward,
                    })
                })
            }
        }
    }

    fn hidden(&self) -> Markup {
        html! {
            @for (name, value) in &self.values {
                input type="hidden" name=(name) value=(value);
            }
            input type="hidden" name="expected_version" value=(self.expected_version);
        }
    }
}

/// REST and domain problem names as the form's field names.
fn to_form(found: Vec<FieldProblem>) -> Problems {
    found
        .into_iter()
        .map(|p| {
            let name = match p.field.as_str() {
                "name" => "ca_name",
                "contact_id" => "contact",
                other => other.strip_prefix("scope.").unwrap_or(other),
            };
            (name.to_owned(), p.message)
        })
        .collect()
}

fn form_markup(row: &AuthorityRow, draft: &Draft, problems: &Problems, csrf: &str) -> Markup {
    let contacts = crate::party::contact_choices(row);
    let contact_options: Vec<(&str, &str)> = contacts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let shown: Vec<&str> = draft.action.fields().iter().map(|(n, _)| *n).collect();
    let general: Vec<(&String, &String)> = problems
        .iter()
        .filter(|(name, _)| !shown.contains(&name.as_str()))
        .collect();
    let error = |name: &str| problems.get(name).map(String::as_str);
    let action = format!(
        "/steward/party/{}/contacts/{}/preview",
        row.country_code,
        draft.action.segment()
    );
    html! {
        @if !problems.is_empty() {
            p class="error" role="alert" { "Nothing was previewed: " (problems.len()) " problem(s) need attention (see below)." }
        }
        @for (name, problem) in &general { p class="error" role="alert" { (name) ": " (problem) } }
        form method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="expected_version" value=(draft.expected_version);
            @for (name, label) in draft.action.fields() {
                @match *name {
                    "role" => (select(name, label, &ROLES, draft.value(name), error(name))),
                    "primary" => (select(name, label, &YES_NO, draft.value(name), error(name))),
                    "contact" => (select(name, label, &contact_options, draft.value(name), error(name))),
                    _ => (field(name, label, draft.value(name), error(name))),
                }
            }
            button type="submit" { "Preview" }
        }
    }
}

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
        "{} {} ({})",
        draft.action.title(),
        row.country_name,
        row.country_code
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

fn unknown_action() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "No such form",
        "Contacts are added, withdrawn or made primary; nothing else.",
        ("/steward/worklist", "Back to the worklist"),
    )
}

/// `?contact=` of the form page.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Which {
    contact: Option<String>,
}

/// `GET /steward/party/{cc}/contacts/{action}`.
pub async fn form(
    State(console): State<Handle>,
    signed: Signed,
    Path((country, action)): Path<(String, String)>,
    Query(which): Query<Which>,
) -> Response {
    let Some(action) = Action::parse(&action) else {
        return unknown_action();
    };
    let (row, _) = match load(&console, &country).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let draft = Draft::fresh(action, &row, which.contact.as_deref());
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

/// `POST /steward/party/{cc}/contacts/{action}/preview`.
pub async fn preview(
    State(console): State<Handle>,
    signed: Signed,
    Path((country, action)): Path<(String, String)>,
    form: FormData,
) -> Response {
    let Some(action) = Action::parse(&action) else {
        return unknown_action();
    };
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    let (row, _) = match load(&console, &country).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let draft = Draft::of(action, &form);
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    let command = match draft.command(&console, &row, &signed) {
        Ok(command) => command,
        Err(problems) => {
            return form_page(&console, &signed, &row, &draft, &problems, unprocessable).await
        }
    };
    let events = match row.state.decide(&command) {
        Ok(events) => events,
        Err(AuthorityError::Invalid(found)) => {
            return form_page(
                &console,
                &signed,
                &row,
                &draft,
                &to_form(found),
                unprocessable,
            )
            .await
        }
        Err(other) => {
            let problems = Problems::from([("contact".to_owned(), other.to_string())]);
            return form_page(&console, &signed, &row, &draft, &problems, unprocessable).await;
        }
    };
    let t = match console.form_tokens(&signed, 3).await {
        Ok(t) => t,
        Err(response) => return response,
    };
    let title = format!(
        "Preview: {} {} ({})",
        action.title().to_lowercase(),
        row.country_name,
        row.country_code
    );
    let body = html! {
        h1 { (title) }
        p role="status" { "Nothing is recorded yet. Confirming will append exactly these events to version " (row.version) " of the record:" }
        ol { @for event in &events { li { (super::check::event_markup(event)) } } }
        @if console.app.review {
            p role="note" { "Four-eyes review is on: confirming makes this change a proposal. Nothing is recorded until another steward approves it in the "
                a href="/steward/reviews" { "review queue" } "; then exactly these events are appended." }
        }
        form method="post" action=(format!("/steward/party/{}/contacts/{}", row.country_code, action.segment())) {
            input type="hidden" name="csrf" value=(t[0]);
            (draft.hidden())
            button type="submit" {
                @if console.app.review { "Propose: " (action.button().to_lowercase()) } @else { (action.button()) }
            }
        }
        h2 { "Or change it" }
        (form_markup(&row, &draft, &Problems::new(), &t[1]))
    };
    respond(
        StatusCode::OK,
        page(&title, Some(&Chrome::of(&signed, &t[2])), &body),
    )
}

/// `POST /steward/party/{cc}/contacts/{action}`.
pub async fn commit(
    State(console): State<Handle>,
    signed: Signed,
    Path((country, action)): Path<(String, String)>,
    headers: HeaderMap,
    form: FormData,
) -> Response {
    let Some(action) = Action::parse(&action) else {
        return unknown_action();
    };
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    let (row, history) = match load(&console, &country).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let draft = Draft::of(action, &form);
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    if draft.expected_version != row.version {
        return conflict(&console, &signed, &row, &history, &draft).await;
    }
    let command = match draft.command(&console, &row, &signed) {
        Ok(command) => command,
        Err(problems) => {
            return form_page(&console, &signed, &row, &draft, &problems, unprocessable).await
        }
    };
    let Ok(code) = CountryCode::parse(&country) else {
        return refused(&AuthorityError::NotRegistered);
    };
    let metadata = web::write::metadata(&signed.steward, &headers);
    let proposal_id = uuid::Uuid::new_v4().simple().to_string();
    let version = Some(draft.expected_version);
    let written = write(&console, &code, command, &metadata, version, &proposal_id).await;
    match written {
        Ok(committed) => {
            super::check::settle(&console, committed.position).await;
            let to = if console.app.review {
                format!("/steward/reviews#proposal-{proposal_id}")
            } else {
                format!("/steward/party/{code}#history")
            };
            Redirect::to(&to).into_response()
        }
        Err(
            CommandError::VersionMismatch { .. }
            | CommandError::Conflict
            | CommandError::IdempotencyKeyReused,
        ) => conflict(&console, &signed, &row, &history, &draft).await,
        Err(CommandError::Rejected(AuthorityError::Invalid(found))) => {
            form_page(
                &console,
                &signed,
                &row,
                &draft,
                &to_form(found),
                unprocessable,
            )
            .await
        }
        Err(CommandError::Rejected(other)) => refused(&other),
        Err(CommandError::Infrastructure(cause)) => {
            tracing::warn!(error = %cause, "console contact change not recorded");
            message(
                StatusCode::SERVICE_UNAVAILABLE,
                "The store is unavailable",
                "Nothing was recorded. Try again in a moment.",
                ("/steward/worklist", "Back to the worklist"),
            )
        }
    }
}

/// Writes a contact change at `version`: as proposal `proposal_id` when
/// four-eyes review is on, else straight onto the record.
async fn write(
    console: &Console,
    code: &CountryCode,
    command: AuthorityCommand,
    metadata: &domain::metadata::Metadata,
    version: Option<i64>,
    proposal_id: &str,
) -> Result<commands::executor::Committed, CommandError<AuthorityError>> {
    let commands = AuthorityCommands::new(&console.app.wiring.store);
    if console.app.review {
        let propose = ReviewCommand::Propose {
            proposal_id: proposal_id.to_owned(),
            command: Box::new(command),
        };
        commands.review(code, propose, metadata, version).await
    } else {
        commands.execute_at(code, &command, metadata, version).await
    }
}

fn refused(error: &AuthorityError) -> Response {
    message(
        StatusCode::CONFLICT,
        "This change cannot be recorded",
        &error.to_string(),
        ("/steward/worklist", "Back to the worklist"),
    )
}

/// 409: the record moved on since the preview: the steward's change beside
/// the record's contacts now, the events since, and the form to redo.
async fn conflict(
    console: &Console,
    signed: &Signed,
    row: &AuthorityRow,
    history: &[HistoryRow],
    draft: &Draft,
) -> Response {
    let t = match console.form_tokens(signed, 2).await {
        Ok(t) => t,
        Err(response) => return response,
    };
    let mut redo = draft.clone();
    redo.expected_version = row.version;
    let since: Vec<_> = history
        .iter()
        .filter(|h| h.sequence > draft.expected_version)
        .collect();
    let primary = row.state.primary.as_deref();
    let title = format!("The record of {} changed meanwhile", row.country_name);
    let body = html! {
        h1 { (title) }
        p role="alert" { "Nothing was recorded. You previewed version " (draft.expected_version)
            "; the record is now at version " (row.version) ". Compare, then redo your change below." }
        table {
            caption { "Your change (" (draft.action.title().to_lowercase()) " " (row.country_name) ")" }
            tbody { @for (name, value) in &draft.values { tr { th scope="row" { (name) } td class="new" { (value) } } } }
        }
        table {
            caption { "The record's contacts now (version " (row.version) ")" }
            thead { tr { th scope="col" { "Contact" } th scope="col" { "Role" } th scope="col" { "Name" } th scope="col" { "E-mail" } th scope="col" { "Primary" } } }
            tbody {
                @for c in &row.state.contacts {
                    tr {
                        th scope="row" { (c.id) }
                        td { (c.role.as_str()) }
                        td { (c.details.get(ContactField::CaName).unwrap_or_default()) }
                        td { (c.details.get(ContactField::Email).unwrap_or_default()) }
                        td { (if primary == Some(c.id.as_str()) { "yes" } else { "no" }) }
                    }
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
