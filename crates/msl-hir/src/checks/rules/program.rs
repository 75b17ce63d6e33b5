//! Rules on the unit's declarations as a whole (its definitions, not one function's body):
//! - E1407, a name defined twice in one scope: a function body given twice for one
//!   signature ([basic.def.odr]), a member function declared twice in its class
//!   ([class.mem]/5), a class defined twice, a namespace variable defined twice, two
//!   enumerators (or an enumerator and a variable) of one name in one scope, two data
//!   members of one name ([basic.scope.declarative]);
//! - E1408, two functions of one scope whose parameters are the same but whose return
//!   types differ ([over.load]/2);
//! - E1409, a member function defined outside its class that the class does not declare
//!   ([class.mfct]/4: the definition must match a declaration, `const` included);
//! - E1113, an entry point overloaded (MSL 4.1 section 5.1: kernel, vertex and fragment
//!   functions cannot be).
//!
//! Templates are left alone (two templates of one name are overloads when their
//! parameter lists differ in ways the definitions do not show), and so is anything whose
//! declaration the parser could not read whole.

use std::sync::Arc;

use msl_syntax::ast::AstNode;
use msl_syntax::{SyntaxKind, SyntaxNode, TextRange, TextSize};
use rustc_hash::FxHashMap;

use super::super::HirDiagnostic;
use crate::db::Db;
use crate::defs::{DefKind, DefSourceMap, Defs, FunctionData, ScopeId, ScopeKind};
use crate::ty::DefId;

/// How many earlier declarations of a name a declaration is compared with.
const EARLIER: usize = 16;

#[salsa::tracked(returns(ref))]
pub fn check_program(db: &dyn Db, unit: crate::Unit) -> Arc<Vec<HirDiagnostic>> {
    let parse = crate::db::parse_unit(db, unit);
    let (found, specializations) = program_findings(db, unit, parse);
    if specializations.is_empty() {
        return found;
    }
    // the calls of each function, read per function (an edit reads one body again)
    let mut out = (*found).clone();
    specializations_after_use(db, unit, parse, &specializations, &mut out);
    out.sort_by_key(|d| (d.range.start(), d.code));
    Arc::new(out)
}

/// The program rules' findings, which read no body, and the unit's explicit
/// specializations of function templates; after an edit inside one body, the previous
/// ones with their places moved.
fn program_findings(
    db: &dyn Db,
    unit: crate::Unit,
    parse: &msl_syntax::Parse,
) -> (Arc<Vec<HirDiagnostic>>, Arc<Vec<Specialization>>) {
    let slot = db.item_cache().map(|c| &c.program);
    let moved = |shift: &BodyShift, (found, specializations): &(Arc<Vec<HirDiagnostic>>, Arc<Vec<Specialization>>)| {
        let specializations = specializations
            .iter()
            .map(|s| Some(Specialization { at: shift.apply(s.at)?, ..s.clone() }))
            .collect::<Option<Vec<_>>>()?;
        Some((Arc::new(shift.findings(found)?), Arc::new(specializations)))
    };
    kept_over_body_edits(slot, unit, parse.green(), moved, || {
        let (defs, sources) = crate::db::unit_defs_with_source(db, unit);
        let root = parse.syntax();
        let mut cx = Program { defs, sources, root: &root, out: Vec::new(), specializations: Vec::new() };
        cx.functions();
        cx.scopes();
        cx.templates();
        cx.incomplete_fields();
        cx.out.sort_by_key(|d| (d.range.start(), d.code));
        cx.out.dedup_by(|a, b| a.range == b.range && a.code == b.code);
        (Arc::new(cx.out), Arc::new(cx.specializations))
    })
}

/// What a unit-wide check found from `root`, kept in `slot` with the tree: after an edit
/// inside one body, the previous result moved (`moved`), else `make`'s.
pub(crate) fn kept_over_body_edits<T: Clone>(
    slot: Option<&std::sync::Mutex<FxHashMap<crate::Unit, (rowan::GreenNode, T)>>>,
    unit: crate::Unit,
    root: &rowan::GreenNode,
    moved: impl FnOnce(&BodyShift, &T) -> Option<T>,
    make: impl FnOnce() -> T,
) -> T {
    let previous = slot.and_then(|s| {
        let last = s.lock().ok()?;
        let (old, value) = last.get(&unit)?;
        moved(&BodyShift::new(old, root)?, value)
    });
    let value = previous.unwrap_or_else(make);
    if let Some(s) = slot
        && let Ok(mut last) = s.lock()
    {
        last.insert(unit, (root.clone(), value.clone()));
    }
    value
}

/// An explicit specialization of a function template: the template's name, the
/// arguments as written (without spaces) and where the name is, first declaration only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Specialization {
    name: String,
    args: String,
    at: TextRange,
}

/// The calls in a function's body that give template arguments (`f<half>(x)`), in
/// evaluated code: the name, the arguments without spaces, and where the name is
/// (relative to the function). Empty for templates, whose calls instantiate nothing until
/// they are instantiated themselves.
#[salsa::tracked(returns(ref))]
pub(crate) fn explicit_calls<'db>(
    db: &'db dyn Db,
    f: crate::db::FunctionId<'db>,
) -> Arc<Vec<(String, String, TextRange)>> {
    let unit = *f.unit(db);
    let tree = crate::db::item_tree(db, unit);
    if tree.functions.get(*f.index(db) as usize).is_none_or(|item| item.context.template) {
        return Arc::default();
    }
    let Some(g) = crate::db::function_green(db, f) else { return Arc::default() };
    let root = SyntaxNode::new_root(g.0.clone());
    let mut out = Vec::new();
    for call in root.descendants().filter(|n| n.kind() == SyntaxKind::CALL_EXPR) {
        let Some(callee) = call.children().next().filter(|c| c.kind() == SyntaxKind::PATH_EXPR) else { continue };
        let Some(args) = callee.children().find(|c| c.kind() == SyntaxKind::TEMPLATE_ARG_LIST) else { continue };
        let mut tokens = callee.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia());
        let Some(ident) = tokens.next() else { continue };
        if ident.kind() != SyntaxKind::IDENT || tokens.next().is_some() {
            continue;
        }
        let unevaluated = call.ancestors().any(|a| {
            matches!(a.kind(), SyntaxKind::SIZEOF_EXPR | SyntaxKind::DECLTYPE_TYPE | SyntaxKind::DECLTYPE_EXPR)
        });
        if unevaluated || !call.ancestors().any(|a| a.kind() == SyntaxKind::COMPOUND_STMT) {
            continue;
        }
        out.push((ident.text().to_string(), squeeze(&args), ident.text_range()));
    }
    Arc::new(out)
}

