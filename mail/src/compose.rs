//! The mails: the API key, and a notice with its one-click unsubscribe link
//! (RFC 8058: `List-Unsubscribe` with an HTTPS link and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`). Each carries the
//! Message-ID its outbox row was queued under, so a retry is recognisably
//! the same message.
//!
//! The key is derived here, from the server secret, the address and the
//! generation in the event, and lives only in the message body.

use commands::secrets::ServerSecret;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::Mailbox;
use lettre::Message;
use secrecy::ExposeSecret;

use crate::outbox::{Due, Kind};
use crate::{notices, registrants, unsubscribe, MailError};

/// Who mail comes from and where its links point.
#[derive(Clone)]
pub struct Sender {
    /// `BASEL_MAIL_FROM`.
    pub from: Mailbox,
    /// The service's public base URL, without a trailing slash.
    pub public_url: String,
    /// The server secret (keys, unsubscribe tokens).
    pub secret: ServerSecret,
    /// Where registrants' sealed addresses are opened.
    pub addresses: commands::identity::AddressBook,
}

/// A message ready to send, or why there is nothing to send any more.
pub enum Built {
    /// Send this.
    Message(Box<Message>),
    /// Nothing to send (the reason is stored with the row).
    Skip(&'static str),
}

/// Builds the message for a due outbox row.
///
/// # Errors
/// Database or decode errors; [`MailError::Build`] when lettre refuses.
pub async fn build(
    db: &projections::ReadDb,
    sender: &Sender,
    due: &Due,
) -> Result<Built, MailError> {
    let message = &due.message;
    let state = registrants::load(db, &message.recipient).await?;
    let Some(email) = registrants::address(&sender.addresses, &message.recipient).await? else {
        return Ok(Built::Skip(
            "the registrant has no address (or was forgotten)",
        ));
    };
    let to: Mailbox = match email.as_str().parse() {
        Ok(to) => to,
        Err(_) => return Ok(Built::Skip("the registrant's address is not usable")),
    };
    let builder = Message::builder()
        .from(sender.from.clone())
        .to(to)
        .message_id(Some(format!(
            "<{}@{}>",
            message.message_id,
            sender.from.email.domain()
        )));
    let built = match message.kind {
        Kind::Key => {
            let generation: u32 = message.reference.parse().unwrap_or_default();
            if !state.active || state.generation != generation {
                return Ok(Built::Skip("the key was revoked or replaced"));
            }
            let key = sender.secret.api_key(&email.normalized(), generation);
            builder
                .subject("Your basel API key")
                .header(ContentType::TEXT_PLAIN)
                .body(key_text(&sender.public_url, key.expose_secret()))
        }
        Kind::Notice => {
            if !state.receives_notices() {
                return Ok(Built::Skip(
                    "the registrant unsubscribed or has no active key",
                ));
            }
            let Some((subject, body)) = notices::content(db, &message.reference).await? else {
                return Ok(Built::Skip("the notice does not exist"));
            };
            let link = format!(
                "{}/unsubscribe?token={}",
                sender.public_url,
                unsubscribe::token(&sender.secret, &message.recipient)
            );
            builder
                .subject(subject)
                .header(ContentType::TEXT_PLAIN)
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    format!("<{link}>"),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    "List-Unsubscribe=One-Click".to_owned(),
                ))
                .body(notice_text(&body, &link))
        }
    };
    built
        .map(|m| Built::Message(Box::new(m)))
        .map_err(|e| MailError::Build(e.to_string()))
}

fn key_text(public_url: &str, key: &str) -> String {
    format!(
        "Your API key for basel ({public_url}):\n\n    {key}\n\n\
Send it in the X-API-Key header, for example:\n\n    \
curl -H 'X-API-Key: {key}' {public_url}/api/v1/ca/DE\n\n\
Keep it secret: anyone with it can use the API as you. Registering the same\n\
address again at {public_url}/register mails this key again.\n\n\
You get this mail because this address was registered at {public_url}/register.\n\
If that was not you, ignore it: the key was sent only to you.\n"
    )
}

fn notice_text(body: &str, link: &str) -> String {
    let body = body.trim_end();
    format!(
        "{body}\n\n-- \nYou receive notices about the basel service because this address has an\n\
API key. To receive no more, open: {link}\n"
    )
}

/// Sends a steward their one-time console sign-in `link` at once (not
/// through the outbox: a queued row would have to keep the link, which is a
/// secret; a link that is lost is asked for again).
///
/// # Errors
/// [`MailError::Build`] when the address is unusable or lettre refuses, or
/// the SMTP server does not accept the message (its text is not quoted: it
/// may name the recipient).
pub async fn send_sign_in_link(
    transport: &crate::smtp::Transport,
    from: &Mailbox,
    to: &str,
    link: &str,
) -> Result<(), MailError> {
    use lettre::AsyncTransport;
    let to: Mailbox = to
        .parse()
        .map_err(|_| MailError::Build("the steward's address is not usable".to_owned()))?;
    let message = Message::builder()
        .from(from.clone())
        .to(to)
        .subject("Your basel console sign-in link")
        .header(ContentType::TEXT_PLAIN)
        .body(format!(
            "Open this link to sign in to the basel steward console:\n\n    {link}\n\n\
It works once, within 15 minutes. If you did not ask for it, ignore this mail:\n\
nobody can sign in without it.\n"
        ))
        .map_err(|e| MailError::Build(e.to_string()))?;
    transport.send(message).await.map(|_| ()).map_err(|e| {
        MailError::Build(match e.status() {
            Some(code) => format!("the SMTP server answered {code}"),
            None => e.to_string(),
        })
    })
}

/// Sends a steward their daily digest: `items` are `(label, link)` lines.
///
/// # Errors
/// As [`send_sign_in_link`].
pub async fn send_digest(
    transport: &crate::smtp::Transport,
    from: &Mailbox,
    to: &str,
    day: &str,
    items: &[(String, String)],
) -> Result<(), MailError> {
    use lettre::AsyncTransport;
    let to: Mailbox = to
        .parse()
        .map_err(|_| MailError::Build("the steward's address is not usable".to_owned()))?;
    let mut body = format!("Due on {day} among the Parties you took on in the basel console:\n\n");
    for (label, link) in items {
        body.push_str(&format!("- {label}\n  {link}\n"));
    }
    body.push_str(
        "\n-- \nYou get this digest at most once a day, only while a Party you took on is\n\
due. It stops when you record the check (a new attempt moves the date).\n",
    );
    let message = Message::builder()
        .from(from.clone())
        .to(to)
        .subject(format!("basel: {} due for you on {day}", items.len()))
        .header(ContentType::TEXT_PLAIN)
        .body(body)
        .map_err(|e| MailError::Build(e.to_string()))?;
    transport.send(message).await.map(|_| ()).map_err(|e| {
        MailError::Build(match e.status() {
            Some(code) => format!("the SMTP server answered {code}"),
            None => e.to_string(),
        })
    })
}
