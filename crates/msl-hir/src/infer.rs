//! Inference: the type of every expression of a function body, and what every name,
//! member and call resolves to.
//!
//! Names are resolved as C++ looks them up: locals (already bound by the body's
//! lowering), the function's template parameters, the members of its class, then each
//! enclosing namespace with its using-directives, then the library, which every unit sees
//! (`metal` is searched last, as if named by `using namespace metal`). Calls of the unit's
//! functions pick an overload by argument count and conversions; calls of the library's
//! functions and member functions bind the placeholders of its typed signatures. What
//! depends on a template parameter, or on what is not known, stays unknown: no rule
//! judges an unknown type.

use std::sync::Arc;

use msl_stdlib::{BindingSpec, Entry, Stdlib};
use rustc_hash::FxHashMap;

use crate::body::{BinaryOp, Body, Expr, ExprId, Literal, LocalId, LocalKind, Stmt, StmtId, UnaryOp};
use crate::defs::{DefKind, Defs, Generics, ScopeId, ScopeKind};
use crate::ty::{AddressSpace, Cv, DefId, LibSignature, PathRef, Scalar, TemplateArg, Ty, TyKind, TypeEnv, TypeRef};

/// What a name, member or call resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Local(LocalId),
    /// A definition of the unit: a variable, function, enumerator, field, class, ...
    Def(DefId),
    /// A template parameter of the function or its class.
    Generic(Arc<str>),
    /// A function, constant or enumerator of the library, by name.
    Library(&'static str),
    /// A member function of a library type.
    LibraryMethod(&'static str),
    /// A data member of a library type, or components of a vector (`v.xyz`).
    LibraryMember(&'static str),
    Swizzle,
    /// A type used as a value (`float4(...)`, `S{...}`).
    Type(Ty),
}

/// A use of a function template's instantiation in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceUse {
    pub def: DefId,
    pub args: InstanceArgs,
    /// The expression (a call) that uses it.
    pub at: ExprId,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InferenceResult {
    pub expr_types: Vec<Ty>,
    pub local_types: Vec<Ty>,
    pub resolutions: FxHashMap<ExprId, Resolution>,
    /// Names (paths) nothing resolves.
    pub unresolved_names: Vec<ExprId>,
    /// Calls whose callee is known but no overload applies, or whose callee is not known.
    pub unresolved_calls: Vec<ExprId>,
    /// The function is a template or a member of one: what depends on its parameters is
    /// not known until it is instantiated.
    pub in_template: bool,
    /// The instantiations of templates the body uses: the function, its arguments and
    /// the first expression that uses it.
    pub instances: Vec<InstanceUse>,
    /// Branches of `if constexpr` that are discarded (not inferred).
    pub discarded: Vec<StmtId>,
    /// The expressions of the discarded branches, sorted.
    pub discarded_exprs: Vec<ExprId>,
    /// Branches of an `if constexpr` whose condition could not be decided: one of them is
    /// discarded, so no check may rest on either.
    pub undecided: Vec<StmtId>,
}

impl InferenceResult {
    /// Whether `e` is in a discarded `if constexpr` branch (it has no type).
    pub fn is_discarded(&self, e: ExprId) -> bool {
        self.discarded_exprs.binary_search(&e).is_ok()
    }

    pub fn type_of(&self, e: ExprId) -> Ty {
        self.expr_types.get(e.0 as usize).cloned().unwrap_or_else(Ty::unknown)
    }
}

/// Name resolution in a scope of the unit: a [`TypeEnv`] for lowering types, and the
/// lookups inference needs.
pub struct Resolver<'a> {
    pub defs: &'a Defs,
    pub scope: ScopeId,
    pub generics: Option<Arc<Generics>>,
    /// How deep lookups and alias lowering are nested, shared by the resolvers made from
    /// this one: guards against cycles (`typedef A B; typedef B A;`, a class that is its
    /// own base, namespace aliases naming each other).
    depth: std::rc::Rc<std::cell::Cell<u32>>,
    /// Unqualified lookups from `scope`, by name.
    cache: std::cell::RefCell<FxHashMap<Arc<str>, Vec<DefId>>>,
    /// In an instantiation: what the template parameters in view stand for.
    pub bindings: Option<Arc<FxHashMap<Arc<str>, Ty>>>,
    /// The types a function body declares (`using T = ...;` in the body), by name.
    local_types: std::cell::RefCell<FxHashMap<Arc<str>, Ty>>,
    /// The body's aliases of a `decltype(...)`, lowered when used (the locals they name
    /// are typed by then).
    lazy_aliases: std::cell::RefCell<FxHashMap<Arc<str>, TypeRef>>,
    /// The locals typed so far, by name, for the expressions of `decltype(...)` (the
    /// latest of a name wins).
    local_values: std::cell::RefCell<FxHashMap<Arc<str>, Ty>>,
    /// In the expression of a `decltype(...)` in a body: the body's locals by name.
    values: Option<Arc<FxHashMap<Arc<str>, Ty>>>,
    /// The return type of a function declared `auto` (or `decltype(auto)`), deduced from
    /// its body (an instantiation's for a template): given by the database, which infers
    /// the bodies.
    deduce: Option<&'a Deduce<'a>>,
}

/// Gives the return type of a function declared `auto` (with an instantiation's
/// arguments for a template), when its body decides it.
pub type Deduce<'a> = dyn Fn(DefId, &InstanceArgs) -> Option<Ty> + 'a;

/// The template arguments of an instantiation, by parameter name (sorted by name).
pub type InstanceArgs = Vec<(Arc<str>, Ty)>;

const MAX_DEPTH: u32 = 48;

/// Enters one level of a guarded recursion; `None` past the limit.
struct Guard(std::rc::Rc<std::cell::Cell<u32>>);

impl Guard {
    fn enter(depth: &std::rc::Rc<std::cell::Cell<u32>>) -> Option<Guard> {
        if depth.get() >= MAX_DEPTH {
            return None;
        }
        depth.set(depth.get() + 1);
        Some(Guard(depth.clone()))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

impl<'a> Resolver<'a> {
    pub fn new(defs: &'a Defs, scope: ScopeId, generics: Option<Arc<Generics>>) -> Resolver<'a> {
        Resolver {
            defs,
            scope,
            generics,
            depth: Default::default(),
            cache: Default::default(),
            bindings: None,
            local_types: Default::default(),
            lazy_aliases: Default::default(),
            local_values: Default::default(),
            values: None,
            deduce: None,
        }
    }

    /// The type `decltype(expr)` names: the declared type of a name or member, else the
    /// expression's type (a reference for an lvalue). The expression is inferred on its
    /// own, its names looked up here (a body's locals among them).
    fn decltype_of(&self, text: &str) -> Option<Ty> {
        let inner = text.trim().strip_prefix("decltype")?.trim().strip_prefix('(')?.strip_suffix(')')?;
        let c = crate::consteval::parse_expression(inner)?;
        let _guard = Guard::enter(&self.depth)?;
        let mut r = self.at(self.scope, self.generics.clone());
        r.bindings = self.bindings.clone();
        r.values = Some(Arc::new(self.local_values.borrow().clone()));
        let result = infer_body(&c.body, &r, None, false);
        let t = result.type_of(c.expr);
        if t.is_unknown() {
            return None;
        }
        Some(match &c.body.exprs[c.expr.0 as usize] {
            Expr::Path(_) | Expr::Local(_) | Expr::Member { .. } => t.non_reference(),
            _ => t,
        })
    }

    /// The resolver of a body whose calls of functions declared `auto` take the return
    /// type `deduce` gives for the function (and its template arguments).
    pub fn with_deduction(mut self, deduce: &'a Deduce<'a>) -> Resolver<'a> {
        self.deduce = Some(deduce);
        self
    }

    /// The resolver of an instantiation: `bindings` give the template parameters' values.
    pub fn with_bindings(mut self, bindings: &[(Arc<str>, Ty)]) -> Resolver<'a> {
        self.bindings = Some(Arc::new(bindings.iter().cloned().collect()));
        self
    }

    /// What template parameter `name` stands for in an instantiation.
    fn bound(&self, name: &str) -> Option<Ty> {
        self.bindings.as_ref()?.get(name).cloned()
    }

    /// The value a non-type template parameter stands for in an instantiation.
    pub(crate) fn bound_value(&self, name: &str) -> Option<i64> {
        match self.bound(name)?.kind() {
            TyKind::Library { name: "__value", args } => match args.first() {
                Some(TemplateArg::Value(v)) => Some(*v),
                _ => None,
            },
            _ => None,
        }
    }

    /// The instantiation an explicit instantiation names: `k<float, 4>` binds the
    /// parameters of function template `k` in order (with their defaults for the rest).
    pub fn explicit_instance(&self, path: &PathRef) -> Option<(DefId, InstanceArgs)> {
        let args = path.segments.last()?.args.as_ref()?;
        let def = self
            .defs_of_path(path)
            .into_iter()
            .find(|d| matches!(self.defs.def(*d).kind, DefKind::Function(_)) && self.defs.def(*d).generics.is_some())?;
        let g = self.defs.def(def).generics.clone()?;
        let r = self.for_def(def);
        let mut bound: FxHashMap<Arc<str>, Ty> = FxHashMap::default();
        for (i, p) in g.params.iter().enumerate() {
            let t = match args.get(i) {
                Some(crate::ty::TypeArgRef::Type(t)) => t.lower(self).ty,
                Some(crate::ty::TypeArgRef::Value(v)) => value_placeholder(*v),
                Some(crate::ty::TypeArgRef::Expr(x)) => match self.const_value(x) {
                    Some(v) => value_placeholder(v),
                    None => return None,
                },
                None => match &p.kind {
                    crate::defs::GenericKind::Type { default: Some(d) } => substitute(&d.lower(&r).ty, &bound),
                    _ => return None,
                },
            };
            if t.is_uncertain() {
                return None;
            }
            bound.insert(p.name.clone(), t);
        }
        let mut args: InstanceArgs = bound.into_iter().collect();
        args.sort_by(|a, b| a.0.cmp(&b.0));
        Some((def, args))
    }

    /// The type `rest` names inside class `def<args>` (`T::type` with `T` bound to it).
    fn member_type(&self, def: DefId, args: &[TemplateArg], rest: &[crate::ty::Segment]) -> Option<Ty> {
        let (first, more) = rest.split_first()?;
        let _guard = Guard::enter(&self.depth)?;
        let inner = self.defs.inner_scope(def)?;
        let mut found = self.defs.lookup_in(inner, &first.name);
        if found.is_empty() {
            found = self.lookup_in_bases(def, &first.name, 0);
        }
        let bound = self.class_template_bindings(def, args);
        let own_args = substitute_args(&crate::ty::lower_args(first.args.as_deref().unwrap_or_default(), self), &bound);
        let t = found.iter().find_map(|id| {
            let own = match &self.defs.def(*id).kind {
                DefKind::Class { .. } => self.with_outer_args(*id, &own_args, args),
                _ => own_args.clone(),
            };
            self.for_def(*id).type_of_def(*id, &own)
        })?;
        let t = substitute(&t, &bound);
        // an alias naming a class nested in this one (`using Pair = Inner<2>;`): the nested
        // class keeps this one's arguments too
        let t = match t.strip().kind() {
            TyKind::Class { def: nested, args: nargs, .. }
                if self.defs.owner_class(*nested) == Some(def)
                    && nargs.len() <= self.defs.def(*nested).generics.as_ref().map_or(0, |g| g.params.len()) =>
            {
                let full = self.with_outer_args(*nested, nargs, args);
                self.for_def(*nested).type_of_def(*nested, &full).unwrap_or(t)
            }
            _ => t,
        };
        if more.is_empty() {
            return Some(t);
        }
        match t.strip().kind() {
            TyKind::Class { def, args, .. } => self.member_type(*def, args, more),
            _ => None,
        }
    }

    /// A resolver for where definition `id` is declared (its own generics in view).
    pub(crate) fn for_def(&self, id: DefId) -> Resolver<'a> {
        let d = self.defs.def(id);
        self.at(d.scope, d.generics.clone())
    }

    /// A resolver for `scope` with `generics` in view, sharing this one's depth guard.
    fn at(&self, scope: ScopeId, generics: Option<Arc<Generics>>) -> Resolver<'a> {
        Resolver { depth: self.depth.clone(), deduce: self.deduce, ..Resolver::new(self.defs, scope, generics) }
    }

    /// The definitions an unqualified name finds from `self.scope` outward: the first
    /// scope that declares it (its using-directives count as declaring what they name).
    pub fn lookup(&self, name: &str) -> Vec<DefId> {
        if let Some(found) = self.cache.borrow().get(name) {
            return found.clone();
        }
        let found = self.lookup_uncached(name, true);
        self.cache.borrow_mut().insert(Arc::from(name), found.clone());
        found
    }

    /// [`Resolver::lookup`]; `usings`: also through using-directives (not when looking up
    /// the namespace a using-directive names, which would go round in circles).
    fn lookup_uncached(&self, name: &str, usings: bool) -> Vec<DefId> {
        let Some(_guard) = Guard::enter(&self.depth) else { return Vec::new() };
        for scope in self.defs.enclosing_scopes(self.scope) {
            let mut found = self.defs.lookup_in(scope, name);
            // a class's bases
            if found.is_empty()
                && self.defs.scope(scope).kind == ScopeKind::Class
                && let Some(owner) = self.defs.scope(scope).owner
            {
                found = self.lookup_in_bases(owner, name, 0);
            }
            if usings {
                for dir in &self.defs.scope(scope).using_directives {
                    if let Some(ns) = self.namespace_of_directive(&dir.segments, scope) {
                        found.extend(self.defs.lookup_in(ns, name));
                    }
                }
            }
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// A class's base classes of the unit, transitively, nearest first.
    pub fn bases_of(&self, class: DefId) -> Vec<DefId> {
        let mut out: Vec<DefId> = Vec::new();
        let mut queue = vec![class];
        while let Some(c) = queue.pop() {
            let DefKind::Class { bases, .. } = &self.defs.def(c).kind else { continue };
            let r = self.for_def(c);
            for b in bases {
                let crate::ty::TypeBase::Path(p) = &b.base else { continue };
                if let Some(base) = r.def_of_path(p)
                    && base != class
                    && !out.contains(&base)
                    && out.len() < 32
                {
                    out.push(base);
                    queue.insert(0, base);
                }
            }
        }
        out
    }

    /// The members named `name` of the nearest base of `class` that declares one (each
    /// base visited once, however often and however cyclically it is named).
    fn lookup_in_bases(&self, class: DefId, name: &str, _depth: u32) -> Vec<DefId> {
        for base in self.bases_of(class) {
            let Some(inner) = self.defs.inner_scope(base) else { continue };
            let found = self.defs.lookup_in(inner, name);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The namespace a using-directive written in `from` names (looked up without
    /// using-directives).
    fn namespace_of_directive(&self, segments: &[crate::ty::Segment], from: ScopeId) -> Option<ScopeId> {
        let (first, rest) = segments.split_first()?;
        let r = self.at(from, None);
        let mut at = r.lookup_uncached(&first.name, false).into_iter().find_map(|d| self.defs.inner_scope(d))?;
        for seg in rest {
            at = self.defs.lookup_in(at, &seg.name).into_iter().find_map(|d| self.defs.inner_scope(d))?;
        }
        Some(at)
    }

    /// The scope (namespace, class, enum) a qualifier names, looked up from `from`.
    pub fn scope_of_path(&self, segments: &[crate::ty::Segment], from: ScopeId) -> Option<ScopeId> {
        let _guard = Guard::enter(&self.depth)?;
        let (first, rest) = segments.split_first()?;
        let r = self.at(from, None);
        let mut at = r.scope_of_def(r.lookup(&first.name).into_iter().find(|d| r.scope_of_def(Some(*d)).is_some()))?;
        for seg in rest {
            let id = self.defs.lookup_in(at, &seg.name).into_iter().find(|d| self.scope_of_def(Some(*d)).is_some());
            at = self.scope_of_def(id)?;
        }
        Some(at)
    }

    fn scope_of_def(&self, id: Option<DefId>) -> Option<ScopeId> {
        let id = id?;
        match &self.defs.def(id).kind {
            DefKind::NamespaceAlias { target } => {
                let r = self.for_def(id);
                r.scope_of_path(&target.segments, self.defs.def(id).scope)
            }
            _ => self.defs.inner_scope(id),
        }
    }

    /// The definition a (possibly qualified) path names.
    pub fn def_of_path(&self, p: &PathRef) -> Option<DefId> {
        let found = self.defs_of_path(p);
        found.into_iter().next()
    }

    pub fn defs_of_path(&self, p: &PathRef) -> Vec<DefId> {
        if p.segments.len() == 1 && !p.global {
            return self.lookup(p.name());
        }
        let qualifiers = &p.segments[..p.segments.len() - 1];
        let scope = if qualifiers.is_empty() {
            Some(ScopeId::GLOBAL)
        } else if p.global {
            self.scope_of_path(qualifiers, ScopeId::GLOBAL)
        } else {
            self.scope_of_path(qualifiers, self.scope)
        };
        match scope {
            Some(s) => self.defs.lookup_in(s, p.name()),
            None => Vec::new(),
        }
    }

    /// The type a definition names, when it is a type (class, enum, alias).
    pub fn type_of_def(&self, id: DefId, args: &[TemplateArg]) -> Option<Ty> {
        let d = self.defs.def(id);
        Some(match &d.kind {
            DefKind::Class { .. } => Ty::new(TyKind::Class {
                def: id,
                name: Arc::from(self.defs.qualified_name(id)),
                args: args.to_vec().into_boxed_slice(),
            }),
            DefKind::Enum { .. } => Ty::new(TyKind::Enum { def: id, name: Arc::from(self.defs.qualified_name(id)) }),
            DefKind::Alias { target } => {
                let Some(_guard) = Guard::enter(&self.depth) else { return Some(Ty::unknown()) };
                // an alias template: its target with its parameters bound to the arguments
                if d.generics.is_some() && !args.is_empty() {
                    let bound: Vec<(Arc<str>, Ty)> = self.class_template_bindings(id, args).into_iter().collect();
                    return Some(target.lower(&self.for_def(id).with_bindings(&bound)).ty);
                }
                let r = self.for_def(id);
                let t = target.lower(&r).ty;
                Ty::alias(&d.name, t)
            }
            _ => return None,
        })
    }

    /// Class template argument deduction: the arguments of class template `def` that a
    /// declaration without them (`Box b(2.0f);`) takes from its initializer's `args`,
    /// through the deduction guides of its name (first) or its constructors. `None` when
    /// neither binds every parameter (defaults fill the rest).
    pub fn deduce_class_args(&self, def: DefId, args: &[Ty]) -> Option<Vec<TemplateArg>> {
        let d = self.defs.def(def);
        let g = d.generics.as_ref().filter(|g| !g.params.is_empty())?;
        if args.iter().any(Ty::is_uncertain) {
            return None;
        }
        let _guard = Guard::enter(&self.depth)?;
        let bind = |params: &[Ty], bound: &mut FxHashMap<Arc<str>, Ty>| {
            if params.len() != args.len() {
                return false;
            }
            for (p, a) in params.iter().zip(args) {
                deduce_argument(p, a, bound);
            }
            true
        };
        // the guides written for it
        for guide in self.defs.deduction_guides.iter().filter(|gd| gd.name == d.name && gd.scope == d.scope) {
            let r = self.at(guide.scope, guide.generics.clone());
            let params: Vec<Ty> = guide.params.iter().map(|p| p.lower(&r).ty).collect();
            let mut bound = FxHashMap::default();
            if !bind(&params, &mut bound) {
                continue;
            }
            let result = substitute(&guide.result.lower(&r).ty, &bound);
            if let TyKind::Class { def: rd, args: rargs, .. } = result.strip().kind()
                && self.defs.def(*rd).name == d.name
                && !result.is_uncertain()
            {
                return Some(rargs.to_vec());
            }
        }
        // its constructors
        let inner = self.defs.inner_scope(def)?;
        for ctor in self.defs.lookup_in(inner, &d.name) {
            let DefKind::Function(f) = &self.defs.def(ctor).kind else { continue };
            let r = self.for_def(ctor);
            let params: Vec<Ty> = f.params.iter().map(|p| p.ty.lower(&r).ty).collect();
            let mut bound = FxHashMap::default();
            if !bind(&params, &mut bound) {
                continue;
            }
            let mut out = Vec::new();
            for p in &g.params {
                match bound.get(&p.name) {
                    Some(t) if !t.is_uncertain() => out.push(match t.kind() {
                        TyKind::Library { name: "__value", args } => args.first().cloned()?,
                        _ => TemplateArg::Type(t.clone()),
                    }),
                    _ => match &p.kind {
                        crate::defs::GenericKind::Type { default: Some(dt) } => {
                            let partial = self.class_template_bindings(def, &out);
                            out.push(TemplateArg::Type(substitute(&dt.lower(&self.for_def(def)).ty, &partial)));
                        }
                        _ => break,
                    },
                }
            }
            if out.len() == g.params.len() {
                return Some(out);
            }
        }
        None
    }

    /// The class a template's name with `args` names, among the `candidates` a lookup
    /// found: the specialization whose pattern the arguments match (the one with fewest
    /// parameters of its own when several do: a full specialization before a partial one),
    /// else the primary template. `None` when two equally specialized ones match. With
    /// arguments not known yet (in a template), the primary template.
    pub fn select_class(&self, candidates: &[DefId], args: &[TemplateArg]) -> Option<DefId> {
        let pattern_of = |d: DefId| match &self.defs.def(d).kind {
            DefKind::Class { pattern, .. } => Some(pattern.is_some()),
            _ => None,
        };
        let primary = candidates.iter().copied().find(|d| pattern_of(*d) == Some(false));
        let known = args.iter().all(|a| match a {
            TemplateArg::Type(t) => !t.is_uncertain(),
            TemplateArg::Value(_) => true,
            _ => false,
        });
        if !known {
            return primary.or_else(|| candidates.iter().copied().find(|d| pattern_of(*d).is_some()));
        }
        let mut best: Option<(usize, DefId)> = None;
        let mut tie = false;
        for &c in candidates.iter().filter(|d| pattern_of(**d) == Some(true)) {
            // a pattern the model cannot lower (`void_t<decltype(...)>`, which matches
            // only where the expression is valid) may or may not match: nothing is sure
            if self.pattern_unknown(c) {
                return None;
            }
            if self.match_specialization(c, args).is_none() {
                continue;
            }
            let own = self.defs.def(c).generics.as_ref().map_or(0, |g| g.params.len());
            match best {
                Some((n, _)) if n < own => {}
                Some((n, _)) if n == own => tie = true,
                _ => {
                    best = Some((own, c));
                    tie = false;
                }
            }
        }
        if tie {
            return None;
        }
        best.map(|(_, c)| c).or(primary)
    }

    /// Whether a specialization's pattern holds a type the model does not know.
    fn pattern_unknown(&self, spec: DefId) -> bool {
        let DefKind::Class { pattern: Some(pattern), .. } = &self.defs.def(spec).kind else { return false };
        // `decltype` in a pattern (`void_t<decltype(T().x)>`) makes it match only where
        // the expression is valid for the arguments: a substitution the model does not do
        if pattern.iter().any(arg_has_decltype) {
            return true;
        }
        let Some(_guard) = Guard::enter(&self.depth) else { return true };
        let r = self.for_def(spec);
        crate::ty::lower_args(pattern, &r).iter().any(|a| matches!(a, TemplateArg::Type(t) if holds_unknown(t)))
    }

    /// What a specialization's own parameters stand for when `args` match its pattern
    /// (`Pair<T, 0>` matched by `Pair<float, 0>`: `T = float`); `None` when they do not.
    fn match_specialization(&self, spec: DefId, args: &[TemplateArg]) -> Option<FxHashMap<Arc<str>, Ty>> {
        let DefKind::Class { pattern: Some(pattern), .. } = &self.defs.def(spec).kind else { return None };
        if pattern.len() != args.len() {
            return None;
        }
        let _guard = Guard::enter(&self.depth)?;
        let r = self.for_def(spec);
        let lowered = crate::ty::lower_args(pattern, &r);
        let own = self.defs.def(spec).generics.clone();
        let is_value_param = |n: &str| {
            own.as_ref()
                .and_then(|g| g.find(n))
                .is_some_and(|p| matches!(p.kind, crate::defs::GenericKind::Value { .. }))
        };
        let mut bound = FxHashMap::default();
        for (p, a) in lowered.iter().zip(args) {
            match (p, a) {
                (TemplateArg::Type(p), TemplateArg::Type(a)) => deduce(p, a, &mut bound),
                (TemplateArg::Name(n), TemplateArg::Value(v)) if is_value_param(n) => {
                    if let Some(prev) = bound.insert(n.clone(), value_placeholder(*v))
                        && prev != value_placeholder(*v)
                    {
                        return None;
                    }
                }
                _ => {}
            }
        }
        // every parameter of its own is bound, and the pattern with them is the arguments
        if own.as_ref().is_some_and(|g| g.params.iter().any(|p| !bound.contains_key(&p.name))) {
            return None;
        }
        let same = substitute_args(&lowered, &bound).iter().zip(args).all(|(p, a)| match (p, a) {
            (TemplateArg::Type(p), TemplateArg::Type(a)) => {
                pattern_matches(&substitute(p, &bound), &substitute(a, &FxHashMap::default()))
            }
            (TemplateArg::Value(p), TemplateArg::Value(a)) => p == a,
            _ => false,
        });
        same.then_some(bound)
    }

    /// What the parameters of a class template stand for in `def<args>`: the arguments
    /// given, then the defaults of the rest (which may use the earlier ones). For a
    /// specialization, what its pattern binds.
    pub fn class_template_bindings(&self, def: DefId, args: &[TemplateArg]) -> FxHashMap<Arc<str>, Ty> {
        if let DefKind::Class { pattern: Some(_), .. } = &self.defs.def(def).kind {
            return self.match_specialization(def, args).unwrap_or_default();
        }
        let mut bound = FxHashMap::default();
        let Some(g) = &self.defs.def(def).generics else { return bound };
        let r = self.for_def(def);
        for (i, p) in g.params.iter().enumerate() {
            let t = match args.get(i) {
                Some(TemplateArg::Type(t)) => t.clone(),
                Some(TemplateArg::Value(v)) => value_placeholder(*v),
                Some(_) => continue,
                None => match &p.kind {
                    crate::defs::GenericKind::Type { default: Some(d) } => substitute(&d.lower(&r).ty, &bound),
                    _ => continue,
                },
            };
            bound.insert(p.name.clone(), t);
        }
        // a class nested in a class template: the enclosing templates' arguments follow its
        // own (see `member_type`)
        let mut rest = args.get(g.params.len()..).unwrap_or_default();
        let mut level = g.parent.clone();
        while let Some(outer) = level {
            if rest.is_empty() {
                break;
            }
            for (p, a) in outer.params.iter().zip(rest) {
                match a {
                    TemplateArg::Type(t) => {
                        bound.entry(p.name.clone()).or_insert_with(|| t.clone());
                    }
                    TemplateArg::Value(v) => {
                        bound.entry(p.name.clone()).or_insert_with(|| value_placeholder(*v));
                    }
                    TemplateArg::Name(_) => {}
                }
            }
            rest = rest.get(outer.params.len()..).unwrap_or_default();
            level = outer.parent.clone();
        }
        bound
    }

    /// The arguments of class `def` (nested in a class template) as written, completed
    /// with its parameters' defaults, then the enclosing class's `outer` arguments: a
    /// nested class of `Outer<half>` keeps what `T` stands for.
    fn with_outer_args(&self, def: DefId, own: &[TemplateArg], outer: &[TemplateArg]) -> Vec<TemplateArg> {
        let Some(g) = &self.defs.def(def).generics else { return own.to_vec() };
        if g.parent.is_none() || outer.is_empty() || own.len() > g.params.len() {
            return own.to_vec();
        }
        let bound = self.class_template_bindings(def, own);
        let mut full = own.to_vec();
        for p in &g.params[own.len()..] {
            match bound.get(&p.name) {
                Some(t) => full.push(match t.kind() {
                    TyKind::Library { name: "__value", args } => match args.first() {
                        Some(a) => a.clone(),
                        None => return own.to_vec(),
                    },
                    _ => TemplateArg::Type(t.clone()),
                }),
                None => return own.to_vec(),
            }
        }
        full.extend(outer.iter().cloned());
        full
    }

    /// The declared type of a variable, field or parameter-like definition.
    pub fn value_type_of_def(&self, id: DefId) -> Ty {
        let d = self.defs.def(id);
        let r = self.for_def(id);
        match &d.kind {
            DefKind::Variable { ty, .. } => ty.lower(&r).ty,
            DefKind::Field(f) => f.ty.lower(&r).ty,
            DefKind::Enumerator { parent, .. } => r.type_of_def(*parent, &[]).unwrap_or_else(Ty::unknown),
            DefKind::Function(f) => {
                let ret = f.ret.as_ref().map_or_else(Ty::void, |t| t.lower(&r).ty);
                Ty::function(ret, f.params.iter().map(|p| crate::ty::decay(p.ty.lower(&r).ty)).collect(), f.variadic)
            }
            _ => Ty::unknown(),
        }
    }
}

impl TypeEnv for Resolver<'_> {
    fn resolve_type(&self, path: &PathRef, args: &[TemplateArg]) -> Option<Ty> {
        if path.segments.len() == 1
            && !path.global
            && let Some(t) = self.local_types.borrow().get(path.name())
        {
            return Some(t.clone());
        }
        if path.segments.len() == 1 && !path.global {
            let lazy = self.lazy_aliases.borrow().get(path.name()).cloned();
            if let Some(target) = lazy {
                return Some(Ty::alias(path.name(), target.lower(self).ty));
            }
        }
        if path.segments.len() == 1
            && !path.global
            && let Some(g) = self.generics.as_ref().and_then(|g| g.find(path.name()))
        {
            return Some(self.bound(&g.name).unwrap_or_else(|| Ty::param(&g.name)));
        }
        // a qualifier that is a template parameter: a dependent member type, known in an
        // instantiation that binds it to a class
        if path.segments.len() > 1
            && let Some(g) = &self.generics
            && g.find(&path.segments[0].name).is_some()
        {
            return Some(match self.bound(&path.segments[0].name).map(|t| t.strip().kind().clone()) {
                Some(TyKind::Class { def, args, .. }) => {
                    self.member_type(def, &args, &path.segments[1..]).unwrap_or_else(Ty::unknown)
                }
                _ => Ty::unknown(),
            });
        }
        // a member of a class template named with arguments (`typename Pick<T, 0>::type`):
        // looked up in the specialization they select, with its parameters bound
        let n = path.segments.len();
        if n >= 2 && path.segments[n - 2].args.is_some() {
            let prefix = PathRef { global: path.global, segments: path.segments[..n - 1].to_vec() };
            let _guard = Guard::enter(&self.depth)?;
            let class = crate::ty::TypeRef { base: crate::ty::TypeBase::Path(prefix), ..crate::ty::TypeRef::unknown() }
                .lower(self)
                .ty
                .strip();
            if let TyKind::Class { def, args: class_args, .. } = class.kind() {
                return Some(self.member_type(*def, class_args, &path.segments[n - 1..]).unwrap_or_else(Ty::unknown));
            }
        }
        let found = self.defs_of_path(path);
        if found.len() > 1 && found.iter().all(|d| matches!(self.defs.def(*d).kind, DefKind::Class { .. })) {
            return match self.select_class(&found, args) {
                Some(c) => self.type_of_def(c, args),
                None => Some(Ty::unknown()),
            };
        }
        found.iter().find_map(|id| self.type_of_def(*id, args))
    }

    fn def_type(&self, id: DefId) -> Option<Ty> {
        self.type_of_def(id, &[])
    }

    fn const_value(&self, expr: &str) -> Option<i64> {
        let _guard = Guard::enter(&self.depth)?;
        crate::consteval::eval_text(self, expr.trim()).ok()
    }

    fn decltype(&self, text: &str) -> Option<Ty> {
        self.decltype_of(text)
    }
}

/// The type a function declared `auto` returns: its first `return` with a value whose
/// type is known (not counting lambdas' nor discarded `if constexpr` branches'), as a
/// value (`auto` drops references and decays arrays); `void` with no `return` of a value.
/// `None` while a value's type is not known.
pub fn returned_type(body: &Body, result: &InferenceResult) -> Option<Ty> {
    let root = body.root?;
    let skipped: rustc_hash::FxHashSet<StmtId> =
        result.discarded.iter().chain(&result.undecided).flat_map(|s| body.stmts_within(*s)).collect();
    let mut within = body.stmts_within(root);
    within.sort();
    for s in within {
        if skipped.contains(&s) {
            continue;
        }
        if let Some(Stmt::Return(Some(e))) = body.stmts.get(s.0 as usize) {
            let t = result.type_of(*e);
            if t.is_uncertain() {
                return None;
            }
            return Some(crate::ty::decay(t.non_reference()));
        }
    }
    result.undecided.is_empty().then(Ty::void)
}

/// Infers the types of a body.
pub fn infer_body(body: &Body, resolver: &Resolver<'_>, function: Option<DefId>, in_template: bool) -> InferenceResult {
    let mut cx = Ctx {
        body,
        r: resolver,
        lib: Stdlib::get(),
        out: InferenceResult {
            expr_types: vec![Ty::unknown(); body.exprs.len()],
            local_types: vec![Ty::unknown(); body.locals.len()],
            in_template,
            ..InferenceResult::default()
        },
        ret: function.map(|f| resolver.value_type_of_def(f)).and_then(|t| match t.kind() {
            TyKind::Function(f) => Some(f.ret.clone()),
            _ => None,
        }),
        class: class_of_scope(resolver.defs, resolver.scope),
        seen: vec![false; body.exprs.len()],
        local_quals: vec![(None, Cv::NONE); body.locals.len()],
        instances: Default::default(),
        current: ExprId(0),
    };
    // the body's own types, each seeing those before it
    for (name, target) in &body.type_aliases {
        if matches!(target.base, crate::ty::TypeBase::Decltype(_)) {
            resolver.lazy_aliases.borrow_mut().insert(name.clone(), target.clone());
            continue;
        }
        let t = Ty::alias(name, target.lower(resolver).ty);
        resolver.local_types.borrow_mut().insert(name.clone(), t);
    }
    for p in &body.params {
        cx.local(*p);
    }
    if let Some(root) = body.root {
        cx.stmt(root);
    }
    // expressions lowered outside statements (constructor initializers)
    for i in 0..body.exprs.len() {
        if !cx.seen[i] {
            cx.expr(ExprId(i as u32), None);
        }
    }
    cx.out.discarded_exprs.sort();
    cx.out.discarded_exprs.dedup();
    let mut instances = cx.instances.take();
    let mut seen = rustc_hash::FxHashSet::default();
    instances.retain(|i| seen.insert((i.def, i.args.clone())));
    cx.out.instances = instances;
    cx.out
}

/// The class whose scope `scope` is, or encloses it.
fn class_of_scope(defs: &Defs, scope: ScopeId) -> Option<DefId> {
    defs.enclosing_scopes(scope).find(|s| defs.scope(*s).kind == ScopeKind::Class).and_then(|s| defs.scope(s).owner)
}

struct Ctx<'a> {
    body: &'a Body,
    r: &'a Resolver<'a>,
    lib: &'static Stdlib,
    out: InferenceResult,
    /// What the function returns.
    ret: Option<Ty>,
    /// The class of a member function.
    class: Option<DefId>,
    /// The expressions inferred (the rest are inferred at the end on their own).
    seen: Vec<bool>,
    /// The address space and constness each local is declared with.
    local_quals: Vec<(Option<AddressSpace>, Cv)>,
    /// The instantiations overload resolution chose.
    instances: std::cell::RefCell<Vec<InstanceUse>>,
    /// The expression being inferred (the innermost).
    current: ExprId,
}

impl Ctx<'_> {
    fn set(&mut self, e: ExprId, t: Ty) -> Ty {
        self.seen[e.0 as usize] = true;
        self.out.expr_types[e.0 as usize] = t.clone();
        t
    }

    fn local(&mut self, id: LocalId) -> Ty {
        let local = &self.body.locals[id.0 as usize];
        let lowered = local.ty.lower(self.r);
        self.local_quals[id.0 as usize] = (lowered.space, lowered.cv);
        let mut declared = lowered.ty;
        let init_ty = local.init.map(|e| {
            let expected = (!local.ty.is_auto()).then(|| declared.clone());
            self.expr(e, expected.as_ref())
        });
        // a class template named without arguments: they come from the initializer
        if let Some(init) = local.init
            && self.is_template_without_args(&declared)
        {
            let values: Vec<ExprId> = match &self.body.exprs[init.0 as usize] {
                Expr::Construct { args, .. } if self.is_template_without_args(&self.out.type_of(init)) => args.clone(),
                Expr::InitList { elems } => elems.clone(),
                _ => vec![init],
            };
            let types: Vec<Ty> = values.iter().map(|v| self.out.type_of(*v).non_reference()).collect();
            let t = self.deduced_class(declared.clone(), &types);
            if values != [init] {
                self.set(init, t.clone());
            }
            declared = t;
        }
        let t = match local.kind {
            LocalKind::Binding { index } => {
                // an element of the hidden object: a field of a class, an element of an array
                let whole = init_ty.unwrap_or_else(Ty::unknown);
                element_of(self.r, &whole.non_reference(), index as usize)
            }
            LocalKind::RangeElement => declared,
            _ if local.ty.is_auto() => match init_ty {
                Some(t) => {
                    // `auto &r = x` keeps a reference (to where `x` is, with its constness
                    // and the declaration's); plain `auto` decays
                    let (space, cv) = match t.strip().kind() {
                        TyKind::Reference { space, cv, .. } => (*space, *cv),
                        _ => (None, Cv::NONE),
                    };
                    let t = t.non_reference();
                    if local.ty.ops.iter().any(|o| matches!(o, crate::ty::TypeRefOp::Reference { .. })) {
                        let cv = Cv { is_const: cv.is_const || lowered.cv.is_const, ..cv };
                        Ty::reference(t, space.or(lowered.space), cv)
                    } else if local.ty.ops.iter().any(|o| matches!(o, crate::ty::TypeRefOp::Pointer { .. })) {
                        t
                    } else {
                        crate::ty::decay(t)
                    }
                }
                None => Ty::unknown(),
            },
            _ => declared,
        };
        self.out.local_types[id.0 as usize] = t.clone();
        if !local.name.is_empty() {
            self.r.local_values.borrow_mut().insert(local.name.clone(), t.clone());
        }
        t
    }

    /// A class template named without its arguments (`Box` in `Box b(2.0f)`).
    fn is_template_without_args(&self, t: &Ty) -> bool {
        matches!(t.strip().kind(), TyKind::Class { def, args, .. }
            if args.is_empty() && self.r.defs.def(*def).generics.as_ref().is_some_and(|g| !g.params.is_empty()))
    }

    /// `t`, when a class template named without arguments, with the arguments its
    /// initializers' types `args` deduce: a single initializer of that template is copied
    /// (its arguments are taken), else the guides and constructors decide; else `t`.
    fn deduced_class(&self, t: Ty, args: &[Ty]) -> Ty {
        if !self.is_template_without_args(&t) {
            return t;
        }
        let stripped = t.strip();
        let TyKind::Class { def, .. } = stripped.kind() else { return t };
        let def = *def;
        if let [one] = args
            && let TyKind::Class { def: d, args: a, .. } = one.strip().kind()
            && *d == def
            && !a.is_empty()
        {
            return one.strip();
        }
        match self.r.deduce_class_args(def, args).and_then(|a| self.r.type_of_def(def, &a)) {
            Some(deduced) => deduced,
            None => t,
        }
    }

    fn stmt(&mut self, s: StmtId) {
        match &self.body.stmts[s.0 as usize] {
            Stmt::Expr(e) => {
                self.expr(*e, None);
            }
            Stmt::Decl(locals) => {
                for l in locals.clone() {
                    self.local(l);
                }
            }
            Stmt::Block(stmts) => {
                for st in stmts.clone() {
                    self.stmt(st);
                }
            }
            Stmt::If { init, cond, then, other, constexpr } => {
                let (init, cond, then, other, constexpr) = (*init, *cond, *then, *other, *constexpr);
                self.opt_stmt(init);
                if let Some(c) = cond {
                    self.expr(c, None);
                }
                // outside a template, `if constexpr` discards the branch not taken: it is
                // not inferred (nor checked)
                let taken = match cond {
                    Some(c) if constexpr && !self.out.in_template => {
                        crate::consteval::Evaluator::new(self.r).eval(self.body, c).ok().map(|v| v != 0)
                    }
                    _ => None,
                };
                let discard = |cx: &mut Self, s: Option<StmtId>| {
                    if let Some(s) = s {
                        // nothing of it is inferred, not even as an expression left over
                        for e in cx.body.stmt_exprs(s) {
                            cx.seen[e.0 as usize] = true;
                            cx.out.discarded_exprs.push(e);
                        }
                        cx.out.discarded.push(s);
                    }
                };
                match taken {
                    Some(true) => {
                        self.opt_stmt(then);
                        discard(self, other);
                    }
                    Some(false) => {
                        self.opt_stmt(other);
                        discard(self, then);
                    }
                    None => {
                        if constexpr && !self.out.in_template {
                            self.out.undecided.extend(then.iter().chain(other.iter()));
                        }
                        self.opt_stmt(then);
                        self.opt_stmt(other);
                    }
                }
            }
            Stmt::StaticAssert { cond, .. } => {
                if let Some(c) = *cond {
                    self.expr(c, None);
                }
            }
            Stmt::While { cond, body } => {
                let (cond, body) = (*cond, *body);
                if let Some(c) = cond {
                    self.expr(c, None);
                }
                self.opt_stmt(body);
            }
            Stmt::Do { body, cond } => {
                let (cond, body) = (*cond, *body);
                self.opt_stmt(body);
                if let Some(c) = cond {
                    self.expr(c, None);
                }
            }
            Stmt::For { init, cond, step, body } => {
                let (init, cond, step, body) = (*init, *cond, *step, *body);
                self.opt_stmt(init);
                if let Some(c) = cond {
                    self.expr(c, None);
                }
                if let Some(c) = step {
                    self.expr(c, None);
                }
                self.opt_stmt(body);
            }
            Stmt::RangeFor { var, range, body } => {
                let (var, range, body) = (*var, *range, *body);
                let range_ty = range.map(|r| self.expr(r, None));
                if let Some(v) = var {
                    let local = &self.body.locals[v.0 as usize];
                    let t = if local.ty.is_auto() {
                        let elem = match range_ty.map(|t| t.non_reference().strip()) {
                            Some(t) => match t.kind() {
                                TyKind::Array { elem, .. } => elem.clone(),
                                _ => Ty::unknown(),
                            },
                            None => Ty::unknown(),
                        };
                        if local.ty.ops.iter().any(|o| matches!(o, crate::ty::TypeRefOp::Reference { .. })) {
                            Ty::reference(elem, None, Cv::NONE)
                        } else {
                            elem
                        }
                    } else {
                        local.ty.lower(self.r).ty
                    };
                    self.out.local_types[v.0 as usize] = t;
                }
                self.opt_stmt(body);
            }
            Stmt::Switch { init, cond, body } => {
                let (init, cond, body) = (*init, *cond, *body);
                self.opt_stmt(init);
                if let Some(c) = cond {
                    self.expr(c, None);
                }
                self.opt_stmt(body);
            }
            Stmt::Case(e) => {
                if let Some(e) = *e {
                    self.expr(e, None);
                }
            }
            Stmt::Return(e) => {
                if let Some(e) = *e {
                    let expected = self.ret.clone();
                    self.expr(e, expected.as_ref());
                }
            }
            Stmt::Other | Stmt::Break | Stmt::Continue => {}
        }
    }

    fn opt_stmt(&mut self, s: Option<StmtId>) {
        if let Some(s) = s {
            self.stmt(s);
        }
    }

    /// The type of an expression; `expected` is the type its context wants (a
    /// declaration's, a return's), which gives braced lists their type.
    fn expr(&mut self, e: ExprId, expected: Option<&Ty>) -> Ty {
        self.seen[e.0 as usize] = true;
        let outer = std::mem::replace(&mut self.current, e);
        let t = self.expr_inner(e, expected);
        self.current = outer;
        self.set(e, t)
    }

    fn expr_inner(&mut self, e: ExprId, expected: Option<&Ty>) -> Ty {
        match &self.body.exprs[e.0 as usize] {
            Expr::Missing => Ty::unknown(),
            Expr::Literal(l) => literal_type(*l),
            Expr::Local(l) => {
                let l = *l;
                self.out.resolutions.insert(e, Resolution::Local(l));
                let t = self.out.local_types[l.0 as usize].clone();
                let (space, cv) = self.local_quals[l.0 as usize];
                lvalue_in(t, space, cv)
            }
            Expr::Path(p) => {
                let p = p.clone();
                self.path(e, &p)
            }
            Expr::This => match self.class {
                Some(c) => match self.r.type_of_def(c, &self.class_args(c)) {
                    Some(t) => Ty::pointer(t, None, Cv::NONE),
                    None => Ty::unknown(),
                },
                None => Ty::unknown(),
            },
            Expr::Unary { op: UnaryOp::AddrOf, expr } => {
                let inner = *expr;
                let t = self.expr(inner, None);
                // the address of an lvalue in a space points into that space
                match t.strip().kind() {
                    TyKind::Reference { target, space, cv, .. } => Ty::pointer(target.clone(), *space, *cv),
                    _ => unary_type(UnaryOp::AddrOf, &t),
                }
            }
            Expr::Unary { op, expr } => {
                let (op, inner) = (*op, *expr);
                let t = self.expr(inner, None).non_reference();
                unary_type(op, &t)
            }
            Expr::Binary { op, lhs, rhs } => {
                let (op, lhs, rhs) = (*op, *lhs, *rhs);
                let left = self.expr(lhs, None);
                let b = self.expr(rhs, None).non_reference();
                let a = left.non_reference();
                if matches!(a.strip().kind(), TyKind::Class { .. }) || matches!(b.strip().kind(), TyKind::Class { .. })
                {
                    return self.user_operator(e, op.symbol(), &left, &[b]).unwrap_or_else(Ty::unknown);
                }
                binary_type(op, &a, &b)
            }
            Expr::Assign { lhs, rhs, .. } => {
                let (lhs, rhs) = (*lhs, *rhs);
                let a = self.expr(lhs, None);
                let target = a.non_reference();
                self.expr(rhs, Some(&target));
                a
            }
            Expr::Conditional { cond, then, other } => {
                let (cond, then, other) = (*cond, *then, *other);
                self.expr(cond, None);
                let a = self.expr(then, expected).non_reference();
                let b = self.expr(other, expected).non_reference();
                if a == b {
                    a
                } else if a.is_numeric() && b.is_numeric() {
                    binary_type(BinaryOp::Add, &a, &b)
                } else if a.is_unknown() {
                    b
                } else {
                    a
                }
            }
            Expr::Comma { lhs, rhs } => {
                let (lhs, rhs) = (*lhs, *rhs);
                self.expr(lhs, None);
                self.expr(rhs, expected)
            }
            Expr::Call { callee, args } => {
                let (callee, args) = (*callee, args.clone());
                self.call(e, callee, &args)
            }
            Expr::Member { base, name, arrow, .. } => {
                let (base, name, arrow) = (*base, name.clone(), *arrow);
                let t = self.expr(base, None);
                let (object, space, cv) = object_of(&t, arrow);
                match self.member(e, &object, &name) {
                    // a member of an object in an address space is in that space, and
                    // const in a const object
                    Some(m) if !matches!(m.strip().kind(), TyKind::Reference { .. } | TyKind::Function(_)) => {
                        Ty::reference(m, space, cv)
                    }
                    Some(m) => lvalue(m),
                    None => Ty::unknown(),
                }
            }
            Expr::Index { base, index } => {
                let (base, index) = (*base, *index);
                let whole = self.expr(base, None);
                let index_ty = self.expr(index, None).non_reference();
                let (t, space, cv) = object_of(&whole, false);
                let elem = match t.strip().kind() {
                    TyKind::Class { def, args, .. } => {
                        let (def, args) = (*def, args.clone());
                        return self.class_subscript(def, &args, (space, cv), &index_ty);
                    }
                    // an element of a pointer's target is in the pointer's space
                    TyKind::Pointer { pointee, space, cv } => return Ty::reference(pointee.clone(), *space, *cv),
                    TyKind::Array { elem, .. } => elem.clone(),
                    TyKind::Vector { elem, .. } => Ty::scalar(*elem),
                    TyKind::Matrix { elem, rows, .. } => Ty::vector(*elem, *rows),
                    _ => return lvalue(self.library_subscript(&t)),
                };
                Ty::reference(elem, space, cv)
            }
            Expr::Cast { ty, expr } => {
                let (ty, inner) = (ty.clone(), *expr);
                let target = ty.lower(self.r).ty;
                self.expr(inner, None);
                target
            }
            Expr::Construct { ty, args, .. } => {
                let (ty, args) = (ty.clone(), args.clone());
                let target = ty.lower(self.r).ty;
                let types: Vec<Ty> = args.iter().map(|a| self.expr(*a, None).non_reference()).collect();
                let target = self.deduced_class(target, &types);
                self.out.resolutions.insert(e, Resolution::Type(target.clone()));
                target
            }
            Expr::InitList { elems } => {
                let elems = elems.clone();
                let elem_expected = expected.and_then(|t| match t.strip().kind() {
                    TyKind::Array { elem, .. } => Some(elem.clone()),
                    _ => None,
                });
                for el in elems {
                    self.expr(el, elem_expected.as_ref());
                }
                expected.cloned().unwrap_or_else(Ty::unknown)
            }
            Expr::SizeofType(_) | Expr::Alignof(_) => Ty::scalar(Scalar::SizeT),
            Expr::SizeofExpr(inner) => {
                let inner = *inner;
                self.expr(inner, None);
                Ty::scalar(Scalar::SizeT)
            }
            Expr::Lambda { params, body } => {
                let (params, body) = (params.clone(), *body);
                for p in params {
                    self.local(p);
                }
                if let Some(b) = body {
                    let saved = self.ret.take();
                    self.stmt(b);
                    self.ret = saved;
                }
                Ty::unknown()
            }
        }
    }

    /// A name used as a value.
    fn path(&mut self, e: ExprId, p: &PathRef) -> Ty {
        // in the expression of a `decltype(...)` in a body: a local of the body
        if p.segments.len() == 1
            && !p.global
            && let Some(t) = self.r.values.as_ref().and_then(|v| v.get(p.name()).cloned())
        {
            return if matches!(t.strip().kind(), TyKind::Reference { .. }) { t } else { lvalue(t) };
        }
        // a template parameter of the function or its class
        if p.segments.len() == 1
            && !p.global
            && let Some(g) = self.r.generics.as_ref().and_then(|g| g.find(p.name()))
        {
            self.out.resolutions.insert(e, Resolution::Generic(g.name.clone()));
            return match &g.kind {
                crate::defs::GenericKind::Value { ty, .. } => ty.lower(self.r).ty,
                // a type parameter used as a value (`T(x)`): the type it is bound to
                _ => match self.r.bound(&g.name) {
                    Some(t) => {
                        self.out.resolutions.insert(e, Resolution::Type(t.clone()));
                        t
                    }
                    None => Ty::unknown(),
                },
            };
        }
        // dependent: `T::value`, known when `T` is bound to a class
        if p.segments.len() > 1
            && let Some(g) = &self.r.generics
            && g.find(&p.segments[0].name).is_some()
        {
            if let Some(t) = self.qualified_member(e, p) {
                return t;
            }
            self.out.resolutions.insert(e, Resolution::Generic(p.segments[0].name.clone()));
            return Ty::unknown();
        }
        let found = self.r.defs_of_path(p);
        // a member of a class named through an alias or a template's instance
        if found.is_empty()
            && p.segments.len() > 1
            && let Some(t) = self.qualified_member(e, p)
        {
            return t;
        }
        if let Some(&id) = found.first() {
            self.out.resolutions.insert(e, Resolution::Def(id));
            return match &self.r.defs.def(id).kind {
                DefKind::Variable { ty, .. } => {
                    let lowered = ty.lower(&self.r.for_def(id));
                    lvalue_in(lowered.ty, lowered.space, lowered.cv)
                }
                DefKind::Field(_) => lvalue(self.r.value_type_of_def(id)),
                DefKind::Enumerator { .. } | DefKind::Function(_) => self.r.value_type_of_def(id),
                _ => {
                    let args = self.lower_args(p);
                    match self.r.type_of_def(id, &args) {
                        Some(t) => {
                            self.out.resolutions.insert(e, Resolution::Type(t.clone()));
                            t
                        }
                        None => Ty::unknown(),
                    }
                }
            };
        }
        // the library
        let namespace: Vec<&str> = p.segments[..p.segments.len() - 1].iter().map(|s| &*s.name).collect();
        let entries = if namespace.is_empty() {
            self.lib.lookup(p.name()).to_vec()
        } else {
            self.lib.lookup_qualified(&namespace.join("::"), p.name())
        };
        for entry in &entries {
            match entry {
                Entry::Function(f) => {
                    self.out.resolutions.insert(e, Resolution::Library(f.name));
                    return Ty::unknown();
                }
                Entry::Constant(c) => {
                    self.out.resolutions.insert(e, Resolution::Library(c.name));
                    return library_text_type(c.ty);
                }
                Entry::Keyword(k) if k.name == "as_type" => {
                    self.out.resolutions.insert(e, Resolution::Library(k.name));
                    return Ty::unknown();
                }
                // an enumerator of a scoped enum is named through its enum (`access::read`)
                Entry::EnumMember(en, m) if !en.scoped || !namespace.is_empty() => {
                    self.out.resolutions.insert(e, Resolution::Library(m.name));
                    return Ty::library(en.name, Vec::new());
                }
                Entry::Type(_) | Entry::Enum(_) => {
                    let args = self.lower_args(p);
                    if let Some(t) = crate::ty::library_type(p.name(), &args) {
                        self.out.resolutions.insert(e, Resolution::Type(t.clone()));
                        return t;
                    }
                }
                _ => {}
            }
        }
        // the library's type predicates: `is_same_v<A, B>`, `is_integral<T>::value`
        let n = p.segments.len();
        let trait_name = if p.name().ends_with("_v") {
            Some(p.name())
        } else if n >= 2 && p.name() == "value" {
            Some(&*p.segments[n - 2].name)
        } else {
            None
        };
        if let Some(pred) = trait_name.and_then(crate::ty::traits::predicate) {
            self.out.resolutions.insert(e, Resolution::Library(pred));
            return Ty::bool();
        }
        // a numeric type used as a value (`float4` in `float4(...)` parsed as a call)
        if let Some(t) = crate::ty::library_type(p.name(), &self.lower_args(p)) {
            self.out.resolutions.insert(e, Resolution::Type(t.clone()));
            return t;
        }
        // names of the implementation (`__builtin_*`, `__metal_*`)
        if !p.name().starts_with("__") {
            self.out.unresolved_names.push(e);
        }
        Ty::unknown()
    }

    fn lower_args(&self, p: &PathRef) -> Vec<TemplateArg> {
        let Some(args) = p.segments.last().and_then(|s| s.args.as_ref()) else { return Vec::new() };
        let tr = TypeRef { base: crate::ty::TypeBase::Path(p.clone()), ..TypeRef::unknown() };
        match tr.lower(self.r).ty.strip().kind() {
            TyKind::Class { args, .. } | TyKind::Library { args, .. } => args.to_vec(),
            _ => crate::ty::lower_args(args, self.r),
        }
    }

    fn call(&mut self, e: ExprId, callee: ExprId, args: &[ExprId]) -> Ty {
        let arg_types: Vec<Ty> = args.iter().map(|a| self.expr(*a, None).non_reference()).collect();
        match self.body.exprs[callee.0 as usize].clone() {
            Expr::Member { base, name, arrow, .. } => {
                let t = self.expr(base, None);
                let (recv, space, cv) = object_of(&t, arrow);
                let result = self.method_call(callee, &recv, (space, cv), &name, &arg_types);
                if result.is_none() && !recv.is_uncertain() {
                    self.out.unresolved_calls.push(e);
                }
                result.unwrap_or_else(Ty::unknown)
            }
            _ => {
                let callee_ty = self.expr(callee, None);
                match self.out.resolutions.get(&callee).cloned() {
                    Some(Resolution::Library("as_type")) => {
                        // `as_type<T>(x)`: the bits of `x` as a `T`
                        let target = match self.callee_template_args(callee).first() {
                            Some(TemplateArg::Type(t)) => t.clone(),
                            _ => Ty::unknown(),
                        };
                        let arg = arg_types.first().cloned().unwrap_or_else(Ty::unknown);
                        self.set(callee, Ty::function(target.clone(), vec![arg], false));
                        target
                    }
                    Some(Resolution::Library(name)) => {
                        let explicit = self.callee_template_args(callee);
                        match self.library_call(name, &arg_types, &explicit) {
                            Some(f) => {
                                self.set(callee, f.clone());
                                fn_ret(&f)
                            }
                            None => {
                                if !arg_types.iter().any(Ty::is_uncertain) {
                                    self.out.unresolved_calls.push(e);
                                }
                                Ty::unknown()
                            }
                        }
                    }
                    // a type named as the callee makes an object (`float4(x)`, CTAD); an
                    // object made by the callee (`Op{}(x)`) is called
                    Some(Resolution::Type(t)) if matches!(self.body.exprs[callee.0 as usize], Expr::Path(_)) => {
                        self.deduced_class(t, &arg_types)
                    }
                    Some(Resolution::Type(_)) => self.call_object(e, &callee_ty, &arg_types),
                    Some(Resolution::Def(id)) => self.def_call(e, callee, id, &arg_types),
                    // an unqualified name ordinary lookup does not find: the functions of
                    // that name in the namespaces of the arguments' classes and enums
                    None if let Some(id) = self.argument_dependent(callee, &arg_types) => {
                        self.out.unresolved_names.retain(|n| *n != callee);
                        self.out.resolutions.insert(callee, Resolution::Def(id));
                        self.def_call(e, callee, id, &arg_types)
                    }
                    Some(Resolution::Generic(_)) => Ty::unknown(),
                    Some(Resolution::Local(_)) | None => self.call_object(e, &callee_ty, &arg_types),
                    Some(_) => Ty::unknown(),
                }
            }
        }
    }

    /// A call of a value: a function, a pointer to one, or an object with a call operator.
    fn call_object(&mut self, e: ExprId, callee_ty: &Ty, arg_types: &[Ty]) -> Ty {
        match callee_ty.non_reference().strip().kind() {
            TyKind::Function(f) => f.ret.clone(),
            // a function object: its call operator
            TyKind::Class { def, args: targs, .. } => {
                let (def, targs) = (*def, targs.clone());
                let (_, space, cv) = object_of(callee_ty, false);
                let found = self.class_members(def, "operator()");
                match self.pick_member(def, &targs, &found, arg_types, &[], (space, cv)) {
                    Some((_, f, _)) => fn_ret(&f),
                    None => {
                        if !arg_types.iter().any(Ty::is_uncertain) {
                            self.out.unresolved_calls.push(e);
                        }
                        Ty::unknown()
                    }
                }
            }
            TyKind::Pointer { pointee, .. } => match pointee.strip().kind() {
                TyKind::Function(f) => f.ret.clone(),
                _ => Ty::unknown(),
            },
            _ => {
                if !callee_ty.is_uncertain() {
                    self.out.unresolved_calls.push(e);
                }
                Ty::unknown()
            }
        }
    }

    /// Argument-dependent lookup of an unqualified callee: the first function of its name
    /// in the innermost namespace around a class or enum among the arguments' types
    /// (through pointers, references and arrays).
    fn argument_dependent(&self, callee: ExprId, args: &[Ty]) -> Option<DefId> {
        let Expr::Path(p) = &self.body.exprs[callee.0 as usize] else { return None };
        if p.global || p.segments.len() != 1 {
            return None;
        }
        let defs = self.r.defs;
        for a in args {
            let t = a.non_reference().strip();
            let t = match t.kind() {
                TyKind::Pointer { pointee, .. } => pointee.strip(),
                TyKind::Array { elem, .. } => elem.strip(),
                _ => t,
            };
            let (TyKind::Class { def, .. } | TyKind::Enum { def, .. }) = t.kind() else { continue };
            let scope = defs.namespace_of(defs.def(*def).scope);
            let found =
                defs.lookup_in(scope, p.name()).into_iter().find(|d| matches!(defs.def(*d).kind, DefKind::Function(_)));
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// The class template instance that qualifies a callee named with arguments before its
    /// last name (`Reducer<T, 40>::reduce`), as lowered in this body.
    fn qualifying_class(&self, callee: ExprId) -> Option<(DefId, Vec<TemplateArg>)> {
        let Expr::Path(p) = &self.body.exprs[callee.0 as usize] else { return None };
        let n = p.segments.len();
        if n < 2 || p.segments[n - 2].args.is_none() {
            return None;
        }
        let prefix = PathRef { global: p.global, segments: p.segments[..n - 1].to_vec() };
        let t = crate::ty::TypeRef { base: crate::ty::TypeBase::Path(prefix), ..crate::ty::TypeRef::unknown() }
            .lower(self.r)
            .ty
            .strip();
        match t.kind() {
            TyKind::Class { def, args, .. } if !args.is_empty() => Some((*def, args.to_vec())),
            _ => None,
        }
    }

    /// A call of a unit function: the overload whose parameters take the arguments.
    fn def_call(&mut self, e: ExprId, callee: ExprId, id: DefId, args: &[Ty]) -> Ty {
        let defs = self.r.defs;
        if !matches!(defs.def(id).kind, DefKind::Function(_)) {
            return Ty::unknown();
        }
        // the overload set: every function of that name in the scope that declares it
        let d = defs.def(id);
        let candidates: Vec<DefId> = defs
            .lookup_in(d.scope, &d.name)
            .into_iter()
            .filter(|c| matches!(defs.def(*c).kind, DefKind::Function(_)))
            .collect();
        let candidates = if candidates.is_empty() { vec![id] } else { candidates };
        let explicit = self.callee_template_args(callee);
        // `C<A>::f(...)`: a static member of the class the arguments select, its
        // parameters bound to them
        let (candidates, class) = match self.qualifying_class(callee) {
            Some((class_def, class_args)) => {
                let inner = defs.inner_scope(class_def);
                let own: Vec<DefId> = inner
                    .map(|s| defs.lookup_in(s, &d.name))
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|c| matches!(defs.def(*c).kind, DefKind::Function(_)))
                    .collect();
                let own = if own.is_empty() { candidates } else { own };
                (own, self.r.class_template_bindings(class_def, &class_args))
            }
            None => (candidates, FxHashMap::default()),
        };
        let unit = self.pick_overload(&candidates, args, &explicit, &class, None);
        // functions of the global namespace overload the library's of the same name (its
        // names are visible there as through `using namespace metal`): an exact match of
        // either wins, then the unit's, then the library's with conversions
        let in_metal = |scope: ScopeId| {
            scope == ScopeId::GLOBAL || {
                let data = defs.scope(scope);
                data.kind == ScopeKind::Namespace
                    && data.parent == Some(ScopeId::GLOBAL)
                    && data.owner.is_some_and(|o| &*defs.def(o).name == "metal")
            }
        };
        // qualified by nothing but `metal`
        let plain = match &self.body.exprs[callee.0 as usize] {
            Expr::Path(p) => p.segments.len() == 1 || (p.segments.len() == 2 && &*p.segments[0].name == "metal"),
            _ => true,
        };
        if in_metal(d.scope) && plain && unit.as_ref().is_none_or(|(_, _, cost)| *cost > 0) {
            let name = self.lib.functions(&d.name).next().map(|f| f.name);
            if let Some(name) = name
                && let Some((f, exact)) = self.library_overload(name, args, &explicit)
                && (exact || unit.is_none())
            {
                self.out.resolutions.insert(callee, Resolution::Library(name));
                self.set(callee, f.clone());
                return fn_ret(&f);
            }
        }
        let Some((chosen, f, _)) = unit else {
            if !args.iter().any(Ty::is_uncertain) {
                self.out.unresolved_calls.push(e);
            }
            return Ty::unknown();
        };
        self.out.resolutions.insert(callee, Resolution::Def(chosen));
        self.set(callee, f.clone());
        fn_ret(&f)
    }

    /// The overload of `candidates` (functions of the unit) that takes `args` at the
    /// lowest conversion cost, and its function type with template parameters bound:
    /// those of its class from `class`, its own from `explicit` arguments, then deduced
    /// from the arguments.
    ///
    /// `object` is the address space and constness of the object a member function is
    /// called on: a non-const member does not take a const object, one qualified with an
    /// address space takes objects in that space only, and an exact match of constness
    /// is preferred.
    fn pick_overload(
        &self,
        candidates: &[DefId],
        args: &[Ty],
        explicit: &[TemplateArg],
        class: &FxHashMap<Arc<str>, Ty>,
        object: Option<(Option<AddressSpace>, Cv)>,
    ) -> Option<(DefId, Ty, u32)> {
        let defs = self.r.defs;
        // cost, the function, its type, its template parameters' bindings
        type Best = (u32, DefId, Ty, FxHashMap<Arc<str>, Ty>);
        let mut best: Option<Best> = None;
        for &c in candidates {
            let DefKind::Function(f) = &defs.def(c).kind else { continue };
            let required = f.params.iter().take_while(|p| !p.has_default).count();
            if args.len() < required || (args.len() > f.params.len() && !f.variadic) {
                continue;
            }
            let mut cost = 0;
            if let Some((space, cv)) = object
                && !f.is_static
            {
                if cv.is_const && !f.is_const {
                    continue;
                }
                if let Some(want) = f.object_space
                    && want != space.unwrap_or(AddressSpace::Thread)
                {
                    continue;
                }
                if f.is_const != cv.is_const {
                    cost += 1;
                }
            }
            let fn_ty = self.r.value_type_of_def(c);
            let TyKind::Function(ft) = fn_ty.kind() else { continue };
            let mut bound = class.clone();
            if let Some(g) = &defs.def(c).generics {
                for (p, a) in g.params.iter().zip(explicit) {
                    match a {
                        TemplateArg::Type(t) => {
                            bound.insert(p.name.clone(), t.clone());
                        }
                        TemplateArg::Value(v) => {
                            bound.insert(p.name.clone(), value_placeholder(*v));
                        }
                        _ => {}
                    }
                }
                for (p, a) in ft.params.iter().zip(args) {
                    deduce_argument(&substitute(p, &bound), a, &mut bound);
                }
            }
            let mut ok = true;
            for (p, a) in ft.params.iter().zip(args) {
                let pt = substitute(&p.non_reference(), &bound);
                match conversion_cost(a, &pt) {
                    Some(k) => cost += k,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            // a definition wins over a declaration of the same function
            if ok
                && best.as_ref().is_none_or(|(b, prev, _, _)| {
                    cost < *b
                        || (cost == *b
                            && f.has_body
                            && matches!(&defs.def(*prev).kind, DefKind::Function(p) if !p.has_body))
                })
            {
                best = Some((cost, c, substitute(&fn_ty, &bound), bound));
            }
        }
        let (cost, chosen, t, bound) = best?;
        let args = self.record_instance(chosen, &bound);
        // `auto f(...)`: the type its body returns (an instantiation's, for a template)
        let t = match (&defs.def(chosen).kind, t.kind(), self.r.deduce) {
            (DefKind::Function(f), TyKind::Function(ft), Some(deduce))
                if f.ret.as_ref().is_some_and(|r| r.is_auto() && r.ops.is_empty()) =>
            {
                let deduced = match (&defs.def(chosen).generics, args) {
                    (None, _) => deduce(chosen, &Vec::new()),
                    (Some(_), Some(args)) => deduce(chosen, &args),
                    (Some(_), None) => None,
                };
                match deduced {
                    Some(ret) => Ty::function(ret, ft.params.clone(), ft.variadic),
                    None => t,
                }
            }
            _ => t,
        };
        Some((chosen, t, cost))
    }

    /// Notes that the body instantiates template function `chosen` with `bound` (when
    /// every parameter of it and of its enclosing class templates is known), and gives
    /// the instantiation's arguments.
    fn record_instance(&self, chosen: DefId, bound: &FxHashMap<Arc<str>, Ty>) -> Option<InstanceArgs> {
        let g = self.r.defs.def(chosen).generics.as_ref()?;
        let mut args = Vec::new();
        let mut level = Some(g.clone());
        while let Some(g) = level {
            for p in &g.params {
                match bound.get(&p.name) {
                    Some(t) if !t.is_uncertain() => args.push((p.name.clone(), t.clone())),
                    _ => return None,
                }
            }
            level = g.parent.clone();
        }
        args.sort_by(|a, b| a.0.cmp(&b.0));
        self.instances.borrow_mut().push(InstanceUse { def: chosen, args: args.clone(), at: self.current });
        Some(args)
    }

    /// A call of a library function by its overloads.
    /// The chosen overload's function type.
    fn library_call(&mut self, name: &str, args: &[Ty], explicit: &[TemplateArg]) -> Option<Ty> {
        self.library_overload(name, args, explicit).map(|(f, _)| f)
    }

    /// The chosen overload's function type, and whether it takes the arguments as they
    /// are.
    fn library_overload(&self, name: &str, args: &[Ty], explicit: &[TemplateArg]) -> Option<(Ty, bool)> {
        let overloads: Vec<&'static msl_stdlib::Overload> =
            self.lib.functions(name).flat_map(|f| f.overloads.iter()).collect();
        resolve_library_overloads_ranked(&overloads, args, &FxHashMap::default(), explicit)
    }

    /// The explicit template arguments of a callee (`f<float, 4>` in `f<float, 4>(x)`,
    /// `v.template get<0>` in a member call).
    fn callee_template_args(&self, callee: ExprId) -> Vec<TemplateArg> {
        let args = match &self.body.exprs[callee.0 as usize] {
            Expr::Path(p) => p.segments.last().and_then(|s| s.args.as_ref()),
            Expr::Member { template_args, .. } => template_args.as_ref(),
            _ => None,
        };
        args.map_or_else(Vec::new, |args| crate::ty::lower_args(args, self.r))
    }

    /// `recv.name(args)`: a member function of a class of the unit or of a library type.
    fn method_call(
        &mut self,
        callee: ExprId,
        recv: &Ty,
        object: (Option<AddressSpace>, Cv),
        name: &str,
        args: &[Ty],
    ) -> Option<Ty> {
        match recv.strip().kind() {
            TyKind::Class { def, args: targs, .. } => {
                let found = self.class_members(*def, name);
                let first = *found.first()?;
                let functions: Vec<DefId> = found
                    .iter()
                    .copied()
                    .filter(|c| matches!(self.r.defs.def(*c).kind, DefKind::Function(_)))
                    .collect();
                if functions.is_empty() {
                    // a data member that is called: its type's call operator
                    self.out.resolutions.insert(callee, Resolution::Def(first));
                    return Some(Ty::unknown());
                }
                let explicit = self.callee_template_args(callee);
                let (chosen, f, _) = self.pick_member(*def, targs, &functions, args, &explicit, object)?;
                self.out.resolutions.insert(callee, Resolution::Def(chosen));
                self.set(callee, f.clone());
                Some(fn_ret(&f))
            }
            TyKind::Library { name: type_name, args: targs } => {
                let methods: Vec<&'static msl_stdlib::Method> = self.lib.method(type_name, name).collect();
                if methods.is_empty() {
                    return None;
                }
                self.out.resolutions.insert(callee, Resolution::LibraryMethod(methods[0].name));
                let bound = class_bindings(type_name, targs);
                let overloads: Vec<&'static msl_stdlib::Overload> =
                    methods.iter().flat_map(|m| m.overloads.iter()).collect();
                match resolve_library_overloads(&overloads, args, &bound, &[]) {
                    Some(f) => {
                        self.set(callee, f.clone());
                        let explicit = self.callee_template_args(callee);
                        Some(finish_library_result(fn_ret(&f), targs, &explicit))
                    }
                    // no form of the method takes these arguments
                    None => None,
                }
            }
            TyKind::Unknown | TyKind::Param(_) => Some(Ty::unknown()),
            _ => None,
        }
    }

    /// `x.name`: a field of a class, components of a vector, a data member of a library
    /// type.
    fn member(&mut self, e: ExprId, t: &Ty, name: &str) -> Option<Ty> {
        match t.strip().kind() {
            TyKind::Class { def, args, .. } => {
                let found = self.class_members(*def, name);
                let id = *found.first()?;
                self.out.resolutions.insert(e, Resolution::Def(id));
                let bound = self.r.class_template_bindings(self.r.defs.owner_class(id).unwrap_or(*def), args);
                Some(substitute(&self.r.value_type_of_def(id), &bound))
            }
            TyKind::Vector { elem, len, .. } => {
                let n = swizzle_len(name, *len)?;
                self.out.resolutions.insert(e, Resolution::Swizzle);
                Some(if n == 1 { Ty::scalar(*elem) } else { Ty::vector(*elem, n) })
            }
            TyKind::Library { name: type_name, args } => {
                let member = self.lib.members_of(type_name).iter().find(|m| m.name == name)?;
                self.out.resolutions.insert(e, Resolution::LibraryMember(member.name));
                let bound = class_bindings(type_name, args);
                let ty = library_member_type(member.ty);
                Some(substitute(&ty, &bound))
            }
            TyKind::Unknown | TyKind::Param(_) => Some(Ty::unknown()),
            _ => None,
        }
    }

    /// In an instantiation of a member of class template `c`: the class's arguments.
    fn class_args(&self, c: DefId) -> Vec<TemplateArg> {
        let Some(g) = &self.r.defs.def(c).generics else { return Vec::new() };
        if self.r.bindings.is_none() {
            return Vec::new();
        }
        g.params
            .iter()
            .map_while(|p| {
                let t = self.r.bound(&p.name)?;
                Some(match t.kind() {
                    TyKind::Library { name: "__value", args } => args.first().cloned()?,
                    _ => TemplateArg::Type(t),
                })
            })
            .collect()
    }

    /// An operator on an object of a class: its member `operator@` (the left operand is
    /// the object) or a function `operator@` found from here, whichever takes the
    /// operands at the lower cost.
    fn user_operator(&mut self, e: ExprId, symbol: &str, left: &Ty, rest: &[Ty]) -> Option<Ty> {
        let name = format!("operator{symbol}");
        let (object, space, cv) = object_of(left, false);
        let mut best: Option<(Ty, u32)> = None;
        if let TyKind::Class { def, args, .. } = object.strip().kind() {
            let found = self.class_members(*def, &name);
            if let Some((_, f, cost)) = self.pick_member(*def, args, &found, rest, &[], (space, cv)) {
                best = Some((f, cost));
            }
        }
        let free: Vec<DefId> = self
            .r
            .lookup(&name)
            .into_iter()
            .filter(|d| matches!(self.r.defs.def(*d).kind, DefKind::Function(_)))
            .collect();
        if !free.is_empty() {
            let mut operands = vec![object.clone()];
            operands.extend(rest.iter().cloned());
            if let Some((_, f, cost)) = self.pick_overload(&free, &operands, &[], &FxHashMap::default(), None)
                && best.as_ref().is_none_or(|(_, c)| cost < *c)
            {
                best = Some((f, cost));
            }
        }
        let Some((f, _)) = best else {
            if !object.is_uncertain() && !rest.iter().any(Ty::is_uncertain) {
                self.out.unresolved_calls.push(e);
            }
            return None;
        };
        Some(fn_ret(&f))
    }

    /// `Q::name` where `Q` names a class type (an alias of one, a template's instance, a
    /// template parameter bound to one): the member's type, the class's parameters bound.
    fn qualified_member(&mut self, e: ExprId, p: &PathRef) -> Option<Ty> {
        let n = p.segments.len();
        let qualifier = PathRef { global: p.global, segments: p.segments[..n - 1].to_vec() };
        let qt = TypeRef { base: crate::ty::TypeBase::Path(qualifier), ..TypeRef::unknown() }.lower(self.r).ty;
        let TyKind::Class { def, args, .. } = qt.strip().kind().clone() else { return None };
        let found = self.class_members(def, p.name());
        let id = *found.first()?;
        let owner = self.r.defs.owner_class(id).unwrap_or(def);
        let bound = self.r.class_template_bindings(owner, &args);
        self.out.resolutions.insert(e, Resolution::Def(id));
        Some(match &self.r.defs.def(id).kind {
            DefKind::Variable { .. } | DefKind::Field(_) => lvalue(substitute(&self.r.value_type_of_def(id), &bound)),
            DefKind::Function(_) | DefKind::Enumerator { .. } => substitute(&self.r.value_type_of_def(id), &bound),
            _ => {
                let t = substitute(&self.r.type_of_def(id, &[])?, &bound);
                self.out.resolutions.insert(e, Resolution::Type(t.clone()));
                t
            }
        })
    }

    /// The members named `name` of a class, its own or else its bases'.
    fn class_members(&self, def: DefId, name: &str) -> Vec<DefId> {
        let Some(inner) = self.r.defs.inner_scope(def) else { return Vec::new() };
        let found = self.r.defs.lookup_in(inner, name);
        if found.is_empty() { self.r.lookup_in_bases(def, name, 0) } else { found }
    }

    /// [`Ctx::pick_overload`] among member functions `found` of class `def<targs>` (or
    /// of the base that declares them), called on an object with `object`'s address
    /// space and constness.
    fn pick_member(
        &self,
        def: DefId,
        targs: &[TemplateArg],
        found: &[DefId],
        args: &[Ty],
        explicit: &[TemplateArg],
        object: (Option<AddressSpace>, Cv),
    ) -> Option<(DefId, Ty, u32)> {
        let owner = self.r.defs.owner_class(*found.first()?).unwrap_or(def);
        let bound = self.r.class_template_bindings(owner, targs);
        self.pick_overload(found, args, explicit, &bound, Some(object))
    }

    /// `x[i]` on a class with `operator[]`.
    fn class_subscript(
        &mut self,
        def: DefId,
        targs: &[TemplateArg],
        object: (Option<AddressSpace>, Cv),
        index: &Ty,
    ) -> Ty {
        let found = self.class_members(def, "operator[]");
        match self.pick_member(def, targs, &found, std::slice::from_ref(index), &[], object) {
            Some((_, f, _)) => fn_ret(&f),
            None => Ty::unknown(),
        }
    }

    /// `x[i]` on a library type with `operator[]` (`array<T, N>`, tensors).
    fn library_subscript(&mut self, t: &Ty) -> Ty {
        if let TyKind::Library { name, args } = t.strip().kind() {
            if *name == "array" || *name == "array_ref" {
                if let Some(TemplateArg::Type(elem)) = args.first() {
                    return elem.clone();
                }
            }
            let bound = class_bindings(name, args);
            let overloads: Vec<&'static msl_stdlib::Overload> =
                self.lib.method(name, "operator[]").flat_map(|m| m.overloads.iter()).collect();
            if let Some(f) = resolve_library_overloads(&overloads, &[Ty::scalar(Scalar::Int)], &bound, &[]) {
                return fn_ret(&f);
            }
        }
        Ty::unknown()
    }
}

/// The return type of a function type.
fn fn_ret(f: &Ty) -> Ty {
    match f.kind() {
        TyKind::Function(f) => f.ret.clone(),
        _ => Ty::unknown(),
    }
}

/// The type a library constant's text names, parsed once per text.
fn library_text_type(text: &'static str) -> Ty {
    cached_text_type(text, false)
}

/// The type of a library type's data member, its class's parameters as placeholders;
/// parsed once per text.
fn library_member_type(text: &'static str) -> Ty {
    cached_text_type(text, true)
}

fn cached_text_type(text: &'static str, placeholders: bool) -> Ty {
    type Cache = std::sync::Mutex<FxHashMap<(usize, bool), Ty>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let key = (text.as_ptr() as usize, placeholders);
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(c) = cache.lock()
        && let Some(t) = c.get(&key)
    {
        return t.clone();
    }
    let t = match crate::ty::parse_type_text(text) {
        Some(t) if placeholders => t.lower(&LibraryPlaceholders).ty,
        Some(t) => t.lower(&crate::ty::LibraryOnly).ty,
        None => Ty::unknown(),
    };
    if let Ok(mut c) = cache.lock() {
        c.insert(key, t.clone());
    }
    t
}

/// Library names in member types resolve as placeholders (see [`crate::ty::signature`]).
struct LibraryPlaceholders;

impl TypeEnv for LibraryPlaceholders {
    fn resolve_type(&self, path: &PathRef, args: &[TemplateArg]) -> Option<Ty> {
        (path.segments.len() == 1 && crate::ty::library_type(path.name(), args).is_none())
            .then(|| Ty::param(path.name()))
    }
}

/// An object's type as an expression designating it: a reference to it (an lvalue).
/// The object an expression of type `t` names (through the pointer with `->`), with its
/// address space and constness.
fn object_of(t: &Ty, arrow: bool) -> (Ty, Option<AddressSpace>, Cv) {
    let s = t.strip();
    if arrow {
        let p = t.non_reference().strip();
        return match p.kind() {
            TyKind::Pointer { pointee, space, cv } => (pointee.clone(), *space, *cv),
            _ => (Ty::unknown(), None, Cv::NONE),
        };
    }
    match s.kind() {
        TyKind::Reference { target, space, cv, .. } => (target.clone(), *space, *cv),
        _ => (t.clone(), None, Cv::NONE),
    }
}

/// An lvalue of type `t` declared in `space` with `cv`.
fn lvalue_in(t: Ty, space: Option<AddressSpace>, cv: Cv) -> Ty {
    if t.is_unknown() || matches!(t.strip().kind(), TyKind::Reference { .. } | TyKind::Function(_)) {
        return t;
    }
    Ty::reference(t, space, cv)
}

fn lvalue(t: Ty) -> Ty {
    if t.is_unknown() || matches!(t.strip().kind(), TyKind::Reference { .. } | TyKind::Function(_)) {
        return t;
    }
    Ty::reference(t, None, Cv::NONE)
}

fn literal_type(l: Literal) -> Ty {
    match l {
        Literal::Int { value, unsigned, long } => Ty::scalar(match (unsigned, long) {
            (true, true) => Scalar::ULong,
            (false, true) => Scalar::Long,
            (true, false) if value > u64::from(u32::MAX) => Scalar::ULong,
            (true, false) => Scalar::UInt,
            (false, false) if value > i32::MAX as u64 => Scalar::Long,
            (false, false) => Scalar::Int,
        }),
        Literal::Float { half: true, .. } => Ty::scalar(Scalar::Half),
        Literal::Float { bfloat: true, .. } => Ty::scalar(Scalar::BFloat),
        // Metal has no `double`: an unsuffixed floating literal is a `float`
        Literal::Float { .. } => Ty::scalar(Scalar::Float),
        Literal::Bool(_) => Ty::bool(),
        Literal::Char => Ty::scalar(Scalar::Char),
        Literal::String => Ty::pointer(Ty::scalar(Scalar::Char), Some(AddressSpace::Constant), Cv::CONST),
        Literal::Nullptr => Ty::new(TyKind::Nullptr),
    }
}

/// Integer promotion: `bool`, `char` and `short` operands become `int`.
fn promote(s: Scalar) -> Scalar {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort => Scalar::Int,
        s => s,
    }
}

/// The usual arithmetic conversions of two scalars.
fn common_scalar(a: Scalar, b: Scalar) -> Scalar {
    if a.is_float() || b.is_float() {
        return match (a.is_float(), b.is_float()) {
            (true, true) => {
                if a.rank() >= b.rank() {
                    a
                } else {
                    b
                }
            }
            (true, false) => a,
            _ => b,
        };
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let (ua, ub) = (!a.is_signed(), !b.is_signed());
    if ua == ub {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (u, s) = if ua { (a, b) } else { (b, a) };
    if u.rank() >= s.rank() {
        u
    } else if s.size() > u.size() {
        s
    } else {
        match s {
            Scalar::Long | Scalar::PtrDiffT => Scalar::ULong,
            _ => Scalar::UInt,
        }
    }
}

fn unary_type(op: UnaryOp, t: &Ty) -> Ty {
    match op {
        UnaryOp::Deref => match t.strip().kind() {
            TyKind::Pointer { pointee, space, cv } => Ty::reference(pointee.clone(), *space, *cv),
            TyKind::Array { elem, .. } => Ty::reference(elem.clone(), None, Cv::NONE),
            _ => Ty::unknown(),
        },
        UnaryOp::AddrOf => {
            if t.is_unknown() {
                Ty::unknown()
            } else {
                Ty::pointer(t.clone(), None, Cv::NONE)
            }
        }
        UnaryOp::Not => match t.strip().kind() {
            TyKind::Vector { len, .. } => Ty::vector(Scalar::Bool, *len),
            _ => Ty::bool(),
        },
        UnaryOp::Neg | UnaryOp::Plus | UnaryOp::BitNot => match t.strip().kind() {
            TyKind::Scalar(s) => Ty::scalar(promote(*s)),
            TyKind::Enum { .. } => Ty::scalar(Scalar::Int),
            _ => t.clone(),
        },
        UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => t.clone(),
    }
}

fn binary_type(op: BinaryOp, a: &Ty, b: &Ty) -> Ty {
    let (sa, sb) = (a.strip(), b.strip());
    if matches!(op, BinaryOp::And | BinaryOp::Or) {
        return match (sa.kind(), sb.kind()) {
            (TyKind::Vector { len, .. }, _) | (_, TyKind::Vector { len, .. }) => Ty::vector(Scalar::Bool, *len),
            _ => Ty::bool(),
        };
    }
    if op.is_comparison() {
        return match (sa.kind(), sb.kind()) {
            (TyKind::Vector { len, .. }, _) | (_, TyKind::Vector { len, .. }) => Ty::vector(Scalar::Bool, *len),
            _ => Ty::bool(),
        };
    }
    // pointer arithmetic
    match (sa.kind(), sb.kind()) {
        (TyKind::Pointer { .. }, TyKind::Pointer { .. }) if op == BinaryOp::Sub => return Ty::scalar(Scalar::PtrDiffT),
        (TyKind::Pointer { .. }, _) => return a.clone(),
        (TyKind::Array { elem, .. }, _) => return Ty::pointer(elem.clone(), None, Cv::NONE),
        (_, TyKind::Pointer { .. }) if op == BinaryOp::Add => return b.clone(),
        _ => {}
    }
    if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
        return match sa.kind() {
            TyKind::Scalar(s) => Ty::scalar(promote(*s)),
            _ => a.clone(),
        };
    }
    let scalar = |t: &TyKind| match t {
        TyKind::Scalar(s) => Some(*s),
        TyKind::Enum { .. } => Some(Scalar::Int),
        _ => None,
    };
    match (sa.kind(), sb.kind()) {
        (x, y) if scalar(x).is_some() && scalar(y).is_some() => {
            Ty::scalar(common_scalar(scalar(x).unwrap_or(Scalar::Int), scalar(y).unwrap_or(Scalar::Int)))
        }
        // a vector with a scalar: the vector's type
        (TyKind::Vector { .. }, y) if scalar(y).is_some() => sa.clone(),
        (x, TyKind::Vector { .. }) if scalar(x).is_some() => sb.clone(),
        // vectors of one element type keep it: integer promotion is for scalars
        // (`ushort2 + ushort2` is a `ushort2`)
        (TyKind::Vector { elem: ea, len: la, .. }, TyKind::Vector { elem: eb, len: lb, .. }) if la == lb => {
            Ty::vector(if ea == eb { *ea } else { common_scalar(*ea, *eb) }, *la)
        }
        // matrices: `m * v`, `v * m`, `m * m`, with scalars
        (TyKind::Matrix { elem, rows, .. }, TyKind::Vector { .. }) if op == BinaryOp::Mul => Ty::vector(*elem, *rows),
        (TyKind::Vector { .. }, TyKind::Matrix { elem, cols, .. }) if op == BinaryOp::Mul => Ty::vector(*elem, *cols),
        (TyKind::Matrix { elem, rows, .. }, TyKind::Matrix { cols, .. }) if op == BinaryOp::Mul => {
            Ty::matrix(*elem, *cols, *rows)
        }
        (TyKind::Matrix { .. }, _) => sa.clone(),
        (_, TyKind::Matrix { .. }) => sb.clone(),
        _ => Ty::unknown(),
    }
}

/// How many components a swizzle names (`xyz`, `rg`), when it is one for a vector of
/// `len` elements.
fn swizzle_len(name: &str, len: u8) -> Option<u8> {
    if name.is_empty() || name.len() > 4 {
        return None;
    }
    let xyzw = name.chars().all(|c| matches!(c, 'x' | 'y' | 'z' | 'w'));
    let rgba = name.chars().all(|c| matches!(c, 'r' | 'g' | 'b' | 'a'));
    if !xyzw && !rgba {
        return None;
    }
    let index = |c: char| match c {
        'x' | 'r' => 0,
        'y' | 'g' => 1,
        'z' | 'b' => 2,
        _ => 3,
    };
    name.chars().all(|c| index(c) < len).then_some(name.len() as u8)
}

/// The `index`th element of a structured binding's object: a field of a class, an element
/// of an array or vector.
fn element_of(r: &Resolver<'_>, t: &Ty, index: usize) -> Ty {
    match t.strip().kind() {
        TyKind::Class { def, .. } => match &r.defs.def(*def).kind {
            DefKind::Class { fields, .. } => {
                let rr = r.for_def(*def);
                match fields.get(index).map(|f| &r.defs.def(*f).kind) {
                    Some(DefKind::Field(f)) => f.ty.lower(&rr).ty,
                    _ => Ty::unknown(),
                }
            }
            _ => Ty::unknown(),
        },
        TyKind::Array { elem, .. } => elem.clone(),
        TyKind::Vector { elem, .. } => Ty::scalar(*elem),
        _ => Ty::unknown(),
    }
}

/// The cost of passing an argument of type `from` for a parameter of type `to` (0 exact,
/// 1 a promotion or a qualification, 2 a conversion), `None` when it cannot be passed.
fn conversion_cost(from: &Ty, to: &Ty) -> Option<u32> {
    let (f, t) = (from.strip(), to.strip());
    if f == t || f.is_uncertain() || t.is_uncertain() {
        return Some(0);
    }
    match (f.kind(), t.kind()) {
        (TyKind::Scalar(_) | TyKind::Enum { .. }, TyKind::Scalar(_)) => Some(2),
        (TyKind::Scalar(_), TyKind::Vector { .. }) => Some(2),
        // no vector converts to a vector of other elements (MSL 4.1 section 2.24); packed
        // and aligned vectors of the same elements convert to each other
        (TyKind::Vector { len: a, elem: ea, .. }, TyKind::Vector { len: b, elem: eb, .. }) if a == b && ea == eb => {
            Some(1)
        }
        (TyKind::Pointer { pointee: a, .. }, TyKind::Pointer { pointee: b, .. }) if a.strip() == b.strip() => Some(1),
        (TyKind::Pointer { .. }, TyKind::Pointer { pointee, .. }) if matches!(pointee.kind(), TyKind::Void) => Some(2),
        (TyKind::Array { elem, .. }, TyKind::Pointer { pointee, .. }) if elem.strip() == pointee.strip() => Some(1),
        // a bound that is a template parameter takes any
        (TyKind::Array { elem: a, len: n }, TyKind::Array { elem: b, len: m })
            if conversion_cost(a, b) == Some(0) && (m.is_none() || n == m) =>
        {
            Some(0)
        }
        (TyKind::Nullptr, TyKind::Pointer { .. }) => Some(1),
        (TyKind::Class { def: a, .. }, TyKind::Class { def: b, .. }) if a == b => Some(0),
        (TyKind::Library { name: a, .. }, TyKind::Library { name: b, .. }) if a == b => Some(1),
        _ => None,
    }
}

/// Whether a template argument as written holds a `decltype` anywhere.
fn arg_has_decltype(a: &crate::ty::TypeArgRef) -> bool {
    let crate::ty::TypeArgRef::Type(t) = a else { return false };
    match &t.base {
        crate::ty::TypeBase::Decltype(_) => true,
        crate::ty::TypeBase::Path(p) => p.segments.iter().any(|s| s.args.iter().flatten().any(arg_has_decltype)),
        _ => false,
    }
}

/// Whether a type is unknown or made of an unknown somewhere (template parameters are
/// known: they are what a pattern binds).
fn holds_unknown(t: &Ty) -> bool {
    match t.strip().kind() {
        TyKind::Unknown => true,
        TyKind::Pointer { pointee: t, .. } | TyKind::Reference { target: t, .. } | TyKind::Array { elem: t, .. } => {
            holds_unknown(t)
        }
        TyKind::Class { args, .. } | TyKind::Library { args, .. } => {
            args.iter().any(|a| matches!(a, TemplateArg::Type(t) if holds_unknown(t)))
        }
        TyKind::Function(f) => holds_unknown(&f.ret) || f.params.iter().any(holds_unknown),
        _ => false,
    }
}

/// Binds the template parameters in `pattern` from `actual`.
/// [`deduce`] from a call's argument: a parameter taken by value sees an array argument
/// as a pointer.
fn deduce_argument(param: &Ty, arg: &Ty, bound: &mut FxHashMap<Arc<str>, Ty>) {
    let by_value = !matches!(param.strip().kind(), TyKind::Reference { .. });
    let arg = if by_value { crate::ty::decay(arg.non_reference()) } else { arg.clone() };
    deduce(&param.non_reference(), &arg, bound);
}

fn deduce(pattern: &Ty, actual: &Ty, bound: &mut FxHashMap<Arc<str>, Ty>) {
    let actual = actual.strip();
    match (pattern.strip().kind(), actual.kind()) {
        (TyKind::Param(n), _) => {
            bound.entry(n.clone()).or_insert_with(|| crate::ty::decay(actual.clone()));
        }
        (TyKind::Pointer { pointee: p, .. }, TyKind::Pointer { pointee: a, .. }) => deduce(p, a, bound),
        (TyKind::Reference { target: p, .. }, _) => deduce(p, &actual, bound),
        (TyKind::Array { elem: p, .. }, TyKind::Array { elem: a, .. }) => deduce(p, a, bound),
        (TyKind::Library { args: pa, .. }, TyKind::Library { args: aa, .. })
        | (TyKind::Class { args: pa, .. }, TyKind::Class { args: aa, .. }) => {
            for (p, a) in pa.iter().zip(aa.iter()) {
                if let (TemplateArg::Type(p), TemplateArg::Type(a)) = (p, a) {
                    deduce(p, a, bound);
                }
            }
        }
        _ => {}
    }
}

/// Whether type `a` is what `p` (a specialization's pattern with its parameters bound)
/// says: the same, where a pointer without an address space in the pattern stands for a
/// pointer into any (the space belongs to what `T` in `T*` stands for).
fn pattern_matches(p: &Ty, a: &Ty) -> bool {
    match (p.kind(), a.kind()) {
        (TyKind::Pointer { pointee: pp, space: None, cv: pc }, TyKind::Pointer { pointee: ap, cv: ac, .. }) => {
            pc == ac && pattern_matches(pp, ap)
        }
        (TyKind::Reference { target: pt, rvalue: pr, .. }, TyKind::Reference { target: at, rvalue: ar, .. }) => {
            pr == ar && pattern_matches(pt, at)
        }
        _ => p == a,
    }
}

/// `t` with its template parameters replaced by what they are bound to.
pub(crate) fn substitute(t: &Ty, bound: &FxHashMap<Arc<str>, Ty>) -> Ty {
    match t.kind() {
        TyKind::Param(n) => bound.get(n).cloned().unwrap_or_else(|| t.clone()),
        TyKind::Pointer { pointee, space, cv } => Ty::pointer(substitute(pointee, bound), *space, *cv),
        TyKind::Reference { target, space, cv, rvalue } => {
            Ty::new(TyKind::Reference { target: substitute(target, bound), space: *space, cv: *cv, rvalue: *rvalue })
        }
        TyKind::Array { elem, len } => Ty::array(substitute(elem, bound), *len),
        TyKind::Alias { target, .. } => substitute(target, bound),
        TyKind::Function(f) => {
            Ty::function(substitute(&f.ret, bound), f.params.iter().map(|p| substitute(p, bound)).collect(), f.variadic)
        }
        TyKind::Class { def, name, args } => Ty::new(TyKind::Class {
            def: *def,
            name: name.clone(),
            args: substitute_args(args, bound).into_boxed_slice(),
        }),
        TyKind::Library { name, args } => {
            let args = substitute_args(args, bound);
            crate::ty::library_type(name, &args).unwrap_or_else(|| Ty::library(name, args))
        }
        _ => t.clone(),
    }
}

/// Template arguments with placeholders replaced; a non-type placeholder bound to a value
/// becomes that value.
fn substitute_args(args: &[TemplateArg], bound: &FxHashMap<Arc<str>, Ty>) -> Vec<TemplateArg> {
    args.iter()
        .map(|a| match a {
            TemplateArg::Type(t) => {
                let t = substitute(t, bound);
                match t.kind() {
                    // a non-type placeholder bound to a value
                    TyKind::Library { name: "__value", args } => args.first().cloned().unwrap_or(a.clone()),
                    _ => TemplateArg::Type(t),
                }
            }
            TemplateArg::Name(n) => match bound.get(n).map(|t| t.kind()) {
                // a non-type placeholder bound to a value
                Some(TyKind::Library { name: "__value", args }) => args.first().cloned().unwrap_or(a.clone()),
                _ => a.clone(),
            },
            other => other.clone(),
        })
        .collect()
}

/// The placeholders a library type's template arguments bind (`texture2d<half>`: `T` is
/// `half`), by the parameter names of the type's template.
fn class_bindings(type_name: &str, args: &[TemplateArg]) -> FxHashMap<Arc<str>, Ty> {
    let mut bound = FxHashMap::default();
    let Some(def) = Stdlib::get().type_named(type_name) else { return bound };
    let Some(template) = def.template else { return bound };
    let inner = template.trim_start_matches("template").trim().trim_start_matches('<');
    let inner = inner.strip_suffix('>').unwrap_or(inner);
    for (i, param) in msl_stdlib::split_top_level(inner).into_iter().enumerate() {
        let mut parts = param.splitn(2, '=');
        let decl = parts.next().unwrap_or("").trim();
        let default = parts.next().map(str::trim);
        let Some(name) = decl.rsplit(|c: char| c.is_whitespace() || c == '.').next() else { continue };
        match (args.get(i), default) {
            (Some(TemplateArg::Type(t)), _) => {
                bound.insert(Arc::from(name), t.clone());
            }
            // a parameter left out takes its default when that is a type of the library
            (None, Some(d)) => {
                if let Some(t) = crate::ty::library_type(d, &[]) {
                    bound.insert(Arc::from(name), t);
                }
            }
            _ => {}
        }
    }
    // the member types the signatures name: the element's type, a tensor's `index_type`
    // (its extents')
    if template.contains("class ElementType") || template.contains("typename ElementType") {
        if let Some(TemplateArg::Type(e)) = args.first() {
            bound.insert(Arc::from("element_type"), e.clone());
            bound.insert(Arc::from("value_type"), e.clone());
        }
    }
    if let Some(TemplateArg::Type(extents)) = args.get(1)
        && let TyKind::Library { name: "extents" | "dextents", args: e } = extents.strip().kind()
        && let Some(TemplateArg::Type(index)) = e.first()
    {
        bound.insert(Arc::from("index_type"), index.clone());
        bound.insert(Arc::from("extents_type"), extents.clone());
    }
    bound
}

/// What is left of a library method's result once its placeholders are bound: a pack of
/// sizes takes the call's explicit values (`slice<8, 8>` views an `extents<int, 8, 8>`),
/// or without them every dimension is dynamic (the receiver's rank); packs nothing bound
/// (the view's extra tags) are empty.
fn finish_library_result(t: Ty, receiver_args: &[TemplateArg], explicit: &[TemplateArg]) -> Ty {
    let TyKind::Library { name, args } = t.kind() else { return t };
    let mut out = Vec::new();
    for a in args.iter() {
        match a {
            TemplateArg::Type(x) => match x.kind() {
                // an unbound pack of tags: none
                TyKind::Param(n) if n.ends_with("Tags") => continue,
                TyKind::Library { name: "extents", args: e }
                    if e.iter().skip(1).any(|x| match x {
                        TemplateArg::Type(p) => matches!(p.kind(), TyKind::Param(_)),
                        TemplateArg::Name(_) => true,
                        TemplateArg::Value(_) => false,
                    }) =>
                {
                    let rank = match receiver_args.get(1) {
                        Some(TemplateArg::Type(r)) => match r.strip().kind() {
                            TyKind::Library { name: "dextents", args } => match args.get(1) {
                                Some(TemplateArg::Value(v)) => Some(*v),
                                _ => None,
                            },
                            TyKind::Library { name: "extents", args } => Some(args.len() as i64 - 1),
                            _ => None,
                        },
                        _ => None,
                    };
                    let sizes: Vec<TemplateArg> =
                        explicit.iter().filter(|a| matches!(a, TemplateArg::Value(_))).cloned().collect();
                    match (rank, e.first()) {
                        (_, Some(index)) if !sizes.is_empty() => {
                            let mut args = vec![index.clone()];
                            args.extend(sizes);
                            out.push(TemplateArg::Type(Ty::library("extents", args)));
                        }
                        (Some(rank), Some(index)) => out.push(TemplateArg::Type(Ty::library(
                            "dextents",
                            vec![index.clone(), TemplateArg::Value(rank)],
                        ))),
                        _ => out.push(a.clone()),
                    }
                }
                _ => out.push(a.clone()),
            },
            _ => out.push(a.clone()),
        }
    }
    crate::ty::library_type(name, &out).unwrap_or_else(|| Ty::library(name, out))
}

/// The overload of `overloads` a call with `args` picks: an exact match of every
/// placeholder first, then one that needs conversions of concrete parameters; the result
/// type with placeholders bound, `None` when none applies.
///
/// `explicit` are the call's explicit template arguments (`f<float, 8>(x)`): they bind
/// the overload's placeholders in the order its `where` lists them. The answer is the
/// chosen overload's function type, its placeholders bound.
fn resolve_library_overloads(
    overloads: &[&'static msl_stdlib::Overload],
    args: &[Ty],
    class: &FxHashMap<Arc<str>, Ty>,
    explicit: &[TemplateArg],
) -> Option<Ty> {
    resolve_library_overloads_ranked(overloads, args, class, explicit).map(|(f, _)| f)
}

/// [`resolve_library_overloads`], and whether the overload takes the arguments without
/// conversions.
fn resolve_library_overloads_ranked(
    overloads: &[&'static msl_stdlib::Overload],
    args: &[Ty],
    class: &FxHashMap<Arc<str>, Ty>,
    explicit: &[TemplateArg],
) -> Option<(Ty, bool)> {
    let sigs: Vec<(&'static msl_stdlib::Overload, Arc<LibSignature>)> =
        overloads.iter().filter_map(|o| Some((*o, crate::ty::signature(o)?))).collect();
    for strict in [true, false] {
        for (o, sig) in &sigs {
            if args.len() < sig.required() || (args.len() > sig.params.len() && !sig.variadic) {
                continue;
            }
            let mut bound = class.clone();
            if !bind_explicit(o, explicit, &mut bound) {
                continue;
            }
            if let Some(f) = match_overload(o, sig, args, &mut bound, strict) {
                return Some((f, strict));
            }
        }
    }
    None
}

/// Binds explicit template arguments to an overload's placeholders in order; `false`
/// when one is not among the types the placeholder allows.
fn bind_explicit(o: &msl_stdlib::Overload, explicit: &[TemplateArg], bound: &mut FxHashMap<Arc<str>, Ty>) -> bool {
    for (b, arg) in o.bindings.iter().zip(explicit) {
        match (b.spec, arg) {
            (BindingSpec::Set(_, members) | BindingSpec::Types(members), TemplateArg::Type(t)) => {
                let t = t.strip();
                if t.is_uncertain() {
                    continue;
                }
                if !members.iter().any(|m| type_name_matches(m, &t)) {
                    return false;
                }
                bound.insert(Arc::from(b.name), t);
            }
            (_, TemplateArg::Value(v)) => {
                bound.insert(Arc::from(b.name), value_placeholder(*v));
            }
            _ => {}
        }
    }
    true
}

/// A non-type placeholder's value, held as a type for [`substitute`].
/// How an instantiation's argument is shown: a type, or a non-type argument's value.
pub fn display_bound(t: &Ty) -> String {
    match t.kind() {
        TyKind::Library { name: "__value", args } => match args.first() {
            Some(TemplateArg::Value(v)) => v.to_string(),
            _ => t.to_string(),
        },
        _ => t.to_string(),
    }
}

fn value_placeholder(v: i64) -> Ty {
    Ty::library("__value", vec![TemplateArg::Value(v)])
}

fn match_overload(
    o: &msl_stdlib::Overload,
    sig: &LibSignature,
    args: &[Ty],
    bound: &mut FxHashMap<Arc<str>, Ty>,
    strict: bool,
) -> Option<Ty> {
    // placeholders first from the arguments whose parameter is one
    for (p, a) in sig.params.iter().zip(args) {
        let pt = p.ty.non_reference();
        if let TyKind::Param(name) = pt.strip().kind() {
            let a = crate::ty::decay(a.strip());
            if a.is_uncertain() {
                continue;
            }
            match bound.get(name) {
                Some(b) if *b != a && strict => return None,
                Some(_) => {}
                None => {
                    // a placeholder made from others (`Tb = bool_of(T)`, `Tv = vec_of(T, 4)`)
                    // is derived below, never taken from its argument
                    if o.bindings.iter().any(|b| b.name == &**name && matches!(b.spec, BindingSpec::Derived(_))) {
                        continue;
                    }
                    if let Some(members) = set_members(o, name) {
                        if !strict {
                            // chosen below from the members that take the arguments
                            continue;
                        }
                        if !members.iter().any(|m| type_name_matches(m, &a)) {
                            return None;
                        }
                    }
                    bound.insert(name.clone(), a);
                }
            }
        } else {
            deduce(&pt, a, bound);
        }
    }
    // as if the library declared one overload per member of a set: the member that takes
    // the arguments with the fewest conversions (`smoothstep(0, 1, x)` is the float one)
    if !strict {
        for b in o.bindings {
            let (BindingSpec::Set(_, members) | BindingSpec::Types(members)) = b.spec else { continue };
            if bound.contains_key(b.name) {
                continue;
            }
            let taking: Vec<&Ty> = sig
                .params
                .iter()
                .zip(args)
                .filter(|(p, _)| matches!(p.ty.non_reference().strip().kind(), TyKind::Param(n) if **n == *b.name))
                .map(|(_, a)| a)
                .collect();
            if taking.is_empty() {
                continue;
            }
            let best = members
                .iter()
                .filter_map(|m| crate::ty::numeric_type(m))
                .filter_map(|m| {
                    let cost = taking.iter().try_fold(0u32, |sum, a| {
                        let a = crate::ty::decay(a.strip());
                        if a == m { Some(sum) } else { conversion_cost(&a, &m).map(|c| sum + c) }
                    })?;
                    Some((cost, m))
                })
                .min_by_key(|(cost, _)| *cost);
            match best {
                Some((_, m)) => {
                    bound.insert(Arc::from(b.name), m);
                }
                None => return None,
            }
        }
    }
    // derived placeholders: `Tv = vec_of(T, 4)`, `Ti = int_of(T)`; a non-type one with a
    // single value
    for b in o.bindings {
        if let BindingSpec::Values([v]) = b.spec
            && !bound.contains_key(b.name)
            && let Ok(v) = v.parse()
        {
            bound.insert(Arc::from(b.name), value_placeholder(v));
        }
        if let BindingSpec::Derived(spec) = b.spec
            && !bound.contains_key(b.name)
            && let Some(t) = derive(spec, bound)
        {
            bound.insert(Arc::from(b.name), t);
        }
    }
    // every concrete parameter must take its argument
    for (p, a) in sig.params.iter().zip(args) {
        let pt = substitute(&p.ty.non_reference(), bound);
        if a.is_uncertain() {
            continue;
        }
        if pt.is_uncertain() {
            if !could_match(&pt, a) {
                return None;
            }
            continue;
        }
        let a = a.strip();
        let exact = crate::ty::decay(a.clone()) == pt.strip() || conversion_cost(&a, &pt) == Some(1);
        if !exact && (strict || conversion_cost(&a, &pt).is_none()) {
            return None;
        }
    }
    let params = sig.params.iter().map(|p| substitute(&p.ty, bound)).collect();
    Some(Ty::function(substitute(&sig.ret, bound), params, sig.variadic))
}

/// Whether a parameter type that still holds placeholders can take an argument of type
/// `actual`: a library template takes only that template, a pointer only a pointer or an
/// array.
fn could_match(pattern: &Ty, actual: &Ty) -> bool {
    let actual = actual.non_reference().strip();
    if actual.is_uncertain() {
        return true;
    }
    match pattern.strip().kind() {
        TyKind::Library { name, .. } => matches!(actual.kind(), TyKind::Library { name: n, .. } if n == name),
        TyKind::Pointer { pointee, .. } => match actual.kind() {
            TyKind::Pointer { pointee: a, .. } | TyKind::Array { elem: a, .. } => could_match(pointee, a),
            TyKind::Nullptr => true,
            _ => false,
        },
        TyKind::Reference { target, .. } => could_match(target, &actual),
        _ => true,
    }
}

/// The types a placeholder of an overload ranges over, when its `where` lists them.
fn set_members(o: &msl_stdlib::Overload, name: &str) -> Option<&'static [&'static str]> {
    match o.bindings.iter().find(|b| b.name == name)?.spec {
        BindingSpec::Set(_, members) | BindingSpec::Types(members) => Some(members),
        _ => None,
    }
}

/// Whether a type set's member name (`float`, `half4`, `int`) is the type `t`.
fn type_name_matches(member: &str, t: &Ty) -> bool {
    crate::ty::numeric_type(member).is_some_and(|m| m == t.strip()) || t.strip().to_string() == member
}

fn derive(spec: &str, bound: &FxHashMap<Arc<str>, Ty>) -> Option<Ty> {
    let (func, args) = spec.strip_suffix(')')?.split_once('(')?;
    let mut parts = args.split(',').map(str::trim);
    let base = bound.get(parts.next()?)?.strip();
    let scalar = base.scalar_of()?;
    let len = base.vector_len();
    let with = |s: Scalar| match len {
        Some(n) => Ty::vector(s, n),
        None => Ty::scalar(s),
    };
    Some(match func.trim() {
        "vec_of" => Ty::vector(scalar, parts.next()?.parse().ok()?),
        "scalar_of" => Ty::scalar(scalar),
        "bool_of" => with(Scalar::Bool),
        "int_of" => with(Scalar::Int),
        "uint_of" => with(Scalar::UInt),
        _ => return None,
    })
}

/// Dumps every expression's type in source order, for `check_infer` tests: one line per
/// expression with its text and type, and one per local.
pub fn dump(body: &Body, map: &crate::body::BodySourceMap, result: &InferenceResult, text: &str) -> String {
    use std::fmt::Write;
    let mut lines: Vec<(u32, u32, String)> = Vec::new();
    for (i, range) in map.local_ranges.iter().enumerate() {
        let local = &body.locals[i];
        if local.name.is_empty() {
            continue;
        }
        lines.push((
            u32::from(range.start()),
            u32::from(range.end()),
            format!("{} {}: {}", "local", local.name, result.local_types[i]),
        ));
    }
    for (i, range) in map.expr_ranges.iter().enumerate() {
        if result.is_discarded(ExprId(i as u32)) {
            continue;
        }
        let t = &result.expr_types[i];
        let snippet: String = text
            .get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let snippet = if snippet.chars().count() > 40 {
            format!("{}...", snippet.chars().take(37).collect::<String>())
        } else {
            snippet
        };
        lines.push((u32::from(range.start()), u32::from(range.end()), format!("{snippet}: {t}")));
    }
    lines.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    lines.dedup();
    let mut out = String::new();
    for (s, e, l) in lines {
        let _ = writeln!(out, "{s}..{e} {l}");
    }
    out
}
