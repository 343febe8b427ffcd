//! The composition root's wiring: the store, the read database, the projector
//! and the server secret, built once from [`StoreSettings`] and shared by
//! `serve` and every subcommand.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context};
use secrecy::SecretString;
use tokio::sync::Notify;

use commands::relay::LogSettings;
use commands::secrets::ServerSecret;
use commands::store::Backend;
use projections::runner::Projector;
use projections::stream::LogSource;
use projections::ReadDb;

use crate::node::settings::StoreSettings;

/// Everything a process needs to read and write.
#[derive(Clone)]
pub struct Runtime {
    /// The event store.
    pub backend: Backend,
    /// The most contacts a Party may hold (`BASEL_MAX_CONTACTS_PER_PARTY`).
    pub max_contacts: usize,
    /// The read tables.
    pub read_db: ReadDb,
    /// The projections over them.
    pub projector: Projector,
    /// Rung after every local commit so projections apply it at once.
    pub wake: Arc<Notify>,
    /// The secret API keys are derived under.
    pub secret: ServerSecret,
    /// The read database's URL (replay creates scratch tables beside it).
    pub read_url: String,
    /// The JetStream log, in server mode (PostgreSQL + NATS); `None` in
    /// embedded mode and PostgreSQL-only mode, where projections read the
    /// events table.
    pub log: Option<ServerLog>,
}

/// The JetStream side of server mode.
#[derive(Clone)]
pub struct ServerLog {
    /// JetStream.
    pub context: async_nats::jetstream::Context,
    /// Stream, subjects, replicas.
    pub settings: LogSettings,
    /// Whether this process's relay is the active one (`/metrics`).
    pub relay: commands::relay::RelayStatus,
}

impl ServerLog {
    /// Where projections read the log.
    pub fn source(&self) -> LogSource {
        LogSource {
            context: self.context.clone(),
            stream: self.settings.stream.clone(),
            subject_prefix: self.settings.subject_prefix.clone(),
        }
    }
}

impl Runtime {
    /// Connects, migrates and prepares the projections (without seeding).
    ///
    /// # Errors
    /// When a database cannot be reached or migrated, or the secret is unusable.
    pub async fn open(settings: &StoreSettings) -> anyhow::Result<Self> {
        crate::node::preflight::check(settings)?;
        if settings.nats_url.is_some() && settings.database_url.is_none() {
            bail!("BASEL_NATS_URL needs BASEL_DATABASE_URL: the JetStream log is relayed from PostgreSQL (server mode)");
        }
        if settings.database_url.is_some() && settings.secret.is_none() {
            bail!("server mode (BASEL_DATABASE_URL) needs BASEL_SECRET (or --secret): every replica must derive API keys under the same secret, so none is generated");
        }
        if settings.database_url.is_none() {
            super::files::prepare(&settings.data_dir)?;
        }
        let backend =
            Backend::connect(settings.database_url.as_deref(), &settings.data_dir).await?;
        let read_url = match &settings.database_url {
            Some(url) => url.clone(),
            None => format!(
                "sqlite://{}",
                absolute(&settings.data_dir)?.join("basel.db").display()
            ),
        };
        let read_db = projections::connect(&read_url)
            .await
            .context("cannot open the read database")?;
        let projector = Projector::new(read_db.clone())
            .await
            .context("cannot prepare the projections")?;
        let secret = ServerSecret::new(load_secret(settings)?);
        check_secret(&backend, &secret).await?;
        seal_legacy_addresses(&backend, &secret, settings.nats_url.is_some()).await?;
        let access = settings.nats_access.access();
        let log = match &settings.nats_url {
            Some(url) => {
                let settings = LogSettings {
                    url: url.clone(),
                    stream: settings.nats_stream.clone(),
                    subject_prefix: settings.nats_subject_prefix.clone(),
                    replicas: settings.nats_replicas,
                };
                let context = commands::relay::connect_with(&settings, &access)
                    .await
                    .context("cannot use the NATS settings")?;
                Some(ServerLog {
                    context,
                    settings,
                    relay: commands::relay::RelayStatus::default(),
                })
            }
            None => None,
        };
        Ok(Self {
            max_contacts: settings.max_contacts_per_party.max(1),
            backend,
            read_db,
            projector,
            wake: Arc::default(),
            secret,
            read_url,
            log,
        })
    }

    /// [`Runtime::open`] for a command other than `serve`: an embedded store
    /// that does not exist yet is not created (a command run from another
    /// directory would otherwise make and use a second, empty store); the
    /// error says which store was looked for and how to name another.
    ///
    /// # Errors
    /// As [`Runtime::open`], and when the embedded store does not exist.
    pub async fn open_existing(settings: &StoreSettings) -> anyhow::Result<Self> {
        crate::node::preflight::check(settings)?;
        if settings.database_url.is_none() {
            let dir = std::path::absolute(&settings.data_dir)
                .context("cannot resolve the data directory")?;
            let database = dir.join(commands::store::sqlite::DATABASE_FILE);
            if !database.is_file() {
                bail!(
                    "no store at {}: start `basel serve` once to create and seed it, or name the existing store with --data-dir or BASEL_DATA_DIR (server mode: BASEL_DATABASE_URL)",
                    database.display()
                );
            }
        }
        Self::open(settings).await
    }

