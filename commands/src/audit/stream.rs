//! The JetStream copy of the log checked against the events table (server
//! mode): every message's body must hash to the leaf of the event it carries
//! (and to its `Basel-Leaf-Hash` header), and no event before the last one
//! on the stream may be missing from it.

use std::collections::{BTreeSet, HashMap};

use async_nats::jetstream;
use domain::envelope::Envelope;

use super::merkle::{leaf_hash, Hash};
use super::verify::{Finding, Kind};
use crate::relay::{RelayError, LEAF_HASH_HEADER};

/// What the stream check saw.
#[derive(Debug, Default)]
pub struct StreamReport {
    /// Messages read.
    pub messages: u64,
    /// What is wrong, in stream order.
    pub findings: Vec<Finding>,
}

fn finding(position: Option<i64>, detail: String) -> Finding {
    Finding {
        kind: Kind::Stream,
        position,
        detail,
    }
}

/// Reads every message of `stream` and compares it with `leaves` (each
/// stored event's leaf hash by position).
///
/// # Errors
/// [`RelayError::Nats`] when the stream cannot be read.
pub async fn verify_stream(
    context: &jetstream::Context,
    stream: &str,
    leaves: &HashMap<i64, Hash>,
) -> Result<StreamReport, RelayError> {
    let nats = |e: &dyn std::fmt::Display| RelayError::Nats(e.to_string());
    let mut handle = context.get_stream(stream).await.map_err(|e| nats(&e))?;
    let state = handle.info().await.map_err(|e| nats(&e))?.state.clone();
    let mut report = StreamReport::default();
    let mut seen = BTreeSet::new();
    if state.messages > 0 {
        for sequence in state.first_sequence..=state.last_sequence {
            let message = match handle.get_raw_message(sequence).await {
                Ok(message) => message,
                Err(error) => {
                    report.findings.push(finding(
                        None,
                        format!("message {sequence} cannot be read ({error}): deleted?"),
                    ));
                    continue;
                }
            };
            report.messages += 1;
            let computed = leaf_hash(&message.payload);
            let Ok(envelope) = serde_json::from_slice::<Envelope>(&message.payload) else {
                report
                    .findings
                    .push(finding(None, format!("message {sequence} is not an event")));
                continue;
            };
            let position = envelope.position;
            seen.insert(position);
            if let Some(header) = message.headers.get(LEAF_HASH_HEADER) {
                if header.as_str() != hex::encode(computed) {
                    report.findings.push(finding(Some(position), format!("message {sequence}: its {LEAF_HASH_HEADER} header does not match its body")));
                }
            }
            match leaves.get(&position) {
                None => report.findings.push(finding(
                    Some(position),
                    format!("message {sequence} carries an event the events table does not hold"),
                )),
                Some(leaf) if *leaf != computed => report.findings.push(finding(
                    Some(position),
                    format!("message {sequence} differs from the stored event"),
                )),
                Some(_) => {}
            }
        }
    }
    if let Some(&last) = seen.iter().next_back() {
        let mut missing: Vec<i64> = leaves
            .keys()
            .copied()
            .filter(|p| *p < last && !seen.contains(p))
            .collect();
        missing.sort_unstable();
        if let Some(first) = missing.first() {
            report.findings.push(finding(
                Some(*first),
                format!(
                    "{} events before the stream's last are not on it",
                    missing.len()
                ),
            ));
        }
    }
    Ok(report)
}
