//! The rules a file's rows must follow before anything is compared with the
//! store: every cell parses (codes, dates, e-mail, phone, roles, outcomes),
//! and the rows of one Party agree with each other. Every problem is
//! collected, each as `FILE: row N (CC): field: message`.

use std::collections::HashSet;

use chrono::NaiveDate;

use domain::authority::{
    parse_field, CheckOutcome, ContactField, ContactInput, ContactPatch, Role, RoleBasis, SourceRef,
};
use domain::values::CountryCode;

use super::read::Line;

/// What a file states about one contact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContactWant {
    /// The row it was read from.
    pub row: usize,
    /// Its place within the row (`contacts[1].` in JSON), for messages.
    pub prefix: String,
    /// Its id; `None` for a row in the first release's shape, which
    /// describes the Party's primary competent authority.
    pub id: Option<String>,
    /// Its role, when stated.
    pub role: Option<Role>,
    /// Whether it is (to be) the primary competent authority, when stated.
    pub primary: Option<bool>,
    /// The detail fields stated, in stored form (`None`: empty).
    pub details: ContactPatch,
    /// What its details rely on.
    pub source: Option<String>,
    /// Whether they are verified, when stated.
    pub verified: Option<bool>,
    /// Its last check that reached it.
    pub last_checked: Option<NaiveDate>,
    /// What its last check found.
    pub outcome: Option<CheckOutcome>,
    /// Its last check that reached nobody.
    pub last_attempt: Option<NaiveDate>,
    /// Whether it is also the focal point, when stated.
    pub also_focal_point: Option<bool>,
    /// How sure its source is of its role, when stated.
    pub role_basis: Option<RoleBasis>,
    /// Its public sources, when stated (kept when the contact is added).
    pub sources: Vec<SourceRef>,
}

/// What a file states about one Party (all its rows together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartyWant {
    /// Its first row.
    pub row: usize,
    /// Its rows that describe no contact.
    pub bare_rows: Vec<usize>,
    /// The country.
    pub country: CountryCode,
    /// Its name.
    pub country_name: String,
    /// What its registration relied on.
    pub source: Option<String>,
    /// Notes on its record, when stated (`Some(None)`: empty).
    pub notes: Option<Option<String>>,
    /// The last check of its record itself.
    pub last_attempt: Option<NaiveDate>,
    /// Whether its `source` came from a row in the first release's shape
    /// (used to register the Party, never compared with the store's).
    pub first_release_source: bool,
    /// Its contacts, in file order.
    pub contacts: Vec<ContactWant>,
}

/// Names a problem: `FILE: row N (CC): field: message`.
pub struct Blame<'a> {
    /// The file.
    pub name: &'a str,
    /// Where problems go.
    pub problems: Vec<String>,
}

impl Blame<'_> {
    /// Records a problem with `field` of `row`.
    pub fn at(&mut self, row: usize, country: &str, field: &str, message: &str) {
        self.problems.push(format!(
            "{}: row {row} ({country}): {field}: {message}",
            self.name
        ));
    }
}

/// The Party a group of lines (from [`super::read::Rows::groups`]) states:
/// its lines merged, its contacts checked against each other; `None` when
/// none of its lines could be read (their problems are in `blame`).
pub fn party_of_group(group: &[Line], blame: &mut Blame<'_>) -> Option<PartyWant> {
    let mut party: Option<PartyWant> = None;
    for line in group {
        let Some(want) = party_of(line, blame) else {
            continue;
        };
        match &mut party {
            Some(party) => merge(party, want, blame),
            None => party = Some(want),
        }
    }
    if let Some(party) = &party {
        agree(party, blame);
    }
    party
}

