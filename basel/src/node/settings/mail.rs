//! E-mail settings of `basel serve` (SMTP, sender, how keys are handed out);
//! checked before anything starts by `crate::node::mail`.

use clap::{Args, ValueEnum};

/// `BASEL_KEY_DELIVERY`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Delivery {
    /// Show the key at once on the page and in the JSON answer.
    #[default]
    Page,
    /// Mail the key to the address; never show it.
    Email,
}

/// E-mail settings of `basel serve`.
#[derive(Debug, Clone, Default, Args)]
pub struct MailSettings {
    /// SMTP server mail leaves through: `smtp://host:587?tls=required`
    /// (STARTTLS), `smtps://host:465` (implicit TLS) or `smtp://host:25`
    /// (plaintext, a local relay), with optional `user:password@`.
    #[arg(long, env = "BASEL_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// The sender of every mail, e.g. `basel <noreply@example.org>`.
    #[arg(long, env = "BASEL_MAIL_FROM")]
    pub mail_from: Option<String>,
    /// A PEM file with the CA certificate of the SMTP server, trusted besides
    /// the Mozilla roots (a private CA or a self-signed server).
    #[arg(long, env = "BASEL_SMTP_CA_FILE")]
    pub smtp_ca_file: Option<std::path::PathBuf>,
    /// How `/register` hands out keys: `page` (shown at once) or `email`
    /// (mailed, never shown; needs `BASEL_SMTP_URL`).
    #[arg(long, env = "BASEL_KEY_DELIVERY", value_enum, default_value = "page")]
    pub key_delivery: Delivery,
}
