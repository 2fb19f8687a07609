//! The comparison on CPU profiles built by hand with exact sample counts
//! (1 ms apart), whose diff is known exactly, and the thresholds.

use crate::{compare, measure, Key, Kind, Options, Presence, Quantity, Run, Threshold};

/// A `.cpuprofile`: `(root)` → `main` → each of `calls` (name, samples),
/// `main` with `main_self` samples of its own, samples 1 ms apart, in
/// blocks, and a last `(idle)` sample.
pub(crate) fn profile(main_self: usize, calls: &[(&str, usize)]) -> String {
    let frame = |id: usize, name: &str, line: i64, children: &str| {
        format!(
            r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"file:///app.js","lineNumber":{line},"columnNumber":4}},"hitCount":0,"children":[{children}]}}"#
        )
    };
    let children: Vec<String> = (0..calls.len()).map(|i| (i + 4).to_string()).collect();
    let mut nodes = vec![
        r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3]}"#.to_owned(),
        frame(2, "main", 0, &children.join(",")),
        r#"{"id":3,"callFrame":{"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[]}"#.to_owned(),
    ];
    let mut samples: Vec<usize> = vec![2; main_self];
    for (i, (name, n)) in calls.iter().enumerate() {
        nodes.push(frame(i + 4, name, 10 * (i as i64 + 1), ""));
        samples.extend(std::iter::repeat_n(i + 4, *n));
    }
    samples.push(3);
    let deltas = vec!["1000"; samples.len()].join(",");
    let samples: Vec<String> = samples.iter().map(ToString::to_string).collect();
    format!(
        r#"{{"nodes":[{}],"startTime":1000000,"endTime":{},"samples":[{}],"timeDeltas":[{deltas}]}}"#,
        nodes.join(","),
        1000000 + samples.len() * 1000,
        samples.join(",")
    )
}

pub(crate) fn run_of(text: &str) -> Run {
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &tracekit::AnalyzeOptions::default()).unwrap();
    measure(&analysis, tracekit::DEFAULT_MAX_NODES).unwrap()
}

fn key(name: &str, quantity: Quantity) -> Key {
    Key {
        kind: Kind::Function,
        thread: "main".to_owned(),
        name: name.to_owned(),
        quantity,
    }
}

#[test]
fn a_profile_is_measured_by_its_functions() {
    let run = run_of(&profile(20, &[("fast", 30), ("slow", 50)]));
    let get = |name: &str, q| run.values.get(&key(name, q)).copied();
    assert_eq!(get("slow file:///app.js:21:5", Quantity::SelfTime), Some(50.0));
    assert_eq!(get("fast file:///app.js:11:5", Quantity::SelfTime), Some(30.0));
    assert_eq!(get("main file:///app.js:1:5", Quantity::SelfTime), Some(20.0));
    assert_eq!(get("main file:///app.js:1:5", Quantity::Total), Some(100.0));
}

#[test]
fn one_pair_gives_the_exact_change() {
    let base = run_of(&profile(20, &[("fast", 30), ("slow", 50), ("gone", 5)]));
    let new = run_of(&profile(20, &[("fast", 30), ("slow", 80), ("fresh", 7)]));
    let report = compare(&[base], &[new], &Options::default()).unwrap();
    assert!(!report.is_statistical());
    let first = &report.rows[0];
    assert_eq!(first.key, key("slow file:///app.js:21:5", Quantity::SelfTime));
    assert_eq!((first.base, first.new, first.delta), (50.0, 80.0, 30.0));
    assert_eq!(first.relative, Some(0.6));
    let find = |name: &str| {
        report
            .rows
            .iter()
            .find(|r| r.key.name.starts_with(name) && r.key.quantity == Quantity::SelfTime)
            .unwrap()
    };
    assert_eq!((find("gone").presence, find("gone").delta), (Presence::Removed, -5.0));
    assert_eq!((find("fresh").presence, find("fresh").delta), (Presence::Added, 7.0));
    assert!(!find("fast").changed);
    let main_total = report
        .rows
        .iter()
        .find(|r| r.key == key("main file:///app.js:1:5", Quantity::Total))
        .unwrap();
    assert_eq!(main_total.delta, 32.0);
}

