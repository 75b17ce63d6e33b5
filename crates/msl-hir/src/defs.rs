//! The unit's definitions: every namespace, class, enum, function, variable and alias
//! declared outside function bodies, numbered ([`DefId`]), in nested scopes ([`ScopeId`]).
//!
//! Nothing here holds a position in the text, so an edit inside a function body leaves the
//! definitions equal: the queries that read them (types of declarations, other functions'
//! inference) are not run again. A definition is found again in the syntax by its place in
//! a walk over the declarations (`DefData::node`), which body edits do not change either.

use std::sync::Arc;

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, TextRange};
use rustc_hash::FxHashMap;

use crate::ty::{DefId, PathRef, TypeRef};

/// A scope of declarations: the global namespace, a namespace, a class, an enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeId(pub u32);

impl ScopeId {
    pub const GLOBAL: ScopeId = ScopeId(0);
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defs {
    pub defs: Vec<DefData>,
    pub scopes: Vec<ScopeData>,
    /// The unit's functions (as `crate::db::functions` lists them) by index: the
    /// definition each is, when it is one.
    pub function_defs: Vec<Option<DefId>>,
    /// Explicit instantiations (`template kernel void k<float>(device float *);`): the
    /// scope they are written in and the name with its template arguments.
    pub explicit_instantiations: Vec<(ScopeId, PathRef)>,
    /// `static_assert`s outside function bodies, in order (their places are in the
    /// [`DefSourceMap`]).
    pub static_asserts: Vec<StaticAssertData>,
    /// Classes whose layout `alignas` changes (their own or a member's).
    pub class_alignas: Vec<DefId>,
    /// Deduction guides (`template <class T> Box(T) -> Box<T>;`), in order.
    pub deduction_guides: Vec<DeductionGuide>,
    /// Members declared `private` or `protected` (a `class`'s members before any access
    /// specifier too), in order.
    pub non_public: Vec<DefId>,
    /// Classes that declare friends (their private members may be used elsewhere).
    pub befriended: Vec<DefId>,
    /// Class templates declared without a definition (`template <...> struct S;`), by name:
    /// such a declaration may give default arguments the definition does not repeat.
    pub declared_templates: Vec<Arc<str>>,
}

/// A deduction guide: the class template it is for (by name, in `scope`), its
/// parameters and the class it deduces, in terms of its own template parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeductionGuide {
    pub name: Arc<str>,
    pub scope: ScopeId,
    pub generics: Option<Arc<Generics>>,
    pub params: Vec<TypeRef>,
    pub result: TypeRef,
}

/// An expression the definitions keep for constant evaluation: lowered on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstExpr {
    pub body: crate::body::Body,
    pub expr: crate::body::ExprId,
}

