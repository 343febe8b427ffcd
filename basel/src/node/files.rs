//! Owner-only permissions on the embedded data: the data directory is 0700,
//! the database files and the generated server secret 0600.
//!
//! [`prepare`] runs before anything opens the store: it creates the
//! directory and an empty `basel.db` with those modes (SQLite accepts an
//! empty file as a new database and gives its `-wal` and `-shm` files the
//! database file's mode), and corrects a directory or file that is readable
//! by others, with a warning naming it. On systems other than Unix it does
//! nothing but create the directory.

use std::path::Path;

use anyhow::Context;

/// The mode of the data directory.
pub const DIR_MODE: u32 = 0o700;
/// The mode of every file basel keeps in it.
pub const FILE_MODE: u32 = 0o600;

/// Creates `data_dir` (0700) and an empty database file (0600) if missing,
/// and corrects the modes of what is already there.
///
/// # Errors
/// When the directory or the database file cannot be created, or a mode
/// cannot be changed.
pub fn prepare(data_dir: &Path) -> anyhow::Result<()> {
    create_dir(data_dir)?;
    correct(data_dir, DIR_MODE)?;
    let database = data_dir.join(commands::store::sqlite::DATABASE_FILE);
    create_file(&database)?;
    let entries = std::fs::read_dir(data_dir)
        .with_context(|| format!("cannot list data directory {}", data_dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() && kept_by_basel(&path) {
            correct(&path, FILE_MODE)?;
        }
    }
    Ok(())
}

/// The database, its journal files and the server secret.
fn kept_by_basel(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name == "server.secret" || name.starts_with(commands::store::sqlite::DATABASE_FILE)
}

#[cfg(unix)]
fn create_dir(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)
        .with_context(|| format!("cannot create data directory {}", path.display()))
}

#[cfg(not(unix))]
fn create_dir(path: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(path)
        .with_context(|| format!("cannot create data directory {}", path.display()))
}

fn create_file(path: &Path) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
        .open(path)
        .map(drop)
        .with_context(|| format!("cannot create {}", path.display()))
}

/// Sets `mode` on `path` when it grants more than `mode`, with a warning.
#[cfg(unix)]
fn correct(path: &Path, mode: u32) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let metadata =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let found = metadata.permissions().mode() & 0o777;
    if found & !mode == 0 {
        return Ok(());
    }
    tracing::warn!(
        path = %path.display(),
        found = format!("{found:o}"),
        set = format!("{mode:o}"),
        "a data file was readable by others; its mode is corrected"
    );
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("cannot set the mode of {}", path.display()))
}

#[cfg(not(unix))]
fn correct(_path: &Path, _mode: u32) -> anyhow::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_data_directory_and_database_are_owner_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        prepare(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("basel.db")), 0o600);
    }

    #[test]
    fn readable_files_and_directory_are_corrected() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        for name in ["basel.db", "basel.db-wal", "server.secret", "notes.txt"] {
            std::fs::write(dir.join(name), b"x").unwrap();
            std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(0o644))
                .unwrap();
        }
        prepare(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        for name in ["basel.db", "basel.db-wal", "server.secret"] {
            assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
        }
        assert_eq!(mode(&dir.join("notes.txt")), 0o644, "not basel's file");
    }
}
