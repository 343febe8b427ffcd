//! The daily reminder digest (mail role, `BASEL_SMTP_URL` set): each active
//! steward with Parties assigned to them ("assign to me") whose retry date
//! ([`super::worklist::retry_due`]) has come gets one mail a day listing
//! them, with links to their Party pages. Nothing is sent when nothing is
//! due; a day's digest is claimed in `console_digests` before it is sent,
//! so it is never sent twice (a failed send gives the claim back).

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{NaiveDate, Utc};

use commands::console::ConsoleStore;
use commands::identity::AddressBook;
use projections::stewards;

use crate::state::LinkMail;

/// How often the mail role looks whether today's digests are out.
pub const DIGEST_POLL: Duration = Duration::from_secs(15 * 60);

/// What the digest needs.
pub struct Digest {
    /// The read tables (directory, stewards).
    pub read_db: projections::ReadDb,
    /// Where a day's digests are recorded.
    pub store: ConsoleStore,
    /// Where stewards' addresses are opened.
    pub addresses: AddressBook,
    /// The transport and sender.
    pub mail: LinkMail,
    /// `BASEL_PUBLIC_URL`, for the links.
    pub public_url: String,
}

impl Digest {
    /// Sends `day`'s digests not sent yet; returns how many were sent.
    ///
    /// # Errors
    /// When the read tables or the store cannot be read.
    pub async fn send_due(&self, day: NaiveDate) -> anyhow::Result<usize> {
        let rows = projections::directory::Reader::new(self.read_db.clone())
            .all()
            .await?;
        let mut due: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for row in &rows {
            let (Some(steward), Some(when)) = (
                row.state.assigned_to.as_ref(),
                super::worklist::retry_due(row),
            ) else {
                continue;
            };
            if when <= day {
                due.entry(steward.as_str().to_owned()).or_default().push((
                    format!(
                        "{} ({}): retry due {when}",
                        row.country_name, row.country_code
                    ),
                    format!(
                        "{}/steward/party/{}",
                        self.public_url.trim_end_matches('/'),
                        row.country_code
                    ),
                ));
            }
        }
        let day = day.to_string();
        let mut sent = 0;
        for (steward, items) in due {
            let active = stewards::by_id(&self.read_db, &steward)
                .await?
                .is_some_and(|s| s.status == "active");
            let Some(address) = self.addresses.steward(&steward).await? else {
                continue;
            };
            if !active || !self.store.claim_digest(&steward, &day).await? {
                continue;
            }
            match mail::compose::send_digest(
                &self.mail.transport,
                &self.mail.from,
                address.as_str(),
                &day,
                &items,
            )
            .await
            {
                Ok(()) => {
                    tracing::info!(steward = %steward, items = items.len(), "steward digest sent");
                    sent += 1;
                }
                Err(error) => {
                    tracing::warn!(steward = %steward, error = %error, "steward digest not sent; retried later");
                    self.store.release_digest(&steward, &day).await?;
                }
            }
        }
        Ok(sent)
    }

    /// Sends each day's digests, looking every [`DIGEST_POLL`], until
    /// `shutdown`.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            if let Err(error) = self.send_due(Utc::now().date_naive()).await {
                tracing::warn!(error = %format!("{error:#}"), "steward digests interrupted; retrying");
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = tokio::time::sleep(DIGEST_POLL) => {}
            }
        }
    }
}
