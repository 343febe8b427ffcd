//! Each State's consent and duty under the regime, and the steps of the
//! procedure in order, each naming who does it and the provision it rests
//! on.

use schemars::JsonSchema;
use serde::Serialize;

use super::{
    Consent, Operation, Prohibited, Regime, Role, Route, RouteState, StateFacts, WasteKind,
};

/// One step of the procedure.
#[derive(Serialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
pub struct Step {
    /// Who does it.
    pub who: String,
    /// What they do.
    pub what: String,
    /// The provision it rests on.
    pub article: String,
}

fn step(who: impl Into<String>, what: impl Into<String>, article: &str) -> Step {
    Step {
        who: who.into(),
        what: what.into(),
        article: article.to_owned(),
    }
}

/// What the procedure rests on: the regime, the waste, the operation, and
/// whether an EU rule asks for notification of a waste the regime alone
/// would not (B3011; a green waste a country answered (b) for).
#[derive(Debug, Clone, Copy)]
pub struct Basis {
    /// The regime.
    pub regime: Regime,
    /// The waste's kind.
    pub waste: WasteKind,
    /// The operation the steps follow.
    pub operation: Operation,
    /// An EU rule asks for prior written notification and consent.
    pub eu_notified: bool,
}

impl Basis {
    /// Whether the movement is notified.
    fn notified(&self) -> bool {
        let green_recovery =
            self.waste == WasteKind::Green && self.operation == Operation::Recovery;
        match self.regime {
            Regime::EuWsr => self.eu_notified || !green_recovery,
            Regime::OecdDecision => self.waste != WasteKind::Green,
            Regime::BaselPic | Regime::Article11Agreement => true,
            Regime::Domestic
            | Regime::NotControlled
            | Regime::NotCovered
            | Regime::AntarcticRemoval => false,
        }
    }
}

/// Every State on the route with its consent and duty.
pub fn states(route: Route<'_>, basis: &Basis) -> Vec<RouteState> {
    let regime = basis.regime;
    let notify = basis.notified();
    let mut out = vec![state(
        route.origin,
        Role::Export,
        Consent::NotApplicable,
        regime,
        notify,
    )];
    for t in route.transit {
        let consent = match (notify, regime, t.party) {
            (false, _, _) => Consent::NotRequired,
            (true, Regime::EuWsr | Regime::OecdDecision, _) => Consent::TacitAllowed,
            (true, Regime::Article11Agreement, _) => Consent::PerAgreement,
            (true, _, true) => Consent::Written,
            (true, _, false) => Consent::NationalLaw,
        };
        out.push(state(t, Role::Transit, consent, regime, notify));
    }
    // Regulation (EU) 2024/1157, Title V: a State of destination in the
    // Union consents in writing; only an authority of dispatch outside the
    // Union may consent tacitly.
    let import = match (notify, regime) {
        (false, _) => Consent::NotRequired,
        (true, Regime::OecdDecision) if route.destination.wsr() => Consent::Written,
        (true, Regime::OecdDecision) => Consent::TacitAllowed,
        (true, Regime::Article11Agreement) => Consent::PerAgreement,
        (true, _) => Consent::Written,
    };
    let mut last = state(route.destination, Role::Import, import, regime, notify);
    if notify && regime == Regime::OecdDecision && route.destination.wsr() {
        "State of destination in the Union: consents in writing (Regulation (EU) 2024/1157, Title V, Article 53); tacit consent is not available to it.".clone_into(&mut last.duty);
    }
    out.push(last);
    out
}

fn state(f: &StateFacts, role: Role, consent: Consent, regime: Regime, notify: bool) -> RouteState {
    RouteState {
        country_code: f.code.clone(),
        name: f.name.clone(),
        role,
        basel_party: f.party,
        oecd_member: f.oecd,
        eu_member: f.eu,
        annex_vii: f.annex_vii,
        ban_amendment: f.ban_amendment,
        consent,
        duty: duty(role, consent, regime, notify).to_owned(),
    }
}

