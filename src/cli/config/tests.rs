use super::*;

#[test]
fn integer_defaults_read_as_git_reads_them() {
    assert_eq!(default_integer(&MAX_ATTEMPTS).unwrap(), 3);
    assert_eq!(default_integer(&TRANSCRIPT_CAP).unwrap(), 1 << 20);
    assert_eq!(default_integer(&SNAPSHOT_IGNORED_MAX).unwrap(), 16 << 20);
    assert_eq!(default_integer(&HISTORIAN_MAX_FILES).unwrap(), 15);
    assert_eq!(default_integer(&HISTORIAN_MAX_LINES).unwrap(), 500);
    assert_eq!(parse_integer("2k"), Some(2048));
    assert!(default_integer(&EXECUTOR).is_err());
}

#[test]
fn durations() {
    use std::time::Duration;
    assert_eq!(parse_duration("30m"), Some(Duration::from_secs(1800)));
    assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("1.5h"), Some(Duration::from_secs(5400)));
    assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
    assert_eq!(parse_duration("soon"), None);
    assert_eq!(parse_duration("-1s"), None);
}

#[test]
fn keys_are_section_camel_case_and_unique() {
    let mut names: Vec<&str> = ALL.iter().map(|k| k.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), ALL.len());
    for key in ALL {
        let (section, name) = key.name.split_once('.').unwrap();
        assert!(section.chars().all(|c| c.is_ascii_lowercase()), "{}", key.name);
        // `ultraplan.<agent>.path` stands for one key per agent.
        assert!(
            name.starts_with(|c: char| c.is_ascii_lowercase() || c == '<'),
            "{}",
            key.name
        );
    }
}
