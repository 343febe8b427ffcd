//! Evidence files of checks: taken from the check form (at most
//! [`MAX_FILE_BYTES`] each), typed by their content
//! (`domain::authority::Evidence::sniff`: PDF, e-mail, PNG, JPEG, GIF; the
//! name is never trusted), stored content-addressed in the store
//! (`commands::console`, key = SHA-256), referenced by that hash from an
//! `EvidenceAttached` event, and served by `GET /steward/evidence/{sha256}`
//! only to a signed-in steward, always as a download
//! (`Content-Disposition: attachment`, a sandboxing CSP), never inline.

use axum::extract::{Path, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_SECURITY_POLICY, CONTENT_TYPE,
};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use domain::authority::Evidence;

use super::html::message;
use super::session::{now, Signed, Upload};
use crate::state::{Console, Handle};

/// The largest evidence file accepted.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// The largest check form with its files (the edge's body limit on the
/// preview route).
pub const MAX_FORM_BYTES: usize = 8 * 1024 * 1024;

/// A file reference as a form carries it between preview and commit:
/// `sha256|file name`.
pub fn hidden_value(file: &Evidence) -> String {
    format!("{}|{}", file.sha256, file.file_name)
}

/// Why files were not taken.
#[derive(Debug)]
pub enum FileProblem {
    /// One sentence per refused file or reference (shown next to the field).
    Refused(Vec<String>),
    /// The store failed (logged): the 503 page, [`unavailable`].
    Store,
}

/// Checks and stores the files of a form; the references, or one sentence
/// per refused file.
///
/// # Errors
/// The refusals (size, type), or the 503 page when the store fails.
pub async fn store(console: &Console, uploads: &[Upload]) -> Result<Vec<Evidence>, FileProblem> {
    let mut refusals = Vec::new();
    let mut typed = Vec::new();
    for upload in uploads {
        let name = upload.file_name.trim();
        if upload.bytes.len() > MAX_FILE_BYTES {
            refusals.push(format!(
                "{name}: {} bytes, over the limit of {} MiB",
                upload.bytes.len(),
                MAX_FILE_BYTES / (1024 * 1024)
            ));
            continue;
        }
        match Evidence::sniff(&upload.bytes) {
            Some(media_type) => typed.push((upload, media_type)),
            None => refusals.push(format!(
                "{name}: not a PDF, e-mail (.eml), PNG, JPEG or GIF by its content"
            )),
        }
    }
    if !refusals.is_empty() {
        return Err(FileProblem::Refused(refusals));
    }
    let mut stored = Vec::with_capacity(typed.len());
    for (upload, media_type) in typed {
        let sha256 = console
            .sessions
            .put_evidence(&upload.bytes, media_type, now())
            .await
            .map_err(|error| {
                tracing::warn!(error = %error, "evidence not stored");
                FileProblem::Store
            })?;
        stored.push(Evidence {
            sha256,
            media_type: media_type.to_owned(),
            file_name: upload.file_name.trim().to_owned(),
            size: upload.bytes.len() as u64,
        });
    }
    Ok(stored)
}

/// The files a form refers to (`evidence` fields, `sha256|name`), each read
/// back from the store (type and size from there, not from the form).
///
/// # Errors
/// One sentence per reference that is malformed or names no stored file;
/// the 503 page when the store fails.
pub async fn referenced(console: &Console, values: &[&str]) -> Result<Vec<Evidence>, FileProblem> {
    let mut found = Vec::new();
    let mut refusals = Vec::new();
    for value in values.iter().filter(|v| !v.is_empty()) {
        let Some((sha256, file_name)) = value.split_once('|') else {
            refusals.push("a file reference is malformed: attach the file again".to_owned());
            continue;
        };
        match console.sessions.evidence(sha256).await {
            Ok(Some((media_type, bytes))) => found.push(Evidence {
                sha256: sha256.to_owned(),
                media_type,
                file_name: file_name.to_owned(),
                size: bytes.len() as u64,
            }),
            Ok(None) => refusals.push(format!("{file_name}: no such stored file: attach it again")),
            Err(error) => {
                tracing::warn!(error = %error, "evidence unreadable");
                return Err(FileProblem::Store);
            }
        }
    }
    if refusals.is_empty() {
        Ok(found)
    } else {
        Err(FileProblem::Refused(refusals))
    }
}

/// The page when files cannot be stored or read.
pub fn unavailable() -> Response {
    message(
        StatusCode::SERVICE_UNAVAILABLE,
        "The store is unavailable",
        "The files could not be stored or read; nothing was recorded. Try again in a moment.",
        ("/steward/worklist", "Back to the worklist"),
    )
}

fn extension(media_type: &str) -> &'static str {
    match media_type {
        "application/pdf" => "pdf",
        "message/rfc822" => "eml",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        _ => "bin",
    }
}

/// `GET /steward/evidence/{sha256}`: the file, as a download, to a
/// signed-in steward only (no session: to the sign-in page; API keys and
/// steward bearer tokens are not sessions).
pub async fn download(
    State(console): State<Handle>,
    _signed: Signed,
    Path(sha256): Path<String>,
) -> Response {
    let missing = || {
        message(
            StatusCode::NOT_FOUND,
            "No such file",
            "No evidence file has this SHA-256.",
            ("/steward/worklist", "Back to the worklist"),
        )
    };
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return missing();
    }
    let (media_type, bytes) = match console
        .sessions
        .evidence(&sha256.to_ascii_lowercase())
        .await
    {
        Ok(Some(file)) => file,
        Ok(None) => return missing(),
        Err(error) => {
            tracing::warn!(error = %error, "evidence unreadable");
            return unavailable();
        }
    };
    let disposition = format!(
        "attachment; filename=\"evidence-{}.{}\"",
        &sha256[..16],
        extension(&media_type)
    );
    let mut response = (StatusCode::OK, bytes).into_response();
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_str(&media_type)
            .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream")),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(CONTENT_DISPOSITION, value);
    }
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox; default-src 'none'"),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store, private"));
    response
}
