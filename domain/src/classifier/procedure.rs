//! Which control procedure applies to a movement from `origin` to
//! `destination`, given the classification's list type.
//!
//! Order of the rules: same country (no transboundary movement); an unknown
//! code (undetermined); both OECD members (OECD Decision, an Article 11
//! agreement, which also covers the non-Party United States); a Party and a
//! non-Party (Article 11 agreement needed, Article 4(5)); both non-Parties
//! (outside Basel); otherwise Basel PIC, with the Ban Amendment (Article 4A)
//! for hazardous wastes from the Annex VII group to a State outside it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::countries::{Countries, Standing};
use super::result::ListType;

/// The regime that governs a movement.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// OECD Council Decision C(2001)107/FINAL between OECD members: Green
    /// control (no notification) or Amber control (notification and consent).
    OecdDecision,
    /// Basel Prior Informed Consent (Articles 6 and 7) between Parties.
    BaselPic,
    /// A Party and a non-Party: only under an Article 11 agreement.
    Article11Agreement,
    /// Neither country is a Party: the Convention does not apply.
    NotCovered,
    /// Origin and destination are the same country.
    Domestic,
    /// A country code is unknown; the regime cannot be determined.
    Undetermined,
}

/// The control procedure for one movement.
///
/// Shape (JSON):
/// ```json
/// {"origin":"DE","destination":"NG","regime":"basel_pic","prohibited":true,
///  "notification_required":true,
///  "summary":"Prohibited: hazardous waste from an Annex VII country ...",
///  "articles":["Basel Article 4A (Ban Amendment)"],"notes":["..."]}
/// ```
/// `prohibited` is `null` when the answer depends on facts the reference data
/// does not hold (whether the exporting Party accepted the Ban Amendment,
/// whether an Article 11 agreement exists).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct Procedure {
    /// Country of export (ISO alpha-2).
    pub origin: String,
    /// Country of import (ISO alpha-2).
    pub destination: String,
    /// The governing regime.
    pub regime: Regime,
    /// Whether the movement is prohibited; null when it depends on facts not known.
    pub prohibited: Option<bool>,
    /// Whether prior written notification (and consent) is required.
    pub notification_required: bool,
    /// What applies, in one or two sentences.
    pub summary: String,
    /// The provisions relied on.
    pub articles: Vec<String>,
    /// Caveats and context.
    pub notes: Vec<String>,
}

/// Decides the procedure; returns it with warnings about the country codes.
pub fn decide(
    countries: &Countries,
    origin: &str,
    destination: &str,
    list_type: ListType,
    pic_required: bool,
) -> (Procedure, Vec<String>) {
    let o = countries.standing(origin);
    let d = countries.standing(destination);
    let mut warnings = Vec::new();
    for (code, s) in [(origin, o), (destination, d)] {
        if s.unknown() {
            warnings.push(format!(
                "Country code {code} is not a known Basel Party or known non-Party; the procedure could not be fully determined."
            ));
        } else if s.non_party {
            warnings.push(format!("{code} is not a Party to the Basel Convention."));
        }
    }
    let mut p = Procedure {
        origin: origin.to_owned(),
        destination: destination.to_owned(),
        regime: Regime::Undetermined,
        prohibited: None,
        notification_required: pic_required,
        summary: String::new(),
        articles: Vec::new(),
        notes: Vec::new(),
    };
    let hazardous = matches!(list_type, ListType::Amber | ListType::AnnexI);
    if origin == destination {
        domestic(&mut p);
    } else if o.unknown() || d.unknown() {
        undetermined(&mut p);
    } else if o.oecd && d.oecd {
        oecd(&mut p, o, d, pic_required);
    } else if o.party != d.party {
        article_11(&mut p, o, pic_required);
    } else if !o.party {
        not_covered(&mut p);
    } else {
        basel(&mut p, o, d, hazardous, list_type, pic_required);
    }
    (p, warnings)
}

fn domestic(p: &mut Procedure) {
    p.regime = Regime::Domestic;
    p.prohibited = Some(false);
    p.notification_required = false;
    p.summary = "Origin and destination are the same country: no transboundary movement; national law applies.".into();
}

