//! Metal's rules for entry points and attributes, C++ features Metal does not have, and
//! availability of library functions and types for the configured Metal version.
//!
//! Every check reports only what it is sure of: a parameter whose type is a user
//! typedef it cannot see through, an index that is not a literal, a name the unit also
//! declares itself: all stay silent.

use std::sync::Arc;

use msl_stdlib::{Entry, Stdlib};
use msl_syntax::ast::{self, AstNode, Stage};
use msl_syntax::{MetalVersion, Platform, Severity, SyntaxKind, SyntaxNode, TextRange, WalkEvent};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::db::{Db, FunctionId, function_green, item_tree};
use crate::items::{ItemTree, TypeRef};

pub(crate) mod consts;
mod infer;
mod rules;
mod ty;

pub use consts::{
    check_runaway, check_static_asserts, function_static_asserts, functions_reaching_asserts, may_run_away,
};
pub(crate) use rules::{Specialization, check_instances, check_program};

use infer::{Fit, Selection, TypedLocals, Visibility, visibility_of};
use ty::{Space, Ty, matrix_product};

/// A problem found by the checker; the range is relative to the function's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HirDiagnostic {
    pub range: TextRange,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// How to fix it, when there is a clear fix.
    pub hint: Option<String>,
    /// Edits that fix it, for editors (quick fixes), best first.
    pub fixes: Vec<Fix>,
    /// Other places that explain it (where a template was instantiated, say), with
    /// ranges on the same base as `range`.
    pub related: Vec<(TextRange, String)>,
}

/// A mechanical fix: a label and the text replacements that carry it out (ranges relative
/// to the function's start, like the diagnostic's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub label: String,
    pub edits: Vec<(TextRange, String)>,
}

impl Fix {
    pub(crate) fn replace(label: String, range: TextRange, text: impl Into<String>) -> Fix {
        Fix { label, edits: vec![(range, text.into())] }
    }
}

/// The checks of one function. Depends only on the function's own syntax, the unit's item
/// tree and its configuration, so editing another function does not re-run it.
#[salsa::tracked(returns(ref))]
pub fn check_function<'db>(db: &'db dyn Db, function: FunctionId<'db>) -> Arc<Vec<HirDiagnostic>> {
    let Some((mut cx, node)) = Checker::for_function(db, function, true) else { return Arc::new(Vec::new()) };
    let checkable = cx.names_are_checkable(&node) && !cx.context.member;
    if let Some(f) = ast::Function::cast(node) {
        cx.function(&f);
    }
    // the rules on the semantic model
    let complete = cx.unit_complete && !cx.context.member_with_bases;
    // a finding of the model that a check on the syntax made already (same code, same
    // place) is reported once
    let found = rules::check(db, function, checkable, complete);
    let seen: Vec<(&'static str, TextRange)> = cx.out.iter().map(|d| (d.code, d.range)).collect();
    cx.out.extend(found.into_iter().filter(|d| {
        !seen
            .iter()
            .any(|(code, range)| *code == d.code && (range.contains_range(d.range) || d.range.contains_range(*range)))
    }));
    Arc::new(cx.out)
}

/// The rules on what lies outside function bodies (program-scope variables, class
/// members that are not functions, base classes, templates, deduction guides): C++
/// features Metal does not have, and C++17 features used under an older Metal version.
/// Ranges are the unit tree's. Function bodies are [`check_function`]'s.
#[salsa::tracked(returns(ref))]
pub fn check_declarations(db: &dyn Db, unit: crate::Unit) -> Arc<Vec<HirDiagnostic>> {
    let parse = crate::db::parse_unit(db, unit);
    // after an edit inside one body, the previous findings moved: functions are not
    // walked here
    let slot = db.item_cache().map(|c| &c.declarations);
    let moved = |shift: &rules::BodyShift, found: &Arc<Vec<HirDiagnostic>>| shift.findings(found).map(Arc::new);
    rules::kept_over_body_edits(slot, unit, parse.green(), moved, || declaration_findings(db, unit, parse))
}

/// [`check_declarations`]' work.
fn declaration_findings(db: &dyn Db, unit: crate::Unit, parse: &msl_syntax::Parse) -> Arc<Vec<HirDiagnostic>> {
    let config = unit.config(db);
    let mut cx = Checker {
        tree: item_tree(db, unit),
        version: config.version,
        platform: config.platform,
        out: Vec::new(),
        lib: Stdlib::get(),
        context: crate::db::FunctionContext::default(),
        namespace: None,
        local_usings: false,
        unit_complete: true,
    };
    let mut walk = parse.syntax().preorder();
    while let Some(event) = walk.next() {
        let WalkEvent::Enter(node) = event else { continue };
        match node.kind() {
            SyntaxKind::FUNCTION => walk.skip_subtree(),
            SyntaxKind::VAR_DECL
                if node
                    .parent()
                    .is_some_and(|p| matches!(p.kind(), SyntaxKind::SOURCE_FILE | SyntaxKind::DECL_LIST)) =>
            {
                cx.program_scope_variable(&node);
                cx.forbidden_node(&node);
            }
            _ => cx.forbidden_node(&node),
        }
    }
    Arc::new(cx.out)
}

/// The types inferred for the `auto` variables of a function, where they follow from
/// builtin types: the range of each variable's name (relative to the function's start)
/// and its type.
#[salsa::tracked(returns(ref))]
pub fn auto_types<'db>(db: &'db dyn Db, function: FunctionId<'db>) -> Arc<Vec<(TextRange, String)>> {
    let Some((cx, root)) = Checker::for_function(db, function, false) else { return Arc::new(Vec::new()) };
    let mut counts: NameCounts = FxHashMap::default();
    let mut vars = Vec::new();
    for node in root.descendants() {
        match node.kind() {
            SyntaxKind::NAME => {
                if let Some(t) = ast::Name::cast(node).and_then(|n| n.ident()) {
                    *counts.entry(t.text().to_string()).or_default() += 1;
                }
            }
            SyntaxKind::VAR_DECL => vars.push(node),
            _ => {}
        }
    }
    let typed = cx.typed_locals(&root, &vars, &counts);
    let mut out = Vec::new();
    for v in vars.iter().filter_map(|n| ast::VarDecl::cast(n.clone())) {
        let is_auto = v
            .decl_specifiers()
            .is_some_and(|s| s.syntax().descendants_with_tokens().any(|e| e.kind() == SyntaxKind::AUTO_KW));
        if !is_auto {
            continue;
        }
        for d in v.declarators() {
            let Some(decl) = d.declarator() else { continue };
            if decl.ptr_operators().next().is_some() || decl.array_suffixes().next().is_some() {
                continue;
            }
            let (Some(name), Some(init)) = (d.name(), d.initializer().and_then(|i| i.expr())) else { continue };
            if let Some(ty) = cx.expr_ty(&init, &typed) {
                out.push((name.syntax().text_range(), ty.to_string()));
            }
        }
    }
    Arc::new(out)
}

struct Checker<'a> {
    tree: &'a ItemTree,
    version: MetalVersion,
    platform: Platform,
    lib: &'static Stdlib,
    context: crate::db::FunctionContext,
    /// The namespace the function is defined in (`""`: the global one), when known.
    namespace: Option<&'a str>,
    /// The body has using-directives, using-declarations or namespace aliases of its own.
    local_usings: bool,
    /// Every header of the unit was found and is modelled: what is not declared is
    /// really undeclared.
    unit_complete: bool,
    out: Vec<HirDiagnostic>,
}

/// `E::x` where `E` is an enum of the library that has no enumerator `x`: the message,
/// a hint and the closest enumerator.
pub(crate) struct MissingEnumerator {
    pub message: String,
    pub hint: String,
    pub closest: Option<String>,
}

pub(crate) fn missing_library_enumerator(qualifier: &str, name: &str) -> Option<MissingEnumerator> {
    let en = Stdlib::get().lookup(qualifier).iter().find_map(|e| match e {
        msl_stdlib::Entry::Enum(en) => Some(*en),
        _ => None,
    })?;
    if en.members.iter().any(|m| m.name == name) {
        return None;
    }
    let closest = closest(name, en.members.iter().map(|m| m.name)).map(str::to_string);
    let hint = match &closest {
        Some(c) => format!("did you mean `{qualifier}::{c}`?"),
        None => format!("its enumerators are `{}`", en.members.iter().map(|m| m.name).collect::<Vec<_>>().join("`, `")),
    };
    Some(MissingEnumerator { message: format!("`{qualifier}` has no enumerator `{name}`"), hint, closest })
}

/// The address space a pointer or reference parameter names (on its type or on its
/// pointer), as written.
fn indirect_space(p: &ast::Param) -> Option<String> {
    let spec = p.decl_specifiers()?.address_space();
    let op = p.declarator().and_then(|d| d.ptr_operators().find_map(|op| op.address_space()));
    spec.or(op).map(|t| t.text().to_string())
}

/// A parameter's type, as far as the checks need it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ParamType {
    /// A builtin scalar or vector passed by value: its canonical name (`uint3`).
    Numeric(String),
    /// A pointer or reference; `true` when it names an address space.
    Indirect { has_address_space: bool },
    /// Anything else (structs, textures, arrays, templates, unknown names).
    Other,
}

impl<'a> Checker<'a> {
    /// A checker for `function` and its syntax; `complete_check` asks whether the unit is
    /// complete (only name checks need it).
    fn for_function(
        db: &'a dyn Db,
        function: FunctionId<'a>,
        complete_check: bool,
    ) -> Option<(Checker<'a>, SyntaxNode)> {
        let crate::db::FunctionSyntax(green) = function_green(db, function).as_ref()?;
        let unit = *function.unit(db);
        let tree = item_tree(db, unit);
        let config = unit.config(db);
        let item = tree.functions.get(*function.index(db) as usize);
        let context = item.map(|f| f.context).unwrap_or_default();
        let namespace = item.and_then(|f| f.namespace.as_deref());
        let cx = Checker {
            tree,
            version: config.version,
            platform: config.platform,
            out: Vec::new(),
            lib: Stdlib::get(),
            context,
            namespace,
            local_usings: false,
            unit_complete: !complete_check || !crate::db::unit_incomplete(db, unit),
        };
        Some((cx, SyntaxNode::new_root(green.clone())))
    }
}

