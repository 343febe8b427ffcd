//! The registry of Basel Parties: 191 (190 States and the European Union),
//! with how each became a Party, whether it is in Annex VII, and whether it
//! accepted the Ban Amendment; and every other ISO 3166-1 code, so that a
//! State that is not a Party is answered as such rather than as unknown.
//!
//! Data (copied from `shared/reference`, see `data/SOURCES.md`):
//! `basel_parties.json` (Parties, signatories, UN members not party),
//! `annex_vii_oecd.json` (OECD, EU, Liechtenstein), `ban_amendment.json`
//! (acceptance per Party with its evidence) and `iso3166_1.json` (every
//! assigned alpha-2 code, from Debian's iso-codes).
//!
//! Names are the United Nations forms (the UN Treaty Collection's, with the
//! renamings the UN has registered since: Czechia, Eswatini, North
//! Macedonia, Türkiye); the ISO short name and the common English name are
//! kept as other names, so a search by either finds the Party.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::{Days, NaiveDate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::values::CountryCode;

const PARTIES_JSON: &str = include_str!("../data/basel_parties.json");
const GROUPS_JSON: &str = include_str!("../data/annex_vii_oecd.json");
const BAN_JSON: &str = include_str!("../data/ban_amendment.json");
const ISO_JSON: &str = include_str!("../data/iso3166_1.json");

/// The day the Convention entered into force (Article 25(1)).
const CONVENTION_IN_FORCE: &str = "1992-05-05";

/// Names the UN has registered since the Treaty Collection's list was read
/// (2014): the UN form first, the older form kept as another name.
const RENAMED: [(&str, &str); 4] = [
    ("CZ", "Czechia"),
    ("MK", "North Macedonia"),
    ("SZ", "Eswatini"),
    ("TR", "Türkiye"),
];

/// Whether a Party accepted the Ban Amendment (Article 4A, decision III/1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BanAcceptance {
    /// Its instrument of acceptance is on record.
    Accepted,
    /// It is absent from a complete current list of the Amendment's Parties.
    NotAccepted,
    /// No current evidence either way.
    Unknown,
}

/// The Ban Amendment's status for one Party, with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BanStatus {
    /// `accepted`, `not_accepted` or `unknown`.
    pub status: BanAcceptance,
    /// The day its instrument was deposited, when accepted.
    pub date: Option<String>,
    /// Where this is known from.
    pub evidence: Option<String>,
}

/// One Party to the Convention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Party {
    /// ISO 3166-1 alpha-2 (`EU` for the European Union).
    pub code: String,
    /// The United Nations form of its name.
    pub name: String,
    /// Other names it is known by (ISO short name, older UN forms).
    pub other_names: Vec<String>,
    /// The day it signed, when it did.
    pub signature: Option<String>,
    /// The day its instrument was deposited, when known.
    pub deposit_date: Option<String>,
    /// `ratification`, `accession`, `approval`, `acceptance`, `succession`
    /// or `unknown`.
    pub action: String,
    /// The day the Convention entered into force for it: the ninetieth day
    /// after its deposit (Article 25(2)), derived from `deposit_date`.
    pub entry_into_force: Option<String>,
    /// How its party status is known (`verified_primary_2014`, `inferred`, …).
    pub status_basis: String,
    /// The source of its party status.
    pub evidence: String,
    /// Whether it is in Annex VII (OECD, EU, Liechtenstein).
    pub annex_vii: bool,
    /// Whether it is an OECD member.
    pub oecd: bool,
    /// Whether it is a member State of the EU (or the EU itself).
    pub eu: bool,
    /// Its acceptance of the Ban Amendment.
    pub ban_amendment: BanStatus,
}

/// A State (or territory) with an ISO code that is not a Party.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NonParty {
    /// ISO 3166-1 alpha-2.
    pub code: String,
    /// Its name.
    pub name: String,
    /// `signed_not_ratified` or `not_a_party`.
    pub status: String,
    /// The day it signed, when it did.
    pub signature: Option<String>,
    /// The status in words.
    pub summary: String,
}