/// The text of a node without whitespace.
fn squeeze(n: &SyntaxNode) -> String {
    n.text().to_string().split_whitespace().collect()
}

/// E1407 (as clang words it, a specialization after instantiation): an explicit
/// specialization of a function template (`template <> half f<half>(...)`) first declared
/// after a function that is not a template called `f<half>` with those arguments written
/// out ([temp.expl.spec]/6: the specialization must come before the first use that
/// instantiates it). Uses that deduce the arguments are not looked for.
fn specializations_after_use(
    db: &dyn Db,
    unit: crate::Unit,
    parse: &msl_syntax::Parse,
    specializations: &[Specialization],
    out: &mut Vec<HirDiagnostic>,
) {
    let starts = crate::db::function_offsets(parse.green());
    for (i, f) in crate::db::functions(db, unit).into_iter().enumerate() {
        let Some(&start) = starts.get(i) else { continue };
        for (name, args, range) in explicit_calls(db, f).iter() {
            let used = *range + start;
            for s in specializations {
                if s.name != *name || s.args != *args || used.end() > s.at.start() {
                    continue;
                }
                if out.iter().any(|d| d.range == s.at && d.code == "E1407") {
                    continue;
                }
                out.push(HirDiagnostic {
                    range: s.at,
                    severity: msl_syntax::Severity::Error,
                    code: "E1407",
                    message: format!("`{name}{args}` is specialized after a use has already instantiated it"),
                    hint: Some(
                        "declare the specialization before its first use (a declaration is enough: `template <> ...;`)"
                            .to_string(),
                    ),
                    fixes: Vec::new(),
                    related: vec![(used, "first used here".to_string())],
                });
            }
        }
    }
}

/// How places move after an edit inside one function's body, when the two trees differ
/// only there and neither version of the body has a syntax error (a declaration's
/// soundness is part of what the rules judge).
pub(crate) struct BodyShift {
    body: TextRange,
    delta: i64,
}

impl BodyShift {
    pub(crate) fn new(old: &rowan::GreenNodeData, new: &rowan::GreenNodeData) -> Option<BodyShift> {
        let (body, new_len) = crate::defs::edited_body(old, new, 0.into())?;
        let sound = |root: &rowan::GreenNodeData, range: TextRange| match SyntaxNode::new_root(root.to_owned())
            .covering_element(range)
        {
            rowan::NodeOrToken::Node(n) => n.text_range() == range && !green_has_error(n.green()),
            rowan::NodeOrToken::Token(_) => false,
        };
        if !sound(old, body) || !sound(new, TextRange::at(body.start(), new_len)) {
            return None;
        }
        Some(BodyShift { body, delta: i64::from(u32::from(new_len)) - i64::from(u32::from(body.len())) })
    }

    /// A place outside the body (or around it) in the new tree.
    pub(crate) fn apply(&self, r: TextRange) -> Option<TextRange> {
        let moved = |at: TextSize| u32::try_from(i64::from(u32::from(at)) + self.delta).ok().map(TextSize::from);
        if r.start() >= self.body.end() {
            Some(TextRange::new(moved(r.start())?, moved(r.end())?))
        } else if r.end() <= self.body.start() {
            Some(r)
        } else if r.start() <= self.body.start() && r.end() >= self.body.end() {
            Some(TextRange::new(r.start(), moved(r.end())?))
        } else {
            None
        }
    }

    /// Findings made outside the body, moved.
    pub(crate) fn findings(&self, previous: &[HirDiagnostic]) -> Option<Vec<HirDiagnostic>> {
        let shift = |r: TextRange| self.apply(r);
        previous
            .iter()
            .map(|d| {
                Some(HirDiagnostic {
                    range: shift(d.range)?,
                    related: d.related.iter().map(|(r, m)| Some((shift(*r)?, m.clone()))).collect::<Option<_>>()?,
                    fixes: d
                        .fixes
                        .iter()
                        .map(|f| {
                            Some(crate::checks::Fix {
                                label: f.label.clone(),
                                edits: f
                                    .edits
                                    .iter()
                                    .map(|(r, t)| Some((shift(*r)?, t.clone())))
                                    .collect::<Option<_>>()?,
                            })
                        })
                        .collect::<Option<_>>()?,
                    ..d.clone()
                })
            })
            .collect()
    }
}

struct Program<'a> {
    defs: &'a Defs,
    sources: &'a DefSourceMap,
    root: &'a SyntaxNode,
    out: Vec<HirDiagnostic>,
    /// The explicit specializations of function templates, for
    /// [`specializations_after_use`].
    specializations: Vec<Specialization>,
}