impl Checker<'_> {
    fn report(&mut self, node: &SyntaxNode, code: &'static str, message: String, hint: Option<String>) {
        self.report_range(node.text_range(), code, message, hint);
    }

    fn report_range(&mut self, range: TextRange, code: &'static str, message: String, hint: Option<String>) {
        let severity = if code.starts_with('W') { Severity::Warning } else { Severity::Error };
        self.out.push(HirDiagnostic { range, severity, code, message, hint, fixes: Vec::new(), related: Vec::new() });
    }

    /// Attaches fixes to the diagnostic reported last.
    fn with_fixes(&mut self, fixes: impl IntoIterator<Item = Fix>) {
        if let Some(d) = self.out.last_mut() {
            d.fixes.extend(fixes);
        }
    }

    fn function(&mut self, f: &ast::Function) {
        let stage = f.stage();
        // a declaration without a body (a prototype, an explicit instantiation) is checked
        // where the function is defined
        if matches!(stage, Some(Stage::Kernel | Stage::Vertex | Stage::Fragment)) && f.body().is_some() {
            self.entry_point(f, stage.unwrap_or(Stage::Kernel));
        } else if stage == Some(Stage::Other) && f.body().is_some() {
            self.mesh_pipeline_function(f);
        }
        if f.body().is_some() {
            self.early_fragment_tests(f, stage);
            self.defaults_naming_parameters(f);
        }
        self.walk_body(f.syntax());
    }

    /// One walk over the function: forbidden features are reported as they are met;
    /// library calls and types are checked once every local name is known (a parameter
    /// or local variable hides a library name of the same spelling).
    fn walk_body(&mut self, root: &SyntaxNode) {
        let mut local: NameCounts = FxHashMap::default();
        let mut calls: Vec<SyntaxNode> = Vec::new();
        let mut types: Vec<SyntaxNode> = Vec::new();
        let mut uses: Vec<SyntaxNode> = Vec::new();
        let mut vars: Vec<SyntaxNode> = Vec::new();
        let mut writes: Vec<SyntaxNode> = Vec::new();
        let mut members: Vec<SyntaxNode> = Vec::new();
        let mut returns: Vec<SyntaxNode> = Vec::new();
        let mut constructs: Vec<SyntaxNode> = Vec::new();
        let mut walk = root.preorder();
        while let Some(event) = walk.next() {
            let WalkEvent::Enter(node) = event else { continue };
            match node.kind() {
                // attribute arguments are not expressions of the function (`[[user(locn0)]]`)
                SyntaxKind::ATTRIBUTE_LIST => {
                    if self.version < MetalVersion::V4_0 {
                        self.cxx17_feature(&node);
                    }
                    walk.skip_subtree();
                }
                SyntaxKind::NAME => {
                    if let Some(t) = ast::Name::cast(node).and_then(|n| n.ident()) {
                        *local.entry(t.text().to_string()).or_default() += 1;
                    }
                }
                SyntaxKind::CALL_EXPR => calls.push(node),
                SyntaxKind::PATH_TYPE => types.push(node),
                SyntaxKind::PATH_EXPR => uses.push(node),
                SyntaxKind::VAR_DECL => vars.push(node),
                SyntaxKind::MEMBER_EXPR => members.push(node),
                SyntaxKind::RETURN_STMT => returns.push(node),
                SyntaxKind::CONSTRUCT_EXPR => {
                    self.forbidden_node(&node);
                    constructs.push(node);
                }
                SyntaxKind::BIN_EXPR | SyntaxKind::PREFIX_EXPR | SyntaxKind::POSTFIX_EXPR => writes.push(node),
                SyntaxKind::USING_DIRECTIVE | SyntaxKind::USING_DECL | SyntaxKind::NAMESPACE_ALIAS => {
                    self.local_usings = true
                }
                _ => self.forbidden_node(&node),
            }
        }
        self.threadgroup_variables(root, &vars);
        self.static_locals(root, &vars);
        let typed = self.typed_locals(root, &vars, &local);
        self.swizzles(&typed, &members);
        self.conversions(root, &typed, &vars, &writes, &returns);
        self.argument_conversions(&calls, &typed);
        self.address_spaces(&typed, &vars, &writes);
        self.operands(&typed, &writes);
        self.constant_writes(root, &vars, &writes, &local);
        self.vector_constructions(&calls, &constructs, &typed, &local);
        self.member_operators(&typed, &members);
        self.initializer_counts(&typed, &vars);
        self.library_arguments(&calls, &typed, &local);
        for call in calls {
            self.call_availability(&call, &local);
            self.call_arity(&call, &local);
            self.texture_call(&call, &typed);
        }
        for ty in types {
            self.type_availability(&ty, &local);
        }
        if self.names_are_checkable(root) {
            let mut visible = None;
            for u in uses {
                self.check_name(&u, &local, &mut visible);
            }
        }
    }

    /// Whether every name the function may refer to is known: its unit is complete, and it
    /// is not a member of a class with bases or defined outside its class.
    fn names_are_checkable(&self, root: &SyntaxNode) -> bool {
        let qualified = ast::Function::cast(root.clone())
            .and_then(|f| f.name())
            .is_some_and(|n| n.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::COLON2));
        self.unit_complete && !self.context.member_with_bases && !qualified
    }

    /// E1401: a name used in an expression that nothing declares, or that only namespaces
    /// this function does not see declare. `visible` caches [`Checker::visible_namespaces`].
    fn check_name(&mut self, node: &SyntaxNode, local: &NameCounts, visible: &mut Option<Option<FxHashSet<String>>>) {
        let Some(path) = ast::PathExpr::cast(node.clone()) else { return };
        if node.children_with_tokens().any(|e| matches!(e.kind(), SyntaxKind::OPERATOR_KW | SyntaxKind::TILDE)) {
            return;
        }
        if path.is_qualified() {
            self.check_qualified_name(&path, local);
            return;
        }
        let Some(tok) = path.name() else { return };
        let name = tok.text();
        // in a template, a called name may be found by argument-dependent lookup when the
        // template is instantiated
        let callee = node.parent().is_some_and(|p| p.kind() == SyntaxKind::CALL_EXPR) && node.prev_sibling().is_none();
        if callee && self.context.template {
            return;
        }
        if self.is_known(name, local) {
            if !callee {
                let visible = visible.get_or_insert_with(|| self.visible_namespaces());
                self.check_visibility(&tok, local, visible.as_ref());
            }
            return;
        }
        let closest = self.closest_name(name, local);
        let hint = closest.as_ref().map(|n| format!("did you mean `{n}`?"));
        self.report_range(tok.text_range(), "E1401", format!("`{name}` is not declared"), hint);
        if let Some(n) = closest {
            self.with_fixes([Fix::replace(format!("Change to `{n}`"), tok.text_range(), n)]);
        }
    }

    /// E1401 for a name declared only in namespaces that an unqualified use in this
    /// function cannot see (argument-dependent lookup aside, so not for called names). Only
    /// names declared nowhere but at namespace scope are judged, and only when every
    /// using-directive on the way names a namespace of the unit.
    fn check_visibility(
        &mut self,
        tok: &msl_syntax::SyntaxToken,
        local: &NameCounts,
        visible: Option<&FxHashSet<String>>,
    ) {
        let name = tok.text();
        let Some(visible) = visible else { return };
        if self.local_usings
            || local.contains_key(name)
            || self.tree.elsewhere.contains(name)
            || !self.lib.lookup(name).is_empty()
            || msl_syntax::is_library_name(name)
            || name.starts_with("__")
        {
            return;
        }
        let Some(homes) = self.tree.homes.get(name) else { return };
        if homes.iter().any(|h| visible.contains(h)) {
            return;
        }
        let Some(first) = homes.iter().min() else { return };
        let qualified = format!("{first}::{name}");
        self.report_range(
            tok.text_range(),
            "E1401",
            format!("`{name}` is not visible here: it is declared in namespace `{first}`"),
            Some(format!("did you mean `{qualified}`? (or add `using namespace {first};`)")),
        );
        self.with_fixes([Fix::replace(format!("Change to `{qualified}`"), tok.text_range(), qualified)]);
    }

    /// The namespaces whose names an unqualified name in this function finds: its own, the
    /// enclosing ones, and those their using-directives nominate (followed on). `None` when
    /// the body has using-directives or -declarations of its own, the function's namespace
    /// is not known, or a directive names a namespace alias or a namespace that is not one
    /// of the unit's (other than `metal`).
    fn visible_namespaces(&self) -> Option<FxHashSet<String>> {
        // the body's own using-directives or -declarations: nothing is judged
        if self.local_usings {
            return None;
        }
        let mut seen: FxHashSet<String> = FxHashSet::default();
        let mut queue: Vec<String> = enclosing(self.namespace?).map(str::to_string).collect();
        while let Some(ns) = queue.pop() {
            if !seen.insert(ns.clone()) {
                continue;
            }
            for written in self.tree.usings.get(&ns).into_iter().flatten() {
                let w = written.strip_prefix("::").unwrap_or(written);
                if w.split("::").any(|segment| self.tree.namespace_aliases.contains(segment)) {
                    return None;
                }
                let target = if written.starts_with("::") {
                    self.tree.scopes.contains_key(w).then(|| w.to_string())
                } else {
                    enclosing(&ns).map(|a| crate::items::join(a, w)).find(|c| self.tree.scopes.contains_key(c))
                };
                match target {
                    Some(t) => queue.push(t),
                    // the library's namespaces hold no names of the unit
                    None if w == "metal" || w.starts_with("metal::") => {}
                    None => return None,
                }
            }
        }
        Some(seen)
    }

    /// E1401 for `a::b::x` where `a` is a namespace or enum of the unit (the only one of
    /// that name) and a later name is not declared in the scope before it. Scopes that
    /// may see more names (using-directives and -declarations, inline namespaces) and
    /// qualifiers that are classes or aliases are not followed.
    fn check_qualified_name(&mut self, path: &ast::PathExpr, local: &NameCounts) {
        let text = path.text();
        let segments: Vec<msl_syntax::SyntaxToken> = path.segments().collect();
        if text.starts_with("::")
            || segments.len() < 2
            || text.split("::").count() != segments.len()
            || path.syntax().descendants().any(|n| n.kind() == SyntaxKind::TEMPLATE_ARG_LIST)
        {
            return;
        }
        let first = segments[0].text();
        let tree = self.tree;
        if first == "metal"
            || local.contains_key(first)
            || tree.value_names.contains(first)
            || tree.fields.contains_key(first)
            || tree.unsure_structs.contains(first)
            || tree.typedefs.contains_key(first)
        {
            return;
        }
        let suffix = format!("::{first}");
        let mut candidates = tree.scopes.keys().filter(|k| *k == first || k.ends_with(&suffix));
        let (Some(start), None) = (candidates.next(), candidates.next()) else { return };
        let mut scope = start.clone();
        for (i, seg) in segments.iter().enumerate().skip(1) {
            let Some(s) = tree.scopes.get(&scope) else { return };
            if s.open {
                return;
            }
            let name = seg.text();
            if !s.members.contains(name) {
                let closest = closest(name, s.members.iter().map(String::as_str)).map(str::to_string);
                let hint = closest.as_ref().map(|n| format!("did you mean `{n}`?"));
                self.report_range(seg.text_range(), "E1401", format!("`{name}` is not declared in `{scope}`"), hint);
                if let Some(n) = closest {
                    self.with_fixes([Fix::replace(format!("Change to `{n}`"), seg.text_range(), n)]);
                }
                return;
            }
            if i + 1 < segments.len() {
                scope = format!("{scope}::{name}");
                // a class or an alias: its members are not followed
                if !tree.scopes.contains_key(&scope) {
                    return;
                }
            }
        }
    }

    fn is_known(&self, name: &str, local: &NameCounts) -> bool {
        local.contains_key(name)
            || self.tree.declared.contains(name)
            || self.tree.types.contains(name)
            || self.tree.typedefs.contains_key(name)
            || !self.lib.lookup(name).is_empty()
            || msl_syntax::is_library_name(name)
            // names reserved for the implementation (`__builtin_*`, `__metal_*`, `__func__`)
            || name.starts_with("__")
    }

    /// The known name closest to `name`, if close enough to be a likely typo.
    fn closest_name(&self, name: &str, local: &NameCounts) -> Option<String> {
        let lib_names = self.lib.names().filter(|n| {
            self.lib
                .lookup(n)
                .iter()
                .any(|e| matches!(e, Entry::Function(_) | Entry::Constant(_) | Entry::EnumMember(..) | Entry::Type(_)))
        });
        let mut candidates: Vec<&str> = local.keys().map(|s| s.as_str()).collect();
        candidates.extend(self.tree.declared.iter().map(|s| s.as_str()));
        for n in lib_names {
            candidates.push(n);
        }
        closest(name, candidates).map(str::to_string)
    }

    // ---- vectors -------------------------------------------------------------------------

    /// E1703: an arithmetic or comparison operator between vectors of different sizes or
    /// element types, or a matrix product whose dimensions do not match.
    fn operands(&mut self, locals: &TypedLocals, exprs: &[SyntaxNode]) {
        use SyntaxKind::*;
        for b in exprs.iter().filter_map(|n| ast::BinExpr::cast(n.clone())) {
            let Some(op) = b.op() else { continue };
            let arithmetic = matches!(op.kind(), PLUS | MINUS | STAR | SLASH | PERCENT);
            let comparison = matches!(op.kind(), EQ2 | NEQ | L_ANGLE | R_ANGLE | LTEQ | GTEQ);
            let compound = matches!(op.kind(), PLUSEQ | MINUSEQ | STAREQ | SLASHEQ);
            if !(arithmetic || comparison || compound) {
                continue;
            }
            let (Some(lhs), Some(rhs)) = (b.lhs(), b.rhs()) else { continue };
            let (Some(l), Some(r)) = (self.expr_ty(&lhs, locals), self.expr_ty(&rhs, locals)) else { continue };
            let bad = match (&l, &r) {
                (Ty::Vector(..), Ty::Vector(..)) => !l.same_vector(&r),
                (Ty::Matrix(..), _) | (_, Ty::Matrix(..)) => {
                    matches!(op.kind(), STAR | STAREQ) && matrix_product(&l, &r).is_some_and(|p| p.is_none())
                }
                _ => false,
            };
            if bad {
                let text = op.text();
                self.report_range(
                    op.text_range(),
                    "E1703",
                    format!("no `{text}` between a `{l}` and a `{r}`"),
                    Some(match (&l, &r) {
                        (Ty::Vector(..), Ty::Vector(..)) => {
                            "both sides need the same vector type: select components or convert one side".into()
                        }
                        _ => "a matrix with C columns multiplies a vector of C components (on its right)".into(),
                    }),
                );
            }
        }
    }

    /// E1702: initializing, assigning or returning a value of a builtin vector or matrix
    /// type where no implicit conversion exists.
    fn conversions(
        &mut self,
        root: &SyntaxNode,
        locals: &TypedLocals,
        vars: &[SyntaxNode],
        writes: &[SyntaxNode],
        returns: &[SyntaxNode],
    ) {
        let mut checks: Vec<(Ty, ast::Expr, &'static str)> = Vec::new();
        for v in vars.iter().filter_map(|n| ast::VarDecl::cast(n.clone())) {
            let Some(spec) = v.decl_specifiers() else { continue };
            for d in v.declarators() {
                let Some(e) = copy_initializer(&d) else { continue };
                // typed once already, unless the name is declared more than once
                let target = self.declarator_ty(&spec, &d, locals);
                // references bind rather than convert; arrays take braces
                if matches!(target, Ty::Unknown | Ty::Reference(_) | Ty::Array(..)) {
                    continue;
                }
                checks.push((target, e, "initialize"));
            }
        }
        for w in writes.iter().filter_map(|n| ast::BinExpr::cast(n.clone())) {
            if w.op_kind() != Some(SyntaxKind::EQ) {
                continue;
            }
            let (Some(lhs), Some(rhs)) = (w.lhs(), w.rhs()) else { continue };
            if let Some(target) = self.expr_ty(&lhs, locals) {
                checks.push((target, rhs, "assign"));
            }
        }
        if let Some(f) = ast::Function::cast(root.clone())
            && let Some(spec) = f.decl_specifiers()
            && f.declarator().is_some_and(|d| d.ptr_operators().next().is_none())
            && let Some(ret) = self.spec_ty(&spec)
        {
            for r in returns.iter().filter_map(|n| ast::ReturnStmt::cast(n.clone())) {
                // returns of lambdas inside return for the lambda
                if r.syntax().ancestors().any(|a| a.kind() == SyntaxKind::LAMBDA_EXPR) {
                    continue;
                }
                if let Some(e) = r.expr() {
                    checks.push((ret.clone(), e, "return"));
                }
            }
        }
        for (target, e, what) in checks {
            let Some(source) = self.expr_ty(&e, locals) else { continue };
            if self.converts(&target, &source) {
                continue;
            }
            let message = match what {
                "initialize" => format!("cannot initialize a `{target}` with {}", source.described()),
                "assign" => format!("cannot assign {} to a `{target}`", source.described()),
                _ => format!("cannot return {} from a function returning `{target}`", source.described()),
            };
            let hint = match (&target, &source) {
                (Ty::Vector(te, tn, _), Ty::Vector(se, sn, _)) if te == se && tn < sn => {
                    Some(format!("select the components you mean, e.g. `.{}`", &"xyzw"[..*tn]))
                }
                (Ty::Scalar(_), Ty::Vector(..)) => Some("select one component, e.g. `.x`".into()),
                (_, Ty::Pointer(_)) => Some("read what it points to: `*p` or `p[i]`".into()),
                (Ty::Struct(s), _) => Some(format!("build a `{s}` from its fields: `{s}{{...}}`")),
                (_, Ty::Struct(_)) => Some("read one of its fields".into()),
                (_, Ty::Function(f)) => Some(format!("call it: `{f}(...)`")),
                _ => Some(format!("convert explicitly: `{target}(...)`")),
            };
            self.report(e.syntax(), "E1702", message, hint);
            self.with_fixes(conversion_fixes(&target, &source, &e));
        }
    }

    /// E1706: a pointer declared with one address space initialized with or assigned a
    /// pointer into another (`thread float *p = buffer;` with `device float *buffer`).
    fn address_spaces(&mut self, locals: &TypedLocals, vars: &[SyntaxNode], writes: &[SyntaxNode]) {
        if !locals.has_pointers() {
            return;
        }
        let mut checks: Vec<((Space, TextRange), ast::Expr, String)> = Vec::new();
        let declared_space = |l: &infer::Local| match (&l.ty, l.space_at) {
            (Ty::Pointer(t), Some(at)) => Some((t.space?, at)),
            _ => None,
        };
        for v in vars.iter().filter_map(|n| ast::VarDecl::cast(n.clone())) {
            for d in v.declarators() {
                let (Some(name), Some(e)) = (d.name(), copy_initializer(&d)) else { continue };
                // the variable's own declaration (declared once, or it is not recorded)
                let Some(target) = locals.declared(&name.text()).and_then(declared_space) else { continue };
                checks.push((target, e, name.text()));
            }
        }
        for w in writes.iter().filter_map(|n| ast::BinExpr::cast(n.clone())) {
            if w.op_kind() != Some(SyntaxKind::EQ) {
                continue;
            }
            let (Some(lhs), Some(rhs)) = (w.lhs(), w.rhs()) else { continue };
            let Some(lhs) = plain_path(&lhs) else { continue };
            let Some(name) = lhs.name() else { continue };
            let Some(target) = locals.get(name.text(), lhs.syntax().text_range()).and_then(declared_space) else {
                continue;
            };
            checks.push((target, rhs, name.text().to_string()));
        }
        for ((target, target_range), e, name) in checks {
            let Some(source) = self.pointer_space(&e, locals) else { continue };
            if source == target {
                continue;
            }
            let (t, s) = (target.keyword(), source.keyword());
            self.report(
                e.syntax(),
                "E1706",
                format!("`{name}` points into `{t}` memory, but this pointer points into `{s}` memory"),
                Some(format!("pointers keep their address space: declare `{name}` as a `{s}` pointer")),
            );
            self.with_fixes([Fix::replace(format!("Declare `{name}` as a `{s}` pointer"), target_range, s)]);
        }
    }

    /// E1702 for arguments: a call to a function of the unit (one function and its
    /// declarations, not a template, no library function of that name) passes an argument
    /// of known type that does not convert to the parameter's builtin type.
    fn argument_conversions(&mut self, calls: &[SyntaxNode], locals: &TypedLocals) {
        for call in calls.iter().filter_map(|n| ast::CallExpr::cast(n.clone())) {
            let Some(ast::Expr::Path(p)) = call.callee() else { continue };
            if p.is_qualified() || p.template_args().is_some() {
                continue;
            }
            let Some(name) = p.name() else { continue };
            let name = name.text();
            if !self.names_function(name, locals) {
                continue;
            }
            let Some(Some(overloads)) = self.tree.overloads.get(name) else { continue };
            let args: Vec<ast::Expr> = call.args().collect();
            let params = match overloads.as_slice() {
                [one] => &one.params,
                many => {
                    self.overload_mismatch(&p, many, &args, locals);
                    continue;
                }
            };
            if args.len() > params.len() {
                continue;
            }
            for (k, (param, arg)) in params.iter().zip(&args).enumerate() {
                let target = self.resolve(param);
                // references bind rather than convert: not judged here
                if matches!(target, Ty::Reference(_)) || self.fit(&target, arg, locals) != Fit::No {
                    continue;
                }
                let Some(source) = self.expr_ty(arg, locals) else { continue };
                if let Ty::Pointer(t) = &target {
                    match (t.space, self.pointer_space(arg, locals)) {
                        (Some(space), Some(from)) if space != from => {
                            let (space, from) = (space.keyword(), from.keyword());
                            self.report(
                                arg.syntax(),
                                "E1706",
                                format!(
                                    "argument {} of `{name}` points into `{space}` memory, but this pointer points into `{from}` memory",
                                    k + 1
                                ),
                                Some(format!(
                                    "pointers keep their address space: take a `{from}` pointer in `{name}`, or copy the data"
                                )),
                            );
                        }
                        _ if matches!(&source, Ty::Pointer(s) if s.space == t.space) => {
                            self.report(
                                arg.syntax(),
                                "E1702",
                                format!("cannot pass a `{source}` as argument {} of `{name}`, a `{target}`", k + 1),
                                Some("a pointer only converts to a pointer to the same type: cast it if the memory really holds that type".into()),
                            );
                        }
                        _ => {}
                    }
                    continue;
                }
                self.report(
                    arg.syntax(),
                    "E1702",
                    format!("cannot pass {} as argument {} of `{name}`, a `{target}`", source.described(), k + 1),
                    Some(format!("convert explicitly: `{target}(...)`, or select components")),
                );
                self.with_fixes(conversion_fixes(&target, &source, arg));
            }
        }
    }

    /// E1710: a call to a name with several overloads in the unit, none of which takes the
    /// arguments (though some take that many: other counts are E1403's).
    fn overload_mismatch(
        &mut self,
        callee: &ast::PathExpr,
        overloads: &[crate::Overload],
        args: &[ast::Expr],
        locals: &TypedLocals,
    ) {
        if !matches!(self.select_overload(overloads, args, locals), Selection::NoneFits) {
            return;
        }
        let Some(name) = callee.name() else { return };
        let types: Vec<String> =
            args.iter().map(|a| self.expr_ty(a, locals).map_or_else(|| "_".to_string(), |t| t.to_string())).collect();
        let candidates: Vec<String> = overloads
            .iter()
            .filter(|o| (o.required..=o.params.len()).contains(&args.len()))
            .map(|o| format!("`{}`", o.signature))
            .collect();
        self.report_range(
            name.text_range(),
            "E1710",
            format!("no overload of `{}` takes ({})", name.text(), types.join(", ")),
            Some(format!("the candidates are {}", candidates.join(", "))),
        );
    }

    /// E1701: component selections (`v.xyz`) on variables of builtin vector type: only
    /// the vector's components, from one of the sets `xyzw` and `rgba`, at most four, none
    /// twice when written, and never the operand of `&`.
    fn swizzles(&mut self, locals: &TypedLocals, members: &[SyntaxNode]) {
        for m in members.iter().filter_map(|n| ast::MemberExpr::cast(n.clone())) {
            if m.is_arrow() || m.template_args().is_some() {
                continue;
            }
            // a variable, a field (`in.position.xyz`), an element, a call's result
            let vector = m.base().and_then(|b| self.expr_ty(&b, locals));
            let Some(Ty::Vector(elem, size, packed)) = vector else { continue };
            let ty = format!("{}{elem}{size}", if packed { "packed_" } else { "" });
            let Some(tok) = m.member() else { continue };
            let written = is_written(m.syntax());
            let addressed = m
                .syntax()
                .parent()
                .and_then(ast::PrefixExpr::cast)
                .is_some_and(|p| p.op_kind().is_some_and(|k| k == SyntaxKind::AMP));
            if let Err(message) = check_swizzle(tok.text(), &ty, size, written, addressed) {
                let hint = match message.1 {
                    SwizzleProblem::Range => Some(format!("`{ty}` has {}", component_list(size))),
                    SwizzleProblem::Mixed => Some("use one set: `.xyzw` or `.rgba`".into()),
                    SwizzleProblem::Duplicate => Some("write each component once".into()),
                    SwizzleProblem::Address => Some("copy the components into a variable and take its address".into()),
                    SwizzleProblem::Length | SwizzleProblem::Unknown => None,
                };
                self.report_range(tok.text_range(), "E1701", message.0, hint);
            }
        }
    }

    // ---- address spaces ------------------------------------------------------------------

    /// E1603 (a `threadgroup` variable outside a kernel, mesh or object function) and
    /// W1604 (a kernel's threadgroup variables over 32 KB).
    /// E1606: a `static` local of a kernel, vertex or fragment function that is not
    /// `constant` (MSL 4.1 section 5.3: `static` is for program-scope variables).
    fn static_locals(&mut self, root: &SyntaxNode, vars: &[SyntaxNode]) {
        let Some(f) = ast::Function::cast(root.clone()) else { return };
        if f.stage().is_none() {
            return;
        }
        for v in vars.iter().filter_map(|n| ast::VarDecl::cast(n.clone())) {
            let Some(spec) = v.decl_specifiers() else { continue };
            if !spec.has(SyntaxKind::STATIC_KW)
                || spec.has(SyntaxKind::CONSTANT_KW)
                || spec.has(SyntaxKind::CONSTEXPR_KW)
            {
                continue;
            }
            let Some(t) = spec.syntax().children_with_tokens().find(|e| e.kind() == SyntaxKind::STATIC_KW) else {
                continue;
            };
            self.report_range(
                t.text_range(),
                "E1606",
                "a kernel, vertex or fragment function cannot declare `static` variables".into(),
                Some("make it a program-scope `constant`, or a plain local variable".into()),
            );
        }
    }

    fn threadgroup_variables(&mut self, root: &SyntaxNode, vars: &[SyntaxNode]) {
        let Some(f) = ast::Function::cast(root.clone()) else { return };
        let stage = f.stage();
        let kernel_like =
            matches!(stage, Some(Stage::Kernel)) || has_stage_attribute(&f, &["kernel", "mesh", "object"]);
        let mut total: u64 = 0;
        let mut first: Option<TextRange> = None;
        for v in vars.iter().filter_map(|n| ast::VarDecl::cast(n.clone())) {
            let Some(spec) = v.decl_specifiers() else { continue };
            if !spec.has(SyntaxKind::THREADGROUP_KW) {
                continue;
            }
            for d in v.declarators() {
                let Some(decl) = d.declarator() else { continue };
                if decl.ptr_operators().next().is_some() {
                    // a pointer to threadgroup memory, itself a local variable
                    continue;
                }
                let name = d.name().map(|n| n.text()).unwrap_or_default();
                if !kernel_like {
                    self.report(
                        d.syntax(),
                        "E1603",
                        format!("`threadgroup` variable `{name}` declared outside a kernel, mesh or object function"),
                        Some("declare it in the kernel and pass a `threadgroup` pointer to this function".into()),
                    );
                    continue;
                }
                if let Some(size) = self.declared_size(&spec, &decl) {
                    total = total.saturating_add(size);
                    first.get_or_insert(d.syntax().text_range());
                }
            }
        }
        if total > 32 * 1024
            && let Some(range) = first
        {
            self.report_range(
                range,
                "W1604",
                format!("the threadgroup variables of this function take {total} bytes, more than 32 KB"),
                Some(
                    "most GPUs offer 32 KB of threadgroup memory; the pipeline fails to build above the device limit"
                        .into(),
                ),
            );
        }
    }

    /// The size in bytes of a variable of a builtin numeric type (or array of one with
    /// constant sizes), if known.
    fn declared_size(&self, spec: &ast::DeclSpecifiers, decl: &ast::Declarator) -> Option<u64> {
        let ty = match spec.type_spec()? {
            ast::TypeSpec::Builtin(b) => canonical_keywords(&b.text())?,
            ast::TypeSpec::Path(p) => {
                if p.template_args().is_some() {
                    return None;
                }
                let text = p.text();
                let name = self.tree.resolve_alias(strip_metal(&text));
                self.numeric_name(name).or_else(|| atomic_name(name))?
            }
            _ => return None,
        };
        let mut size = numeric_size(&ty)?;
        for suffix in decl.array_suffixes() {
            let n = match suffix.size()? {
                e @ ast::Expr::Literal(_) | e @ ast::Expr::Paren(_) => const_int(&e)?,
                ast::Expr::Path(p) if !p.is_qualified() => *self.tree.int_constants.get(p.name()?.text())?,
                _ => return None,
            };
            size = size.checked_mul(n)?;
        }
        Some(size)
    }

    /// E1601: writing through a pointer or reference to `constant`, or to a program-scope
    /// `constant` variable.
    fn constant_writes(&mut self, root: &SyntaxNode, vars: &[SyntaxNode], writes: &[SyntaxNode], local: &NameCounts) {
        // how many times each name is declared in the function (shadowing makes it unclear)
        let counts = local;
        // names of constant views declared here: true for references
        let mut views: FxHashMap<String, (bool, Option<Visibility>)> = FxHashMap::default();
        // plain variables and parameters declared `const` or `constexpr`
        // (with where it was declared so and the range of the `const` to remove)
        let mut consts: FxHashMap<String, (Option<Visibility>, Option<TextRange>)> = FxHashMap::default();
        each_declaration(root, vars, |spec, decl, name, visibility| {
            let ops: Vec<ast::PtrOperator> = decl.ptr_operators().collect();
            if ops.is_empty()
                && (spec.has(SyntaxKind::CONST_KW) || spec.has(SyntaxKind::CONSTEXPR_KW))
                && decl.param_list().is_none()
            {
                // the keyword and the space after it
                let keyword = spec
                    .syntax()
                    .children_with_tokens()
                    .skip_while(|e| !matches!(e.kind(), SyntaxKind::CONST_KW | SyntaxKind::CONSTEXPR_KW))
                    .take_while(|e| {
                        matches!(e.kind(), SyntaxKind::CONST_KW | SyntaxKind::CONSTEXPR_KW | SyntaxKind::WHITESPACE)
                    })
                    .map(|e| e.text_range())
                    .reduce(|a, b| a.cover(b));
                let single = spec
                    .syntax()
                    .children_with_tokens()
                    .filter(|e| matches!(e.kind(), SyntaxKind::CONST_KW | SyntaxKind::CONSTEXPR_KW))
                    .count()
                    == 1;
                consts.insert(name.clone(), (visibility, keyword.filter(|_| single)));
            }
            let [op] = ops.as_slice() else { return };
            let space = op.address_space().or_else(|| spec.address_space());
            if space.is_some_and(|t| t.kind() == SyntaxKind::CONSTANT_KW) {
                let reference =
                    op.syntax().children_with_tokens().any(|e| matches!(e.kind(), SyntaxKind::AMP | SyntaxKind::AMP2));
                views.insert(name, (reference, visibility));
            }
        });
        for w in writes {
            let target = match ast::Expr::cast(w.clone()) {
                Some(ast::Expr::Bin(b)) if b.op_kind().is_some_and(is_assignment) => b.lhs(),
                Some(ast::Expr::Prefix(p))
                    if p.op_kind().is_some_and(|k| matches!(k, SyntaxKind::PLUS2 | SyntaxKind::MINUS2)) =>
                {
                    p.operand()
                }
                Some(ast::Expr::Postfix(p))
                    if p.op_kind().is_some_and(|k| matches!(k, SyntaxKind::PLUS2 | SyntaxKind::MINUS2)) =>
                {
                    p.operand()
                }
                _ => None,
            };
            let Some(target) = target else { continue };
            let Some((name, derefs)) = write_root(&target) else { continue };
            let declared_here = counts.get(&name).copied().unwrap_or(0);
            if let Some(&(visibility, keyword)) = consts.get(&name)
                && !self.context.template
                && declared_here == 1
                && visibility.is_none_or(|v| v.covers(target.syntax().text_range()))
                && matches!(strip_parens(&target), Some(ast::Expr::Path(_)))
            {
                self.report(
                    target.syntax(),
                    "E1704",
                    format!("cannot assign to `{name}`: it is declared `const`"),
                    Some("declare it without `const`, or put the new value in another variable".into()),
                );
                if let Some(range) = keyword {
                    self.with_fixes([Fix::replace(format!("Declare `{name}` without `const`"), range, "")]);
                }
                continue;
            }
            // the written memory is the view's own only with exactly the dereferences of
            // the view itself; a pointer stored in constant memory may point anywhere
            let what = if let Some(&(reference, visibility)) = views.get(&name) {
                if declared_here != 1
                    || derefs != usize::from(!reference)
                    || visibility.is_some_and(|v| !v.covers(target.syntax().text_range()))
                {
                    continue;
                }
                if reference { "refers to" } else { "points to" }
            } else if self.tree.constants.contains(&name)
                && declared_here == 0
                && !local.contains_key(&name)
                && !self.context.member
                && derefs == 0
            {
                "is in"
            } else {
                continue;
            };
            let verb = if what == "is in" { "assign to" } else { "write through" };
            self.report(
                target.syntax(),
                "E1601",
                format!("cannot {verb} `{name}`: it {what} the `constant` address space, which is read-only"),
                Some("write through a `device` pointer, or copy the value into a local variable".into()),
            );
        }
    }

    /// E1705: a vector constructed from several arguments whose components do not add up
    /// to its size. A single argument is never reported: one scalar is replicated, and the
    /// compiler also accepts one vector of another size (`float3(v4)` keeps `xyz`).
    fn vector_constructions(
        &mut self,
        calls: &[SyntaxNode],
        constructs: &[SyntaxNode],
        locals: &TypedLocals,
        local: &NameCounts,
    ) {
        for node in calls.iter().chain(constructs) {
            let (target, args): (Ty, Vec<ast::Expr>) = match ast::Expr::cast(node.clone()) {
                Some(ast::Expr::Call(c)) => {
                    let Some(ast::Expr::Path(p)) = c.callee() else { continue };
                    let text = p.text();
                    let Some(name) = p.name() else { continue };
                    if p.template_args().is_some()
                        || !(text == strip_metal(&text) || text.starts_with("metal::"))
                        || local.contains_key(name.text())
                        || self.tree.declared.contains(name.text())
                    {
                        continue;
                    }
                    let Some(ty) = self.named_ty(&text) else { continue };
                    (ty, c.args().collect())
                }
                // `float4{...}` is list-initialization: not these rules
                Some(ast::Expr::Construct(c)) if !c.syntax().children().any(|n| n.kind() == SyntaxKind::INIT_LIST) => {
                    let Some(ty) = c.ty().and_then(|t| self.type_id_ty(&t)) else { continue };
                    (ty, c.args().collect())
                }
                _ => continue,
            };
            let Some(arg_tys) = args.iter().map(|a| self.expr_ty(a, locals)).collect::<Option<Vec<Ty>>>() else {
                continue;
            };
            let size = match target {
                Ty::Vector(_, size, _) => size,
                Ty::Matrix(elem, columns, rows) => {
                    self.matrix_construction(node, &target, (elem, columns, rows), &arg_tys);
                    continue;
                }
                _ => continue,
            };
            let components = |t: &Ty| match t {
                Ty::Scalar(_) => Some(1),
                Ty::Vector(_, n, _) => Some(*n),
                _ => None,
            };
            let Some(counts) = arg_tys.iter().map(components).collect::<Option<Vec<usize>>>() else { continue };
            let given: usize = counts.iter().sum();
            let fine = arg_tys.len() < 2 || given == size;
            if !fine {
                let parts = arg_tys.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
                self.report(
                    node,
                    "E1705",
                    format!("`{target}` has {size} components; the arguments ({parts}) give {given}"),
                    Some(if given > size {
                        "select the components you need (`.xyz`) or drop arguments".into()
                    } else {
                        "pass the missing components, or one scalar for all of them".into()
                    }),
                );
            }
        }
    }

    /// E1711: a matrix built from arguments that fit none of its constructors: one scalar
    /// (the diagonal), one matrix of the same shape, one vector per column with a
    /// component per row, or a scalar per element. Arguments of types that are not known
    /// are never judged. The tuple is `target`'s element type, columns and rows.
    fn matrix_construction(
        &mut self,
        node: &SyntaxNode,
        target: &Ty,
        (elem, columns, rows): (&str, usize, usize),
        args: &[Ty],
    ) {
        // a struct may convert to a matrix, a vector or a scalar; an enum to a scalar
        if !args.iter().all(Ty::is_numeric) {
            return;
        }
        let fits = match args {
            [] | [Ty::Scalar(_)] => true,
            [Ty::Matrix(_, c, r)] => *c == columns && *r == rows,
            [_] => false,
            many if many.iter().all(|a| matches!(a, Ty::Vector(..))) => {
                many.len() == columns && many.iter().all(|a| matches!(a, Ty::Vector(_, n, _) if *n == rows))
            }
            many if many.iter().all(|a| matches!(a, Ty::Scalar(_))) => many.len() == columns * rows,
            _ => false,
        };
        if fits {
            return;
        }
        let parts = args.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
        self.report(
            node,
            "E1711",
            format!("no constructor of `{target}` takes ({parts})"),
            Some(format!(
                "a `{target}` is built from one scalar (its diagonal), a matrix of the same shape, {columns} `{elem}{rows}` columns, or {} scalars",
                columns * rows
            )),
        );
    }

    /// E1709: a brace initializer with more values than the array or struct it
    /// initializes holds. Only where braces cannot be left out inside: arrays of scalars
    /// or pointers with a literal bound, and aggregates whose fields are all scalars,
    /// pointers or enums.
    fn initializer_counts(&mut self, locals: &TypedLocals, vars: &[SyntaxNode]) {
        for v in vars.iter().filter_map(|n| ast::VarDecl::cast(n.clone())) {
            let Some(spec) = v.decl_specifiers() else { continue };
            for d in v.declarators() {
                let Some(list) = d.initializer().and_then(|i| i.syntax().children().find_map(ast::InitList::cast))
                else {
                    continue;
                };
                let elements: Vec<ast::Expr> = list.elements().collect();
                let expanded = list.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::DOT3);
                if expanded || elements.iter().any(|e| matches!(e, ast::Expr::Designated(_))) {
                    continue;
                }
                let target = self.declarator_ty(&spec, &d, locals);
                let flat = |t: &Ty| matches!(t, Ty::Scalar(_) | Ty::Pointer(_) | Ty::Enum(_));
                let (what, capacity) = match &target {
                    Ty::Array(elem, Some(n)) if flat(elem) => ("elements", *n as usize),
                    Ty::Struct(s) if self.is_aggregate(s) => {
                        let Some(fields) = self.tree.fields.get(s) else { continue };
                        let data: Vec<&TypeRef> =
                            fields.iter().filter(|(k, _)| !k.ends_with("()")).map(|(_, t)| t).collect();
                        if !data.iter().all(|t| flat(&self.resolve(t))) {
                            continue;
                        }
                        ("fields", data.len())
                    }
                    _ => continue,
                };
                if elements.len() <= capacity {
                    continue;
                }
                let Some(extra) = elements.get(capacity) else { continue };
                let name = d.name().map(|n| n.text()).unwrap_or_default();
                self.report(
                    extra.syntax(),
                    "E1709",
                    format!(
                        "`{name}` (a `{target}`) has {capacity} {what}, but the initializer lists {}",
                        elements.len()
                    ),
                    Some(if what == "elements" {
                        "remove the extra values, or make the array larger".into()
                    } else {
                        "remove the extra values, or add the fields they are meant for".into()
                    }),
                );
            }
        }
    }

    /// E1707: `.` on a pointer, or `->` on a struct or vector value (outside templates).
    fn member_operators(&mut self, locals: &TypedLocals, members: &[SyntaxNode]) {
        if self.context.template {
            return;
        }
        for m in members.iter().filter_map(|n| ast::MemberExpr::cast(n.clone())) {
            let (Some(op), Some(base), Some(member)) = (m.op(), m.base(), m.member()) else { continue };
            let Some(ty) = self.expr_ty(&base, locals) else { continue };
            let member = member.text();
            if m.is_arrow() {
                let wrong = match &ty {
                    // a class may define `operator->`
                    Ty::Struct(s) => !self.has_operators(s),
                    Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) => true,
                    _ => false,
                };
                if wrong {
                    self.report_range(
                        op.text_range(),
                        "E1707",
                        format!("`->` needs a pointer, but this is a `{ty}`"),
                        Some(format!("reach the member with `.`: `.{member}`")),
                    );
                    self.with_fixes([Fix::replace("Use `.`".into(), op.text_range(), ".")]);
                }
            } else if let Ty::Pointer(_) = ty {
                self.report_range(
                    op.text_range(),
                    "E1707",
                    format!("`.` cannot reach a member through a pointer (a `{ty}`)"),
                    Some(format!("use `->{member}`, or index first: `[i].{member}`")),
                );
                self.with_fixes([Fix::replace("Use `->`".into(), op.text_range(), "->")]);
            }
        }
    }

    // ---- library calls -------------------------------------------------------------------

    /// E1708: a library function called with vectors whose sizes none of its overloads
    /// takes (`dot(float3, float4)`); see `Stdlib::call_rejects`. Outside templates, for
    /// names the function and the unit do not declare themselves.
    fn library_arguments(&mut self, calls: &[SyntaxNode], locals: &TypedLocals, local: &NameCounts) {
        if self.context.template {
            return;
        }
        for call in calls.iter().filter_map(|n| ast::CallExpr::cast(n.clone())) {
            let Some(ast::Expr::Path(p)) = call.callee() else { continue };
            let text = p.text();
            let in_metal = text.strip_prefix("metal::").is_some_and(|rest| !rest.contains("::"));
            if p.template_args().is_some() || (p.is_qualified() && !in_metal) {
                continue;
            }
            let Some(name_tok) = p.name() else { continue };
            let name = name_tok.text();
            if local.contains_key(name) || self.tree.declared.contains(name) || self.tree.types.contains(name) {
                continue;
            }
            let args: Vec<Option<String>> = call
                .args()
                .map(|a| match self.expr_ty(&a, locals) {
                    Some(t @ (Ty::Scalar(_) | Ty::Vector(..))) => Some(t.unpacked().to_string()),
                    _ => None,
                })
                .collect();
            // only vectors can be held against an overload
            if !args.iter().flatten().any(|a| a.ends_with(|c: char| c.is_ascii_digit())) {
                continue;
            }
            let refs: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
            let Some(signatures) = self.lib.call_rejects(name, &refs) else { continue };
            let shown = args.iter().map(|a| format!("`{}`", a.as_deref().unwrap_or("?"))).collect::<Vec<_>>();
            let tried: Vec<&str> = signatures.iter().take(3).copied().collect();
            self.report_range(
                name_tok.text_range(),
                "E1708",
                format!("no overload of `{name}` takes ({})", shown.join(", ")),
                Some(format!(
                    "vectors keep their size: {}; select or build vectors of matching size",
                    tried.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
                )),
            );
        }
    }

    /// E1402: a library function called with a number of arguments none of its overloads
    /// takes (the unit does not declare a function of that name itself).
    fn call_arity(&mut self, node: &SyntaxNode, local: &NameCounts) {
        let Some(call) = ast::CallExpr::cast(node.clone()) else { return };
        let Some(ast::Expr::Path(path)) = call.callee() else { return };
        let Some(name_tok) = path.name() else { return };
        let name = name_tok.text();
        let text = path.text();
        if path.is_qualified() && !matches!(strip_metal(&text).rsplit_once("::"), None | Some(("fast" | "precise", _)))
        {
            return;
        }
        if local.contains_key(name) || self.tree.types.contains(name) || self.tree.typedefs.contains_key(name) {
            return;
        }
        if self.tree.declared.contains(name) {
            if self.lib.lookup(name).is_empty() && !path.is_qualified() {
                self.user_call_arity(&call, &name_tok);
            }
            return;
        }
        // a type of the same name makes the call a construction; enumerators and members
        // of the same name cannot be called
        let entries = self.lib.lookup(name);
        if !entries.iter().any(|e| matches!(e, Entry::Function(_)))
            || entries.iter().any(|e| matches!(e, Entry::Type(_)))
        {
            return;
        }
        // argument packs expand to any number of arguments
        if call.args().any(|a| matches!(a, ast::Expr::Pack(_))) {
            return;
        }
        let given = call.args().count();
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let mut sigs: Vec<&'static str> = Vec::new();
        for f in self.lib.functions(name) {
            for o in f.overloads {
                let Some(range) = arity(o.sig, name) else { return };
                ranges.push(range);
                sigs.push(o.sig);
            }
        }
        if ranges.is_empty() || ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&given)) {
            return;
        }
        let mut counts: Vec<usize> = ranges.iter().flat_map(|&(lo, hi)| lo..=hi.min(lo + 8)).collect();
        counts.sort_unstable();
        counts.dedup();
        let expected = match counts.as_slice() {
            [one] => format!("{one} argument{}", if *one == 1 { "" } else { "s" }),
            many => {
                let (last, rest) = many.split_last().expect("at least two counts");
                format!("{} or {last} arguments", rest.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "))
            }
        };
        let closest = sigs
            .iter()
            .zip(&ranges)
            .min_by_key(|(_, (lo, hi))| if given < *lo { lo - given } else { given.saturating_sub(*hi) })
            .map(|(s, _)| *s);
        self.report_range(
            name_tok.text_range(),
            "E1402",
            format!("`{name}` takes {expected}, but {given} {} given", if given == 1 { "was" } else { "were" }),
            closest.map(|s| format!("for example `{s}`")),
        );
    }

    /// E1403: a call to a function of the unit with a number of arguments none of the
    /// unit's functions of that name takes. Only when every declaration of the name is a
    /// function and every header of the unit is known.
    fn user_call_arity(&mut self, call: &ast::CallExpr, name_tok: &msl_syntax::SyntaxToken) {
        let name = name_tok.text();
        if !self.unit_complete || self.context.member_with_bases || self.tree.value_names.contains(name) {
            return;
        }
        if call.args().any(|a| matches!(a, ast::Expr::Pack(_))) {
            return;
        }
        let overloads: Vec<&crate::FunctionItem> =
            self.tree.functions.iter().filter(|f| last_segment(&f.name) == name).collect();
        if overloads.is_empty() {
            return;
        }
        let given = call.args().count();
        if overloads.iter().any(|f| (f.arity.0..=f.arity.1).contains(&given)) {
            return;
        }
        let mut counts: Vec<usize> = overloads.iter().flat_map(|f| f.arity.0..=f.arity.1.min(f.arity.0 + 8)).collect();
        counts.sort_unstable();
        counts.dedup();
        let expected = match counts.as_slice() {
            [one] => format!("{one} argument{}", if *one == 1 { "" } else { "s" }),
            many => {
                let (last, rest) = many.split_last().expect("at least two counts");
                format!("{} or {last} arguments", rest.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "))
            }
        };
        // in a template the call is only compiled when the template is instantiated (and
        // argument-dependent lookup may then find other overloads): a warning
        let code = if self.context.template { "W1404" } else { "E1403" };
        self.report_range(
            name_tok.text_range(),
            code,
            format!("`{name}` takes {expected}, but {given} {} given", if given == 1 { "was" } else { "were" }),
            overloads.first().map(|f| format!("declared as `{}`", f.signature.trim())),
        );
    }

    // ---- textures ----------------------------------------------------------------------

    /// E1501 (a texture member its access does not allow) and E1502 (sampling without a
    /// sampler) on `t.member(...)` where `t` is a texture parameter (declared once, by value
    /// or reference) whose access is known: written, or the type's default.
    fn texture_call(&mut self, node: &SyntaxNode, locals: &TypedLocals) {
        let Some(call) = ast::CallExpr::cast(node.clone()) else { return };
        let Some(ast::Expr::Member(member)) = call.callee() else { return };
        if member.is_arrow() {
            return;
        }
        let Some(ast::Expr::Path(base)) = member.base() else { return };
        if base.is_qualified() {
            return;
        }
        let Some(var) = base.name() else { return };
        let Some(param) = locals.get(var.text(), base.syntax().text_range()).filter(|l| l.is_parameter()) else {
            return;
        };
        let Ty::Texture(texture) = param.ty.clone().value() else { return };
        let (ty, Some(access)) = (texture.kind, texture.access) else { return };
        let Some(name_tok) = member.member() else { return };
        let method = name_tok.text();
        let methods: Vec<&msl_stdlib::Method> = self.lib.method(&ty, method).collect();
        if methods.is_empty() {
            return;
        }
        let allowed =
            methods.iter().flat_map(|m| m.overloads).any(|o| o.access.is_empty() || o.access.contains(&access));
        if !allowed {
            let mut accesses: Vec<&str> =
                methods.iter().flat_map(|m| m.overloads).flat_map(|o| o.access.iter().copied()).collect();
            accesses.sort_unstable();
            accesses.dedup();
            let list = accesses.iter().map(|a| format!("`access::{a}`")).collect::<Vec<_>>().join(" or ");
            self.report_range(
                name_tok.text_range(),
                "E1501",
                format!("`{method}` is not available on `{}`, a `{ty}` with `access::{access}`", var.text()),
                Some(format!("declare the texture with {list}")),
            );
            return;
        }
        let samples = matches!(
            method,
            "sample"
                | "sample_compare"
                | "gather"
                | "gather_compare"
                | "sparse_sample"
                | "sparse_sample_compare"
                | "sparse_gather"
                | "sparse_gather_compare"
        );
        if samples && call.args().count() < 2 {
            self.report_range(
                name_tok.text_range(),
                "E1502",
                format!("`{method}` needs a sampler as its first argument, then the coordinate"),
                Some(format!("pass a `sampler`: `{}.{method}(s, coord)`", var.text())),
            );
        }
    }

    // ---- entry points -------------------------------------------------------------------

    fn entry_point(&mut self, f: &ast::Function, stage: Stage) {
        let stage_name = match stage {
            Stage::Kernel => "kernel",
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
            Stage::Other => "entry-point",
        };
        if stage == Stage::Kernel {
            self.returns_void(f, "kernel");
        }
        let Some(params) = f.param_list() else { return };
        let mut stage_in: Option<SyntaxNode> = None;
        let mut bindings: FxHashMap<(&'static str, u64), String> = FxHashMap::default();
        for param in params.params() {
            let attrs: Vec<ast::Attribute> =
                param.attribute_lists().flat_map(|l| l.attributes().collect::<Vec<_>>()).collect();
            let names: Vec<String> = attrs.iter().filter_map(|a| a.name()).collect();
            let pname = param.name().map(|n| n.text()).unwrap_or_else(|| "parameter".into());
            let ty = self.param_type(&param);
            match &ty {
                ParamType::Indirect { has_address_space: false } => {
                    let node = param.declarator().map(|d| d.syntax().clone()).unwrap_or_else(|| param.syntax().clone());
                    self.report(
                        &node,
                        "E1107",
                        format!("`{pname}` is a pointer or reference parameter of a {stage_name} function without an address space"),
                        Some("write `device`, `constant` or `threadgroup` before its type, e.g. `device float *data`".into()),
                    );
                    if let Some(spec) = param.decl_specifiers() {
                        let at = TextRange::empty(spec.syntax().text_range().start());
                        self.with_fixes(["device", "constant", "threadgroup"].map(|space| {
                            Fix::replace(format!("Add the `{space}` address space"), at, format!("{space} "))
                        }));
                    }
                }
                ParamType::Indirect { has_address_space: true }
                    if indirect_space(&param).as_deref() == Some("thread") =>
                {
                    let at = param
                        .syntax()
                        .descendants_with_tokens()
                        .filter_map(|e| e.into_token())
                        .find(|t| t.kind() == SyntaxKind::THREAD_KW)
                        .map_or_else(|| param.syntax().text_range(), |t| t.text_range());
                    self.report_range(
                        at,
                        "E1110",
                        format!("`{pname}` points into the `thread` address space, which a {stage_name} function cannot receive"),
                        Some(match stage {
                            Stage::Kernel => "use `device` or `constant` for a buffer (or `threadgroup` for threadgroup memory)".into(),
                            _ => "use `device` or `constant` for a buffer".into(),
                        }),
                    );
                }
                ParamType::Numeric(t) if attrs.is_empty() => {
                    self.report(
                        param.syntax(),
                        "E1108",
                        format!("`{pname}` ({t}) needs an attribute saying what the {stage_name} function receives in it"),
                        Some(match stage {
                            Stage::Kernel => "for example `[[thread_position_in_grid]]`, or pass it in a buffer: `constant uint &n [[buffer(0)]]`".into(),
                            Stage::Vertex => "for example `[[vertex_id]]` or `[[instance_id]]`, or pass it in a buffer".into(),
                            _ => "for example `[[position]]`, or pass it in a buffer".into(),
                        }),
                    );
                    if let Some(decl) = param.declarator() {
                        let at = TextRange::empty(decl.syntax().text_range().end());
                        let fits = |attr: &str| {
                            self.lib.attributes_named(attr).any(|d| d.types.iter().any(|allowed| allowed == t))
                        };
                        let attrs: &[&str] = match stage {
                            Stage::Kernel => &[
                                "thread_position_in_grid",
                                "thread_position_in_threadgroup",
                                "threadgroup_position_in_grid",
                            ],
                            Stage::Vertex => &["vertex_id", "instance_id"],
                            _ => &[],
                        };
                        let fixes: Vec<Fix> = attrs
                            .iter()
                            .filter(|a| fits(a))
                            .map(|a| Fix::replace(format!("Add `[[{a}]]`"), at, format!(" [[{a}]]")))
                            .collect();
                        self.with_fixes(fixes);
                    }
                }
                ParamType::Numeric(t) if matches!(t.as_str(), "size_t" | "ptrdiff_t") => {
                    self.report(
                        param.syntax(),
                        "E1109",
                        format!("`{pname}` has type `{t}`, which entry-point arguments cannot have"),
                        Some("use `uint` or `ulong`".into()),
                    );
                }
                _ => {}
            }
            let has_function_constant = names.iter().any(|n| n == "function_constant");
            for (attr, name) in attrs.iter().zip(&names) {
                if name == "stage_in" {
                    if stage_in.is_some() {
                        self.report(
                            attr.syntax(),
                            "E1105",
                            format!("a {stage_name} function can have only one `[[stage_in]]` parameter"),
                            Some("put all per-vertex or per-fragment inputs in one struct".into()),
                        );
                    } else {
                        stage_in = Some(param.syntax().clone());
                    }
                }
                self.attribute_on_param(attr, name, stage, stage_name, &ty, &param);
                if !has_function_constant
                    && let Some(class) = binding_class(name)
                    && let Some(index) = attr.args().and_then(|a| a.exprs().next()).and_then(|e| const_int(&e))
                {
                    if let Some(prev) = bindings.get(&(class, index)) {
                        self.report(
                            attr.syntax(),
                            "E1104",
                            format!("`[[{class}({index})]]` is already used by `{prev}` in this function"),
                            Some(format!("give `{pname}` a different {class} index")),
                        );
                    } else {
                        bindings.insert((class, index), pname.clone());
                    }
                }
            }
        }
    }

    /// E1401: a default argument that names a parameter of its function ([dcl.fct.default]/9:
    /// parameters are not values when the default is evaluated), outside `sizeof` and
    /// `decltype`.
    fn defaults_naming_parameters(&mut self, f: &ast::Function) {
        let Some(list) = f.param_list() else { return };
        let params: Vec<ast::Param> = list.params().collect();
        let names: Vec<String> = params.iter().filter_map(|p| p.name().map(|n| n.text())).collect();
        for p in &params {
            let Some(eq) = p.syntax().children_with_tokens().find(|e| e.kind() == SyntaxKind::EQ) else { continue };
            let after = eq.text_range().end();
            for path in p.syntax().descendants().filter_map(ast::PathExpr::cast) {
                if path.syntax().text_range().start() < after || path.is_qualified() {
                    continue;
                }
                let Some(tok) = path.name() else { continue };
                let unevaluated = path.syntax().ancestors().any(|a| {
                    matches!(
                        a.kind(),
                        SyntaxKind::SIZEOF_EXPR
                            | SyntaxKind::DECLTYPE_TYPE
                            | SyntaxKind::DECLTYPE_EXPR
                            | SyntaxKind::LAMBDA_EXPR
                    )
                });
                if unevaluated || !names.iter().any(|n| n == tok.text()) {
                    continue;
                }
                self.report_range(
                    tok.text_range(),
                    "E1401",
                    format!("a default argument cannot use the parameter `{}`", tok.text()),
                    Some("give the default as a constant, or compute it in the body from a sentinel value".into()),
                );
            }
        }
    }

    /// E1111: `[[early_fragment_tests]]` on a function that is not a fragment function;
    /// E1112: a `[[post_depth_coverage]]` input of a fragment function without it (MSL 4.1
    /// sections 5.1.2 and 5.2.3.4).
    fn early_fragment_tests(&mut self, f: &ast::Function, stage: Option<Stage>) {
        let early = f
            .attribute_lists()
            .flat_map(|l| l.attributes().collect::<Vec<_>>())
            .find(|a| a.name().as_deref() == Some("early_fragment_tests"));
        match (&early, stage) {
            (Some(_), Some(Stage::Fragment)) => {}
            (Some(a), _) => {
                let what = match stage {
                    Some(Stage::Kernel) => "a kernel function",
                    Some(Stage::Vertex) => "a vertex function",
                    Some(_) => "this kind of function",
                    None => "a function that is no entry point",
                };
                self.report(
                    a.syntax(),
                    "E1111",
                    format!("`[[early_fragment_tests]]` applies only to fragment functions, not to {what}"),
                    Some("remove the attribute: depth and stencil tests run only for fragments".into()),
                );
            }
            (None, Some(Stage::Fragment)) => {
                let Some(params) = f.param_list() else { return };
                for a in
                    params.params().flat_map(|p| p.attribute_lists()).flat_map(|l| l.attributes().collect::<Vec<_>>())
                {
                    if a.name().as_deref() == Some("post_depth_coverage") {
                        self.report(
                            a.syntax(),
                            "E1112",
                            "`[[post_depth_coverage]]` needs the fragment function to be declared `[[early_fragment_tests]]`".into(),
                            Some("add `[[early_fragment_tests]]` before `fragment`".into()),
                        );
                    }
                }
            }
            (None, _) => {}
        }
    }

    /// The mesh pipeline's object and mesh functions (MSL 4.1 sections 5.1.7 and 5.1.8):
    /// E1106, they return `void`; E1105, an object function exports one `[[payload]]`.
    fn mesh_pipeline_function(&mut self, f: &ast::Function) {
        let kind = f.attribute_lists().flat_map(|l| l.attributes().collect::<Vec<_>>()).find_map(|a| {
            match a.name().as_deref() {
                Some("mesh") => Some("mesh"),
                Some("object") => Some("object"),
                _ => None,
            }
        });
        let Some(kind) = kind else { return };
        self.returns_void(f, kind);
        if kind != "object" {
            return;
        }
        let Some(params) = f.param_list() else { return };
        let payloads: Vec<ast::Attribute> = params
            .params()
            .flat_map(|p| p.attribute_lists().flat_map(|l| l.attributes().collect::<Vec<_>>()).collect::<Vec<_>>())
            .filter(|a| a.name().as_deref() == Some("payload"))
            .collect();
        for extra in payloads.iter().skip(1) {
            self.report(
                extra.syntax(),
                "E1105",
                "an object function can have only one `[[payload]]` parameter".to_string(),
                Some("put everything the object function passes to its mesh functions in one struct".into()),
            );
        }
    }

    fn returns_void(&mut self, f: &ast::Function, kind: &str) {
        let Some(spec) = f.decl_specifiers() else { return };
        let Some(decl) = f.declarator() else { return };
        let pointer = decl.ptr_operators().next().is_some();
        let ty = match spec.type_spec() {
            Some(ast::TypeSpec::Builtin(b)) => b.text(),
            Some(ast::TypeSpec::Path(p)) => {
                let text = p.text();
                let resolved = self.tree.resolve_alias(strip_metal(&text)).to_string();
                if resolved.is_empty() || self.tree.types.contains(&resolved) || !self.known_name(&resolved) {
                    // a type we cannot see through, or a user type: report it only if it
                    // is certainly not void
                    if self.tree.types.contains(&resolved) { resolved } else { return }
                } else {
                    resolved
                }
            }
            _ => return,
        };
        if ty != "void" || pointer {
            let shown = if pointer { format!("{ty} *") } else { ty };
            self.report(
                spec.syntax(),
                "E1106",
                format!("{kind} functions must return `void`, not `{shown}`"),
                Some(if kind == "kernel" {
                    "return `void` and write results to a `device` buffer".into()
                } else {
                    "return `void`: a mesh function passes its geometry through its `mesh<...>` parameter, an object function its payload through its `[[payload]]` parameter".into()
                }),
            );
            if !pointer && let Some(t) = spec.type_spec() {
                self.with_fixes([Fix::replace("Return `void`".into(), t.syntax().text_range(), "void")]);
            }
        }
    }

    /// Whether a type name is known for sure: a builtin type or one the unit declares.
    fn known_name(&self, name: &str) -> bool {
        self.tree.types.contains(name) || is_builtin_type_word(name) || self.lib.type_named(name).is_some()
    }

    fn param_type(&self, p: &ast::Param) -> ParamType {
        let Some(spec) = p.decl_specifiers() else { return ParamType::Other };
        let decl = p.declarator();
        if let Some(d) = &decl {
            if d.array_suffixes().next().is_some() {
                return ParamType::Other;
            }
            if d.ptr_operators().next().is_some() {
                let has = spec.address_space().is_some() || d.ptr_operators().any(|op| op.address_space().is_some());
                return ParamType::Indirect { has_address_space: has };
            }
        }
        match spec.type_spec() {
            Some(ast::TypeSpec::Builtin(b)) => match canonical_keywords(&b.text()) {
                Some(name) if name != "void" => ParamType::Numeric(name),
                _ => ParamType::Other,
            },
            Some(ast::TypeSpec::Path(p)) => {
                if p.template_args().is_some() {
                    return ParamType::Other;
                }
                let text = p.text();
                let resolved = self.tree.resolve_alias(strip_metal(&text));
                match self.numeric_name(resolved) {
                    Some(n) => ParamType::Numeric(n),
                    None => ParamType::Other,
                }
            }
            _ => ParamType::Other,
        }
    }

    /// The canonical builtin scalar or vector name for `name`, following the library's
    /// aliases (`uint32_t` is `uint`), when it is one and the unit does not redefine it.
    fn numeric_name(&self, name: &str) -> Option<String> {
        if name.is_empty() || self.tree.types.contains(name) || self.tree.typedefs.contains_key(name) {
            return None;
        }
        if let Some(k) = canonical_keywords(name) {
            return Some(k);
        }
        let mut current = name;
        for _ in 0..4 {
            let t = self.lib.type_named(current)?;
            match t.kind {
                "scalar" | "vector" => match t.alias_of {
                    Some(of) if !of.contains('<') && of != current => current = of,
                    _ => return Some(t.name.to_string()),
                },
                _ => return None,
            }
        }
        None
    }

    fn attribute_on_param(
        &mut self,
        attr: &ast::Attribute,
        name: &str,
        stage: Stage,
        stage_name: &str,
        ty: &ParamType,
        param: &ast::Param,
    ) {
        let pname = param.name().map(|n| n.text()).unwrap_or_else(|| "parameter".into());
        if name.contains("::") {
            return;
        }
        let defs: Vec<&msl_stdlib::AttributeDef> = self.lib.attributes_named(name).collect();
        if defs.is_empty() {
            if is_standard_cpp_attribute(name) {
                return;
            }
            let suggestion = self.closest_attribute(name);
            self.report(
                attr.syntax(),
                "W1101",
                format!("unknown attribute `{name}`; the compiler ignores it"),
                suggestion.map(|s| format!("did you mean `{s}`?")),
            );
            if let (Some(s), Some(tok)) = (suggestion, attr.name_token()) {
                self.with_fixes([Fix::replace(format!("Change to `{s}`"), tok.text_range(), s)]);
            }
            return;
        }
        let position = match stage {
            Stage::Kernel => "kernel_param",
            Stage::Vertex => "vertex_param",
            Stage::Fragment => "fragment_param",
            Stage::Other => return,
        };
        let applicable: Vec<&&msl_stdlib::AttributeDef> =
            defs.iter().filter(|d| d.positions.iter().any(|p| *p == position || *p == "param")).collect();
        if applicable.is_empty() {
            // certain when the attribute is a parameter attribute of other stages (program-
            // scope and struct-member uses do not apply to parameters)
            let param_positions = [
                "kernel_param",
                "vertex_param",
                "fragment_param",
                "mesh_param",
                "object_param",
                "intersection_param",
                "tile_param",
            ];
            let stages: std::collections::BTreeSet<&str> = defs
                .iter()
                .flat_map(|d| d.positions.iter())
                .filter(|p| param_positions.contains(p))
                .map(|p| p.trim_end_matches("_param"))
                .collect();
            if !stages.is_empty() {
                self.report(
                    attr.syntax(),
                    "E1102",
                    format!("`[[{name}]]` cannot be used on a parameter of a {stage_name} function"),
                    Some(format!("it is an input of {} functions", stages.into_iter().collect::<Vec<_>>().join(", "))),
                );
            }
            return;
        }
        if let ParamType::Numeric(t) = ty
            && applicable.iter().all(|d| !d.types.is_empty())
            && !applicable.iter().any(|d| d.types.iter().any(|allowed| allowed == t))
        {
            let allowed: Vec<&str> = applicable.iter().flat_map(|d| d.types.iter().copied()).collect();
            self.report(
                attr.syntax(),
                "E1103",
                format!("`[[{name}]]` cannot be applied to `{pname}` of type `{t}`"),
                Some(format!("declare it as one of: {}", allowed.join(", "))),
            );
            let spec = param.decl_specifiers().and_then(|s| s.type_spec()).map(|t| t.syntax().text_range());
            if let Some(range) = spec {
                let mut seen = FxHashSet::default();
                let fixes: Vec<Fix> = allowed
                    .iter()
                    .filter(|a| seen.insert(**a))
                    .take(3)
                    .map(|a| Fix::replace(format!("Change the type to `{a}`"), range, *a))
                    .collect();
                self.with_fixes(fixes);
            }
        }
    }

    fn closest_attribute(&self, name: &str) -> Option<&'static str> {
        closest(name, msl_stdlib::ATTRIBUTES.iter().map(|a| a.name))
    }

    // ---- C++ features Metal does not have ---------------------------------------------

    /// E1604: a variable of a namespace that is not in the `constant` address space; E1605:
    /// a `constant` one without an initializer (MSL 4.1 section 4.2). Variables with
    /// attributes (built-in inputs and bindings at program scope, Metal 3.1 and later;
    /// function constants), `extern` declarations and definitions of static members are
    /// left alone.
    fn program_scope_variable(&mut self, node: &SyntaxNode) {
        let Some(v) = ast::VarDecl::cast(node.clone()) else { return };
        let Some(spec) = v.decl_specifiers() else { return };
        self.function_constant_type(&v, &spec);
        self.library_enumerators(node);
        // (a declaration the parser could not read whole has its syntax error)
        if node.descendants().any(|n| matches!(n.kind(), SyntaxKind::ATTRIBUTE_LIST | SyntaxKind::ERROR))
            || v.declarators().any(|d| d.initializer().is_some_and(|i| i.expr().is_none()))
            || spec.has(SyntaxKind::EXTERN_KW)
            || spec.has(SyntaxKind::FRIEND_KW)
            || spec.has(SyntaxKind::TYPEDEF_KW)
            // (E1211 says `thread_local` is not supported)
            || spec.has(SyntaxKind::THREAD_LOCAL_KW)
        {
            return;
        }
        let declarators: Vec<ast::InitDeclarator> = v.declarators().collect();
        let plain = |d: &ast::InitDeclarator| {
            d.declarator().is_some_and(|decl| decl.param_list().is_none())
                && d.name().is_some_and(|n| !n.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::COLON2))
        };
        if declarators.is_empty() || !declarators.iter().all(plain) {
            return;
        }
        let constant = spec.has(SyntaxKind::CONSTANT_KW) || spec.has(SyntaxKind::CONSTEXPR_KW);
        if !constant {
            let Some(d) = declarators.first() else { return };
            let name = d.name().map(|n| n.text()).unwrap_or_default();
            let at = d.name().map_or_else(|| d.syntax().text_range(), |n| n.syntax().text_range());
            let space = spec.address_space().map(|t| t.text().to_string());
            let message = match space {
                Some(s) => format!(
                    "`{name}` is declared at program scope in the `{s}` address space; such variables must be `constant`"
                ),
                None => format!("`{name}` is declared at program scope without the `constant` address space"),
            };
            self.report_range(
                at,
                "E1604",
                message,
                Some("declare it `constant` (read-only, initialized here), or pass it to the functions that use it as a buffer".into()),
            );
            return;
        }
        for d in &declarators {
            if d.initializer().is_none() {
                let name = d.name().map(|n| n.text()).unwrap_or_default();
                let at = d.name().map_or_else(|| d.syntax().text_range(), |n| n.syntax().text_range());
                self.report_range(
                    at,
                    "E1605",
                    format!("`constant` variable `{name}` has no initializer"),
                    Some("give it its value where it is declared: nothing can write it later".into()),
                );
            }
        }
    }

    /// E1401 for `E::x` in a program-scope initializer (a `constexpr sampler`'s arguments)
    /// where `E` is a library enum without an enumerator `x` that the unit does not
    /// redeclare.
    fn library_enumerators(&mut self, node: &SyntaxNode) {
        for path in node.descendants().filter_map(ast::PathExpr::cast) {
            let segments: Vec<msl_syntax::SyntaxToken> = path.segments().collect();
            let n = segments.len();
            if !(2..=3).contains(&n) || (n == 3 && segments[0].text() != "metal") || path.text().starts_with("::") {
                continue;
            }
            if path.syntax().descendants().any(|d| d.kind() == SyntaxKind::TEMPLATE_ARG_LIST) {
                continue;
            }
            let (qualifier, name) = (segments[n - 2].text(), segments[n - 1].text());
            if self.tree.declared.contains(qualifier)
                || self.tree.types.contains(qualifier)
                || self.tree.typedefs.contains_key(qualifier)
            {
                continue;
            }
            let Some(missing) = missing_library_enumerator(qualifier, name) else { continue };
            let at = segments[n - 1].text_range();
            self.report_range(at, "E1401", missing.message, Some(missing.hint));
            if let Some(c) = missing.closest {
                self.with_fixes([Fix::replace(format!("Change to `{c}`"), at, c)]);
            }
        }
    }

    /// E1607: a function constant of an array type or of a class of the unit (MSL 4.1
    /// section 5.8.1: only scalars and vectors).
    fn function_constant_type(&mut self, v: &ast::VarDecl, spec: &ast::DeclSpecifiers) {
        let is_constant = v
            .syntax()
            .descendants()
            .filter_map(ast::Attribute::cast)
            .any(|a| a.name().as_deref() == Some("function_constant"));
        if !is_constant {
            return;
        }
        for d in v.declarators() {
            let Some(decl) = d.declarator() else { continue };
            let name = d.name().map(|n| n.text()).unwrap_or_default();
            let at = d.name().map_or_else(|| d.syntax().text_range(), |n| n.syntax().text_range());
            if decl.array_suffixes().next().is_some() {
                self.report_range(
                    at,
                    "E1607",
                    format!("function constant `{name}` is an array; function constants are scalars or vectors"),
                    Some("declare one function constant per element".into()),
                );
                continue;
            }
            if decl.ptr_operators().next().is_some() {
                continue;
            }
            let Some(ast::TypeSpec::Path(p)) = spec.type_spec() else { continue };
            if p.template_args().is_some() {
                continue;
            }
            let text = p.text();
            let written = strip_metal(&text);
            // a class of the unit (not an alias, which may name a scalar or vector)
            if self.tree.types.contains(written)
                && !self.tree.typedefs.contains_key(written)
                && !self.tree.enums.contains(written)
            {
                self.report_range(
                    at,
                    "E1607",
                    format!("function constant `{name}` has the class type `{written}`; function constants are scalars or vectors"),
                    Some("declare a function constant for each member that must be set".into()),
                );
            }
        }
    }

    fn forbidden_node(&mut self, node: &SyntaxNode) {
        if self.version < MetalVersion::V4_0 {
            self.cxx17_feature(node);
        }
        match node.kind() {
            // a function-try-block: `void f() try { ... } catch (...) { ... }`
            SyntaxKind::FUNCTION => {
                if let Some(t) = tokens_of(node).find(|t| t.kind() == SyntaxKind::TRY_KW) {
                    self.report_range(
                        t.text_range(),
                        "E1203",
                        "Metal does not support exceptions (`try`, `catch`, `throw`)".into(),
                        Some("report errors through a return value or an output buffer".into()),
                    );
                }
            }
            SyntaxKind::BASE_SPECIFIER => {
                if let Some(t) = tokens_of(node).find(|t| t.kind() == SyntaxKind::VIRTUAL_KW) {
                    self.report_range(
                        t.text_range(),
                        "E1202",
                        "Metal does not support virtual base classes".into(),
                        Some("derive without `virtual`".into()),
                    );
                }
            }
            // `throw(T)`: a dynamic exception specification (`throw()` alone means `noexcept`)
            SyntaxKind::NOEXCEPT_SPEC
                if tokens_of(node).next().is_some_and(|t| t.kind() == SyntaxKind::THROW_KW)
                    && tokens_of(node).filter(|t| !t.kind().is_trivia()).count() > 3 =>
            {
                self.report(
                    node,
                    "E1203",
                    "Metal does not support exceptions: a function cannot list what it throws".into(),
                    Some("remove the `throw(...)` specification, or write `noexcept`".into()),
                )
            }
            SyntaxKind::NOEXCEPT_EXPR => self.report(
                node,
                "E1210",
                "Metal does not support the `noexcept` operator".into(),
                Some("nothing in Metal throws: the answer would always be `true`".into()),
            ),
            SyntaxKind::GOTO_STMT => self.report(
                node,
                "E1201",
                "Metal does not support `goto`".into(),
                Some("restructure the loop with `break`/`continue` or a flag".into()),
            ),
            SyntaxKind::TRY_STMT | SyntaxKind::THROW_EXPR => self.report(
                node,
                "E1203",
                "Metal does not support exceptions (`try`, `catch`, `throw`)".into(),
                Some("report errors through a return value or an output buffer".into()),
            ),
            SyntaxKind::NEW_EXPR => {
                let placement = ast::NewExpr::cast(node.clone()).and_then(|n| n.placement()).is_some();
                if !placement {
                    self.report(
                        node,
                        "E1204",
                        "Metal has no dynamic allocation: `new` needs a placement address".into(),
                        Some("use placement new, `new (ptr) T`, on memory you own".into()),
                    );
                } else if self.version < MetalVersion::V4_1 {
                    self.report(
                        node,
                        "E1208",
                        format!("placement `new` needs Metal 4.1; this file is checked as Metal {}", self.version),
                        None,
                    );
                }
            }
            SyntaxKind::DELETE_EXPR => {
                self.report(node, "E1204", "Metal has no dynamic allocation: `delete` is not supported".into(), None)
            }
            SyntaxKind::CXX_CAST_EXPR
                if ast::CxxCastExpr::cast(node.clone())
                    .and_then(|c| c.keyword())
                    .is_some_and(|k| k.kind() == SyntaxKind::DYNAMIC_CAST_KW) =>
            {
                self.report(
                    node,
                    "E1205",
                    "Metal does not support `dynamic_cast`".into(),
                    Some("use `static_cast` when the type is known".into()),
                );
            }
            SyntaxKind::TYPEID_EXPR => self.report(node, "E1206", "Metal does not support `typeid`".into(), None),
            SyntaxKind::LAMBDA_EXPR if self.version < MetalVersion::V3_2 => self.report(
                node,
                "E1209",
                format!("lambda expressions need Metal 3.2; this file is checked as Metal {}", self.version),
                Some("raise the version with `--std metal3.2`, or use a function".into()),
            ),
            SyntaxKind::DECL_SPECIFIERS => {
                for tok in tokens_of(node) {
                    match tok.kind() {
                        SyntaxKind::VIRTUAL_KW => self.report_range(
                            tok.text_range(),
                            "E1202",
                            "Metal does not support virtual functions".into(),
                            Some("use templates or function tables (`visible_function_table`)".into()),
                        ),
                        SyntaxKind::REGISTER_KW | SyntaxKind::THREAD_LOCAL_KW => self.report_range(
                            tok.text_range(),
                            "E1211",
                            format!("Metal does not support the `{}` storage class", tok.text()),
                            Some(
                                "remove it: variables of a function already live in the `thread` address space".into(),
                            ),
                        ),
                        _ => {}
                    }
                }
            }
            SyntaxKind::BUILTIN_TYPE => {
                if let Some(tok) = tokens_of(node).find(|t| t.kind() == SyntaxKind::DOUBLE_KW) {
                    self.report_range(
                        tok.text_range(),
                        "E1207",
                        "Metal does not support `double`".into(),
                        Some("use `float`".into()),
                    );
                } else if tokens_of(node).filter(|t| t.kind() == SyntaxKind::LONG_KW).count() > 1 {
                    self.report(
                        node,
                        "E1207",
                        "Metal does not support `long long`".into(),
                        Some("use `long` (64 bits in Metal) or `int64_t`".into()),
                    );
                }
            }
            _ => {}
        }
    }

    /// W1212: a C++17 feature in a file checked as a Metal version before 4.0, whose
    /// language is C++14: Apple's compiler accepts it as an extension, with a warning.
    fn cxx17_feature(&mut self, node: &SyntaxNode) {
        let kind = node.kind();
        let has_token = |k: SyntaxKind| tokens_of(node).any(|t| t.kind() == k);
        let feature = match kind {
            SyntaxKind::BINDING_LIST => "structured bindings",
            SyntaxKind::IF_STMT if has_token(SyntaxKind::CONSTEXPR_KW) => "`if constexpr`",
            SyntaxKind::CONDITION
                if has_token(SyntaxKind::SEMI)
                    && node
                        .parent()
                        .is_some_and(|p| matches!(p.kind(), SyntaxKind::IF_STMT | SyntaxKind::SWITCH_STMT)) =>
            {
                "an init-statement in `if` or `switch`"
            }
            SyntaxKind::FOLD_EXPR => "fold expressions",
            SyntaxKind::DEDUCTION_GUIDE => "deduction guides",
            SyntaxKind::NAMESPACE
                if node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::NAME)
                    .is_some_and(|n| tokens_of(&n).any(|t| t.kind() == SyntaxKind::COLON2)) =>
            {
                "nested namespace definitions"
            }
            SyntaxKind::VAR_DECL
                if node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS)
                    .is_some_and(|d| tokens_of(&d).any(|t| t.kind() == SyntaxKind::INLINE_KW)) =>
            {
                "inline variables"
            }
            SyntaxKind::NON_TYPE_PARAM
                if node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS)
                    .and_then(|d| d.children().find(|c| c.kind() == SyntaxKind::BUILTIN_TYPE))
                    .is_some_and(|b| tokens_of(&b).any(|t| t.kind() == SyntaxKind::AUTO_KW)) =>
            {
                "`auto` template parameters"
            }
            SyntaxKind::STATIC_ASSERT if !has_token(SyntaxKind::COMMA) => "`static_assert` without a message",
            SyntaxKind::USING_DECL if has_token(SyntaxKind::COMMA) => "using-declarations of several names",
            SyntaxKind::TEMPLATE_TEMPLATE_PARAM if has_token(SyntaxKind::TYPENAME_KW) => {
                "`typename` in a template template parameter"
            }
            SyntaxKind::ATTRIBUTE_LIST if has_token(SyntaxKind::USING_KW) => "`using` in an attribute list",
            _ => return,
        };
        self.report_range(
            node.text_range(),
            "W1212",
            format!(
                "C++17 feature under Metal {}: {feature} (standard from Metal 4.0; before that, the compiler \
                 accepts it as an extension)",
                self.version
            ),
            Some("check the file as Metal 4.0 or later (`--std metal4.0`), or avoid the feature".into()),
        );
    }

    // ---- availability -------------------------------------------------------------------

    fn call_availability(&mut self, node: &SyntaxNode, local: &NameCounts) {
        let Some(call) = ast::CallExpr::cast(node.clone()) else { return };
        let Some(ast::Expr::Path(path)) = call.callee() else { return };
        let Some(name_tok) = path.name() else { return };
        let text = path.text();
        let name = name_tok.text();
        let qualified_ok = !path.is_qualified() || strip_metal(&text) == name;
        if !qualified_ok || local.contains_key(name) || self.tree.declared.contains(name) {
            return;
        }
        let functions: Vec<&msl_stdlib::Function> = self.lib.functions(name).collect();
        if functions.is_empty() || self.lib.lookup(name).iter().any(|e| !matches!(e, Entry::Function(_))) {
            return;
        }
        let available = functions.iter().any(|f| {
            f.overloads.iter().any(|o| {
                msl_stdlib::available(o.since.unwrap_or(f.since).max(f.since), f.platforms, self.version, self.platform)
            })
        });
        if !available {
            let needed = functions
                .iter()
                .flat_map(|f| f.overloads.iter().map(move |o| o.since.unwrap_or(f.since).max(f.since)))
                .min()
                .unwrap_or(MetalVersion::LATEST);
            // platform limits in the documentation are not reliable enough to
            // report; versions are, as a warning (compilers accept some uses)
            if needed > self.version {
                self.report_range(
                    name_tok.text_range(),
                    "W1301",
                    format!("`{name}` needs Metal {needed}; this file is checked as Metal {}", self.version),
                    Some(format!("check with `--std metal{needed}` or later if you target that version")),
                );
            }
        }
    }

    fn type_availability(&mut self, node: &SyntaxNode, local: &NameCounts) {
        let Some(pt) = ast::PathType::cast(node.clone()) else { return };
        let segments: Vec<_> = pt.segments().collect();
        let [only] = segments.as_slice() else { return };
        let name = only.text();
        if local.contains_key(name) || self.tree.declared.contains(name) || self.tree.typedefs.contains_key(name) {
            return;
        }
        let Some(t) = self.lib.type_named(name) else { return };
        if !msl_stdlib::available(t.since, t.platforms, self.version, self.platform) && t.since > self.version {
            self.report_range(
                only.text_range(),
                "W1302",
                format!("`{name}` needs Metal {}; this file is checked as Metal {}", t.since, self.version),
                Some(format!("check with `--std metal{}` or later if you target that version", t.since)),
            );
        }
    }
}

