//! Throughput of the redaction function on 1 MiB of executor-like output:
//! build logs and test output with a few secrets, an environment dump, a
//! minified single line, text that is not ASCII, and five hostile inputs
//! (one pattern repeated) that would be quadratic with a careless scanner.
//! Each input is redacted ten times, each time with a different last line
//! (the function remembers the last large text it redacted, so the same
//! text again would measure a comparison); reported per input: the median wall
//! and CPU time with their ranges over the ten, and the throughput at the
//! median and at the extremes, by wall time and by CPU time (on a machine
//! others share, CPU time is what the function costs; wall time is what a
//! caller waited).
//!
//! There is no pair here: plain git has no redaction to compare with (git
//! stores what it is given), so the figure is the function's own, measured
//! in this process (CPU is this process's user + system time; the
//! function runs on the calling thread and nothing else runs beside it).
//!
//! Run with `cargo bench --bench redact` (`REDACT_ONLY=<words>` runs the
//! inputs whose name holds them).

mod common;

use common::{machine, sampled, shown, spread};
use ultraplan::redact::redact;

const MIB: usize = 1 << 20;
const ROUNDS: usize = 10;

fn fill(unit: &str) -> String {
    let mut out = String::with_capacity(MIB + unit.len());
    while out.len() < MIB {
        out.push_str(unit);
    }
    out
}

/// A plan of trivial steps, as `benches/state.rs` writes it: what a run
/// of thousands of steps redacts when its plan changed.
fn plan_steps() -> String {
    let mut out = String::with_capacity(MIB + 512);
    let mut n = 0;
    while out.len() < MIB {
        n += 1;
        let (dir, f) = (n / 100, format!("d{}/f{n}.txt", n / 100));
        out.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `{f}`\n- **Changes:** write it\n  ```sh\n  mkdir -p d{dir} && echo {n} > {f}\n  ```\n- **Verify:** `test -f {f}`\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    out
}

fn main() {
    let inputs = [
        ("plan of trivial steps", plan_steps()),
        (
            "build and test log",
            fill(
                "   Compiling serde v1.0.210\n   Compiling ultraplan v0.1.0 (/work/repo)\ntest plan::tests::parses_steps ... ok\n\
                 warning: unused variable: `token` at src/lexer.rs:42:9\nrunning 3 tests\ntest result: ok. 3 passed; 0 failed\n\
                 GET https://api.example.com/v1/items?page=2 200 12ms request-id=2f3e8a1c-9b7d-4e6f-a5c3-1d2e3f4a5b6c\n",
            ),
        ),
        (
            "log with secrets",
            fill(
                "deploying with STRIPE_SECRET=sk_live_u8jzPde0IgxLd6GncfBAepfJ\nAuthorization: Basic ZGVwbG95OlRyMHViNGRvciYz\n\
                 ok 17 - handles the empty case\npassword=p&ss#word done\nclone https://alice:s3cr3t@github.com/o/r\n",
            ),
        ),
        (
            "environment dump",
            fill("HOME=/home/ci\nPATH=/usr/local/bin:/usr/bin\nSECRET_KEY=a b&c#d\nLANG=C.UTF-8\nGH_TOKEN=abc123\nMAX_TOKENS=10\n"),
        ),
        (
            "one minified line",
            fill("{\"id\":42,\"name\":\"widget\",\"tags\":[\"a\",\"b\"],\"price\":9.5,\"key\":\"value\"},"),
        ),
        ("non-ASCII prose", fill("Prüfung bestanden: ключ и токен не найдены, 秘密はありません。\n")),
        ("hostile: password=", fill("password=")),
        ("hostile: quotes", fill("\"password\": \"\\")),
        ("hostile: key blocks", fill("-----BEGIN PRIVATE KEY-----\n")),
        ("hostile: htpasswd -b", fill("htpasswd -b ")),
        ("hostile: netrc", fill("machine m login l ")),
        ("hostile: pgpass", fill("h:1:d:u:")),
        ("hostile: docker login -p", fill("docker login -p ")),
        ("hostile: --token", fill("--token ")),
        ("hostile: SECRET_KEY_", fill("SECRET_KEY_")),
        ("hostile: quoted words", fill("'password=aaaa' ")),
        ("hostile: quoting in quoting", fill("'a'\\''b'\\''c' ")),
        ("hostile: an unclosed quote", fill("'")),
    ];
    println!("redact: {}", machine());
    println!("redaction throughput, 1 MiB inputs, median of {ROUNDS} (range):");
    let only = std::env::var("REDACT_ONLY").unwrap_or_default();
    for (name, input) in inputs.iter().filter(|(name, _)| name.contains(only.as_str())) {
        // One unmeasured run, so the first sample pays for no cold cache;
        // then each round a text of its own (see the module doc).
        let rounds: Vec<String> = (0..=ROUNDS).map(|i| format!("{input}\nround {i}\n")).collect();
        std::hint::black_box(redact(std::hint::black_box(&rounds[0])));
        let samples: Vec<_> = rounds[1..]
            .iter()
            .map(|text| sampled(|| std::hint::black_box(redact(std::hint::black_box(text)))).0)
            .collect();
        let (w, wlo, whi) = spread(&samples, |s| s.wall);
        let (c, clo, chi) = spread(&samples, |s| s.cpu);
        let mibs = |d: std::time::Duration| input.len() as f64 / MIB as f64 / d.as_secs_f64();
        println!(
            "  {name:<20} wall {} ({}-{})   cpu {} ({}-{})   {:.0} MiB/s of wall ({:.0}-{:.0}), {:.0} of CPU ({:.0}-{:.0})",
            shown(w),
            shown(wlo),
            shown(whi),
            shown(c),
            shown(clo),
            shown(chi),
            mibs(w),
            mibs(whi),
            mibs(wlo),
            mibs(c),
            mibs(chi),
            mibs(clo)
        );
    }
}
