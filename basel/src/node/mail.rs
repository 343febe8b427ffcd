//! The mail settings of a serving process (`BASEL_SMTP_URL`,
//! `BASEL_MAIL_FROM`, `BASEL_KEY_DELIVERY`), checked at start, and the mail
//! role: the outbox task of crate `mail`.

use std::time::Duration;

use anyhow::bail;
use tokio::sync::watch;

use mail::compose::Sender;
use mail::mailer::Mailer;
use mail::smtp::{self, SmtpUrl};

use crate::node::runtime::Runtime;
use crate::node::settings::mail::{Delivery, MailSettings};
use crate::node::settings::ServeSettings;
use web::state::KeyDelivery;

/// How often the mail task looks for new events and due retries besides
/// the local commits that ring it.
const MAIL_POLL: Duration = Duration::from_millis(500);

/// The checked settings.
pub struct MailSetup {
    smtp: Option<SmtpUrl>,
    from: Option<smtp::Mailbox>,
    /// How `/register` hands out keys.
    pub key_delivery: KeyDelivery,
}

impl MailSettings {
    /// Checks the settings before anything starts.
    ///
    /// # Errors
    /// `email` delivery without `BASEL_SMTP_URL`; an unusable URL; an SMTP
    /// URL without `BASEL_MAIL_FROM`.
    pub fn check(&self) -> anyhow::Result<MailSetup> {
        if self.key_delivery == Delivery::Email && self.smtp_url.is_none() {
            bail!("BASEL_KEY_DELIVERY=email needs BASEL_SMTP_URL (e.g. smtps://user:password@mail.example.org:465): keys are then mailed and never shown");
        }
        let mut smtp = self.smtp_url.as_deref().map(SmtpUrl::parse).transpose()?;
        if let (Some(url), Some(path)) = (&smtp, &self.smtp_ca_file) {
            let pem = std::fs::read(path).map_err(|e| {
                anyhow::anyhow!("BASEL_SMTP_CA_FILE: cannot read {}: {e}", path.display())
            })?;
            smtp = Some(url.clone().with_ca(pem)?);
        }
        let from = self
            .mail_from
            .as_deref()
            .map(smtp::parse_from)
            .transpose()?;
        if smtp.is_some() && from.is_none() {
            bail!("BASEL_SMTP_URL needs BASEL_MAIL_FROM, the sender of every mail (e.g. 'basel <noreply@example.org>')");
        }
        Ok(MailSetup {
            smtp,
            from,
            key_delivery: match self.key_delivery {
                Delivery::Page => KeyDelivery::Page,
                Delivery::Email => KeyDelivery::Email,
            },
        })
    }
}

impl MailSetup {
    /// How the console mails sign-in links: `None` without `BASEL_SMTP_URL`.
    ///
    /// # Errors
    /// When the SMTP transport cannot be built.
    pub fn link_mail(&self) -> anyhow::Result<Option<console::LinkMail>> {
        let (Some(url), Some(from)) = (&self.smtp, &self.from) else {
            return Ok(None);
        };
        Ok(Some(console::LinkMail {
            transport: url.transport()?,
            from: from.clone(),
        }))
    }
}

/// The service's public base URL, for links in mail: `BASEL_PUBLIC_URL`,
/// else the URL of the REST listen address (a wildcard address shown as
/// `127.0.0.1`), as on the start page.
pub fn public_url(settings: &ServeSettings) -> String {
    settings
        .public_url
        .clone()
        .unwrap_or_else(|| super::public::url_of(settings.listen))
}

/// Starts the mail role: feeds the outbox from the log and, with
/// `BASEL_SMTP_URL`, sends.
///
/// # Errors
/// When the SMTP transport cannot be built.
pub fn start_mail(
    runtime: &Runtime,
    settings: &ServeSettings,
    setup: &MailSetup,
    stopped: &watch::Receiver<bool>,
    tasks: &mut super::tasks::Tasks,
) -> anyhow::Result<()> {
    let transport = setup.smtp.as_ref().map(SmtpUrl::transport).transpose()?;
    match &setup.smtp {
        Some(url) => tracing::info!(smtp = url.describe(), "mail leaves through the SMTP server"),
        None => tracing::info!("BASEL_SMTP_URL is not set: notices wait in the outbox until it is"),
    }
    if let Some(link_mail) = setup.link_mail()? {
        let digest = console::digest::Digest {
            read_db: runtime.read_db.clone(),
            store: commands::console::ConsoleStore::new(
                &runtime.backend,
                commands::console::Lifetimes::default(),
            ),
            addresses: commands::identity::AddressBook::new(&runtime.backend, &runtime.secret),
            mail: link_mail,
            public_url: public_url(settings),
        };
        super::tasks::background(tasks, digest.run(super::tasks::wait(stopped.clone())));
    }
    let from = setup.from.clone().unwrap_or_else(smtp::unset_sender);
    let sender = Sender {
        from,
        public_url: public_url(settings),
        secret: runtime.secret.clone(),
        addresses: commands::identity::AddressBook::new(&runtime.backend, &runtime.secret),
    };
    let mailer = Mailer::new(
        runtime.read_db.clone(),
        runtime.backend.clone(),
        sender,
        transport,
    );
    let shutdown = super::tasks::wait(stopped.clone());
    super::tasks::background(tasks, mailer.run(MAIL_POLL, runtime.wake.clone(), shutdown));
    Ok(())
}