/// A namespace and the namespaces enclosing it, innermost first, ending with `""`.
fn enclosing(ns: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(ns);
    std::iter::from_fn(move || {
        let current = next?;
        next = if current.is_empty() { None } else { Some(current.rsplit_once("::").map_or("", |(a, _)| a)) };
        Some(current)
    })
}

/// `buffer`, `texture`, `sampler` or `threadgroup` for binding attributes.
fn binding_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "buffer" => "buffer",
        "texture" => "texture",
        "sampler" => "sampler",
        "threadgroup" => "threadgroup",
        _ => return None,
    })
}

/// The value of an integer literal expression (possibly parenthesised), if it is one.
pub(crate) fn const_int(e: &ast::Expr) -> Option<u64> {
    match e {
        ast::Expr::Literal(l) if l.kind() == Some(ast::LiteralKind::Int) => {
            let text = l.token()?.text().to_ascii_lowercase();
            let digits = text.trim_end_matches(['u', 'l']);
            if let Some(h) = digits.strip_prefix("0x") {
                u64::from_str_radix(h, 16).ok()
            } else if digits.len() > 1 && digits.starts_with('0') {
                u64::from_str_radix(&digits[1..], 8).ok()
            } else {
                digits.parse().ok()
            }
        }
        ast::Expr::Paren(p) => const_int(&p.expr()?),
        _ => None,
    }
}