#[test]
fn several_runs_find_the_slowed_function_and_only_it() {
    // Runs with a little jitter of their own; NEW's slow takes 20% more.
    let runs = |slow: usize| -> Vec<Run> {
        (0..7)
            .map(|i| {
                run_of(&profile(
                    20 + i % 3,
                    &[("fast", 30 + (i * 5) % 4), ("slow", slow + i % 4)],
                ))
            })
            .collect()
    };
    let (base, new, again) = (runs(50), runs(60), runs(50));
    let report = compare(&base, &new, &Options::default()).unwrap();
    let changes: Vec<&Key> = report.changes().map(|r| &r.key).collect();
    assert_eq!(
        changes[0],
        &key("slow file:///app.js:21:5", Quantity::SelfTime),
        "{changes:?}"
    );
    assert!(
        changes
            .iter()
            .all(|k| k.name.starts_with("slow") || k.name.starts_with("main") || k.kind == Kind::Category),
        "{changes:?}"
    );
    let slow = &report.rows[0];
    let stats = slow.stats.unwrap();
    assert_eq!(slow.delta, 10.0);
    assert!(stats.low <= 10.0 && 10.0 <= stats.high && stats.p_adjusted < 0.05 && stats.cliffs_delta == 1.0);
    // A/A: the same runs on both sides, and the same workload again.
    let aa = compare(&base, &again, &Options::default()).unwrap();
    assert_eq!(aa.changes().count(), 0);
    assert!(aa.tested > 0);
}

#[test]
fn thresholds_parse_and_cross() {
    let base = run_of(&profile(20, &[("fast", 30), ("slow", 50)]));
    let new = run_of(&profile(20, &[("fast", 30), ("slow", 80)]));
    let report = compare(&[base], &[new], &Options::default()).unwrap();
    let crossed = |t: &str| !crate::crossed(&[t.parse::<Threshold>().unwrap()], &report).is_empty();
    assert!(crossed("self:slow>+10%"));
    assert!(crossed("self:slow>+29ms"));
    assert!(!crossed("self:slow>+30ms"));
    assert!(!crossed("self:fast>+1%"));
    assert!(crossed("total:main>+29ms"));
    assert!(!crossed("total:main>+30ms"));
    assert!(crossed("category:Scripting>+25ms"));
    assert!(crossed("any>+50%"));
    assert!(!crossed("any>+61%"));
    assert!(!crossed("LCP>+100ms"));
    assert!(crossed("self:slow>+0.01s"));
    for bad in [
        "LCP",
        "LCP>+",
        "LCP>+10ms>",
        "slow>+10%",
        "self:>+1ms",
        "lcp>+abc",
        "wat:x>+1ms",
        "self:x>+5",
    ] {
        assert!(bad.parse::<Threshold>().is_err(), "{bad}");
    }
    assert_eq!("CLS>+0.1".parse::<Threshold>().unwrap().amount, 0.1);
}

#[test]
fn thresholds_of_counts_bytes_and_third_parties() {
    use crate::{Target, Unit};
    let t = |text: &str| text.parse::<Threshold>().unwrap();
    assert_eq!(
        (t("Requests>+5").target, t("Requests>+5").unit),
        (Target::Page("Requests".into()), Unit::Plain)
    );
    assert_eq!(
        (t("bytes>+100kB").amount, t("bytes>+100kB").unit),
        (100_000.0, Unit::Bytes)
    );
    assert_eq!(t("Bytes<-2MB").amount, -2_000_000.0);
    assert_eq!(
        t("third-party:Google Analytics>+10ms").target,
        Target::ThirdParty("Google Analytics".into())
    );
    assert_eq!(t("third-party:x>+1B").amount, 1.0);
    for bad in ["Bytes>+5", "Bytes>+5ms", "self:x>+5kB", "LCP>+1kB", "Requests>+1ms"] {
        assert!(bad.parse::<Threshold>().is_err(), "{bad}");
    }
    // Rows of each unit: a threshold watches the rows of its unit only.
    let row = |kind: Kind, name: &str, quantity: Quantity, base: f64, new: f64| {
        let key = Key {
            kind,
            thread: "page".to_owned(),
            name: name.to_owned(),
            quantity,
        };
        crate::Row {
            unit: key.unit(),
            key,
            presence: Presence::Both,
            base,
            new,
            delta: new - base,
            relative: Some((new - base) / base),
            stats: None,
            changed: true,
        }
    };
    let rows = [
        row(Kind::Page, "Requests", Quantity::Value, 10.0, 13.0),
        row(Kind::Page, "Bytes", Quantity::Value, 100_000.0, 150_000.0),
        row(Kind::ThirdParty, "Ads Inc", Quantity::SelfTime, 20.0, 45.0),
        row(Kind::ThirdParty, "Ads Inc", Quantity::TransferSize, 5_000.0, 4_000.0),
    ];
    let crosses = |text: &str| {
        let t = t(text);
        rows.iter().any(|r| t.matches(r) && t.crossed_by(r))
    };
    assert!(crosses("Requests>+2") && !crosses("Requests>+3"));
    assert!(crosses("Bytes>+49kB") && !crosses("Bytes>+50kB") && crosses("Bytes>+49%"));
    assert!(crosses("third-party:ads inc>+24ms") && !crosses("third-party:Ads Inc>+25ms"));
    assert!(crosses("third-party:Ads Inc<-999B") && !crosses("third-party:Ads Inc<-1kB"));
    assert!(crosses("any>+49kB") && !crosses("any>+50kB"));
    // In ms, `any` skips the counts and bytes; a plain number skips the times.
    assert!(crosses("any>+24ms") && !crosses("any>+25ms"));
    assert_eq!(rows[0].unit, crate::ValueUnit::Count);
    assert_eq!(rows[3].unit, crate::ValueUnit::Bytes);
}

