//! The data is complete (every name the spec defines has an entry), our own (no sentence
//! borrowed from the spec), and rendered well (hover snapshots).

use std::collections::HashSet;
use std::path::Path;

use msl_stdlib::{CHECKLIST, Entry, MetalVersion, Platform, Stdlib, hover, hover_overload};

#[test]
fn every_checklist_name_has_an_entry_with_signature_availability_and_docs() {
    let lib = Stdlib::get();
    let mut missing = Vec::new();
    let mut checked = 0;
    for section in CHECKLIST {
        for name in section.names {
            checked += 1;
            let entries = lib.lookup(name);
            if entries.is_empty() {
                missing.push(format!("§{} {}: no entry", section.section, name));
                continue;
            }
            for e in entries {
                if e.summary().trim().is_empty() || e.doc().trim().is_empty() {
                    missing.push(format!("§{} {}: empty documentation", section.section, name));
                }
                let has_signature = match e {
                    Entry::Function(f) => !f.overloads.is_empty() && f.overloads.iter().all(|o| !o.sig.is_empty()),
                    Entry::Method(m) => !m.overloads.is_empty() && m.overloads.iter().all(|o| !o.sig.is_empty()),
                    // the declaration form of these is their name with its template, type,
                    // arguments or members, always present
                    _ => true,
                };
                if !has_signature {
                    missing.push(format!("§{} {}: no signature", section.section, name));
                }
                // availability is a required field; it must be a real version
                assert!(MetalVersion::ALL.contains(&e.since()));
            }
        }
    }
    assert!(checked > 1500, "the checklist covers {checked} names");
    assert!(missing.is_empty(), "{} problems:\n{}", missing.len(), missing.join("\n"));
}

/// Words for the comparison, normalised as the OCR text of the specification needs: words
/// hyphenated across a line break are joined, case is ignored, and everything but letters
/// and digits separates (punctuation, underscores, code quotes), so `clamp_to_edge` and
/// "clamp to edge" are the same three words.
fn words(s: &str) -> Vec<String> {
    let mut joined = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '-' && chars.peek() == Some(&'\n') {
            // `sam-\npler`: one word
            chars.next();
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            continue;
        }
        joined.push(match c {
            // typographic ligatures of the OCR
            '\u{fb01}' => 'f',
            _ => c,
        });
        if c == '\u{fb01}' {
            joined.push('i');
        }
    }
    joined.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect()
}

#[test]
fn the_comparison_ignores_case_punctuation_underscores_and_line_hyphens() {
    assert_eq!(words("Clamp_To_Edge, or `clamp-\n  to`"), ["clamp", "to", "edge", "or", "clampto"]);
    assert_eq!(words("\u{fb01}lter"), ["filter"]);
}

#[test]
fn documentation_shares_no_ten_word_run_with_the_spec() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/seeds");
    let spec = seeds.join("000_fa90285bf01d3863.txt");
    let Ok(text) = std::fs::read_to_string(&spec) else {
        eprintln!("note: {} not found; originality check skipped", spec.display());
        return;
    };
    let mut sources = vec![text];
    for extra in ["003_1029235c12807a3e.txt", "004_3b734fcc37336478.txt"] {
        if let Ok(t) = std::fs::read_to_string(seeds.join(extra)) {
            sources.push(t);
        }
    }
    const N: usize = 10;
    let mut grams: HashSet<Vec<String>> = HashSet::new();
    for s in &sources {
        let w = words(s);
        for g in w.windows(N) {
            grams.insert(g.to_vec());
        }
    }
    let lib = Stdlib::get();
    let mut offenders = Vec::new();
    let mut strings = 0;
    for name in lib.names().collect::<Vec<_>>() {
        for e in lib.lookup(name) {
            for prose in e.prose() {
                strings += 1;
                let w = words(prose);
                if let Some(g) = w.windows(N).find(|g| grams.contains(*g)) {
                    offenders.push(format!("{name}: \"{}\"", g.join(" ")));
                }
            }
        }
    }
    assert!(strings > 3000, "checked {strings} strings");
    offenders.sort();
    offenders.dedup();
    assert!(offenders.is_empty(), "documentation copied from the spec:\n{}", offenders.join("\n"));
}

#[test]
fn lookups_by_name_namespace_type_and_position() {
    let lib = Stdlib::get();
    assert!(lib.functions("clamp").count() >= 1);
    assert!(!lib.lookup_qualified("metal::fast", "sin").is_empty());
    assert!(!lib.lookup_qualified("fast", "sin").is_empty());
    assert!(
        lib.lookup_qualified("metal::fast", "clamp").iter().all(|e| !matches!(e, Entry::Function(_)))
            || lib.functions("clamp").any(|f| f.namespaces.contains(&"metal::fast"))
    );
    assert!(lib.lookup_qualified("access", "read").iter().any(|e| matches!(e, Entry::EnumMember(..))));
    assert!(lib.method("texture2d", "sample").count() >= 1);
    assert!(lib.method("texture2d", "write").count() >= 1);
    assert!(lib.methods_of("no_such_type").is_empty());
    let tpig: Vec<_> = lib.attributes_named("thread_position_in_grid").collect();
    assert_eq!(tpig.len(), 1);
    assert!(tpig[0].types.contains(&"uint3") && tpig[0].types.contains(&"ushort2"));
    assert!(tpig[0].positions.contains(&"kernel_param"));
    assert!(lib.attributes_for("kernel_param").any(|a| a.name == "threadgroup_position_in_grid"));
    assert!(lib.attributes_for("fragment_output").any(|a| a.name == "color"));
    assert_eq!(lib.type_named("float4").and_then(|t| t.alias_of), Some("vec<float, 4>"));
    assert!(lib.lookup("definitely_not_a_builtin").is_empty());
}

