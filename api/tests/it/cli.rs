//! `basel steward`, `basel import`, `basel export`.

use crate::support::{all_bytes, count_events, stderr, stdout, Store};

fn enrol(store: &Store, name: &str) -> String {
    let output = store.run(&[
        "steward",
        "enrol",
        "--name",
        name,
        "--email",
        "steward@example.org",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    text.lines().last().expect("a last line").trim().to_owned()
}

async fn postgres_dump(url: &str) -> String {
    let pool = sqlx::PgPool::connect(url).await.expect("postgres");
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'",
    )
    .fetch_all(&pool)
    .await
    .expect("tables");
    let mut dump = String::new();
    for table in tables {
        let rows: Vec<String> = sqlx::query_scalar(&format!("SELECT t::text FROM \"{table}\" t"))
            .fetch_all(&pool)
            .await
            .expect("rows");
        dump.push_str(&rows.join("\n"));
    }
    dump
}

async fn token_is_printed_last_and_stored_only_as_a_hash(store: Store) {
    let token = enrol(&store, "Ana López");
    assert!(
        token.starts_with("bst_") && token.len() == 68,
        "last stdout line is not a token: {token:?}"
    );
    assert_eq!(count_events(&store, "steward").await, 1);
    let stored = match &store.database_url {
        Some(url) => postgres_dump(url).await.into_bytes(),
        None => all_bytes(store.dir.path()),
    };
    assert!(!stored.is_empty());
    let found = stored.windows(token.len()).any(|w| w == token.as_bytes());
    assert!(!found, "the token's plaintext is in the store");
    let hash = commands::secrets::hash_secret(&token);
    assert!(
        stored.windows(hash.len()).any(|w| w == hash.as_bytes()),
        "the token's hash should be stored"
    );
}

#[tokio::test]
async fn embedded_steward_token_is_printed_last_and_stored_only_as_a_hash() {
    token_is_printed_last_and_stored_only_as_a_hash(Store::embedded()).await;
}

#[tokio::test]
async fn postgres_steward_token_is_printed_last_and_stored_only_as_a_hash() {
    token_is_printed_last_and_stored_only_as_a_hash(Store::postgres().await).await;
}

#[tokio::test]
async fn enrolling_the_same_id_twice_fails_without_a_token() {
    let store = Store::embedded();
    enrol(&store, "Ana");
    let output = store.run(&[
        "steward",
        "enrol",
        "--name",
        "Ana",
        "--email",
        "a@example.org",
    ]);
    assert!(!output.status.success());
    assert!(stdout(&output).is_empty());
    assert!(
        stderr(&output).contains("already enrolled"),
        "{}",
        stderr(&output)
    );
}

async fn export_import_export_round_trips(source: Store, target: Store, format: &str) {
    let server = source.serve().await;
    server.stop();
    let first = source.run(&["export", "--format", format]);
    assert!(first.status.success(), "{}", stderr(&first));
    let file = source.dir.path().join(format!("directory.{format}"));
    std::fs::write(&file, &first.stdout).expect("write export");

    enrol(&target, "Importer");
    let import = target.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(import.status.success(), "{}", stderr(&import));
    let second = target.run(&["export", "--format", format]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert_eq!(stdout(&first), stdout(&second));
    assert!(
        stdout(&first).contains("TMB@ec.gc.ca"),
        "the export carries the seeded records"
    );
}

#[tokio::test]
async fn embedded_export_import_export_gives_identical_json() {
    export_import_export_round_trips(Store::embedded(), Store::embedded(), "json").await;
}

#[tokio::test]
async fn embedded_export_import_export_gives_identical_csv() {
    export_import_export_round_trips(Store::embedded(), Store::embedded(), "csv").await;
}

#[tokio::test]
async fn postgres_export_import_export_gives_identical_json_and_csv() {
    export_import_export_round_trips(Store::postgres().await, Store::postgres().await, "json")
        .await;
    export_import_export_round_trips(Store::postgres().await, Store::postgres().await, "csv").await;
}

#[tokio::test]
async fn an_invalid_row_names_file_row_and_field_and_imports_nothing() {
    let store = Store::embedded();
    enrol(&store, "Importer");
    let file = store.dir.path().join("bad.csv");
    std::fs::write(
        &file,
        "country_code,country_name,ca_name,email,phone,address,notes,verified,last_checked,source\n\
         XK,Kosovo,Agency,ok@example.org,+383-38-200-000,,,false,2026-01-02,letter\n\
         ZZZ,Nowhere,Agency,not-an-email,12345,,,false,,\n",
    )
    .expect("write");
    let output = store.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(!output.status.success());
    let message = stderr(&output);
    for needle in ["bad.csv", "row 2", "country_code", "email", "phone"] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from: {message}"
        );
    }
    assert_eq!(
        count_events(&store, "authority").await,
        0,
        "nothing may be imported"
    );
}

#[tokio::test]
async fn an_unreadable_file_or_unknown_steward_fails_clearly() {
    let store = Store::embedded();
    let missing = store.run(&["import", "/nonexistent/file.json", "--steward", "x"]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("/nonexistent/file.json"));
    let file = store.dir.path().join("ok.json");
    std::fs::write(&file, r#"[{"country_code":"XK","country_name":"Kosovo"}]"#).expect("write");
    let nobody = store.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "nobody",
    ]);
    assert!(!nobody.status.success());
    assert!(
        stderr(&nobody).contains("no steward nobody"),
        "{}",
        stderr(&nobody)
    );
    let bad_args = store.run(&["import"]);
    assert!(!bad_args.status.success());
}

#[tokio::test]
async fn importing_an_existing_country_records_a_steward_verification() {
    let store = Store::embedded();
    enrol(&store, "Importer");
    let file = store.dir.path().join("one.json");
    std::fs::write(&file, r#"[{"country_code":"xk","country_name":"Kosovo","email":"a@example.org","last_checked":"2026-01-02","source":"letter"}]"#)
        .expect("write");
    assert!(store
        .run(&[
            "import",
            file.to_str().expect("path"),
            "--steward",
            "importer"
        ])
        .status
        .success());
    std::fs::write(&file, r#"[{"country_code":"XK","country_name":"Kosovo","email":"b@example.org","last_checked":"2026-02-03","source":"call"}]"#)
        .expect("write");
    let again = store.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("1 updated"));
    let export = stdout(&store.run(&["export"]));
    assert!(
        export.contains("b@example.org") && export.contains("2026-02-03"),
        "{export}"
    );
    assert_eq!(
        count_events(&store, "authority").await,
        3,
        "registered, then changed + verified"
    );
}

#[tokio::test]
async fn a_suspended_steward_cannot_import_and_is_suspended_once() {
    let store = Store::embedded();
    enrol(&store, "Importer");
    let suspend = store.run(&[
        "steward",
        "suspend",
        "importer",
        "--reason",
        "left the team",
    ]);
    assert!(suspend.status.success(), "{}", stderr(&suspend));
    let again = store.run(&["steward", "suspend", "importer"]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("already suspended"),
        "{}",
        stderr(&again)
    );
    let unknown = store.run(&["steward", "suspend", "nobody"]);
    assert!(!unknown.status.success());
    let file = store.dir.path().join("one.json");
    std::fs::write(&file, r#"[{"country_code":"XK","country_name":"Kosovo"}]"#).expect("write");
    let import = store.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(!import.status.success());
    assert!(stderr(&import).contains("suspended"), "{}", stderr(&import));
    assert_eq!(count_events(&store, "authority").await, 0);
}
