//! Which competent authorities of a Party handle a movement from or to an
//! area: `GET /api/v1/ca/{cc}?area=…&movement=…` and the MCP tool
//! `get_competent_authority` answer with this one function.
//!
//! An authority is competent when it is live (not found defunct), its area
//! is the one asked for or it has none (national), and its movements
//! include the one asked for or are all. Area names match case- and
//! accent-insensitively under any of their names (`Bayern`, `Bavaria`;
//! `Nordrhein-Westfalen`, `North Rhine-Westphalia`: `domain/data/areas.json`),
//! and an authority scoped to part of an area (`Bayern (Regierungsbezirk
//! Oberbayern)`) is competent for it. Area-limited authorities come first
//! (they are the specific answer), national ones after.

use schemars::JsonSchema;
use serde::Serialize;

use domain::authority::{Authority, PartyContact, Role};
use domain::parties::fold;

/// The movements a scope can name.
pub const MOVEMENTS: [&str; 3] = ["export", "import", "transit"];

/// One competent authority for the asked area and movement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Competent {
    /// Its contact id within the Party.
    pub contact_id: String,
    /// Its name.
    pub name: Option<String>,
    /// Why it is competent, in words ("scope area Bayern", "national, all
    /// movements").
    pub reason: String,
}

/// Why a scope question cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// The movement is not one of the three.
    #[error("movement `{0}` is not one of export, import, transit")]
    Movement(String),
    /// No area of the Party has this name.
    #[error("no area of this Party is called `{given}`; known areas: {known}")]
    Area {
        /// The name asked for.
        given: String,
        /// The Party's known areas, comma-separated (or "none").
        known: String,
    },
}

/// The competent authorities of `state` for `area` and `movement` (either
/// may be absent: any).
///
/// # Errors
/// [`ScopeError`] for a movement outside the three or an area the Party
/// does not have.
pub fn competent(
    state: &Authority,
    area: Option<&str>,
    movement: Option<&str>,
) -> Result<Vec<Competent>, ScopeError> {
    let movement = movement.map(str::trim).filter(|m| !m.is_empty());
    if let Some(m) = movement.filter(|m| !MOVEMENTS.contains(m)) {
        return Err(ScopeError::Movement(m.to_owned()));
    }
    let code = state
        .country
        .as_ref()
        .map(|c| c.as_str())
        .unwrap_or_default();
    let names = match area.map(str::trim).filter(|a| !a.is_empty()) {
        Some(area) => Some(area_names(code, state, area)?),
        None => None,
    };
    let mut found: Vec<(bool, Competent)> = state
        .contacts
        .iter()
        .filter(|c| c.role == Role::CompetentAuthority && !c.defunct())
        .filter(|c| movement.is_none_or(|m| handles(c, m)))
        .filter_map(|c| {
            let specific = match (&names, &c.details.area) {
                (_, None) => false,
                (Some(names), Some(own)) => {
                    let own = fold(own);
                    if !names
                        .iter()
                        .any(|n| own == *n || own.starts_with(&format!("{n} ")))
                    {
                        return None;
                    }
                    true
                }
                (None, Some(_)) => true,
            };
            Some((specific, entry(c, specific)))
        })
        .collect();
    found.sort_by_key(|(specific, _)| !specific);
    Ok(found.into_iter().map(|(_, c)| c).collect())
}

fn handles(contact: &PartyContact, movement: &str) -> bool {
    contact
        .details
        .movements
        .as_deref()
        .is_none_or(|m| m.split(',').any(|x| x == movement))
}

fn entry(c: &PartyContact, specific: bool) -> Competent {
    let movements = match c.details.movements.as_deref() {
        None => "all movements".to_owned(),
        Some(m) => format!("{} only", m.replace(',', " and ")),
    };
    let reason = match (&c.details.area, specific) {
        (Some(area), _) => format!("scope area {area}, {movements}"),
        (None, _) => format!("national, {movements}"),
    };
    Competent {
        contact_id: c.id.clone(),
        name: c.details.ca_name.clone(),
        reason,
    }
}

/// Every folded name of the area `given` names: its names in the area list
/// when it is there, else `given` itself when a contact's area starts with
/// it.
fn area_names(code: &str, state: &Authority, given: &str) -> Result<Vec<String>, ScopeError> {
    let wanted = fold(given);
    let listed = domain::release::areas(code);
    if let Some(names) = listed
        .iter()
        .find(|names| names.iter().any(|n| fold(n) == wanted))
    {
        return Ok(names.iter().map(|n| fold(n)).collect());
    }
    let own = state
        .contacts
        .iter()
        .filter_map(|c| c.details.area.as_deref())
        .any(|a| fold(a) == wanted || fold(a).starts_with(&format!("{wanted} ")));
    if own {
        return Ok(vec![wanted]);
    }
    let mut known: Vec<String> = listed.iter().map(|names| names[0].clone()).collect();
    for a in state.contacts.iter().filter_map(|c| c.details.area.clone()) {
        if !known.iter().any(|k| fold(&a).starts_with(&fold(k))) {
            known.push(a);
        }
    }
    Err(ScopeError::Area {
        given: given.to_owned(),
        known: if known.is_empty() {
            "none (every authority of this Party is national)".to_owned()
        } else {
            known.join(", ")
        },
    })
}
