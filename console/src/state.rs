//! What every console handler can reach: the REST edge's state, sessions,
//! sign-in limits, imports awaiting confirmation, and how sign-in links are
//! mailed.

use std::sync::Arc;

use commands::console::ConsoleStore;
use web::register_limit::{RegisterRate, RegistrationLimit};
use web::Shared;

use crate::pending::Pending;

/// How the console mails sign-in links.
#[derive(Clone)]
pub struct LinkMail {
    /// The SMTP transport (`BASEL_SMTP_URL`).
    pub transport: mail::smtp::Transport,
    /// The sender (`BASEL_MAIL_FROM`).
    pub from: mail::smtp::Mailbox,
}

/// Sign-in attempts per client: 60 an hour, 10 at once.
pub const SIGN_IN_RATE: RegisterRate = RegisterRate {
    per_hour: 60.0,
    burst: 10.0,
};

/// What every console handler can reach.
pub struct Console {
    /// The REST edge's state (store, read tables, projector, cache).
    pub app: Shared,
    /// Sessions and form tokens.
    pub sessions: ConsoleStore,
    /// Sign-in attempts per client.
    pub sign_ins: RegistrationLimit,
    /// Import files previewed and awaiting confirmation, by session.
    pub imports: Pending,
    /// How sign-in links are mailed (`BASEL_SMTP_URL` set); `None`:
    /// sign-in by mailed link is not offered.
    pub mail: Option<LinkMail>,
}

/// What the binary tells the console at start.
#[derive(Clone, Default)]
pub struct Settings {
    /// How sign-in links are mailed; `None`: not offered.
    pub mail: Option<LinkMail>,
}

/// The console's state as handlers get it.
pub type Handle = Arc<Console>;
