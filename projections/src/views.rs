//! The shapes clients see, built from read rows: one definition shared by the
//! REST API and the MCP server, so both return the same JSON for a record.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::directory::AuthorityRow;
use crate::history::HistoryRow;

/// Days after which a record's last check counts as stale, unless configured.
pub const DEFAULT_STALE_AFTER_DAYS: i64 = 365;

/// How a record's last check was made and by whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Provenance {
    /// `email`, `phone`, `website`, `official_notification`, `other`; absent
    /// for records never checked by a steward (seeded or imported as they were).
    pub method: Option<String>,
    /// The steward who made the last check (id only; e-mails are never shown).
    pub steward: Option<String>,
    /// The steward's note on it.
    pub note: Option<String>,
    /// When the record last changed (RFC 3339).
    pub recorded_at: String,
}

/// One country's competent-authority record, as `GET /api/v1/ca/{cc}` and the
/// MCP `get_competent_authority` tool return it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Record {
    /// ISO 3166-1 alpha-2, upper case.
    pub country_code: String,
    /// The country's name.
    pub country_name: String,
    /// The competent authority's name.
    pub ca_name: Option<String>,
    /// Its e-mail address.
    pub email: Option<String>,
    /// Its phone number (`+CC-…`).
    pub phone: Option<String>,
    /// Its postal address.
    pub address: Option<String>,
    /// Whether a steward (or the source) verified the contact details.
    pub verified: bool,
    /// Date of the last check, `YYYY-MM-DD`.
    pub last_checked: Option<String>,
    /// The same as `email` (the name some clients know it by).
    pub email_primary: Option<String>,
    /// The same as `last_checked` (the name some clients know it by).
    pub last_verified_date: Option<String>,
    /// Notes shown with the record.
    pub notes: Option<String>,
    /// What the last check (or the registration) relied on.
    pub source: Option<String>,
    /// How and by whom the last check was made.
    pub provenance: Provenance,
    /// Whether what is known of the primary competent authority is older
    /// than the staleness bound (its sources' dates and its last verified
    /// check), or unknown, or there is none.
    pub stale: bool,
    /// The record's version: the number of events applied to it.
    pub version: i64,
    /// The day of the last check of the primary authority that reached
    /// nobody or found it defunct (it does not move `last_checked`); without
    /// a competent authority, the last check of the Party's record.
    pub last_attempt: Option<String>,
    /// Every contact of the Party: its competent authorities (the primary
    /// one first) and its focal point.
    pub contacts: Vec<ContactView>,
    /// The Party: how and when it became one, Annex VII membership and
    /// Ban Amendment acceptance (absent for a record of a code the
    /// registry does not hold as a Party).
    pub party: Option<domain::parties::Party>,
    /// With `area` and/or `movement` asked: the competent authorities for
    /// them, most specific first, each with the reason (null otherwise).
    pub competent: Option<Vec<crate::scope::Competent>>,
    /// Why the record was retired (created in error), once it is; a retired
    /// record is not served by lookups (null otherwise).
    pub retired: Option<String>,
}

impl Record {
    /// The record for `row`, judged stale against `today`.
    pub fn new(row: AuthorityRow, today: NaiveDate, stale_after_days: i64) -> Self {
        let stale = row
            .state
            .primary_contact()
            .is_none_or(|c| crate::contacts::stale(c, today, stale_after_days));
        let party = domain::parties::registry()
            .party(&row.country_code)
            .cloned();
        let contacts = crate::contacts::views(&row.state, today, stale_after_days);
        let last_attempt = match row.state.primary_contact() {
            Some(primary) => primary.provenance.last_attempt,
            None => row.state.last_attempt,
        }
        .map(|d| d.to_string());
        Self {
            contacts,
            last_attempt,
            email_primary: row.email.clone(),
            last_verified_date: row.last_checked.clone(),
            country_code: row.country_code,
            country_name: party.as_ref().map_or(row.country_name, |p| p.name.clone()),
            party,
            competent: None,
            retired: row.state.retired.clone(),
            ca_name: row.ca_name,
            email: row.email,
            phone: row.phone,
            address: row.address,
            verified: row.verified,
            last_checked: row.last_checked,
            notes: row.notes,
            source: row.source,
            provenance: Provenance {
                method: row.source_method,
                steward: row.source_steward,
                note: row.source_note,
                recorded_at: row.updated_at,
            },
            stale,
            version: row.version,
        }
    }
}

