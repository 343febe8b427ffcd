//! Four-eyes review (`BASEL_REVIEW=required`): with it on, every steward
//! change — the check form, the contact forms (add, withdraw, make
//! primary), an import — proposes instead of recording (`ChangeProposed`).
//! `GET /steward/reviews` lists the open proposals of every Party, each
//! kind with its diff; another steward approves one
//! (`POST /steward/party/{cc}/proposals/{id}/approve`: the change is
//! recorded, attributed to its author, after `ProposalApproved` naming the
//! approver) or rejects it with a reason (`…/reject`). The domain refuses
//! an author approving their own proposal and a proposal made stale by a
//! later change of the record.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use maud::{html, Markup};

use commands::authority::AuthorityCommands;
use commands::CommandError;
use domain::authority::{AuthorityError, FieldChange, ProposedChange, ReviewCommand};
use domain::values::CountryCode;

use super::html::{message, page, respond, Chrome};
use super::session::{FormData, Signed};
use crate::state::Handle;

fn value(v: Option<&String>) -> &str {
    v.map_or("(empty)", String::as_str)
}

/// A proposal's kind as a heading names it.
pub fn kind_title(change: &ProposedChange) -> String {
    let contact = change.contact_id().unwrap_or("(the Party)");
    match change {
        ProposedChange::Check(_) => format!("a check of contact {contact}"),
        ProposedChange::AddContact(_) => format!("add contact {contact}"),
        ProposedChange::RemoveContact(_) => format!("withdraw contact {contact}"),
        ProposedChange::DesignatePrimary(_) => format!("make contact {contact} primary"),
        ProposedChange::Retire(_) => "retire the record".to_owned(),
        ProposedChange::Batch(parts) => format!("{} changes together (an import)", parts.len()),
    }
}

/// What a proposal would do: its kind's details, then the field diff
/// (old → new) as of when it was proposed. The queue, the Party page and
/// the timeline show proposals with this.
pub fn change_markup(change: &ProposedChange, changes: &[FieldChange]) -> Markup {
    html! {
        p class="proposal-kind" { "Proposed: " (change.summary()) "." }
        @if let ProposedChange::Check(check) = change {
            p { "Outcome " (check.outcome.map_or("(from the corrections)", |o| o.as_str()))
                ", verified " (if check.verified { "yes" } else { "no" })
                ", checked on " (check.checked_on) " by " (check.method.as_str())
                ", evidence: " (check.source)
                @if let Some(note) = &check.note { ", note: " (note) } "." }
            @if !check.evidence.is_empty() {
                ul { @for e in &check.evidence {
                    li { a href=(format!("/steward/evidence/{}", e.sha256)) { (e.file_name) } " (" (e.media_type) ", " (e.size) " bytes)" }
                } }
            }
        }
        @if let ProposedChange::DesignatePrimary(p) = change {
            table {
                caption { "Primary competent authority" }
                thead { tr { th scope="col" { "Old" } th scope="col" { "New" } } }
                tbody { tr { td class="old" { (p.old_primary.as_deref().unwrap_or("(none)")) } td class="new" { (p.contact_id) } } }
            }
        }
        @if changes.is_empty() {
            p { "No field changes." }
        } @else {
            table {
                caption { "Changes proposed" }
                thead { tr { th scope="col" { "Field" } th scope="col" { "Old" } th scope="col" { "New" } } }
                tbody { @for c in changes {
                    tr { th scope="row" { (c.field.name()) } td class="old" { (value(c.old.as_ref())) } td class="new" { (value(c.new.as_ref())) } }
                } }
            }
        }
    }
}

/// `GET /steward/reviews`: the open proposals, oldest Party first.
pub async fn queue(State(console): State<Handle>, signed: Signed) -> Response {
    let rows = match projections::directory::Reader::new(console.app.read_db().clone())
        .all()
        .await
    {
        Ok(rows) => rows,
        Err(error) => {
            tracing::warn!(error = %error, "directory unreadable");
            return message(
                StatusCode::SERVICE_UNAVAILABLE,
                "The directory is unavailable",
                "The review queue cannot be read right now.",
                ("/steward/reviews", "Reload"),
            );
        }
    };
    let open: Vec<_> = rows
        .iter()
        .flat_map(|row| row.state.proposals.iter().map(move |p| (row, p)))
        .collect();
    let mut tokens = Vec::with_capacity(open.len() * 2 + 1);
    for _ in 0..=open.len() * 2 {
        match console.form_token(&signed).await {
            Ok(token) => tokens.push(token),
            Err(response) => return response,
        }
    }
    let me = signed.steward.id.as_str();
    let body = html! {
        h1 { "Review queue" }
        @if !console.app.review { p role="status" { "Four-eyes review is off (BASEL_REVIEW=off): changes are recorded at once." } }
        p role="status" { (open.len()) " proposal(s) await review." }
        @for (i, (row, proposal)) in open.iter().enumerate() {
            section aria-labelledby=(format!("proposal-{}", proposal.id)) {
                h2 id=(format!("proposal-{}", proposal.id)) {
                    a href=(format!("/steward/party/{}", row.country_code)) { (row.country_name) " (" (row.country_code) ")" }
                    ": " (kind_title(&proposal.change)) " by " (proposal.proposer.as_str())
                }
                @if proposal.stale {
                    p class="error" role="alert" { "Stale: the record changed after this proposal was made. It cannot be approved; reject it, and its author proposes the change again." }
                }
                (change_markup(&proposal.change, &proposal.changes))
                @let action = format!("/steward/party/{}/proposals/{}", row.country_code, proposal.id);
                @if proposal.proposer.as_str() == me {
                    p { "Your proposal: another steward must approve it." }
                } @else if !proposal.stale {
                    form method="post" action=(format!("{action}/approve")) {
                        input type="hidden" name="csrf" value=(tokens[2 * i]);
                        button type="submit" { "Approve and record this change" }
                    }
                }
                form method="post" action=(format!("{action}/reject")) {
                    input type="hidden" name="csrf" value=(tokens[2 * i + 1]);
                    label for=(format!("reason-{}", proposal.id)) { "Reason for rejecting" }
                    input id=(format!("reason-{}", proposal.id)) name="reason" type="text" required;
                    button type="submit" { "Reject" }
                }
            }
        }
    };
    let chrome = Chrome {
        name: &signed.steward.name,
        csrf: &tokens[open.len() * 2],
    };
    respond(StatusCode::OK, page("Review queue", Some(&chrome), &body))
}

