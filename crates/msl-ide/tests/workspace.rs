//! Navigation across the units of a workspace: fixtures of several files (each starts with
//! `//- name`), written to a folder, indexed as the server's background index does, with
//! some of them open. `$0` marks where the request is made.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use expect_test::{Expect, expect};
use msl_ide::{AnalysisHost, FileSettings, Indexer, TextRange, TextSize};

struct Ws {
    dir: PathBuf,
    host: AnalysisHost,
    at: (PathBuf, TextSize),
}

impl Drop for Ws {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

static NEXT: AtomicU32 = AtomicU32::new(0);

/// Writes the files of `fixture`, opens those named in `open` (and the one holding `$0`),
/// and indexes every unit when `index` is set.
fn workspace(fixture: &str, open: &[&str], index: bool) -> Ws {
    let dir =
        std::env::temp_dir().join(format!("msl-ws-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir = msl_syntax::vfs::normalize(&dir);
    let mut host = AnalysisHost::new();
    let mut at = None;
    let mut files = Vec::new();
    for chunk in fixture.split("//- ").filter(|c| !c.trim().is_empty()) {
        let (name, body) = chunk.split_once('\n').unwrap();
        let name = name.trim();
        let path = dir.join(name);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).unwrap();
        }
        let marked = body.find("$0");
        let text = body.replacen("$0", "", 1);
        std::fs::write(&path, &text).unwrap();
        if let Some(m) = marked {
            at = Some((path.clone(), TextSize::from(m as u32)));
        }
        files.push((name.to_string(), path, text, marked.is_some()));
    }
    for (name, path, text, marked) in &files {
        if *marked || open.contains(&name.as_str()) {
            host.open(path, Arc::from(text.as_str()), FileSettings::default());
        }
    }
    let units = msl_ide::find_sources(std::slice::from_ref(&dir), &[]);
    host.workspace_mut().set_units(units.into_iter().map(|p| (p, FileSettings::default())).collect());
    if index {
        index_all(&mut host);
    }
    Ws { dir, host, at: at.expect("a file marks a position with $0") }
}

fn index_all(host: &mut AnalysisHost) {
    let mut indexer = Indexer::new();
    while let Some(job) = host.workspace().next_job() {
        let overlays = host.overlays();
        let (idx, texts) = indexer.index(&job.path, &job.settings, &overlays).expect("the unit can be read");
        assert!(host.workspace_mut().finish(&job, idx, texts));
    }
}

impl Ws {
    fn name(&self, p: &Path) -> String {
        p.strip_prefix(&self.dir).unwrap_or(p).display().to_string()
    }

    /// `file:line:column: text` of a range.
    fn show(&self, path: &Path, text: &str, r: TextRange) -> String {
        let start = usize::from(r.start());
        let line = text[..start].matches('\n').count() + 1;
        let col = start - text[..start].rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("{}:{line}:{col}: {}", self.name(path), &text[r])
    }

