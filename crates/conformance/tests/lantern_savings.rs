//! The Lantern savings of the ModernHTTP and RenderBlocking insights
//! against DevTools', on every trace whose DevTools data dump is cached in
//! `$INSIGHTS_CACHE` (default `/work/oracle-cache/insights`, `NAME.json`)
//! and that is a fixture or in `$LANTERN_CORPUS`'s `devtools` or
//! `lighthouse` directory: the insights' inputs from DevTools' models, the
//! savings simulated on tracekit's Lantern context of each navigation.

use std::path::Path;

use tracekit::DevTools;
use tracekit_conformance::lantern_metrics::{cached_outputs, Comparison};
use tracekit_conformance::lantern_savings::{compare_insight_savings, compare_variants};

fn add(total: &mut Comparison, name: &str, one: Comparison) {
    total.compared += one.compared;
    total.identical += one.identical;
    total
        .differences
        .extend(one.differences.into_iter().map(|d| format!("{name}: {d}")));
}

#[test]
fn modern_http_and_render_blocking_savings_are_devtools_ones() {
    std::env::set_current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap();
    let cache = std::env::var("INSIGHTS_CACHE").unwrap_or_else(|_| "/work/oracle-cache/insights".to_owned());
    let only = std::env::var("LANTERN_SAVINGS_ONLY").ok();
    let (mut modern_http, mut render_blocking) = (Comparison::default(), Comparison::default());
    for (name, file, expected) in cached_outputs(Path::new(&cache), only.as_deref()) {
        match compare_insight_savings(&file, &expected, DevTools::LATEST) {
            Ok(one) => {
                add(&mut modern_http, &name, one.modern_http);
                add(&mut render_blocking, &name, one.render_blocking);
            }
            Err(e) => modern_http.differences.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "Lantern savings: ModernHTTP {}/{} navigation sets identical; RenderBlocking {}/{} identical",
        modern_http.identical, modern_http.compared, render_blocking.identical, render_blocking.compared
    );
    let failures: Vec<String> = modern_http
        .differences
        .iter()
        .map(|d| format!("ModernHTTP {d}"))
        .chain(
            render_blocking
                .differences
                .iter()
                .map(|d| format!("RenderBlocking {d}")),
        )
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The savings on the made-up variants of `xtask/js/lantern-insight-savings.mjs`
/// (the trace as is, every request over HTTP/1.1, every request render-blocking),
/// where its outputs are cached in `$LANTERN_INSIGHT_SAVINGS_CACHE` (default
/// `/work/oracle-cache/lantern-insight-savings`, `NAME.json`: `node
/// xtask/js/lantern-insight-savings.mjs TRACE > NAME.json` for each trace).
#[test]
fn savings_on_made_up_variants_are_devtools_ones() {
    std::env::set_current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap();
    let cache = std::env::var("LANTERN_INSIGHT_SAVINGS_CACHE")
        .unwrap_or_else(|_| "/work/oracle-cache/lantern-insight-savings".to_owned());
    let only = std::env::var("LANTERN_SAVINGS_ONLY").ok();
    let mut totals = tracekit_conformance::lantern_savings::VariantComparison::new();
    let mut failures: Vec<String> = Vec::new();
    for (name, file, expected) in cached_outputs(Path::new(&cache), only.as_deref()) {
        match compare_variants(&file, &expected, DevTools::LATEST) {
            Ok(one) => {
                for (key, c) in one {
                    failures.extend(c.differences.iter().map(|d| format!("{key}: {name}: {d}")));
                    add(totals.entry(key).or_default(), &name, c);
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    for (key, c) in &totals {
        eprintln!(
            "Lantern savings, {key}: {}/{} navigations identical",
            c.identical, c.compared
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