fn duty(role: Role, consent: Consent, regime: Regime, notify: bool) -> &'static str {
    if !notify {
        return "No notification or consent for this waste; its national rules on export, import and transit still apply.";
    }
    match (role, consent, regime) {
        (Role::Export, _, Regime::EuWsr) => "State of dispatch: receives the notification, decides on it within 30 days, and the shipment needs its consent too (Regulation (EU) 2024/1157, Article 9).",
        (Role::Export, _, _) => "State of export: its competent authority receives the notification and transmits it to the States concerned; it must not let the movement start before every required consent (Basel Article 6(1), 6(3)).",
        (Role::Transit, Consent::Written, _) => "State of transit (a Party): acknowledges the notification and consents in writing; where it has declared it does not require prior written consent, silence for 60 days counts as consent (Basel Article 6(4)).",
        (Role::Transit, Consent::TacitAllowed, _) => "State of transit: may object within 30 days; without objection its consent is tacit.",
        (Role::Transit, Consent::NationalLaw, _) => "State of transit (not a Party): is notified (Basel Article 7); whether it must consent is a matter of its own law.",
        (_, Consent::PerAgreement, _) => "Consents as the Article 11 agreement provides (its terms are not in this service's data).",
        (Role::Import, Consent::TacitAllowed, _) => "State of import (OECD Decision): consents in writing, or tacitly when it does not object within 30 days.",
        (Role::Import, _, Regime::EuWsr) => "State of destination: decides within 30 days; the shipment needs its written consent (Regulation (EU) 2024/1157, Article 9).",
        (Role::Import, _, _) => "State of import: consents in writing, with or without conditions, or refuses; the movement needs its written consent and confirmation of a contract for environmentally sound management (Basel Article 6(2), 6(3)).",
        _ => "No consent required.",
    }
}

/// The steps in order for a movement that is not prohibited (or not known
/// to be: then the first step is to settle what is unknown).
pub fn steps(route: Route<'_>, basis: &Basis, prohibited: Prohibited) -> Vec<Step> {
    let (regime, waste, operation) = (basis.regime, basis.waste, basis.operation);
    let mut out = Vec::new();
    if prohibited == Prohibited::Unknown {
        out.push(step(
            "exporter",
            "Settle first what the rules leave unknown (see rules with effect may_prohibit, and by_operation): until then treat the movement as prohibited.",
            "Basel Convention, Article 4",
        ));
    }
    let (o, d) = (&route.origin.name, &route.destination.name);
    let others: Vec<&str> = route
        .transit
        .iter()
        .map(|t| t.name.as_str())
        .chain([d.as_str()])
        .collect();
    let others = others.join(", ");
    let transit: Vec<&StateFacts> = route.transit.iter().collect();
    match regime {
        Regime::Domestic => out.push(step("holder", "Follow the national law of the State; the Convention's movement rules do not apply.", "Basel Convention, Article 2(3)")),
        Regime::NotCovered => out.push(step("exporter", format!("Follow the national law of {o}, {others}: neither end of the route is a Basel Party."), "Basel Convention, Article 4(5)")),
        Regime::NotControlled => out.extend([
            step("exporter", format!("Check the national rules of {others} on this waste, and any import restriction {d} has notified (Articles 4(1)(a) and 13)."), "Basel Convention, Article 4(1)"),
            step("exporter", "Ship with the contract and commercial documents; no Basel notification or movement document is required.", "Basel Convention, Article 1(1)"),
        ]),
        Regime::Article11Agreement => out.extend([
            step("exporter", format!("Notify the competent authority of {o}, and through it those of {others}, as the agreement under Article 11 provides."), "Basel Convention, Article 11"),
            step(format!("competent authorities of {others}"), "Consent as the agreement provides; its terms are not in this service's data: ask the competent authorities.", "Basel Convention, Article 11"),
            step("exporter", "Do not ship before every consent the agreement requires.", "Basel Convention, Article 4(5)"),
        ]),
        Regime::OecdDecision if waste == WasteKind::Green => out.push(step("exporter", "Ship under the normal controls of commercial transactions; no notification (Green control procedure).", "OECD Council Decision C(2001)107/FINAL")),
        Regime::OecdDecision => out.extend(oecd_amber(o, &others)),
        Regime::AntarcticRemoval => out.push(step("national Antarctic programme or operator", format!("Remove the waste from the Antarctic Treaty area as the Madrid Protocol, Annex III, and the law of the operator's State require, and import it into {d} under {d}'s law (see rules, import_ban)."), "Protocol on Environmental Protection to the Antarctic Treaty, Annex III")),
        Regime::EuWsr if !basis.notified() => out.extend(eu_green()),
        Regime::EuWsr => out.extend(eu_notified(o, &others, operation)),
        Regime::BaselPic => out.extend(basel(o, d, &transit)),
    }
    out
}

