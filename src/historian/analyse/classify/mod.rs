//! What a path is, by name alone (DESIGN §10.2, §10.3): its category
//! (dependencies and build, configuration and CI, schema and migrations,
//! core source, interfaces, tests, docs: the `category` module), and where
//! it belongs (the `component` module): the directory prefix, the scope a
//! commit message names, and the stem that pairs a test with the code it
//! tests.

mod category;
mod ci;
mod component;

pub use category::{category, is_asset, is_test_path, Category};
pub use ci::is_ci;
pub use component::{component, scope, stem, tested_stem};

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn directories(path: &str) -> impl Iterator<Item = &str> {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    parts.into_iter()
}

fn extension(name: &str) -> &str {
    match name.rfind('.') {
        Some(i) if i > 0 => &name[i + 1..],
        _ => "",
    }
}
