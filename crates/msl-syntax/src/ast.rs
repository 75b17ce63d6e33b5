//! The typed AST: thin, zero-cost views over rowan nodes with accessors for what each
//! construct holds. A node's accessors return `None` (or an empty iterator) for parts
//! that are missing in broken code; nothing here panics.

use crate::SyntaxKind::{self, *};
use crate::{SyntaxNode, SyntaxToken};

/// A typed view of a syntax node.
pub trait AstNode: Sized {
    fn can_cast(kind: SyntaxKind) -> bool;
    fn cast(node: SyntaxNode) -> Option<Self>;
    fn syntax(&self) -> &SyntaxNode;
}

mod support {
    use super::*;

    pub(super) fn child<N: AstNode>(parent: &SyntaxNode) -> Option<N> {
        parent.children().find_map(N::cast)
    }

    pub(super) fn children<N: AstNode>(parent: &SyntaxNode) -> impl Iterator<Item = N> + use<N> {
        parent.children().filter_map(N::cast)
    }

    pub(super) fn token(parent: &SyntaxNode, kind: SyntaxKind) -> Option<SyntaxToken> {
        parent.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == kind)
    }

    /// The kind of the first token child that is not trivia, read from the green tree
    /// (no syntax token is built).
    pub(super) fn first_token_kind(parent: &SyntaxNode) -> Option<SyntaxKind> {
        parent.green().children().find_map(|c| {
            let kind = SyntaxKind::from(c.as_token()?.kind().0);
            (!kind.is_trivia()).then_some(kind)
        })
    }

    pub(super) fn tokens(parent: &SyntaxNode) -> impl Iterator<Item = SyntaxToken> + use<> {
        parent.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia())
    }
}

macro_rules! ast_node {
    ($(#[$doc:meta])* $name:ident, $kind:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name {
            syntax: SyntaxNode,
        }
        impl AstNode for $name {
            fn can_cast(kind: SyntaxKind) -> bool {
                kind == $kind
            }
            fn cast(node: SyntaxNode) -> Option<Self> {
                Self::can_cast(node.kind()).then(|| $name { syntax: node })
            }
            fn syntax(&self) -> &SyntaxNode {
                &self.syntax
            }
        }
    };
}

macro_rules! ast_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident($ty:ident)),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant($ty),)*
        }
        impl AstNode for $name {
            fn can_cast(kind: SyntaxKind) -> bool {
                $($ty::can_cast(kind))||*
            }
            fn cast(node: SyntaxNode) -> Option<Self> {
                $(if $ty::can_cast(node.kind()) {
                    return $ty::cast(node).map($name::$variant);
                })*
                None
            }
            fn syntax(&self) -> &SyntaxNode {
                match self {
                    $($name::$variant(n) => n.syntax(),)*
                }
            }
        }
    };
}

// ---- items ----------------------------------------------------------------------------

ast_node!(/// The root.
    SourceFile, SOURCE_FILE);
ast_node!(/// A function declaration or definition, entry points included.
    Function, FUNCTION);
ast_node!(/// A declaration of variables (or of a type followed by declarators).
    VarDecl, VAR_DECL);
ast_node!(/// A `struct`, `class` or `union` definition.
    Struct, STRUCT);
ast_node!(Enum, ENUM);
ast_node!(TypedefDecl, TYPEDEF_DECL);
ast_node!(/// `using Name = Type;`
    AliasDecl, ALIAS_DECL);
ast_node!(/// `using namespace metal;`
    UsingDirective, USING_DIRECTIVE);
ast_node!(/// `using metal::float4;`
    UsingDecl, USING_DECL);
ast_node!(Namespace, NAMESPACE);
ast_node!(NamespaceAlias, NAMESPACE_ALIAS);
ast_node!(StaticAssert, STATIC_ASSERT);
ast_node!(TemplateDecl, TEMPLATE_DECL);
ast_node!(/// `template [[host_name("k")]] [[kernel]] decltype(k<float>) k<float>;`
    ExplicitInstantiation, EXPLICIT_INSTANTIATION);
ast_node!(LinkageSpec, LINKAGE_SPEC);
ast_node!(EmptyDecl, EMPTY_DECL);
ast_node!(AccessSpecifier, ACCESS_SPECIFIER);
ast_node!(DeclList, DECL_LIST);
ast_node!(MemberList, MEMBER_LIST);

ast_enum!(/// A declaration in a file, namespace, class or block.
    Item {
    Function(Function),
    VarDecl(VarDecl),
    Struct(Struct),
    Enum(Enum),
    TypedefDecl(TypedefDecl),
    AliasDecl(AliasDecl),
    UsingDirective(UsingDirective),
    UsingDecl(UsingDecl),
    Namespace(Namespace),
    NamespaceAlias(NamespaceAlias),
    StaticAssert(StaticAssert),
    TemplateDecl(TemplateDecl),
    ExplicitInstantiation(ExplicitInstantiation),
    LinkageSpec(LinkageSpec),
    EmptyDecl(EmptyDecl),
    AccessSpecifier(AccessSpecifier),
});

impl SourceFile {
    pub fn items(&self) -> impl Iterator<Item = Item> + use<> {
        support::children(&self.syntax)
    }
}

impl DeclList {
    pub fn items(&self) -> impl Iterator<Item = Item> + use<> {
        support::children(&self.syntax)
    }
}

impl MemberList {
    pub fn members(&self) -> impl Iterator<Item = Item> + use<> {
        support::children(&self.syntax)
    }
}

/// Entry-point stages a function can be declared as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    Kernel,
    Vertex,
    Fragment,
    /// `[[mesh]]`, `[[object]]`, `[[visible]]`, `[[stitchable]]`, `[[intersection(...)]]`
    Other,
}