/// One entry of the directory list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ListItem {
    /// ISO alpha-2.
    pub country_code: String,
    /// The country's name.
    pub country_name: String,
    /// The primary competent authority's name.
    pub ca_name: Option<String>,
    /// How many contacts the Party has (authorities and focal point).
    pub contacts_count: i64,
    /// Whether a competent authority is known (not only a focal point).
    pub has_competent_authority: bool,
}

impl From<&AuthorityRow> for ListItem {
    fn from(row: &AuthorityRow) -> Self {
        Self {
            country_code: row.country_code.clone(),
            country_name: row.country_name.clone(),
            ca_name: row.ca_name.clone(),
            contacts_count: i64::try_from(row.state.contacts.len()).unwrap_or(i64::MAX),
            has_competent_authority: row.state.primary.is_some(),
        }
    }
}

pub use crate::contacts::{ContactProvenanceView, ContactView, RetiredView, ScopeView};

/// A steward as auditors see them: id and name, never the e-mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct StewardRef {
    /// The steward's id.
    pub id: String,
    /// Their name (absent if the steward is unknown to the read side).
    pub name: Option<String>,
}

/// One entry of a record's history, flattened for clients: the common
/// fields, then what the event recorded (`changes`, or the verification's
/// fields, or the registered contact), with the steward by id and name.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HistoryItem {
    /// The event's sequence within the record (its version after the event).
    pub sequence: i64,
    /// `AuthorityRegistered`, `ContactDetailsChanged` or `VerificationRecorded`.
    pub event_type: String,
    /// When it was recorded (RFC 3339).
    pub recorded_at: String,
    /// Who caused it: `steward:<id>`, `system:seed`, `system:import`, ….
    pub actor: String,
    /// The request that carried it.
    pub request_id: String,
    /// Its position in the log.
    pub position: i64,
    /// The record's country, in the changes feed (absent in a record's own
    /// history).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
    /// The steward who made a check, by id and name (never e-mail).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steward: Option<StewardRef>,
    /// What the event recorded: `changes` (field → `{old, new}`), or the
    /// verification's `verified`, `checked_on`, `method`, `source`, `note`,
    /// or the registered contact.
    #[serde(flatten)]
    pub details: Map<String, Value>,
}

/// A record's history, oldest first (`GET /api/v1/ca/{cc}/history` and the
/// MCP tool `get_authority_history`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct History {
    /// ISO alpha-2.
    pub country_code: String,
    /// The events of the record on this page, oldest first.
    pub items: Vec<HistoryItem>,
    /// What to pass as `after` for the next page: the last entry's
    /// `sequence` (or `after` itself when the page is empty).
    pub next: i64,
    /// Whether more entries follow this page.
    pub has_more: bool,
}

impl History {
    /// The page of `country_code` holding `items` (read after `after`).
    pub fn page(country_code: &str, after: i64, items: Vec<HistoryItem>, has_more: bool) -> Self {
        Self {
            country_code: country_code.to_owned(),
            next: items.last().map_or(after, |item| item.sequence),
            items,
            has_more,
        }
    }
}

