//! Checks of the store settings made before anything connects, so a
//! mistake gets one sentence with its fix instead of a driver's error.

use std::path::Path;

use anyhow::bail;

use crate::node::settings::StoreSettings;

/// The URL schemes `BASEL_DATABASE_URL` accepts.
pub const DATABASE_SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];

/// Refuses a database URL of another scheme and a data directory that is a
/// file.
///
/// # Errors
/// One sentence naming the setting, what is wrong and what to do.
pub fn check(settings: &StoreSettings) -> anyhow::Result<()> {
    if let Some(url) = &settings.database_url {
        check_database_url(url)?;
    } else {
        check_data_dir(&settings.data_dir)?;
    }
    Ok(())
}

fn check_database_url(url: &str) -> anyhow::Result<()> {
    let lower = url.trim().to_ascii_lowercase();
    if DATABASE_SCHEMES
        .iter()
        .any(|scheme| lower.starts_with(scheme))
    {
        return Ok(());
    }
    let scheme = lower.split_once("://").map_or_else(
        || "no scheme".to_owned(),
        |(scheme, _)| format!("{scheme}://"),
    );
    bail!(
        "BASEL_DATABASE_URL (--database-url) must be a PostgreSQL URL starting with {} (got {scheme}); \
         leave it unset to use embedded SQLite in the data directory",
        DATABASE_SCHEMES.join(" or ")
    )
}

fn check_data_dir(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!(
            "--data-dir {} is a file, not a directory; point BASEL_DATA_DIR (--data-dir) at a directory (it is created if missing)",
            dir.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_schemes_are_refused_naming_the_accepted_ones() {
        let error = check_database_url("mysql://root@localhost/basel")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("mysql://") && error.contains("postgres://"),
            "{error}"
        );
        assert!(check_database_url("postgresql://x/y").is_ok());
        assert!(check_database_url("POSTGRES://x/y").is_ok());
    }
}
