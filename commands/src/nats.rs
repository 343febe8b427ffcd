//! How a process reaches NATS as operators run it: a list of servers (all
//! tried, reconnects go to whichever answers), one way of authenticating
//! (a credentials file, an nkey seed file, user and password, or a token)
//! and TLS with a CA of the operator's own.
//!
//! Secrets stay out of logs and errors: a URL that carries a password or a
//! token is only ever shown through [`redacted`], and the connection's own
//! events are logged here without the server's address.
//!
//! Boundary: builds `async_nats::ConnectOptions`; knows nothing of streams.

use std::path::PathBuf;
use std::time::Duration;

use async_nats::{ConnectOptions, ServerAddr};
use secrecy::{ExposeSecret, SecretString};

use crate::relay::RelayError;

/// How to authenticate and encrypt, besides the URLs. At most one of the
/// credentials file, the nkey seed file, user and password, and the token
/// may be set (user and password may instead be in the URLs).
#[derive(Default, Clone)]
pub struct NatsAccess {
    /// A `.creds` file (user JWT and seed, from `nsc`).
    pub creds_file: Option<PathBuf>,
    /// A file holding an nkey seed (`SU…`).
    pub nkey_file: Option<PathBuf>,
    /// User name (with [`NatsAccess::password`]).
    pub user: Option<String>,
    /// Password of [`NatsAccess::user`].
    pub password: Option<SecretString>,
    /// An authentication token.
    pub token: Option<SecretString>,
    /// A CA certificate (PEM) the servers' certificates are checked
    /// against; setting it requires TLS.
    pub tls_ca: Option<PathBuf>,
    /// Client certificate (PEM), for servers that verify clients.
    pub tls_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    pub tls_key: Option<PathBuf>,
}

impl std::fmt::Debug for NatsAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsAccess")
            .field("creds_file", &self.creds_file)
            .field("nkey_file", &self.nkey_file)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("tls_ca", &self.tls_ca)
            .field("tls_cert", &self.tls_cert)
            .field("tls_key", &self.tls_key)
            .finish()
    }
}

/// One server of the list, with the credentials its URL carried taken out.
struct Server {
    /// The URL without user information.
    addr: ServerAddr,
    /// `user:password@` or `token@` from the URL.
    userinfo: Option<(String, Option<String>)>,
}