/// How many times each name is declared in a function (parameters and locals).
type NameCounts = FxHashMap<String, usize>;

/// The tokens directly inside `node`.
fn tokens_of(node: &SyntaxNode) -> impl Iterator<Item = msl_syntax::SyntaxToken> + use<> {
    node.children_with_tokens().filter_map(|e| e.into_token())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SwizzleProblem {
    Unknown,
    Mixed,
    Range,
    Length,
    Duplicate,
    Address,
}

/// Checks a component selection on a vector of `size` components.
fn check_swizzle(
    name: &str,
    ty: &str,
    size: usize,
    written: bool,
    addressed: bool,
) -> Result<(), (String, SwizzleProblem)> {
    const XYZW: &str = "xyzw";
    const RGBA: &str = "rgba";
    let in_set = |set: &str| name.chars().all(|c| set.contains(c));
    let set = if in_set(XYZW) {
        XYZW
    } else if in_set(RGBA) {
        RGBA
    } else if name.chars().all(|c| XYZW.contains(c) || RGBA.contains(c)) {
        return Err((format!("`.{name}` mixes the `xyzw` and `rgba` component names"), SwizzleProblem::Mixed));
    } else {
        return Err((format!("`{ty}` has no member `{name}`"), SwizzleProblem::Unknown));
    };
    if name.len() > 4 {
        return Err((
            format!("`.{name}` selects {} components; a selection has at most 4", name.len()),
            SwizzleProblem::Length,
        ));
    }
    if let Some(c) = name.chars().find(|&c| set.find(c).is_some_and(|i| i >= size)) {
        return Err((format!("`{ty}` has no component `{c}`"), SwizzleProblem::Range));
    }
    if written && name.len() > 1 {
        let mut seen = String::new();
        for c in name.chars() {
            if seen.contains(c) {
                return Err((format!("`.{name}` assigns component `{c}` twice"), SwizzleProblem::Duplicate));
            }
            seen.push(c);
        }
    }
    if addressed && name.len() > 1 {
        return Err(("cannot take the address of a component selection".into(), SwizzleProblem::Address));
    }
    Ok(())
}

/// `x, y and z` for a vector of three components.
fn component_list(size: usize) -> String {
    let names: Vec<String> = "xyzw".chars().take(size).map(|c| c.to_string()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("components {} and {last}", rest.join(", ")),
        _ => "one component".into(),
    }
}

/// Whether an expression is assigned to (the left side of `=` or a compound assignment,
/// or the operand of `++`/`--`).
fn is_written(node: &SyntaxNode) -> bool {
    let Some(parent) = node.parent() else { return false };
    match ast::Expr::cast(parent) {
        Some(ast::Expr::Bin(b)) => {
            b.op_kind().is_some_and(is_assignment) && b.lhs().is_some_and(|l| l.syntax() == node)
        }
        Some(ast::Expr::Prefix(p)) => p.op_kind().is_some_and(|k| matches!(k, SyntaxKind::PLUS2 | SyntaxKind::MINUS2)),
        Some(ast::Expr::Postfix(p)) => p.op_kind().is_some_and(|k| matches!(k, SyntaxKind::PLUS2 | SyntaxKind::MINUS2)),
        Some(ast::Expr::Paren(_)) => node.parent().is_some_and(|p| is_written(&p)),
        _ => false,
    }
}

/// The least and greatest number of arguments a signature accepts (`usize::MAX` for a
/// variadic one), from the parameter list after `name(`.
pub(crate) fn arity(sig: &str, name: &str) -> Option<(usize, usize)> {
    let at = sig.match_indices(name).map(|(i, _)| i + name.len()).find(|&i| sig[i..].starts_with('('))?;
    let list = &sig[at + 1..];
    let mut depth = 0i32;
    let mut params: Vec<String> = vec![String::new()];
    for c in list.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' if depth == 0 => break,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                params.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = params.last_mut() {
            last.push(c);
        }
    }
    let params: Vec<&str> = params.iter().map(|p| p.trim()).filter(|p| !p.is_empty() && *p != "void").collect();
    let variadic = params.last().is_some_and(|p| p.ends_with("..."));
    let fixed = params.len() - usize::from(variadic);
    let defaults = params.iter().filter(|p| p.contains('=')).count();
    Some((fixed - defaults.min(fixed), if variadic { usize::MAX } else { fixed }))
}

