//! The documents a newcomer reads are checked against what they describe:
//! the README's tour runs against a fresh store, the configuration table
//! lists every setting exactly once, the codemap names every production
//! file, and README and BENCHMARKS stay short.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::process::Basel;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

#[test]
fn readme_and_benchmarks_stay_short_and_links_resolve() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 400, "README.md has {lines} lines (at most 400)");
    let benchmarks = read("BENCHMARKS.md").lines().count();
    assert!(
        benchmarks <= 500,
        "BENCHMARKS.md has {benchmarks} lines (at most 500)"
    );
    let mut links = 0;
    for (rest, _) in readme.match_indices("](") {
        let target = &readme[rest + 2..];
        let target = &target[..target.find(')').expect("a closed link")];
        if target.starts_with("http") || target.starts_with('#') {
            continue;
        }
        links += 1;
        let path = target.split('#').next().unwrap_or(target);
        assert!(
            root().join(path).exists(),
            "README links to {target}, which does not exist"
        );
    }
    assert!(
        links >= 10,
        "the README's document table links {links} files"
    );
}

/// Every environment variable and flag of the command line, by walking
/// clap's own description of it (subcommands included), plus the variables
/// production code reads directly.
fn settings() -> BTreeMap<String, Option<String>> {
    fn walk(command: &clap::Command, into: &mut BTreeMap<String, Option<String>>) {
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                let long = arg.get_long().map(|l| format!("--{l}"));
                into.insert(env.to_string_lossy().into_owned(), long);
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, into);
        }
    }
    let mut found = BTreeMap::new();
    walk(&basel::cli::args::Cli::command(), &mut found);
    for file in production_files() {
        let text = std::fs::read_to_string(root().join(&file)).expect("source");
        for (at, _) in text.match_indices("env::var(\"BASEL_") {
            let name = &text[at + "env::var(\"".len()..];
            let name = &name[..name.find('"').expect("closed string")];
            found.entry(name.to_owned()).or_insert(None);
        }
    }
    found
}

#[test]
fn the_configuration_table_lists_every_setting_exactly_once() {
    let doc = read("docs/configuration.md");
    // The table's rows: `| flag | environment | default | meaning |`.
    let is_variable = |cell: &str| {
        cell.strip_prefix("`BASEL_")
            .and_then(|rest| rest.strip_suffix('`'))
            .is_some_and(|name| name.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
    };
    let rows: Vec<Vec<&str>> = doc
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| l.split(" | ").collect::<Vec<_>>())
        .filter(|cells| cells.get(1).is_some_and(|c| is_variable(c)))
        .collect();
    let settings = settings();
    assert!(
        settings.len() >= 35,
        "only {} settings found",
        settings.len()
    );
    for (env, long) in &settings {
        let quoted = format!("`{env}`");
        let holding: Vec<_> = rows
            .iter()
            .filter(|r| r.get(1) == Some(&quoted.as_str()))
            .collect();
        assert_eq!(
            holding.len(),
            1,
            "{env} is in {} rows of the configuration table",
            holding.len()
        );
        if let Some(long) = long {
            let flag = format!("`{long}`");
            assert!(
                holding[0][0].contains(&flag),
                "the row of {env} does not name {long}"
            );
            let named = rows.iter().filter(|r| r[0].contains(&flag)).count();
            assert_eq!(named, 1, "{long} is named in {named} rows");
        }
    }
    for row in &rows {
        let env = row.get(1).map(|c| c.trim_matches('`')).unwrap_or_default();
        assert!(
            settings.contains_key(env),
            "the table lists {env}, which no code reads"
        );
    }
}

/// The production source files: every `.rs` under a crate's `src/`, and
/// build scripts.
fn production_files() -> Vec<String> {
    fn walk(dir: &Path, base: &Path, into: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, into);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(base).expect("under root");
                into.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let root = root();
    let mut files = Vec::new();
    for krate in crate::imports::members() {
        walk(&root.join(&krate).join("src"), &root, &mut files);
        if root.join(&krate).join("build.rs").exists() {
            files.push(format!("{krate}/build.rs"));
        }
    }
    files.sort();
    files
}

#[test]
fn the_codemap_names_every_production_file_once() {
    let architecture = read("ARCHITECTURE.md");
    let start = architecture.find("## Codemap").expect("a codemap");
    let end = start
        + architecture[start..]
            .find("\n## ")
            .expect("a section after the codemap");
    let codemap = &architecture[start..end];
    let files = production_files();
    assert!(files.len() > 150, "{} files", files.len());
    let mut problems = Vec::new();
    for file in &files {
        let count = codemap.matches(&format!("`{file}`")).count();
        if count != 1 {
            problems.push(format!("{file}: named {count} times"));
        }
    }
    let known: BTreeSet<_> = files.iter().map(String::as_str).collect();
    for line in codemap.lines().filter(|l| l.starts_with("- `")) {
        let named = &line[3..line[3..].find('`').map_or(3, |i| i + 3)];
        if named.ends_with(".rs") && !known.contains(named) {
            problems.push(format!("{named}: in the codemap but not in the tree"));
        }
    }
    assert!(
        problems.is_empty(),
        "codemap out of date:\n{}",
        problems.join("\n")
    );
}

/// The `sh` blocks of the README's tour, in order.
fn tour() -> String {
    let readme = read("README.md");
    let start = readme.find("## A tour").expect("a tour");
    let end = start
        + readme[start..]
            .find("\n## ")
            .expect("a section after the tour");
    let mut script = String::new();
    let mut inside = false;
    for line in readme[start..end].lines() {
        match (inside, line.trim()) {
            (false, "```sh") => inside = true,
            (true, "```") => inside = false,
            (true, _) => {
                script.push_str(line);
                script.push('\n');
            }
            _ => {}
        }
    }
    script
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_tour_runs_on_a_fresh_store() {
    let script = tour();
    assert!(script.contains("curl"), "the tour has commands");
    let basel = Basel::embedded();
    let node = basel.serve().await;
    // The first checkpoint is signed within moments of the seed (a person
    // reading the tour is slower than that).
    for _ in 0..100 {
        if node
            .get("/api/v1/audit/checkpoint")
            .await
            .is_some_and(|(s, _)| s == 200)
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // The tour's own BASE line points at the default port; this store listens elsewhere.
    let script = script.replace("BASE=http://127.0.0.1:8080", &format!("BASE={}", node.base));
    let output = std::process::Command::new("bash")
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the tour failed ({}):\n{}\n{stdout}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // What the tour says each step shows.
    for expected in [
        "\"country_code\":\"DE\"",
        "\"competent\"",
        "\"VN\"",
        "A1160",
        "\"prohibited\"",
        "\"next\"",
        "\"with_traced_contact\"",
        "\"public_key\"",
        "basel.local/audit\n",
    ] {
        assert!(
            stdout.contains(expected),
            "the tour's output lacks {expected}"
        );
    }
    node.stop();
}
