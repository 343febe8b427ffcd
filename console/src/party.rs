//! `GET /steward/party/{cc}`: one Party for a steward: its status, its
//! contacts with each field, their provenance (source, kind, date, last
//! check, who, how) and age, and the record's history as a timeline, newest
//! first, where a correction shows each field old → new, with who, when,
//! how, against what evidence, and the request that carried it.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Utc;
use maud::{html, Markup};
use serde_json::Value;

use domain::authority::{ChangeProposed, ContactField, PartyContact};
use domain::values::CountryCode;
use projections::directory::AuthorityRow;
use projections::history::HistoryRow;

use super::html::{message, page, respond, Chrome};
use super::session::Signed;
use crate::state::{Console, Handle};

/// The Party's row and history, or the page saying why not.
///
/// # Errors
/// The Party's contacts as a form's choices: `(id, "id — role name")`.
pub fn contact_choices(row: &AuthorityRow) -> Vec<(String, String)> {
    row.state
        .contacts
        .iter()
        .map(|c| {
            let name = c
                .details
                .get(domain::authority::ContactField::CaName)
                .unwrap_or_default();
            (
                c.id.clone(),
                format!("{} — {} {}", c.id, c.role.as_str(), name),
            )
        })
        .collect()
}

/// 404 for a code the directory does not hold, 503 when it cannot be read.
pub async fn load(
    console: &Console,
    country: &str,
) -> Result<(AuthorityRow, Vec<HistoryRow>), Response> {
    let unavailable = |error: projections::ProjectionError| {
        tracing::warn!(error = %error, "directory unreadable");
        message(
            StatusCode::SERVICE_UNAVAILABLE,
            "The directory is unavailable",
            "This Party cannot be read right now. Try again in a moment.",
            ("/steward/worklist", "Back to the worklist"),
        )
    };
    let Ok(code) = CountryCode::parse(country) else {
        return Err(not_found());
    };
    let row = projections::directory::Reader::new(console.app.read_db().clone())
        .get(code.as_str())
        .await
        .map_err(unavailable)?
        .ok_or_else(not_found)?;
    let history = projections::history::of(console.app.read_db(), code.as_str())
        .await
        .map_err(unavailable)?;
    Ok((row, history))
}

fn not_found() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "No such Party",
        "The directory holds no record of this country code.",
        ("/steward/worklist", "Back to the worklist"),
    )
}

/// `GET /steward/party/{country_code}`.
pub async fn show(
    State(console): State<Handle>,
    signed: Signed,
    axum::extract::Path(country): axum::extract::Path<String>,
) -> Response {
    let (row, history) = match load(&console, &country).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let csrf = match console.form_token(&signed).await {
        Ok(token) => token,
        Err(response) => return response,
    };
    let assign = match console.form_token(&signed).await {
        Ok(token) => token,
        Err(response) => return response,
    };
    let chrome = Chrome {
        name: &signed.steward.name,
        csrf: &csrf,
    };
    let title = format!("{} ({})", row.country_name, row.country_code);
    respond(
        StatusCode::OK,
        page(&title, Some(&chrome), &body(&row, &history, &assign)),
    )
}

fn body(row: &AuthorityRow, history: &[HistoryRow], assign_csrf: &str) -> Markup {
    let state = &row.state;
    let standing = domain::parties::registry()
        .party(&row.country_code)
        .map_or("not a Party", |_| "Party to the Basel Convention");
    html! {
        h1 { (row.country_name) " (" (row.country_code) ")" }
        p { (standing) ". Record version " (row.version) ", last changed " (row.updated_at) "."
            @if state.retired.is_some() { strong { " Retired (created in error)." } } }
        @if let Some(notes) = &state.notes { p { "Notes: " (notes) } }
        p { "On it: " (state.assigned_to.as_ref().map_or("nobody yet", |s| s.as_str())) "." }
        @if let Some(due) = super::worklist::retry_due(row) { p { "A contact reached nobody: try again from " (due) "." } }
        form method="post" action=(format!("/steward/party/{}/assign", row.country_code)) {
            input type="hidden" name="csrf" value=(assign_csrf);
            button type="submit" { "Assign to me" }
        }
        p { a href=(format!("/steward/party/{}/check", row.country_code)) { "Record a check of this Party" } }
        p { a href=(format!("/steward/party/{}/contacts/add", row.country_code)) { "Add a contact" } }
        @if !state.proposals.is_empty() {
            h2 { "Open proposals" }
            p { (state.proposals.len()) " change(s) await another steward's review: " a href="/steward/reviews" { "open the review queue" } "." }
            @for proposal in &state.proposals {
                section aria-label=(format!("Proposal {}", proposal.id)) {
                    h3 { (super::review::kind_title(&proposal.change)) " by " (proposal.proposer.as_str())
                        @if proposal.stale { " (stale)" } }
                    (super::review::change_markup(&proposal.change, &proposal.changes))
                }
            }
        }
        h2 { "Contacts" }
        @if state.contacts.is_empty() { p { "No contact of this Party is known." } }
        @for contact in &state.contacts {
            (contact_section(row, contact, state.primary.as_deref() == Some(contact.id.as_str())))
        }
        h2 { "History" }
        ol reversed aria-label="History, newest first" {
            @for item in history.iter().rev() { li { (entry(item)) } }
        }
    }
}