fn is_assignment(k: SyntaxKind) -> bool {
    use SyntaxKind::*;
    matches!(k, EQ | PLUSEQ | MINUSEQ | STAREQ | SLASHEQ | PERCENTEQ | AMPEQ | PIPEEQ | CARETEQ | SHLEQ | SHREQ)
}

/// Calls `f` with the specifiers, declarator and name of every parameter of the function
/// `root` (visible everywhere: `None`) and of every declarator of `vars` (with where it is
/// visible). Declarations missing a part, and locals with no scope, are skipped.
fn each_declaration(
    root: &SyntaxNode,
    vars: &[SyntaxNode],
    mut f: impl FnMut(ast::DeclSpecifiers, ast::Declarator, String, Option<Visibility>),
) {
    if let Some(params) = ast::Function::cast(root.clone()).and_then(|f| f.param_list()) {
        for p in params.params() {
            if let (Some(spec), Some(decl), Some(name)) = (p.decl_specifiers(), p.declarator(), p.name()) {
                f(spec, decl, name.text(), None);
            }
        }
    }
    for v in vars.iter().filter_map(|n| ast::VarDecl::cast(n.clone())) {
        for d in v.declarators() {
            if let (Some(spec), Some(decl), Some(name)) = (v.decl_specifiers(), d.declarator(), d.name())
                && let Some(visibility) = visibility_of(decl.syntax())
            {
                f(spec, decl, name.text(), Some(visibility));
            }
        }
    }
}

