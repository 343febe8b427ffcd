//! The facts a rule decides from ([`Case`]) and what a rule makes of them
//! ([`Effect`], [`Outcome`]): shared by the rules table (`rules.rs`), the
//! EU Regulation's rules (`eu.rs`, `eu1418.rs`) and the import restrictions
//! (`bans.rs`), so that none of them reaches back into the table.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::facts::StateFacts;
use super::{Operation, WasteKind};

/// What a finding does to the movement: prohibits it, may prohibit it (a
/// fact it depends on is unknown), permits it (naming the instrument), sets
/// the procedure, or is a note that does not decide.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// It prohibits the movement.
    Prohibits,
    /// It may prohibit it: a fact it depends on is unknown.
    MayProhibit,
    /// It allows it, naming the instrument that does.
    Permits,
    /// It sets the procedure to follow.
    Procedure,
    /// Context: it does not decide.
    Note,
}
string_enum_schema!(Effect, "Effect", "prohibits; may_prohibit (a fact it depends on is unknown); permits; procedure (sets it); note (does not decide)", ["prohibits", "may_prohibit", "permits", "procedure", "note"]);

/// The facts a rule decides from.
#[derive(Debug, Clone, Copy)]
pub struct Case<'a> {
    /// The State of export.
    pub origin: &'a StateFacts,
    /// The State of import.
    pub destination: &'a StateFacts,
    /// The States of transit, in order.
    pub transit: &'a [StateFacts],
    /// The waste's kind.
    pub waste: WasteKind,
    /// Recovery or disposal.
    pub operation: Operation,
    /// The waste's Basel code, when known (`B3011`, `Y46`, …).
    pub code: Option<&'a str>,
    /// The day whose law applies.
    pub as_of: NaiveDate,
}

impl Case<'_> {
    /// Both ends apply the EU Regulation (EU or EEA).
    pub(crate) fn eu_internal(&self) -> bool {
        self.origin.wsr() && self.destination.wsr()
    }

    /// The waste's code is one of `codes`.
    pub(crate) fn code_in(&self, codes: &[&str]) -> bool {
        self.code
            .is_some_and(|c| codes.iter().any(|k| k.eq_ignore_ascii_case(c)))
    }

    /// Antarctica (south of 60° S): not a State.
    pub(crate) fn leaves_antarctica(&self) -> bool {
        self.origin.code == "AQ"
    }

    pub(crate) fn oecd_recovery(&self) -> bool {
        self.operation == Operation::Recovery
            && self.origin.oecd
            && self.destination.oecd
            && self.transit.iter().all(|t| t.oecd)
    }

    pub(crate) fn controlled(&self) -> bool {
        self.waste != WasteKind::Green
    }

    pub(crate) fn domestic(&self) -> bool {
        self.origin.code == self.destination.code
    }
}

/// A rule's finding before it is named: the effect, the text, the evidence.
pub type Outcome = Option<(Effect, String, Option<String>)>;

pub(crate) fn say(effect: Effect, text: String) -> Outcome {
    Some((effect, text, None))
}
