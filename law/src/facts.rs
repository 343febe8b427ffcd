//! What the rules need to know of one State: Party or not, the groups it
//! belongs to (OECD, EU, Annex VII, EFTA) and its Ban Amendment status with
//! the evidence, all from the Party registry (whose groups cover States that
//! are not Parties too: the United States is an OECD member and so in the
//! Annex VII group).

use domain::parties::{registry, BanAcceptance, Standing};
use domain::values::CountryCode;

/// The members of the European Free Trade Association (Iceland,
/// Liechtenstein, Norway, Switzerland: EFTA Convention, efta.int). Regulation
/// (EU) 2024/1157, Article 37 allows exports for disposal from the Union to
/// an EFTA country that is a Party to the Basel Convention.
const EFTA: [&str; 4] = ["IS", "LI", "NO", "CH"];

/// The EEA EFTA States, which apply the Union's waste shipment acts through
/// Annex XX of the EEA Agreement (shared/reference/import_restrictions.json,
/// regional "EU / EEA / Switzerland position").
const EEA_EFTA: [&str; 3] = ["IS", "LI", "NO"];

/// One State on a route, as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFacts {
    /// ISO 3166-1 alpha-2.
    pub code: String,
    /// Its name (the United Nations form for a Party).
    pub name: String,
    /// A Party to the Basel Convention.
    pub party: bool,
    /// In Annex VII (members of the OECD and the EU, and Liechtenstein).
    pub annex_vii: bool,
    /// An OECD member.
    pub oecd: bool,
    /// An EU member State.
    pub eu: bool,
    /// Its acceptance of the Ban Amendment (a State that is not a Party
    /// cannot accept it: not accepted).
    pub ban_amendment: BanAcceptance,
    /// Where its Ban Amendment status is known from, when the registry says.
    pub ban_evidence: Option<String>,
    /// An EFTA member (Iceland, Liechtenstein, Norway, Switzerland).
    pub efta: bool,
    /// An EEA EFTA State (Iceland, Liechtenstein, Norway).
    pub eea: bool,
}

impl StateFacts {
    /// The facts of `code`; `None` when no country has that code.
    pub fn of(code: &CountryCode) -> Option<Self> {
        let groups = registry().groups();
        let cc = code.as_str().to_owned();
        let (name, party, ban_amendment, ban_evidence) = match registry().standing(code) {
            Standing::Party(p) => (
                p.name.clone(),
                true,
                p.ban_amendment.status,
                p.ban_amendment.evidence.clone(),
            ),
            Standing::NotAParty(n) => (n.name.clone(), false, BanAcceptance::NotAccepted, None),
            Standing::Unknown => return None,
        };
        Some(Self {
            annex_vii: groups.annex_vii(&cc),
            oecd: groups.oecd(&cc),
            eu: groups.eu(&cc),
            efta: EFTA.contains(&cc.as_str()),
            eea: EEA_EFTA.contains(&cc.as_str()),
            code: cc,
            name,
            party,
            ban_amendment,
            ban_evidence,
        })
    }
}

impl StateFacts {
    /// Whether it applies Regulation (EU) 2024/1157: an EU member State, or
    /// an EEA EFTA State.
    pub fn wsr(&self) -> bool {
        self.eu || self.eea
    }
}
