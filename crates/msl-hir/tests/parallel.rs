//! Checking a unit's functions on two threads gives what one thread gives, in the same
//! order, and the work is really shared (the second thread executes checks).

use std::path::Path;
use std::sync::{Arc, Mutex};

use msl_hir::{Analysis, RootDatabase};
use msl_syntax::PpConfig;

/// Forty functions, every fourth with problems the checks report.
fn unit_text() -> String {
    let mut s = String::from("#include <metal_stdlib>\nusing namespace metal;\n");
    for i in 0..40 {
        if i % 4 == 0 {
            s.push_str(&format!(
                "kernel float k{i}(device float *x [[buffer(0)]], float t [[thread_position_in_grid]]) {{\n    \
                 float3 v = float3(1.0f);\n    x[0] = v.xyzq + undeclared{i};\n    return 0.0f;\n}}\n"
            ));
        } else {
            s.push_str(&format!(
                "kernel void k{i}(device float *x [[buffer(0)]], uint t [[thread_position_in_grid]]) {{\n    \
                 float4 v = float4(x[t]);\n    x[t] = dot(v, v) + clamp(v.x, 0.0f, 1.0f);\n}}\n"
            ));
        }
    }
    s
}

fn diagnostics(db: RootDatabase, parallel: bool) -> Vec<String> {
    let mut db = db;
    db.set_parallel_checks(parallel);
    let mut a = Analysis::new(db);
    let f = a.set_file(Path::new("/p/many.metal"), unit_text().into());
    let unit = a.unit(f, PpConfig::default());
    a.diagnostics(unit, false)
        .iter()
        .map(|d| {
            format!("{} {:?} {} {}", d.diagnostic.code, d.diagnostic.range, d.diagnostic.message, d.hint.is_some())
        })
        .collect()
}

#[test]
fn two_threads_report_what_one_thread_reports() {
    let one = diagnostics(RootDatabase::default(), false);
    let two = diagnostics(RootDatabase::default(), true);
    assert!(one.len() >= 30, "{one:#?}");
    assert_eq!(one, two);
}

#[test]
fn the_second_thread_checks_functions() {
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    diagnostics(RootDatabase::with_event_log(log.clone()), true);
    let log = log.lock().unwrap();
    let checks: Vec<&String> = log.iter().filter(|e| e.starts_with("check_function")).collect();
    assert_eq!(checks.len(), 40, "every function checked exactly once: {checks:#?}");
    let here = format!("on {:?}", std::thread::current().id());
    let elsewhere = checks.iter().filter(|e| !e.ends_with(&here)).count();
    // shared out by size: about half each
    assert!((15..=25).contains(&elsewhere), "{elsewhere} of the checks ran on the second thread: {checks:#?}");
}

#[test]
fn small_units_stay_on_one_thread() {
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut db = RootDatabase::with_event_log(log.clone());
    db.set_parallel_checks(true);
    let mut a = Analysis::new(db);
    let f = a.set_file(
        Path::new("/p/small.metal"),
        "kernel void k(device float *x [[buffer(0)]]) { x[0] = 1.0f; }\n".into(),
    );
    let unit = a.unit(f, PpConfig::default());
    a.diagnostics(unit, false);
    let here = format!("on {:?}", std::thread::current().id());
    let log = log.lock().unwrap();
    assert!(log.iter().any(|e| e.starts_with("check_function")), "{log:#?}");
    assert!(log.iter().all(|e| e.ends_with(&here)), "{log:#?}");
}
