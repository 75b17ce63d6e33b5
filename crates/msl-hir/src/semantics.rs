//! The semantic model as an editor asks it: what a name at a place of the tree means,
//! the type of an expression, the members of a type, where a definition is.
//!
//! [`Semantics`] is a view of one unit at one revision. It answers from the salsa
//! queries (definitions, bodies, inference), so answers computed for diagnostics are
//! reused. Places are tree ranges and tokens of the unit's parse (as `parse_unit` gives
//! it); mapping them to files is the caller's business.

use std::sync::Arc;

use msl_stdlib::Stdlib;
use msl_syntax::{Parse, SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

use crate::body::{Body, BodySourceMap, Expr, ExprId, LocalId, LocalKind};
use crate::db::{Db, FunctionId, Unit};
use crate::defs::{DefKind, DefSource, DefSourceMap, Defs, Generics, ScopeId};
use crate::infer::{InferenceResult, Resolution, Resolver};
use crate::ty::{DefId, PathRef, Ty, TyKind};

/// What a name means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Definition {
    /// A parameter or local variable of a function.
    Local(LocalDef),
    /// A definition of the unit: namespace, class, enum, enumerator, function, variable,
    /// field, alias.
    Def(DefId),
    /// A template parameter, by name.
    Generic(Arc<str>),
    /// A function, constant, type or enumerator of the library, by name.
    Library(&'static str),
    /// A member function of a library type (`type_name` is the library's name of it).
    LibraryMethod { type_name: &'static str, name: &'static str },
    /// A data member of a library type.
    LibraryMember { type_name: &'static str, name: &'static str },
    /// Components of a vector (`v.xy`): the vector's type and the components named.
    Swizzle { vector: Ty, components: Arc<str> },
    /// A type used as a value (`float4(...)`): the type.
    Type(Ty),
}

/// A parameter or local variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalDef {
    pub name: Arc<str>,
    /// The tree range of its name.
    pub name_range: TextRange,
    pub ty: Ty,
    pub is_param: bool,
    /// Its declared type leaves the type to the initializer (`auto`, `decltype`).
    pub deduced: bool,
}

/// A member of a type, for completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: Arc<str>,
    pub kind: MemberKind,
    /// The member's type (a function type for methods), when known.
    pub ty: Option<Ty>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberKind {
    /// A data member of a class of the unit.
    Field(DefId),
    /// A member function of a class of the unit.
    Method(DefId),
    /// Components of a vector.
    Swizzle,
    /// A member function of a library type: the type's library name.
    LibraryMethod(&'static str),
    /// A data member of a library type.
    LibraryMember(&'static str),
}

/// A function's threadgroup memory (see [`Semantics::threadgroup_memory`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadgroupMemory {
    /// Bytes the body declares.
    pub declared: u64,
    /// Every declaration's size is known (else `declared` is a lower bound).
    pub complete: bool,
    /// Threadgroup buffers among the parameters, sized by the host.
    pub host_sized: usize,
}

/// One unit's semantic model at one revision.
pub struct Semantics<'db> {
    db: &'db dyn Db,
    parse: Arc<Parse>,
    defs: Arc<Defs>,
    sources: Arc<DefSourceMap>,
    functions: Vec<FunctionId<'db>>,
    /// The tree range of each function, in file order.
    ranges: Vec<TextRange>,
    /// Definitions by the range of their name (made on first use).
    by_name: std::cell::OnceCell<rustc_hash::FxHashMap<TextRange, DefId>>,
}

