//! Safe CSV: a cell a spreadsheet would run as a formula is
//! escaped by `basel export --format csv` and read back unchanged by
//! `basel import`; phones in `+CC-…` form round-trip; codes that name no
//! country are refused.

use serde_json::{json, Value};

use crate::process::Basel;
use crate::support::{stderr, stdout};

const FORMULA: &str = "=HYPERLINK(\"http://x\",\"y\")";

fn import(basel: &Basel, name: &str, text: &str) -> std::process::Output {
    let file = basel.dir().join(name);
    std::fs::write(&file, text).expect("write the file");
    basel.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ])
}

fn export(basel: &Basel, format: &str) -> String {
    let output = basel.run(&["export", "--format", format]);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

fn store_with_importer() -> Basel {
    let basel = Basel::embedded();
    basel.enrol("Importer", "importer@example.org");
    basel
}

#[test]
fn a_formula_and_a_phone_survive_a_csv_round_trip_escaped_in_the_file() {
    let source = store_with_importer();
    let party = json!([{
        "country_code": "AF",
        "country_name": "Afghanistan",
        "contacts": [{
            "contact_id": "c1",
            "role": "competent_authority",
            "primary": true,
            "ca_name": FORMULA,
            "contact_person": "@SUM(1+1)",
            "phone": "+93-20-2301234",
            "notes": "-2+3",
        }]
    }]);
    let output = import(&source, "first.json", &party.to_string());
    assert!(output.status.success(), "{}", stderr(&output));
    let csv = export(&source, "csv");
    let row = csv.lines().nth(1).expect("a data row");
    assert!(
        row.contains("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""),
        "the formula is escaped with a leading ': {row}"
    );
    assert!(row.contains(",'@SUM(1+1),"), "{row}");
    assert!(row.contains(",'+93-20-2301234,"), "{row}");
    assert!(row.contains(",'-2+3,"), "{row}");
    assert!(!row.contains(",=") && !row.contains(",@"), "{row}");

    let target = store_with_importer();
    let output = import(&target, "exported.csv", &csv);
    assert!(output.status.success(), "{}", stderr(&output));
    let before: Value = serde_json::from_str(&export(&source, "json")).expect("json");
    let after: Value = serde_json::from_str(&export(&target, "json")).expect("json");
    let contact = &after[0]["contacts"][0];
    assert_eq!(contact["ca_name"], FORMULA, "read back unchanged");
    assert_eq!(contact["phone"], "+93-20-2301234");
    assert_eq!(contact["contact_person"], "@SUM(1+1)");
    assert_eq!(after, before);
    assert_eq!(export(&target, "csv"), csv, "the same bytes again");
}

#[test]
fn import_refuses_a_code_that_names_no_country() {
    let basel = store_with_importer();
    let csv = "country_code,country_name\nZZ,Nowhere\n";
    let output = import(&basel, "zz.csv", csv);
    assert!(!output.status.success(), "ZZ was imported");
    assert!(
        stderr(&output).contains("country_not_found"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_new_party_with_more_contacts_than_the_cap_is_refused_and_nothing_is_written() {
    let basel = Basel::embedded().with_env("BASEL_MAX_CONTACTS_PER_PARTY", "2");
    basel.enrol("Importer", "importer@example.org");
    let mut csv = String::from("country_code,country_name,contact_id,role,ca_name\n");
    for n in 1..=3 {
        csv.push_str(&format!(
            "AF,Afghanistan,c{n},competent_authority,Office {n}\n"
        ));
    }
    let output = import(&basel, "capped.csv", &csv);
    assert!(!output.status.success(), "three contacts over a cap of two");
    let problems = stderr(&output);
    assert!(
        problems.contains("row 3 (AF): contacts: a Party holds at most 2 contacts"),
        "{problems}"
    );
    assert!(!problems.contains("row 2 (AF)"), "{problems}");
    assert_eq!(export(&basel, "json").trim(), "[]");
}

#[test]
fn rows_of_one_party_apart_in_the_file_make_one_party() {
    let basel = store_with_importer();
    let csv = "country_code,country_name,contact_id,role,ca_name\n\
               AF,Afghanistan,c1,competent_authority,Office 1\n\
               AL,Albania,c1,competent_authority,Zyra 1\n\
               AF,Afghanistan,c2,competent_authority,Office 2\n\
               AL,Albania,c1,competent_authority,Zyra again\n";
    let file = basel.dir().join("apart.csv");
    std::fs::write(&file, csv).expect("write the file");
    let output = basel.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
        "--dry-run",
    ]);
    assert!(!output.status.success(), "AL lists c1 twice");
    let problems = stderr(&output);
    assert!(
        problems.contains("row 4 (AL): contact_id: `c1` is listed twice"),
        "{problems}"
    );
    let report = stdout(&output);
    assert!(
        report.contains("row 3 (AF) c2: would be registered"),
        "{report}"
    );
    assert!(report.contains("Nothing imported from"), "{report}");
}
