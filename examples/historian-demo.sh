#!/usr/bin/env bash
# The git-historian demo: a feature branch of the kind a long day leaves
# behind (WIP commits, a typo fix, a fixup!, a test, docs and build changes
# mixed together), rewritten into a clean branch beside it. Then the result
# is read back with plain git: the clean commits, the empty diff between the
# two tips, and the untouched original branch. Needs git-historian on PATH
# (cargo install --locked --path .).
set -euo pipefail

if ! command -v git-historian >/dev/null 2>&1; then
  echo "git-historian is not on PATH; install it with: cargo install --locked --path ." >&2
  exit 1
fi

demo=$(mktemp -d "${TMPDIR:-/tmp}/historian-demo.XXXXXX")
mkdir "$demo/repo"
cd "$demo/repo"
git init -q -b main
git config user.name "Demo User"
git config user.email "demo@example.com"

mkdir -p src tests docs
printf 'pub mod parse;\n' > src/lib.rs
printf 'pub fn parse(s: &str) -> Vec<&str> {\n    s.split(\x27,\x27).collect()\n}\n' > src/parse.rs
printf '# csvkit\n\nSplits lines.\n' > README.md
printf '[package]\nname = "csvkit"\nversion = "0.1.0"\n' > Cargo.toml
git add -A
git commit -q -m "initial commit"

git switch -q -c feature/export
commit() { git add -A; git commit -q -m "$1"; }

printf 'pub mod parse;\npub mod export;\n' > src/lib.rs
printf 'pub fn to_tsv(fields: &[&str]) -> String {\n    fields.join("\\t")\n}\n' > src/export.rs
printf '# csvkit\n\nSplits lines.\n\n## Export\n\nto_tsv joins fields with tabs.\n' > README.md
commit "WIP"

printf 'use csvkit::export::to_tsv;\n\n#[test]\nfn joins_with_tabs() {\n    assert_eq!(to_tsv(&["a", "b"]), "a\\tb");\n}\n' > tests/export.rs
printf '[package]\nname = "csvkit"\nversion = "0.2.0"\n' > Cargo.toml
commit "export to tsv + tests, bump version"

printf 'pub fn parse(s: &str) -> Vec<&str> {\n    s.split(\x27,\x27).map(str::trim).collect()\n}\n' > src/parse.rs
printf 'use csvkit::parse::parse;\n\n#[test]\nfn trims_fields() {\n    assert_eq!(parse("a, b"), ["a", "b"]);\n}\n' > tests/parse.rs
commit "trim whitespace in parse"

printf '# csvkit\n\nSplits lines.\n\n## Export\n\n`to_tsv` joins fields with tabs.\n' > README.md
commit "fix typo"

printf 'pub fn to_tsv(fields: &[&str]) -> String {\n    fields.join("\\t")\n}\n\npub fn to_psv(fields: &[&str]) -> String {\n    fields.join("|")\n}\n' > src/export.rs
printf '# Export formats\n\n* TSV: `to_tsv`\n* PSV: `to_psv`\n' > docs/formats.md
commit "more stuff"

echo "scratch notes, not committed" > NOTES.txt

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step git log --oneline main..feature/export
step git historian plan --base main
step git historian clean --base main
clean=$(git for-each-ref --format='%(refname:short)' 'refs/heads/feature/export-*-clean')
step git log --format='%h %s' "main..$clean"
step git diff --stat feature/export "$clean"
step git status --short
printf '\nThe demo repository is %s (clean branch %s)\n' "$demo/repo" "$clean"
