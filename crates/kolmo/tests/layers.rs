//! The engine's layers only point down (shared/DESIGN.md, "Layers"; the order is in the crate
//! docs): this test reads every source file of `crates/kolmo-core/src` (the lower layers),
//! `crates/kolmo-lu/src` (faer's LU factorisations, part of `linsolve`) and `crates/kolmo/src`, collects the crate paths its non-test code names (`use crate::…`,
//! `crate::x::…` in expressions and types, `kolmo_core::x::…`, `super::…` that climbs out of its
//! top-level module), and fails naming file:line and both layers when a module
//! names one in a layer above its own or beside it. Comments (doc links included) and
//! `#[cfg(test)]` items are not read: tests may use anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, lowest first; modules in one entry share a layer and may not use each other.
/// Root items (`crate::Error`, `crate::Result`, `crate::StateId`, …) belong to the lowest layer.
const LAYERS: &[&[&str]] = &[
    &["numeric", "error", "progress", "account", "lib"],
    &["interrupt"],
    &["sparse"],
    &["exact"],
    &["model"],
    &["graph"],
    &["linsolve", "sim", "explore", "io"],
    &["lang"],
    &["analysis"],
    &["mdp"],
    &["game"],
    &["games", "check"],
];

/// The layer of a top-level module (or root item) name, with the module it stands for.
fn layer_of(name: &str) -> Option<usize> {
    if name.chars().next().is_some_and(char::is_uppercase) || name == "excerpt" || name == "preview" {
        // A root re-export or type alias: `Error`, `Result`, `StateId`, `excerpt`, `preview`.
        return Some(0);
    }

    LAYERS.iter().position(|l| l.contains(&name))
}

/// Source text with comments, string and char literals blanked out (newlines kept, so line
/// numbers stay right).
fn strip_comments_and_strings(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if b[i] == b'r' && matches!(b.get(i + 1), Some(b'"' | b'#')) && !is_ident(b, i) {
            // Raw string r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let end = find(b, j + 1, &close).map_or(b.len(), |e| e + close.len());
            for &c in &b[i..end] {
                blank(&mut out, c);
            }
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            for &c in &b[i..end] {
                blank(&mut out, c);
            }
            i = end;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): blank only literals.
            let lit_end = if b.get(i + 1) == Some(&b'\\') {
                find(b, i + 3, b"'").map(|e| e + 1)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 3)
            } else {
                std::str::from_utf8(&b[i + 1..])
                    .ok()
                    .and_then(|s| s.chars().next())
                    .filter(|c| !c.is_ascii())
                    .map(|c| i + 1 + c.len_utf8())
                    .filter(|&e| b.get(e) == Some(&b'\''))
                    .map(|e| e + 1)
            };
            match lit_end {
                Some(end) => {
                    for &c in &b[i..end] {
                        blank(&mut out, c);
                    }
                    i = end;
                }
                None => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 (only ASCII replaced whole characters)")
}

fn is_ident(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    (from..b.len().saturating_sub(pat.len() - 1)).find(|&k| &b[k..k + pat.len()] == pat)
}