impl<'db> Semantics<'db> {
    pub fn new(db: &'db dyn Db, unit: Unit) -> Semantics<'db> {
        let parse = crate::db::parse_unit(db, unit).clone();
        let ranges = crate::db::green_functions(parse.green())
            .into_iter()
            .map(|(at, node)| TextRange::at(at, node.text_len()))
            .collect();
        let functions = crate::db::functions(db, unit);
        let defs = crate::db::unit_defs(db, unit).clone();
        let sources = crate::db::unit_def_source(db, unit);
        Semantics { db, parse, defs, sources, functions, ranges, by_name: Default::default() }
    }

    pub fn parse(&self) -> &Arc<Parse> {
        &self.parse
    }

    pub fn defs(&self) -> &Defs {
        &self.defs
    }

    /// The first declaration of the entity `id` declares: a function's first declaration
    /// with the same parameter types in the same scope (its prototype, when it has one), a
    /// class's first declaration (a forward declaration, when there is one). Every
    /// declaration of one entity has the same canonical declaration; overloads differ.
    pub fn canonical_def(&self, id: DefId) -> DefId {
        let d = self.defs.def(id);
        let same = |other: &DefKind| match (&d.kind, other) {
            (DefKind::Function(f), DefKind::Function(g)) => {
                f.params.len() == g.params.len()
                    && f.params.iter().zip(&g.params).all(|(a, b)| a.ty == b.ty)
                    && f.is_const == g.is_const
                    && f.variadic == g.variadic
            }
            (DefKind::Class { .. }, DefKind::Class { pattern: p2, .. }) => {
                matches!(&d.kind, DefKind::Class { pattern, .. } if pattern == p2)
            }
            (DefKind::Enum { .. }, DefKind::Enum { .. }) => true,
            (DefKind::Variable { .. }, DefKind::Variable { .. }) => true,
            _ => false,
        };
        if !matches!(
            d.kind,
            DefKind::Function(_) | DefKind::Class { .. } | DefKind::Enum { .. } | DefKind::Variable { .. }
        ) {
            return id;
        }
        self.defs
            .lookup_in(d.scope, &d.name)
            .into_iter()
            .filter(|o| *o == id || same(&self.defs.def(*o).kind))
            .min_by_key(|o| (self.def_source(*o).map(|s| s.name.start()), o.0))
            .unwrap_or(id)
    }

    /// Where a definition is.
    pub fn def_source(&self, id: DefId) -> Option<DefSource> {
        self.sources.get(id)
    }

    /// The definition declared by the name at `name` (a tree range).
    pub fn def_declared_at(&self, name: TextRange) -> Option<DefId> {
        let map = self.by_name.get_or_init(|| {
            let mut map = rustc_hash::FxHashMap::default();
            for (i, s) in self.sources.sources.iter().enumerate() {
                if !s.name.is_empty() {
                    map.entry(s.name).or_insert(DefId(i as u32));
                }
            }
            map
        });
        map.get(&name).copied()
    }

    /// The qualified name of a definition (`geo::Ray::origin`).
    pub fn qualified_name(&self, id: DefId) -> String {
        self.defs.qualified_name(id)
    }

    /// The function whose tree range holds `offset`.
    fn function_at(&self, offset: TextSize) -> Option<usize> {
        let i = self.ranges.partition_point(|r| r.start() <= offset).checked_sub(1)?;
        self.ranges[i].contains(offset).then_some(i)
    }

    fn body(&self, i: usize) -> &'db (Body, BodySourceMap) {
        crate::db::function_body(self.db, self.functions[i])
    }

