//! Planning a transboundary movement: which procedure applies on a route
//! (export, any transit States, import), what each State on it must do, and
//! who notifies whom. Pure: the caller supplies the classification (or the
//! code's entry) and the countries' standing from the classifier's
//! reference data; the edges add each State's directory record.
//!
//! The rules followed, in the Convention's words where it has them:
//! - **Who notifies** (Article 6(1)): the State of export notifies, or
//!   requires the generator or exporter to notify, through the channel of its
//!   competent authority, the competent authorities of the States concerned.
//! - **Consents** (Article 6(3), 6(4)): the written consent of the State of
//!   import, and of every State of transit that is a Party, before the
//!   movement starts; a transit Party that has declared it does not require
//!   prior written consent is taken as consenting after 60 days without
//!   answer. A non-Party of transit is notified (Article 7) and its own law
//!   says whether it consents.
//! - **OECD Decision** (all States on the route OECD members): Amber waste
//!   needs notification and the consent of import and transit States, which
//!   may be tacit after 30 days; Green waste moves under the normal controls
//!   of commerce.
//! - **Green (Annex IX) waste** outside the OECD area is not subject to the
//!   Basel procedure; national import rules still apply.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::classifier::{Procedure, Regime, Standing};

/// What a State does on the route.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The State of export: its competent authority carries the notification.
    Export,
    /// A State of transit.
    Transit,
    /// The State of import.
    Import,
}

/// Whether and how a State must consent before the movement starts.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Consent {
    /// Prior written consent is required.
    Written,
    /// Consent may be tacit: no objection within the period (OECD Decision,
    /// 30 days).
    TacitAllowed,
    /// Notified, but consent follows that State's own law (a non-Party of
    /// transit, Article 7).
    NationalLaw,
    /// No notification or consent is required under the Convention.
    NotRequired,
    /// The State of export: it notifies; it does not consent.
    NotApplicable,
}

/// One State on the route.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct RouteState {
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    /// Export, transit or import.
    pub role: Role,
    /// A Party to the Basel Convention.
    pub basel_party: bool,
    /// An OECD member.
    pub oecd_member: bool,
    /// In the Annex VII group (OECD, EU, Liechtenstein).
    pub annex_vii: bool,
    /// Whether and how it must consent.
    pub consent: Consent,
    /// What it does, in one sentence.
    pub duty: String,
}

/// Who notifies whom, and whose consent is awaited.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct Notification {
    /// Whether prior written notification is required at all.
    pub required: bool,
    /// Who files it.
    pub notifier: String,
    /// The State whose competent authority carries it (the State of export).
    pub through: String,
    /// The States whose competent authorities receive it.
    pub to: Vec<String>,
    /// The States whose consent must be awaited before the movement starts.
    pub consents_from: Vec<String>,
    /// The steps, in order.
    pub steps: Vec<String>,
}

/// The procedure for a whole route.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct RoutePlan {
    /// Every State on the route, export first, import last.
    pub states: Vec<RouteState>,
    /// Who notifies whom.
    pub notification: Notification,
    /// Things to check: prohibitions, States the reference data does not know.
    pub warnings: Vec<String>,
}

/// What the plan needs to know of the waste.
#[derive(Debug, Clone, Copy)]
pub struct Waste {
    /// Whether the Basel PIC (or OECD Amber) procedure applies to it.
    pub controlled: bool,
}

/// A State's code with its standing.
pub type Stop<'a> = (&'a str, Standing);

