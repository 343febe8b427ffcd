//! CLI errors a person understands: one `error:` line, one sentence per
//! cause (no repeats), naming the setting and the fix.

use crate::process::Basel;
use crate::support::stderr;

/// The one `error:` line of a failed run (asserting there is exactly one
/// and the exit status is 1).
fn error_line(output: &std::process::Output) -> String {
    assert_eq!(output.status.code(), Some(1), "{}", stderr(output));
    let text = stderr(output);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(!text.contains("panicked"), "{text}");
    lines[0].to_owned()
}

#[test]
fn a_data_dir_that_is_a_file_is_named_as_such() {
    let basel = Basel::embedded();
    let file = basel.dir().join("not-a-dir");
    std::fs::write(&file, "x").expect("file");
    let line = error_line(&basel.run(&["--data-dir", &file.display().to_string(), "export"]));
    assert!(line.contains("is a file, not a directory"), "{line}");
    assert!(!line.contains("File exists"), "{line}");
}

#[test]
fn a_database_url_of_another_scheme_is_refused_naming_the_accepted_ones() {
    let basel = Basel::embedded();
    let line = error_line(&basel.run(&[
        "--database-url",
        "mysql://root:pw@127.0.0.1/basel",
        "export",
    ]));
    assert!(line.contains("mysql://"), "{line}");
    assert!(
        line.contains("postgres://") && line.contains("postgresql://"),
        "{line}"
    );
    assert!(!line.contains("pw@"), "{line}");
}

#[tokio::test]
async fn a_missing_postgres_database_suggests_createdb() {
    let basel = Basel::embedded();
    let name = format!("basel_missing_{}", uuid::Uuid::new_v4().simple());
    let url = format!("postgres://postgres@127.0.0.1:5432/{name}");
    let secret = "a-test-secret-of-at-least-32-characters";
    let line = error_line(&basel.run(&["--database-url", &url, "--secret", secret, "export"]));
    assert!(
        line.contains(&format!("createdb -h 127.0.0.1 -p 5432 {name}")),
        "{line}"
    );
    assert!(line.contains("does not exist"), "{line}");
}

#[test]
fn an_os_error_is_said_once() {
    let basel = Basel::embedded();
    // /proc refuses new directories, whoever runs the test (even root);
    // `serve` is the command that creates a store.
    let line = error_line(&basel.run(&[
        "--data-dir",
        "/proc/basel-cannot-exist/data",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--mcp-listen",
        "127.0.0.1:0",
    ]));
    let os_errors = line.matches("(os error").count();
    assert_eq!(os_errors, 1, "{line}");
}

#[test]
fn a_csv_with_an_unknown_column_blames_the_header() {
    let basel = Basel::embedded();
    basel.enrol("Ana López", "ana@example.org");
    let file = basel.dir().join("bad.csv");
    std::fs::write(&file, "country_code,country_name,colour\nDE,Germany,blue\n").expect("csv");
    let line = error_line(&basel.run(&[
        "import",
        &file.display().to_string(),
        "--steward",
        "ana-lopez",
    ]));
    assert!(
        line.contains("header") && line.contains("'colour'"),
        "{line}"
    );
    assert!(!line.contains("row 1"), "{line}");
    assert!(
        line.contains("country_code, country_name"),
        "lists the columns: {line}"
    );
}

#[test]
fn a_json_object_instead_of_an_array_says_what_is_expected() {
    let basel = Basel::embedded();
    basel.enrol("Ana López", "ana@example.org");
    let file = basel.dir().join("object.json");
    std::fs::write(
        &file,
        r#"{"country_code": "DE", "country_name": "Germany"}"#,
    )
    .expect("json");
    let line = error_line(&basel.run(&[
        "import",
        &file.display().to_string(),
        "--steward",
        "ana-lopez",
    ]));
    assert!(line.contains("expected a JSON array of records"), "{line}");
    assert!(!line.contains("invalid type"), "{line}");
}

#[test]
fn a_steward_id_is_transliterated_from_the_name() {
    let basel = Basel::embedded();
    let output = basel.run(&[
        "steward",
        "enrol",
        "--name",
        "Ana López",
        "--email",
        "ana@example.org",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let all = format!("{}{}", crate::support::stdout(&output), stderr(&output));
    assert!(all.contains("ana-lopez"), "{all}");
}

#[test]
fn a_command_other_than_serve_never_creates_a_store() {
    let basel = Basel::embedded();
    let elsewhere = basel.dir().join("elsewhere");
    let line = error_line(&basel.run(&[
        "--data-dir",
        &elsewhere.display().to_string(),
        "steward",
        "enrol",
        "--name",
        "Ana",
        "--email",
        "ana@example.org",
    ]));
    assert!(
        line.contains(&format!(
            "no store at {}",
            elsewhere.join("basel.db").display()
        )),
        "{line}"
    );
    assert!(
        line.contains("BASEL_DATA_DIR") && line.contains("basel serve"),
        "{line}"
    );
    assert!(!elsewhere.exists(), "nothing was created");
}
