//! Rebuilds `commands` when a migration is added: `sqlx::migrate!` embeds the
//! migration files at compile time.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