    fn inference(&self, i: usize) -> &'db InferenceResult {
        crate::db::infer_function(self.db, self.functions[i])
    }

    /// The expression of a function whose syntax is `node`.
    fn expr_of(&self, node: &SyntaxNode) -> Option<(usize, ExprId)> {
        let i = self.function_at(node.text_range().start())?;
        let start = self.ranges[i].start();
        let range = node.text_range().checked_sub(start)?;
        Some((i, self.body(i).1.expr_for(range)?))
    }

    /// The type of the expression `node`, when it is one and its type is known.
    pub fn type_of_expr(&self, node: &SyntaxNode) -> Option<Ty> {
        let (i, e) = self.expr_of(node)?;
        let t = self.inference(i).type_of(e);
        (!t.is_unknown()).then_some(t)
    }

    /// The local declared by the name token at `name` (a tree range).
    pub fn local_declared_at(&self, name: TextRange) -> Option<LocalDef> {
        let i = self.function_at(name.start())?;
        let start = self.ranges[i].start();
        let (_, map) = self.body(i);
        let l = map.local_ranges.iter().position(|r| *r + start == name)?;
        Some(self.local_def(i, LocalId(l as u32)))
    }

    fn local_def(&self, i: usize, l: LocalId) -> LocalDef {
        let (body, map) = self.body(i);
        let local = &body.locals[l.0 as usize];
        let ty = self.inference(i).local_types.get(l.0 as usize).cloned().unwrap_or_else(Ty::unknown);
        LocalDef {
            name: local.name.clone(),
            name_range: map.local_ranges[l.0 as usize] + self.ranges[i].start(),
            ty,
            is_param: local.kind == LocalKind::Param,
            deduced: local.ty.is_auto()
                || matches!(local.ty.base, crate::ty::TypeBase::Decltype(_))
                || matches!(local.kind, LocalKind::Binding { .. }),
        }
    }

    /// The locals in scope at `offset` (a tree offset), innermost first: declared before
    /// it in a block or statement that has not ended there; one hidden by a later local of
    /// the same name is left out.
    pub fn locals_visible_at(&self, offset: TextSize) -> Vec<LocalDef> {
        let Some(i) = self.function_at(offset) else { return Vec::new() };
        let start = self.ranges[i].start();
        let (body, map) = self.body(i);
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for l in (0..body.locals.len()).rev() {
            let (Some(name), Some(end)) = (map.local_ranges.get(l), map.local_scope_ends.get(l)) else { continue };
            if name.end() + start > offset || offset >= *end + start {
                continue;
            }
            let local = self.local_def(i, LocalId(l as u32));
            if !local.name.is_empty() && seen.insert(local.name.clone()) {
                out.push(local);
            }
        }
        out
    }

    /// The locals of the functions that overlap `range` (a tree range) whose names are in
    /// it, in order.
    pub fn locals_in(&self, range: TextRange) -> Vec<LocalDef> {
        let mut out = Vec::new();
        for (i, r) in self.ranges.iter().enumerate() {
            if r.end() < range.start() || r.start() > range.end() {
                continue;
            }
            let (body, _) = self.body(i);
            out.extend(
                (0..body.locals.len())
                    .map(|l| self.local_def(i, LocalId(l as u32)))
                    .filter(|l| range.contains_range(l.name_range)),
            );
        }
        out
    }

    /// What the identifier `tok` means: a name in an expression (through inference), the
    /// name a declaration declares, or a name in a type or qualifier (looked up from the
    /// scope around it).
    pub fn resolve_token(&self, tok: &SyntaxToken) -> Option<Definition> {
        if tok.kind() != SyntaxKind::IDENT {
            return None;
        }
        if let Some(l) = self.local_declared_at(tok.text_range()) {
            return Some(Definition::Local(l));
        }
        if let Some(d) = self.def_declared_at(tok.text_range()) {
            return Some(Definition::Def(d));
        }
        if let Some(d) = self.resolve_in_expression(tok) {
            return Some(d);
        }
        self.resolve_path_token(tok)
    }

    /// `tok` names an expression (a path, a member) whose resolution inference made.
    fn resolve_in_expression(&self, tok: &SyntaxToken) -> Option<Definition> {
        let node = tok.parent()?;
        if !matches!(node.kind(), SyntaxKind::PATH_EXPR | SyntaxKind::MEMBER_EXPR) {
            return None;
        }
        // only the last name of the node is the expression's (`a` of `a::b` is not)
        let last = node
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind() == SyntaxKind::IDENT)
            .last()?;
        if last != *tok {
            return None;
        }
        let (i, e) = self.expr_of(&node)?;
        let (body, _) = self.body(i);
        let result = self.inference(i);
        if let Expr::Local(l) = &body.exprs[e.0 as usize] {
            return Some(Definition::Local(self.local_def(i, *l)));
        }
        let receiver = match &body.exprs[e.0 as usize] {
            Expr::Member { base, .. } => Some(result.type_of(*base)),
            _ => None,
        };
        Some(match result.resolutions.get(&e)? {
            Resolution::Local(l) => Definition::Local(self.local_def(i, *l)),
            Resolution::Def(d) => Definition::Def(*d),
            Resolution::Generic(g) => Definition::Generic(g.clone()),
            Resolution::Library(n) => Definition::Library(n),
            Resolution::LibraryMethod(n) => Definition::LibraryMethod { type_name: library_name(&receiver?)?, name: n },
            Resolution::LibraryMember(n) => Definition::LibraryMember { type_name: library_name(&receiver?)?, name: n },
            Resolution::Swizzle => {
                Definition::Swizzle { vector: object(&receiver?), components: Arc::from(tok.text()) }
            }
            Resolution::Type(t) => Definition::Type(t.clone()),
        })
    }

    /// `tok` is a name of a path (a type, a qualifier, a name outside bodies): looked up
    /// from the scope around it, with the segments before it as qualifiers.
    fn resolve_path_token(&self, tok: &SyntaxToken) -> Option<Definition> {
        let node = tok.parent()?;
        let mut path = crate::ty::path_of(&node)?;
        let index = node
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind() == SyntaxKind::IDENT)
            .position(|t| t == *tok)?;
        if index >= path.segments.len() || &*path.segments[index].name != tok.text() {
            return None;
        }
        path.segments.truncate(index + 1);
        let (scope, generics) = self.scope_at(tok.text_range().start());
        if path.segments.len() == 1
            && !path.global
            && let Some(g) = &generics
            && g.find(tok.text()).is_some()
        {
            return Some(Definition::Generic(Arc::from(tok.text())));
        }
        if path.segments.len() == 1
            && let Some(l) = self.local_named_before(tok.text_range().start(), tok.text())
        {
            return Some(Definition::Local(l));
        }
        let resolver = Resolver::new(&self.defs, scope, generics);
        if let Some(d) = resolver.def_of_path(&path) {
            return Some(Definition::Def(d));
        }
        // a member of a class named through an alias or a template's instance
        if path.segments.len() > 1 {
            let qualifier = PathRef { global: path.global, segments: path.segments[..index].to_vec() };
            let qt = crate::ty::TypeRef { base: crate::ty::TypeBase::Path(qualifier), ..crate::ty::TypeRef::unknown() }
                .lower(&resolver)
                .ty;
            if let TyKind::Class { def, .. } = qt.strip().kind() {
                let found = self.class_member(*def, tok.text());
                if let Some(d) = found {
                    return Some(Definition::Def(d));
                }
            }
        }
        None
    }

    /// The local named `name` in scope at `offset`.
    fn local_named_before(&self, offset: TextSize, name: &str) -> Option<LocalDef> {
        self.locals_visible_at(offset).into_iter().find(|l| &*l.name == name)
    }

    /// The scope that encloses `offset` and the template parameters in view there.
    pub fn scope_at(&self, offset: TextSize) -> (ScopeId, Option<Arc<Generics>>) {
        if let Some(i) = self.function_at(offset)
            && let Some(Some(f)) = self.defs.function_defs.get(i)
        {
            let d = self.defs.def(*f);
            return (d.scope, d.generics.clone());
        }
        // the innermost namespace block, class or enum whose declaration holds `offset`
        let mut best: Option<(TextRange, ScopeId, Option<Arc<Generics>>)> = None;
        let mut consider = |range: TextRange, scope: ScopeId, generics: Option<Arc<Generics>>| {
            if range.contains(offset) && best.as_ref().is_none_or(|(r, _, _)| r.contains_range(range)) {
                best = Some((range, scope, generics));
            }
        };
        for (i, s) in self.sources.sources.iter().enumerate() {
            let id = DefId(i as u32);
            let d = self.defs.def(id);
            if matches!(d.kind, DefKind::Class { .. } | DefKind::Enum { .. })
                && let Some(inner) = self.defs.inner_scope(id)
            {
                consider(s.full, inner, d.generics.clone());
            }
        }
        for (range, scope) in &self.sources.namespace_blocks {
            consider(*range, *scope, None);
        }
        match best {
            Some((_, scope, generics)) => (scope, generics),
            None => (ScopeId::GLOBAL, None),
        }
    }

    /// The member named `name` of a class, its own or a base's.
    fn class_member(&self, class: DefId, name: &str) -> Option<DefId> {
        let resolver = self.resolver_for(class);
        std::iter::once(class).chain(resolver.bases_of(class)).find_map(|c| {
            let inner = self.defs.inner_scope(c)?;
            self.defs.lookup_in(inner, name).into_iter().next()
        })
    }

    /// The names a qualifier `q::` reaches when `q` is definition `def`: a namespace's (its
    /// inline namespaces' too), a class's (static and instance members, nested types,
    /// its bases' members after its own), an enum's enumerators; through an alias, those
    /// of the type it names. Each name once, the first definition found.
    pub fn names_in(&self, def: DefId) -> Vec<DefId> {
        let mut def = def;
        for _ in 0..16 {
            match &self.defs.def(def).kind {
                DefKind::Alias { .. } => match self.type_of_def(def).and_then(|t| self.def_of_type(&t)) {
                    Some(d) if d != def => def = d,
                    _ => return Vec::new(),
                },
                _ => break,
            }
        }
        let scopes: Vec<ScopeId> = match &self.defs.def(def).kind {
            DefKind::Class { .. } => std::iter::once(def)
                .chain(self.resolver_for(def).bases_of(def))
                .filter_map(|c| self.defs.inner_scope(c))
                .collect(),
            DefKind::Namespace { inner } | DefKind::Enum { inner, .. } => {
                let mut all = vec![*inner];
                let mut k = 0;
                while k < all.len() && all.len() < 256 {
                    all.extend(self.defs.scope(all[k]).inline_children.iter().copied());
                    k += 1;
                }
                all
            }
            _ => return Vec::new(),
        };
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for scope in scopes {
            let mut names: Vec<(&Arc<str>, &Vec<DefId>)> = self.defs.scope(scope).names.iter().collect();
            names.sort_by_key(|(_, ids)| ids.first().copied());
            for (name, ids) in names {
                if name.is_empty() || !seen.insert(name.clone()) {
                    continue;
                }
                if let Some(&first) = ids.first() {
                    out.push(first);
                }
            }
        }
        out
    }

    /// What the qualifier right before a `::` token names (`Outer::`, `ns::`,
    /// `Pick<float, 2>::`): the name before it, or before its template argument list.
    pub fn qualifier_of(&self, colons: &SyntaxToken) -> Option<Definition> {
        // the token before, skipping trivia (by offset: an empty node in between, as error
        // recovery leaves, would end `prev_token`)
        let root = colons.parent_ancestors().last()?;
        let prev = |t: &SyntaxToken| {
            let mut at = t.clone();
            loop {
                let start = at.text_range().start();
                if start == TextSize::from(0) {
                    return None;
                }
                at = root.token_at_offset(start).left_biased()?;
                if !at.kind().is_trivia() {
                    return Some(at);
                }
            }
        };
        let mut name = prev(colons)?;
        let close = name.clone();
        if matches!(name.kind(), SyntaxKind::R_ANGLE | SyntaxKind::SHR) {
            // back over the argument list to its `<`
            let mut depth = 0u32;
            let mut at = name.clone();
            loop {
                match at.kind() {
                    SyntaxKind::R_ANGLE => depth += 1,
                    SyntaxKind::SHR => depth += 2,
                    SyntaxKind::L_ANGLE => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    SyntaxKind::SEMI | SyntaxKind::L_CURLY | SyntaxKind::R_CURLY => return None,
                    _ => {}
                }
                at = prev(&at)?;
            }
            name = prev(&at)?;
            // the class the arguments select: the name and its arguments lowered as a type
            let range = TextRange::new(name.text_range().start(), close.text_range().end());
            let text = root.text().slice(range).to_string();
            if let Some(t) = crate::ty::parse_type_text(&text) {
                let (scope, generics) = self.scope_at(name.text_range().start());
                let r = Resolver::new(&self.defs, scope, generics);
                if let Some(d) = self.def_of_type(&t.lower(&r).ty) {
                    return Some(Definition::Def(d));
                }
            }
        }
        self.resolve_token(&name)
    }

    /// The classes of the unit a class names as its bases, in the order written (bases
    /// that are template parameters or library types are left out).
    pub fn direct_bases(&self, class: DefId) -> Vec<DefId> {
        let DefKind::Class { bases, .. } = &self.defs.def(class).kind else { return Vec::new() };
        let r = self.resolver_for(class);
        bases
            .iter()
            .filter_map(|b| match &b.base {
                crate::ty::TypeBase::Path(p) => r.def_of_path(p),
                _ => None,
            })
            .filter(|b| *b != class)
            .collect()
    }

    fn resolver_for(&self, id: DefId) -> Resolver<'_> {
        let d = self.defs.def(id);
        Resolver::new(&self.defs, d.scope, d.generics.clone())
    }

    /// The type of a variable, field, enumerator or function (a function type); the type
    /// a class, enum or alias names.
    pub fn type_of_def(&self, id: DefId) -> Option<Ty> {
        let r = self.resolver_for(id);
        let t = match &self.defs.def(id).kind {
            DefKind::Class { .. } | DefKind::Enum { .. } | DefKind::Alias { .. } => r.type_of_def(id, &[])?,
            _ => r.value_type_of_def(id),
        };
        (!t.is_unknown()).then_some(t)
    }

    /// The size and alignment of a type, when the analysis knows them.
    pub fn layout_of(&self, ty: &Ty) -> Option<crate::layout::Layout> {
        let r = Resolver::new(&self.defs, ScopeId::GLOBAL, None);
        crate::layout::layout_of(&r, ty)
    }

    /// The layout of a class that is not a template, with its data members' offsets.
    pub fn class_layout(&self, class: DefId) -> Option<crate::layout::ClassLayout> {
        if self.defs.def(class).generics.is_some() {
            return None;
        }
        let r = Resolver::new(&self.defs, ScopeId::GLOBAL, None);
        crate::layout::class_layout(&r, class, &[])
    }

    /// The value of a constant or enumerator, when it can be computed.
    pub fn const_value(&self, id: DefId) -> Option<i64> {
        let r = self.resolver_for(id);
        crate::consteval::Evaluator::new(&r).def_value(id).ok()
    }

    /// The threadgroup memory of a function: what its body declares
    /// (`threadgroup float tile[256];`) and how many of its parameters are threadgroup
    /// buffers the host sizes (`[[threadgroup(n)]]`).
    pub fn threadgroup_memory(&self, function: DefId) -> Option<ThreadgroupMemory> {
        let DefKind::Function(f) = &self.defs.def(function).kind else { return None };
        let i = f.function? as usize;
        if i >= self.functions.len() {
            return None;
        }
        let (body, _) = self.body(i);
        let result = self.inference(i);
        let mut total = 0u64;
        let mut complete = true;
        let mut any = false;
        let mut host_sized = 0;
        for (l, local) in body.locals.iter().enumerate() {
            if local.kind == LocalKind::Param && local.ty.space == Some(crate::ty::AddressSpace::Threadgroup) {
                host_sized += 1;
                any = true;
                continue;
            }
            // the object itself in threadgroup memory, not a pointer or reference to it
            let indirect =
                local.ty.ops.iter().any(|o| {
                    matches!(o, crate::ty::TypeRefOp::Pointer { .. } | crate::ty::TypeRefOp::Reference { .. })
                });
            if local.ty.space != Some(crate::ty::AddressSpace::Threadgroup)
                || local.kind == LocalKind::Param
                || indirect
            {
                continue;
            }
            any = true;
            match result.local_types.get(l).and_then(|t| self.layout_of(t)) {
                Some(layout) => total = total.saturating_add(layout.size),
                None => complete = false,
            }
        }
        any.then_some(ThreadgroupMemory { declared: total, complete, host_sized })
    }

    /// The definition of the class or enum a type is (through aliases, references and
    /// pointers), for "go to type definition".
    pub fn def_of_type(&self, ty: &Ty) -> Option<DefId> {
        match object(ty).strip().kind() {
            TyKind::Class { def, .. } | TyKind::Enum { def, .. } => Some(*def),
            _ => None,
        }
    }

    /// The library's name of a library type, vector, matrix or scalar (through aliases,
    /// references and pointers): `texture2d`, `float4`.
    pub fn library_type_name(&self, ty: &Ty) -> Option<&'static str> {
        match object(ty).strip().kind() {
            TyKind::Library { name, .. } => Some(name),
            TyKind::Vector { .. } | TyKind::Matrix { .. } | TyKind::Scalar(_) => {
                let text = object(ty).strip().to_string();
                Stdlib::get().type_named(&text).map(|t| t.name)
            }
            _ => None,
        }
    }

    /// The members a value of type `ty` offers after `.` (after `->` for a pointer):
    /// fields and member functions of a class and its bases, a vector's components, a
    /// library type's member functions and data members.
    pub fn members_of(&self, ty: &Ty) -> Vec<Member> {
        let mut out = Vec::new();
        let t = object(ty);
        match t.strip().kind() {
            TyKind::Class { def, args, .. } => {
                let resolver = self.resolver_for(*def);
                let bound = resolver.class_template_bindings(*def, args);
                let mut seen = rustc_hash::FxHashSet::default();
                for c in std::iter::once(*def).chain(resolver.bases_of(*def)) {
                    let Some(inner) = self.defs.inner_scope(c) else { continue };
                    let mut ids: Vec<DefId> = self.defs.scope(inner).names.values().flatten().copied().collect();
                    ids.sort();
                    for id in ids {
                        let d = self.defs.def(id);
                        let kind = match &d.kind {
                            DefKind::Field(_) | DefKind::Variable { .. } => MemberKind::Field(id),
                            DefKind::Function(f) if !d.name.starts_with("operator") && !d.name.starts_with('~') => {
                                // constructors are not called through an object
                                if f.ret.is_none() {
                                    continue;
                                }
                                MemberKind::Method(id)
                            }
                            _ => continue,
                        };
                        // a derived class's member hides a base's of the same name
                        if matches!(kind, MemberKind::Field(_)) && !seen.insert(d.name.clone()) {
                            continue;
                        }
                        let ty = self
                            .type_of_def(id)
                            .map(|t| if c == *def { crate::infer::substitute(&t, &bound) } else { t });
                        out.push(Member { name: d.name.clone(), kind, ty });
                    }
                }
            }
            TyKind::Vector { elem, len, .. } => {
                for set in ["xyzw", "rgba"] {
                    let comps = &set[..*len as usize];
                    for c in comps.chars() {
                        out.push(Member {
                            name: Arc::from(c.to_string()),
                            kind: MemberKind::Swizzle,
                            ty: Some(Ty::scalar(*elem)),
                        });
                    }
                    for n in 2..=*len {
                        out.push(Member {
                            name: Arc::from(&comps[..n as usize]),
                            kind: MemberKind::Swizzle,
                            ty: Some(Ty::vector(*elem, n)),
                        });
                    }
                }
            }
            TyKind::Library { name, .. } => {
                let lib = Stdlib::get();
                let mut seen = rustc_hash::FxHashSet::default();
                for m in lib.methods_of(name) {
                    if seen.insert(m.name) {
                        out.push(Member { name: Arc::from(m.name), kind: MemberKind::LibraryMethod(name), ty: None });
                    }
                }
                for m in lib.members_of(name) {
                    out.push(Member { name: Arc::from(m.name), kind: MemberKind::LibraryMember(name), ty: None });
                }
            }
            _ => {}
        }
        out
    }
}

/// What `.` applies to: the type itself, or what a pointer points to (for `->`), without
/// references.
fn object(ty: &Ty) -> Ty {
    let t = ty.non_reference();
    match t.strip().kind() {
        TyKind::Pointer { pointee, .. } => pointee.non_reference(),
        _ => t,
    }
}

/// The library's name of a library type (through references and pointers).
fn library_name(ty: &Ty) -> Option<&'static str> {
    match object(ty).strip().kind() {
        TyKind::Library { name, .. } => Some(name),
        _ => None,
    }
}
