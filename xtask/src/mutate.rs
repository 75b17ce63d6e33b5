//! `cargo xtask corpus --mutate`: injects mistakes that are certainly invalid into real
//! corpus units, one at a time, and counts those the checker reports as an error on the
//! mutated line, per kind of mistake. Sites are found on the unit's own tree and model
//! (only code spelled in the main file, never inside a macro's expansion), and each kind
//! takes at most one site per unit.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use msl_hir::ty::TyKind;
use msl_syntax::{Severity, SyntaxKind, SyntaxNode, SyntaxToken, TextRange};

use crate::corpus::Unit;

/// One mistake: a kind, the text replaced and its replacement.
struct Mutation {
    kind: &'static str,
    range: std::ops::Range<usize>,
    replacement: String,
}

/// Every kind, with what it does (printed in the report).
const KINDS: &[(&str, &str)] = &[
    ("use-before-declaration", "a local used on the line of its declaration, before it"),
    ("use-outside-block", "a local of a nested block used after the block"),
    ("return-without-value", "`return;` in a function that returns a value"),
    ("value-from-void", "`return 1;` in a function that returns void"),
    ("float-remainder", "`%` between floating-point operands"),
    ("missing-member", "a member of a class of the unit that does not exist"),
    ("bad-swizzle", "a vector component that does not exist"),
    ("call-entry-point", "a kernel, vertex or fragment function called from a function"),
    ("assign-to-const", "assignment to a `const` local"),
    ("unknown-type", "a local declared with a type name that does not exist"),
    ("vector-size", "a vector declared with another size than its initializer"),
    ("texture-coordinate", "integer coordinates passed to a texture's `sample`"),
    ("redefinition", "a function defined a second time, right after itself"),
    ("duplicate-host-name", "an entry point given the host name of another"),
];

pub fn run(root: &Path, units: &[Unit], jobs: usize) -> Result<u8, String> {
    let start = Instant::now();
    // per kind: injected, reported on the line, a sample of missed ones
    type Tally = BTreeMap<&'static str, (usize, usize, Vec<String>)>;
    let tallies: Vec<Tally> = crate::corpus::map_units(units, jobs, |u| {
        if u.role != "tu" {
            return None;
        }
        let path = root.join(&u.path);
        let text = std::fs::read_to_string(&path).ok()?;
        let mut analysis = msl_hir::Analysis::with_disk();
        let main = analysis.set_file(&path, text.as_str().into());
        let unit = analysis.unit(main, u.config.clone());
        if *msl_hir::unit_incomplete(&analysis.db, unit) {
            return None;
        }
        // the unit must be clean to begin with
        if analysis.diagnostics(unit, false).iter().any(|d| d.diagnostic.severity == Severity::Error) {
            return None;
        }
        let mut tally: Tally = BTreeMap::new();
        for m in sites(&analysis, unit, &text) {
            let mut mutated = text.clone();
            mutated.replace_range(m.range.clone(), &m.replacement);
            let line = text[..m.range.start].matches('\n').count();
            analysis.set_file(&path, mutated.as_str().into());
            let found = analysis.diagnostics(unit, false).iter().any(|d| {
                d.diagnostic.severity == Severity::Error
                    && d.diagnostic.file == 0
                    && mutated[..usize::from(d.diagnostic.range.start()).min(mutated.len())].matches('\n').count()
                        == line
            });
            let e = tally.entry(m.kind).or_default();
            e.0 += 1;
            if found {
                e.1 += 1;
            } else {
                let shown = mutated.lines().nth(line).unwrap_or_default().trim();
                // (generated lines can be thousands of characters long)
                let shown = match shown.char_indices().nth(200) {
                    Some((at, _)) => format!("{}…", &shown[..at]),
                    None => shown.to_string(),
                };
                e.2.push(format!("{}:{}: {}", u.path, line + 1, shown));
            }
        }
        Some(tally)
    });
    let units_done = tallies.len();
    let mut total: Tally = BTreeMap::new();
    for t in tallies {
        for (k, (a, b, c)) in t {
            let e = total.entry(k).or_default();
            e.0 += a;
            e.1 += b;
            e.2.extend(c.into_iter().take(3usize.saturating_sub(e.2.len())));
        }
    }
    let (mut injected, mut reported) = (0, 0);
    for (kind, what) in KINDS {
        let (a, b, missed) = total.get(kind).cloned().unwrap_or_default();
        injected += a;
        reported += b;
        println!(
            "{kind:<24} {b:>6} of {a:>6} reported on the line ({:5.1}%)  {what}",
            100.0 * b as f64 / a.max(1) as f64
        );
        for m in missed.iter().take(2) {
            println!("    missed: {m}");
        }
    }
    println!(
        "mutations: {reported} of {injected} reported on the mutated line ({:.1}%) in {units_done} units; {:.1} s",
        100.0 * reported as f64 / injected.max(1) as f64,
        start.elapsed().as_secs_f64()
    );
    Ok(0)
}