/// Plans the route `origin → transit… → destination` for `waste`, given the
/// procedure between origin and destination.
pub fn plan(
    waste: Waste,
    procedure: &Procedure,
    origin: Stop<'_>,
    transit: &[Stop<'_>],
    destination: Stop<'_>,
) -> RoutePlan {
    let all_oecd = origin.1.oecd && destination.1.oecd && transit.iter().all(|(_, s)| s.oecd);
    let controlled = waste.controlled && procedure.regime != Regime::Domestic;
    let mut states = vec![state(origin, Role::Export, Consent::NotApplicable)];
    for stop in transit {
        let consent = transit_consent(*stop, controlled, all_oecd);
        states.push(state(*stop, Role::Transit, consent));
    }
    let import = match (controlled, all_oecd) {
        (false, _) => Consent::NotRequired,
        (true, true) => Consent::TacitAllowed,
        (true, false) => Consent::Written,
    };
    states.push(state(destination, Role::Import, import));
    let warnings = warnings(procedure, &states, origin, transit, destination);
    RoutePlan {
        notification: notification(controlled, all_oecd, &states),
        states,
        warnings,
    }
}

fn transit_consent((_, standing): Stop<'_>, controlled: bool, all_oecd: bool) -> Consent {
    match (controlled, all_oecd, standing.party) {
        (false, _, _) => Consent::NotRequired,
        (true, true, _) => Consent::TacitAllowed,
        (true, false, true) => Consent::Written,
        (true, false, false) => Consent::NationalLaw,
    }
}

fn state((code, standing): Stop<'_>, role: Role, consent: Consent) -> RouteState {
    RouteState {
        country_code: code.to_owned(),
        role,
        basel_party: standing.party,
        oecd_member: standing.oecd,
        annex_vii: standing.annex_vii,
        consent,
        duty: duty(role, consent).to_owned(),
    }
}

fn duty(role: Role, consent: Consent) -> &'static str {
    match (role, consent) {
        (Role::Export, _) => "State of export: its competent authority receives the notification from the exporter or generator and transmits it to the States concerned; it must not let the movement start before every required consent (Article 6(1), 6(3)).",
        (Role::Transit, Consent::Written) => "State of transit (a Party): acknowledges the notification and answers in writing within 60 days; the movement waits for its written consent, unless it has declared it does not require one, in which case silence for 60 days allows it (Article 6(4)).",
        (Role::Transit, Consent::TacitAllowed) => "State of transit (OECD Decision): may object within 30 days of acknowledging the notification; without objection its consent is tacit.",
        (Role::Transit, Consent::NationalLaw) => "State of transit (not a Party): must be notified (Article 7); whether it must consent is a matter of its own law.",
        (Role::Import, Consent::Written) => "State of import: answers in writing; the movement needs its written consent and confirmation of a contract for environmentally sound management (Article 6(2), 6(3)).",
        (Role::Import, Consent::TacitAllowed) => "State of import (OECD Decision): consents in writing or tacitly when it does not object within 30 days of acknowledging the notification.",
        (_, _) => "No notification or consent under the Convention for this waste; national rules on import and transit still apply.",
    }
}

fn notification(controlled: bool, all_oecd: bool, states: &[RouteState]) -> Notification {
    let through = states
        .first()
        .map(|s| s.country_code.clone())
        .unwrap_or_default();
    let others: Vec<&RouteState> = states.iter().skip(1).collect();
    let to: Vec<String> = if controlled {
        others.iter().map(|s| s.country_code.clone()).collect()
    } else {
        Vec::new()
    };
    let consents_from: Vec<String> = others
        .iter()
        .filter(|s| matches!(s.consent, Consent::Written | Consent::TacitAllowed))
        .map(|s| s.country_code.clone())
        .collect();
    Notification {
        required: controlled,
        notifier: if controlled {
            "The exporter or the generator of the waste (as the State of export requires)".into()
        } else {
            "Nobody: the waste moves under the normal controls of commerce".into()
        },
        through,
        steps: steps(controlled, all_oecd),
        to,
        consents_from,
    }
}

fn steps(controlled: bool, all_oecd: bool) -> Vec<String> {
    if !controlled {
        return vec![
            "Check the import and transit States' national rules and any import restrictions they have notified under Article 13.".into(),
            "Ship with the contract and commercial documents; no Basel notification or movement document is required.".into(),
        ];
    }
    let wait = if all_oecd {
        "Wait for the consents: written, or tacit when no State concerned objects within 30 days of acknowledging (OECD Decision)."
    } else {
        "Wait for the written consent of the State of import and of each transit Party (60 days for a transit Party that does not require written consent), and confirmation of a contract for environmentally sound management."
    };
    vec![
        "The exporter or generator fills in the notification document (Annex V A) and gives it to the competent authority of the State of export.".into(),
        "That authority transmits it to the competent authorities of the State of import and of every State of transit.".into(),
        wait.into(),
        "Ship with the movement document (Annex V B); the disposer confirms receipt and, later, completion of disposal or recovery to the exporter and the State of export.".into(),
    ]
}

