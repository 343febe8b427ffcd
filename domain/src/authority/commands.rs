//! What may be asked of an [`Authority`](super::Authority).

use chrono::NaiveDate;

use super::contact::ContactPatch;
use super::details::ContactInput;
use super::party::VerificationMethod;
use super::party::{CheckOutcome, Role, RoleBasis, SourceRef};
use crate::values::{CountryCode, Slug};

/// A command for the `Authority` aggregate.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthorityCommand {
    /// Add a country's competent authority to the directory.
    Register(RegisterAuthority),
    /// Record that a steward checked the record, with any corrections.
    SubmitVerification(SubmitVerificationUpdate),
    /// Add a contact to the Party.
    AddContact(AddContact),
    /// Withdraw a contact, with a reason.
    RemoveContact(RemoveContact),
    /// Make a competent authority the primary one.
    DesignatePrimary(DesignatePrimary),
    /// Retire a record created in error (of a code that is not a Party).
    Retire(RetireAuthority),
    /// A check with the files that back it (the steward console): the
    /// check's events, then one `EvidenceAttached` per file, in one commit.
    SubmitVerificationWithEvidence(SubmitVerificationUpdate, Vec<Evidence>),
    /// Propose, approve or reject a check under four-eyes review.
    Review(super::review::ReviewCommand),
    /// A steward takes the Party's work on.
    Assign(Slug),
}

/// A file backing a check, already stored content-addressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// SHA-256 of its bytes, lower-case hex.
    pub sha256: String,
    /// The type read from its content.
    pub media_type: String,
    /// Its name as sent.
    pub file_name: String,
    /// Its size in bytes.
    pub size: u64,
}

impl Evidence {
    /// The types a file of evidence may have (read from the content).
    pub const MEDIA_TYPES: [&'static str; 5] = [
        "application/pdf",
        "message/rfc822",
        "image/png",
        "image/jpeg",
        "image/gif",
    ];

    /// The type of a file read from its first bytes, never from its name:
    /// PDF (`%PDF-`), PNG, JPEG, GIF by their signatures; an e-mail
    /// (`.eml`) is UTF-8 text without NUL whose first line is a header
    /// field and whose header has `From:`. `None`: not a type evidence may
    /// have.
    pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
        if bytes.starts_with(b"%PDF-") {
            Some("application/pdf")
        } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some("image/png")
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some("image/jpeg")
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some("image/gif")
        } else if Self::looks_like_mail(bytes) {
            Some("message/rfc822")
        } else {
            None
        }
    }

    fn looks_like_mail(bytes: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return false;
        };
        if text.contains('\0') {
            return false;
        }
        let header = text.split("\r\n\r\n").next().unwrap_or_default();
        let header = header.split("\n\n").next().unwrap_or_default();
        let is_field = |line: &str| {
            line.split_once(':').is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
        };
        header.lines().next().is_some_and(is_field)
            && header
                .lines()
                .any(|l| l.to_ascii_lowercase().starts_with("from:"))
    }
}

/// Retires a record created in error: it leaves lists, coverage and MCP;
/// its history stays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetireAuthority {
    /// Why (required).
    pub reason: String,
    /// The steward retiring it, if a steward does.
    pub steward: Option<Slug>,
}

/// A contact to add, as text before validation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewContact {
    /// Its id; the next free `cN` when `None`.
    pub id: Option<String>,
    /// Competent authority (`None` means that) or focal point.
    pub role: Option<Role>,
    /// Name, person, channels, address, scope, source notes.
    pub details: ContactInput,
    /// Where the details come from.
    pub source: Option<String>,
    /// Whether they are verified (needs name, e-mail, phone and `last_checked`).
    pub verified: bool,
    /// When they were last checked against their source.
    pub last_checked: Option<NaiveDate>,
    /// Whether it becomes the primary competent authority.
    pub primary: bool,
    /// What its last check found, when it arrives with a history (an import
    /// of another store's export); `None` for a contact never checked.
    pub outcome: Option<CheckOutcome>,
    /// The day of its last check that reached nobody, with that history.
    pub last_attempt: Option<NaiveDate>,
    /// The public sources its details were copied from, newest first.
    pub sources: Vec<SourceRef>,
    /// A competent authority that is also the focal point.
    pub also_focal_point: bool,
    /// How sure its source is of its role.
    pub role_basis: Option<RoleBasis>,
}

/// The default of [`AddContact::max_contacts`].
pub const DEFAULT_MAX_CONTACTS: usize = 100;

/// Adds a contact to a registered Party.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddContact {
    /// The contact.
    pub contact: NewContact,
    /// The most contacts a Party may hold (a deployment's setting,
    /// `BASEL_MAX_CONTACTS_PER_PARTY`, default [`DEFAULT_MAX_CONTACTS`]):
    /// one more is refused, so no record grows without bound.
    pub max_contacts: usize,
    /// The steward adding it.
    pub steward: Option<Slug>,
    /// Today's date by the caller's clock.
    pub today: NaiveDate,
}

/// Withdraws a contact; its history stays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoveContact {
    /// The contact's id.
    pub contact_id: String,
    /// Why (required).
    pub reason: String,
    /// The steward withdrawing it.
    pub steward: Option<Slug>,
}

/// Makes a competent authority the Party's primary one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesignatePrimary {
    /// The contact's id.
    pub contact_id: String,
    /// The steward.
    pub steward: Option<Slug>,
}

/// Registers a country's authority with what is known of it.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisterAuthority {
    /// The country (also the aggregate id).
    pub country: CountryCode,
    /// The country's name in English.
    pub country_name: String,
    /// Contact details known at registration; any may be missing.
    pub contact: ContactInput,
    /// Whether the details are verified from the start (needs the required fields and `last_checked`).
    pub verified: bool,
    /// When the details were last checked against their source.
    pub last_checked: Option<NaiveDate>,
    /// Where the details come from.
    pub source: Option<String>,
    /// Further contacts (an import of a Party with several).
    pub contacts: Vec<NewContact>,
    /// The steward registering it, if any.
    pub steward: Option<Slug>,
    /// Today's date by the caller's clock, to refuse checks in the future.
    pub today: NaiveDate,
}

/// A steward's check of a record. A check that confirms unchanged data is
/// still recorded: auditors need "verified unchanged on date X".
#[derive(Debug, Clone, PartialEq)]
pub struct SubmitVerificationUpdate {
    /// The contact checked; the primary competent authority when `None`.
    pub contact_id: Option<String>,
    /// What the check found; `changed` when it brings corrections and
    /// `confirmed` otherwise, when `None`.
    pub outcome: Option<CheckOutcome>,
    /// Whether the record is verified after this check.
    pub verified: bool,
    /// The day the check was made.
    pub checked_on: NaiveDate,
    /// How it was checked.
    pub method: VerificationMethod,
    /// What it was checked against (a URL, a letter's reference…).
    pub source: String,
    /// The steward's note.
    pub note: Option<String>,
    /// Corrections to the contact details.
    pub changes: ContactPatch,
    /// The steward who checked it.
    pub steward: Option<Slug>,
    /// Today's date by the caller's clock.
    pub today: NaiveDate,
}