/// One line as a Party with at most one contact.
fn party_of(line: &Line, blame: &mut Blame<'_>) -> Option<PartyWant> {
    let cc = line.text("country_code").unwrap_or_default().to_owned();
    let before = blame.problems.len();
    let country = CountryCode::parse(&cc)
        .map_err(|e| blame.at(line.row, &cc, "country_code", &e.to_string()))
        .ok()
        .filter(|code| {
            use domain::parties::{registry, Standing};
            let message = match registry().standing(code) {
                Standing::Party(_) => return true,
                Standing::NotAParty(other) => {
                    format!("not_a_party: {}; only Parties have records", other.summary)
                }
                Standing::Unknown => format!("country_not_found: no country has the code {code}"),
            };
            blame.at(line.row, &cc, "country_code", &message);
            false
        });
    let country_name = line.text("country_name").unwrap_or_default().to_owned();
    if country_name.is_empty() {
        blame.at(line.row, &cc, "country_name", "is required");
    }
    let last_attempt = date(line, "", "party_last_attempt", &cc, blame);
    let contact = contact_of(line, &cc, blame);
    let mut party = PartyWant {
        row: line.row,
        bare_rows: Vec::new(),
        country: country?,
        country_name,
        source: line.text("party_source").map(str::to_owned),
        notes: line
            .states("party_notes")
            .then(|| line.text("party_notes").map(str::to_owned)),
        last_attempt,
        first_release_source: false,
        contacts: Vec::new(),
    };
    match contact {
        Some(contact) => party.contacts.push(contact),
        None if line.states("contact_id") => party.bare_rows.push(line.row),
        None => first_release_party(line, &mut party),
    }
    (blame.problems.len() == before).then_some(party)
}

/// A row in the first release's shape that names no office: its notes and
/// source are the Party's.
fn first_release_party(line: &Line, party: &mut PartyWant) {
    party.bare_rows.push(line.row);
    if party.notes.is_none() {
        party.notes = line.text("notes").map(|n| Some(n.to_owned()));
    }
    if party.source.is_none() {
        party.source = line.text("source").map(str::to_owned);
        party.first_release_source = party.source.is_some();
    }
}

/// The contact a line describes: by `contact_id`, or (the first release's
/// shape, without that column) the primary competent authority when the
/// row names an office.
fn contact_of(line: &Line, cc: &str, blame: &mut Blame<'_>) -> Option<ContactWant> {
    let office = ContactInput::FIELDS
        .iter()
        .any(|field| *field != ContactField::Notes && line.text(field.name()).is_some());
    let id = if line.states("contact_id") {
        let id = line.text("contact_id");
        let described = office
            || [
                "role",
                "primary",
                "notes",
                "source",
                "verified",
                "last_checked",
                "outcome",
                "last_attempt",
                "role_basis",
                "sources",
            ]
            .iter()
            .any(|c| line.text(c).is_some());
        if id.is_none() && described {
            let field = format!("{}contact_id", line.prefix);
            blame.at(line.row, cc, &field, "is required on a row that describes a contact (leave every contact column empty for a Party without contacts)");
        }
        Some(id?.to_owned())
    } else if office {
        None
    } else {
        return None;
    };
    Some(contact_want(line, id, cc, blame))
}

fn contact_want(line: &Line, id: Option<String>, cc: &str, blame: &mut Blame<'_>) -> ContactWant {
    let p = line.prefix.as_str();
    let mut details = ContactPatch::new();
    for field in ContactInput::FIELDS {
        let column = field.name();
        // The first release left a verified record's notes out of its
        // export: there, an empty `notes` states nothing.
        if !line.states(column)
            || (id.is_none() && column == "notes" && line.text(column).is_none())
        {
            continue;
        }
        match parse_field(field, line.cells.get(column).flatten()) {
            Ok(value) => {
                details.insert(field, value);
            }
            Err(problem) => blame.at(line.row, cc, &format!("{p}{column}"), &problem.message),
        }
    }
    let role = line.text("role").and_then(|text| {
        let role = Role::parse(text);
        if role.is_none() {
            blame.at(
                line.row,
                cc,
                &format!("{p}role"),
                "must be competent_authority or focal_point",
            );
        }
        role
    });
    let outcome = line.text("outcome").and_then(|text| {
        let outcome = CheckOutcome::parse(text);
        if outcome.is_none() {
            blame.at(
                line.row,
                cc,
                &format!("{p}outcome"),
                "must be confirmed, changed, no_answer or defunct",
            );
        }
        outcome
    });
    ContactWant {
        row: line.row,
        prefix: line.prefix.clone(),
        role: if id.is_none() {
            Some(Role::CompetentAuthority)
        } else {
            role
        },
        id,
        primary: flag(line, p, "primary", cc, blame),
        details,
        source: line.text("source").map(str::to_owned),
        verified: flag(line, p, "verified", cc, blame),
        last_checked: date(line, p, "last_checked", cc, blame),
        outcome,
        last_attempt: date(line, p, "last_attempt", cc, blame),
        also_focal_point: flag(line, p, "also_focal_point", cc, blame),
        role_basis: line.text("role_basis").and_then(|text| {
            let basis = RoleBasis::parse(text);
            if basis.is_none() {
                let message = "must be stated, inferred or uncertain";
                blame.at(line.row, cc, &format!("{p}role_basis"), message);
            }
            basis
        }),
        sources: sources(line, p, cc, blame),
    }
}