impl Program<'_> {
    fn name_range(&self, id: DefId) -> Option<TextRange> {
        self.sources.get(id).map(|s| s.name).filter(|r| !r.is_empty())
    }

    /// The declaration's syntax (the node whose range the source map records).
    fn node(&self, id: DefId) -> Option<SyntaxNode> {
        let full = self.sources.get(id)?.full;
        let mut node = match self.root.covering_element(full) {
            rowan::NodeOrToken::Node(n) => n,
            rowan::NodeOrToken::Token(t) => t.parent()?,
        };
        while node.text_range() == full {
            match node.parent() {
                Some(p) if p.text_range() == full => node = p,
                _ => break,
            }
        }
        Some(node)
    }

    /// Whether the declaration was read whole (no syntax error inside it).
    fn sound(&self, id: DefId) -> bool {
        self.node(id).is_some_and(|n| n.kind() != SyntaxKind::ERROR && !green_has_error(n.green()))
    }

    fn report(&mut self, code: &'static str, at: TextRange, message: String, hint: &str, first: Option<TextRange>) {
        let related = first.map(|r| (r, "the first declaration".to_string())).into_iter().collect();
        self.out.push(HirDiagnostic {
            range: at,
            severity: msl_syntax::Severity::Error,
            code,
            message,
            hint: Some(hint.to_string()),
            fixes: Vec::new(),
            related,
        });
    }

    /// The functions of each scope by name: those declared under their name and those
    /// defined outside their class. Friends (declared in a class for its namespace) are not
    /// among them.
    fn functions(&mut self) {
        let mut groups: FxHashMap<(ScopeId, &str), Vec<DefId>> = FxHashMap::default();
        // the definitions declared under their name in their scope
        let declared_ids: rustc_hash::FxHashSet<DefId> =
            self.defs.scopes.iter().flat_map(|s| s.names.values().flatten().copied()).collect();
        for (i, d) in self.defs.defs.iter().enumerate() {
            let id = DefId(i as u32);
            let DefKind::Function(f) = &d.kind else { continue };
            if d.name.is_empty() || d.generics.is_some() {
                continue;
            }
            let declared = declared_ids.contains(&id);
            if declared || (f.qualified && self.defs.scope(d.scope).kind == ScopeKind::Class) {
                groups.entry((d.scope, &d.name)).or_default().push(id);
            }
        }
        let mut groups: Vec<((ScopeId, &str), Vec<DefId>)> = groups.into_iter().collect();
        groups.sort_unstable_by_key(|(k, _)| *k);
        for ((scope, name), mut ids) in groups {
            ids.sort_by_key(|&id| self.sources.get(id).map(|s| s.name.start()));
            let in_class = self.defs.scope(scope).kind == ScopeKind::Class;
            if in_class {
                self.out_of_line(scope, name, &ids);
            }
            if ids.len() < 2 {
                continue;
            }
            self.entry_overloads(name, &ids);
            for (k, &later) in ids.iter().enumerate().skip(1) {
                let DefKind::Function(b) = &self.defs.def(later).kind else { continue };
                // the first declarations only: a name declared thousands of times (generated
                // code) stays linear
                for &earlier in ids[..k].iter().take(EARLIER) {
                    let DefKind::Function(a) = &self.defs.def(earlier).kind else { continue };
                    if !same_parameters(a, b) || !self.sound(earlier) || !self.sound(later) {
                        continue;
                    }
                    if self.ref_qualified(earlier) || self.ref_qualified(later) {
                        continue;
                    }
                    let (Some(at), first) = (self.name_range(later), self.name_range(earlier)) else { continue };
                    if let Some(returns) = self.different_returns(earlier, later, a, b) {
                        self.report(
                            "E1408",
                            at,
                            format!("`{name}` differs from an earlier declaration only in its return type ({returns})"),
                            "functions of one name must differ in their parameters; rename one of them",
                            first,
                        );
                        break;
                    }
                    let both_defined = a.has_body && b.has_body;
                    // in its class, a member function is declared once ([class.mem]/5)
                    let twice_in_class = in_class && !a.qualified && !b.qualified;
                    if both_defined {
                        self.report(
                            "E1407",
                            at,
                            format!("`{name}` is already defined with these parameters"),
                            "remove one definition, or give them different parameters or names",
                            first,
                        );
                        break;
                    }
                    if twice_in_class {
                        self.report(
                            "E1407",
                            at,
                            format!(
                                "the member function `{name}` is already declared in its class with these parameters"
                            ),
                            "remove the second declaration",
                            first,
                        );
                        break;
                    }
                }
            }
        }
    }

    /// `f() &` and `f() &&` are overloads of one another.
    fn ref_qualified(&self, id: DefId) -> bool {
        let Some(node) = self.node(id) else { return true };
        let Some(f) = msl_syntax::ast::Function::cast(node) else { return true };
        f.declarator()
            .is_some_and(|d| d.function_qualifiers().any(|t| matches!(t.kind(), SyntaxKind::AMP | SyntaxKind::AMP2)))
    }

    /// The two return types when they certainly differ.
    fn different_returns(&self, a_id: DefId, b_id: DefId, a: &FunctionData, b: &FunctionData) -> Option<String> {
        let (Some(ra), Some(rb)) = (&a.ret, &b.ret) else { return None };
        if ra == rb {
            return None;
        }
        let lower = |id: DefId, r: &crate::ty::TypeRef| {
            let d = self.defs.def(id);
            // an out-of-line definition's return type is named from the class's namespace
            let scope = if matches!(&d.kind, DefKind::Function(f) if f.qualified) {
                self.defs.namespace_of(d.scope)
            } else {
                d.scope
            };
            let resolver = crate::infer::Resolver::new(self.defs, scope, None);
            r.lower(&resolver)
        };
        let (la, lb) = (lower(a_id, ra), lower(b_id, rb));
        if la.ty.is_uncertain() || lb.ty.is_uncertain() || (la.ty == lb.ty && la.cv == lb.cv) {
            return None;
        }
        Some(format!("`{}` and `{}`", la.ty, lb.ty))
    }

    /// E1113: entry points of one name with different parameters.
    fn entry_overloads(&mut self, name: &str, ids: &[DefId]) {
        let entries: Vec<DefId> = ids
            .iter()
            .copied()
            .filter(|&id| matches!(&self.defs.def(id).kind, DefKind::Function(f) if f.stage.is_some() && f.has_body))
            .collect();
        for (k, &later) in entries.iter().enumerate().skip(1) {
            let DefKind::Function(b) = &self.defs.def(later).kind else { continue };
            let differs = entries[..k]
                .iter()
                .take(EARLIER)
                .any(|&e| matches!(&self.defs.def(e).kind, DefKind::Function(a) if !same_parameters(a, b)));
            if differs && self.sound(later) {
                let (Some(at), first) = (self.name_range(later), self.name_range(entries[0])) else { continue };
                let kind = match b.stage {
                    Some(msl_syntax::ast::Stage::Kernel) => "kernel",
                    Some(msl_syntax::ast::Stage::Vertex) => "vertex",
                    Some(msl_syntax::ast::Stage::Fragment) => "fragment",
                    _ => "entry-point",
                };
                self.report(
                    "E1113",
                    at,
                    format!(
                        "the {kind} function `{name}` overloads another entry point; entry points cannot be overloaded"
                    ),
                    "give each entry point its own name",
                    first,
                );
            }
        }
    }

    /// E1409: members defined outside their class that the class does not declare.
    fn out_of_line(&mut self, class_scope: ScopeId, name: &str, ids: &[DefId]) {
        let Some(class) = self.defs.scope(class_scope).owner else { return };
        let DefKind::Class { bases, .. } = &self.defs.def(class).kind else { return };
        if !bases.is_empty() || self.defs.def(class).generics.is_some() || name.starts_with("operator") {
            return;
        }
        // any declaration of the name in the class (templates too) may be the one defined
        let declared: Vec<DefId> = self.defs.scope(class_scope).names.get(name).cloned().unwrap_or_default();
        let class_name = self.defs.qualified_name(class);
        for &id in ids {
            let DefKind::Function(f) = &self.defs.def(id).kind else { continue };
            if !f.qualified || !f.has_body || !self.sound(id) {
                continue;
            }
            let Some(at) = self.name_range(id) else { continue };
            let functions: Vec<&FunctionData> = declared
                .iter()
                .filter_map(|&d| match &self.defs.def(d).kind {
                    DefKind::Function(g) => Some(&**g),
                    _ => None,
                })
                .collect();
            if declared.is_empty() {
                self.report(
                    "E1409",
                    at,
                    format!("`{class_name}` declares no member `{name}`"),
                    "declare the member function in the class first",
                    None,
                );
            } else if !functions.is_empty()
                && declared.len() == functions.len()
                && !functions.iter().any(|g| {
                    g.params.len() == f.params.len()
                        && g.variadic == f.variadic
                        && g.is_const == f.is_const
                        && self.same_parameter_types(class_scope, g, f)
                })
            {
                let same_count = functions.iter().any(|g| g.params.len() == f.params.len() && g.variadic == f.variadic);
                let same_const = functions
                    .iter()
                    .any(|g| g.params.len() == f.params.len() && g.variadic == f.variadic && g.is_const == f.is_const);
                let hint = if same_const {
                    "the parameter types differ from the declaration in the class: make them agree"
                } else if same_count && f.is_const {
                    "the class declares it without `const`: make the two agree"
                } else if same_count {
                    "the class declares it `const`: add `const` after the parameters here"
                } else {
                    "make the parameters agree with the declaration in the class"
                };
                self.report(
                    "E1409",
                    at,
                    format!("this definition of `{class_name}::{name}` matches no declaration in `{class_name}`"),
                    hint,
                    None,
                );
            }
        }
    }

    /// Whether two declarations' parameters may have the same types: each pair is the same
    /// type once lowered in the class, or one of them is not certain (a top-level `const`
    /// does not count, [dcl.fct]/5).
    fn same_parameter_types(&self, class_scope: ScopeId, a: &FunctionData, b: &FunctionData) -> bool {
        let resolver = crate::infer::Resolver::new(self.defs, class_scope, None);
        a.params.iter().zip(&b.params).all(|(x, y)| {
            if x.ty == y.ty {
                return true;
            }
            let (lx, ly) = (x.ty.lower(&resolver), y.ty.lower(&resolver));
            !surely_different(&lx.ty, &ly.ty)
        })
    }

    /// E1407 for a class template's default template arguments given again by a second
    /// declaration ([temp.param]/12); E1410 for a function template written like a partial
    /// specialization ([temp.fct.spec]: only class templates have those).
    fn templates(&mut self) {
        use msl_syntax::ast::TemplateParam;
        let mut defaults: FxHashMap<(TextRange, String), Vec<bool>> = FxHashMap::default();
        let root = self.root.clone();
        // templates are declared at namespace and class scope: function bodies are not
        // walked (they are most of a file's nodes)
        let mut walk = root.preorder();
        let mut decls = Vec::new();
        let mut entries = Vec::new();
        while let Some(event) = walk.next() {
            let rowan::WalkEvent::Enter(n) = event else { continue };
            match n.kind() {
                SyntaxKind::COMPOUND_STMT => walk.skip_subtree(),
                SyntaxKind::TEMPLATE_DECL => decls.push(n),
                SyntaxKind::FUNCTION | SyntaxKind::EXPLICIT_INSTANTIATION => entries.push(n),
                _ => {}
            }
        }
        self.missing_typename(&decls);
        self.specializations(&decls);
        self.host_names(&entries);
        for decl in decls {
            let Some(list) = decl.children().find_map(msl_syntax::ast::TemplateParamList::cast) else { continue };
            let params: Vec<TemplateParam> = list.params().collect();
            let flags: Vec<bool> = params
                .iter()
                .map(|p| match p {
                    TemplateParam::Type(t) => t.default().is_some(),
                    TemplateParam::NonType(n) => n.default().is_some(),
                    TemplateParam::Template(_) => false,
                })
                .collect();
            let parent = decl.parent().map_or_else(|| decl.text_range(), |p| p.text_range());
            if let Some(name) = crate::defs::forward_class_name(&decl) {
                self.template_defaults(&mut defaults, (parent, name), flags, list.syntax().text_range());
                continue;
            }
            let Some(item) = decl.children().find(|c| matches!(c.kind(), SyntaxKind::STRUCT | SyntaxKind::FUNCTION))
            else {
                continue;
            };
            // (a declaration with a syntax error inside is left alone; looked for only when
            // there is something to report or record)
            if item.kind() == SyntaxKind::FUNCTION {
                let Some(f) = msl_syntax::ast::Function::cast(item.clone()) else { continue };
                let Some(name) = f.name() else { continue };
                // (a qualified name's arguments may be its class's: `Cell<T>::as`)
                let qualified = name.syntax().descendants_with_tokens().any(|d| d.kind() == SyntaxKind::COLON2);
                let specialized =
                    !qualified && name.syntax().descendants().any(|d| d.kind() == SyntaxKind::TEMPLATE_ARG_LIST);
                if specialized && !params.is_empty() && !green_has_error(item.green()) {
                    self.report(
                        "E1410",
                        name.syntax().text_range(),
                        "a function template cannot be partially specialized".to_string(),
                        "write an overload instead (a function template with its own parameters), or dispatch to a class template",
                        None,
                    );
                }
                continue;
            }
            // a declaration without defaults can neither repeat one nor be repeated
            if !flags.iter().any(|&f| f) || green_has_error(item.green()) {
                continue;
            }
            let Some(s) = msl_syntax::ast::Struct::cast(item) else { continue };
            let Some(name) = s.name() else { continue };
            if name.syntax().descendants().any(|d| d.kind() == SyntaxKind::TEMPLATE_ARG_LIST) {
                continue;
            }
            self.template_defaults(&mut defaults, (parent, name.text()), flags, list.syntax().text_range());
        }
    }

    /// E1412: a qualified name that starts with a type template parameter (`T::value_type`)
    /// used as a type without `typename` ([temp.res]/3: such a name is taken for a value
    /// unless `typename` says it is a type). Looked for where only a type can stand: return
    /// and parameter types, aliases, typedefs, and variables that are plainly declarations
    /// (`T::type x;`, `T::type* p = q;`: `T::n * m;` may be a product).
    fn missing_typename(&mut self, decls: &[SyntaxNode]) {
        for decl in decls {
            let mut names: Vec<String> = Vec::new();
            for t in decl.ancestors() {
                if t.kind() != SyntaxKind::TEMPLATE_DECL {
                    continue;
                }
                let Some(list) = t.children().find_map(msl_syntax::ast::TemplateParamList::cast) else { continue };
                for p in list.params() {
                    if let msl_syntax::ast::TemplateParam::Type(tp) = p
                        && let Some(n) = tp.name()
                    {
                        names.push(n.text());
                    }
                }
            }
            if names.is_empty() {
                continue;
            }
            let start = decl.text_range().start();
            let mut found = Vec::new();
            for (child, at) in green_children(decl.green(), start) {
                if let rowan::NodeOrToken::Node(n) = child
                    && n.kind() != rowan::SyntaxKind(SyntaxKind::TEMPLATE_PARAM_LIST as u16)
                {
                    dependent_types(n, at, &names, false, &mut found);
                }
            }
            self.out.extend(found.into_iter().map(|(range, name)| missing_typename_finding(range, &name)));
        }
    }

    /// The explicit specializations of function templates (`template <> half f<half>(..)`),
    /// each at its first declaration.
    fn specializations(&mut self, decls: &[SyntaxNode]) {
        for decl in decls {
            let Some(list) = decl.children().find(|c| c.kind() == SyntaxKind::TEMPLATE_PARAM_LIST) else { continue };
            if list.children().next().is_some() {
                continue;
            }
            let Some(f) = decl.children().find_map(msl_syntax::ast::Function::cast) else { continue };
            let Some(name) = f.name() else { continue };
            let Some(args) = name.syntax().children().find(|c| c.kind() == SyntaxKind::TEMPLATE_ARG_LIST) else {
                continue;
            };
            let Some(ident) = name
                .syntax()
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .find(|t| t.kind() == SyntaxKind::IDENT)
            else {
                continue;
            };
            let (name, args) = (ident.text().to_string(), squeeze(&args));
            if !self.specializations.iter().any(|s| s.name == name && s.args == args) {
                self.specializations.push(Specialization { name, args, at: ident.text_range() });
            }
        }
    }

    /// E1114: two entry points that the Metal API would know by one name (MSL 4.1 section
    /// 5.1.x on `[[host_name]]`: different functions must not share one). An entry point's
    /// name is its `[[host_name("...")]]`, else its own name; the explicit instantiations of
    /// a template kernel all have the template's name unless given one. Two definitions of
    /// one name without `host_name` are left to E1113 and E1407; entry points in namespaces
    /// take part only with a `host_name`.
    fn host_names(&mut self, items: &[SyntaxNode]) {
        struct Entry {
            at: TextRange,
            explicit: bool,
        }
        let mut seen: FxHashMap<String, Entry> = FxHashMap::default();
        for node in items {
            let (item, instantiation) = if node.kind() == SyntaxKind::EXPLICIT_INSTANTIATION {
                let Some(item) =
                    node.children().find(|c| matches!(c.kind(), SyntaxKind::FUNCTION | SyntaxKind::VAR_DECL))
                else {
                    continue;
                };
                (item, true)
            } else {
                // templates are not entry points themselves (their instantiations are)
                if node
                    .parent()
                    .is_some_and(|p| matches!(p.kind(), SyntaxKind::TEMPLATE_DECL | SyntaxKind::EXPLICIT_INSTANTIATION))
                    || !node.children().any(|c| c.kind() == SyntaxKind::COMPOUND_STMT)
                {
                    continue;
                }
                (node.clone(), false)
            };
            let lists = entry_attribute_lists(node, &item);
            if !entry_stage(&item, &lists) {
                continue;
            }
            let host = lists.iter().flat_map(|l| l.children()).find_map(|a| host_name_of(&a));
            let Some(own) = entry_name(&item) else { continue };
            let global = node.parent().is_some_and(|p| p.kind() == SyntaxKind::SOURCE_FILE);
            let (name, at, explicit) = match host {
                Some(Some((name, at))) => (name, at, true),
                // a `host_name` that is not a plain string: unknown
                Some(None) => continue,
                None if global => (own.0, own.1, false),
                None => continue,
            };
            if let Some(first) = seen.get(&name) {
                // two plain definitions of one name are E1113's and E1407's; two plain
                // instantiations of one template share its name
                if (explicit || first.explicit || instantiation) && !green_has_error(node.green()) {
                    let message = if explicit {
                        format!("another entry point already has the host name \"{name}\"")
                    } else if instantiation {
                        format!("this instantiation is named `{name}` like an earlier entry point")
                    } else {
                        format!("`{name}` is the host name of another entry point")
                    };
                    let first_at = first.at;
                    self.report(
                        "E1114",
                        at,
                        message,
                        if instantiation && !explicit {
                            "give each instantiation its own name with [[host_name(\"...\")]]"
                        } else {
                            "give each entry point its own name"
                        },
                        Some(first_at),
                    );
                }
                continue;
            }
            seen.insert(name, Entry { at, explicit });
        }
    }

    /// Records the defaults a declaration of a class template gives; E1407 when an earlier
    /// declaration gave one for the same parameter.
    fn template_defaults(
        &mut self,
        seen: &mut FxHashMap<(TextRange, String), Vec<bool>>,
        key: (TextRange, String),
        flags: Vec<bool>,
        at: TextRange,
    ) {
        if let Some(before) = seen.get(&key) {
            if before.len() == flags.len() && before.iter().zip(&flags).any(|(a, b)| *a && *b) {
                self.report(
                    "E1407",
                    at,
                    format!(
                        "the default template arguments of `{}` are already given by an earlier declaration",
                        key.1
                    ),
                    "give each default once: remove them here, or from the earlier declaration",
                    None,
                );
            }
            return;
        }
        seen.insert(key, flags);
    }

    /// E1411: a data member whose class type is defined only after the member's class
    /// ([class.mem]/13: a data member's type must be complete where it is declared; a
    /// forward declaration does not make it so).
    fn incomplete_fields(&mut self) {
        let lib = msl_stdlib::Stdlib::get();
        for (i, d) in self.defs.defs.iter().enumerate() {
            let DefKind::Field(field) = &d.kind else { continue };
            let crate::ty::TypeBase::Path(p) = &field.ty.base else { continue };
            if p.global || p.segments.len() != 1 || p.segments[0].args.is_some() || !field.ty.ops.is_empty() {
                continue;
            }
            let id = DefId(i as u32);
            let Some(class) = self.defs.owner_class(id) else { continue };
            let class_data = self.defs.def(class);
            if d.generics.is_some()
                || class_data.generics.is_some()
                || !matches!(self.defs.scope(class_data.scope).kind, ScopeKind::Namespace | ScopeKind::Global)
            {
                continue;
            }
            let name = &*p.segments[0].name;
            if !lib.lookup(name).is_empty() || lib.type_named(name).is_some() || crate::ty::numeric_type(name).is_some()
            {
                continue;
            }
            let named = self.defs.named(name);
            let later = !named.is_empty()
                && named.iter().all(|&n| {
                    let nd = self.defs.def(n);
                    matches!(nd.kind, DefKind::Class { .. })
                        && matches!(self.defs.scope(nd.scope).kind, ScopeKind::Namespace | ScopeKind::Global)
                        && nd.node > d.node
                });
            if !later || !self.sound(id) {
                continue;
            }
            let Some(at) = self.sources.get(id).map(|s| s.full) else { continue };
            self.report(
                "E1411",
                at,
                format!("`{name}` is not defined yet here: a member of it by value needs its definition"),
                "move the definition of the class above this one, or hold it through a pointer",
                None,
            );
        }
    }

    /// Classes, variables, enumerators and data members declared twice in a scope.
    fn scopes(&mut self) {
        for (s, scope) in self.defs.scopes.iter().enumerate() {
            let scope_id = ScopeId(s as u32);
            let mut names: Vec<(&Arc<str>, &Vec<DefId>)> = scope.names.iter().filter(|(_, v)| v.len() > 1).collect();
            names.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (name, ids) in names {
                let mut ids: Vec<DefId> = ids.clone();
                ids.sort_unstable();
                ids.dedup();
                ids.sort_by_key(|&id| self.sources.get(id).map(|x| x.name.start()));
                for (k, &later) in ids.iter().enumerate().skip(1) {
                    let clash =
                        ids[..k].iter().take(EARLIER).copied().find(|&earlier| self.clash(scope_id, earlier, later));
                    if let Some(earlier) = clash
                        && let Some(at) = self.name_range(later)
                        && self.sound(earlier)
                        && self.sound(later)
                    {
                        let first = self.name_range(earlier);
                        let what = match &self.defs.def(later).kind {
                            DefKind::Class { .. } => "class",
                            DefKind::Enumerator { .. } => "enumerator",
                            DefKind::Field(_) => "member",
                            _ => "variable",
                        };
                        self.report(
                            "E1407",
                            at,
                            format!("`{name}` is already declared in this scope (this {what} redefines it)"),
                            "rename one of them",
                            first,
                        );
                        break;
                    }
                }
            }
        }
    }

    /// Whether two declarations of one name in one scope cannot both stand.
    fn clash(&self, scope: ScopeId, a: DefId, b: DefId) -> bool {
        let (da, db) = (self.defs.def(a), self.defs.def(b));
        if da.generics.is_some() || db.generics.is_some() {
            return false;
        }
        let kind = self.defs.scope(scope).kind;
        match (&da.kind, &db.kind) {
            (DefKind::Class { pattern: None, .. }, DefKind::Class { pattern: None, .. }) => {
                da.scope == db.scope && self.class_body(a) && self.class_body(b)
            }
            (DefKind::Variable { .. }, DefKind::Variable { .. }) => {
                matches!(kind, ScopeKind::Namespace | ScopeKind::Global)
                    && da.scope == scope
                    && db.scope == scope
                    && self.plain_variable(a)
                    && self.plain_variable(b)
            }
            (DefKind::Enumerator { .. }, DefKind::Enumerator { .. }) => true,
            (DefKind::Enumerator { .. }, DefKind::Variable { .. })
            | (DefKind::Variable { .. }, DefKind::Enumerator { .. }) => {
                self.plain_variable(if matches!(da.kind, DefKind::Variable { .. }) { a } else { b })
            }
            (DefKind::Field(_), DefKind::Field(_))
            | (DefKind::Field(_), DefKind::Function(_) | DefKind::Variable { .. })
            | (DefKind::Function(_) | DefKind::Variable { .. }, DefKind::Field(_)) => {
                kind == ScopeKind::Class && da.scope == scope && db.scope == scope
            }
            _ => false,
        }
    }

    /// A class definition (with its members), not a declaration that only names it.
    fn class_body(&self, id: DefId) -> bool {
        self.node(id).is_some_and(|n| {
            n.kind() == SyntaxKind::STRUCT && n.children().any(|c| c.kind() == SyntaxKind::MEMBER_LIST)
        })
    }

    /// A variable's definition: not `extern`, not a static member defined outside its
    /// class.
    fn plain_variable(&self, id: DefId) -> bool {
        let Some(node) = self.node(id) else { return false };
        let Some(decl) = node.ancestors().find(|a| a.kind() == SyntaxKind::VAR_DECL) else { return false };
        let extern_ = msl_syntax::ast::VarDecl::cast(decl)
            .and_then(|v| v.decl_specifiers())
            .is_none_or(|s| s.has(SyntaxKind::EXTERN_KW));
        !extern_ && !self.defs.def(id).name.contains("::")
    }
}

