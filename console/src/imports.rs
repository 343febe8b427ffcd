//! Imports from the console: a steward uploads a `basel import` transfer
//! file (CSV or JSON, [`transfer`]) and sees the dry run, row
//! by row, then confirms to apply it.
//!
//! - `GET /steward/import`: the upload form;
//! - `POST /steward/import/preview` (at most [`IMPORT_BYTES`]): the file
//!   is read, checked and planned against the store exactly as
//!   `basel import --dry-run` does (`transfer::run::prepare`), nothing is
//!   written; the page lists each row's fate (registered, added, updated,
//!   unchanged, refused and why). The file is held in memory for the
//!   confirmation only, bound to the session (keyed by the SHA-256 of the
//!   session id), one a session, for at most an hour (`pending::HOLD`);
//! - `POST /steward/import`: takes the held file out (so a second
//!   confirmation finds nothing and writes nothing), checks and plans it
//!   again against the store as it is now, and writes it with
//!   `transfer::run::write`, attributed to the steward, or writes nothing
//!   if any row is refused now. With `BASEL_REVIEW=required` it proposes
//!   instead (`transfer::run::propose`): one proposal per Party, holding
//!   all its rows' changes in order, so they are approved or rejected
//!   together and each is decided on the record the ones before leave.

use std::time::Instant;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Utc;
use maud::{html, Markup};

use commands::authority::AuthorityCommands;
use domain::credentials::hash_secret;
use domain::values::CountryCode;

use super::html::{message, page, respond, Chrome};
use super::session::{FormData, Signed};
use crate::pending::Held;
use crate::state::{Console, Handle};
use transfer::plan::{Context, Plan, Status};
use transfer::read::{format_of_name, parse};

/// The largest file an import takes (the edge lets this route's body be
/// this size plus the form around it).
pub const IMPORT_BYTES: usize = 1024 * 1024;

/// The body limit of the preview route: the file and the form around it.
pub const IMPORT_FORM_BYTES: usize = IMPORT_BYTES + 64 * 1024;

fn upload_form(csrf: &str, problem: Option<&str>) -> Markup {
    html! {
        form method="post" enctype="multipart/form-data" action="/steward/import/preview" {
            input type="hidden" name="csrf" value=(csrf);
            label for="file" { "Transfer file (CSV or JSON as `basel export` writes it; at most 1 MiB)" }
            @if let Some(problem) = problem {
                input id="file" name="file" type="file" accept=".csv,.json" aria-invalid="true" aria-describedby="file-error";
                p id="file-error" class="error" role="alert" { (problem) }
            } @else {
                input id="file" name="file" type="file" accept=".csv,.json";
            }
            button type="submit" { "Preview the import (nothing is written)" }
        }
    }
}

async fn form_page(
    console: &Console,
    signed: &Signed,
    problem: Option<&str>,
    status: StatusCode,
) -> Response {
    let (Ok(form), Ok(out)) = (
        console.form_token(signed).await,
        console.form_token(signed).await,
    ) else {
        return super::evidence::unavailable();
    };
    let body = html! {
        h1 { "Import a transfer file" }
        p { "The file is checked row by row with the rules of " code { "basel import" } "; you see what each row would do before anything is written." }
        (upload_form(&form, problem))
    };
    respond(
        status,
        page("Import", Some(&Chrome::of(signed, &out)), &body),
    )
}

/// `GET /steward/import`.
pub async fn form(State(console): State<Handle>, signed: Signed) -> Response {
    form_page(&console, &signed, None, StatusCode::OK).await
}

fn status_name(status: Status, dry: bool) -> &'static str {
    match (status, dry) {
        (Status::Unchanged, _) => "unchanged",
        (Status::Updated, true) => "would be updated",
        (Status::Added, true) => "would be added",
        (Status::Registered, true) => "would be registered",
        (Status::Updated, false) => "updated",
        (Status::Added, false) => "added",
        (Status::Registered, false) => "registered",
        (Status::Refused, _) => "refused",
    }
}

