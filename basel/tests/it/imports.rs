//! The import graph of every crate of the workspace: which file names which
//! other file of its crate (`crate::…` and `super::…` paths anywhere in its
//! code, and paths into the modules it declares), tests and comments left
//! out. A cycle of files makes them one piece that can only be understood,
//! and changed, together; none may be larger than 3 files. (Crates cannot
//! import each other in circles: cargo refuses.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The largest strongly connected set of files allowed.
const MAX_CYCLE: usize = 3;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// The workspace's member crates, as the root `Cargo.toml` lists them.
pub fn members() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let start = manifest.find("members = [").expect("a members list");
    let list = &manifest[start + "members = [".len()..];
    let list = &list[..list.find(']').expect("the list ends")];
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

/// Every file under `dir` by its module path (`ca::verify`, `ca` for
/// `ca/mod.rs`, and the empty path for `lib.rs` or `main.rs`), with its code.
fn modules(dir: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, base: &Path, into: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("src dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, into);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(base).expect("under src");
                let mut parts: Vec<String> = relative
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] {
                    parts.pop();
                }
                if parts == ["main"] {
                    continue; // the binary's root: it only calls the library
                }
                let code = std::fs::read_to_string(&path).expect("readable");
                into.insert(parts.join("::"), code);
            }
        }
    }
    let mut modules = BTreeMap::new();
    walk(dir, dir, &mut modules);
    modules
}

/// The `pub use` statements of a file, each whole (they may span lines),
/// without `pub use ` and the `;`.
fn pub_uses(source: &str) -> Vec<String> {
    let code: String = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pub use ") {
        let at_line_start = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c == '\n' || c == ' ');
        let statement = &rest[at + "pub use ".len()..];
        let end = statement.find(';').unwrap_or(statement.len());
        if at_line_start {
            found.push(statement[..end].to_owned());
        }
        rest = &statement[end..];
    }
    found
}

/// The code of a file without its test module, comments and re-exports
/// (`pub use`: a re-export is a name's new address, not a dependency; a
/// path through it is followed to where the name is defined, [`resolve`]).
fn code_of(source: &str) -> String {
    let without_tests = &source[..test_module(source).unwrap_or(source.len())];
    let code: String = without_tests
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut kept = String::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pub use ") {
        kept.push_str(&rest[..at]);
        let statement = &rest[at..];
        rest = &statement[statement.find(';').map_or(statement.len(), |end| end + 1)..];
    }
    kept.push_str(rest);
    kept
}

/// Where a file's test module starts: a `#[cfg(…test…)]` attribute right
/// before `mod`.
fn test_module(source: &str) -> Option<usize> {
    source.match_indices("#[cfg(").find_map(|(at, _)| {
        let attribute = &source[at..];
        let end = attribute.find(")]")?;
        let after = attribute[end + 2..].trim_start();
        (attribute[..end].contains("test") && after.starts_with("mod ")).then_some(at)
    })
}

/// The names a file re-exports (`pub use a::b::{C, D};`), each with the
/// path it names, relative to the file (`super::`, `crate::` kept).
fn reexports(source: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in pub_uses(source) {
        let rest: String = statement.split_whitespace().collect::<Vec<_>>().join(" ");
        let rest = rest.as_str();
        let (head, items) = match rest.split_once("::{") {
            Some((head, items)) => (format!("{head}::"), items.trim_end_matches('}').to_owned()),
            None => match rest.rsplit_once("::") {
                Some((head, item)) => (format!("{head}::"), item.to_owned()),
                None => continue,
            },
        };
        for item in items.split(',') {
            let item = item.trim();
            let (path, name) = match item.split_once(" as ") {
                Some((path, name)) => (path.trim(), name.trim()),
                None => (item, item.rsplit("::").next().unwrap_or(item)),
            };
            if !name.is_empty() && name != "self" && name != "*" {
                names.insert(name.to_owned(), format!("{head}{path}"));
            }
        }
    }
    names
}

/// The paths a file names after `prefix` (`crate::`, `super::` or a child
/// module's `name::`), one level of braces expanded: `a::{b, c::d}` is
/// `a::b` and `a::c::d`.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut found = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
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

/// The modules a file declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`).
fn declared(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("mod "))
                .or_else(|| line.strip_prefix("pub(crate) mod "))?;
            rest.strip_suffix(';').map(str::to_owned)
        })
        .collect()
}