fn oecd_amber(o: &str, others: &str) -> Vec<Step> {
    const DECISION: &str = "OECD Council Decision C(2001)107/FINAL, Amber control procedure";
    vec![
        step("exporter (notifier)", format!("Notify the competent authorities of {o} and of {others} in writing before the shipment, with a contract for the environmentally sound recovery of the waste in place."), DECISION),
        step(format!("competent authorities of {others}"), "Acknowledge the notification; each may object within 30 days; without objection consent is tacit, and written consent may come earlier.", DECISION),
        step("exporter", "Ship with the movement document once every consent is given or the 30 days have passed without objection.", DECISION),
        step("recovery facility", format!("Confirm receipt of the waste, and later the completion of its recovery, to the exporter and the competent authority of {o}."), DECISION),
    ]
}

fn eu_green() -> Vec<Step> {
    const ART: &str = "Regulation (EU) 2024/1157, Article 18";
    vec![
        step("person who arranges the shipment", "Conclude a contract with the consignee for the recovery of the waste, in effect when the Annex VII document is completed and until the recovery is certified; it obliges taking the waste back if the shipment or recovery cannot be completed.", ART),
        step("person who arranges the shipment", "Complete and sign the Annex VII document (with the original producer where practicable); it travels with the waste; submit it electronically (Article 27).", ART),
        step("consignee and recovery facility", "Sign the Annex VII document on receipt and certify the recovery.", ART),
    ]
}

fn eu_notified(o: &str, others: &str, operation: Operation) -> Vec<Step> {
    let mut out = vec![
        step("notifier (the producer or holder)", format!("Submit the notification electronically to the competent authority of dispatch in {o} (Article 27), with the contract (Article 6) and a financial guarantee or equivalent insurance (Article 7)."), "Regulation (EU) 2024/1157, Articles 5 to 7"),
        step(format!("competent authorities of {o} and {others}"), "Decide within 30 days of the notification being complete: consent (with or without conditions), object, or refuse; the consent of a transit authority may be tacit.", "Regulation (EU) 2024/1157, Article 9"),
    ];
    if operation == Operation::Disposal {
        out.push(step(format!("competent authorities of {o} and of destination"), "Consent only if the conditions for disposal hold: the waste cannot be recovered in a technically feasible and economically viable way, nor disposed of so in the country where it was generated, among others.", "Regulation (EU) 2024/1157, Article 11"));
    }
    out.extend([
        step("notifier", "Ship only after the consents, with the movement document, giving prior information of the start of the shipment.", "Regulation (EU) 2024/1157, Article 16"),
        step("facility", format!("Confirm receipt, and certify the completion of the {} to the notifier and the competent authorities.", operation.as_str()), "Regulation (EU) 2024/1157, Article 16"),
    ]);
    out
}

fn basel(o: &str, d: &str, transit: &[&StateFacts]) -> Vec<Step> {
    let mut out = vec![
        step("exporter or generator", format!("Fill in the notification document (Annex V A) and notify, through the competent authority of {o} as {o} requires."), "Basel Convention, Article 6(1)"),
        step(format!("competent authority of {o} (State of export)"), format!("Transmit the notification in writing to the competent authorities of {d}{}.", transit.iter().map(|t| format!(" and {}", t.name)).collect::<String>()), "Basel Convention, Article 6(1)"),
        step(format!("competent authority of {d} (State of import)"), "Acknowledge the notification and answer in writing: consent, with or without conditions, refusal, or a request for more information.", "Basel Convention, Article 6(2)"),
    ];
    for t in transit {
        out.push(if t.party {
            step(format!("competent authority of {} (State of transit)", t.name), "Acknowledge and consent in writing; where it has declared that it does not require prior written consent, the movement may proceed after 60 days without an answer.", "Basel Convention, Article 6(4)")
        } else {
            step(format!("{} (State of transit, not a Party)", t.name), "Is notified; its own law decides whether it must consent.", "Basel Convention, Article 7")
        });
    }
    out.extend([
        step(format!("competent authority of {o}"), format!("Allow the movement to start only after the written consent of {d} and written confirmation of a contract between the exporter and the disposer for environmentally sound management."), "Basel Convention, Article 6(3)"),
        step("exporter and carriers", "Ship with the movement document (Annex V B) from the start of the movement to the point of disposal.", "Basel Convention, Article 4(7)(c)"),
        step("disposer", format!("Inform the exporter and the competent authority of {o} of receipt of the waste and, in due course, of the completion of disposal as specified in the notification."), "Basel Convention, Article 6(9)"),
    ]);
    out
}