impl Function {
    /// Attribute lists before the declaration (`[[kernel]]`) and among its specifiers.
    pub fn attribute_lists(&self) -> impl Iterator<Item = AttributeList> + use<> {
        let outer = support::children::<AttributeList>(&self.syntax);
        let inner = self.decl_specifiers().into_iter().flat_map(|d| support::children::<AttributeList>(d.syntax()));
        outer.chain(inner)
    }
    pub fn decl_specifiers(&self) -> Option<DeclSpecifiers> {
        support::child(&self.syntax)
    }
    /// The function's declarator; a declaration without a body (`float f(float x);`)
    /// holds it in an init-declarator.
    pub fn declarator(&self) -> Option<Declarator> {
        support::child(&self.syntax).or_else(|| {
            let init = self.syntax.children().find(|c| c.kind() == SyntaxKind::INIT_DECLARATOR)?;
            support::child(&init)
        })
    }
    /// The declared name (`f`, `S::f`, `operator+`).
    pub fn name(&self) -> Option<Name> {
        self.declarator().and_then(|d| d.name())
    }
    pub fn param_list(&self) -> Option<ParamList> {
        self.declarator().and_then(|d| d.param_list())
    }
    pub fn ctor_initializer(&self) -> Option<CtorInitializer> {
        support::child(&self.syntax)
    }
    pub fn body(&self) -> Option<CompoundStmt> {
        support::child(&self.syntax)
    }
    /// The entry-point stage, from `kernel`/`vertex`/`fragment` or their attribute forms.
    pub fn stage(&self) -> Option<Stage> {
        if let Some(spec) = self.decl_specifiers() {
            for t in support::tokens(spec.syntax()) {
                match t.kind() {
                    KERNEL_KW => return Some(Stage::Kernel),
                    VERTEX_KW => return Some(Stage::Vertex),
                    FRAGMENT_KW => return Some(Stage::Fragment),
                    _ => {}
                }
            }
        }
        for list in self.attribute_lists() {
            for a in list.attributes() {
                match a.name().as_deref() {
                    Some("kernel") => return Some(Stage::Kernel),
                    Some("vertex") => return Some(Stage::Vertex),
                    Some("fragment") => return Some(Stage::Fragment),
                    Some("mesh" | "object" | "visible" | "stitchable" | "intersection") => return Some(Stage::Other),
                    _ => {}
                }
            }
        }
        None
    }
}

impl VarDecl {
    pub fn attribute_lists(&self) -> impl Iterator<Item = AttributeList> + use<> {
        support::children(&self.syntax)
    }
    pub fn decl_specifiers(&self) -> Option<DeclSpecifiers> {
        support::child(&self.syntax)
    }
    pub fn declarators(&self) -> impl Iterator<Item = InitDeclarator> + use<> {
        support::children(&self.syntax)
    }
}

impl TypedefDecl {
    pub fn decl_specifiers(&self) -> Option<DeclSpecifiers> {
        support::child(&self.syntax)
    }
    pub fn declarators(&self) -> impl Iterator<Item = InitDeclarator> + use<> {
        support::children(&self.syntax)
    }
}

impl AliasDecl {
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
}

impl UsingDirective {
    /// The namespace (`metal`).
    pub fn path(&self) -> Option<Path> {
        support::child(&self.syntax)
    }
}

impl UsingDecl {
    pub fn path(&self) -> Option<Path> {
        support::child(&self.syntax)
    }
}

impl Namespace {
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    pub fn items(&self) -> impl Iterator<Item = Item> + use<> {
        support::child::<DeclList>(&self.syntax).into_iter().flat_map(|l| l.items())
    }
}

impl NamespaceAlias {
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    pub fn target(&self) -> Option<Path> {
        support::child(&self.syntax)
    }
}

impl StaticAssert {
    pub fn condition(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
    /// The message string, when one follows the condition.
    pub fn message(&self) -> Option<Literal> {
        let exprs: Vec<Expr> = support::children(&self.syntax).collect();
        match exprs.as_slice() {
            [_, Expr::Literal(l)] => Some(l.clone()),
            _ => None,
        }
    }
}

impl TemplateDecl {
    pub fn params(&self) -> Option<TemplateParamList> {
        support::child(&self.syntax)
    }
    /// The templated declaration.
    pub fn item(&self) -> Option<Item> {
        support::child(&self.syntax)
    }
}

impl ExplicitInstantiation {
    pub fn item(&self) -> Option<Item> {
        support::child(&self.syntax)
    }
}

impl LinkageSpec {
    pub fn items(&self) -> impl Iterator<Item = Item> + use<> {
        let direct = support::children::<Item>(&self.syntax);
        let listed = support::child::<DeclList>(&self.syntax).into_iter().flat_map(|l| l.items());
        direct.chain(listed)
    }
}

impl Struct {
    /// `struct`, `class` or `union`.
    pub fn keyword(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).find(|t| matches!(t.kind(), STRUCT_KW | CLASS_KW | UNION_KW))
    }
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    pub fn base_clause(&self) -> Option<BaseClause> {
        support::child(&self.syntax)
    }
    pub fn member_list(&self) -> Option<MemberList> {
        support::child(&self.syntax)
    }
    pub fn members(&self) -> impl Iterator<Item = Item> + use<> {
        self.member_list().into_iter().flat_map(|l| l.members())
    }
    /// Declarators after the closing brace: `struct S { ... } s;`
    pub fn declarators(&self) -> impl Iterator<Item = InitDeclarator> + use<> {
        support::children(&self.syntax)
    }
}