/// The comma-separated `urls` as the operator may see them: passwords and
/// tokens replaced by `***`.
pub fn redacted(urls: &str) -> String {
    urls.split(',')
        .map(|url| {
            let url = url.trim();
            match split_userinfo(url) {
                (rest, Some((user, Some(_)))) => insert_userinfo(&rest, &format!("{user}:***")),
                (rest, Some((_, None))) => insert_userinfo(&rest, "***"),
                (rest, None) => rest,
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `url` without its `user[:password]@`, and what that was.
fn split_userinfo(url: &str) -> (String, Option<(String, Option<String>)>) {
    let (scheme, rest) = match url.find("://") {
        Some(at) => (&url[..at + 3], &url[at + 3..]),
        None => ("", url),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let info = &rest[..at];
            let userinfo = match info.split_once(':') {
                Some((user, password)) => (user.to_owned(), Some(password.to_owned())),
                None => (info.to_owned(), None),
            };
            (format!("{scheme}{}", &rest[at + 1..]), Some(userinfo))
        }
        None => (url.to_owned(), None),
    }
}

fn insert_userinfo(url: &str, info: &str) -> String {
    match url.find("://") {
        Some(at) => format!("{}{info}@{}", &url[..at + 3], &url[at + 3..]),
        None => format!("{info}@{url}"),
    }
}

/// Parses the comma-separated list (`nats://a:4222,nats://b:4222`; a bare
/// `host:port` is `nats://`).
fn servers(urls: &str) -> Result<Vec<Server>, RelayError> {
    let mut list = Vec::new();
    for url in urls.split(',').map(str::trim) {
        if url.is_empty() {
            return Err(RelayError::Nats(format!(
                "BASEL_NATS_URL `{}` has an empty entry: give comma-separated URLs like nats://a:4222,nats://b:4222",
                redacted(urls)
            )));
        }
        let (bare, userinfo) = split_userinfo(url);
        let addr = bare.parse::<ServerAddr>().map_err(|error| {
            RelayError::Nats(format!(
                "BASEL_NATS_URL entry `{}` is not a NATS URL: {error}",
                redacted(url)
            ))
        })?;
        list.push(Server { addr, userinfo });
    }
    Ok(list)
}

/// The credentials the URLs carry: the same on every URL that has any.
fn url_credentials(list: &[Server]) -> Result<Option<(String, Option<String>)>, RelayError> {
    let mut found: Option<&(String, Option<String>)> = None;
    for info in list.iter().filter_map(|s| s.userinfo.as_ref()) {
        match found {
            Some(seen) if seen != info => {
                return Err(RelayError::Nats(
                    "the URLs of BASEL_NATS_URL carry different credentials: give them once (in every URL alike, or BASEL_NATS_USER/BASEL_NATS_PASSWORD)".into(),
                ))
            }
            _ => found = Some(info),
        }
    }
    Ok(found.cloned())
}

impl NatsAccess {
    /// How many ways of authenticating are set.
    fn methods(&self, in_url: bool) -> usize {
        [
            self.creds_file.is_some(),
            self.nkey_file.is_some(),
            self.user.is_some() || self.password.is_some(),
            self.token.is_some(),
            in_url,
        ]
        .into_iter()
        .filter(|set| *set)
        .count()
    }

    /// The options with this authentication and TLS.
    async fn apply(
        &self,
        mut options: ConnectOptions,
        in_url: Option<(String, Option<String>)>,
    ) -> Result<ConnectOptions, RelayError> {
        if self.methods(in_url.is_some()) > 1 {
            return Err(RelayError::Nats(
                "more than one way to authenticate to NATS is set (credentials file, nkey, user/password in the settings or the URL, token): keep one".into(),
            ));
        }
        if let Some(path) = &self.creds_file {
            options = options.credentials_file(path).await.map_err(|error| {
                RelayError::Nats(format!(
                    "cannot read the NATS credentials file {}: {error}",
                    path.display()
                ))
            })?;
        }
        if let Some(path) = &self.nkey_file {
            let seed = std::fs::read_to_string(path).map_err(|error| {
                RelayError::Nats(format!(
                    "cannot read the NATS nkey seed file {}: {error}",
                    path.display()
                ))
            })?;
            options = options.nkey(seed.trim().to_owned());
        }
        match (&self.user, &self.password) {
            (Some(user), Some(password)) => {
                options =
                    options.user_and_password(user.clone(), password.expose_secret().to_owned());
            }
            (None, None) => {}
            _ => {
                return Err(RelayError::Nats(
                    "BASEL_NATS_USER and BASEL_NATS_PASSWORD go together".into(),
                ))
            }
        }
        if let Some(token) = &self.token {
            options = options.token(token.expose_secret().to_owned());
        }
        match in_url {
            Some((user, Some(password))) => options = options.user_and_password(user, password),
            Some((token, None)) => options = options.token(token),
            None => {}
        }
        if let Some(ca) = &self.tls_ca {
            options = options.add_root_certificates(ca.clone()).require_tls(true);
        }
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => {
                options = options
                    .add_client_certificate(cert.clone(), key.clone())
                    .require_tls(true);
            }
            (None, None) => {}
            _ => {
                return Err(RelayError::Nats(
                    "BASEL_NATS_TLS_CERT and BASEL_NATS_TLS_KEY go together".into(),
                ))
            }
        }
        Ok(options)
    }
}

/// Connects to the servers of the comma-separated `urls` with `access`.
/// The first connection is made in the background (a process starts while
/// NATS is down, and writes never wait for it); reconnects go to any server
/// of the list or that the cluster announced. Connection changes are logged
/// (target `basel::nats`) without addresses or secrets.
///
/// # Errors
/// [`RelayError::Nats`] when the URLs or the settings are unusable (a
/// missing file, two ways of authenticating); never for a server down.
pub async fn connect(urls: &str, access: &NatsAccess) -> Result<async_nats::Client, RelayError> {
    let list = servers(urls)?;
    let in_url = url_credentials(&list)?;
    let options = ConnectOptions::new()
        .name("basel")
        .retry_on_initial_connect()
        .connection_timeout(Duration::from_secs(2))
        .reconnect_delay_callback(reconnect_delay)
        .event_callback(|event| async move { log_event(&event) });
    let options = access.apply(options, in_url).await?;
    let addrs: Vec<ServerAddr> = list.into_iter().map(|s| s.addr).collect();
    tracing::info!(target: "basel::nats", servers = %redacted(urls), "connecting to NATS");
    options
        .connect(addrs)
        .await
        .map_err(|error| RelayError::Nats(format!("cannot use BASEL_NATS_URL: {error}")))
}

/// Back-off between reconnect attempts: quick at first (a server of a
/// cluster restarting), at most 2 s.
fn reconnect_delay(attempts: usize) -> Duration {
    let exponent = u32::try_from(attempts.min(5)).unwrap_or(5);
    Duration::from_millis(50 * 2u64.pow(exponent)).min(Duration::from_secs(2))
}

fn log_event(event: &async_nats::Event) {
    match event {
        async_nats::Event::Connected => tracing::info!(target: "basel::nats", "NATS connected"),
        async_nats::Event::Disconnected => {
            tracing::warn!(target: "basel::nats", "NATS disconnected; reconnecting")
        }
        async_nats::Event::ServerError(error) => {
            tracing::warn!(target: "basel::nats", error = %error, "NATS server error")
        }
        async_nats::Event::ClientError(error) => {
            tracing::warn!(target: "basel::nats", error = %error, "NATS connection failed")
        }
        other => tracing::info!(target: "basel::nats", event = %other, "NATS"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_tokens_are_redacted_in_every_url() {
        assert_eq!(
            redacted("nats://u:s3cret@a:4222, nats://tok@b:4222,nats://c:4222"),
            "nats://u:***@a:4222,nats://***@b:4222,nats://c:4222"
        );
        assert!(!redacted("tls://u:s3cret@a:4222").contains("s3cret"));
    }

    #[test]
    fn a_url_list_parses_and_its_credentials_are_taken_out() {
        let list = servers("nats://u:p@127.0.0.1:4222,nats://u:p@127.0.0.1:4223").expect("parses");
        assert_eq!(list.len(), 2);
        assert!(list.iter().all(|s| !s.addr.has_user_pass()));
        assert_eq!(
            url_credentials(&list).expect("same"),
            Some(("u".into(), Some("p".into())))
        );
        let mixed = servers("nats://u:p@a:1,nats://v:q@b:2").expect("parses");
        assert!(url_credentials(&mixed).is_err());
    }

    #[test]
    fn an_empty_entry_is_refused_without_showing_the_password() {
        let Err(RelayError::Nats(message)) = servers("nats://u:s3cret@a:4222,,") else {
            panic!("refused")
        };
        assert!(message.contains("empty entry"), "{message}");
        assert!(!message.contains("s3cret"), "{message}");
    }

    #[tokio::test]
    async fn two_ways_of_authenticating_are_refused() {
        let access = NatsAccess {
            token: Some(SecretString::from("t")),
            user: Some("u".into()),
            password: Some(SecretString::from("p")),
            ..NatsAccess::default()
        };
        assert!(access.apply(ConnectOptions::new(), None).await.is_err());
        let token = NatsAccess {
            token: Some(SecretString::from("t")),
            ..NatsAccess::default()
        };
        let from_url = Some(("u".to_owned(), Some("p".to_owned())));
        assert!(token.apply(ConnectOptions::new(), from_url).await.is_err());
    }
}