/// The attribute lists that belong to an entry point's declaration (not to its
/// parameters): before it, among its specifiers, after its declarator.
fn entry_attribute_lists(node: &SyntaxNode, item: &SyntaxNode) -> Vec<SyntaxNode> {
    let mut holders = vec![node.clone()];
    if item != node {
        holders.push(item.clone());
    }
    for c in item.children() {
        match c.kind() {
            SyntaxKind::DECL_SPECIFIERS | SyntaxKind::DECLARATOR => holders.push(c),
            SyntaxKind::INIT_DECLARATOR => holders.extend(c.children().filter(|d| d.kind() == SyntaxKind::DECLARATOR)),
            _ => {}
        }
    }
    holders.iter().flat_map(|h| h.children()).filter(|c| c.kind() == SyntaxKind::ATTRIBUTE_LIST).collect()
}

/// Whether the declaration is of an entry point (a stage keyword or attribute).
fn entry_stage(item: &SyntaxNode, lists: &[SyntaxNode]) -> bool {
    let keyword = item.children().filter(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS).any(|s| {
        s.children_with_tokens()
            .any(|t| matches!(t.kind(), SyntaxKind::KERNEL_KW | SyntaxKind::VERTEX_KW | SyntaxKind::FRAGMENT_KW))
    });
    keyword
        || lists.iter().flat_map(|l| l.children()).filter_map(msl_syntax::ast::Attribute::cast).any(|a| {
            matches!(
                a.name().as_deref(),
                Some("kernel" | "vertex" | "fragment" | "mesh" | "object" | "visible" | "intersection" | "stitchable")
            )
        })
}

