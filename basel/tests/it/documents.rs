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

#[test]
fn the_two_commands_run_the_basel_binary_and_every_test() {
    let readme = read("README.md");
    let start = readme
        .find("## The two commands")
        .expect("the two commands");
    let section = &readme[start..start + readme[start..].find("\n## ").expect("a next section")];
    let blocks: Vec<&str> = section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or_default().trim())
        .collect();
    assert_eq!(
        blocks,
        ["cargo run --release", "cargo nextest run --workspace"]
    );
    // `cargo run` runs the workspace's default member, whose one binary is basel.
    let manifest = read("Cargo.toml");
    assert!(
        manifest.contains("default-members = [\"basel\"]"),
        "default-members"
    );
    let binary = read("basel/Cargo.toml");
    assert_eq!(binary.matches("[[bin]]").count(), 1, "basel has one binary");
    assert!(binary.contains("name = \"basel\"\npath = \"src/main.rs\""));
    // CI runs the second command as the README writes it.
    assert!(read(".ci/run").contains("cargo nextest run --workspace --locked"));
}

#[test]
fn no_document_names_a_path_of_one_machine() {
    let mut problems = Vec::new();
    for entry in walk_text_files(&root()) {
        let text = std::fs::read_to_string(root().join(&entry)).unwrap_or_default();
        for (number, line) in text.lines().enumerate() {
            for marker in ["/work/", "/root/", "wt-before", "helper session"] {
                if line.contains(marker) {
                    problems.push(format!("{entry}:{}: {marker}", number + 1));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "paths of one machine in the repository:\n{}",
        problems.join("\n")
    );
}

/// Markdown and text files under the repository (not `target/` or
/// `node_modules/`), relative to it.
fn walk_text_files(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, into: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(
                    name.as_str(),
                    "target" | "node_modules" | ".git" | "fixtures"
                ) {
                    walk(&path, root, into);
                }
            } else if name.ends_with(".md") || name.ends_with(".py") || name == "run" {
                let relative = path.strip_prefix(root).expect("under root");
                into.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    let mut files = Vec::new();
    walk(root, root, &mut files);
    files
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
    // The tour's own BASE lines point at the default port; this store
    // listens elsewhere. Its `basel` is the one `cargo run --release` built:
    // here, the binary under test, on the same data directory.
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_basel"));
    let bin_dir = binary.parent().expect("the binary's directory");
    let script = script
        .replace("BASE=http://127.0.0.1:8080", &format!("BASE={}", node.base))
        .replace(
            "export PATH=\"$PWD/target/release:$PATH\"",
            &format!("export PATH=\"{}:$PATH\"", bin_dir.display()),
        );
    assert!(
        script.contains(&format!("{}:$PATH", bin_dir.display())),
        "the tour puts basel on the PATH"
    );
    let output = std::process::Command::new("bash")
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .env("BASEL_DATA_DIR", basel.store.data_dir())
        .output()
        .expect("bash runs (and the tour needs curl and jq)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the tour failed ({}):\n{}\n{stdout}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // What the tour says each step shows, the steward's check last.
    for expected in [
        "Inspectie Leefomgeving en Transport",
        "\"area\": \"Bayern (Regierungsbezirk Oberbayern)\"",
        "Regierung von Oberbayern",
        "\"VN\"",
        "\"A1160\"",
        "\"prohibited\": true",
        "\"next\"",
        "\"with_traced_contact\"",
        "\"public_key\"",
        "basel.local/audit\n",
        "\"last_checked\": \"2026-11-20\"",
    ] {
        assert!(
            stdout.contains(expected),
            "the tour's output lacks {expected}:\n{stdout}"
        );
    }
    node.stop();
}