/// `POST /steward/party/{cc}/proposals/{id}/approve`.
pub async fn approve(
    State(console): State<Handle>,
    signed: Signed,
    Path((country, proposal_id)): Path<(String, String)>,
    headers: HeaderMap,
    form: FormData,
) -> Response {
    let command = ReviewCommand::Approve {
        proposal_id,
        approver: signed.steward.id.clone(),
        today: Utc::now().date_naive(),
    };
    decide(&console, &signed, &country, command, &headers, &form).await
}

/// `POST /steward/party/{cc}/proposals/{id}/reject` (`reason`).
pub async fn reject(
    State(console): State<Handle>,
    signed: Signed,
    Path((country, proposal_id)): Path<(String, String)>,
    headers: HeaderMap,
    form: FormData,
) -> Response {
    let command = ReviewCommand::Reject {
        proposal_id,
        reviewer: signed.steward.id.clone(),
        reason: form.text("reason"),
    };
    decide(&console, &signed, &country, command, &headers, &form).await
}

async fn decide(
    console: &crate::state::Console,
    signed: &Signed,
    country: &str,
    command: ReviewCommand,
    headers: &HeaderMap,
    form: &FormData,
) -> Response {
    if let Err(refused) = console.spend(signed, form.get("csrf")).await {
        return refused;
    }
    let back = ("/steward/reviews", "Back to the review queue");
    let Ok(code) = CountryCode::parse(country) else {
        return message(
            StatusCode::NOT_FOUND,
            "No such Party",
            "The directory holds no record of this country code.",
            back,
        );
    };
    let approving = matches!(command, ReviewCommand::Approve { .. });
    let written = AuthorityCommands::new(&console.app.wiring.store)
        .review(
            &code,
            command,
            &web::write::metadata(&signed.steward, headers),
            None,
        )
        .await;
    match written {
        Ok(committed) => {
            super::check::settle(console, committed.position).await;
            let to = if approving {
                format!("/steward/party/{code}#history")
            } else {
                "/steward/reviews".to_owned()
            };
            Redirect::to(&to).into_response()
        }
        Err(error) => not_decided(error),
    }
}

/// Why a review decision was not recorded, as the page a steward reads.
fn not_decided(error: CommandError<AuthorityError>) -> Response {
    let back = ("/steward/reviews", "Back to the review queue");
    match error {
    CommandError::Rejected(AuthorityError::OwnProposal) => message(
        StatusCode::FORBIDDEN,
        "You cannot approve your own proposal",
        "Four-eyes review: another steward must approve it. Nothing was recorded.",
        back,
    ),
    CommandError::Rejected(AuthorityError::StaleProposal) => message(
        StatusCode::CONFLICT,
        "This proposal is stale",
        "The record changed after it was proposed; nothing was recorded. Reject it, and its author proposes the change again on the record as it is now.",
        back,
    ),
    CommandError::Rejected(AuthorityError::UnknownProposal(_)) => message(
        StatusCode::NOT_FOUND,
        "No such open proposal",
        "It was approved or rejected already; nothing was recorded.",
        back,
    ),
    CommandError::Rejected(AuthorityError::Invalid(problems)) => message(
        StatusCode::UNPROCESSABLE_ENTITY,
        "This cannot be done",
        &problems
            .iter()
            .map(|p| format!("{}: {}", p.field, p.message))
            .collect::<Vec<_>>()
            .join("; "),
        back,
    ),
    CommandError::Rejected(other) => {
        message(StatusCode::CONFLICT, "This cannot be done", &other.to_string(), back)
    }
    CommandError::VersionMismatch { .. } | CommandError::Conflict | CommandError::IdempotencyKeyReused => message(
        StatusCode::CONFLICT,
        "Another write came first",
        "The record changed while this was decided; nothing was recorded. Open the queue again.",
        back,
    ),
    CommandError::Infrastructure(cause) => {
        tracing::warn!(error = %cause, "console review not recorded");
        message(
            StatusCode::SERVICE_UNAVAILABLE,
            "The store is unavailable",
            "Nothing was recorded. Try again in a moment.",
            back,
        )
    }
    }
}