fn contact_section(row: &AuthorityRow, contact: &PartyContact, primary: bool) -> Markup {
    let p = &contact.provenance;
    let today = Utc::now().date_naive();
    let age = contact
        .as_of()
        .map(|d| format!("{d} ({} days ago)", (today - d).num_days()));
    html! {
        section aria-labelledby=(format!("contact-{}", contact.id)) {
            h3 id=(format!("contact-{}", contact.id)) {
                "Contact " (contact.id) ": " (contact.role.as_str())
                @if primary { " (primary)" }
            }
            table {
                caption { "Details of contact " (contact.id) }
                tbody {
                    @for field in ContactField::ALL {
                        @if let Some(value) = contact.details.get(field) {
                            tr { th scope="row" { (field.name()) } td { (value) } }
                        }
                    }
                }
            }
            dl {
                dt { "Known as of" } dd { (age.as_deref().unwrap_or("unknown")) }
                dt { "Verified" } dd { (if p.verified { "yes" } else { "no" }) }
                dt { "Source" } dd { (p.source.as_deref().unwrap_or("none recorded")) }
                dt { "Last check" } dd {
                    @match &p.last_check {
                        Some(check) => {
                            (check.checked_on) ": " (check.outcome.map_or("no outcome", |o| o.as_str()))
                            ", by " (check.method.as_str()) " against " (check.source)
                            @if let Some(s) = &p.steward { ", steward " (s.as_str()) }
                            @if let Some(note) = &check.note { " — " (note) }
                        }
                        None => "never checked",
                    }
                }
                @if !contact.sources.is_empty() {
                    dt { "Public sources" }
                    dd { ul { @for s in &contact.sources {
                        li { (s.kind) ", " (s.date.as_deref().unwrap_or("undated")) ": " (s.title.as_deref().unwrap_or(&s.url)) " <" (s.url) ">" }
                    } } }
                }
            }
            p { a href=(format!("/steward/party/{}/check?contact={}", row.country_code, contact.id)) { "Record a check of contact " (contact.id) } }
            p { a href=(format!("/steward/party/{}/contacts/withdraw?contact={}", row.country_code, contact.id)) { "Withdraw contact " (contact.id) } }
            @if !primary && contact.role == domain::authority::Role::CompetentAuthority {
                p { a href=(format!("/steward/party/{}/contacts/primary?contact={}", row.country_code, contact.id)) { "Make contact " (contact.id) " primary" } }
            }
        }
    }
}