/// The text with every `#[cfg(test)]` item (a module, a function, a `use`) blanked out.
fn strip_test_items(src: &str) -> String {
    let mut b = src.as_bytes().to_vec();
    let mut from = 0;
    while let Some(at) = src[from..].find("#[cfg(test)]").map(|k| k + from) {
        // The item runs to its first `;` before any `{`, or to the `}` closing its first `{`.
        let j = item_end(&b, at + "#[cfg(test)]".len(), true);
        for c in &mut b[at..(j + 1).min(src.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = (j + 1).min(src.len());
    }
    String::from_utf8(b).expect("only ASCII blanked")
}

/// The position of the `}` closing the first `{` at or after `from` (or, with `stop_at_semicolon`,
/// of a `;` met before any `{`); the end of `b` if there is none.
fn item_end(b: &[u8], from: usize, stop_at_semicolon: bool) -> usize {
    let mut depth = 0usize;
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b';' if depth == 0 && stop_at_semicolon => break,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// The module path of a source file below `src` (`mdp/reach.rs` → `["mdp", "reach"]`,
/// `sparse/mod.rs` → `["sparse"]`, `lib.rs` → `[]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

/// Every crate path named in `code` (stripped of comments, strings and tests): `(line, first
/// segment below the crate root)`. `use crate::{a, b::c}` groups name each of their heads.
fn crate_paths(code: &str, module: &[String]) -> Vec<(usize, String)> {
    let inline = blocks_after(code, "mod ");
    // A macro's `super::` resolves where it is expanded, not where it is written: not judged.
    let macros = blocks_after(code, "macro_rules!");
    let mut found = Vec::new();
    let mut line_start = 0;
    for (k, line) in code.lines().enumerate() {
        let offset = line_start;
        line_start += line.len() + 1;
        // Inline `mod x { … }` blocks around this line deepen the module path.
        let depth = module.len() + inline.iter().filter(|r| r.contains(&offset)).count();
        let in_macro = macros.iter().any(|r| r.contains(&offset));
        let mut rest = line;
        while let Some(at) = [
            find_word(rest, "crate::"),
            find_word(rest, "kolmo_core::"),
            find_word(rest, "super::"),
        ]
        .into_iter()
        .flatten()
        .min()
        {
            let tail = &rest[at..];
            let mut depth_up = 0usize;
            let mut t = tail;
            let root = ["crate::", "kolmo_core::"].into_iter().find(|r| t.starts_with(r));
            let from_crate = root.is_some();
            if let Some(root) = root {
                t = &t[root.len()..];
            } else {
                while let Some(s) = t.strip_prefix("super::") {
                    depth_up += 1;
                    t = s;
                }
            }
            // Resolve `super::` against the file's module path; only climbing to the root
            // leaves the top-level module.
            let names: Vec<String> = if from_crate || (depth_up >= depth && !in_macro) {
                if t.starts_with('{') {
                    group_heads(code, k, line.len() - t.len())
                } else {
                    vec![
                        t.chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect(),
                    ]
                }
            } else {
                Vec::new()
            };
            for name in names.into_iter().filter(|n| !n.is_empty()) {
                found.push((k + 1, name));
            }
            rest = &t[t.char_indices().nth(1).map_or(t.len(), |(i, _)| i)..];
        }
    }
    found
}

/// The byte ranges of the `{ … }` bodies that follow `keyword name` (inline `mod name { … }`,
/// `macro_rules! name { … }`).
fn blocks_after(code: &str, keyword: &str) -> Vec<std::ops::Range<usize>> {
    let b = code.as_bytes();
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(at) = find_word(&code[from..], keyword).map(|k| k + from) {
        let mut j = at + keyword.len();
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b' ') {
            j += 1;
        }
        if b.get(j) == Some(&b'{') {
            ranges.push(j..item_end(b, j, false));
        }
        from = j;
    }
    ranges
}

/// `crate::` or `super::` at a word start in `s`.
fn find_word(s: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = s[from..].find(word).map(|k| k + from) {
        let before = s[..k].chars().next_back();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Some(k);
        }
        from = k + word.len();
    }
    None
}

/// The heads of the names in a `{…}` group that starts at column `col` of line `k` (the group
/// may span lines): `{Error, Result, sparse::{CsrMatrix, Direction}}` → Error, Result, sparse.
fn group_heads(code: &str, k: usize, col: usize) -> Vec<String> {
    let start: usize = code.lines().take(k).map(|l| l.len() + 1).sum::<usize>() + col;
    let text = &code[start..];
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut expect_head = false;
    let mut i = 0;
    let b = text.as_bytes();
    while i < b.len() {
        match b[i] {
            b'{' => {
                depth += 1;
                expect_head = depth == 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b',' if depth == 1 => expect_head = true,
            c if expect_head && (c.is_ascii_alphanumeric() || c == b'_') => {
                let name: String = text[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                i += name.len();
                heads.push(name);
                expect_head = false;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    heads
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn modules_only_import_from_lower_layers() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for src in [
        here.join("../kolmo-core/src"),
        here.join("../kolmo-lu/src"),
        here.join("src"),
    ] {
        let mut found = Vec::new();
        rust_files(&src, &mut found);
        found.sort();
        files.extend(found.into_iter().map(|f| (src.clone(), f)));
    }
    let mut violations = Vec::new();
    let mut checked: BTreeMap<String, usize> = BTreeMap::new();
    for (src, path) in &files {
        let rel = path.strip_prefix(src).expect("below src");
        let mut module = module_path(rel);
        if src.ends_with("kolmo-lu/src") {
            // The `kolmo-lu` crate is part of the `linsolve` layer (re-exported there).
            module.insert(0, "linsolve".to_owned());
        }
        let top = module.first().cloned().unwrap_or_else(|| "lib".to_owned());
        if top == "lib" && src.ends_with("kolmo/src") {
            // The `kolmo` crate's root only re-exports the lower layers of `kolmo-core`.
            continue;
        }
        let Some(own) = layer_of(&top) else {
            violations.push(format!(
                "{}: top-level module `{top}` has no layer: add it to LAYERS (and to the crate docs)",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(path).expect("a readable source file");
        let code = strip_test_items(&strip_comments_and_strings(&text));
        for (line, name) in crate_paths(&code, &module) {
            // A macro of `sparse`, exported at the root of `kolmo-core`.
            let name = if name == "with_values" {
                "sparse".to_owned()
            } else {
                name
            };
            *checked.entry(top.clone()).or_default() += 1;
            if name == top {
                continue;
            }
            let Some(target) = layer_of(&name) else {
                violations.push(format!(
                    "{}:{line}: `crate::{name}` is not a known module",
                    rel.display()
                ));
                continue;
            };
            if target >= own && !(own == 0 && target == 0) {
                let how = if target == own { "beside" } else { "above" };
                violations.push(format!(
                    "{}:{line}: `{top}` (layer {own}) imports `{name}` (layer {target}), {how} its own layer",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        checked.len() > 10,
        "the scan found crate paths in too few modules: {checked:?}"
    );
    assert!(
        violations.is_empty(),
        "imports that do not point down ({} found; layers lowest first: {LAYERS:?}):\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[test]
fn the_scanner_reads_paths_and_skips_comments_strings_and_tests() {
    let src = r#"
use crate::{Error, sparse::{CsrMatrix, Direction}};
// use crate::game::bellman;
/// See [`crate::mdp`].
fn f() { let s = "crate::games"; crate::model::Mdp::new(); }
#[cfg(test)]
mod tests {
    use crate::games::snakes;
}
fn g() { super::super::linsolve::x(); super::local(); }
mod inner {
    use super::super::sibling;
    use super::super::super::analysis;
}
macro_rules! m {
    () => { super::super::expanded_elsewhere(); crate::graph::x(); };
}
"#;
    let code = strip_test_items(&strip_comments_and_strings(src));
    let module = vec!["mdp".to_owned(), "reach".to_owned()];
    let found = crate_paths(&code, &module);
    assert_eq!(
        found,
        vec![
            (2, "Error".to_owned()),
            (2, "sparse".to_owned()),
            (5, "model".to_owned()),
            (10, "linsolve".to_owned()),
            (13, "analysis".to_owned()),
            (16, "graph".to_owned()),
        ]
    );
}