/// The initializer of `T x = e;` (not braces or parentheses).
fn copy_initializer(d: &ast::InitDeclarator) -> Option<ast::Expr> {
    let init = d.initializer()?;
    init.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::EQ).then(|| init.expr()).flatten()
}

/// `e` when it is a plain name: unqualified, no template arguments.
fn plain_path(e: &ast::Expr) -> Option<&ast::PathExpr> {
    match e {
        ast::Expr::Path(p) if !p.is_qualified() && p.template_args().is_none() => Some(p),
        _ => None,
    }
}

/// Quick fixes for a value of type `source` where a `target` is needed: select the
/// leading components of a longer vector (or the first of a vector for a scalar), or
/// convert explicitly.
fn conversion_fixes(target: &Ty, source: &Ty, e: &ast::Expr) -> Vec<Fix> {
    let range = e.syntax().text_range();
    let text = e.syntax().text().to_string();
    // a postfix `.xyz` binds to these without parentheses
    let postfix_safe = matches!(
        e,
        ast::Expr::Path(_)
            | ast::Expr::Member(_)
            | ast::Expr::Call(_)
            | ast::Expr::Index(_)
            | ast::Expr::Paren(_)
            | ast::Expr::Construct(_)
    );
    let select = |components: &str| {
        let new = if postfix_safe { format!("{text}.{components}") } else { format!("({text}).{components}") };
        Fix::replace(format!("Select `.{components}`"), range, new)
    };
    let convert = || Fix::replace(format!("Convert to `{target}`"), range, format!("{target}({text})"));
    match (target, source) {
        (Ty::Vector(te, tn, _), Ty::Vector(se, sn, _)) if tn < sn => {
            let components = &"xyzw"[..*tn];
            if te == se {
                vec![select(components)]
            } else {
                let inner =
                    if postfix_safe { format!("{text}.{components}") } else { format!("({text}).{components}") };
                vec![Fix::replace(
                    format!("Convert `.{components}` to `{target}`"),
                    range,
                    format!("{target}({inner})"),
                )]
            }
        }
        (Ty::Scalar(te), Ty::Vector(se, ..)) if te == se => vec![select("x")],
        (Ty::Vector(_, tn, _), Ty::Vector(_, sn, _)) if tn == sn => vec![convert()],
        _ => Vec::new(),
    }
}

