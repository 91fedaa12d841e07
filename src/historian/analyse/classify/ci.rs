//! Whether a path configures continuous integration: what a commit
//! changing only such files is typed (`ci:`) by.

use crate::historian::analyse::left_out::list;

use super::{directories, file_name};

/// Files that configure a CI service, wherever they sit (lowercased).
const CI_FILES: &[&str] = &[
    ".travis.yml",
    ".gitlab-ci.yml",
    "appveyor.yml",
    ".appveyor.yml",
    "azure-pipelines.yml",
    "jenkinsfile",
    ".drone.yml",
    ".cirrus.yml",
    "bitbucket-pipelines.yml",
    "codecov.yml",
    ".codecov.yml",
];

/// Directories whose files configure or script CI (lowercased).
const CI_DIRECTORIES: &[&str] = &[".circleci", ".buildkite", ".ci", "ci"];

/// Whether `path` configures or scripts continuous integration: a CI
/// service's file (`appveyor.yml`, `.travis.yml`), a GitHub workflow, or a
/// file under a CI directory (`.circleci/`, `ci/`).
pub fn is_ci(path: &str) -> bool {
    let name = file_name(path).to_ascii_lowercase();
    list("CI_FILES", CI_FILES).contains(&name.as_str())
        || path.starts_with(".github/workflows/")
        || path.starts_with(".github/actions/")
        || directories(path).any(|d| list("CI_DIRECTORIES", CI_DIRECTORIES).contains(&d.to_ascii_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::is_ci;

    #[test]
    fn ci_files_and_directories() {
        for path in [
            "appveyor.yml",
            ".travis.yml",
            ".github/workflows/ci.yml",
            ".circleci/config.yml",
            "ci/script.sh",
            "build/azure-pipelines.yml",
        ] {
            assert!(is_ci(path), "{path}");
        }
        for path in [
            ".github/ISSUE_TEMPLATE.md",
            "src/circle.rs",
            "docs/ci.md",
            "config.yml",
            "precise/x.sh",
        ] {
            assert!(!is_ci(path), "{path}");
        }
    }
}