    fn disk(&self, path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }
}

fn references(fixture: &str, open: &[&str], expected: Expect) {
    let ws = workspace(fixture, open, true);
    let snap = ws.host.snapshot();
    let refs = snap.references(&ws.at.0, ws.at.1, true).unwrap();
    let out: Vec<String> = refs.iter().map(|r| ws.show(&r.path, &ws.disk(&r.path), r.range)).collect();
    expected.assert_eq(&out.join("\n"));
}

fn rename(ws: &Ws, new_name: &str) -> String {
    let snap = ws.host.snapshot();
    match snap.rename(&ws.at.0, ws.at.1, new_name).unwrap() {
        Ok(edits) => edits
            .iter()
            .flat_map(|e| e.edits.iter().map(move |(r, t)| format!("{} -> {t}", ws.show(&e.path, &e.text, *r))))
            .collect::<Vec<_>>()
            .join("\n"),
        Err(why) => format!("refused: {why}"),
    }
}

const TWO_UNITS: &str = r#"
//- common.h
#pragma once
float luma(float3 c);
struct Base { float w; };
//- a.metal
#include "common.h"
float luma(float3 c) { return dot(c, float3(0.299, 0.587, 0.114)); }
struct Mid : Base { float m; };
kernel void ka(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    o[i] = lu$0ma(float3(o[i]));
}
//- b.metal
#include "common.h"
float twice(float3 c) { return 2.0 * luma(c); }
struct Leaf : Base { float l; };
kernel void kb(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    o[i] = luma(float3(o[i])) + twice(float3(1.0));
}
"#;

#[test]
fn references_reach_units_that_are_not_open() {
    references(
        TWO_UNITS,
        &[],
        expect![[r#"
            a.metal:2:7: luma
            a.metal:5:12: luma
            b.metal:2:38: luma
            b.metal:5:12: luma
            common.h:2:7: luma"#]],
    );
}

#[test]
fn rename_changes_every_unit_that_sees_the_declaration() {
    let ws = workspace(TWO_UNITS, &[], true);
    expect![[r#"
        a.metal:2:7: luma -> brightness
        a.metal:5:12: luma -> brightness
        b.metal:2:38: luma -> brightness
        b.metal:5:12: luma -> brightness
        common.h:2:7: luma -> brightness"#]]
    .assert_eq(&rename(&ws, "brightness"));
}

#[test]
fn rename_indexes_a_few_units_that_are_not_indexed_yet() {
    let ws = workspace(TWO_UNITS, &[], false);
    expect![[r#"
        a.metal:2:7: luma -> brightness
        a.metal:5:12: luma -> brightness
        b.metal:2:38: luma -> brightness
        b.metal:5:12: luma -> brightness
        common.h:2:7: luma -> brightness"#]]
    .assert_eq(&rename(&ws, "brightness"));
}

#[test]
fn rename_refuses_while_many_units_are_not_indexed() {
    let mut fixture = TWO_UNITS.to_string();
    for i in 0..40 {
        fixture.push_str(&format!(
            "//- more/u{i}.metal\n#include \"../common.h\"\nfloat f{i}(float3 c) {{ return luma(c); }}\n"
        ));
    }
    let ws = workspace(&fixture, &[], false);
    expect!["refused: the workspace is still being indexed (41 files to go); rename again when indexing is done"]
        .assert_eq(&rename(&ws, "brightness"));
}

#[test]
fn rename_refuses_where_a_use_cannot_be_resolved_for_sure() {
    let fixture = r#"
//- common.h
float shade(float x);
//- a.metal
#include "common.h"
float shade(float x) { return x * 0.5; }
kernel void ka(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) { o[i] = sha$0de(o[i]); }
//- b.metal
#include "common.h"
#if defined(USE_OLD_PATH)
float legacy(float v) { return shade(v); }
#endif
#define SHADE_TWICE(v) shade(shade(v))
"#;
    let ws = workspace(fixture, &[], true);
    expect!["refused: `shade` is also written where it cannot be told whether it means this symbol: b.metal:3 (inside an `#if` branch that is not compiled), b.metal:5 (in a preprocessor directive). Renaming would leave those places behind"]
        .assert_eq(&rename(&ws, "tint"));
}

#[test]
fn rename_of_one_overload_leaves_the_other() {
    let fixture = r#"
//- common.h
float mix2(float a, float b);
half mix2(half a, half b);
//- a.metal
#include "common.h"
float mix2(float a, float b) { return (a + b) * 0.5; }
kernel void ka(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) { o[i] = mi$0x2(o[i], 1.0); }
//- b.metal
#include "common.h"
half mix2(half a, half b) { return (a + b) * 0.5h; }
kernel void kb(device half *o [[buffer(0)]], uint i [[thread_position_in_grid]]) { o[i] = mix2(o[i], 1.0h) + half(mix2(1.0, 2.0)); }
"#;
    let ws = workspace(fixture, &[], true);
    expect![[r#"
        a.metal:2:7: mix2 -> average
        a.metal:3:92: mix2 -> average
        b.metal:3:115: mix2 -> average
        common.h:1:7: mix2 -> average"#]]
    .assert_eq(&rename(&ws, "average"));
}

#[test]
fn rename_reads_a_unit_again_when_it_changed_since_it_was_indexed() {
    let mut ws = workspace(TWO_UNITS, &[], true);
    let b = ws.dir.join("b.metal");
    let text = ws.disk(&b) + "float thrice(float3 c) { return 3.0 * luma(c); }\n";
    std::fs::write(&b, text).unwrap();
    ws.host.workspace_mut().file_changed(&b);
    expect![[r#"
        a.metal:2:7: luma -> brightness
        a.metal:5:12: luma -> brightness
        b.metal:2:38: luma -> brightness
        b.metal:5:12: luma -> brightness
        b.metal:7:39: luma -> brightness
        common.h:2:7: luma -> brightness"#]]
    .assert_eq(&rename(&ws, "brightness"));
}

#[test]
fn workspace_symbols_include_files_that_are_not_open() {
    let ws = workspace(TWO_UNITS, &[], true);
    let snap = ws.host.snapshot();
    let syms = snap.workspace_symbols("twi").unwrap();
    let out: Vec<String> =
        syms.iter().map(|s| format!("{:?} {}", s.kind, ws.show(&s.path, &s.text, s.focus))).collect();
    expect!["Function b.metal:2:7: twice"].assert_eq(&out.join("\n"));
}

#[test]
fn definition_of_a_prototype_goes_to_the_body_in_another_unit() {
    let fixture = r#"
//- common.h
float luma(float3 c);
//- a.metal
#include "common.h"
float luma(float3 c) { return dot(c, float3(0.3, 0.6, 0.1)); }
//- b.metal
#include "common.h"
kernel void kb(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) { o[i] = lu$0ma(float3(o[i])); }
"#;
    let ws = workspace(fixture, &[], true);
    let snap = ws.host.snapshot();
    let targets = snap.definition(&ws.at.0, ws.at.1).unwrap();
    let out: Vec<String> = targets.iter().map(|t| ws.show(&t.path, &t.text, t.focus)).collect();
    expect!["a.metal:2:7: luma"].assert_eq(&out.join("\n"));
}

#[test]
fn call_hierarchy_spans_units() {
    let ws = workspace(TWO_UNITS, &[], true);
    let snap = ws.host.snapshot();
    let items = snap.prepare_call_hierarchy(&ws.at.0, ws.at.1).unwrap();
    let root = items.first().expect("luma is a function");
    let mut out = vec![format!("root {}", ws.show(&root.path, &root.text, root.focus))];
    for c in snap.incoming_calls(&root.id).unwrap() {
        let places: Vec<String> = c.ranges.iter().map(|r| ws.show(&c.item.path, &c.item.text, *r)).collect();
        out.push(format!("from {} at {}", c.item.name, places.join(", ")));
    }
    let twice =
        snap.incoming_calls(&root.id).unwrap().into_iter().find(|c| c.item.name == "twice").expect("twice calls luma");
    for c in snap.outgoing_calls(&twice.item.id).unwrap() {
        out.push(format!("twice calls {} ({})", c.item.name, ws.name(&c.item.path)));
    }
    expect![[r#"
        root a.metal:2:7: luma
        from ka at a.metal:5:12: luma
        from twice at b.metal:2:38: luma
        from kb at b.metal:5:12: luma
        twice calls luma (common.h)"#]]
    .assert_eq(&out.join("\n"));
}

#[test]
fn type_hierarchy_finds_derived_classes_in_other_units() {
    let fixture =
        TWO_UNITS.replace("struct Base { float w; };", "struct Ba$0se { float w; };").replace("lu$0ma", "luma");
    let ws = workspace(&fixture, &[], true);
    let snap = ws.host.snapshot();
    let items = snap.prepare_type_hierarchy(&ws.at.0, ws.at.1).unwrap();
    let root = items.first().expect("Base is a class");
    let mut out: Vec<String> = Vec::new();
    for s in snap.subtypes(&root.id).unwrap() {
        out.push(format!("derived {}", ws.show(&s.path, &s.text, s.focus)));
        for b in snap.supertypes(&s.id).unwrap() {
            out.push(format!("  base {}", ws.show(&b.path, &b.text, b.focus)));
        }
    }
    expect![[r#"
        derived a.metal:3:8: Mid
          base common.h:3:8: Base
        derived b.metal:3:8: Leaf
          base common.h:3:8: Base"#]]
    .assert_eq(&out.join("\n"));
}

#[test]
fn open_units_are_read_as_edited_not_as_indexed() {
    let mut ws = workspace(TWO_UNITS, &["b.metal"], true);
    let b = ws.dir.join("b.metal");
    let edited = ws.disk(&b).replace("2.0 * luma(c)", "2.0 * luma(c) + luma(c.zyx)");
    ws.host.open(&b, Arc::from(edited.as_str()), FileSettings::default());
    let snap = ws.host.snapshot();
    let refs = snap.references(&ws.at.0, ws.at.1, false).unwrap();
    let out: Vec<String> = refs
        .iter()
        .map(|r| {
            let text = if r.path == b { edited.clone() } else { ws.disk(&r.path) };
            ws.show(&r.path, &text, r.range)
        })
        .collect();
    expect![[r#"
        a.metal:5:12: luma
        b.metal:2:38: luma
        b.metal:2:48: luma
        b.metal:5:12: luma"#]]
    .assert_eq(&out.join("\n"));
}

const FRAGMENT: &str = r#"
//- common.h
#pragma once
struct Light { float3 color; };
//- body.h
inline float3 shade(Light l) { return l.color * SCALE; }
//- main.metal
#include "common.h"
#define SCALE 2.0f
#include "body.h"
kernel void k(device float3 *o [[buffer(0)]], uint i [[thread_position_in_grid]]) { o[i] = shade(Light{o[i]}); }
"#;

fn diagnostics_of(ws: &Ws, path: &Path) -> Vec<String> {
    let text = ws.disk(path);
    ws.host
        .snapshot()
        .diagnostics(path)
        .unwrap()
        .into_iter()
        .filter(|d| d.severity.is_some())
        .map(|d| format!("{} {}", d.code, ws.show(path, &text, d.range)))
        .collect()
}

#[test]
fn a_header_is_analysed_in_the_context_of_a_unit_that_includes_it() {
    let mut ws = workspace(&FRAGMENT.replace("l.color * SCALE", "l.color * SCA$0LE"), &["body.h"], true);
    let body = ws.dir.join("body.h");
    let main = ws.dir.join("main.metal");
    // alone, the names its includer declares before it are unknown
    expect![[r#"
        E1401 body.h:1:49: SCALE
        E1405 body.h:1:21: Light"#]]
    .assert_eq(&diagnostics_of(&ws, &body).join("\n"));
    assert_eq!(ws.host.includers(&body), vec![main.clone()]);
    assert!(ws.host.set_context(&body, Some((&main, FileSettings::default()))));
    assert_eq!(ws.host.context_of(&body), Some(main.as_path()));
    assert_eq!(diagnostics_of(&ws, &body), Vec::<String>::new());
    let snap = ws.host.snapshot();
    let hover = snap.hover(&body, ws.at.1).unwrap().map(|h| h.markdown).unwrap_or_default();
    assert!(hover.contains("#define SCALE 2.0f"), "{hover}");
    let light = TextSize::from(ws.disk(&body).find("Light").unwrap() as u32);
    let targets = snap.definition(&body, light).unwrap();
    let out: Vec<String> = targets.iter().map(|t| ws.show(&t.path, &t.text, t.focus)).collect();
    expect!["common.h:2:8: Light"].assert_eq(&out.join("\n"));
    drop(snap);
    // and on its own again
    assert!(ws.host.set_context(&body, None));
    assert_eq!(diagnostics_of(&ws, &body).len(), 2);
}

#[test]
fn a_context_that_does_not_reach_the_file_is_not_used() {
    let fixture =
        FRAGMENT.replace("#include \"body.h\"", "#if 0\n#include \"body.h\"\n#endif").replace("SCALE;", "SCA$0LE;");
    let mut ws = workspace(&fixture.replace("l.color * SCALE", "l.color * SCA$0LE"), &["body.h"], true);
    let body = ws.dir.join("body.h");
    let main = ws.dir.join("main.metal");
    // the index knows main.metal does not read it: no includer
    assert!(ws.host.includers(&body).is_empty());
    // forced anyway, the file is analysed on its own
    ws.host.set_context(&body, Some((&main, FileSettings::default())));
    assert_eq!(diagnostics_of(&ws, &body).len(), 2);
}