ast_node!(BaseClause, BASE_CLAUSE);
ast_node!(BaseSpecifier, BASE_SPECIFIER);

impl BaseClause {
    pub fn bases(&self) -> impl Iterator<Item = BaseSpecifier> + use<> {
        support::children(&self.syntax)
    }
}

impl Enum {
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    /// `enum class` / `enum struct`.
    pub fn is_scoped(&self) -> bool {
        support::tokens(&self.syntax).any(|t| matches!(t.kind(), CLASS_KW | STRUCT_KW))
    }
    pub fn underlying_type(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn enumerators(&self) -> impl Iterator<Item = Enumerator> + use<> {
        support::child::<EnumeratorList>(&self.syntax).into_iter().flat_map(|l| support::children(l.syntax()))
    }
}

ast_node!(EnumeratorList, ENUMERATOR_LIST);
ast_node!(Enumerator, ENUMERATOR);

impl Enumerator {
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    pub fn value(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

// ---- declarators and types --------------------------------------------------------------

ast_node!(/// `const device float4`, `static inline`, `kernel void`, ...
    DeclSpecifiers, DECL_SPECIFIERS);
ast_node!(Declarator, DECLARATOR);
ast_node!(ParenDeclarator, PAREN_DECLARATOR);
ast_node!(/// `*`, `&`, `&&` with the qualifiers after it.
    PtrOperator, PTR_OPERATOR);
ast_node!(ArraySuffix, ARRAY_SUFFIX);
ast_node!(/// `[a, b]` of a structured binding.
    BindingList, BINDING_LIST);
ast_node!(/// `template <typename T> Pair(T, T) -> Pair<T>;`
    DeductionGuide, DEDUCTION_GUIDE);
ast_node!(ParamList, PARAM_LIST);
ast_node!(Param, PARAM);
ast_node!(InitDeclarator, INIT_DECLARATOR);
ast_node!(Initializer, INITIALIZER);
ast_node!(BitField, BIT_FIELD);
ast_node!(CtorInitializer, CTOR_INITIALIZER);
ast_node!(MemInitializer, MEM_INITIALIZER);
ast_node!(TrailingReturn, TRAILING_RETURN);
ast_node!(/// A type-id: specifiers and an abstract declarator.
    Type, TYPE);
ast_node!(/// A named type: `float4`, `metal::texture2d<half>`, `typename T::value`.
    PathType, PATH_TYPE);
ast_node!(/// Type keywords: `unsigned int`, `float`, `void`.
    BuiltinType, BUILTIN_TYPE);
ast_node!(DecltypeType, DECLTYPE_TYPE);
ast_node!(/// `struct S` used as a type.
    ElaboratedType, ELABORATED_TYPE);
ast_node!(/// A declared name: `x`, `S::f`, `operator+`, `~S`.
    Name, NAME);
ast_node!(/// A standalone path (using-directives, base classes, ...).
    Path, PATH);
ast_node!(TemplateArgList, TEMPLATE_ARG_LIST);
ast_node!(TemplateArg, TEMPLATE_ARG);
ast_node!(TemplateParamList, TEMPLATE_PARAM_LIST);
ast_node!(TypeParam, TYPE_PARAM);
ast_node!(NonTypeParam, NON_TYPE_PARAM);
ast_node!(TemplateTemplateParam, TEMPLATE_TEMPLATE_PARAM);
ast_node!(CoherentSpec, COHERENT_SPEC);

ast_enum!(/// What names the type in declaration specifiers.
    TypeSpec {
    Builtin(BuiltinType),
    Path(PathType),
    Decltype(DecltypeType),
    Elaborated(ElaboratedType),
    Struct(Struct),
    Enum(Enum),
});

ast_enum!(TemplateParam {
    Type(TypeParam),
    NonType(NonTypeParam),
    Template(TemplateTemplateParam),
});

/// The text of a path-like node without trivia: `metal::vec<float, 4>`.
fn path_text(node: &SyntaxNode) -> String {
    let mut s = String::new();
    each_token(node, &mut |_, text| {
        if !s.is_empty() && needs_space(s.chars().last().unwrap_or(' '), text) {
            s.push(' ');
        }
        s.push_str(text);
        true
    });
    s
}

/// Calls `f` with the kind and text of each token under `node` that is not trivia, in
/// order, until it returns `false`; returns whether the walk ran to the end. Reads the
/// green tree, so no syntax nodes or tokens are built: the cheap way to read a node's text.
pub fn each_token(node: &SyntaxNode, f: &mut dyn FnMut(SyntaxKind, &str) -> bool) -> bool {
    fn walk(node: &rowan::GreenNodeData, f: &mut dyn FnMut(SyntaxKind, &str) -> bool) -> bool {
        node.children().all(|c| match c {
            rowan::NodeOrToken::Node(n) => walk(n, f),
            rowan::NodeOrToken::Token(t) => {
                let kind = SyntaxKind::from(t.kind().0);
                kind.is_trivia() || f(kind, t.text())
            }
        })
    }
    walk(node.green(), f)
}

fn needs_space(prev: char, next: &str) -> bool {
    let n = next.chars().next().unwrap_or(' ');
    (prev.is_alphanumeric() || prev == '_') && (n.is_alphanumeric() || n == '_') || prev == ','
}

impl DeclSpecifiers {
    pub fn type_spec(&self) -> Option<TypeSpec> {
        support::child(&self.syntax)
    }
    /// The address-space keyword, if any (`device`, `constant`, `thread`, ...).
    pub fn address_space(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).find(|t| t.kind().is_address_space())
    }
    pub fn has(&self, kind: SyntaxKind) -> bool {
        // the green children: no syntax tokens are built for the scan
        let raw = rowan::SyntaxKind(kind as u16);
        self.syntax.green().children().any(|c| c.as_token().is_some_and(|t| t.kind() == raw))
    }
    pub fn keywords(&self) -> impl Iterator<Item = SyntaxToken> + use<> {
        support::tokens(&self.syntax).filter(|t| t.kind().is_keyword())
    }
    pub fn attribute_lists(&self) -> impl Iterator<Item = AttributeList> + use<> {
        support::children(&self.syntax)
    }
    pub fn coherent(&self) -> Option<CoherentSpec> {
        support::child(&self.syntax)
    }
}

impl BindingList {
    /// The bound names, in order.
    pub fn names(&self) -> impl Iterator<Item = Name> + use<> {
        support::children(&self.syntax)
    }
}

impl DeductionGuide {
    /// The class template's name.
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    pub fn param_list(&self) -> Option<ParamList> {
        support::child(&self.syntax)
    }
    /// `-> Pair<T>`: the specialisation the guide deduces.
    pub fn target(&self) -> Option<TrailingReturn> {
        support::child(&self.syntax)
    }
}

impl Declarator {
    /// The declared name, looking through parenthesised declarators (`(*fp)`).
    pub fn name(&self) -> Option<Name> {
        support::child::<Name>(&self.syntax)
            .or_else(|| support::child::<ParenDeclarator>(&self.syntax).and_then(|p| p.inner()).and_then(|d| d.name()))
    }
    pub fn ptr_operators(&self) -> impl Iterator<Item = PtrOperator> + use<> {
        support::children(&self.syntax)
    }
    /// The names of a structured binding (`auto [a, b] = ...`).
    pub fn binding_list(&self) -> Option<BindingList> {
        support::child(&self.syntax)
    }
    pub fn array_suffixes(&self) -> impl Iterator<Item = ArraySuffix> + use<> {
        support::children(&self.syntax)
    }
    /// The parameter list when this declares a function.
    pub fn param_list(&self) -> Option<ParamList> {
        support::child(&self.syntax)
    }
    pub fn attribute_lists(&self) -> impl Iterator<Item = AttributeList> + use<> {
        support::children(&self.syntax)
    }
    pub fn trailing_return(&self) -> Option<TrailingReturn> {
        support::child(&self.syntax)
    }
    /// Qualifiers after the parameter list (`const`, an address space, `&`).
    pub fn function_qualifiers(&self) -> impl Iterator<Item = SyntaxToken> + use<> {
        let mut after_params = false;
        self.syntax
            .children_with_tokens()
            .filter_map(move |e| {
                if e.kind() == PARAM_LIST {
                    after_params = true;
                    return None;
                }
                if after_params { e.into_token() } else { None }
            })
            .filter(|t| !t.kind().is_trivia())
    }
    pub fn is_pack(&self) -> bool {
        support::token(&self.syntax, DOT3).is_some()
    }
}

impl ParenDeclarator {
    pub fn inner(&self) -> Option<Declarator> {
        support::child(&self.syntax)
    }
}

impl PtrOperator {
    /// `*`, `&` or `&&`.
    pub fn kind_token(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).find(|t| matches!(t.kind(), STAR | AMP | AMP2 | CARET))
    }
    pub fn address_space(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).find(|t| t.kind().is_address_space())
    }
    pub fn is_const(&self) -> bool {
        support::token(&self.syntax, CONST_KW).is_some()
    }
}