/// One history entry for clients, with the steward's name when known.
pub fn history_item(row: &HistoryRow, steward_name: Option<&str>) -> HistoryItem {
    let mut details = row.details.as_object().cloned().unwrap_or_default();
    let steward = match details.remove("steward") {
        Some(Value::String(id)) => Some(StewardRef {
            id,
            name: steward_name.map(str::to_owned),
        }),
        _ => None,
    };
    for key in [
        "sequence",
        "event_type",
        "recorded_at",
        "actor",
        "request_id",
        "position",
        "country_code",
    ] {
        details.remove(key);
    }
    HistoryItem {
        sequence: row.sequence,
        event_type: row.event_type.clone(),
        recorded_at: row.recorded_at.clone(),
        actor: row.actor.clone(),
        request_id: row.request_id.clone(),
        position: row.position,
        country_code: None,
        steward,
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(last_checked: Option<&str>) -> AuthorityRow {
        AuthorityRow {
            country_code: "FR".into(),
            country_name: "France".into(),
            ca_name: Some("Ministry".into()),
            email: Some("ca@example.fr".into()),
            phone: None,
            address: None,
            notes: None,
            verified: true,
            last_checked: last_checked.map(str::to_owned),
            source: Some("letter".into()),
            source_method: Some("email".into()),
            source_steward: Some("ana".into()),
            source_note: None,
            version: 3,
            position: 40,
            updated_at: "2026-01-02T00:00:00Z".into(),
            state: domain::authority::Authority::default(),
        }
    }

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn with_primary(source_date: Option<&str>, last_checked: Option<&str>) -> AuthorityRow {
        use domain::authority::{
            Authority, Contact, ContactProvenance, PartyContact, Role, SourceRef,
        };
        let contact = PartyContact {
            id: "c1".into(),
            role: Role::CompetentAuthority,
            details: Contact::default(),
            provenance: ContactProvenance {
                last_checked: last_checked.map(day),
                ..ContactProvenance::default()
            },
            retired: Vec::new(),
            sources: source_date
                .map(|d| SourceRef {
                    url: "https://example.org".into(),
                    date: Some(d.into()),
                    kind: "secretariat_factsheet".into(),
                    ..SourceRef::default()
                })
                .into_iter()
                .collect(),
            also_focal_point: false,
            role_basis: None,
        };
        let mut r = row(last_checked);
        r.state = Authority {
            contacts: vec![contact],
            primary: Some("c1".into()),
            ..Authority::default()
        };
        r
    }

    #[test]
    fn a_record_repeats_email_and_date_under_both_names() {
        let record = Record::new(
            with_primary(None, Some("2026-01-01")),
            day("2026-02-01"),
            365,
        );
        assert_eq!(record.email_primary.as_deref(), Some("ca@example.fr"));
        assert_eq!(record.last_verified_date.as_deref(), Some("2026-01-01"));
        assert_eq!(record.provenance.steward.as_deref(), Some("ana"));
        assert!(!record.stale);
        assert_eq!(record.country_name, "France", "the registry's UN name");
        assert_eq!(record.party.map(|p| p.annex_vii), Some(true));
    }

    #[test]
    fn a_record_is_as_old_as_its_newest_source_or_verified_check() {
        let stale = |source, checked, today| {
            Record::new(with_primary(source, checked), day(today), 365).stale
        };
        assert!(!stale(None, Some("2025-01-01"), "2026-01-01"));
        assert!(stale(None, Some("2025-01-01"), "2026-01-02"));
        assert!(
            stale(Some("2002"), None, "2026-01-01"),
            "a 2002 source is historic"
        );
        assert!(!stale(Some("2025-06-01"), None, "2026-01-01"));
        assert!(stale(None, None, "2026-01-01"), "unknown age");
        let no_primary = Record::new(row(Some("2025-12-31")), day("2026-01-01"), 365);
        assert!(no_primary.stale, "no competent authority is known");
    }

    #[test]
    fn a_history_item_shows_the_steward_by_id_and_name_only() {
        let row = HistoryRow {
            sequence: 2,
            event_type: "VerificationRecorded".into(),
            recorded_at: "2026-01-02T00:00:00Z".into(),
            actor: "steward:ana".into(),
            request_id: "r1".into(),
            position: 9,
            details: json!({"verified": true, "steward": "ana", "method": "email"}),
        };
        let item = serde_json::to_value(history_item(&row, Some("Ana Lima"))).unwrap();
        assert_eq!(item["steward"], json!({"id": "ana", "name": "Ana Lima"}));
        assert_eq!(item["method"], "email");
        assert_eq!(item["sequence"], 2);
        assert!(item.get("country_code").is_none());
    }
}