/// `e` without the parentheses around it.
fn strip_parens(e: &ast::Expr) -> Option<ast::Expr> {
    let mut e = e.clone();
    while let ast::Expr::Paren(p) = e {
        e = p.expr()?;
    }
    Some(e)
}

fn write_root(e: &ast::Expr) -> Option<(String, usize)> {
    let mut e = e.clone();
    let mut derefs = 0;
    loop {
        e = match e {
            ast::Expr::Paren(p) => p.expr()?,
            ast::Expr::Index(i) => {
                derefs += 1;
                i.base()?
            }
            ast::Expr::Member(m) => {
                derefs += usize::from(m.is_arrow());
                m.base()?
            }
            ast::Expr::Prefix(p) if p.op_kind().is_some_and(|k| k == SyntaxKind::STAR) => {
                derefs += 1;
                p.operand()?
            }
            ast::Expr::Path(p) if !p.is_qualified() => return Some((p.name()?.text().to_string(), derefs)),
            _ => return None,
        }
    }
}

/// Whether the function carries one of these stage attributes (`[[kernel]]`).
fn has_stage_attribute(f: &ast::Function, names: &[&str]) -> bool {
    f.syntax()
        .children()
        .filter(|n| n.kind() != SyntaxKind::COMPOUND_STMT)
        .flat_map(|n| n.descendants())
        .filter_map(ast::Attribute::cast)
        .filter_map(|a| a.name())
        .any(|n| names.contains(&n.as_str()))
}