fn undetermined(p: &mut Procedure) {
    p.summary = "The procedure could not be determined because a country code is unknown; treat the movement as controlled until the competent authorities confirm.".into();
}

fn oecd(p: &mut Procedure, o: Standing, d: Standing, pic_required: bool) {
    p.regime = Regime::OecdDecision;
    p.prohibited = Some(false);
    p.articles = vec![
        "OECD Council Decision C(2001)107/FINAL".into(),
        "Basel Article 11".into(),
    ];
    if pic_required {
        p.notification_required = true;
        p.summary = "Both countries are OECD members: the OECD Decision applies. Amber control procedure: prior written notification and consent of the competent authorities.".into();
    } else {
        p.notification_required = false;
        p.summary = "Both countries are OECD members: the OECD Decision applies. Green control procedure: no notification, subject to the normal controls of commerce.".into();
    }
    if !o.party || !d.party {
        p.notes.push("One country is not a Basel Party; the OECD Decision is the Article 11 agreement that allows the movement.".into());
    }
    p.notes.push("Annex II wastes (Y46-Y49) are handled under the Amber procedure in the OECD area unless listed as Green.".into());
}

fn article_11(p: &mut Procedure, o: Standing, pic_required: bool) {
    p.regime = Regime::Article11Agreement;
    p.articles = vec!["Basel Article 4(5)".into(), "Basel Article 11".into()];
    if pic_required {
        p.notification_required = true;
        p.summary = "A movement between a Party and a non-Party: permitted only under a bilateral, multilateral or regional agreement under Article 11; without one the Party must not permit it (Article 4(5)).".into();
    } else {
        p.prohibited = Some(false);
        p.notification_required = false;
        p.summary = "An Annex IX (Green) waste between a Party and a non-Party: not subject to Basel control; national import rules still apply.".into();
    }
    if o.annex_vii && !o.party {
        p.notes
            .push("The Ban Amendment binds only Parties that accepted it.".into());
    }
}

fn not_covered(p: &mut Procedure) {
    p.regime = Regime::NotCovered;
    p.summary =
        "Neither country is a Party: the Basel Convention does not apply; national law governs."
            .into();
}

fn basel(
    p: &mut Procedure,
    o: Standing,
    d: Standing,
    hazardous: bool,
    list_type: ListType,
    pic_required: bool,
) {
    p.regime = Regime::BaselPic;
    p.articles = vec!["Basel Article 6".into(), "Basel Article 7".into()];
    if hazardous && o.annex_vii && !d.annex_vii {
        p.articles
            .insert(0, "Basel Article 4A (Ban Amendment)".into());
        p.notification_required = true;
        p.notes.push("The Ban Amendment entered into force on 5 December 2019 and binds the Parties that accepted it.".into());
        if o.ban_accepted {
            p.prohibited = Some(true);
            p.summary = "Prohibited: hazardous waste from an Annex VII country (OECD, EU, Liechtenstein) to a country outside Annex VII, under the Ban Amendment (Article 4A), which the exporting Party has accepted.".into();
        } else {
            p.summary = "Hazardous waste from an Annex VII country to a country outside Annex VII: prohibited if the exporting Party has accepted the Ban Amendment (Article 4A); otherwise the Basel PIC procedure applies.".into();
        }
        return;
    }
    p.prohibited = Some(false);
    if pic_required {
        p.notification_required = true;
        p.summary = "Both countries are Parties: the Basel Prior Informed Consent procedure applies (notification by the State of export, written consent of the State of import and of transit States, movement document).".into();
        if list_type == ListType::AnnexII && o.annex_vii && !d.annex_vii {
            p.notes.push("Annex II wastes (e.g. Y48 plastic, Y49 e-waste) are outside the Ban Amendment: PIC applies, no ban.".into());
        }
    } else {
        p.notification_required = false;
        p.summary = "An Annex IX (Green) waste between Parties: not subject to the Basel PIC procedure; check the importing country's national requirements.".into();
    }
    p.notes.push("Any Party may prohibit imports under Article 4(1); check the importing country's notified import restrictions.".into());
}