/// The rows of `plans`, each with its fate and what changes (or why not).
fn rows_table(plans: &[(CountryCode, Plan)], problems: &[String], dry: bool) -> Markup {
    let mut rows: Vec<_> = plans.iter().flat_map(|(_, p)| &p.rows).collect();
    rows.sort_by_key(|r| r.row);
    html! {
        table {
            caption { "Each row of the file" }
            thead { tr { th scope="col" { "Row" } th scope="col" { "Party, contact" } th scope="col" { "Outcome" } th scope="col" { "What" } } }
            tbody {
                @for row in rows {
                    @let why: Vec<&String> = problems.iter().filter(|p| p.contains(&format!(": row {} ", row.row))).collect();
                    tr {
                        th scope="row" { (row.row) }
                        td { (row.label) }
                        td class=[(row.status == Status::Refused).then_some("error")] { (status_name(row.status, dry)) }
                        td {
                            @if why.is_empty() { (row.what.join(", ")) }
                            @else { ul { @for p in why { li { (p) } } } }
                        }
                    }
                }
            }
        }
        @if !problems.is_empty() {
            h2 { "Refused: " (problems.len()) " problem(s), each naming its row; nothing of the file is written while any remains" }
            ul { @for p in problems { li class="error" { (p) } } }
        }
    }
}

fn context<'a>(console: &Console, signed: &Signed, file: &'a str) -> Context<'a> {
    Context {
        file,
        steward: signed.steward.id.clone(),
        today: Utc::now().date_naive(),
        max_contacts: console.app.wiring.max_contacts,
    }
}

/// Checks and plans `text`, or says why the file cannot be read.
async fn prepare(
    console: &Console,
    signed: &Signed,
    file_name: &str,
    text: &str,
) -> Result<(Vec<(CountryCode, Plan)>, Vec<String>), String> {
    let format = file_name
        .rsplit_once('.')
        .and_then(|(_, ext)| format_of_name(ext))
        .ok_or("the file's name must end in .csv or .json")?;
    let rows = parse(file_name, text, format).map_err(|e| e.to_string())?;
    let commands = AuthorityCommands::new(&console.app.wiring.store);
    transfer::run::prepare(&commands, &context(console, signed, file_name), &rows)
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "console import not planned");
            "the store cannot be read right now; try again in a moment".to_owned()
        })
}

/// The uploaded file's name (without its folders) and text, or what is
/// wrong with it: missing, too large, or not UTF-8.
fn uploaded(form: &FormData) -> Result<(String, String), String> {
    let Some(upload) = form.files.first() else {
        return Err("choose a file".to_owned());
    };
    if upload.bytes.len() > IMPORT_BYTES {
        return Err(format!(
            "the file has {} bytes; an import takes at most {IMPORT_BYTES}",
            upload.bytes.len()
        ));
    }
    let Ok(text) = String::from_utf8(upload.bytes.to_vec()) else {
        return Err("the file is not UTF-8 text".to_owned());
    };
    let file_name = upload
        .file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or_default()
        .to_owned();
    Ok((file_name, text))
}

/// `POST /steward/import/preview`.
pub async fn preview(State(console): State<Handle>, signed: Signed, form: FormData) -> Response {
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    let (file_name, text) = match uploaded(&form) {
        Ok(upload) => upload,
        Err(problem) => return form_page(&console, &signed, Some(&problem), unprocessable).await,
    };
    let (plans, problems) = match prepare(&console, &signed, &file_name, &text).await {
        Ok(planned) => planned,
        Err(problem) => return form_page(&console, &signed, Some(&problem), unprocessable).await,
    };
    let (Ok(confirm), Ok(again), Ok(out)) = (
        console.form_token(&signed).await,
        console.form_token(&signed).await,
        console.form_token(&signed).await,
    ) else {
        return super::evidence::unavailable();
    };
    let writes = plans.iter().any(|(_, p)| !p.steps.is_empty());
    let digest = hash_secret(&text);
    if problems.is_empty() && writes {
        console.imports.hold(
            &signed.session,
            Held {
                file_name: file_name.clone(),
                text,
                digest: digest.clone(),
                since: Instant::now(),
            },
        );
    }
    let title = format!("Dry run of {file_name}");
    let body = html! {
        h1 { (title) }
        p role="status" { "Nothing is written yet." }
        (rows_table(&plans, &problems, true))
        @if !problems.is_empty() {
            p role="alert" { "Correct the file and upload it again." }
        } @else if !writes {
            p role="status" { "Every row equals the directory: there is nothing to import." }
        } @else {
            form method="post" action="/steward/import" {
                input type="hidden" name="csrf" value=(confirm);
                input type="hidden" name="sha256" value=(digest);
                @if console.app.review {
                    p role="note" { "Four-eyes review is on: confirming proposes each Party's changes as one proposal; another steward approves them in the "
                        a href="/steward/reviews" { "review queue" } ". A Party not yet in the directory is registered at once." }
                    button type="submit" { "Propose the import of " (file_name) }
                } @else {
                    button type="submit" { "Import " (file_name) }
                }
            }
        }
        h2 { "Or upload another file" }
        (upload_form(&again, None))
    };
    let status = if problems.is_empty() {
        StatusCode::OK
    } else {
        unprocessable
    };
    respond(
        status,
        page(&title, Some(&Chrome::of(&signed, &out)), &body),
    )
}