/// The file a path (from the crate root) names: the longest prefix of it
/// that is a module (the crate root when none is), followed through that
/// module's re-export of the next name, if it re-exports it.
fn resolve(path: &str, modules: &BTreeMap<String, String>) -> String {
    let mut path = path.to_owned();
    for _ in 0..8 {
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        let (module, used) = (0..=parts.len())
            .rev()
            .map(|n| (parts[..n].join("::"), n))
            .find(|(candidate, _)| modules.contains_key(candidate))
            .unwrap_or_default();
        let Some(name) = parts.get(used) else {
            return module;
        };
        let Some(target) = reexports(&modules[&module]).remove(*name) else {
            return module;
        };
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        path = if let Some(rest) = target.strip_prefix("crate::") {
            rest.to_owned()
        } else if let Some(rest) = target.strip_prefix("super::") {
            join(parent, rest)
        } else if let Some(rest) = target.strip_prefix("self::") {
            join(&module, rest)
        } else {
            join(&module, &target)
        };
    }
    String::new()
}

/// `module::path`, or `path` when `module` is the root.
fn join(module: &str, path: &str) -> String {
    if module.is_empty() {
        path.to_owned()
    } else {
        format!("{module}::{path}")
    }
}

/// Each file's imports of other files of its crate.
fn imports(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    modules
        .iter()
        .map(|(module, source)| {
            let code = code_of(source);
            let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
            let mut named: Vec<String> = paths_after(&code, "crate::");
            named.extend(
                paths_after(&code, "super::")
                    .into_iter()
                    .map(|p| join(parent, &p)),
            );
            named.extend(
                paths_after(&code, "self::")
                    .into_iter()
                    .map(|p| join(module, &p)),
            );
            for child in declared(&code) {
                let prefix = format!("{child}::");
                named.extend(
                    paths_after(&code, &prefix)
                        .into_iter()
                        .map(|p| join(module, &format!("{child}::{p}"))),
                );
            }
            let targets = named
                .iter()
                .map(|p| resolve(p, modules))
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
fn no_import_cycle_in_any_crate_is_larger_than_three_files() {
    let crates = members();
    assert!(crates.len() >= 10, "{crates:?}");
    let mut edges = 0;
    let mut too_large = Vec::new();
    for krate in &crates {
        let modules = modules(&root().join(krate).join("src"));
        let graph = imports(&modules);
        edges += graph.values().map(BTreeSet::len).sum::<usize>();
        for mut set in components(&graph) {
            if set.len() > MAX_CYCLE {
                set.sort();
                let names: Vec<String> = set
                    .iter()
                    .map(|m| {
                        if m.is_empty() {
                            "(root)".into()
                        } else {
                            m.clone()
                        }
                    })
                    .collect();
                too_large.push(format!(
                    "{krate}: {} files: {}",
                    set.len(),
                    names.join(", ")
                ));
            }
        }
    }
    assert!(
        edges > 300,
        "only {edges} imports found: the parser is broken"
    );
    assert!(
        too_large.is_empty(),
        "import cycles larger than {MAX_CYCLE} files:\n{}",
        too_large.join("\n")
    );
}

#[test]
fn the_import_parser_reads_use_lists_super_paths_and_child_modules() {
    let code = "mod ca;\nuse crate::{error::ApiError, state::Shared};\nlet x = super::write::answer();\nuse ca::get;\n// crate::ignored\n";
    assert_eq!(
        paths_after(&code_of(code), "crate::"),
        ["error::ApiError", "state::Shared"]
    );
    assert_eq!(paths_after(code, "super::"), ["write::answer"]);
    assert_eq!(declared(code), ["ca"]);
    assert_eq!(paths_after(code, "ca::"), ["get"]);
    let lib = "pub use state::{\n    Console,\n    Handle as H,\n};\npub use routes::router;\nfn f() {}\n#[cfg(all(test, unix))]\nmod tests { use crate::x; }\n";
    let names = reexports(lib);
    assert_eq!(names["Console"], "state::Console");
    assert_eq!(names["H"], "state::Handle");
    assert_eq!(names["router"], "routes::router");
    assert!(!code_of(lib).contains("state::"), "{}", code_of(lib));
    assert!(
        !code_of(lib).contains("crate::x"),
        "the test module is left out"
    );
    let graph = BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
        ("c".to_owned(), BTreeSet::new()),
    ]);
    let mut sizes: Vec<usize> = components(&graph).iter().map(Vec::len).collect();
    sizes.sort();
    assert_eq!(sizes, [1, 2]);
}