fn warnings(
    procedure: &Procedure,
    states: &[RouteState],
    origin: Stop<'_>,
    transit: &[Stop<'_>],
    destination: Stop<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    if procedure.prohibited == Some(true) {
        out.push(format!(
            "This movement is prohibited: {}",
            procedure.summary
        ));
    } else if procedure.prohibited.is_none() && procedure.notification_required {
        out.push(format!(
            "This movement may be prohibited: {}",
            procedure.summary
        ));
    }
    for (code, standing) in std::iter::once(origin)
        .chain(transit.iter().copied())
        .chain([destination])
    {
        if standing.unknown() {
            out.push(format!("{code} is neither a known Basel Party nor a known non-Party: check the code and the State's rules."));
        }
    }
    let non_party_transit: Vec<&str> = states
        .iter()
        .filter(|s| s.role == Role::Transit && s.consent == Consent::NationalLaw)
        .map(|s| s.country_code.as_str())
        .collect();
    if !non_party_transit.is_empty() {
        out.push(format!(
            "Transit through a non-Party ({}): notify it and follow its law (Article 7).",
            non_party_transit.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(party: bool, oecd: bool) -> Standing {
        Standing {
            party,
            non_party: !party,
            oecd,
            annex_vii: oecd,
            ban_accepted: false,
        }
    }

    fn procedure(prohibited: Option<bool>, notification_required: bool) -> Procedure {
        Procedure {
            origin: "AA".into(),
            destination: "BB".into(),
            regime: Regime::BaselPic,
            prohibited,
            notification_required,
            summary: "the summary".into(),
            articles: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn consents(plan: &RoutePlan) -> Vec<Consent> {
        plan.states.iter().map(|s| s.consent).collect()
    }

    #[test]
    fn controlled_waste_through_a_party_needs_written_consents_and_the_exporter_notifies() {
        let plan = plan(
            Waste { controlled: true },
            &procedure(Some(false), true),
            ("DE", standing(true, true)),
            &[("SG", standing(true, false))],
            ("VN", standing(true, false)),
        );
        assert_eq!(
            consents(&plan),
            [Consent::NotApplicable, Consent::Written, Consent::Written]
        );
        assert_eq!(plan.notification.through, "DE");
        assert_eq!(plan.notification.to, ["SG", "VN"]);
        assert_eq!(plan.notification.consents_from, ["SG", "VN"]);
        assert!(plan.notification.notifier.contains("exporter"));
        assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    }

    #[test]
    fn inside_the_oecd_consent_may_be_tacit() {
        let plan = plan(
            Waste { controlled: true },
            &procedure(Some(false), true),
            ("DE", standing(true, true)),
            &[("AT", standing(true, true))],
            ("FR", standing(true, true)),
        );
        assert_eq!(
            consents(&plan),
            [
                Consent::NotApplicable,
                Consent::TacitAllowed,
                Consent::TacitAllowed
            ]
        );
        assert!(plan
            .notification
            .steps
            .iter()
            .any(|s| s.contains("30 days")));
    }

    #[test]
    fn a_non_party_of_transit_follows_its_own_law_and_is_named_in_a_warning() {
        let plan = plan(
            Waste { controlled: true },
            &procedure(Some(false), true),
            ("DE", standing(true, true)),
            &[("US", standing(false, true))],
            ("NG", standing(true, false)),
        );
        assert_eq!(plan.states[1].consent, Consent::NationalLaw);
        assert_eq!(
            plan.notification.to,
            ["US", "NG"],
            "a non-Party is notified"
        );
        assert_eq!(plan.notification.consents_from, ["NG"]);
        assert!(plan
            .warnings
            .iter()
            .any(|w| w.contains("US") && w.contains("Article 7")));
    }

    #[test]
    fn green_waste_needs_no_notification_and_no_consent() {
        let plan = plan(
            Waste { controlled: false },
            &procedure(Some(false), false),
            ("FR", standing(true, true)),
            &[("BE", standing(true, true))],
            ("IN", standing(true, false)),
        );
        assert!(!plan.notification.required);
        assert!(plan.notification.to.is_empty());
        assert!(plan.notification.consents_from.is_empty());
        assert_eq!(plan.states[1].consent, Consent::NotRequired);
        assert_eq!(plan.states[2].consent, Consent::NotRequired);
    }

    #[test]
    fn a_prohibited_or_possibly_prohibited_movement_is_a_warning() {
        let stops = (("DE", standing(true, true)), ("VN", standing(true, false)));
        let prohibited = plan(
            Waste { controlled: true },
            &procedure(Some(true), true),
            stops.0,
            &[],
            stops.1,
        );
        assert!(prohibited.warnings[0].starts_with("This movement is prohibited"));
        let unknown = plan(
            Waste { controlled: true },
            &procedure(None, true),
            stops.0,
            &[],
            stops.1,
        );
        assert!(unknown.warnings[0].starts_with("This movement may be prohibited"));
        let stranger = Standing {
            party: false,
            non_party: false,
            oecd: false,
            annex_vii: false,
            ban_accepted: false,
        };
        let odd = plan(
            Waste { controlled: true },
            &procedure(Some(false), true),
            stops.0,
            &[("XX", stranger)],
            stops.1,
        );
        assert!(odd.warnings.iter().any(|w| w.starts_with("XX is neither")));
    }
}