/// The answer to an import under four-eyes review: one proposal per Party
/// (a new Party is registered at once), each linked in the review queue.
fn proposed_page(
    signed: &Signed,
    file_name: &str,
    plans: &[(CountryCode, Plan)],
    proposed: &transfer::run::Proposed,
    out: &str,
) -> Response {
    let title = format!("Proposed {file_name}");
    let body = html! {
        h1 { (title) }
        p role="status" { "Four-eyes review is on: " (proposed.proposals.len())
            " proposal(s) made, one per Party. Nothing of them is recorded until another steward approves it in the "
            a href="/steward/reviews" { "review queue" } "." }
        ul { @for line in &proposed.proposals {
            @let id = line.rsplit(' ').next().unwrap_or_default();
            li { a href=(format!("/steward/reviews#proposal-{id}")) { (line) } }
        } }
        @if !proposed.failed.is_empty() {
            p role="alert" class="error" { (proposed.failed.len()) " Party(ies) could not be proposed (the store changed meanwhile):" }
            ul { @for f in &proposed.failed { li { (f) } } }
        }
        (rows_table(plans, &[], true))
        p { a href="/steward/worklist" { "Back to the worklist" } }
    };
    let status = if proposed.failed.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::CONFLICT
    };
    respond(status, page(&title, Some(&Chrome::of(signed, out)), &body))
}

/// `POST /steward/import`.
pub async fn commit(State(console): State<Handle>, signed: Signed, form: FormData) -> Response {
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    let Some(held) = console.imports.take(&signed.session, &form.text("sha256")) else {
        return message(
            StatusCode::CONFLICT,
            "Nothing to import",
            "This import was applied already, replaced by another preview, or waited too long. Nothing was written. Upload the file again to see what it would do now.",
            ("/steward/import", "Import a file"),
        );
    };
    let (plans, problems) = match prepare(&console, &signed, &held.file_name, &held.text).await {
        Ok(planned) => planned,
        Err(problem) => {
            return message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Nothing imported",
                &problem,
                ("/steward/import", "Import a file"),
            )
        }
    };
    let Ok(out) = console.form_token(&signed).await else {
        return super::evidence::unavailable();
    };
    if !problems.is_empty() {
        let body = html! {
            h1 { "Nothing imported from " (held.file_name) }
            p role="alert" { "The directory changed since the dry run, and the file is refused now:" }
            (rows_table(&plans, &problems, true))
        };
        return respond(
            StatusCode::CONFLICT,
            page("Nothing imported", Some(&Chrome::of(&signed, &out)), &body),
        );
    }
    let commands = AuthorityCommands::new(&console.app.wiring.store);
    let ctx = context(&console, &signed, &held.file_name);
    if console.app.review {
        let proposed = transfer::run::propose(&commands, &ctx, uuid::Uuid::new_v4(), &plans).await;
        if let Ok(head) = console.app.wiring.store.max_position().await {
            super::check::settle(&console, head).await;
        }
        return proposed_page(&signed, &held.file_name, &plans, &proposed, &out);
    }
    let failed = transfer::run::write(&commands, &ctx, uuid::Uuid::new_v4(), &plans).await;
    if let Ok(head) = console.app.wiring.store.max_position().await {
        super::check::settle(&console, head).await;
    }
    let title = format!("Imported {}", held.file_name);
    let body = html! {
        h1 { (title) }
        @if !failed.is_empty() {
            p role="alert" class="error" { "Imported in part: " (failed.len()) " row(s) failed while writing (the store changed meanwhile):" }
            ul { @for f in &failed { li { (f) } } }
        }
        (rows_table(&plans, &[], false))
        p { a href="/steward/worklist" { "Back to the worklist" } }
    };
    let status = if failed.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::CONFLICT
    };
    respond(
        status,
        page(&title, Some(&Chrome::of(&signed, &out)), &body),
    )
}