#[test]
fn availability_follows_versions_and_platforms() {
    let lib = Stdlib::get();
    let fill = lib.functions("simd_shuffle_and_fill_down").next().expect("in the library");
    let e = Entry::Function(fill);
    assert_eq!(fill.since, MetalVersion::V2_4);
    assert!(!e.available(MetalVersion::V2_3, Platform::MacOS));
    assert!(e.available(MetalVersion::V2_4, Platform::MacOS));
    let bf = Entry::Type(lib.type_named("bfloat").expect("bfloat"));
    assert!(!bf.available(MetalVersion::V3_0, Platform::MacOS));
    assert!(bf.available(MetalVersion::V3_1, Platform::IOS));
}

#[test]
fn hover_snapshots_across_chapters() {
    let lib = Stdlib::get();
    let pick = |name: &str, want: fn(&Entry) -> bool| -> Entry {
        *lib.lookup(name).iter().find(|e| want(e)).unwrap_or_else(|| panic!("{name}"))
    };
    let samples: Vec<(&str, String)> = vec![
        ("scalar type (2.1)", hover(&pick("half", |e| matches!(e, Entry::Type(_))))),
        ("vector alias (2.2)", hover(&pick("float4", |e| matches!(e, Entry::Type(_))))),
        ("texture type (2.9)", hover(&pick("texture2d", |e| matches!(e, Entry::Type(_))))),
        ("sampler enum (2.10)", hover(&pick("filter", |e| matches!(e, Entry::Enum(_))))),
        ("enum member (2.9)", hover(&pick("read_write", |e| matches!(e, Entry::EnumMember(..))))),
        ("ray tracing type (2.17)", hover(&pick("intersector", |e| matches!(e, Entry::Type(_))))),
        ("tensor type (2.22)", hover(&pick("tensor", |e| matches!(e, Entry::Type(_))))),
        ("address space (4)", hover(&pick("threadgroup", |e| matches!(e, Entry::Keyword(_))))),
        ("kernel attribute (5.2.3.6)", hover(&pick("thread_position_in_grid", |e| matches!(e, Entry::Attribute(_))))),
        (
            "function attribute (5.1)",
            hover(&pick("max_total_threads_per_threadgroup", |e| matches!(e, Entry::Attribute(_)))),
        ),
        ("common function (6.3)", hover(&pick("clamp", |e| matches!(e, Entry::Function(_))))),
        ("math function, one overload (6.6)", hover_overload(&pick("fma", |e| matches!(e, Entry::Function(_))), 0)),
        ("math constant (6.6)", hover(&pick("M_PI_F", |e| matches!(e, Entry::Constant(_))))),
        ("simd-group function (6.10)", hover(&pick("simd_sum", |e| matches!(e, Entry::Function(_))))),
        ("barrier (6.10)", hover(&pick("threadgroup_barrier", |e| matches!(e, Entry::Function(_))))),
        (
            "texture member (6.13)",
            hover(&pick("sample", |e| matches!(e, Entry::Method(m) if m.of.contains(&"texture2d")))),
        ),
        ("atomic function (6.16)", hover(&pick("atomic_fetch_add_explicit", |e| matches!(e, Entry::Function(_))))),
        ("tensor operation (7)", hover(&pick("matmul2d", |e| matches!(e, Entry::Type(_))))),
    ];
    let mut out = String::new();
    for (title, md) in samples {
        out.push_str(&format!("==================== {title}\n{md}\n"));
    }
    let snap = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/stdlib/hovers.md");
    expect_test::expect_file![snap].assert_eq(&out);
}

/// The parser's table of library names agrees with the library: every class or alias
/// template is a template to the parser (so `sparse_block_color<half, 2, 2> c;` parses as a
/// declaration), and every other type a type.
#[test]
fn the_parser_knows_every_library_type_for_what_it_is() {
    let mut wrong = Vec::new();
    for t in msl_stdlib::TYPES {
        // keywords (`int`, `unsigned char`) are not names
        let keyword =
            |n: &str| n.contains(' ') || matches!(n, "bool" | "char" | "short" | "int" | "long" | "float" | "void");
        for name in std::iter::once(&t.name).chain(t.aliases).filter(|n| !keyword(n)) {
            let template = t.template.is_some();
            if template != msl_syntax::is_library_template_name(name) || !msl_syntax::is_library_type_name(name) {
                wrong.push(format!("{name} (template: {template})"));
            }
        }
    }
    assert!(wrong.is_empty(), "the parser takes these for something else:\n{}", wrong.join("\n"));
}
