//! Country groups that decide the control procedure: Basel Parties, known
//! non-Parties, OECD members, the Annex VII group (OECD, EU, Liechtenstein)
//! and the Parties known to have accepted the Ban Amendment.

use std::collections::HashSet;

use serde::Deserialize;

use super::error::KnowledgeBaseError;

const PARTIES: &str = include_str!("../../data/basel_parties.json");
const GROUPS: &str = include_str!("../../data/annex_vii_and_oecd.json");

#[derive(Deserialize)]
struct PartiesFile {
    parties: Vec<Iso>,
    signatories_not_parties: Vec<Iso>,
    un_members_not_parties_c_2022_2023: NonParties,
}

#[derive(Deserialize)]
struct NonParties {
    list: Vec<Iso>,
}

#[derive(Deserialize)]
struct Iso {
    iso2: String,
}

#[derive(Deserialize)]
struct GroupsFile {
    annex_vii: AnnexVii,
    oecd_members: Members,
    eu_member_states: Members,
}

#[derive(Deserialize)]
struct AnnexVii {
    country_group_current_membership: Vec<String>,
}

#[derive(Deserialize)]
struct Members {
    members: Vec<Iso>,
}

/// What the reference data says about one country code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// A Party to the Basel Convention.
    pub party: bool,
    /// Known not to be a Party (signatory or UN member not party).
    pub non_party: bool,
    /// An OECD member.
    pub oecd: bool,
    /// In the Annex VII group (OECD, EU, Liechtenstein).
    pub annex_vii: bool,
    /// Known to have accepted the Ban Amendment.
    pub ban_accepted: bool,
}

impl Standing {
    /// Neither a known Party nor a known non-Party.
    pub fn unknown(&self) -> bool {
        !self.party && !self.non_party
    }
}

/// The country groups.
#[derive(Debug, Clone)]
pub struct Countries {
    parties: HashSet<String>,
    non_parties: HashSet<String>,
    oecd: HashSet<String>,
    annex_vii: HashSet<String>,
    ban_accepted: HashSet<String>,
}

impl Countries {
    /// Parses the embedded country data; `ban_accepted` comes from the curated file.
    ///
    /// # Errors
    /// [`KnowledgeBaseError::Parse`] when a file does not have the expected shape.
    pub fn bundled(ban_accepted: &[String]) -> Result<Self, KnowledgeBaseError> {
        let parties: PartiesFile =
            serde_json::from_str(PARTIES).map_err(|e| KnowledgeBaseError::Parse {
                file: "basel_parties.json",
                message: e.to_string(),
            })?;
        let groups: GroupsFile =
            serde_json::from_str(GROUPS).map_err(|e| KnowledgeBaseError::Parse {
                file: "annex_vii_and_oecd.json",
                message: e.to_string(),
            })?;
        let set = |v: Vec<Iso>| v.into_iter().map(|i| i.iso2).collect::<HashSet<_>>();
        let non_parties = set(parties.signatories_not_parties)
            .into_iter()
            .chain(set(parties.un_members_not_parties_c_2022_2023.list))
            .collect();
        let mut annex_vii: HashSet<String> = groups
            .annex_vii
            .country_group_current_membership
            .into_iter()
            .collect();
        annex_vii.insert("EU".to_owned());
        annex_vii.extend(set(groups.eu_member_states.members));
        Ok(Self {
            parties: set(parties.parties),
            non_parties,
            oecd: set(groups.oecd_members.members),
            annex_vii,
            ban_accepted: ban_accepted.iter().cloned().collect(),
        })
    }

    /// The standing of `iso2` (upper case).
    pub fn standing(&self, iso2: &str) -> Standing {
        Standing {
            party: self.parties.contains(iso2),
            non_party: self.non_parties.contains(iso2) && !self.parties.contains(iso2),
            oecd: self.oecd.contains(iso2),
            annex_vii: self.annex_vii.contains(iso2),
            ban_accepted: self.ban_accepted.contains(iso2),
        }
    }
}
