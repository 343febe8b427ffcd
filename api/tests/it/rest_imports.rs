//! The import graph of `api/src/rest`: which file names which other one
//! (`crate::rest::…` paths anywhere in its code, `super::…` paths), tests
//! and comments left out. A cycle of files makes them one piece that can
//! only be understood, and changed, together; none may be larger than 3.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The largest strongly connected set of files allowed.
const MAX_CYCLE: usize = 3;

fn rest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rest")
}

/// Every file under `api/src/rest` by its module path (`ca::verify`, `ca`
/// for `ca/mod.rs`, and the empty path for `rest/mod.rs`), with its code.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, base: &Path, into: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("rest dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, into);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(base).expect("under rest");
                let mut parts: Vec<String> = relative
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|p| p == "mod") {
                    parts.pop();
                }
                let code = std::fs::read_to_string(&path).expect("readable");
                into.insert(parts.join("::"), code);
            }
        }
    }
    let mut modules = BTreeMap::new();
    let dir = rest_dir();
    walk(&dir, &dir, &mut modules);
    modules
}

/// The code of a file without its tests and comments.
fn code_of(source: &str) -> String {
    let without_tests = source
        .find("#[cfg(test)]\nmod tests")
        .map_or(source, |at| &source[..at]);
    without_tests
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a file names after `prefix` (`crate::rest::` or `super::`),
/// one level of braces expanded: `a::{b, c::d}` is `a::b` and `a::c::d`.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut found = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // `super::` inside `super::super::`, or another prefix
        }
        let rest = &code[at + prefix.len()..];
        let head: String = rest.chars().take_while(|c| ident(*c)).collect();
        let after = &rest[head.len()..];
        if (head.is_empty() || head.ends_with("::")) && after.starts_with('{') {
            let inner = after[1..].split('}').next().unwrap_or_default();
            for item in inner.split(',') {
                let item: String = item.trim().chars().take_while(|c| ident(*c)).collect();
                found.push(format!("{head}{item}"));
            }
        } else {
            found.push(head);
        }
    }
    found
}

/// The file a path names: the longest prefix of it that is a module.
fn resolve(path: &str, modules: &BTreeMap<String, String>) -> Option<String> {
    let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    (1..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find(|candidate| modules.contains_key(candidate))
}

/// Each file's imports of other files under `api/src/rest`.
fn imports(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    modules
        .iter()
        .map(|(module, source)| {
            let code = code_of(source);
            let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
            let mut named: Vec<String> = paths_after(&code, "crate::rest::");
            named.extend(
                paths_after(&code, "super::")
                    .into_iter()
                    .map(|p| format!("{parent}::{p}")),
            );
            let targets = named
                .iter()
                .filter_map(|p| resolve(p, modules))
                .filter(|target| target != module)
                .collect();
            (module.clone(), targets)
        })
        .collect()
}

/// The strongly connected sets of `graph` (Tarjan's algorithm).
fn components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            for next in self.graph.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut set = Vec::new();
                while let Some(top) = self.stack.pop() {
                    set.push(top.to_owned());
                    if top == node {
                        break;
                    }
                }
                self.found.push(set);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

#[test]
fn no_import_cycle_in_rest_is_larger_than_three_files() {
    let modules = modules();
    assert!(
        modules.len() > 20,
        "{} files under api/src/rest",
        modules.len()
    );
    let graph = imports(&modules);
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    assert!(
        edges > 40,
        "only {edges} imports found: the parser is broken"
    );
    let too_large: Vec<String> = components(&graph)
        .into_iter()
        .filter(|set| set.len() > MAX_CYCLE)
        .map(|mut set| {
            set.sort();
            format!("{} files: {}", set.len(), set.join(", "))
        })
        .collect();
    assert!(
        too_large.is_empty(),
        "import cycles larger than {MAX_CYCLE} files in api/src/rest:\n{}",
        too_large.join("\n")
    );
}

#[test]
fn the_import_parser_reads_use_lists_and_super_paths() {
    let code = "use crate::rest::{error::ApiError, state::Shared};\nlet x = super::write::answer();\n// crate::rest::ignored\n";
    assert_eq!(
        paths_after(&code_of(code), "crate::rest::"),
        ["error::ApiError", "state::Shared"]
    );
    assert_eq!(paths_after(code, "super::"), ["write::answer"]);
    let graph = BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
        ("c".to_owned(), BTreeSet::new()),
    ]);
    let mut sizes: Vec<usize> = components(&graph).iter().map(Vec::len).collect();
    sizes.sort();
    assert_eq!(sizes, [1, 2]);
}