/// A contact's sources: a JSON list, each with a non-empty `url` and `kind`.
fn sources(line: &Line, prefix: &str, cc: &str, blame: &mut Blame<'_>) -> Vec<SourceRef> {
    let Some(text) = line.text("sources") else {
        return Vec::new();
    };
    let field = format!("{prefix}sources");
    match serde_json::from_str::<Vec<SourceRef>>(text) {
        Ok(list)
            if list
                .iter()
                .all(|s| !s.url.trim().is_empty() && !s.kind.trim().is_empty()) =>
        {
            list
        }
        Ok(_) => {
            blame.at(
                line.row,
                cc,
                &field,
                "every source needs a non-empty url and kind",
            );
            Vec::new()
        }
        Err(e) => {
            let message = format!("must be a JSON list of sources ({e})");
            blame.at(line.row, cc, &field, &message);
            Vec::new()
        }
    }
}

fn date(
    line: &Line,
    prefix: &str,
    column: &str,
    cc: &str,
    blame: &mut Blame<'_>,
) -> Option<NaiveDate> {
    let text = line.text(column)?;
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok();
    if day.is_none() {
        let message = format!("{text:?} is not a YYYY-MM-DD date");
        blame.at(line.row, cc, &format!("{prefix}{column}"), &message);
    }
    day
}

fn flag(line: &Line, prefix: &str, column: &str, cc: &str, blame: &mut Blame<'_>) -> Option<bool> {
    let text = line.text(column)?;
    match text.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => {
            blame.at(
                line.row,
                cc,
                &format!("{prefix}{column}"),
                "must be true or false",
            );
            None
        }
    }
}

/// Adds a later row of the same Party; its Party cells must agree.
fn merge(party: &mut PartyWant, later: PartyWant, blame: &mut Blame<'_>) {
    let cc = party.country.as_str().to_owned();
    let differs = |field: &str, blame: &mut Blame<'_>| {
        let message = format!("differs from row {} of the same Party", party.row);
        blame.at(later.row, &cc, field, &message);
    };
    if later.country_name != party.country_name {
        differs("country_name", blame);
    }
    if later.source.is_some() && later.source != party.source {
        differs("party_source", blame);
    }
    if later.notes.is_some() && party.notes.is_some() && later.notes != party.notes {
        differs("party_notes", blame);
    }
    if later.last_attempt.is_some() && later.last_attempt != party.last_attempt {
        differs("party_last_attempt", blame);
    }
    if party.notes.is_none() {
        party.notes = later.notes;
    }
    party.bare_rows.extend(later.bare_rows);
    party.contacts.extend(later.contacts);
}

/// The rules between the contacts of one Party.
fn agree(party: &PartyWant, blame: &mut Blame<'_>) {
    let cc = party.country.as_str();
    let mut focal_points = 0;
    let mut primaries = 0;
    let mut seen: HashSet<Option<&str>> = HashSet::new();
    for c in &party.contacts {
        let at = |field: &str| format!("{}{field}", c.prefix);
        if !seen.insert(c.id.as_deref()) {
            let message = match &c.id {
                Some(id) => format!("`{id}` is listed twice for this Party"),
                None => "two rows describe the Party's primary competent authority".into(),
            };
            blame.at(c.row, cc, &at("contact_id"), &message);
        }
        if c.role == Some(Role::FocalPoint) {
            focal_points += 1;
            if focal_points == 2 {
                blame.at(
                    c.row,
                    cc,
                    &at("role"),
                    "a Party has at most one focal point",
                );
            }
        }
        if c.primary == Some(true) {
            primaries += 1;
            if c.role == Some(Role::FocalPoint) {
                blame.at(
                    c.row,
                    cc,
                    &at("primary"),
                    "only a competent authority can be primary",
                );
            } else if primaries == 2 {
                blame.at(
                    c.row,
                    cc,
                    &at("primary"),
                    "a Party has one primary competent authority",
                );
            }
        }
    }
}