/// The name an entry point declares (without template arguments) and where it is.
fn entry_name(item: &SyntaxNode) -> Option<(String, TextRange)> {
    let declarator = item.children().find_map(|c| match c.kind() {
        SyntaxKind::DECLARATOR => Some(c),
        SyntaxKind::INIT_DECLARATOR => c.children().find(|d| d.kind() == SyntaxKind::DECLARATOR),
        _ => None,
    })?;
    let name = declarator.children().find(|c| c.kind() == SyntaxKind::NAME)?;
    let mut idents = name.children_with_tokens().filter_map(|t| t.into_token()).filter(|t| !t.kind().is_trivia());
    let first = idents.next()?;
    // a qualified name (`ns::k`) is no global entry point's own name
    if first.kind() != SyntaxKind::IDENT || idents.next().is_some_and(|t| t.kind() == SyntaxKind::COLON2) {
        return None;
    }
    Some((first.text().to_string(), first.text_range()))
}

/// For a `host_name` attribute: its string (adjacent literals joined) and where it is, or
/// `None` when its argument is something else.
#[allow(clippy::option_option)]
fn host_name_of(attribute: &SyntaxNode) -> Option<Option<(String, TextRange)>> {
    let a = msl_syntax::ast::Attribute::cast(attribute.clone())?;
    if a.name().as_deref() != Some("host_name") {
        return None;
    }
    let Some(args) = attribute.children().find(|c| c.kind() == SyntaxKind::ATTR_ARGS) else { return Some(None) };
    let mut text = String::new();
    let mut range: Option<TextRange> = None;
    for t in args.descendants_with_tokens().filter_map(|e| e.into_token()) {
        match t.kind() {
            SyntaxKind::L_PAREN | SyntaxKind::R_PAREN => {}
            k if k.is_trivia() => {}
            SyntaxKind::STRING_LIT => {
                let s = t.text();
                let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else { return Some(None) };
                if inner.contains('\\') {
                    return Some(None);
                }
                text.push_str(inner);
                range = Some(range.map_or(t.text_range(), |r| r.cover(t.text_range())));
            }
            _ => return Some(None),
        }
    }
    Some(range.map(|r| (text, r)))
}