    /// The parts the REST edge uses.
    pub fn wiring(&self) -> web::Wiring {
        web::Wiring {
            store: self.backend.clone(),
            read_db: self.read_db.clone(),
            projector: self.projector.clone(),
            wake: self.wake.clone(),
            secret: self.secret.clone(),
            max_contacts: self.max_contacts,
            relayed: self.log.is_some() && self.backend.pg_pool().is_some(),
            log: self.log.as_ref().map(|log| web::state::LogState {
                relay: log.relay.clone(),
                nats: log.context.client(),
            }),
        }
    }

    /// Brings the projections up to the log as it is now. Where this process
    /// projects the events table itself (embedded mode, PostgreSQL without
    /// NATS) it applies what is new; in server mode the JetStream consumers
    /// do, and this waits for them (at most 2 s).
    ///
    /// # Errors
    /// When a projection cannot apply the log.
    pub async fn catch_up(&self) -> anyhow::Result<()> {
        self.stores().catch_up().await
    }

    /// What the import/export engine reads and writes through.
    pub fn stores(&self) -> transfer::Stores {
        transfer::Stores {
            backend: self.backend.clone(),
            read_db: self.read_db.clone(),
            projector: self.projector.clone(),
            wake: self.wake.clone(),
            max_contacts: self.max_contacts,
            projected_elsewhere: self.log.is_some(),
        }
    }
}

/// Seals the plaintext addresses of events written before sealing
/// (`commands::identity::legacy`), once; afterwards this is one cheap read.
async fn seal_legacy_addresses(
    backend: &Backend,
    secret: &ServerSecret,
    server_mode: bool,
) -> anyhow::Result<()> {
    let book = commands::identity::AddressBook::new(backend, secret);
    let resealed = commands::identity::legacy::seal_plaintext(&book)
        .await
        .context("cannot seal the addresses of old events")?;
    let published = resealed.iter().filter(|r| r.published).count();
    if server_mode && published > 0 {
        tracing::warn!(
            events = published,
            "events sealed in the store had been published with plaintext addresses; the active relay rewrites the JetStream stream from the store (see README, \"Erasure\")"
        );
    }
    Ok(())
}

fn absolute(path: &Path) -> anyhow::Result<std::path::PathBuf> {
    std::fs::create_dir_all(path)
        .with_context(|| format!("cannot create data directory {}", path.display()))?;
    path.canonicalize()
        .with_context(|| format!("cannot resolve data directory {}", path.display()))
}

/// The server secret: from settings, else from `<data-dir>/server.secret`,
/// generated (owner-only permissions) on first use.
fn load_secret(settings: &StoreSettings) -> anyhow::Result<SecretString> {
    if let Some(secret) = &settings.secret {
        strong_enough(secret)?;
        return Ok(SecretString::from(secret.clone()));
    }
    let path = absolute(&settings.data_dir)?.join("server.secret");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return Ok(SecretString::from(text.trim().to_owned()));
    }
    let secret = ServerSecret::generate();
    write_private(&path, secrecy::ExposeSecret::expose_secret(&secret))?;
    Ok(secret)
}

/// The fewest distinct characters a `BASEL_SECRET` may have.
const MIN_DISTINCT_CHARACTERS: usize = 8;

/// Refuses a secret that is short, blank or padded, or made of a few
/// characters repeated (40 spaces, `abababab…`).
fn strong_enough(secret: &str) -> anyhow::Result<()> {
    if secret.trim().is_empty() {
        bail!("BASEL_SECRET is blank: use at least 32 random characters (e.g. `openssl rand -hex 32`)");
    }
    if secret.trim() != secret {
        bail!("BASEL_SECRET starts or ends with whitespace: remove it");
    }
    if secret.chars().count() < 32 {
        bail!("BASEL_SECRET must be at least 32 characters");
    }
    let mut distinct: Vec<char> = secret.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < MIN_DISTINCT_CHARACTERS {
        bail!(
            "BASEL_SECRET is too easy to guess ({} distinct characters, at least {MIN_DISTINCT_CHARACTERS} needed): use random characters (e.g. `openssl rand -hex 32`)",
            distinct.len()
        );
    }
    Ok(())
}

/// Refuses to open a store with another secret than the one it was created
/// with (the first start records a verifier of it).
async fn check_secret(backend: &Backend, secret: &ServerSecret) -> anyhow::Result<()> {
    let check = backend
        .check_secret(secret)
        .await
        .context("cannot read the store's secret verifier")?;
    match check {
        commands::store::SecretCheck::Recorded => {
            tracing::info!("the store now records a verifier of its server secret");
            Ok(())
        }
        commands::store::SecretCheck::Matches => Ok(()),
        commands::store::SecretCheck::Differs => bail!(
            "BASEL_SECRET is not the secret this store was created with (embedded mode without BASEL_SECRET: <data-dir>/server.secret): API keys, key ids and sealed addresses depend on it, so the store cannot be opened with another; start with the original secret (see docs/limits.md, \"The server secret\")"
        ),
    }
}

pub(crate) fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::strong_enough;

    #[test]
    fn blank_padded_short_and_repetitive_secrets_are_refused() {
        for weak in [
            " ".repeat(40),
            "\t".repeat(40),
            "a".repeat(40),
            "ab".repeat(20),
            "abcdefg".repeat(6),
            format!(" {}", "0123456789abcdef".repeat(2)),
            "0123456789abcdef".to_owned(),
        ] {
            let refused = strong_enough(&weak).expect_err(&weak);
            assert!(refused.to_string().contains("BASEL_SECRET"), "{refused}");
        }
        assert!(strong_enough("test-secret-test-secret-test-secret-0123").is_ok());
        assert!(strong_enough(&"0123456789abcdef".repeat(4)).is_ok());
    }
}
