//! The generated history the evaluation always has: a small multi-module
//! project whose commits add features, fix lines, rename functions across
//! files, edit docs and bump dependencies.

use std::collections::BTreeMap;
use std::path::Path;

use super::{common, Lcg};

/// A generated history: a small multi-module project whose commits add
/// features (a function, its callers, its test, a line of docs), fix lines,
/// rename functions across files, edit docs and bump dependencies.
pub fn generate(dir: &Path) {
    std::fs::create_dir_all(dir).expect("dir");
    common::git(dir, &["init", "-q", "-b", "main"]);
    let modules = ["parser", "lexer", "render", "store", "net", "auth"];
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut functions: Vec<(String, String)> = Vec::new(); // (name, path)
    for m in modules {
        for f in ["core", "util"] {
            let path = format!("src/{m}/{f}.rs");
            let mut lines = vec![format!("//! {m} {f}"), String::new()];
            for n in 0..3 {
                let name = format!("{m}_{f}_{n}");
                lines.extend(function(&name, &[]));
                functions.push((name, path.clone()));
            }
            files.insert(path, lines);
        }
        files.insert(
            format!("tests/{m}_test.rs"),
            vec![format!("// tests of {m}"), String::new()],
        );
        files.insert(
            format!("docs/{m}.md"),
            vec![format!("# {m}"), String::new(), format!("The {m} module.")],
        );
    }
    files.insert(
        "README.md".into(),
        vec!["# demo".into(), String::new(), "A demo.".into()],
    );
    files.insert(
        "Cargo.toml".into(),
        vec!["[package]".into(), "name = \"demo\"".into(), "[dependencies]".into()],
    );
    files.insert("Cargo.lock".into(), vec!["# lock".into()]);
    write_all(dir, &files);
    common::git(dir, &["add", "-A"]);
    common::git(dir, &["commit", "-q", "-m", "initial"]);
    let mut random = Lcg(42);
    let words = [
        "parse", "scan", "emit", "load", "save", "check", "merge", "split", "flush", "fetch",
    ];
    for n in 0..160 {
        let m = modules[random.below(modules.len() as u64) as usize];
        let kind = random.below(100);
        let subject;
        if kind < 40 {
            // A feature: a function, a caller, maybe a test and a doc line.
            let word = words[random.below(words.len() as u64) as usize];
            let name = format!("{m}_{word}_{n}");
            let file = if random.below(2) == 0 { "core" } else { "util" };
            let path = format!("src/{m}/{file}.rs");
            let body = (1 + random.below(6)) as usize;
            let mut lines = function(&name, &[]);
            for b in 0..body {
                lines.insert(1, format!("    let step{b} = {b} + 1;"));
            }
            files.get_mut(&path).expect("file").extend(lines);
            functions.push((name.clone(), path.clone()));
            let caller_module = if random.below(3) == 0 {
                modules[random.below(modules.len() as u64) as usize]
            } else {
                m
            };
            let caller_path = format!("src/{caller_module}/core.rs");
            let caller = files.get_mut(&caller_path).expect("caller");
            let at = 2 + random.below(caller.len().saturating_sub(2) as u64 + 1) as usize;
            caller.insert(at.min(caller.len()), format!("// uses {name}: {name}();"));
            if random.below(10) < 6 {
                files.get_mut(&format!("tests/{m}_test.rs")).expect("test").extend(vec![
                    "#[test]".into(),
                    format!("fn test_{name}() {{"),
                    format!("    {name}();"),
                    "}".into(),
                ]);
            }
            if random.below(10) < 3 {
                files
                    .get_mut(&format!("docs/{m}.md"))
                    .expect("doc")
                    .push(format!("Use `{name}` to {word}."));
            }
            subject = format!("Add {name}");
        } else if kind < 65 {
            // A fix: change a line inside a function.
            let (name, path) = functions[random.below(functions.len() as u64) as usize].clone();
            let lines = files.get_mut(&path).expect("file");
            if let Some(at) = lines.iter().position(|l| l.contains(&format!("fn {name}("))) {
                lines.insert(at + 1, format!("    let fixed_{n} = true; // fix {n}"));
            }
            subject = format!("Fix {name} on empty input");
        } else if kind < 75 {
            // A rename across every file using the function.
            let index = random.below(functions.len() as u64) as usize;
            let (old, _) = functions[index].clone();
            let new = format!("{old}_v{n}");
            for lines in files.values_mut() {
                for l in lines.iter_mut() {
                    if l.contains(&old) {
                        *l = l.replace(&old, &new);
                    }
                }
            }
            functions[index].0 = new.clone();
            subject = format!("Rename {old} to {new}");
        } else if kind < 88 {
            let path = if random.below(3) == 0 {
                "README.md".to_owned()
            } else {
                format!("docs/{m}.md")
            };
            files
                .get_mut(&path)
                .expect("doc")
                .push(format!("More about {m} ({n})."));
            subject = format!("Document {m}");
        } else {
            files
                .get_mut("Cargo.toml")
                .expect("manifest")
                .push(format!("dep{n} = \"1.{n}\""));
            let lock = files.get_mut("Cargo.lock").expect("lock");
            lock.extend(vec![
                "[[package]]".into(),
                format!("name = \"dep{n}\""),
                format!("version = \"1.{n}.0\""),
            ]);
            subject = format!("Depend on dep{n}");
        }
        write_all(dir, &files);
        common::git(dir, &["add", "-A"]);
        common::git(dir, &["commit", "-q", "--allow-empty", "-m", &subject]);
    }
}

fn function(name: &str, body: &[&str]) -> Vec<String> {
    let mut lines = vec![format!("pub fn {name}() {{")];
    lines.extend(body.iter().map(|b| b.to_string()));
    lines.push("}".into());
    lines.push(String::new());
    lines
}

fn write_all(dir: &Path, files: &BTreeMap<String, Vec<String>>) {
    for (path, lines) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("dirs");
        std::fs::write(full, lines.join("\n") + "\n").expect("write");
    }
}