/// `atomic_int`, `atomic_uint`, `atomic_float` and `atomic_bool`, as sized types.
fn atomic_name(name: &str) -> Option<String> {
    matches!(name, "atomic_int" | "atomic_uint" | "atomic_float" | "atomic_bool").then(|| name.to_string())
}

/// Size in bytes of a builtin scalar, vector, packed vector, matrix or atomic type.
fn numeric_size(name: &str) -> Option<u64> {
    let scalar = |s: &str| -> Option<u64> {
        Some(match s {
            "bool" | "char" | "uchar" => 1,
            "short" | "ushort" | "half" | "bfloat" => 2,
            "int" | "uint" | "float" => 4,
            "long" | "ulong" => 8,
            _ => return None,
        })
    };
    if let Some(atomic) = name.strip_prefix("atomic_") {
        return Some(if atomic == "bool" { 1 } else { 4 });
    }
    if let Some(s) = scalar(name) {
        return Some(s);
    }
    let (packed, rest) = match name.strip_prefix("packed_") {
        Some(r) => (true, r),
        None => (false, name),
    };
    let digits = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let base = &rest[..rest.len() - digits.len()];
    let elem = scalar(base)?;
    let dims: Vec<u64> = digits.split('x').map(|d| d.parse().ok()).collect::<Option<_>>()?;
    let vector = |n: u64| -> Option<u64> {
        if !(2..=4).contains(&n) {
            return None;
        }
        Some(if packed { elem * n } else { elem * if n == 3 { 4 } else { n } })
    };
    match dims.as_slice() {
        [n] => vector(*n),
        [cols, rows] if !packed => Some(cols * vector(*rows)?),
        _ => None,
    }
}

fn strip_metal(path: &str) -> &str {
    // prefix loops: a `&str` pattern would build a substring searcher at every call
    let mut path = path;
    while let Some(rest) = path.strip_prefix("::") {
        path = rest;
    }
    while let Some(rest) = path.strip_prefix("metal::") {
        path = rest;
    }
    path
}

/// The last `::`-separated segment of a qualified name.
fn last_segment(name: &str) -> &str {
    match name.as_bytes().iter().rposition(|&b| b == b':') {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

fn is_builtin_type_word(name: &str) -> bool {
    matches!(name, "void" | "bool" | "char" | "short" | "int" | "long" | "float" | "double" | "unsigned" | "signed")
}

/// Canonical names for keyword types: `unsigned int` is `uint`.
fn canonical_keywords(text: &str) -> Option<String> {
    let words: Vec<&str> =
        text.split_whitespace().filter(|w| *w != "int" || text.split_whitespace().count() == 1).collect();
    let name = match words.as_slice() {
        ["void"] => "void",
        ["bool"] => "bool",
        ["char"] | ["signed", "char"] => "char",
        ["unsigned", "char"] => "uchar",
        ["short"] | ["signed", "short"] => "short",
        ["unsigned", "short"] => "ushort",
        ["int"] | ["signed"] => "int",
        ["unsigned"] => "uint",
        ["long"] | ["signed", "long"] | ["long", "long"] => "long",
        ["unsigned", "long"] | ["unsigned", "long", "long"] => "ulong",
        ["float"] => "float",
        ["double"] => "double",
        _ => return None,
    };
    Some(name.to_string())
}

/// Attributes of standard C++ and clang that MSL code may use.
fn is_standard_cpp_attribute(name: &str) -> bool {
    matches!(
        name,
        "noreturn"
            | "carries_dependency"
            | "deprecated"
            | "fallthrough"
            | "nodiscard"
            | "maybe_unused"
            | "likely"
            | "unlikely"
            | "no_unique_address"
            | "assume"
            | "optnone"
            | "always_inline"
            | "noinline"
    )
}

/// The candidate closest to `name`, when close enough to be a likely typo of it (the
/// smallest edit distance, then the first in order).
pub(crate) fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = 2.max(name.len() / 4);
    candidates
        .into_iter()
        .filter(|c| c.len().abs_diff(name.len()) <= limit)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
