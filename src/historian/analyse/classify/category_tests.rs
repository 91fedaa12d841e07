use super::*;

#[test]
fn categories() {
    for (path, expected) in [
        ("Cargo.toml", Category::Build),
        ("web/package-lock.json", Category::Build),
        ("requirements-dev.txt", Category::Build),
        (".github/workflows/ci.yml", Category::Config),
        (".gitignore", Category::Config),
        ("tests/cli/historian.rs", Category::Test),
        ("src/parser_test.go", Category::Test),
        ("regress/roff/string/undef.in", Category::Test),
        ("app/components/Button.test.tsx", Category::Test),
        ("README.md", Category::Docs),
        ("docs/guide/intro.rst", Category::Docs),
        ("LICENSE", Category::Docs),
        ("man/git-historian.1", Category::Docs),
        ("db/migrations/0001_init.sql", Category::Schema),
        ("proto/api.proto", Category::Schema),
        ("src/historian/group.rs", Category::Source),
        ("src/cli/mod.rs", Category::Interface),
        ("src/main.rs", Category::Interface),
        ("config/settings.yml", Category::Config),
    ] {
        assert_eq!(category(path), expected, "{path}");
    }
    assert!(is_asset("logo.png") && is_asset("web/fonts/Inter.WOFF2"));
    assert!(!is_asset("image.bin") && !is_asset("src/png.rs"));
}