/// E1412 at `range`, for the name `name` written there.
pub(crate) fn missing_typename_finding(range: TextRange, name: &str) -> HirDiagnostic {
    HirDiagnostic {
        range,
        severity: msl_syntax::Severity::Error,
        code: "E1412",
        message: format!("`{name}` depends on a template parameter: as a type it needs `typename`"),
        hint: Some(format!("write `typename {name}`")),
        fixes: vec![crate::checks::Fix::replace(
            "Insert `typename`".to_string(),
            TextRange::empty(range.start()),
            "typename ",
        )],
        related: Vec::new(),
    }
}

/// The children of a green node with their offsets.
fn green_children(
    node: &rowan::GreenNodeData,
    start: TextSize,
) -> impl Iterator<Item = (rowan::NodeOrToken<&rowan::GreenNodeData, &rowan::GreenTokenData>, TextSize)> {
    let mut at = start;
    node.children().map(move |c| {
        let here = at;
        at += c.text_len();
        (c, here)
    })
}

fn kind_of(n: &rowan::GreenNodeData) -> SyntaxKind {
    SyntaxKind::from(n.kind().0)
}

/// The first child node of a kind, with its offset.
fn green_child(
    node: &rowan::GreenNodeData,
    start: TextSize,
    kind: SyntaxKind,
) -> Option<(&rowan::GreenNodeData, TextSize)> {
    green_children(node, start).find_map(|(c, at)| match c {
        rowan::NodeOrToken::Node(n) if kind_of(n) == kind => Some((n, at)),
        _ => None,
    })
}

