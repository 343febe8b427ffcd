//! The composition root's wiring: the store, the read database, the projector
//! and the server secret, built once from [`StoreSettings`] and shared by
//! `serve` and every subcommand.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context};
use secrecy::SecretString;
use tokio::sync::Notify;

use commands::secrets::ServerSecret;
use commands::store::Backend;
use projections::runner::Projector;
use projections::ReadDb;

use crate::settings::StoreSettings;

/// Everything a process needs to read and write.
#[derive(Clone)]
pub struct Runtime {
    /// The event store.
    pub backend: Backend,
    /// The read tables.
    pub read_db: ReadDb,
    /// The projections over them.
    pub projector: Projector,
    /// Rung after every local commit so projections apply it at once.
    pub wake: Arc<Notify>,
    /// The secret API keys are derived under.
    pub secret: ServerSecret,
}

impl Runtime {
    /// Connects, migrates and prepares the projections (without seeding).
    ///
    /// # Errors
    /// When a database cannot be reached or migrated, or the secret is unusable.
    pub async fn open(settings: &StoreSettings) -> anyhow::Result<Self> {
        if settings.nats_url.is_some() {
            tracing::warn!("BASEL_NATS_URL is set, but the JetStream log is not built yet: using the embedded log");
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
        Ok(Self {
            backend,
            read_db,
            projector,
            wake: Arc::default(),
            secret,
        })
    }

    /// Applies everything committed so far to every projection.
    ///
    /// # Errors
    /// When a projection cannot apply the log.
    pub async fn catch_up(&self) -> anyhow::Result<()> {
        self.projector
            .catch_up()
            .await
            .context("projections could not catch up with the log")
    }
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
        if secret.len() < 32 {
            bail!("BASEL_SECRET must be at least 32 characters");
        }
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

fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
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