#[test]
fn bad_sides_are_errors() {
    let p = run_of(&profile(20, &[("slow", 50)]));
    let trace = r#"[{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"Worker"}},{"name":"RunTask","ph":"X","ts":1,"dur":5000,"pid":1,"tid":2}]"#;
    let t = run_of(trace);
    let err = compare(std::slice::from_ref(&p), std::slice::from_ref(&t), &Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot compare a CPU profile with a Chrome trace: give inputs of one kind"
    );
    let empty = run_of(
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],"startTime":0,"endTime":0,"samples":[],"timeDeltas":[]}"#,
    );
    let err = compare(&[empty], &[p], &Options::default()).unwrap_err();
    assert_eq!(err.to_string(), "BASE has nothing to compare: no thread with time");
    let other = r#"[{"name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":"Other"}},{"name":"RunTask","ph":"X","ts":1,"dur":5000,"pid":1,"tid":3}]"#;
    let err = compare(&[t], &[run_of(other)], &Options::default()).unwrap_err();
    assert!(err.to_string().starts_with("no thread in common: BASE has "), "{err}");
}

#[test]
fn the_markdown_renders_as_tables() {
    use pulldown_cmark::{html, Options as MdOptions, Parser};
    let runs = |slow: usize| -> Vec<Run> {
        (0..7)
            .map(|i| {
                run_of(&profile(
                    20 + i % 3,
                    &[("fast|pipe", 25 + slow / 10 + i % 2), ("slow", slow + i % 4)],
                ))
            })
            .collect()
    };
    let report = compare(&runs(50), &runs(60), &Options::default()).unwrap();
    let md = crate::render::markdown(&report);
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(&md, MdOptions::ENABLE_TABLES));
    assert_eq!(out.matches("<table>").count(), 2, "{out}"); // categories, functions
    assert!(
        out.contains("<th>key</th><th>thread</th><th style=\"text-align: right\">base</th>"),
        "{out}"
    );
    assert!(
        out.contains("<th>95% CI</th><th style=\"text-align: right\">p (adjusted)</th>"),
        "{out}"
    );
    // The slowed function's row, cell by cell.
    let row = out
        .split("<tr>")
        .find(|r| r.contains("slow file:///app.js:21:5 (self)"))
        .unwrap();
    let cells: Vec<&str> = row
        .split("<td")
        .skip(1)
        .map(|c| c.split_once('>').unwrap().1.split("</td>").next().unwrap())
        .collect();
    assert_eq!(cells.len(), 10, "{row}");
    assert_eq!(cells[0], "<strong>changed</strong>");
    assert_eq!(cells[1], "<code>slow file:///app.js:21:5 (self)</code>");
    assert_eq!(&cells[2..7], ["main", "51.00 ms", "61.00 ms", "+10.00 ms", "+19.6%"]);
    assert_eq!(cells[9], "+1.00");
    // A `|` in a name stays in its cell.
    let piped = out.split("<tr>").find(|r| r.contains("fast")).unwrap();
    assert!(piped.contains("<code>fast|pipe file:///app.js:11:5"), "{piped}");
}
