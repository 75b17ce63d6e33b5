//! `cargo xtask analysis-stats [--root DIR] [--files FILES.tsv] [--filter TEXT] [--causes N]`:
//! how much of the corpus the semantic model understands. Every translation unit is
//! analysed with its flags; every expression of every function body outside templates is
//! counted (expressions inside templates wait for instantiation). The last line:
//!
//! `analysis-stats: U units, E expressions, K unknown types (P%), N unresolved names (Q%),
//! C unresolved calls (R%), T s`
//!
//! where P is of the expressions, Q of the names used in expressions (locals included),
//! and R of the calls.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use msl_hir::body::Expr;
use msl_hir::{Analysis, RootDatabase};

use crate::corpus::{Unit, load_units_from};

#[derive(Default)]
struct Counts {
    units: usize,
    /// Instantiations of templates inferred.
    instances: usize,
    exprs: usize,
    unknown: usize,
    names: usize,
    unresolved_names: usize,
    calls: usize,
    unresolved_calls: usize,
    /// The kinds of expressions whose type is unknown, and the names left unresolved.
    causes: BTreeMap<String, usize>,
    /// Examples of the cause asked for with `--show`: `path:line: text`.
    examples: Vec<String>,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.units += o.units;
        self.instances += o.instances;
        self.exprs += o.exprs;
        self.unknown += o.unknown;
        self.names += o.names;
        self.unresolved_names += o.unresolved_names;
        self.calls += o.calls;
        self.unresolved_calls += o.unresolved_calls;
        for (k, v) in o.causes {
            *self.causes.entry(k).or_default() += v;
        }
        self.examples.extend(o.examples);
    }
}

pub fn run(args: &[String]) -> Result<u8, String> {
    let mut root = crate::corpus_dir();
    let mut files = None;
    let mut filter = String::new();
    let mut causes = 15usize;
    let mut show = String::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--root" => root = PathBuf::from(it.next().ok_or("--root needs a folder")?),
            "--files" => files = Some(PathBuf::from(it.next().ok_or("--files needs a file")?)),
            "--filter" => filter = it.next().cloned().unwrap_or_default(),
            "--show" => show = it.next().cloned().ok_or("--show needs a cause")?,
            "--causes" => causes = it.next().and_then(|n| n.parse().ok()).ok_or("--causes needs a number")?,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let files = files.unwrap_or_else(|| root.join("FILES.tsv"));
    let units: Vec<Unit> =
        load_units_from(&root, &files)?.into_iter().filter(|u| u.role == "tu" && u.path.contains(&filter)).collect();
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut total = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut counts = Counts::default();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(u) = units.get(i) else { break };
                        counts.add(unit_counts(&root, u, &show));
                    }
                    counts
                })
            })
            .collect();
        let mut total = Counts::default();
        for h in handles {
            if let Ok(c) = h.join() {
                total.add(c);
            }
        }
        total
    });
    let elapsed = start.elapsed().as_secs_f64();
    let mut top: Vec<(&String, &usize)> = total.causes.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !show.is_empty() {
        total.examples.sort();
        let step = (total.examples.len() / 40).max(1);
        for ex in total.examples.iter().step_by(step) {
            println!("{ex}");
        }
    }
    println!("{} instantiations of templates inferred", total.instances);
    println!("largest causes of unknown types and unresolved names:");
    for (k, v) in top.into_iter().take(causes) {
        println!("  {v:>8}  {k}");
    }
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    println!(
        "analysis-stats: {} units, {} expressions, {} unknown types ({:.2}%), {} unresolved names ({:.2}%), {} unresolved calls ({:.2}%), {:.1} s",
        total.units,
        total.exprs,
        total.unknown,
        pct(total.unknown, total.exprs),
        total.unresolved_names,
        pct(total.unresolved_names, total.names),
        total.unresolved_calls,
        pct(total.unresolved_calls, total.calls),
        elapsed
    );
    Ok(0)
}

fn unit_counts(root: &Path, u: &Unit, show: &str) -> Counts {
    let mut c = Counts { units: 1, ..Counts::default() };
    let path = root.join(&u.path);
    let Ok(text) = std::fs::read(&path) else { return c };
    let mut analysis = Analysis::new(RootDatabase::with_disk());
    let file = analysis.set_file_bytes(&path, &text);
    let unit = analysis.unit(file, u.config.clone());
    let db = &analysis.db;
    // the functions that are not templates, then every instantiation of a template
    let plain = msl_hir::functions(db, unit)
        .into_iter()
        .map(|f| (f, msl_hir::infer_function(db, f)))
        .filter(|(_, r)| !r.in_template);
    let instances = msl_hir::unit_instances(db, unit);
    c.instances += instances.list.len();
    let instances = instances.iter().map(|i| (*i.function(db), msl_hir::infer_instance(db, *i)));
    for (f, result) in plain.chain(instances) {
        let (body, map) = &**msl_hir::function_body(db, f);
        let fn_text = if show.is_empty() {
            String::new()
        } else {
            msl_hir::function_green(db, f)
                .as_ref()
                .map(|g| msl_syntax::SyntaxNode::new_root(g.0.clone()).text().to_string())
                .unwrap_or_default()
        };
        let mut examples = Vec::new();
        let mut example = |cause: &str, i: usize| {
            if cause == show
                && let Some(r) = map.expr_ranges.get(i)
                && let Some(t) = fn_text.get(usize::from(r.start())..usize::from(r.end()))
            {
                let t: String = t.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(160).collect();
                examples.push(format!("{}: {t}", u.path));
            }
        };
        for (i, e) in body.exprs.iter().enumerate() {
            if matches!(e, Expr::Missing | Expr::Lambda { .. }) || result.is_discarded(msl_hir::body::ExprId(i as u32))
            {
                continue;
            }
            c.exprs += 1;
            let t = &result.expr_types[i];
            if t.is_uncertain() {
                c.unknown += 1;
                let cause = format!("unknown type: {}", kind_name(e));
                example(&cause, i);
                *c.causes.entry(cause).or_default() += 1;
            }
            if matches!(e, Expr::Path(_) | Expr::Local(_)) {
                c.names += 1;
            }
            if matches!(e, Expr::Call { .. }) {
                c.calls += 1;
            }
        }
        c.unresolved_names += result.unresolved_names.len();
        c.unresolved_calls += result.unresolved_calls.len();
        for id in &result.unresolved_names {
            if let Expr::Path(p) = &body.exprs[id.0 as usize] {
                let cause = format!("unresolved name: {p}");
                example(&cause, id.0 as usize);
                *c.causes.entry(cause).or_default() += 1;
            }
        }
        for id in &result.unresolved_calls {
            example("unresolved call", id.0 as usize);
        }
        c.examples.extend(examples);
    }
    c
}

fn kind_name(e: &Expr) -> String {
    match e {
        Expr::Call { .. } => "call".into(),
        Expr::Member { name, .. } => format!("member `.{name}`"),
        Expr::Path(p) => format!("name `{}`", p.name()),
        Expr::Local(_) => "local".into(),
        Expr::Index { .. } => "subscript".into(),
        Expr::Binary { op, .. } => format!("binary {op:?}"),
        Expr::Unary { op, .. } => format!("unary {op:?}"),
        Expr::Assign { .. } => "assignment".into(),
        Expr::InitList { .. } => "braced list".into(),
        Expr::Construct { .. } => "construction".into(),
        Expr::Cast { .. } => "cast".into(),
        Expr::Conditional { .. } => "conditional".into(),
        Expr::This => "this".into(),
        other => format!("{other:?}").split([' ', '(', '{']).next().unwrap_or("").to_string(),
    }
}
