//! `BASEL_SMTP_URL` and the SMTP transport built from it (lettre, rustls).
//!
//! | URL | connection |
//! |---|---|
//! | `smtp://host[:port]` | plaintext, port 25 (a trusted local relay) |
//! | `smtp://host[:port]?tls=opportunistic` | STARTTLS when offered, port 587 |
//! | `smtp://host[:port]?tls=required` | STARTTLS or fail, port 587 |
//! | `smtps://host[:port]` | implicit TLS, port 465 |
//!
//! `user:password@` (percent-encoded) authenticates with PLAIN or LOGIN. A
//! password is refused on a plaintext connection to anything but loopback:
//! it would cross the network in clear. TLS certificates are checked against
//! the Mozilla roots (webpki-roots), plus the CA of `BASEL_SMTP_CA_FILE`
//! when one is given (a private CA or a self-signed server).

use std::time::Duration;

pub use lettre::message::Mailbox;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Address, AsyncSmtpTransport, Tokio1Executor};
use secrecy::{ExposeSecret, SecretString};

use crate::MailError;

/// How long one SMTP conversation may take before it counts as failed.
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// The transport mail leaves through.
pub type Transport = AsyncSmtpTransport<Tokio1Executor>;

/// A checked `BASEL_SMTP_URL`. It may hold a password, so it is kept secret
/// and shown only as [`SmtpUrl::describe`] (scheme, host, port).
#[derive(Clone)]
pub struct SmtpUrl {
    url: SecretString,
    described: String,
    host: String,
    tls: TlsMode,
    ca: Option<Vec<u8>>,
}

/// How the connection is secured, as the URL says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TlsMode {
    Plain,
    Opportunistic,
    Required,
    Implicit,
}

impl std::fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.described)
    }
}

impl SmtpUrl {
    /// Checks `text`: scheme `smtp` or `smtps`, a host, a known `tls` value,
    /// no password in clear over the network.
    ///
    /// # Errors
    /// [`MailError::Settings`] naming `BASEL_SMTP_URL` and what is wrong.
    pub fn parse(text: &str) -> Result<Self, MailError> {
        let bad = |why: &str| MailError::Settings(format!("BASEL_SMTP_URL {why}"));
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| bad("must look like smtp://host:587 or smtps://host:465"))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "smtp" && scheme != "smtps" {
            return Err(bad(&format!(
                "has the scheme {scheme:?}; use smtp:// (plaintext or STARTTLS with ?tls=required) or smtps:// (implicit TLS)"
            )));
        }
        let (authority, query) = match rest.split_once('?') {
            Some((authority, query)) => (authority, Some(query)),
            None => (rest, None),
        };
        let authority = authority.split('/').next().unwrap_or_default();
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((userinfo, hostport)) => (Some(userinfo), hostport),
            None => (None, authority),
        };
        if hostport.is_empty() {
            return Err(bad("names no host"));
        }
        let tls = query
            .into_iter()
            .flat_map(|q| q.split('&'))
            .find_map(|pair| pair.strip_prefix("tls="));
        if let Some(tls) = tls {
            if !matches!(tls, "required" | "opportunistic") || scheme == "smtps" {
                return Err(bad(
                    "has an unknown tls= value; use ?tls=required or ?tls=opportunistic with smtp://",
                ));
            }
        }
        let has_password = userinfo.is_some_and(|u| u.contains(':'));
        let host = hostport
            .rsplit_once(':')
            .map_or(hostport, |(host, _)| host)
            .trim_matches(['[', ']']);
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if has_password && scheme == "smtp" && tls.is_none() && !loopback {
            return Err(bad(
                "would send the password in clear: use smtps:// or add ?tls=required",
            ));
        }
        let url = Self {
            url: SecretString::from(text.to_owned()),
            described: format!("{scheme}://{hostport}"),
            host: host.to_owned(),
            tls: match (scheme.as_str(), tls) {
                ("smtps", _) => TlsMode::Implicit,
                (_, Some("required")) => TlsMode::Required,
                (_, Some(_)) => TlsMode::Opportunistic,
                _ => TlsMode::Plain,
            },
            ca: None,
        };
        url.transport()?;
        Ok(url)
    }

    /// Also trusts the CA certificate(s) in `pem` (`BASEL_SMTP_CA_FILE`).
    ///
    /// # Errors
    /// [`MailError::Settings`] when the PEM holds no usable certificate.
    pub fn with_ca(mut self, pem: Vec<u8>) -> Result<Self, MailError> {
        Certificate::from_pem(&pem).map_err(|e| {
            MailError::Settings(format!(
                "BASEL_SMTP_CA_FILE does not hold a PEM certificate: {e}"
            ))
        })?;
        self.ca = Some(pem);
        self.transport()?;
        Ok(self)
    }

    /// Scheme, host and port, never the user or password.
    pub fn describe(&self) -> &str {
        &self.described
    }

    /// The lettre transport (connections are opened per send).
    ///
    /// # Errors
    /// [`MailError::Settings`] when lettre refuses the URL.
    pub fn transport(&self) -> Result<Transport, MailError> {
        let unusable = |e: lettre::transport::smtp::Error| {
            MailError::Settings(format!("BASEL_SMTP_URL is not usable: {e}"))
        };
        let mut builder = Transport::from_url(self.url.expose_secret())
            .map_err(unusable)?
            .timeout(Some(SMTP_TIMEOUT));
        if let Some(pem) = &self.ca {
            let certificate = Certificate::from_pem(pem).map_err(unusable)?;
            let parameters = TlsParameters::builder(self.host.clone())
                .add_root_certificate(certificate)
                .build_rustls()
                .map_err(unusable)?;
            builder = match self.tls {
                TlsMode::Plain => builder,
                TlsMode::Opportunistic => builder.tls(Tls::Opportunistic(parameters)),
                TlsMode::Required => builder.tls(Tls::Required(parameters)),
                TlsMode::Implicit => builder.tls(Tls::Wrapper(parameters)),
            };
        }
        Ok(builder.build())
    }
}