impl ConstExpr {
    pub fn lower(expr: &SyntaxNode) -> Arc<ConstExpr> {
        let (body, expr) = crate::body::lower_expression(expr);
        Arc::new(ConstExpr { body, expr })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticAssertData {
    pub scope: ScopeId,
    pub generics: Option<Arc<Generics>>,
    pub cond: Arc<ConstExpr>,
    pub message: Option<Arc<str>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeData {
    pub kind: ScopeKind,
    pub parent: Option<ScopeId>,
    /// The definition that owns the scope (a namespace, class or enum), if any.
    pub owner: Option<DefId>,
    /// The names declared directly in the scope, each with its definitions in order.
    pub names: FxHashMap<Arc<str>, Vec<DefId>>,
    /// `using namespace a::b;` written in the scope.
    pub using_directives: Vec<PathRef>,
    /// `using a::b;` and `using Base::member;` written in the scope.
    pub using_declarations: Vec<PathRef>,
    /// An inline (or unnamed) namespace: its names are also found in its parent.
    pub inline: bool,
    /// The inline and unnamed namespaces declared directly in this one.
    pub inline_children: Vec<ScopeId>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Global,
    Namespace,
    Class,
    Enum,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefData {
    pub name: Arc<str>,
    pub kind: DefKind,
    /// The scope that declares it (for a member defined outside its class, the class).
    pub scope: ScopeId,
    /// Template parameters, when it is a template (or a member of one: see
    /// [`Defs::generics_of`]).
    pub generics: Option<Arc<Generics>>,
    /// Its place among the declarations (see the module's documentation).
    pub node: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefKind {
    Namespace {
        inner: ScopeId,
    },
    /// `namespace a = b::c;`
    NamespaceAlias {
        target: PathRef,
    },
    Class {
        inner: ScopeId,
        key: ClassKey,
        bases: Vec<TypeRef>,
        /// The non-static data members in order (an anonymous union or struct member is
        /// one, without a name, whose own members are also names of this class).
        fields: Vec<DefId>,
        /// Defined here (not only declared).
        defined: bool,
        /// For a specialization (`struct S<int, N> {`), the arguments it is for, as
        /// written (in terms of its own template parameters, for a partial one).
        pattern: Option<Vec<crate::ty::TypeArgRef>>,
    },
    Enum {
        inner: ScopeId,
        scoped: bool,
        underlying: Option<TypeRef>,
    },
    Enumerator {
        parent: DefId,
        /// Its value when the initializer is a literal (or it follows one).
        value: Option<i64>,
        /// Its initializer when that is not a literal (evaluated on demand).
        init: Option<Arc<ConstExpr>>,
        /// Without an initializer: the enumerator before it (this one is that plus one).
        prev: Option<DefId>,
    },
    Function(Box<FunctionData>),
    /// A variable of a namespace, or a static data member.
    Variable {
        ty: TypeRef,
        /// The value of a literal initializer.
        value: Option<i64>,
        /// The initializer of a constant (`constexpr`, `const`, `constant`) that is not a
        /// literal, evaluated on demand.
        init: Option<Arc<ConstExpr>>,
    },
    /// A non-static data member (also listed in its class's `fields`).
    Field(FieldData),
    /// `typedef` and `using X = ...`.
    Alias {
        target: TypeRef,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassKey {
    Struct,
    Class,
    Union,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldData {
    pub name: Arc<str>,
    pub ty: TypeRef,
    /// A default member initializer (`float k = 1.0f;`, `S s{};`).
    pub has_init: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionData {
    /// What it returns (`None` for constructors, destructors and conversion functions).
    pub ret: Option<TypeRef>,
    pub params: Vec<ParamData>,
    pub variadic: bool,
    pub is_static: bool,
    /// `const` after the parameters (a member function for const objects).
    pub is_const: bool,
    /// An address space after the parameters (`T& operator[](int i) device`): the member
    /// function of objects in that space.
    pub object_space: Option<crate::ty::AddressSpace>,
    /// The function's number among the unit's functions, when it has a body or is
    /// otherwise one of them (see [`Defs::function_defs`]).
    pub function: Option<u32>,
    /// A definition (with a body), not only a declaration.
    pub has_body: bool,
    /// A `constexpr` function's body, for constant evaluation.
    pub constexpr_body: Option<Arc<crate::body::Body>>,
    /// An entry point: `kernel`, `vertex`, `fragment` or an attribute that makes one.
    pub stage: Option<ast::Stage>,
    /// Written with a qualified name (`S::f`): a member defined outside its class.
    pub qualified: bool,
    /// `= delete`.
    pub deleted: bool,
    /// `explicit` (a constructor or conversion function that is not used implicitly).
    pub explicit: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamData {
    pub name: Option<Arc<str>>,
    pub ty: TypeRef,
    pub has_default: bool,
}

/// Template parameters.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Generics {
    pub params: Vec<GenericParam>,
    /// The generics of the enclosing template (a member of a class template).
    pub parent: Option<Arc<Generics>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenericParam {
    pub name: Arc<str>,
    pub kind: GenericKind,
    pub pack: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenericKind {
    Type { default: Option<TypeRef> },
    Value { ty: TypeRef, has_default: bool },
    Template,
}

impl Generics {
    /// The parameter named `name`, here or in an enclosing template.
    pub fn find(&self, name: &str) -> Option<&GenericParam> {
        self.params.iter().find(|p| &*p.name == name).or_else(|| self.parent.as_deref()?.find(name))
    }
}

impl Defs {
    /// The definitions named `name` in any scope (those declared under their name; a
    /// lookup per scope, not a scan of every definition), each once, in order.
    pub fn named(&self, name: &str) -> Vec<DefId> {
        let mut ids: Vec<DefId> = self.scopes.iter().filter_map(|s| s.names.get(name)).flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Whether a member is `private` or `protected`.
    pub fn is_non_public(&self, id: DefId) -> bool {
        self.non_public.binary_search(&id).is_ok()
    }

    pub fn def(&self, id: DefId) -> &DefData {
        &self.defs[id.0 as usize]
    }

    pub fn scope(&self, id: ScopeId) -> &ScopeData {
        &self.scopes[id.0 as usize]
    }

    /// The definitions named `name` declared directly in `scope` (and in the inline
    /// namespaces it holds).
    pub fn lookup_in(&self, scope: ScopeId, name: &str) -> Vec<DefId> {
        let data = self.scope(scope);
        let mut out: Vec<DefId> = data.names.get(name).cloned().unwrap_or_default();
        for inner in &data.inline_children {
            out.extend(self.lookup_in(*inner, name));
        }
        out
    }

    /// The innermost namespace (or the global scope) around `scope`.
    pub fn namespace_of(&self, mut scope: ScopeId) -> ScopeId {
        while matches!(self.scope(scope).kind, ScopeKind::Class | ScopeKind::Enum) {
            match self.scope(scope).parent {
                Some(p) => scope = p,
                None => break,
            }
        }
        scope
    }

    /// The class a member belongs to.
    pub fn owner_class(&self, id: DefId) -> Option<DefId> {
        let scope = self.scope(self.def(id).scope);
        if scope.kind == ScopeKind::Class { scope.owner } else { None }
    }

    /// The scope a definition opens (namespaces, classes, enums).
    pub fn inner_scope(&self, id: DefId) -> Option<ScopeId> {
        match &self.def(id).kind {
            DefKind::Namespace { inner } | DefKind::Class { inner, .. } | DefKind::Enum { inner, .. } => Some(*inner),
            _ => None,
        }
    }

    /// The qualified name of a definition (`geo::Ray`, `Mode::fast`).
    pub fn qualified_name(&self, id: DefId) -> String {
        let d = self.def(id);
        let mut parts = vec![d.name.to_string()];
        let mut scope = Some(d.scope);
        while let Some(s) = scope {
            let data = self.scope(s);
            if let Some(owner) = data.owner {
                let name = &self.def(owner).name;
                if !name.is_empty() {
                    parts.push(name.to_string());
                }
            }
            scope = data.parent;
        }
        parts.reverse();
        parts.join("::")
    }

    /// The definitions a qualified path's first segments name, then its last (`a::b::C`),
    /// starting the search for the first segment at `from` (outward).
    pub fn enclosing_scopes(&self, from: ScopeId) -> impl Iterator<Item = ScopeId> + '_ {
        std::iter::successors(Some(from), move |s| self.scope(*s).parent)
    }
}

impl Defs {
    /// A readable listing of the scopes and what they declare (for tests).
    pub fn dump(&self) -> String {
        let mut out = String::new();
        self.dump_scope(ScopeId::GLOBAL, 0, &mut out);
        out
    }

    fn dump_scope(&self, scope: ScopeId, depth: usize, out: &mut String) {
        use std::fmt::Write;
        let data = self.scope(scope);
        let pad = "  ".repeat(depth);
        for p in &data.using_directives {
            let _ = writeln!(out, "{pad}using namespace {p}");
        }
        for p in &data.using_declarations {
            let _ = writeln!(out, "{pad}using {p}");
        }
        let mut ids: Vec<DefId> =
            self.defs.iter().enumerate().filter(|(_, d)| d.scope == scope).map(|(i, _)| DefId(i as u32)).collect();
        ids.sort();
        for id in ids {
            let d = self.def(id);
            let generics = d.generics.as_ref().map_or(String::new(), |g| {
                let names: Vec<&str> = g.params.iter().map(|p| &*p.name).collect();
                format!("template<{}> ", names.join(", "))
            });
            let what = match &d.kind {
                DefKind::Namespace { .. } => "namespace".to_string(),
                DefKind::NamespaceAlias { target } => format!("namespace alias = {target}"),
                DefKind::Class { key, bases, fields, .. } => {
                    let bases: Vec<String> = bases
                        .iter()
                        .map(|b| match &b.base {
                            crate::ty::TypeBase::Path(p) => p.to_string(),
                            _ => "?".into(),
                        })
                        .collect();
                    format!(
                        "{key:?} bases [{}] fields [{}]",
                        bases.join(", "),
                        fields.iter().map(|f| &*self.def(*f).name).collect::<Vec<_>>().join(", ")
                    )
                }
                DefKind::Enum { scoped, .. } => format!("enum{}", if *scoped { " class" } else { "" }),
                DefKind::Enumerator { value, .. } => format!("enumerator = {value:?}"),
                DefKind::Function(f) => format!(
                    "fn({}) #{}{}{}",
                    f.params.len(),
                    f.function.map_or("-".to_string(), |i| i.to_string()),
                    if f.qualified { " out-of-class" } else { "" },
                    f.stage.map_or(String::new(), |s| format!(" {s:?}"))
                ),
                DefKind::Variable { value, .. } => format!("variable = {value:?}"),
                DefKind::Field(_) => "field".to_string(),
                DefKind::Alias { .. } => "alias".to_string(),
            };
            let _ = writeln!(out, "{pad}{generics}{} : {what}", if d.name.is_empty() { "<unnamed>" } else { &d.name });
            if let Some(inner) = self.inner_scope(id) {
                self.dump_scope(inner, depth + 1, out);
            }
        }
    }
}

/// Builds the definitions of a unit's tree.
/// Where each definition is in the unit's tree: kept apart from [`Defs`] because it
/// changes with every edit, while the definitions do not.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DefSourceMap {
    /// By [`DefId`]: the declaration (for a variable or field, its declarator) and the
    /// name declared (empty at the declaration's start when it has none).
    pub sources: Vec<DefSource>,
    /// The range of each of [`Defs::static_asserts`].
    pub static_asserts: Vec<TextRange>,
    /// Every namespace block (a namespace reopened has one per block) and its scope.
    pub namespace_blocks: Vec<(TextRange, ScopeId)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefSource {
    pub full: TextRange,
    pub name: TextRange,
}

impl DefSourceMap {
    pub fn get(&self, id: DefId) -> Option<DefSource> {
        self.sources.get(id.0 as usize).copied()
    }

    /// The definition whose name is exactly `range`.
    pub fn def_named_at(&self, range: TextRange) -> Option<DefId> {
        self.sources.iter().position(|s| s.name == range && !range.is_empty()).map(|i| DefId(i as u32))
    }
}

impl DefSource {
    fn of(node: &SyntaxNode, name: Option<&SyntaxNode>) -> DefSource {
        let full = node.text_range();
        let name = name
            .and_then(|n| {
                // the name's own last identifier (`f` of `S::f`), not one in template
                // arguments (`Traits<MyVertex>`)
                let ident = n
                    .children_with_tokens()
                    .flat_map(|e| match e {
                        rowan::NodeOrToken::Token(t) => vec![t],
                        rowan::NodeOrToken::Node(c) if c.kind() == SyntaxKind::PATH => {
                            c.children_with_tokens().filter_map(|e| e.into_token()).collect()
                        }
                        rowan::NodeOrToken::Node(_) => Vec::new(),
                    })
                    .filter(|t| t.kind() == SyntaxKind::IDENT)
                    .last();
                // `operator+`: the whole name
                if n.descendants().any(|d| d.kind() == SyntaxKind::OPERATOR_NAME) {
                    return Some(n.text_range());
                }
                ident.map(|t| t.text_range())
            })
            .unwrap_or_else(|| TextRange::empty(full.start()));
        DefSource { full, name }
    }
}

/// A unit's definitions as last collected, with the tree they came from.
pub(crate) struct CachedDefs {
    pub root: rowan::GreenNode,
    pub defs: Arc<Defs>,
    pub sources: Arc<DefSourceMap>,
}

/// The definitions of `root` from those of `previous`, when the two trees differ only
/// inside one function's body (the function not `constexpr`): the definitions are the
/// same, and the places after the body move by the change of its length.
pub(crate) fn reuse(previous: &CachedDefs, root: &rowan::GreenNodeData) -> Option<(Arc<Defs>, Arc<DefSourceMap>)> {
    let (old_body, new_len) = edited_body(&previous.root, root, 0.into())?;
    let delta = i64::from(u32::from(new_len)) - i64::from(u32::from(old_body.len()));
    let shift = |r: TextRange| -> Option<TextRange> {
        if r.start() >= old_body.end() {
            let start = u32::try_from(i64::from(u32::from(r.start())) + delta).ok()?;
            Some(TextRange::at(start.into(), r.len()))
        } else if r.end() <= old_body.start() {
            Some(r)
        } else if r.contains_range(old_body) {
            // a declaration around the function (a namespace, a class)
            let end = u32::try_from(i64::from(u32::from(r.end())) + delta).ok()?;
            Some(TextRange::new(r.start(), end.into()))
        } else {
            None
        }
    };
    let sources = DefSourceMap {
        sources: previous
            .sources
            .sources
            .iter()
            .map(|s| Some(DefSource { full: shift(s.full)?, name: shift(s.name)? }))
            .collect::<Option<Vec<_>>>()?,
        static_asserts: previous.sources.static_asserts.iter().map(|r| shift(*r)).collect::<Option<Vec<_>>>()?,
        namespace_blocks: previous
            .sources
            .namespace_blocks
            .iter()
            .map(|(r, s)| Some((shift(*r)?, *s)))
            .collect::<Option<Vec<_>>>()?,
    };
    Some((previous.defs.clone(), Arc::new(sources)))
}

/// Where two trees differ, when that is the body of one function that is not
/// `constexpr`: the old body's range and the new body's length.
pub(crate) fn edited_body(
    old: &rowan::GreenNodeData,
    new: &rowan::GreenNodeData,
    at: msl_syntax::TextSize,
) -> Option<(TextRange, msl_syntax::TextSize)> {
    let kind = SyntaxKind::from(old.kind().0);
    if kind != SyntaxKind::from(new.kind().0) || old.children().len() != new.children().len() {
        return None;
    }
    let mut offset = at;
    let mut found = None;
    for (a, b) in old.children().zip(new.children()) {
        let same = match (&a, &b) {
            (rowan::NodeOrToken::Node(x), rowan::NodeOrToken::Node(y)) => std::ptr::eq(*x, *y) || x == y,
            (rowan::NodeOrToken::Token(x), rowan::NodeOrToken::Token(y)) => x == y,
            _ => return None,
        };
        if !same {
            if found.is_some() {
                return None;
            }
            let (rowan::NodeOrToken::Node(x), rowan::NodeOrToken::Node(y)) = (a, b) else { return None };
            let child = SyntaxKind::from(x.kind().0);
            found = Some(if kind == SyntaxKind::FUNCTION && child == SyntaxKind::COMPOUND_STMT {
                // the body: the function must not be one constant evaluation reads
                let constexpr = old.children().any(|c| {
                    c.as_node().is_some_and(|n| {
                        SyntaxKind::from(n.kind().0) == SyntaxKind::DECL_SPECIFIERS
                            && n.children().any(|t| SyntaxKind::from(t.kind().0) == SyntaxKind::CONSTEXPR_KW)
                    })
                });
                if constexpr {
                    return None;
                }
                (TextRange::at(offset, x.text_len()), y.text_len())
            } else if crate::db::holds_functions(child) || child == SyntaxKind::FUNCTION {
                edited_body(x, y, offset)?
            } else {
                return None;
            });
        }
        offset += a.text_len();
    }
    found
}

/// The unit's definitions.
pub fn collect(root: &SyntaxNode) -> Defs {
    collect_with_source(root).0
}

/// The unit's definitions and where each is.
pub fn collect_with_source(root: &SyntaxNode) -> (Defs, DefSourceMap) {
    let mut c = Collector {
        defs: Defs {
            defs: Vec::new(),
            scopes: vec![ScopeData {
                kind: ScopeKind::Global,
                parent: None,
                owner: None,
                names: FxHashMap::default(),
                using_directives: Vec::new(),
                using_declarations: Vec::new(),
                inline: false,
                inline_children: Vec::new(),
            }],
            function_defs: Vec::new(),
            explicit_instantiations: Vec::new(),
            static_asserts: Vec::new(),
            class_alignas: Vec::new(),
            deduction_guides: Vec::new(),
            non_public: Vec::new(),
            befriended: Vec::new(),
            declared_templates: Vec::new(),
        },
        node: 0,
        in_specifiers: 0,
        sources: DefSourceMap::default(),
    };
    c.items(root, ScopeId::GLOBAL, None);
    // a nested class's members come before the class itself in the list
    c.defs.non_public.sort_unstable();
    (c.defs, c.sources)
}

struct Collector {
    defs: Defs,
    /// Counts the declarations met (see `DefData::node`).
    node: u32,
    /// Inside a class defined in declaration specifiers (`typedef struct { ... } S;`),
    /// whose member functions are not among the unit's functions.
    in_specifiers: u32,
    sources: DefSourceMap,
}

impl Collector {
    fn new_scope(&mut self, kind: ScopeKind, parent: ScopeId, inline: bool) -> ScopeId {
        let id = ScopeId(self.defs.scopes.len() as u32);
        self.defs.scopes.push(ScopeData {
            kind,
            parent: Some(parent),
            owner: None,
            names: FxHashMap::default(),
            using_directives: Vec::new(),
            using_declarations: Vec::new(),
            inline,
            inline_children: Vec::new(),
        });
        if inline {
            self.defs.scopes[parent.0 as usize].inline_children.push(id);
        }
        id
    }

    fn add(
        &mut self,
        name: Arc<str>,
        kind: DefKind,
        scope: ScopeId,
        generics: Option<Arc<Generics>>,
        declare: bool,
        source: DefSource,
    ) -> DefId {
        let id = DefId(self.defs.defs.len() as u32);
        self.sources.sources.push(source);
        if let Some(inner) = match &kind {
            DefKind::Namespace { inner } | DefKind::Class { inner, .. } | DefKind::Enum { inner, .. } => Some(*inner),
            _ => None,
        } {
            self.defs.scopes[inner.0 as usize].owner = Some(id);
        }
        if declare && !name.is_empty() {
            self.defs.scopes[scope.0 as usize].names.entry(name.clone()).or_default().push(id);
        }
        self.defs.defs.push(DefData { name, kind, scope, generics, node: self.node });
        id
    }

    /// The declarations directly under `node` (a file, namespace body, member list, ...).
    fn items(&mut self, node: &SyntaxNode, scope: ScopeId, generics: Option<&Arc<Generics>>) {
        for child in node.children() {
            self.item(&child, scope, generics);
        }
    }

    fn item(&mut self, node: &SyntaxNode, scope: ScopeId, generics: Option<&Arc<Generics>>) {
        self.node += 1;
        match node.kind() {
            SyntaxKind::NAMESPACE => self.namespace(node, scope),
            SyntaxKind::DECL_LIST | SyntaxKind::LINKAGE_SPEC | SyntaxKind::ERROR => self.items(node, scope, generics),
            SyntaxKind::TEMPLATE_DECL => {
                if let Some(name) = forward_class_name(node) {
                    self.defs.declared_templates.push(Arc::from(name));
                }
                let own = template_params(node, generics);
                for c in node.children().filter(|c| c.kind() != SyntaxKind::TEMPLATE_PARAM_LIST) {
                    self.item(&c, scope, Some(&own));
                }
            }
            // `template kernel void k<float>(...)`: the function is one of the unit's, but
            // declares nothing new
            SyntaxKind::EXPLICIT_INSTANTIATION => {
                self.count_functions(node);
                let name = node
                    .children()
                    .filter(|c| matches!(c.kind(), SyntaxKind::FUNCTION | SyntaxKind::VAR_DECL))
                    .flat_map(|c| c.descendants())
                    .find(|d| d.kind() == SyntaxKind::DECLARATOR)
                    .and_then(|d| d.children().find(|c| c.kind() == SyntaxKind::NAME))
                    .and_then(|n| crate::ty::path_of(&n));
                if let Some(path) = name.filter(|p| p.segments.last().is_some_and(|s| s.args.is_some())) {
                    self.defs.explicit_instantiations.push((scope, path));
                }
            }
            SyntaxKind::DEDUCTION_GUIDE => {
                let name = node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::NAME)
                    .map(|n| n.text().to_string().trim().to_string());
                let params = node
                    .children()
                    .find_map(ast::ParamList::cast)
                    .map(|l| {
                        l.params()
                            .map(|p| TypeRef::from_syntax(p.decl_specifiers().as_ref(), p.declarator().as_ref()))
                            .collect()
                    })
                    .unwrap_or_default();
                let result = node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::TRAILING_RETURN)
                    .and_then(|r| r.children().find_map(ast::Type::cast))
                    .map(|t| TypeRef::from_type(&t));
                if let (Some(name), Some(result)) = (name, result) {
                    self.defs.deduction_guides.push(DeductionGuide {
                        name: Arc::from(name),
                        scope,
                        generics: generics.cloned(),
                        params,
                        result,
                    });
                }
            }
            SyntaxKind::FRIEND_DECL => {
                // a friend function is the enclosing namespace's, visible by
                // argument-dependent lookup; counted like any function of the unit
                for c in node.children() {
                    if c.kind() == SyntaxKind::FUNCTION {
                        self.function(&c, self.namespace_of(scope), generics, false);
                    }
                }
            }
            SyntaxKind::STRUCT => {
                self.class(node, scope, generics);
            }
            SyntaxKind::ENUM => {
                self.enumeration(node, scope, generics);
            }
            SyntaxKind::FUNCTION => self.function(node, scope, generics, true),
            SyntaxKind::VAR_DECL => self.variables(node, scope, generics),
            SyntaxKind::TYPEDEF_DECL => {
                let Some(decl) = ast::TypedefDecl::cast(node.clone()) else { return };
                let defined = self.types_in_specifiers(decl.decl_specifiers().as_ref(), scope, generics);
                for d in decl.declarators() {
                    let Some(name) = d.name().map(|n| n.text()) else { continue };
                    let mut target = TypeRef::from_syntax(decl.decl_specifiers().as_ref(), d.declarator().as_ref());
                    // `typedef struct { ... } S;`: the class defined here
                    if let Some(id) = defined
                        && matches!(target.base, crate::ty::TypeBase::Unknown)
                    {
                        target.base = crate::ty::TypeBase::Def(id);
                    }
                    let source = DefSource::of(d.syntax(), d.name().as_ref().map(|n| n.syntax()));
                    self.add(Arc::from(name), DefKind::Alias { target }, scope, generics.cloned(), true, source);
                }
            }
            SyntaxKind::ALIAS_DECL => {
                let Some(decl) = ast::AliasDecl::cast(node.clone()) else { return };
                let Some(name) = decl.name().map(|n| n.text()) else { return };
                let target = decl.ty().map_or_else(TypeRef::unknown, |t| TypeRef::from_type(&t));
                let source = DefSource::of(node, decl.name().as_ref().map(|n| n.syntax()));
                self.add(Arc::from(name), DefKind::Alias { target }, scope, generics.cloned(), true, source);
            }
            SyntaxKind::STATIC_ASSERT => {
                if let Some(cond) = node.children().find(|c| ast::Expr::can_cast(c.kind())) {
                    self.defs.static_asserts.push(StaticAssertData {
                        scope,
                        generics: generics.cloned(),
                        cond: ConstExpr::lower(&cond),
                        message: crate::body::static_assert_message(node),
                    });
                    self.sources.static_asserts.push(node.text_range());
                }
            }
            SyntaxKind::USING_DIRECTIVE => {
                if let Some(p) =
                    node.children().find(|c| c.kind() == SyntaxKind::PATH).and_then(|p| crate::ty::path_of(&p))
                {
                    self.defs.scopes[scope.0 as usize].using_directives.push(p);
                }
            }
            SyntaxKind::USING_DECL => {
                for p in node.children().filter(|c| c.kind() == SyntaxKind::PATH) {
                    if let Some(p) = crate::ty::path_of(&p) {
                        self.defs.scopes[scope.0 as usize].using_declarations.push(p);
                    }
                }
                // `using Base::member;` without a PATH node: the path is the node's own
                if node.children().all(|c| c.kind() != SyntaxKind::PATH)
                    && let Some(p) = crate::ty::path_of(node)
                {
                    self.defs.scopes[scope.0 as usize].using_declarations.push(p);
                }
            }
            SyntaxKind::NAMESPACE_ALIAS => {
                let name_node = node.children().find(|c| c.kind() == SyntaxKind::NAME);
                let name = name_node.as_ref().map(|n| n.text().to_string());
                let target =
                    node.children().find(|c| c.kind() == SyntaxKind::PATH).and_then(|p| crate::ty::path_of(&p));
                if let (Some(name), Some(target)) = (name, target) {
                    let source = DefSource::of(node, name_node.as_ref());
                    self.add(Arc::from(name.trim()), DefKind::NamespaceAlias { target }, scope, None, true, source);
                }
            }
            _ => {}
        }
    }

    /// Counts the functions under `node` (as the unit's function list does: through the
    /// nodes that hold declarations) without declaring anything.
    fn count_functions(&mut self, node: &SyntaxNode) {
        for c in node.children() {
            match c.kind() {
                SyntaxKind::FUNCTION => self.defs.function_defs.push(None),
                k if crate::db::holds_functions(k) => self.count_functions(&c),
                _ => {}
            }
        }
    }

    /// The nearest namespace scope at or around `scope`.
    fn namespace_of(&self, scope: ScopeId) -> ScopeId {
        self.defs.namespace_of(scope)
    }

    fn namespace(&mut self, node: &SyntaxNode, scope: ScopeId) {
        let Some(ns) = ast::Namespace::cast(node.clone()) else { return };
        let inline = node.children_with_tokens().any(|e| e.kind() == SyntaxKind::INLINE_KW);
        let body = node.children().find(|c| c.kind() == SyntaxKind::DECL_LIST);
        let Some(name) = ns.name() else {
            // an unnamed namespace: its names are the enclosing one's
            let inner = self.new_scope(ScopeKind::Namespace, scope, true);
            let id =
                self.add(Arc::from(""), DefKind::Namespace { inner }, scope, None, false, DefSource::of(node, None));
            // kept under the empty name, so that lookups in the scope look into it
            self.defs.scopes[scope.0 as usize].names.entry(Arc::from("")).or_default().push(id);
            if let Some(b) = body {
                self.items(&b, inner, None);
            }
            return;
        };
        // `namespace a::b {`: each segment a namespace in the one before
        let text = name.text();
        let mut at = scope;
        for segment in text.split("::").map(str::trim).filter(|s| !s.is_empty()) {
            let existing = self.defs.scope(at).names.get(segment).and_then(|ids| {
                ids.iter().find_map(|id| match &self.defs.def(*id).kind {
                    DefKind::Namespace { inner } => Some(*inner),
                    _ => None,
                })
            });
            at = match existing {
                // reopened: the same scope
                Some(inner) => inner,
                None => {
                    let inner = self.new_scope(ScopeKind::Namespace, at, inline);
                    let name_tok = name
                        .syntax()
                        .descendants_with_tokens()
                        .filter_map(|e| e.into_token())
                        .find(|t| t.kind() == SyntaxKind::IDENT && t.text() == segment);
                    let source = DefSource {
                        full: node.text_range(),
                        name: name_tok.map_or_else(|| TextRange::empty(node.text_range().start()), |t| t.text_range()),
                    };
                    self.add(Arc::from(segment), DefKind::Namespace { inner }, at, None, true, source);
                    inner
                }
            };
        }
        self.sources.namespace_blocks.push((node.text_range(), at));
        if let Some(b) = body {
            self.items(&b, at, None);
        }
    }

    fn class(&mut self, node: &SyntaxNode, scope: ScopeId, generics: Option<&Arc<Generics>>) -> Option<DefId> {
        let s = ast::Struct::cast(node.clone())?;
        let key = match s.keyword().map(|k| k.kind()) {
            Some(SyntaxKind::CLASS_KW) => ClassKey::Class,
            Some(SyntaxKind::UNION_KW) => ClassKey::Union,
            _ => ClassKey::Struct,
        };
        let name_node = s.name();
        // a specialization (`struct S<int*> {`) is a definition of the template `S`
        let path = name_node.as_ref().and_then(|n| crate::ty::path_of(n.syntax()));
        let pattern = path.as_ref().and_then(|p| p.segments.last()?.args.clone());
        let name = path.map(|p| p.name().to_string());
        let bases = s
            .base_clause()
            .into_iter()
            .flat_map(|b| b.syntax().children().filter(|c| c.kind() == SyntaxKind::BASE_SPECIFIER).collect::<Vec<_>>())
            .filter_map(|b| crate::ty::path_of(&b))
            .map(|p| TypeRef { base: crate::ty::TypeBase::Path(p), ..TypeRef::unknown() })
            .collect();
        let inner = self.new_scope(ScopeKind::Class, scope, false);
        let declare = name.is_some();
        let id = self.add(
            Arc::from(name.unwrap_or_default()),
            DefKind::Class { inner, key, bases, fields: Vec::new(), defined: true, pattern },
            scope,
            generics.cloned(),
            declare,
            DefSource::of(node, name_node.as_ref().map(|n| n.syntax())),
        );
        // `alignas` on the class or on a data member (not in member functions' bodies)
        let member_alignas = s.member_list().is_some_and(|l| {
            l.syntax()
                .children()
                .filter(|c| c.kind() == SyntaxKind::VAR_DECL)
                .any(|v| v.descendants_with_tokens().any(|e| e.kind() == SyntaxKind::ALIGNAS_KW))
        });
        let own_alignas = node
            .children()
            .filter(|c| c.kind() != SyntaxKind::MEMBER_LIST)
            .any(|c| c.descendants_with_tokens().any(|e| e.kind() == SyntaxKind::ALIGNAS_KW))
            || node.children_with_tokens().any(|e| e.kind() == SyntaxKind::ALIGNAS_KW);
        if member_alignas || own_alignas {
            self.defs.class_alignas.push(id);
        }
        if let Some(list) = s.member_list() {
            // C++17 [class.access]/2: a `class`'s members are private until an access
            // specifier says otherwise, a `struct`'s and a `union`'s public
            let mut hidden = key == ClassKey::Class;
            let mut friends = false;
            for m in list.syntax().children() {
                if m.kind() == SyntaxKind::ACCESS_SPECIFIER {
                    hidden = !m.children_with_tokens().any(|t| t.kind() == SyntaxKind::PUBLIC_KW);
                    continue;
                }
                friends |= m.descendants_with_tokens().any(|t| t.kind() == SyntaxKind::FRIEND_KW);
                let first = self.defs.defs.len() as u32;
                self.item(&m, inner, generics);
                if hidden {
                    for d in first..self.defs.defs.len() as u32 {
                        if self.defs.defs[d as usize].scope == inner {
                            self.defs.non_public.push(DefId(d));
                        }
                    }
                }
            }
            if friends {
                self.defs.befriended.push(id);
            }
        }
        // the data members declared in it, in order (unnamed ones too)
        let fields: Vec<DefId> = (id.0 + 1..self.defs.defs.len() as u32)
            .map(DefId)
            .filter(|f| self.defs.def(*f).scope == inner && matches!(self.defs.def(*f).kind, DefKind::Field(_)))
            .collect();
        if let DefKind::Class { fields: f, .. } = &mut self.defs.defs[id.0 as usize].kind {
            *f = fields;
        }
        // `struct { ... } a, b;`: the declarators are variables (members) of that type
        let declarators: Vec<ast::InitDeclarator> = s.declarators().collect();
        let in_class = self.defs.scope(scope).kind == ScopeKind::Class;
        for d in &declarators {
            let Some(name) = d.name().map(|n| n.text()) else { continue };
            let mut ty = TypeRef::from_syntax(None, d.declarator().as_ref());
            ty.base = crate::ty::TypeBase::Def(id);
            let name: Arc<str> = Arc::from(name);
            let source = DefSource::of(d.syntax(), d.name().as_ref().map(|n| n.syntax()));
            let kind = if in_class {
                DefKind::Field(FieldData { name: name.clone(), ty, has_init: d.initializer().is_some() })
            } else {
                DefKind::Variable { ty, value: None, init: None }
            };
            self.add(name, kind, scope, generics.cloned(), true, source);
        }
        // an anonymous union or struct member: one unnamed member, whose members are
        // names of the enclosing class
        if !declare
            && declarators.is_empty()
            && in_class
            && node.parent().is_some_and(|p| p.kind() == SyntaxKind::MEMBER_LIST)
        {
            self.anonymous_member(id, scope, generics, node);
        }
        Some(id)
    }

    /// An anonymous union or struct member (`union { float f; uint u; };`): one unnamed
    /// data member of class type `class`, whose members are names of the enclosing class.
    fn anonymous_member(&mut self, class: DefId, scope: ScopeId, generics: Option<&Arc<Generics>>, node: &SyntaxNode) {
        let Some(inner) = self.defs.inner_scope(class) else { return };
        let ty = TypeRef { base: crate::ty::TypeBase::Def(class), ..TypeRef::unknown() };
        let field = FieldData { name: Arc::from(""), ty, has_init: false };
        self.add(Arc::from(""), DefKind::Field(field), scope, generics.cloned(), false, DefSource::of(node, None));
        let inner_names: Vec<(Arc<str>, Vec<DefId>)> =
            self.defs.scope(inner).names.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        for (n, ids) in inner_names {
            self.defs.scopes[scope.0 as usize].names.entry(n).or_default().extend(ids);
        }
    }

    fn enumeration(&mut self, node: &SyntaxNode, scope: ScopeId, generics: Option<&Arc<Generics>>) -> Option<DefId> {
        let e = ast::Enum::cast(node.clone())?;
        let name = e.name().map(|n| n.text()).unwrap_or_default();
        let scoped = e.is_scoped();
        let underlying = e.underlying_type().map(|t| TypeRef::from_type(&t));
        let inner = self.new_scope(ScopeKind::Enum, scope, false);
        let id = self.add(
            Arc::from(name.as_str()),
            DefKind::Enum { inner, scoped, underlying },
            scope,
            generics.cloned(),
            !name.is_empty(),
            DefSource::of(node, e.name().as_ref().map(|n| n.syntax())),
        );
        let mut next = Some(0i64);
        let mut prev: Option<DefId> = None;
        for en in e.enumerators() {
            let Some(n) = en.name().map(|n| n.text()) else { continue };
            let (value, init) = match en.value() {
                Some(v) => match crate::checks::const_int(&v).map(|x| x as i64) {
                    Some(x) => (Some(x), None),
                    None => (None, Some(ConstExpr::lower(v.syntax()))),
                },
                None => (next, None),
            };
            let after = if en.value().is_none() && value.is_none() { prev } else { None };
            next = value.and_then(|v| v.checked_add(1));
            let name: Arc<str> = Arc::from(n);
            let source = DefSource::of(en.syntax(), en.name().as_ref().map(|n| n.syntax()));
            let kind = DefKind::Enumerator { parent: id, value, init, prev: after };
            let eid = self.add(name.clone(), kind, inner, None, true, source);
            prev = Some(eid);
            // an unscoped enum's enumerators are also names of the enclosing scope
            if !scoped {
                self.defs.scopes[scope.0 as usize].names.entry(name).or_default().push(eid);
            }
        }
        Some(id)
    }

    /// Classes and enums defined in declaration specifiers (`struct { ... } s;`).
    fn types_in_specifiers(
        &mut self,
        spec: Option<&ast::DeclSpecifiers>,
        scope: ScopeId,
        generics: Option<&Arc<Generics>>,
    ) -> Option<DefId> {
        let spec = spec?;
        self.in_specifiers += 1;
        let mut defined = None;
        for c in spec.syntax().children() {
            match c.kind() {
                SyntaxKind::STRUCT => defined = self.class(&c, scope, generics),
                SyntaxKind::ENUM => defined = self.enumeration(&c, scope, generics),
                _ => {}
            }
        }
        self.in_specifiers -= 1;
        defined
    }

    fn function(&mut self, node: &SyntaxNode, scope: ScopeId, generics: Option<&Arc<Generics>>, declare: bool) {
        let counted = self.in_specifiers == 0;
        let index = counted.then_some(self.defs.function_defs.len() as u32);
        if counted {
            // its place in the list, whatever is made of it below
            self.defs.function_defs.push(None);
        }
        let Some(f) = ast::Function::cast(node.clone()) else { return };
        let decl = f.declarator().or_else(|| {
            node.children()
                .find(|c| c.kind() == SyntaxKind::INIT_DECLARATOR)
                .and_then(|i| i.children().find_map(ast::Declarator::cast))
        });
        let Some(decl) = decl else { return };
        let name_node = decl.name();
        let path = name_node.as_ref().and_then(|n| crate::ty::path_of(n.syntax()));
        let qualified = path.as_ref().is_some_and(|p| p.segments.len() > 1);
        let name = name_node.as_ref().map(|n| match n.ident() {
            Some(t) if !n.syntax().children().any(|c| c.kind() == SyntaxKind::OPERATOR_NAME) => t.text().to_string(),
            _ => n.text(),
        });
        let spec = f.decl_specifiers();
        let whole = TypeRef::from_syntax(spec.as_ref(), Some(&decl));
        let is_ctor_like = spec.as_ref().and_then(|s| s.type_spec()).is_none();
        let ret = if is_ctor_like { None } else { whole.returned() };
        let list = decl.param_list();
        let params = list
            .iter()
            .flat_map(|l| l.params())
            .filter_map(|p| {
                let ty = TypeRef::from_syntax(p.decl_specifiers().as_ref(), p.declarator().as_ref());
                if matches!(&ty.base, crate::ty::TypeBase::Builtin(b) if &**b == "void") && ty.ops.is_empty() {
                    return None;
                }
                let has_default = p.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::EQ);
                Some(ParamData { name: p.name().map(|n| Arc::from(n.text())), ty, has_default })
            })
            .collect();
        let quals: Vec<_> = decl.function_qualifiers().collect();
        let data = FunctionData {
            ret,
            params,
            // a trailing parameter pack takes any number of arguments
            variadic: list.as_ref().is_some_and(|l| {
                l.is_variadic() || l.params().last().and_then(|p| p.declarator()).is_some_and(|d| d.is_pack())
            }),
            is_static: spec.as_ref().is_some_and(|s| s.has(SyntaxKind::STATIC_KW)),
            is_const: quals.iter().any(|t| t.kind() == SyntaxKind::CONST_KW),
            object_space: quals.iter().find_map(|t| crate::ty::AddressSpace::from_keyword(t.text())),
            function: index,
            has_body: node.children().any(|c| matches!(c.kind(), SyntaxKind::COMPOUND_STMT | SyntaxKind::TRY_STMT)),
            constexpr_body: (spec.as_ref().is_some_and(|s| s.has(SyntaxKind::CONSTEXPR_KW)) && f.body().is_some())
                .then(|| Arc::new(crate::body::lower_function(node).0)),
            stage: f.stage(),
            qualified,
            deleted: node
                .children()
                .chain(node.children().filter(|c| c.kind() == SyntaxKind::INIT_DECLARATOR).flat_map(|c| c.children()))
                .filter(|c| c.kind() == SyntaxKind::DEFAULTED_BODY)
                .any(|c| c.children_with_tokens().any(|e| e.kind() == SyntaxKind::DELETE_KW)),
            explicit: spec.as_ref().is_some_and(|s| s.has(SyntaxKind::EXPLICIT_KW)),
        };
        // a member defined outside its class belongs to the class's scope
        let owner = match &path {
            Some(p) if qualified => self.scope_of_path(scope, &p.segments[..p.segments.len() - 1]).unwrap_or(scope),
            _ => scope,
        };
        let id = self.add(
            Arc::from(name.unwrap_or_default()),
            DefKind::Function(Box::new(data)),
            owner,
            generics.cloned(),
            declare && !qualified,
            DefSource::of(node, name_node.as_ref().map(|n| n.syntax())),
        );
        if let Some(i) = index {
            self.defs.function_defs[i as usize] = Some(id);
        }
    }

    /// The scope a qualifier names (`a::S` of `a::S::f`), from `from` outward.
    fn scope_of_path(&self, from: ScopeId, segments: &[crate::ty::Segment]) -> Option<ScopeId> {
        let first = segments.first()?;
        let mut at = self
            .defs
            .enclosing_scopes(from)
            .find_map(|s| self.defs.lookup_in(s, &first.name).into_iter().find_map(|id| self.defs.inner_scope(id)))?;
        for seg in &segments[1..] {
            at = self.defs.lookup_in(at, &seg.name).into_iter().find_map(|id| self.defs.inner_scope(id))?;
        }
        Some(at)
    }

    fn variables(&mut self, node: &SyntaxNode, scope: ScopeId, generics: Option<&Arc<Generics>>) {
        let Some(v) = ast::VarDecl::cast(node.clone()) else { return };
        let spec = v.decl_specifiers();
        let defined = self.types_in_specifiers(spec.as_ref(), scope, generics);
        let in_class = self.defs.scope(scope).kind == ScopeKind::Class;
        // `__extension__ union { ... };` in a class: an anonymous member
        if in_class
            && v.declarators().next().is_none()
            && let Some(id) = defined
            && self.defs.def(id).name.is_empty()
            && matches!(self.defs.def(id).kind, DefKind::Class { .. })
        {
            self.anonymous_member(id, scope, generics, node);
        }
        let is_static = spec.as_ref().is_some_and(|s| s.has(SyntaxKind::STATIC_KW));
        for d in v.declarators() {
            let Some(name) = d.name().map(|n| n.text()) else { continue };
            let mut ty = TypeRef::from_syntax(spec.as_ref(), d.declarator().as_ref());
            // `const struct { ... } x;`: the class defined here
            if let Some(id) = defined
                && matches!(ty.base, crate::ty::TypeBase::Unknown)
            {
                ty.base = crate::ty::TypeBase::Def(id);
            }
            let name: Arc<str> = Arc::from(name);
            let source = DefSource::of(d.syntax(), d.name().as_ref().map(|n| n.syntax()));
            if in_class && !is_static {
                let field = FieldData { name: name.clone(), ty, has_init: d.initializer().is_some() };
                self.add(name, DefKind::Field(field), scope, generics.cloned(), true, source);
            } else {
                let init_expr = d.initializer().and_then(|i| i.expr());
                let value = init_expr.as_ref().and_then(crate::checks::const_int).map(|x| x as i64);
                let constant = ty.cv.is_const
                    || ty.space == Some(crate::ty::AddressSpace::Constant)
                    || spec.as_ref().is_some_and(|s| s.has(SyntaxKind::CONSTEXPR_KW));
                let init = match (&init_expr, value) {
                    (Some(e), None) if constant => Some(ConstExpr::lower(e.syntax())),
                    _ => None,
                };
                self.add(name, DefKind::Variable { ty, value, init }, scope, generics.cloned(), true, source);
            }
        }
    }
}

/// The name a template declaration declares a class by, without defining it
/// (`template <typename T> struct S;`).
pub(crate) fn forward_class_name(template: &SyntaxNode) -> Option<String> {
    let var = template.children().find(|c| c.kind() == SyntaxKind::VAR_DECL)?;
    if var.children().any(|c| c.kind() == SyntaxKind::INIT_DECLARATOR) {
        return None;
    }
    let spec = var.children().find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS)?;
    let elaborated = spec.children().find(|c| c.kind() == SyntaxKind::ELABORATED_TYPE)?;
    let name = elaborated.children().find(|c| c.kind() == SyntaxKind::NAME)?;
    Some(name.text().to_string().trim().to_string())
}

/// The template parameters of a TEMPLATE_DECL, under those of an enclosing template.
fn template_params(node: &SyntaxNode, parent: Option<&Arc<Generics>>) -> Arc<Generics> {
    let mut g = Generics { params: Vec::new(), parent: parent.cloned() };
    for list in node.children().filter_map(ast::TemplateParamList::cast) {
        for p in list.params() {
            // `typename... Ts`, or `int... Ns` (the `...` in the declarator)
            let pack = p.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::DOT3)
                || matches!(&p, ast::TemplateParam::NonType(n) if n.declarator().is_some_and(|d| d.is_pack()));
            let (name, kind) = match &p {
                ast::TemplateParam::Type(t) => (
                    t.name().map(|n| n.text()),
                    GenericKind::Type { default: t.default().map(|d| TypeRef::from_type(&d)) },
                ),
                ast::TemplateParam::NonType(n) => {
                    let name = n.declarator().and_then(|d| d.name()).map(|n| n.text());
                    let ty = TypeRef::from_syntax(n.decl_specifiers().as_ref(), None);
                    (name, GenericKind::Value { ty, has_default: n.default().is_some() })
                }
                ast::TemplateParam::Template(t) => (
                    t.syntax().children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string()),
                    GenericKind::Template,
                ),
            };
            // an unnamed parameter keeps its place (explicit arguments are positional) and
            // its default (`typename = enable_if_t<...>`)
            g.params.push(GenericParam { name: Arc::from(name.unwrap_or_default()), kind, pack });
        }
    }
    Arc::new(g)
}