/// What the registry knows of a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing<'a> {
    /// A Party.
    Party(&'a Party),
    /// An assigned ISO code that is not a Party.
    NotAParty(&'a NonParty),
    /// No country has this code.
    Unknown,
}

/// The Party registry.
#[derive(Debug, Clone)]
pub struct Registry {
    parties: BTreeMap<String, Party>,
    others: BTreeMap<String, NonParty>,
    groups: Groups,
}

/// Membership of the groups the Convention's rules turn on, for any
/// country, Party or not (`annex_vii_oecd.json`).
#[derive(Debug, Clone)]
pub struct Groups {
    oecd: Vec<String>,
    eu: Vec<String>,
    annex_vii: Vec<String>,
}

impl Groups {
    /// In Annex VII (the OECD, the EU, Liechtenstein); the EU itself too.
    pub fn annex_vii(&self, code: &str) -> bool {
        code == "EU" || self.annex_vii.iter().any(|c| c == code)
    }

    /// A member of the OECD.
    pub fn oecd(&self, code: &str) -> bool {
        self.oecd.iter().any(|c| c == code)
    }

    /// A member State of the European Union.
    pub fn eu(&self, code: &str) -> bool {
        self.eu.iter().any(|c| c == code)
    }
}

#[derive(Deserialize)]
struct PartiesFile {
    parties: Vec<PartyRow>,
    signatories_not_parties: Vec<Signatory>,
}

#[derive(Deserialize)]
struct PartyRow {
    iso2: String,
    name_untc: String,
    name_iso: String,
    signature: Option<String>,
    deposit_date: Option<String>,
    action: String,
    evidence: String,
    verification: String,
}

#[derive(Deserialize)]
struct Signatory {
    iso2: String,
    signature: Option<String>,
}

#[derive(Deserialize)]
struct GroupsFile {
    oecd_members: Members,
    eu_member_states: Members,
    annex_vii: AnnexVii,
}

#[derive(Deserialize)]
struct Members {
    members: Vec<Code>,
}

#[derive(Deserialize)]
struct Code {
    iso2: String,
}

#[derive(Deserialize)]
struct AnnexVii {
    current_group_iso2: Vec<String>,
}

#[derive(Deserialize)]
struct BanFile {
    parties: Vec<BanRow>,
}

#[derive(Deserialize)]
struct BanRow {
    iso2: String,
    accepted: Option<bool>,
    date: Option<String>,
    evidence: Option<String>,
}

#[derive(Deserialize)]
struct IsoFile {
    countries: Vec<IsoRow>,
}

#[derive(Deserialize)]
struct IsoRow {
    iso2: String,
    name: String,
}

/// The bundled registry (parsed once; the data is part of the build and a
/// test reads it, so it cannot fail at run time).
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::parse().unwrap_or_else(|e| panic!("bundled data: {e}")))
}

impl Registry {
    fn parse() -> Result<Self, serde_json::Error> {
        let file: PartiesFile = serde_json::from_str(PARTIES_JSON)?;
        let groups: GroupsFile = serde_json::from_str(GROUPS_JSON)?;
        let ban: BanFile = serde_json::from_str(BAN_JSON)?;
        let iso: IsoFile = serde_json::from_str(ISO_JSON)?;
        let codes = |m: Members| m.members.into_iter().map(|c| c.iso2).collect::<Vec<_>>();
        let groups = Groups {
            oecd: codes(groups.oecd_members),
            eu: codes(groups.eu_member_states),
            annex_vii: groups.annex_vii.current_group_iso2,
        };
        let ban: BTreeMap<String, BanRow> = ban
            .parties
            .into_iter()
            .map(|b| (b.iso2.clone(), b))
            .collect();
        let mut parties = BTreeMap::new();
        for row in file.parties {
            let party = party_of(row, &groups, &ban);
            parties.insert(party.code.clone(), party);
        }
        let signed: BTreeMap<String, Option<String>> = file
            .signatories_not_parties
            .into_iter()
            .map(|s| (s.iso2, s.signature))
            .collect();
        let others = iso
            .countries
            .into_iter()
            .filter(|c| !parties.contains_key(&c.iso2))
            .map(|c| {
                let signature = signed.get(&c.iso2).cloned().flatten();
                let non = non_party(c, signature);
                (non.code.clone(), non)
            })
            .collect();
        Ok(Self {
            parties,
            others,
            groups,
        })
    }

    /// Group memberships (Annex VII, OECD, EU) of any country.
    pub fn groups(&self) -> &Groups {
        &self.groups
    }

    /// What the registry knows of `code`.
    pub fn standing(&self, code: &CountryCode) -> Standing<'_> {
        let code = code.as_str();
        if let Some(party) = self.parties.get(code) {
            Standing::Party(party)
        } else if let Some(other) = self.others.get(code) {
            Standing::NotAParty(other)
        } else {
            Standing::Unknown
        }
    }

    /// The Party with `code`, if it is one.
    pub fn party(&self, code: &str) -> Option<&Party> {
        self.parties.get(code)
    }

    /// Every Party, by code.
    pub fn parties(&self) -> impl Iterator<Item = &Party> {
        self.parties.values()
    }

    /// The code of the country named `text` (any of its names, or its code;
    /// case and accents ignored), Party or not.
    pub fn code_of(&self, text: &str) -> Option<CountryCode> {
        let wanted = fold(text);
        if wanted.is_empty() {
            return None;
        }
        if wanted.len() == 2 {
            if let Ok(code) = CountryCode::parse(&wanted) {
                if !matches!(self.standing(&code), Standing::Unknown) {
                    return Some(code);
                }
            }
        }
        let party = self.parties.values().find(|p| {
            std::iter::once(&p.name)
                .chain(&p.other_names)
                .any(|n| fold(n) == wanted)
        });
        let code = match party {
            Some(p) => &p.code,
            None => &self.others.values().find(|o| fold(&o.name) == wanted)?.code,
        };
        CountryCode::parse(code).ok()
    }

    /// Whether `text` is one of the names of the Party `code` or occurs in
    /// one (a search for "korea" finds the Republic of Korea).
    pub fn name_matches(&self, code: &str, text: &str) -> bool {
        let wanted = fold(text);
        self.parties.get(code).is_some_and(|p| {
            std::iter::once(&p.name)
                .chain(&p.other_names)
                .any(|n| fold(n).contains(&wanted))
        })
    }
}