fn text(value: &Value) -> String {
    match value {
        Value::Null => "(empty)".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One history entry: what happened, then who, when, and the request.
pub fn entry(item: &HistoryRow) -> Markup {
    let d = &item.details;
    html! {
        article aria-label=(format!("Event {}", item.sequence)) {
            h3 { (item.event_type) " — " (item.recorded_at) }
            p { "By " (item.actor) ", request " code { (item.request_id) } ", version " (item.sequence) "." }
            (what(&item.event_type, d))
        }
    }
}

/// The change an event made, as a steward reads it.
pub fn what(event_type: &str, d: &Value) -> Markup {
    match event_type {
        "ContactDetailsChanged" => html! {
            table {
                caption { "Changes to contact " (text(&d["contact_id"])) }
                thead { tr { th scope="col" { "Field" } th scope="col" { "Old" } th scope="col" { "New" } } }
                tbody {
                    @for change in d["changes"].as_array().into_iter().flatten() {
                        tr {
                            th scope="row" { (text(&change["field"])) }
                            td class="old" { (text(&change["old"])) }
                            td class="new" { (text(&change["new"])) }
                        }
                    }
                }
            }
        },
        "VerificationRecorded" => html! {
            p { "Check of contact " (text(&d["contact_id"])) " on " (text(&d["checked_on"]))
                ": " (text(&d["outcome"])) ", verified " (text(&d["verified"]))
                ", how: " (text(&d["method"])) ", evidence: " (text(&d["source"]))
                @if !d["note"].is_null() { ", note: " (text(&d["note"])) } "." }
        },
        "ContactAdded" => html! {
            p { "Contact " (text(&d["contact"]["id"])) " added ("
                (text(&d["contact"]["role"])) "): " (text(&d["contact"]["details"]["ca_name"]))
                @if d["primary"] == Value::Bool(true) { ", primary" } "." }
        },
        "EvidenceAttached" => html! {
            p { "Evidence for the check of contact " (text(&d["contact_id"])) ": "
                a href=(format!("/steward/evidence/{}", text(&d["sha256"]))) { (text(&d["file_name"])) }
                " (" (text(&d["media_type"])) ", " (text(&d["size"])) " bytes, SHA-256 " code { (text(&d["sha256"])) } "), downloaded, never opened in the page." }
        },
        "ChangeProposed" => match serde_json::from_value::<ChangeProposed>(d.clone()) {
            Ok(p) => html! {
                p { "Proposal " code { (p.proposal_id) } " by " (p.proposer.as_str())
                    ": " (super::review::kind_title(&p.change)) ", awaiting review." }
                (super::review::change_markup(&p.change, &p.changes))
            },
            Err(_) => html! { pre { (serde_json::to_string_pretty(d).unwrap_or_default()) } },
        },
        "ProposalApproved" => html! {
            p { "Proposal " code { (text(&d["proposal_id"])) } " by " (text(&d["proposer"])) " approved by " (text(&d["approver"])) "; its change follows." }
        },
        "ProposalRejected" => html! {
            p { "Proposal " code { (text(&d["proposal_id"])) } " rejected by " (text(&d["reviewer"])) ": " (text(&d["reason"])) "." }
        },
        "WorkAssigned" => html! {
            p { (text(&d["steward"])) " took this Party's work on." }
        },
        "ContactRemoved" => html! {
            p { "Contact " (text(&d["contact_id"])) " withdrawn: " (text(&d["reason"])) "." }
        },
        "PrimaryDesignated" => html! {
            p { "Contact " (text(&d["contact_id"])) " became the primary competent authority." }
        },
        "AuthorityRegistered" => html! {
            p { "Registered with " (d["contacts"].as_array().map_or(0, Vec::len)) " contact(s); source: " (text(&d["source"])) "." }
        },
        _ => html! { pre { (serde_json::to_string_pretty(d).unwrap_or_default()) } },
    }
}

/// `POST /steward/party/{country_code}/assign`: "assign to me" (event
/// `WorkAssigned`; the worklist and this page show who is on it).
pub async fn assign(
    State(console): State<Handle>,
    signed: Signed,
    axum::extract::Path(country): axum::extract::Path<String>,
    headers: axum::http::HeaderMap,
    form: super::session::FormData,
) -> Response {
    use axum::response::IntoResponse;
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    let Ok(code) = CountryCode::parse(&country) else {
        return not_found();
    };
    let written = commands::authority::AuthorityCommands::new(&console.app.wiring.store)
        .assign(
            &code,
            signed.steward.id.clone(),
            &web::write::metadata(&signed.steward, &headers),
        )
        .await;
    match written {
        Ok(committed) => {
            super::check::settle(&console, committed.position).await;
            axum::response::Redirect::to(&format!("/steward/party/{code}")).into_response()
        }
        Err(commands::CommandError::Rejected(_)) => not_found(),
        Err(error) => {
            tracing::warn!(error = %error, "assignment not recorded");
            message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Not recorded",
                "The assignment was not recorded (the store is busy or unavailable). Try again.",
                ("/steward/worklist", "Back to the worklist"),
            )
        }
    }
}
