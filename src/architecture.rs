//! The crate's import graph, read from its sources: lower layers never
//! import higher ones, no two files import each other (directly or round a
//! cycle), and what grades and reports never reaches the runner.
//!
//! Paths are read from `use crate::…` / `use super::…` items (brace groups
//! expanded) and from inline `crate::a::b` paths; an item is followed
//! through `pub use` re-exports to the file that defines it, so a module
//! re-exporting its children is not a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules, lowest first: a module may import only those
/// before it (and itself).
const LAYERS: &[&str] = &[
    "text",
    "timings",
    "atomic",
    "student_trees",
    "user_cache",
    "errors",
    "value",
    "reference",
    "corpus",
    "integrity",
    "submission",
    "recording",
    "runner",
    "grade",
    "counterexample",
    "report",
    "session",
    "cli",
];

/// Modules that may never import the runner: what is read from a
/// recording needs no process.
const NEVER_RUNNER: &[&str] = &["grade", "report", "integrity", "recording", "submission"];

type Module = Vec<String>;

struct Source {
    text: String,
    /// `pub use` re-exports: the name and the path it stands for.
    reexports: BTreeMap<String, Module>,
}

fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Drops comments and string literals, which may hold `crate::` in prose.
fn code_only(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if src[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            let end = src[i + 2..].find("*/").map_or(bytes.len(), |e| i + 4 + e);
            i = end;
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if src[i..].starts_with("r#\"") {
            let end = src[i + 3..].find("\"#").map_or(bytes.len(), |e| i + 5 + e);
            i = end;
            out.push_str("\"\"");
        } else if bytes[i] == b'\'' && i + 2 < bytes.len() && bytes[i + 2] == b'\'' {
            i += 3; // a char literal such as '"'
        } else {
            let ch = src[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap().trim();
        return vec![path.to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap()];
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
    for (i, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.extend(expand_part(prefix, &inner[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.extend(expand_part(prefix, &inner[start..]));
    out
}

fn expand_part(prefix: &str, part: &str) -> Vec<String> {
    if part.trim().is_empty() {
        return Vec::new();
    }
    expand(part)
        .into_iter()
        .map(|p| {
            if p == "self" {
                prefix.trim_end_matches("::").to_string()
            } else {
                format!("{prefix}{p}")
            }
        })
        .collect()
}

/// Every `use` tree in the file (with its visibility), whitespace folded.
fn use_trees(code: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let before = rest[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let after = &rest[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        let tree: String = after[..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        out.push((public, tree));
        rest = &after[end..];
    }
    out
}

fn find_word(hay: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = hay[from..].find(word) {
        let at = from + i;
        let ok_before = at == 0 || !is_ident(hay.as_bytes()[at - 1]);
        let ok_after = hay
            .as_bytes()
            .get(at + word.len())
            .is_some_and(|b| b.is_ascii_whitespace());
        if ok_before && ok_after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A path as written in `module`, made absolute (without `crate`).
fn absolute(module: &Module, is_mod_file: bool, path: &str) -> Option<Module> {
    let segs: Vec<&str> = path.split("::").map(str::trim).collect();
    let mut base: Module;
    let mut rest = &segs[..];
    match segs.first()? {
        &"crate" => {
            base = Vec::new();
            rest = &segs[1..];
        }
        &"super" | &"self" => {
            // `self` is the module itself; `super` its parent. A file
            // `a/b.rs` is module a::b; `a/mod.rs` is module a.
            base = module.clone();
            let _ = is_mod_file;
            while let Some(&s) = rest.first() {
                match s {
                    "super" => {
                        base.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None, // an external crate or a name in scope
    }
    base.extend(rest.iter().filter(|s| **s != "*").map(|s| s.to_string()));
    Some(base)
}

struct Crate {
    files: BTreeMap<Module, Source>,
}

impl Crate {
    fn read(root: &Path) -> Crate {
        let mut files = BTreeMap::new();
        for path in rust_files(root) {
            let module = module_of(root, &path);
            let is_mod_file = path
                .file_name()
                .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
            let full = code_only(&std::fs::read_to_string(&path).unwrap());
            let text = without_test_modules(&full);
            let mut defines = BTreeSet::new();
            for kw in [
                "fn", "struct", "enum", "trait", "const", "static", "type", "mod", "union",
            ] {
                let mut rest = text.as_str();
                while let Some(at) = find_word(rest, kw) {
                    let name: String = rest[at + kw.len()..]
                        .trim_start()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    defines.insert(name);
                    rest = &rest[at + kw.len()..];
                }
            }
            let mut reexports = BTreeMap::new();
            for (public, tree) in use_trees(&text) {
                if !public {
                    continue;
                }
                for p in expand(&tree) {
                    let name = p.rsplit("::").next().unwrap().trim().to_string();
                    let name = tree_alias(&tree, &p).unwrap_or(name);
                    if let Some(target) = absolute(&module, is_mod_file, &p) {
                        reexports.insert(name, target);
                    } else if let Some(child) = p.split("::").next() {
                        // `pub use child::X` inside a module: relative to it.
                        let mut target = module.clone();
                        target.extend(p.split("::").map(|s| s.trim().to_string()));
                        if defines.contains(child) {
                            reexports.insert(name, target);
                        }
                    }
                }
            }
            files.insert(module, Source { text, reexports });
        }
        Crate { files }
    }

    /// The file that defines what `path` names.
    fn resolve(&self, path: &[String], depth: usize) -> Option<Module> {
        let mut n = path.len();
        while n > 0 && !self.files.contains_key(&path[..n]) {
            n -= 1;
        }
        let module = path[..n].to_vec();
        let Some(next) = path.get(n) else {
            return Some(module);
        };
        let source = self.files.get(&module)?;
        if depth < 8 {
            if let Some(target) = source.reexports.get(next) {
                let mut target = target.clone();
                target.extend(path[n + 1..].iter().cloned());
                return self.resolve(&target, depth + 1).or(Some(module));
            }
        }
        Some(module)
    }

    fn edges(&self) -> BTreeMap<Module, BTreeSet<Module>> {
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (module, source) in &self.files {
            let mut paths = Vec::new();
            // A module re-exporting its own children is a facade, not a
            // dependency; any other `pub use` is (its code may use the name).
            let mut facade = BTreeSet::new();
            for (public, tree) in use_trees(&source.text) {
                for path in expand(&tree) {
                    if public {
                        facade.insert(path.clone());
                    }
                    paths.push(path);
                }
            }
            let own_code = without_reexports(&source.text);
            for root in ["crate::", "super::"] {
                let mut rest = own_code.as_str();
                while let Some(at) = rest.find(root) {
                    let starts_path = at == 0 || {
                        let b = rest.as_bytes()[at - 1];
                        !is_ident(b) && b != b':'
                    };
                    if starts_path {
                        let path: String = rest[at..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                            .collect();
                        paths.push(path.trim_end_matches(':').to_string());
                    }
                    rest = &rest[at + root.len()..];
                }
            }
            for path in paths {
                let path = path.as_str();
                let Some(abs) = absolute(module, false, path) else {
                    continue;
                };
                let Some(target) = self.resolve(&abs, 0) else {
                    continue;
                };
                let into_child = facade.contains(path) && target.starts_with(module);
                if target != *module && !into_child {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
        edges
    }
}

/// The code without its `#[cfg(test)] mod … { … }` blocks: a unit test's
/// `super` is the file itself, and what tests import is not architecture.
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = &rest[at + "#[cfg(test)]".len()..];
        let is_module = after.trim_start().starts_with("mod ");
        let open = after.find(['{', ';']);
        match (is_module, open) {
            (true, Some(open)) if after.as_bytes()[open] == b'{' => {
                out.push_str(&rest[..at]);
                let mut depth = 0;
                let mut end = after.len();
                for (i, ch) in after[open..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            _ => {
                out.push_str(&rest[..at + "#[cfg(test)]".len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The code with its `pub use` items cut out.
fn without_reexports(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e + 1);
        let before = rest[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        out.push_str(if public { &rest[..0] } else { &rest[..end] });
        if public {
            out.push_str(&rest[..at]);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn tree_alias(tree: &str, path: &str) -> Option<String> {
    let last = path.rsplit("::").next()?.trim();
    let i = tree.find(&format!("{last} as "))?;
    Some(
        tree[i + last.len() + 4..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect(),
    )
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

fn layer(m: &Module) -> Option<usize> {
    LAYERS
        .iter()
        .position(|l| m.first().map(String::as_str) == Some(*l))
}

fn src() -> Crate {
    Crate::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn every_top_level_module_has_a_layer() {
    let krate = src();
    let unplaced: BTreeSet<String> = krate
        .files
        .keys()
        .filter(|m| !m.is_empty() && layer(m).is_none())
        .filter(|m| !matches!(m[0].as_str(), "main" | "architecture"))
        .map(|m| m[0].clone())
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules missing from LAYERS: {unplaced:?}"
    );
}

#[test]
fn no_module_imports_a_higher_layer() {
    let krate = src();
    let mut upward = Vec::new();
    for (from, targets) in krate.edges() {
        for to in targets {
            if let (Some(a), Some(b)) = (layer(&from), layer(&to)) {
                if b > a {
                    upward.push(format!("{} -> {}", name(&from), name(&to)));
                }
            }
        }
    }
    assert!(upward.is_empty(), "upward imports:\n{}", upward.join("\n"));
}

#[test]
fn grading_and_reports_never_reach_the_runner() {
    let krate = src();
    let mut bad = Vec::new();
    for (from, targets) in krate.edges() {
        if NEVER_RUNNER.contains(&from.first().map(String::as_str).unwrap_or("")) {
            for to in targets
                .iter()
                .filter(|t| t.first().is_some_and(|t| t == "runner"))
            {
                bad.push(format!("{} -> {}", name(&from), name(to)));
            }
        }
    }
    assert!(bad.is_empty(), "imports of runner/:\n{}", bad.join("\n"));
}

#[test]
fn no_files_import_each_other_round_a_cycle() {
    let edges = src().edges();
    let cycles = strongly_connected(&edges);
    let shown: Vec<String> = cycles
        .iter()
        .map(|c| c.iter().map(name).collect::<Vec<_>>().join(" <-> "))
        .collect();
    assert!(shown.is_empty(), "import cycles:\n{}", shown.join("\n"));
}

#[test]
fn the_reader_finds_a_planted_cycle_and_an_upward_import() {
    // The checks above pass vacuously if the reader finds no edges at all.
    let dir = tempfile::tempdir().unwrap();
    let write = |p: &str, s: &str| {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, s).unwrap();
    };
    write("lib.rs", "pub mod value; pub mod grade;");
    write("value/mod.rs", "mod a; mod b; pub use a::A;\n");
    write(
        "value/a.rs",
        "use super::b::B; // crate::grade::Fake in a comment\npub struct A;",
    );
    write(
        "value/b.rs",
        "use crate::value::{A, self};\npub struct B; fn f() { crate::grade::G; }",
    );
    write("grade/mod.rs", "pub struct G; use crate::value::A;");
    let krate = Crate::read(dir.path());
    let edges = krate.edges();
    let m = |s: &str| s.split("::").map(String::from).collect::<Module>();
    assert_eq!(edges[&m("value::a")], BTreeSet::from([m("value::b")]));
    assert_eq!(
        edges[&m("value::b")],
        BTreeSet::from([m("value"), m("value::a"), m("grade")])
    );
    assert_eq!(edges[&m("grade")], BTreeSet::from([m("value::a")]));
    assert_eq!(strongly_connected(&edges).len(), 1);
}

/// Tarjan's strongly connected components of more than one file.
fn strongly_connected(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit(s: &mut State, v: &Module) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                let done = w == *v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}