fn party_of(row: PartyRow, groups: &Groups, ban: &BTreeMap<String, BanRow>) -> Party {
    let code = row.iso2;
    let renamed = RENAMED.iter().find(|(c, _)| *c == code).map(|(_, n)| *n);
    let name = renamed.map_or_else(|| row.name_untc.clone(), str::to_owned);
    let mut other_names: Vec<String> = Vec::new();
    for other in [row.name_untc, row.name_iso] {
        if other != name && !other_names.contains(&other) {
            other_names.push(other);
        }
    }
    let entry_into_force = row
        .deposit_date
        .as_deref()
        .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
        .and_then(|d| d.checked_add_days(Days::new(90)))
        .map(|d| {
            let start = NaiveDate::parse_from_str(CONVENTION_IN_FORCE, "%Y-%m-%d").ok();
            start.map_or(d, |s| d.max(s)).to_string()
        });
    let ban = ban.get(&code);
    Party {
        annex_vii: groups.annex_vii(&code),
        oecd: groups.oecd(&code),
        eu: groups.eu(&code) || code == "EU",
        ban_amendment: BanStatus {
            status: match ban.and_then(|b| b.accepted) {
                Some(true) => BanAcceptance::Accepted,
                Some(false) => BanAcceptance::NotAccepted,
                None => BanAcceptance::Unknown,
            },
            date: ban.and_then(|b| b.date.clone()),
            evidence: ban.and_then(|b| b.evidence.clone()),
        },
        code,
        name,
        other_names,
        signature: row.signature,
        deposit_date: row.deposit_date,
        action: row.action,
        entry_into_force,
        status_basis: row.verification,
        evidence: row.evidence,
    }
}

fn non_party(row: IsoRow, signature: Option<String>) -> NonParty {
    let (status, summary) = match &signature {
        Some(day) => (
            "signed_not_ratified",
            format!(
                "{} signed the Basel Convention on {day} but is not a Party",
                row.name
            ),
        ),
        None => (
            "not_a_party",
            format!("{} is not a Party to the Basel Convention", row.name),
        ),
    };
    NonParty {
        code: row.iso2,
        name: row.name,
        status: status.to_owned(),
        signature,
        summary,
    }
}

/// Lower case, accents and punctuation folded (`Türkiye` → `turkiye`).
pub fn fold(text: &str) -> String {
    deunicode::deunicode(text)
        .to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> CountryCode {
        CountryCode::parse(text).unwrap()
    }

    #[test]
    fn the_registry_has_191_parties_the_eu_among_them() {
        let r = registry();
        assert_eq!(r.parties().count(), 191);
        assert!(matches!(r.standing(&code("EU")), Standing::Party(p) if p.annex_vii && p.eu));
    }

    #[test]
    fn states_that_are_not_parties_are_named_as_such() {
        let r = registry();
        for (cc, status) in [
            ("US", "signed_not_ratified"),
            ("HT", "signed_not_ratified"),
            ("TW", "not_a_party"),
            ("FJ", "not_a_party"),
        ] {
            match r.standing(&code(cc)) {
                Standing::NotAParty(n) => assert_eq!(n.status, status, "{cc}"),
                other => panic!("{cc}: {other:?}"),
            }
        }
        for cc in ["QQ", "ZZ", "XX"] {
            assert_eq!(r.standing(&code(cc)), Standing::Unknown, "{cc}");
        }
    }

    #[test]
    fn names_are_the_un_forms_and_other_names_still_find_the_party() {
        let r = registry();
        assert_eq!(r.party("KR").unwrap().name, "Republic of Korea");
        assert_eq!(r.party("VN").unwrap().name, "Viet Nam");
        assert_eq!(r.party("TR").unwrap().name, "Türkiye");
        assert_eq!(r.code_of("South Korea"), Some(code("KR")));
        assert_eq!(r.code_of("vietnam"), Some(code("VN")));
        assert_eq!(r.code_of("Turkey"), Some(code("TR")));
        assert_eq!(r.code_of("United States"), Some(code("US")));
        assert!(r.name_matches("CD", "congo"));
    }

    #[test]
    fn ban_acceptance_is_known_beyond_the_eu() {
        let r = registry();
        let ban = |cc: &str| r.party(cc).unwrap().ban_amendment.status;
        assert_eq!(ban("NO"), BanAcceptance::Accepted);
        assert_eq!(ban("CH"), BanAcceptance::Accepted);
        assert_eq!(ban("JP"), BanAcceptance::NotAccepted);
        assert_eq!(ban("DE"), BanAcceptance::Accepted);
    }

    #[test]
    fn entry_into_force_is_ninety_days_after_deposit() {
        let af = registry().party("AF").unwrap();
        assert_eq!(af.deposit_date.as_deref(), Some("2013-03-25"));
        assert_eq!(af.entry_into_force.as_deref(), Some("2013-06-23"));
    }
}