/// The sites of every kind in a unit (at most one per kind).
fn sites(analysis: &msl_hir::Analysis, unit: msl_hir::Unit, text: &str) -> Vec<Mutation> {
    let sema = msl_hir::Semantics::new(&analysis.db, unit);
    let parse = sema.parse().clone();
    let root = parse.syntax();
    // the file range of a tree range, when it is spelled in the main file
    let spelled = |r: TextRange| -> Option<std::ops::Range<usize>> {
        if !parse.is_spelled(r) {
            return None;
        }
        let (file, fr) = parse.map_range(r);
        let range = usize::from(fr.start())..usize::from(fr.end());
        (file == 0 && fr.len() == r.len() && text.get(range.clone()).is_some()).then_some(range)
    };
    let tok_range = |t: &SyntaxToken| -> Option<std::ops::Range<usize>> {
        let r = spelled(t.text_range())?;
        (text.get(r.clone()) == Some(t.text())).then_some(r)
    };
    // how often each name is declared anywhere in the unit (names declared once are safe
    // to move around: no other declaration can take the use)
    let mut declared: BTreeMap<String, usize> = BTreeMap::new();
    for n in root.descendants().filter(|n| n.kind() == SyntaxKind::NAME) {
        for t in n.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == SyntaxKind::IDENT) {
            *declared.entry(t.text().to_string()).or_default() += 1;
        }
    }
    let macros: std::collections::HashSet<String> = parse.macros().iter().map(|m| m.name.to_string()).collect();
    let unique = |name: &str| {
        declared.get(name) == Some(&1)
            && !macros.contains(name)
            && msl_stdlib::Stdlib::get().lookup(name).is_empty()
            && !text.contains(&format!("{name}_"))
    };
    let in_template = |n: &SyntaxNode| n.ancestors().any(|a| a.kind() == SyntaxKind::TEMPLATE_DECL);
    let mut out: Vec<Mutation> = Vec::new();
    let mut taken = std::collections::HashSet::new();
    let mut push = |m: Mutation, out: &mut Vec<Mutation>| {
        if taken.insert(m.kind) {
            out.push(m);
        }
    };
    let functions: Vec<SyntaxNode> = root
        .descendants()
        .filter(|n| n.kind() == SyntaxKind::FUNCTION && n.children().any(|c| c.kind() == SyntaxKind::COMPOUND_STMT))
        .filter(|n| !in_template(n))
        .collect();

    for f in &functions {
        let Some(body) = f.children().find(|c| c.kind() == SyntaxKind::COMPOUND_STMT) else { continue };
        let ret = f
            .children()
            .find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS)
            .map(|s| s.text().to_string())
            .unwrap_or_default();
        let declarator_has_ptr = f
            .children()
            .find(|c| c.kind() == SyntaxKind::DECLARATOR)
            .is_some_and(|d| d.children_with_tokens().any(|e| matches!(e.kind(), SyntaxKind::STAR | SyntaxKind::AMP)));
        let words: Vec<&str> =
            ret.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        let returns_void = words.contains(&"void") && !declarator_has_ptr;
        let returns_value = !words.is_empty()
            && !words.iter().any(|w| matches!(*w, "void" | "auto" | "decltype"))
            && !declarator_has_ptr
            && words.iter().any(|w| msl_hir::ty::Scalar::from_name(w).is_some() || w.ends_with(char::is_numeric));
        let is_entry = words.iter().any(|w| matches!(*w, "kernel" | "vertex" | "fragment"))
            || f.text().to_string().contains("[[kernel]]");
        let lambdas =
            |n: &SyntaxNode| n.ancestors().take_while(|a| a != f).any(|a| a.kind() == SyntaxKind::LAMBDA_EXPR);

        // return statements
        for r in body.descendants().filter(|n| n.kind() == SyntaxKind::RETURN_STMT && !lambdas(n)) {
            let has_value = r.children().next().is_some();
            if returns_value
                && has_value
                && let Some(range) = spelled(r.text_range())
            {
                push(Mutation { kind: "return-without-value", range, replacement: "return;".into() }, &mut out);
            }
        }
        if returns_void
            && let Some(open) = body.first_token().filter(|t| t.kind() == SyntaxKind::L_CURLY)
            && let Some(range) = tok_range(&open)
        {
            push(Mutation { kind: "value-from-void", range, replacement: "{ return 1;".into() }, &mut out);
        }
        // a kernel called from another function defined after it
        if !is_entry && returns_void {
            let entry = functions.iter().filter(|g| g.text_range().end() < f.text_range().start()).find_map(|g| {
                let s = g.children().find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS)?.text().to_string();
                if !s.split_whitespace().any(|w| matches!(w, "kernel" | "vertex" | "fragment")) {
                    return None;
                }
                let name = g
                    .children()
                    .find(|c| c.kind() == SyntaxKind::DECLARATOR)?
                    .children()
                    .find(|c| c.kind() == SyntaxKind::NAME)?;
                let t = name.text().to_string();
                (declared.get(&t) == Some(&1)).then_some(t)
            });
            if let Some(k) = entry
                && let Some(open) = body.first_token().filter(|t| t.kind() == SyntaxKind::L_CURLY)
                && let Some(range) = tok_range(&open)
            {
                push(Mutation { kind: "call-entry-point", range, replacement: format!("{{ {k}();") }, &mut out);
            }
        }

        for d in body.descendants().filter(|n| n.kind() == SyntaxKind::DECL_STMT && !lambdas(n)) {
            let Some(decl_range) = spelled(d.text_range()) else { continue };
            let Some(name_tok) = d.descendants().find(|n| n.kind() == SyntaxKind::NAME).and_then(|n| {
                n.descendants_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == SyntaxKind::IDENT)
            }) else {
                continue;
            };
            let name = name_tok.text().to_string();
            let block = d.parent();
            let var = d.children().find(|c| c.kind() == SyntaxKind::VAR_DECL).unwrap_or_else(|| d.clone());
            let specs = var.children().find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS);
            let spec_text = specs.as_ref().map(|s| s.text().to_string()).unwrap_or_default();
            let one_declarator = var.children().filter(|c| c.kind() == SyntaxKind::INIT_DECLARATOR).count() == 1;
            if unique(&name) && one_declarator {
                // used before its declaration, on its line
                push(
                    Mutation {
                        kind: "use-before-declaration",
                        range: decl_range.start..decl_range.start,
                        replacement: format!("(void){name}; "),
                    },
                    &mut out,
                );
                // used after the nested block that declares it
                if let Some(b) = &block
                    && b.kind() == SyntaxKind::COMPOUND_STMT
                    && b != &body
                    && let Some(close) = b.last_token().filter(|t| t.kind() == SyntaxKind::R_CURLY)
                    && let Some(range) = tok_range(&close)
                {
                    push(
                        Mutation { kind: "use-outside-block", range, replacement: format!("}} (void){name};") },
                        &mut out,
                    );
                }
                // assigned although const
                let is_const = spec_text.split_whitespace().any(|w| w == "const")
                    && !spec_text.contains("constexpr")
                    && !d.text().to_string().contains('&')
                    && !d.text().to_string().contains('*');
                if is_const && d.text().to_string().ends_with(';') {
                    push(
                        Mutation {
                            kind: "assign-to-const",
                            range: decl_range.end..decl_range.end,
                            replacement: format!(" {name} = {name};"),
                        },
                        &mut out,
                    );
                }
            }
            // a type that does not exist
            if let Some(specs) = &specs
                && let Some(ty) = specs.descendants_with_tokens().filter_map(|e| e.into_token()).find(|t| {
                    matches!(t.kind(), SyntaxKind::FLOAT_KW | SyntaxKind::INT_KW)
                        || (t.kind() == SyntaxKind::IDENT && msl_stdlib::Stdlib::get().type_named(t.text()).is_some())
                })
                && let Some(range) = tok_range(&ty)
            {
                push(Mutation { kind: "unknown-type", range, replacement: format!("{}_qz", ty.text()) }, &mut out);
            }
        }

        for e in body.descendants() {
            match e.kind() {
                SyntaxKind::BIN_EXPR => {
                    let Some(op) = e.children_with_tokens().filter_map(|x| x.into_token()).find(|t| {
                        matches!(t.kind(), SyntaxKind::STAR | SyntaxKind::PLUS | SyntaxKind::MINUS | SyntaxKind::SLASH)
                    }) else {
                        continue;
                    };
                    let operands: Vec<SyntaxNode> = e.children().collect();
                    if operands.len() != 2 {
                        continue;
                    }
                    let floating = |n: &SyntaxNode| {
                        sema.type_of_expr(n).map(|t| t.non_reference()).is_some_and(|t| {
                            matches!(t.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. })
                                && t.scalar_of().is_some_and(|s| s.is_float())
                        })
                    };
                    if floating(&operands[0])
                        && floating(&operands[1])
                        && let Some(range) = tok_range(&op)
                    {
                        push(Mutation { kind: "float-remainder", range, replacement: "%".into() }, &mut out);
                    }
                }
                SyntaxKind::MEMBER_EXPR => {
                    let Some(receiver) = e.children().next() else { continue };
                    let Some(member) = e
                        .children_with_tokens()
                        .filter_map(|x| x.into_token())
                        .filter(|t| t.kind() == SyntaxKind::IDENT)
                        .last()
                    else {
                        continue;
                    };
                    let Some(ty) = sema.type_of_expr(&receiver).map(|t| t.non_reference()) else { continue };
                    let Some(range) = tok_range(&member) else { continue };
                    match ty.strip().kind() {
                        TyKind::Class { .. } if sema.def_of_type(&ty).is_some() => {
                            push(
                                Mutation {
                                    kind: "missing-member",
                                    range,
                                    replacement: format!("{}_qz", member.text()),
                                },
                                &mut out,
                            );
                        }
                        TyKind::Vector { .. } if member.text().len() == 1 && "xyzwrgba".contains(member.text()) => {
                            push(Mutation { kind: "bad-swizzle", range, replacement: "q".into() }, &mut out);
                        }
                        _ => {}
                    }
                }
                SyntaxKind::CALL_EXPR => {
                    // `t.sample(s, coord)` on a texture
                    let Some(callee) = e.children().next().filter(|c| c.kind() == SyntaxKind::MEMBER_EXPR) else {
                        continue;
                    };
                    let is_sample = callee
                        .children_with_tokens()
                        .filter_map(|x| x.into_token())
                        .filter(|t| t.kind() == SyntaxKind::IDENT)
                        .last()
                        .is_some_and(|t| t.text() == "sample");
                    let Some(receiver) = callee.children().next() else { continue };
                    let texture = sema
                        .type_of_expr(&receiver)
                        .and_then(|t| sema.library_type_name(&t.non_reference()))
                        .is_some_and(|n| n.starts_with("texture"));
                    let Some(args) = e.children().find(|c| c.kind() == SyntaxKind::ARG_LIST) else { continue };
                    let Some(coord) = args.children().nth(1) else { continue };
                    if is_sample
                        && texture
                        && let Some(range) = spelled(coord.text_range())
                    {
                        let replacement = format!("int2({})", &text[range.clone()]);
                        push(Mutation { kind: "texture-coordinate", range, replacement }, &mut out);
                    }
                }
                _ => {}
            }
        }
    }
    // a function defined again right after itself, its name on the line of the first
    // one's closing brace
    for f in &functions {
        let Some(full) = spelled(f.text_range()) else { continue };
        let Some(name) = f
            .children()
            .find(|c| c.kind() == SyntaxKind::DECLARATOR)
            .and_then(|d| d.children().find(|c| c.kind() == SyntaxKind::NAME))
        else {
            continue;
        };
        let head = usize::from(name.text_range().start() - f.text_range().start());
        let copy = &text[full.clone()];
        if copy.get(..head).is_none_or(|h| h.contains('\n')) || !copy.ends_with('}') {
            continue;
        }
        push(
            Mutation { kind: "redefinition", range: full.end - 1..full.end, replacement: format!("}} {copy}") },
            &mut out,
        );
        break;
    }
    // one entry point given another's host name
    let host_names: Vec<SyntaxToken> = root
        .descendants()
        .filter(|n| n.kind() == SyntaxKind::ATTRIBUTE)
        .filter(|a| a.first_token().is_some_and(|t| t.text() == "host_name"))
        .filter_map(|a| {
            let strings: Vec<SyntaxToken> = a
                .descendants_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == SyntaxKind::STRING_LIT)
                .collect();
            match strings.as_slice() {
                [one] if tok_range(one).is_some() => Some(one.clone()),
                _ => None,
            }
        })
        .collect();
    if let [first, second, ..] = host_names.as_slice()
        && first.text() != second.text()
        && let Some(range) = tok_range(second)
    {
        push(Mutation { kind: "duplicate-host-name", range, replacement: first.text().to_string() }, &mut out);
    }
    // a vector declared with another size than its initializer
    if let Some(at) = crate::corpus::vector_declarations(text).into_iter().next() {
        let other = match text.as_bytes()[at] {
            b'2' => "3",
            b'3' => "4",
            _ => "2",
        };
        out.push(Mutation { kind: "vector-size", range: at..at + 1, replacement: other.into() });
    }
    out
}
