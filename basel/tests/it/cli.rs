//! `basel steward`, `basel import`, `basel export`.

use crate::process::Basel;
use crate::support::{all_bytes, both_modes, count_events, stderr, stdout, Mode};

/// Enrols a steward with the CLI; the token printed last.
fn enrol(basel: &Basel, name: &str) -> String {
    basel.enrol(name, "steward@example.org")
}

pub(crate) async fn postgres_dump(url: &str) -> String {
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

async fn steward_token_is_printed_last_and_stored_only_as_a_hash(mode: Mode) {
    let basel = Basel::of(mode).await;
    let token = enrol(&basel, "Ana López");
    assert!(
        token.starts_with("bst_") && token.len() == 68,
        "last stdout line is not a token: {token:?}"
    );
    assert_eq!(count_events(&basel.store, "steward").await, 1);
    let stored = match &basel.store.database_url {
        Some(url) => postgres_dump(url).await.into_bytes(),
        None => all_bytes(basel.dir()),
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

both_modes!(steward_token_is_printed_last_and_stored_only_as_a_hash);

#[tokio::test]
async fn enrolling_the_same_id_twice_fails_without_a_token() {
    let basel = Basel::embedded();
    enrol(&basel, "Ana");
    let output = basel.run(&[
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

async fn export_import_export_round_trips(source: Basel, target: Basel, format: &str) {
    let server = source.serve().await;
    server.stop();
    let first = source.run(&["export", "--format", format]);
    assert!(first.status.success(), "{}", stderr(&first));
    let file = source.dir().join(format!("directory.{format}"));
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
    export_import_export_round_trips(Basel::embedded(), Basel::embedded(), "json").await;
}

#[tokio::test]
async fn embedded_export_import_export_gives_identical_csv() {
    export_import_export_round_trips(Basel::embedded(), Basel::embedded(), "csv").await;
}

#[tokio::test]
async fn postgres_export_import_export_gives_identical_json_and_csv() {
    export_import_export_round_trips(Basel::postgres().await, Basel::postgres().await, "json")
        .await;
    export_import_export_round_trips(Basel::postgres().await, Basel::postgres().await, "csv").await;
}

#[tokio::test]
async fn an_invalid_row_names_file_row_and_field_and_imports_nothing() {
    let basel = Basel::embedded();
    enrol(&basel, "Importer");
    let file = basel.dir().join("bad.csv");
    std::fs::write(
        &file,
        "country_code,country_name,ca_name,email,phone,address,notes,verified,last_checked,source\n\
         TV,Tuvalu,Agency,ok@example.org,+688-2010-0100,,,false,2026-01-02,letter\n\
         ZZZ,Nowhere,Agency,not-an-email,12345,,,false,,\n",
    )
    .expect("write");
    let output = basel.run(&[
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
        count_events(&basel.store, "authority").await,
        0,
        "nothing may be imported"
    );
}

#[tokio::test]
async fn an_unreadable_file_or_unknown_steward_fails_clearly() {
    let basel = Basel::embedded();
    let missing = basel.run(&["import", "/nonexistent/file.json", "--steward", "x"]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("/nonexistent/file.json"));
    let file = basel.dir().join("ok.json");
    std::fs::write(&file, r#"[{"country_code":"TV","country_name":"Tuvalu"}]"#).expect("write");
    let nobody = basel.run(&[
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
    let bad_args = basel.run(&["import"]);
    assert!(!bad_args.status.success());
}

#[tokio::test]
async fn importing_an_existing_country_records_a_steward_verification() {
    let basel = Basel::embedded();
    enrol(&basel, "Importer");
    let file = basel.dir().join("one.json");
    std::fs::write(&file, r#"[{"country_code":"tv","country_name":"Tuvalu","email":"a@example.org","last_checked":"2026-01-02","source":"letter"}]"#)
        .expect("write");
    assert!(basel
        .run(&[
            "import",
            file.to_str().expect("path"),
            "--steward",
            "importer"
        ])
        .status
        .success());
    std::fs::write(&file, r#"[{"country_code":"TV","country_name":"Tuvalu","email":"b@example.org","last_checked":"2026-02-03","source":"call"}]"#)
        .expect("write");
    let again = basel.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("1 updated"));
    let export = stdout(&basel.run(&["export"]));
    assert!(
        export.contains("b@example.org") && export.contains("2026-01-02"),
        "an unverified check corrects the record but is no freshness: {export}"
    );
    let same = basel.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(stdout(&same).contains("1 unchanged"), "{}", stdout(&same));
    assert_eq!(
        count_events(&basel.store, "authority").await,
        3,
        "registered, then changed + verified"
    );
}

#[tokio::test]
async fn a_suspended_steward_cannot_import_and_is_suspended_once() {
    let basel = Basel::embedded();
    enrol(&basel, "Importer");
    let suspend = basel.run(&[
        "steward",
        "suspend",
        "importer",
        "--reason",
        "left the team",
    ]);
    assert!(suspend.status.success(), "{}", stderr(&suspend));
    let again = basel.run(&["steward", "suspend", "importer"]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("already suspended"),
        "{}",
        stderr(&again)
    );
    let unknown = basel.run(&["steward", "suspend", "nobody"]);
    assert!(!unknown.status.success());
    let file = basel.dir().join("one.json");
    std::fs::write(&file, r#"[{"country_code":"TV","country_name":"Tuvalu"}]"#).expect("write");
    let import = basel.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(!import.status.success());
    assert!(stderr(&import).contains("suspended"), "{}", stderr(&import));
    assert_eq!(count_events(&basel.store, "authority").await, 0);
}

/// Every problem of a file is listed in one pass, one per line: those of
/// the rows themselves (a State that is not a Party, an unknown code, a bad
/// e-mail) and the domain's refusals of the Parties that could be read (a
/// contact marked verified without a date); nothing is imported.
#[tokio::test]
async fn an_import_lists_every_problem_in_one_pass() {
    let basel = Basel::embedded();
    enrol(&basel, "Importer");
    let file = basel.dir().join("problems.json");
    std::fs::write(
        &file,
        r#"[{"country_code":"US","country_name":"United States"},
            {"country_code":"QQ","country_name":"Nowhere"},
            {"country_code":"TV","country_name":"Tuvalu","email":"not an address"},
            {"country_code":"AF","country_name":"Afghanistan","ca_name":"Agency",
             "email":"a@example.org","phone":"+93-20-2500-000","verified":true},
            {"country_code":"NR","country_name":"Nauru","contact_id":"c1","ca_name":"Office",
             "sources":[{"url":"","kind":"government_current"}]}]"#,
    )
    .expect("write");
    let import = basel.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(!import.status.success());
    let said = stderr(&import);
    let problems: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("problems.json: row"))
        .collect();
    assert_eq!(problems.len(), 5, "{said}");
    assert!(
        problems[0].contains("row 1 (US): country_code: not_a_party"),
        "{said}"
    );
    assert!(
        problems[1].contains("row 2 (QQ): country_code: country_not_found"),
        "{said}"
    );
    assert!(problems[2].contains("row 3 (TV): email"), "{said}");
    assert!(problems[3].contains("row 4 (AF): last_checked"), "{said}");
    assert!(problems[4].contains("row 5 (NR): sources"), "{said}");
    assert_eq!(count_events(&basel.store, "authority").await, 0);
}