/// Parses `BASEL_MAIL_FROM` (`basel <noreply@example.org>` or a bare address).
///
/// # Errors
/// [`MailError::Settings`] naming the setting.
pub fn parse_from(text: &str) -> Result<Mailbox, MailError> {
    text.trim().parse().map_err(|e| {
        MailError::Settings(format!(
            "BASEL_MAIL_FROM is not an address lettre can use ({e}); e.g. 'basel <noreply@example.org>'"
        ))
    })
}

/// The sender of a process that only queues mail (no `BASEL_MAIL_FROM`):
/// never used to send.
pub fn unset_sender() -> Mailbox {
    Mailbox::new(
        None,
        Address::new("noreply", "localhost").unwrap_or_else(|_| unreachable!("a valid address")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_and_smtps_urls_are_accepted_and_described_without_secrets() {
        let url = SmtpUrl::parse("smtps://user:s3cret@mail.example.org:465").expect("smtps");
        assert_eq!(url.describe(), "smtps://mail.example.org:465");
        assert!(!format!("{url:?}").contains("s3cret"));
        SmtpUrl::parse("smtp://user:pw@mail.example.org:587?tls=required").expect("starttls");
        SmtpUrl::parse("smtp://127.0.0.1:2525").expect("plain loopback");
        SmtpUrl::parse("smtp://u:p@127.0.0.1:2525").expect("password on loopback");
    }

    #[test]
    fn other_schemes_clear_passwords_and_unknown_tls_values_are_refused() {
        for bad in [
            "http://mail.example.org",
            "mail.example.org:25",
            "smtp://",
            "smtp://u:p@mail.example.org:25",
            "smtp://mail.example.org?tls=maybe",
        ] {
            let error = SmtpUrl::parse(bad).expect_err(bad).to_string();
            assert!(error.starts_with("BASEL_SMTP_URL"), "{bad}: {error}");
            assert!(!error.contains(":p@"), "{error}");
        }
    }

    #[test]
    fn the_sender_must_be_an_address() {
        assert!(parse_from("basel <noreply@example.org>").is_ok());
        assert!(parse_from("not an address").is_err());
    }
}