/// The E1412 findings in a function's body (`function` the function's own tree, ranges
/// from its start), for the template parameters `names` around it.
pub(crate) fn body_dependent_types(function: &rowan::GreenNodeData, names: &[String]) -> Vec<(TextRange, String)> {
    let mut out = Vec::new();
    for (c, at) in green_children(function, 0.into()) {
        if let rowan::NodeOrToken::Node(n) = c
            && matches!(kind_of(n), SyntaxKind::COMPOUND_STMT)
        {
            dependent_types(n, at, names, true, &mut out);
        }
    }
    out
}

/// The qualified type names under `node` that start with one of the template parameters
/// `names` and lack `typename` (see `missing_typename`); nested templates are left to
/// their own walk, and bodies too unless `bodies`.
fn dependent_types(
    node: &rowan::GreenNodeData,
    start: TextSize,
    names: &[String],
    bodies: bool,
    out: &mut Vec<(TextRange, String)>,
) {
    let specifiers = |n: &rowan::GreenNodeData, at: TextSize, out: &mut Vec<(TextRange, String)>| {
        if let Some((spec, at)) = green_child(n, at, SyntaxKind::DECL_SPECIFIERS)
            && let Some((path, at)) = green_child(spec, at, SyntaxKind::PATH_TYPE)
            && let Some(name) = untagged_dependent(path, names)
        {
            out.push((TextRange::at(at, path.text_len()), name));
        }
    };
    match kind_of(node) {
        // bodies are looked at per function (`body_dependent_types`), so that an edit in
        // one reads only that body again
        SyntaxKind::TEMPLATE_DECL | SyntaxKind::ERROR => return,
        SyntaxKind::COMPOUND_STMT if !bodies => return,
        SyntaxKind::FUNCTION => {
            specifiers(node, start, out);
            if let Some((d, at)) = green_child(node, start, SyntaxKind::DECLARATOR)
                && let Some((list, at)) = green_child(d, at, SyntaxKind::PARAM_LIST)
            {
                for (c, at) in green_children(list, at) {
                    if let rowan::NodeOrToken::Node(p) = c
                        && kind_of(p) == SyntaxKind::PARAM
                    {
                        specifiers(p, at, out);
                    }
                }
            }
        }
        SyntaxKind::TYPEDEF_DECL => specifiers(node, start, out),
        SyntaxKind::ALIAS_DECL => {
            if let Some((t, at)) = green_child(node, start, SyntaxKind::TYPE) {
                specifiers(t, at, out);
            }
        }
        SyntaxKind::VAR_DECL => {
            // each declarator a plain name, or initialized: a declaration whichever way
            // the name is read
            let plain = green_children(node, start).all(|(c, _)| match c {
                rowan::NodeOrToken::Node(d) if kind_of(d) == SyntaxKind::INIT_DECLARATOR => {
                    let initialized = green_child(d, start, SyntaxKind::INITIALIZER).is_some();
                    green_child(d, start, SyntaxKind::DECLARATOR).is_some_and(|(decl, _)| {
                        decl.children().all(|e| match e {
                            rowan::NodeOrToken::Node(x) => {
                                kind_of(x) == SyntaxKind::NAME
                                    || (initialized && kind_of(x) == SyntaxKind::PTR_OPERATOR)
                            }
                            rowan::NodeOrToken::Token(t) => SyntaxKind::from(t.kind().0).is_trivia(),
                        })
                    })
                }
                _ => true,
            });
            if plain {
                specifiers(node, start, out);
            }
        }
        _ => {}
    }
    for (c, at) in green_children(node, start) {
        if let rowan::NodeOrToken::Node(n) = c {
            dependent_types(n, at, names, bodies, out);
        }
    }
}

