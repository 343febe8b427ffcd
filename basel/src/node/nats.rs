//! How this process authenticates to NATS and checks its certificates
//! (server mode): the `BASEL_NATS_*` settings besides the URL list, turned
//! into [`commands::nats::NatsAccess`]. See docs/server-mode.md, "NATS".

use std::path::PathBuf;

use clap::Args;
use secrecy::SecretString;

/// Credentials and TLS for NATS. At most one way of authenticating: a
/// credentials file, an nkey seed file, user and password (here or in the
/// URLs), or a token.
#[derive(Clone, Default, Args)]
pub struct NatsAccessSettings {
    /// A NATS credentials file (`.creds`: user JWT and nkey seed, from `nsc`).
    #[arg(long, env = "BASEL_NATS_CREDS", global = true)]
    pub nats_creds: Option<PathBuf>,
    /// A file holding an nkey seed (`SU…`), for servers that list users by nkey.
    #[arg(long, env = "BASEL_NATS_NKEY", global = true)]
    pub nats_nkey: Option<PathBuf>,
    /// NATS user name (with `BASEL_NATS_PASSWORD`); or put
    /// `user:password@` in the URLs.
    #[arg(long, env = "BASEL_NATS_USER", global = true)]
    pub nats_user: Option<String>,
    /// NATS password of `BASEL_NATS_USER`.
    #[arg(
        long,
        env = "BASEL_NATS_PASSWORD",
        hide_env_values = true,
        global = true
    )]
    pub nats_password: Option<String>,
    /// NATS authentication token.
    #[arg(long, env = "BASEL_NATS_TOKEN", hide_env_values = true, global = true)]
    pub nats_token: Option<String>,
    /// CA certificate (PEM) that NATS servers' certificates are checked
    /// against; setting it requires TLS.
    #[arg(long, env = "BASEL_NATS_TLS_CA", global = true)]
    pub nats_tls_ca: Option<PathBuf>,
    /// Client certificate (PEM) for NATS servers that verify clients (with
    /// `BASEL_NATS_TLS_KEY`).
    #[arg(long, env = "BASEL_NATS_TLS_CERT", global = true)]
    pub nats_tls_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(long, env = "BASEL_NATS_TLS_KEY", global = true)]
    pub nats_tls_key: Option<PathBuf>,
}

impl std::fmt::Debug for NatsAccessSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.access().fmt(f)
    }
}

impl NatsAccessSettings {
    /// What the connection takes.
    pub fn access(&self) -> commands::nats::NatsAccess {
        commands::nats::NatsAccess {
            creds_file: self.nats_creds.clone(),
            nkey_file: self.nats_nkey.clone(),
            user: self.nats_user.clone(),
            password: self.nats_password.clone().map(SecretString::from),
            token: self.nats_token.clone().map(SecretString::from),
            tls_ca: self.nats_tls_ca.clone(),
            tls_cert: self.nats_tls_cert.clone(),
            tls_key: self.nats_tls_key.clone(),
        }
    }
}