impl ArraySuffix {
    pub fn size(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl ParamList {
    pub fn params(&self) -> impl Iterator<Item = Param> + use<> {
        support::children(&self.syntax)
    }
    /// A C-style `...` at the end.
    pub fn is_variadic(&self) -> bool {
        support::token(&self.syntax, DOT3).is_some()
    }
}

impl Param {
    pub fn decl_specifiers(&self) -> Option<DeclSpecifiers> {
        support::child(&self.syntax)
    }
    pub fn declarator(&self) -> Option<Declarator> {
        support::child(&self.syntax)
    }
    pub fn name(&self) -> Option<Name> {
        self.declarator().and_then(|d| d.name())
    }
    /// Attribute lists anywhere on the parameter (`[[buffer(0)]]` usually follows the
    /// name).
    pub fn attribute_lists(&self) -> impl Iterator<Item = AttributeList> + use<> {
        let own = support::children::<AttributeList>(&self.syntax);
        let in_spec = self.decl_specifiers().into_iter().flat_map(|d| d.attribute_lists());
        let in_decl = self.declarator().into_iter().flat_map(|d| d.attribute_lists());
        own.chain(in_spec).chain(in_decl)
    }
    pub fn default_value(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl InitDeclarator {
    pub fn declarator(&self) -> Option<Declarator> {
        support::child(&self.syntax)
    }
    pub fn name(&self) -> Option<Name> {
        self.declarator().and_then(|d| d.name())
    }
    pub fn initializer(&self) -> Option<Initializer> {
        support::child(&self.syntax)
    }
    pub fn bit_field(&self) -> Option<BitField> {
        support::child(&self.syntax)
    }
}

impl Initializer {
    /// The expression after `=`, or the braced list, or the parenthesised arguments.
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
    pub fn args(&self) -> Option<ArgList> {
        support::child(&self.syntax)
    }
}

impl BitField {
    pub fn width(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl CtorInitializer {
    pub fn initializers(&self) -> impl Iterator<Item = MemInitializer> + use<> {
        support::children(&self.syntax)
    }
}

impl TrailingReturn {
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
}

impl Type {
    pub fn decl_specifiers(&self) -> Option<DeclSpecifiers> {
        support::child(&self.syntax)
    }
    pub fn type_spec(&self) -> Option<TypeSpec> {
        self.decl_specifiers().and_then(|d| d.type_spec()).or_else(|| support::child(&self.syntax))
    }
    pub fn declarator(&self) -> Option<Declarator> {
        support::child(&self.syntax)
    }
}

impl PathType {
    /// The path as written, without trivia (`metal::texture2d<half, access::read>`).
    pub fn text(&self) -> String {
        path_text(&self.syntax)
    }
    /// The identifier tokens of the path, outermost qualifier first.
    pub fn segments(&self) -> impl Iterator<Item = SyntaxToken> + use<> {
        support::tokens(&self.syntax).filter(|t| t.kind() == IDENT)
    }
    pub fn template_args(&self) -> Option<TemplateArgList> {
        support::children(&self.syntax).last()
    }
}

impl BuiltinType {
    pub fn keywords(&self) -> impl Iterator<Item = SyntaxToken> + use<> {
        support::tokens(&self.syntax)
    }
    pub fn text(&self) -> String {
        path_text(&self.syntax)
    }
}

impl Name {
    /// The name as written (`f`, `S::f`, `operator+`, `~S`).
    pub fn text(&self) -> String {
        path_text(&self.syntax)
    }
    /// The last identifier token (for `S::f`, the `f`).
    pub fn ident(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).filter(|t| t.kind() == IDENT).last()
    }
}

impl Path {
    pub fn text(&self) -> String {
        path_text(&self.syntax)
    }
}

impl TemplateArgList {
    pub fn args(&self) -> impl Iterator<Item = TemplateArg> + use<> {
        support::children(&self.syntax)
    }
}

impl TemplateArg {
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl TemplateParamList {
    pub fn params(&self) -> impl Iterator<Item = TemplateParam> + use<> {
        support::children(&self.syntax)
    }
}

impl TypeParam {
    pub fn name(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
    pub fn default(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn is_pack(&self) -> bool {
        support::token(&self.syntax, DOT3).is_some()
    }
}

impl NonTypeParam {
    pub fn decl_specifiers(&self) -> Option<DeclSpecifiers> {
        support::child(&self.syntax)
    }
    pub fn declarator(&self) -> Option<Declarator> {
        support::child(&self.syntax)
    }
    pub fn default(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

// ---- attributes -----------------------------------------------------------------------

ast_node!(/// `[[ a, b(1) ]]`
    AttributeList, ATTRIBUTE_LIST);
ast_node!(Attribute, ATTRIBUTE);
ast_node!(AttrArgs, ATTR_ARGS);
ast_node!(/// `__attribute__((...))`
    GnuAttribute, GNU_ATTRIBUTE);

impl AttributeList {
    pub fn attributes(&self) -> impl Iterator<Item = Attribute> + use<> {
        support::children(&self.syntax)
    }
}

impl GnuAttribute {
    pub fn attributes(&self) -> impl Iterator<Item = Attribute> + use<> {
        support::children(&self.syntax)
    }
}

impl Attribute {
    /// The name, with its namespace if any: `buffer`, `clang::optnone`.
    pub fn name(&self) -> Option<String> {
        let toks: Vec<SyntaxToken> =
            support::tokens(&self.syntax).take_while(|t| matches!(t.kind(), IDENT | COLON2)).collect();
        if toks.is_empty() { None } else { Some(toks.iter().map(|t| t.text()).collect()) }
    }
    pub fn name_token(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).find(|t| t.kind() == IDENT)
    }
    pub fn args(&self) -> Option<AttrArgs> {
        support::child(&self.syntax)
    }
}

impl AttrArgs {
    pub fn exprs(&self) -> impl Iterator<Item = Expr> + use<> {
        support::children(&self.syntax)
    }
}

// ---- statements -----------------------------------------------------------------------

ast_node!(CompoundStmt, COMPOUND_STMT);
ast_node!(ExprStmt, EXPR_STMT);
ast_node!(DeclStmt, DECL_STMT);
ast_node!(IfStmt, IF_STMT);
ast_node!(ElseBranch, ELSE_BRANCH);
ast_node!(Condition, CONDITION);
ast_node!(SwitchStmt, SWITCH_STMT);
ast_node!(CaseLabel, CASE_LABEL);
ast_node!(DefaultLabel, DEFAULT_LABEL);
ast_node!(WhileStmt, WHILE_STMT);
ast_node!(DoStmt, DO_STMT);
ast_node!(ForStmt, FOR_STMT);
ast_node!(ForInit, FOR_INIT);
ast_node!(ForIncrement, FOR_INCREMENT);
ast_node!(RangeForStmt, RANGE_FOR_STMT);
ast_node!(BreakStmt, BREAK_STMT);
ast_node!(ContinueStmt, CONTINUE_STMT);
ast_node!(ReturnStmt, RETURN_STMT);
ast_node!(GotoStmt, GOTO_STMT);
ast_node!(LabeledStmt, LABELED_STMT);
ast_node!(EmptyStmt, EMPTY_STMT);
ast_node!(TryStmt, TRY_STMT);
ast_node!(AsmStmt, ASM_STMT);

ast_enum!(Stmt {
    Compound(CompoundStmt),
    Expr(ExprStmt),
    Decl(DeclStmt),
    If(IfStmt),
    Switch(SwitchStmt),
    Case(CaseLabel),
    Default(DefaultLabel),
    While(WhileStmt),
    Do(DoStmt),
    For(ForStmt),
    RangeFor(RangeForStmt),
    Break(BreakStmt),
    Continue(ContinueStmt),
    Return(ReturnStmt),
    Goto(GotoStmt),
    Labeled(LabeledStmt),
    Empty(EmptyStmt),
    Try(TryStmt),
    Asm(AsmStmt),
});

impl CompoundStmt {
    pub fn statements(&self) -> impl Iterator<Item = Stmt> + use<> {
        support::children(&self.syntax)
    }
}

impl ExprStmt {
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl DeclStmt {
    pub fn item(&self) -> Option<Item> {
        support::child(&self.syntax)
    }
}

impl IfStmt {
    pub fn is_constexpr(&self) -> bool {
        support::token(&self.syntax, CONSTEXPR_KW).is_some()
    }
    pub fn condition(&self) -> Option<Condition> {
        support::child(&self.syntax)
    }
    pub fn then_branch(&self) -> Option<Stmt> {
        support::child(&self.syntax)
    }
    pub fn else_branch(&self) -> Option<Stmt> {
        support::child::<ElseBranch>(&self.syntax).and_then(|e| support::child(e.syntax()))
    }
}

impl Condition {
    /// The condition expression (after any init-statement).
    pub fn expr(&self) -> Option<Expr> {
        support::children(&self.syntax).last()
    }
    /// A declaration used as the condition or as the init-statement.
    pub fn declaration(&self) -> Option<VarDecl> {
        support::child(&self.syntax)
    }
}

impl SwitchStmt {
    pub fn condition(&self) -> Option<Condition> {
        support::child(&self.syntax)
    }
    pub fn body(&self) -> Option<Stmt> {
        support::child(&self.syntax)
    }
}

impl CaseLabel {
    pub fn value(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl WhileStmt {
    pub fn condition(&self) -> Option<Condition> {
        support::child(&self.syntax)
    }
    pub fn body(&self) -> Option<Stmt> {
        support::child(&self.syntax)
    }
}

impl DoStmt {
    pub fn body(&self) -> Option<Stmt> {
        support::child(&self.syntax)
    }
    pub fn condition(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl ForStmt {
    pub fn init(&self) -> Option<ForInit> {
        support::child(&self.syntax)
    }
    pub fn condition(&self) -> Option<Condition> {
        support::child(&self.syntax)
    }
    pub fn increment(&self) -> Option<Expr> {
        support::child::<ForIncrement>(&self.syntax).and_then(|i| support::child(i.syntax()))
    }
    pub fn body(&self) -> Option<Stmt> {
        support::child(&self.syntax)
    }
}

impl ForInit {
    pub fn declaration(&self) -> Option<VarDecl> {
        support::child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl RangeForStmt {
    pub fn declaration(&self) -> Option<VarDecl> {
        support::child::<ForInit>(&self.syntax).and_then(|i| i.declaration())
    }
    pub fn range(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
    pub fn body(&self) -> Option<Stmt> {
        support::child(&self.syntax)
    }
}

impl ReturnStmt {
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl GotoStmt {
    pub fn label(&self) -> Option<SyntaxToken> {
        support::token(&self.syntax, IDENT)
    }
}

impl LabeledStmt {
    pub fn label(&self) -> Option<Name> {
        support::child(&self.syntax)
    }
}

// ---- expressions ----------------------------------------------------------------------

ast_node!(Literal, LITERAL);
ast_node!(/// A name used as a value: `x`, `metal::max`, `as_type<float>`, `access::read`.
    PathExpr, PATH_EXPR);
ast_node!(ParenExpr, PAREN_EXPR);
ast_node!(BinExpr, BIN_EXPR);
ast_node!(PrefixExpr, PREFIX_EXPR);
ast_node!(PostfixExpr, POSTFIX_EXPR);
ast_node!(CallExpr, CALL_EXPR);
ast_node!(/// `float4(1.0)`, `T{a, b}`.
    ConstructExpr, CONSTRUCT_EXPR);
ast_node!(ArgList, ARG_LIST);
ast_node!(IndexExpr, INDEX_EXPR);
ast_node!(/// `a.b`, `p->b` (swizzles too: `v.xyz`).
    MemberExpr, MEMBER_EXPR);
ast_node!(/// `(T)x`
    CastExpr, CAST_EXPR);
ast_node!(/// `static_cast<T>(x)` and friends.
    CxxCastExpr, CXX_CAST_EXPR);
ast_node!(/// `c ? a : b`
    ConditionalExpr, CONDITIONAL_EXPR);
ast_node!(SizeofExpr, SIZEOF_EXPR);
ast_node!(AlignofExpr, ALIGNOF_EXPR);
ast_node!(LambdaExpr, LAMBDA_EXPR);
ast_node!(CaptureList, CAPTURE_LIST);
ast_node!(InitList, INIT_LIST);
ast_node!(DesignatedInit, DESIGNATED_INIT);
ast_node!(ThisExpr, THIS_EXPR);
ast_node!(NewExpr, NEW_EXPR);
ast_node!(DeleteExpr, DELETE_EXPR);
ast_node!(ThrowExpr, THROW_EXPR);
ast_node!(TypeidExpr, TYPEID_EXPR);
ast_node!(NoexceptExpr, NOEXCEPT_EXPR);
ast_node!(PackExpansion, PACK_EXPANSION);
ast_node!(FoldExpr, FOLD_EXPR);
ast_node!(/// GNU `({ ... })`
    StmtExpr, STMT_EXPR);

ast_enum!(Expr {
    Literal(Literal),
    Path(PathExpr),
    Paren(ParenExpr),
    Bin(BinExpr),
    Prefix(PrefixExpr),
    Postfix(PostfixExpr),
    Call(CallExpr),
    Construct(ConstructExpr),
    Index(IndexExpr),
    Member(MemberExpr),
    Cast(CastExpr),
    CxxCast(CxxCastExpr),
    Conditional(ConditionalExpr),
    Sizeof(SizeofExpr),
    Alignof(AlignofExpr),
    Lambda(LambdaExpr),
    InitList(InitList),
    Designated(DesignatedInit),
    This(ThisExpr),
    New(NewExpr),
    Delete(DeleteExpr),
    Throw(ThrowExpr),
    Typeid(TypeidExpr),
    Noexcept(NoexceptExpr),
    Pack(PackExpansion),
    Fold(FoldExpr),
    Stmt(StmtExpr),
});

/// What kind of literal a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LiteralKind {
    Int,
    Float,
    Char,
    String,
    Bool,
    Nullptr,
}

impl Literal {
    pub fn token(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).next()
    }
    pub fn kind(&self) -> Option<LiteralKind> {
        Some(match self.token()?.kind() {
            INT_NUMBER => LiteralKind::Int,
            FLOAT_NUMBER => LiteralKind::Float,
            CHAR_LIT => LiteralKind::Char,
            STRING_LIT => LiteralKind::String,
            TRUE_KW | FALSE_KW => LiteralKind::Bool,
            NULLPTR_KW => LiteralKind::Nullptr,
            _ => return None,
        })
    }
}

impl PathExpr {
    pub fn text(&self) -> String {
        path_text(&self.syntax)
    }
    /// The identifier tokens, outermost qualifier first.
    pub fn segments(&self) -> impl Iterator<Item = SyntaxToken> + use<> {
        support::tokens(&self.syntax).filter(|t| t.kind() == IDENT)
    }
    /// The last identifier: the name being referred to.
    pub fn name(&self) -> Option<SyntaxToken> {
        self.segments().last()
    }
    pub fn template_args(&self) -> Option<TemplateArgList> {
        support::children(&self.syntax).last()
    }
    pub fn is_qualified(&self) -> bool {
        support::token(&self.syntax, COLON2).is_some()
    }
}

impl ParenExpr {
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl BinExpr {
    pub fn lhs(&self) -> Option<Expr> {
        support::children(&self.syntax).next()
    }
    pub fn rhs(&self) -> Option<Expr> {
        support::children(&self.syntax).nth(1)
    }
    /// The operator token (`+`, `=`, `&&`, `,` ...).
    pub fn op(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).next()
    }
    /// The operator's kind, without building its token.
    pub fn op_kind(&self) -> Option<SyntaxKind> {
        support::first_token_kind(&self.syntax)
    }
}

impl PrefixExpr {
    pub fn op(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).next()
    }
    /// The operator's kind, without building its token.
    pub fn op_kind(&self) -> Option<SyntaxKind> {
        support::first_token_kind(&self.syntax)
    }
    pub fn operand(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl PostfixExpr {
    pub fn op(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).next()
    }
    /// The operator's kind, without building its token.
    pub fn op_kind(&self) -> Option<SyntaxKind> {
        support::first_token_kind(&self.syntax)
    }
    pub fn operand(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl CallExpr {
    pub fn callee(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
    pub fn args(&self) -> impl Iterator<Item = Expr> + use<> {
        support::child::<ArgList>(&self.syntax).into_iter().flat_map(|a| a.args())
    }
    pub fn arg_list(&self) -> Option<ArgList> {
        support::child(&self.syntax)
    }
}

impl ConstructExpr {
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn args(&self) -> impl Iterator<Item = Expr> + use<> {
        let call = support::child::<ArgList>(&self.syntax).into_iter().flat_map(|a| a.args());
        let braced = support::child::<InitList>(&self.syntax).into_iter().flat_map(|l| l.elements());
        call.chain(braced)
    }
}

impl ArgList {
    pub fn args(&self) -> impl Iterator<Item = Expr> + use<> {
        support::children(&self.syntax)
    }
}

impl IndexExpr {
    pub fn base(&self) -> Option<Expr> {
        support::children(&self.syntax).next()
    }
    pub fn index(&self) -> Option<Expr> {
        support::children(&self.syntax).nth(1)
    }
}

impl MemberExpr {
    pub fn base(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
    /// `.` or `->`.
    pub fn op(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).find(|t| matches!(t.kind(), DOT | ARROW))
    }
    pub fn is_arrow(&self) -> bool {
        self.op().is_some_and(|t| t.kind() == ARROW)
    }
    /// The member's name (for `v.xyz`, the swizzle `xyz`).
    pub fn member(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).find(|t| t.kind() == IDENT)
    }
    pub fn template_args(&self) -> Option<TemplateArgList> {
        support::child(&self.syntax)
    }
}

impl CastExpr {
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl CxxCastExpr {
    /// `static_cast`, `reinterpret_cast`, `const_cast` or `dynamic_cast`.
    pub fn keyword(&self) -> Option<SyntaxToken> {
        support::tokens(&self.syntax).next()
    }
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl ConditionalExpr {
    pub fn condition(&self) -> Option<Expr> {
        support::children(&self.syntax).next()
    }
    pub fn then_expr(&self) -> Option<Expr> {
        support::children(&self.syntax).nth(1)
    }
    pub fn else_expr(&self) -> Option<Expr> {
        support::children(&self.syntax).nth(2)
    }
}

impl SizeofExpr {
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl AlignofExpr {
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
    pub fn expr(&self) -> Option<Expr> {
        support::child(&self.syntax)
    }
}

impl LambdaExpr {
    pub fn captures(&self) -> Option<CaptureList> {
        support::child(&self.syntax)
    }
    pub fn param_list(&self) -> Option<ParamList> {
        support::child(&self.syntax)
    }
    pub fn trailing_return(&self) -> Option<TrailingReturn> {
        support::child(&self.syntax)
    }
    pub fn body(&self) -> Option<CompoundStmt> {
        support::child(&self.syntax)
    }
}

impl InitList {
    pub fn elements(&self) -> impl Iterator<Item = Expr> + use<> {
        support::children(&self.syntax)
    }
}

impl DesignatedInit {
    /// `.name` designators.
    pub fn field(&self) -> Option<SyntaxToken> {
        support::token(&self.syntax, IDENT)
    }
    pub fn value(&self) -> Option<Expr> {
        support::children(&self.syntax).last()
    }
}

impl NewExpr {
    /// The placement arguments (`new (ptr) T`).
    pub fn placement(&self) -> Option<ArgList> {
        let first = self.syntax.children().next()?;
        if first.kind() == ARG_LIST { ArgList::cast(first) } else { None }
    }
    pub fn ty(&self) -> Option<Type> {
        support::child(&self.syntax)
    }
}

impl StmtExpr {
    pub fn body(&self) -> Option<CompoundStmt> {
        support::child(&self.syntax)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PpConfig, parse_text};

    fn file(text: &str) -> SourceFile {
        let parse = parse_text(text, &PpConfig::default());
        assert_eq!(parse.errors().count(), 0, "{:?}", parse.diagnostics());
        SourceFile::cast(parse.syntax()).expect("root is a source file")
    }

    #[test]
    fn entry_point_with_attributes() {
        let f = file(
            "kernel void add(device const float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) { c[i] = a[i]; }",
        );
        let Some(Item::Function(func)) = f.items().next() else { panic!("a function") };
        assert_eq!(func.name().map(|n| n.text()), Some("add".into()));
        assert_eq!(func.stage(), Some(Stage::Kernel));
        let params: Vec<Param> = func.param_list().unwrap().params().collect();
        assert_eq!(params.len(), 2);
        let p0 = &params[0];
        assert_eq!(p0.name().unwrap().text(), "a");
        let spec = p0.decl_specifiers().unwrap();
        assert_eq!(spec.address_space().unwrap().text(), "device");
        assert!(spec.has(CONST_KW));
        assert_eq!(p0.declarator().unwrap().ptr_operators().count(), 1);
        let attr = p0.attribute_lists().flat_map(|l| l.attributes().collect::<Vec<_>>()).next().unwrap();
        assert_eq!(attr.name().as_deref(), Some("buffer"));
        assert_eq!(attr.args().unwrap().exprs().count(), 1);
        let attr1 = params[1].attribute_lists().flat_map(|l| l.attributes().collect::<Vec<_>>()).next().unwrap();
        assert_eq!(attr1.name().as_deref(), Some("thread_position_in_grid"));
        let body = func.body().unwrap();
        let Some(Stmt::Expr(stmt)) = body.statements().next() else { panic!() };
        let Some(Expr::Bin(assign)) = stmt.expr() else { panic!() };
        assert_eq!(assign.op().unwrap().text(), "=");
        assert!(matches!(assign.lhs(), Some(Expr::Index(_))));
    }

    #[test]
    fn attribute_stage_struct_enum_and_template() {
        let f = file(
            "[[kernel]] void k() {}\n\
             struct S : Base { float4 pos [[position]]; int f() const; };\n\
             enum class E : uint { A, B = 2 };\n\
             template <typename T, int N = 3> T id(T x) { return x; }\n",
        );
        let items: Vec<Item> = f.items().collect();
        let Item::Function(k) = &items[0] else { panic!() };
        assert_eq!(k.stage(), Some(Stage::Kernel));
        let Item::Struct(s) = &items[1] else { panic!() };
        assert_eq!(s.name().unwrap().text(), "S");
        assert_eq!(s.keyword().unwrap().kind(), STRUCT_KW);
        assert_eq!(s.base_clause().unwrap().bases().count(), 1);
        assert_eq!(s.members().count(), 2);
        let Item::Enum(e) = &items[2] else { panic!() };
        assert!(e.is_scoped());
        assert_eq!(e.enumerators().map(|x| x.name().unwrap().text()).collect::<Vec<_>>(), ["A", "B"]);
        let Item::TemplateDecl(t) = &items[3] else { panic!() };
        assert_eq!(t.params().unwrap().params().count(), 2);
        let Some(Item::Function(id)) = t.item() else { panic!() };
        assert_eq!(id.name().unwrap().text(), "id");
    }

    #[test]
    fn expressions() {
        let f = file("void f() { auto y = v.xyz * metal::max(a, 2.0h) + float(1) + (float)b; }");
        let root = f.syntax().clone();
        let member = root.descendants().find_map(MemberExpr::cast).unwrap();
        assert_eq!(member.member().unwrap().text(), "xyz");
        assert!(!member.is_arrow());
        let call = root.descendants().find_map(CallExpr::cast).unwrap();
        let Some(Expr::Path(callee)) = call.callee() else { panic!() };
        assert_eq!(callee.text(), "metal::max");
        assert!(callee.is_qualified());
        assert_eq!(call.args().count(), 2);
        let lit = root.descendants().filter_map(Literal::cast).find(|l| l.kind() == Some(LiteralKind::Float)).unwrap();
        assert_eq!(lit.token().unwrap().text(), "2.0h");
        let construct = root.descendants().find_map(ConstructExpr::cast).unwrap();
        assert_eq!(construct.ty().unwrap().syntax().text().to_string(), "float");
        let cast = root.descendants().find_map(CastExpr::cast).unwrap();
        assert_eq!(cast.ty().unwrap().syntax().text().to_string(), "float");
    }
}
