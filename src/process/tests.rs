use super::*;

fn sh(cmd: &str, timeout: Duration, cap: usize) -> Finished {
    shell(cmd, Path::new("."), Vec::new(), timeout, cap).unwrap()
}

#[test]
fn exit_codes_and_output() {
    let f = sh("echo out; echo err >&2; exit 3", Duration::from_secs(10), 1024);
    assert_eq!(f.ending, Ending::Exited(3));
    assert_eq!(f.stdout, "out\n");
    assert_eq!(f.stderr, "err\n");
    assert_eq!(f.output(), "out\nerr\n");
}

#[test]
fn timeout_kills_the_whole_group() {
    let start = Instant::now();
    let f = sh("sleep 30 & sleep 30; echo never", Duration::from_millis(300), 1024);
    assert_eq!(f.ending, Ending::TimedOut);
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    assert!(!f.stdout.contains("never"));
}

#[test]
fn capture_keeps_head_and_tail() {
    let f = sh("seq 1 100000", Duration::from_secs(10), 64);
    assert!(f.stdout.starts_with("1\n2\n3\n"), "{}", f.stdout);
    assert!(f.stdout.ends_with("99999\n100000\n"), "{}", f.stdout);
    assert!(f.stdout.contains("bytes omitted"));
}

#[test]
fn a_cut_keeps_no_piece_of_a_token_or_a_key() {
    const TOKEN: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
    for cap in [40, 64, 101, 333] {
        let mut c = Capture::new(cap);
        for _ in 0..50 {
            c.push(format!("token {TOKEN}\n").as_bytes());
        }
        let text = c.text();
        assert!(text.contains("bytes omitted"), "{text}");
        let marker = ["[…", "bytes", "omitted", "…]"];
        for word in text.split_whitespace() {
            let counted = word.chars().all(|ch| ch.is_ascii_digit());
            assert!(
                word == "token" || word == TOKEN || marker.contains(&word) || counted,
                "a piece '{word}' was kept (cap {cap}):\n{text}"
            );
        }
    }
    // A key block cut in its middle: its end keeps no line of it.
    let mut c = Capture::new(200);
    c.push(b"-----BEGIN RSA PRIVATE KEY-----\n");
    for i in 0..40 {
        c.push(format!("MIIEowIBAAKCAQEA{i:04}secretkeymaterialxyz\n").as_bytes());
    }
    c.push(b"-----END RSA PRIVATE KEY-----\nafter the key\n");
    let text = c.text();
    let tail = text.split("omitted …]\n").nth(1).unwrap();
    assert_eq!(tail, "after the key\n", "{text}");
}

#[test]
fn lines_arrive_as_they_are_printed_and_the_capture_stays_capped() {
    let mut lines = Vec::new();
    let f = run_lines(
        Spec {
            program: "sh",
            args: vec!["-c".into(), "printf 'a\\nb\\n'; seq 1 2000; printf 'last'".into()],
            cwd: Path::new("."),
            env: Vec::new(),
            stdin: None,
            timeout: Duration::from_secs(10),
            cap: 64,
        },
        &mut |l| lines.push(l.to_owned()),
    )
    .unwrap();
    assert_eq!(lines.len(), 2003, "every line, however much is captured");
    assert_eq!((&lines[0][..], &lines[1][..], &lines[2002][..]), ("a", "b", "last"));
    assert!(f.stdout.contains("bytes omitted"));
    // A hang: the group is killed at the deadline, the lines so far kept.
    let start = Instant::now();
    let mut seen = Vec::new();
    let f = run_lines(
        Spec {
            program: "sh",
            args: vec!["-c".into(), "echo started; sleep 30 & sleep 30".into()],
            cwd: Path::new("."),
            env: Vec::new(),
            stdin: None,
            timeout: Duration::from_millis(300),
            cap: 1024,
        },
        &mut |l| seen.push(l.to_owned()),
    )
    .unwrap();
    assert_eq!(f.ending, Ending::TimedOut);
    assert_eq!(seen, ["started"]);
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn stdin_is_fed_and_a_non_reader_does_not_block() {
    let f = run(Spec {
        program: "sh",
        args: vec!["-c".into(), "cat".into()],
        cwd: Path::new("."),
        env: Vec::new(),
        stdin: Some(b"{\"step\":1}".to_vec()),
        timeout: Duration::from_secs(10),
        cap: 1024,
    })
    .unwrap();
    assert_eq!(f.stdout, "{\"step\":1}");
    let f = run(Spec {
        program: "true",
        args: Vec::new(),
        cwd: Path::new("."),
        env: Vec::new(),
        stdin: Some(vec![b'x'; 1 << 20]),
        timeout: Duration::from_secs(10),
        cap: 1024,
    })
    .unwrap();
    assert!(f.ending.success());
}