/// `T::x` (or `T::x::y`, `T::template x<..>`) written without `typename`, where `T` is one
/// of `names`: the name as written.
fn untagged_dependent(path: &rowan::GreenNodeData, names: &[String]) -> Option<String> {
    let mut tokens =
        path.children().filter_map(|c| c.into_token()).filter(|t| !SyntaxKind::from(t.kind().0).is_trivia());
    let first = tokens.next()?;
    if SyntaxKind::from(first.kind().0) != SyntaxKind::IDENT || !names.iter().any(|n| n == first.text()) {
        return None;
    }
    let second = tokens.next()?;
    if SyntaxKind::from(second.kind().0) != SyntaxKind::COLON2 {
        return None;
    }
    // only tokens: a path whose segments carry template arguments has nodes
    if path.children().any(|c| c.as_node().is_some()) {
        return None;
    }
    let text: String = path
        .children()
        .filter_map(|c| c.into_token())
        .filter(|t| !SyntaxKind::from(t.kind().0).is_trivia())
        .map(|t| t.text().to_string())
        .collect();
    Some(text)
}

/// Whether two types are certainly different: plain types (scalars, vectors, matrices,
/// classes without template arguments) that differ once aliases are looked through, or
/// pointers and references to such. Anything else may be the same.
fn surely_different(a: &crate::ty::Ty, b: &crate::ty::Ty) -> bool {
    use crate::ty::TyKind;
    let (a, b) = (a.strip(), b.strip());
    match (a.kind(), b.kind()) {
        (TyKind::Pointer { pointee: x, .. }, TyKind::Pointer { pointee: y, .. })
        | (TyKind::Reference { target: x, .. }, TyKind::Reference { target: y, .. }) => surely_different(x, y),
        (
            TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. },
            TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. },
        ) => a != b,
        (TyKind::Class { def: x, args: ax, .. }, TyKind::Class { def: y, args: ay, .. }) => {
            ax.is_empty() && ay.is_empty() && x != y
        }
        (TyKind::Class { args, .. }, TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. })
        | (TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. }, TyKind::Class { args, .. }) => {
            args.is_empty()
        }
        _ => false,
    }
}

/// Whether a syntax error node lies under the node (read from the green tree, which
/// allocates nothing per node).
fn green_has_error(node: &rowan::GreenNodeData) -> bool {
    let error = rowan::SyntaxKind(SyntaxKind::ERROR as u16);
    node.children().any(|c| match c {
        rowan::NodeOrToken::Node(n) => n.kind() == error || green_has_error(n),
        rowan::NodeOrToken::Token(_) => false,
    })
}

/// Two functions with the same parameter types (as written) and qualifiers.
fn same_parameters(a: &FunctionData, b: &FunctionData) -> bool {
    a.params.len() == b.params.len()
        && a.variadic == b.variadic
        && a.is_const == b.is_const
        && a.object_space == b.object_space
        && a.params.iter().zip(&b.params).all(|(x, y)| x.ty == y.ty)
}
