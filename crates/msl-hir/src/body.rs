//! Function bodies, lowered once into arenas of expressions, statements and locals with
//! ids, and a source map both ways (ids to ranges, ranges to ids).
//!
//! Locals are resolved while lowering, in declaration order and by block, as C++ scopes
//! them: a name used before its declaration, or outside the block that declares it, is
//! not the local (it stays a path for inference to resolve against the unit's
//! definitions and the library). Ranges are relative to the start of the function.

use std::sync::Arc;

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, TextRange, TextSize};
use rustc_hash::FxHashMap;

use crate::ty::{PathRef, TypeRef};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Body {
    pub exprs: Vec<Expr>,
    pub stmts: Vec<Stmt>,
    pub locals: Vec<Local>,
    /// The function's parameters, in order.
    pub params: Vec<LocalId>,
    /// The body's block.
    pub root: Option<StmtId>,
    /// Types declared in the body (`using T = ...;`, `typedef ... T;`), in order.
    pub type_aliases: Vec<(Arc<str>, TypeRef)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BodySourceMap {
    pub expr_ranges: Vec<TextRange>,
    pub stmt_ranges: Vec<TextRange>,
    /// The range of each local's name.
    pub local_ranges: Vec<TextRange>,
    /// Where each local goes out of scope: the end of the block or statement that declares
    /// it (it is visible from the end of its name to there).
    pub local_scope_ends: Vec<TextSize>,
    pub expr_at: FxHashMap<TextRange, ExprId>,
}

impl BodySourceMap {
    /// The expression whose syntax is exactly `range`.
    pub fn expr_for(&self, range: TextRange) -> Option<ExprId> {
        self.expr_at.get(&range).copied()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    pub name: Arc<str>,
    pub ty: TypeRef,
    pub kind: LocalKind,
    /// `= e`, `(e)`, `{e}`: the initializer (a construct or list expression for the
    /// last two when they hold several values).
    pub init: Option<ExprId>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalKind {
    Param,
    Var,
    /// A name of a structured binding: the `index`th element of `of`'s initializer.
    Binding {
        index: u32,
    },
    /// A range-`for` variable: an element of the range.
    RangeElement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Literal {
    /// An integer literal: its value, whether it is unsigned (`u`) and 64-bit (`l`).
    Int {
        value: u64,
        unsigned: bool,
        long: bool,
    },
    /// A floating literal: `h` (half), `bf` (bfloat) or none (float).
    Float {
        half: bool,
        bfloat: bool,
    },
    Bool(bool),
    Char,
    String,
    Nullptr,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// Nothing parsed here (an error), or a construct not modelled (`new`, `throw`).
    Missing,
    Literal(Literal),
    Local(LocalId),
    /// A name that is no local: resolved by inference.
    Path(PathRef),
    This,
    Unary {
        op: UnaryOp,
        expr: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `=`, or a compound assignment with its operator.
    Assign {
        op: Option<BinaryOp>,
        lhs: ExprId,
        rhs: ExprId,
    },
    Conditional {
        cond: ExprId,
        then: ExprId,
        other: ExprId,
    },
    Comma {
        lhs: ExprId,
        rhs: ExprId,
    },
    Call {
        callee: ExprId,
        args: Vec<ExprId>,
    },
    Member {
        base: ExprId,
        name: Arc<str>,
        arrow: bool,
        /// Explicit template arguments (`v.template get<0>`).
        template_args: Option<Vec<crate::ty::TypeArgRef>>,
    },
    Index {
        base: ExprId,
        index: ExprId,
    },
    /// `(T) e`, `static_cast<T>(e)` and the like.
    Cast {
        ty: TypeRef,
        expr: ExprId,
    },
    /// `float4(a, b)`, `T{a, b}`: a type built from arguments.
    Construct {
        ty: TypeRef,
        args: Vec<ExprId>,
        braced: bool,
    },
    InitList {
        elems: Vec<ExprId>,
    },
    SizeofType(TypeRef),
    SizeofExpr(ExprId),
    Alignof(TypeRef),
    /// A lambda: its parameters and body are lowered with the function's (captures see
    /// the enclosing locals).
    Lambda {
        params: Vec<LocalId>,
        body: Option<StmtId>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    /// How C++ writes the operator (`+`, `<<`, `&&`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    Expr(ExprId),
    /// Declarations of locals (their initializers are in the locals).
    Decl(Vec<LocalId>),
    Block(Vec<StmtId>),
    If {
        init: Option<StmtId>,
        cond: Option<ExprId>,
        then: Option<StmtId>,
        other: Option<StmtId>,
        /// `if constexpr`: the branch not taken is discarded in an instantiation.
        constexpr: bool,
    },
    While {
        cond: Option<ExprId>,
        body: Option<StmtId>,
    },
    Do {
        body: Option<StmtId>,
        cond: Option<ExprId>,
    },
    For {
        init: Option<StmtId>,
        cond: Option<ExprId>,
        step: Option<ExprId>,
        body: Option<StmtId>,
    },
    RangeFor {
        var: Option<LocalId>,
        range: Option<ExprId>,
        body: Option<StmtId>,
    },
    Switch {
        init: Option<StmtId>,
        cond: Option<ExprId>,
        body: Option<StmtId>,
    },
    Case(Option<ExprId>),
    Return(Option<ExprId>),
    Break,
    Continue,
    /// `static_assert(cond, "message")` in a body.
    StaticAssert {
        cond: Option<ExprId>,
        message: Option<Arc<str>>,
    },
    /// `default:`, `;`, `goto`, and what Metal forbids.
    Other,
}

/// Lowers a FUNCTION node (its syntax as the root of a tree: ranges are then relative to
/// the function's start).
pub fn lower_function(function: &SyntaxNode) -> (Body, BodySourceMap) {
    let mut l = Lowerer::default();
    l.enter(function.text_range().end());
    if let Some(f) = ast::Function::cast(function.clone()) {
        let decl = f.declarator();
        if let Some(list) = decl.and_then(|d| d.param_list()) {
            for p in list.params() {
                if let Some(id) = l.param(&p) {
                    l.body.params.push(id);
                }
            }
        }
        if let Some(init) = f.ctor_initializer() {
            for e in init
                .syntax()
                .descendants()
                .filter(|n| n.kind() == SyntaxKind::ARG_LIST || n.kind() == SyntaxKind::INIT_LIST)
            {
                for a in e.children().filter_map(ast::Expr::cast) {
                    l.expr(&a);
                }
            }
        }
        if let Some(b) = f.body() {
            l.body.root = Some(l.block(b.syntax()));
        }
    }
    (l.body, l.map)
}

impl Body {
    /// The expressions directly under expression `e`.
    pub fn expr_children(&self, e: ExprId) -> Vec<ExprId> {
        match &self.exprs[e.0 as usize] {
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } | Expr::SizeofExpr(expr) => vec![*expr],
            Expr::Binary { lhs, rhs, .. } | Expr::Assign { lhs, rhs, .. } | Expr::Comma { lhs, rhs } => {
                vec![*lhs, *rhs]
            }
            Expr::Conditional { cond, then, other } => vec![*cond, *then, *other],
            Expr::Call { callee, args } => std::iter::once(*callee).chain(args.iter().copied()).collect(),
            Expr::Member { base, .. } => vec![*base],
            Expr::Index { base, index } => vec![*base, *index],
            Expr::Construct { args, .. } => args.clone(),
            Expr::InitList { elems } => elems.clone(),
            Expr::Lambda { params, body } => {
                let mut out: Vec<ExprId> = params.iter().filter_map(|p| self.locals[p.0 as usize].init).collect();
                if let Some(b) = body {
                    out.extend(self.stmt_roots(*b));
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// Every expression of statement `s` and the statements in it, nested ones included.
    pub fn stmt_exprs(&self, s: StmtId) -> Vec<ExprId> {
        let mut roots = self.stmt_roots(s);
        let mut out = Vec::new();
        while let Some(e) = roots.pop() {
            out.push(e);
            roots.extend(self.expr_children(e));
        }
        out
    }

    /// Statement `s` and every statement nested in it.
    pub fn stmts_within(&self, s: StmtId) -> Vec<StmtId> {
        let mut out = Vec::new();
        let mut stack = vec![s];
        while let Some(s) = stack.pop() {
            out.push(s);
            match self.stmts.get(s.0 as usize) {
                Some(Stmt::Block(list)) => stack.extend(list.iter().copied()),
                Some(Stmt::If { init, then, other, .. }) => stack.extend(init.iter().chain(then).chain(other).copied()),
                Some(Stmt::While { body, .. } | Stmt::Do { body, .. } | Stmt::RangeFor { body, .. }) => {
                    stack.extend(body.iter().copied())
                }
                Some(Stmt::For { init, body, .. } | Stmt::Switch { init, body, .. }) => {
                    stack.extend(init.iter().chain(body).copied())
                }
                _ => {}
            }
        }
        out
    }

    /// The outermost expressions of statement `s` and the statements in it.
    fn stmt_roots(&self, s: StmtId) -> Vec<ExprId> {
        let mut roots: Vec<ExprId> = Vec::new();
        for s in self.stmts_within(s) {
            let Some(st) = self.stmts.get(s.0 as usize) else { continue };
            match st {
                Stmt::Expr(e) | Stmt::Case(Some(e)) | Stmt::Return(Some(e)) => roots.push(*e),
                Stmt::StaticAssert { cond: Some(e), .. } => roots.push(*e),
                Stmt::Decl(locals) => roots.extend(locals.iter().filter_map(|l| self.locals[l.0 as usize].init)),
                Stmt::If { cond, .. }
                | Stmt::While { cond, .. }
                | Stmt::Do { cond, .. }
                | Stmt::Switch { cond, .. } => roots.extend(cond),
                Stmt::For { cond, step, .. } => roots.extend(cond.iter().chain(step)),
                Stmt::RangeFor { var, range, .. } => {
                    roots.extend(range.iter().copied().chain(var.and_then(|v| self.locals[v.0 as usize].init)))
                }
                _ => {}
            }
        }
        roots
    }
}

/// Lowers one expression on its own (an array bound, a constant's initializer, a
/// `static_assert` condition): a body of expressions only, and the expression's id.
pub fn lower_expression(expr: &SyntaxNode) -> (Body, ExprId) {
    let mut l = Lowerer::default();
    l.enter(expr.text_range().end());
    let id = match ast::Expr::cast(expr.clone()) {
        Some(e) => l.expr(&e),
        None => l.alloc_expr(Expr::Missing, expr.text_range()),
    };
    (l.body, id)
}

/// The message of a `static_assert`, without its quotes.
pub fn static_assert_message(node: &SyntaxNode) -> Option<Arc<str>> {
    let lit =
        node.descendants_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == SyntaxKind::STRING_LIT)?;
    let text = lit.text();
    Some(Arc::from(text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text)))
}

#[derive(Default)]
struct Lowerer {
    body: Body,
    map: BodySourceMap,
    /// Local names in scope, innermost block last, each scope with where it ends.
    scopes: Vec<FxHashMap<Arc<str>, LocalId>>,
    scope_ends: Vec<TextSize>,
}

impl Lowerer {
    /// Opens a scope that ends at `end` (the end of the block or statement that opens it).
    fn enter(&mut self, end: TextSize) {
        self.scopes.push(FxHashMap::default());
        self.scope_ends.push(end);
    }

    fn leave(&mut self) {
        self.scopes.pop();
        self.scope_ends.pop();
    }

    fn alloc_expr(&mut self, e: Expr, range: TextRange) -> ExprId {
        let id = ExprId(self.body.exprs.len() as u32);
        self.body.exprs.push(e);
        self.map.expr_ranges.push(range);
        self.map.expr_at.entry(range).or_insert(id);
        id
    }

    fn alloc_stmt(&mut self, s: Stmt, range: TextRange) -> StmtId {
        let id = StmtId(self.body.stmts.len() as u32);
        self.body.stmts.push(s);
        self.map.stmt_ranges.push(range);
        id
    }

    fn alloc_local(&mut self, local: Local, range: TextRange) -> LocalId {
        let id = LocalId(self.body.locals.len() as u32);
        let name = local.name.clone();
        self.body.locals.push(local);
        self.map.local_ranges.push(range);
        self.map.local_scope_ends.push(self.scope_ends.last().copied().unwrap_or(range.end()));
        if let Some(scope) = self.scopes.last_mut()
            && !name.is_empty()
        {
            scope.insert(name, id);
        }
        id
    }

    fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn param(&mut self, p: &ast::Param) -> Option<LocalId> {
        let ty = TypeRef::from_syntax(p.decl_specifiers().as_ref(), p.declarator().as_ref());
        if matches!(&ty.base, crate::ty::TypeBase::Builtin(b) if &**b == "void") && ty.ops.is_empty() {
            return None;
        }
        let name = p.name();
        let range = name.as_ref().map_or(p.syntax().text_range(), |n| n.syntax().text_range());
        let init = p.syntax().children().find_map(ast::Expr::cast).map(|e| self.expr(&e));
        let name: Arc<str> = Arc::from(name.map(|n| n.text()).unwrap_or_default());
        Some(self.alloc_local(Local { name, ty, kind: LocalKind::Param, init }, range))
    }

    fn block(&mut self, node: &SyntaxNode) -> StmtId {
        self.enter(node.text_range().end());
        let stmts = node.children().filter_map(|c| self.stmt(&c)).collect();
        self.leave();
        self.alloc_stmt(Stmt::Block(stmts), node.text_range())
    }

    /// A statement in its own scope (the branch of an `if`, a loop's body).
    fn scoped_stmt(&mut self, node: Option<SyntaxNode>) -> Option<StmtId> {
        let node = node?;
        self.enter(node.text_range().end());
        let s = self.stmt(&node);
        self.leave();
        s
    }

    fn stmt(&mut self, node: &SyntaxNode) -> Option<StmtId> {
        let range = node.text_range();
        let s = match node.kind() {
            SyntaxKind::COMPOUND_STMT => return Some(self.block(node)),
            SyntaxKind::EXPR_STMT => match node.children().find_map(ast::Expr::cast) {
                Some(e) => Stmt::Expr(self.expr(&e)),
                None => Stmt::Other,
            },
            SyntaxKind::BREAK_STMT => Stmt::Break,
            SyntaxKind::CONTINUE_STMT => Stmt::Continue,
            SyntaxKind::DECL_STMT if node.children().any(|c| c.kind() == SyntaxKind::STATIC_ASSERT) => {
                let a = node.children().find(|c| c.kind() == SyntaxKind::STATIC_ASSERT)?;
                let cond = a.children().find_map(ast::Expr::cast).map(|e| self.expr(&e));
                Stmt::StaticAssert { cond, message: static_assert_message(&a) }
            }
            SyntaxKind::DECL_STMT => {
                let mut locals = Vec::new();
                for d in node.children() {
                    match d.kind() {
                        SyntaxKind::VAR_DECL => locals.extend(self.var_decl(&d)),
                        SyntaxKind::TYPEDEF_DECL => {
                            let Some(decl) = ast::TypedefDecl::cast(d.clone()) else { continue };
                            for i in decl.declarators() {
                                let Some(name) = i.name().map(|n| n.text()) else { continue };
                                let target =
                                    TypeRef::from_syntax(decl.decl_specifiers().as_ref(), i.declarator().as_ref());
                                self.body.type_aliases.push((Arc::from(name), target));
                            }
                        }
                        SyntaxKind::ALIAS_DECL => {
                            let Some(decl) = ast::AliasDecl::cast(d.clone()) else { continue };
                            let Some(name) = decl.name().map(|n| n.text()) else { continue };
                            let target = decl.ty().map_or_else(TypeRef::unknown, |t| TypeRef::from_type(&t));
                            self.body.type_aliases.push((Arc::from(name), target));
                        }
                        // a local class declares no local variable
                        _ => {}
                    }
                }
                Stmt::Decl(locals)
            }
            SyntaxKind::IF_STMT => {
                self.enter(node.text_range().end());
                let (init, cond) = self.condition(node.children().find(|c| c.kind() == SyntaxKind::CONDITION));
                let branches: Vec<SyntaxNode> = node.children().filter(|c| is_stmt(c.kind())).collect();
                let then = self.scoped_stmt(branches.first().cloned());
                let other = node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::ELSE_BRANCH)
                    .and_then(|e| e.children().find(|c| is_stmt(c.kind())));
                let other = self.scoped_stmt(other);
                self.leave();
                let constexpr = node.children_with_tokens().any(|e| e.kind() == SyntaxKind::CONSTEXPR_KW);
                Stmt::If { init, cond, then, other, constexpr }
            }
            SyntaxKind::SWITCH_STMT => {
                self.enter(node.text_range().end());
                let (init, cond) = self.condition(node.children().find(|c| c.kind() == SyntaxKind::CONDITION));
                let body = self.scoped_stmt(node.children().find(|c| is_stmt(c.kind())));
                self.leave();
                Stmt::Switch { init, cond, body }
            }
            SyntaxKind::WHILE_STMT => {
                self.enter(node.text_range().end());
                let (_, cond) = self.condition(node.children().find(|c| c.kind() == SyntaxKind::CONDITION));
                let body = self.scoped_stmt(node.children().find(|c| is_stmt(c.kind())));
                self.leave();
                Stmt::While { cond, body }
            }
            SyntaxKind::DO_STMT => {
                let body = self.scoped_stmt(node.children().find(|c| is_stmt(c.kind())));
                let cond = node.children().find_map(ast::Expr::cast).map(|e| self.expr(&e));
                Stmt::Do { body, cond }
            }
            SyntaxKind::FOR_STMT => {
                self.enter(node.text_range().end());
                let init = node.children().find(|c| c.kind() == SyntaxKind::FOR_INIT).and_then(|i| self.init_part(&i));
                let (_, cond) = self.condition(node.children().find(|c| c.kind() == SyntaxKind::CONDITION));
                let step = node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::FOR_INCREMENT)
                    .and_then(|i| i.children().find_map(ast::Expr::cast))
                    .map(|e| self.expr(&e));
                let body = self.scoped_stmt(node.children().find(|c| is_stmt(c.kind())));
                self.leave();
                Stmt::For { init, cond, step, body }
            }
            SyntaxKind::RANGE_FOR_STMT => {
                self.enter(node.text_range().end());
                // the range is evaluated before the variable is in scope
                let range_expr = node
                    .children()
                    .filter(|c| c.kind() != SyntaxKind::FOR_INIT)
                    .find_map(ast::Expr::cast)
                    .map(|e| self.expr(&e));
                let var = node
                    .children()
                    .find(|c| c.kind() == SyntaxKind::FOR_INIT)
                    .and_then(|i| i.children().find(|c| c.kind() == SyntaxKind::VAR_DECL))
                    .and_then(|v| {
                        let ids = self.var_decl(&v);
                        for id in &ids {
                            if self.body.locals[id.0 as usize].kind == LocalKind::Var {
                                self.body.locals[id.0 as usize].kind = LocalKind::RangeElement;
                            }
                        }
                        ids.first().copied()
                    });
                let body = self.scoped_stmt(node.children().find(|c| is_stmt(c.kind())));
                self.leave();
                Stmt::RangeFor { var, range: range_expr, body }
            }
            SyntaxKind::RETURN_STMT => Stmt::Return(node.children().find_map(ast::Expr::cast).map(|e| self.expr(&e))),
            SyntaxKind::CASE_LABEL => Stmt::Case(node.children().find_map(ast::Expr::cast).map(|e| self.expr(&e))),
            SyntaxKind::LABELED_STMT => {
                return node.children().find(|c| is_stmt(c.kind())).and_then(|c| self.stmt(&c));
            }
            k if is_stmt(k) => Stmt::Other,
            _ => return None,
        };
        Some(self.alloc_stmt(s, range))
    }

    /// `(init; cond)` of `if`, `switch`, `while` and a `for`'s condition: the
    /// init-statement and the condition (a declaration's variable counts as the value).
    fn condition(&mut self, node: Option<SyntaxNode>) -> (Option<StmtId>, Option<ExprId>) {
        let Some(node) = node else { return (None, None) };
        let parts: Vec<SyntaxNode> =
            node.children().filter(|c| c.kind() == SyntaxKind::VAR_DECL || ast::Expr::can_cast(c.kind())).collect();
        let has_init = node.children_with_tokens().any(|e| e.kind() == SyntaxKind::SEMI);
        let mut init = None;
        let mut cond = None;
        for (i, part) in parts.iter().enumerate() {
            let is_init = has_init && i == 0 && parts.len() > 1;
            if part.kind() == SyntaxKind::VAR_DECL {
                let locals = self.var_decl(part);
                let range = part.text_range();
                if is_init {
                    init = Some(self.alloc_stmt(Stmt::Decl(locals), range));
                } else if let Some(l) = locals.first() {
                    cond = Some(self.alloc_expr(Expr::Local(*l), range));
                }
            } else if let Some(e) = ast::Expr::cast(part.clone()) {
                let id = self.expr(&e);
                if is_init {
                    init = Some(self.alloc_stmt(Stmt::Expr(id), part.text_range()));
                } else {
                    cond = Some(id);
                }
            }
        }
        (init, cond)
    }

    /// A `for`'s init part: a declaration or an expression.
    fn init_part(&mut self, node: &SyntaxNode) -> Option<StmtId> {
        if let Some(v) = node.children().find(|c| c.kind() == SyntaxKind::VAR_DECL) {
            let locals = self.var_decl(&v);
            return Some(self.alloc_stmt(Stmt::Decl(locals), v.text_range()));
        }
        let e = node.children().find_map(ast::Expr::cast)?;
        let id = self.expr(&e);
        Some(self.alloc_stmt(Stmt::Expr(id), e.syntax().text_range()))
    }

    /// The locals a declaration declares, each in scope from its own declarator on.
    fn var_decl(&mut self, node: &SyntaxNode) -> Vec<LocalId> {
        let Some(v) = ast::VarDecl::cast(node.clone()) else { return Vec::new() };
        let spec = v.decl_specifiers();
        let mut out = Vec::new();
        for d in v.declarators() {
            let declarator = d.declarator();
            let ty = TypeRef::from_syntax(spec.as_ref(), declarator.as_ref());
            // the initializer is lowered before the name is in scope (`int x = x;` aside)
            let init = d.initializer().and_then(|i| self.initializer(i.syntax()));
            if let Some(list) = declarator.as_ref().and_then(|d| d.binding_list()) {
                // `auto [a, b] = e`: a hidden object, and the names bound to its elements
                let hidden = self.alloc_local(
                    Local { name: Arc::from(""), ty: ty.clone(), kind: LocalKind::Var, init },
                    list.syntax().text_range(),
                );
                out.push(hidden);
                for (i, n) in list.names().enumerate() {
                    let name: Arc<str> = Arc::from(n.text());
                    let at = self.alloc_expr(Expr::Local(hidden), list.syntax().text_range());
                    let id = self.alloc_local(
                        Local {
                            name,
                            ty: TypeRef::unknown(),
                            kind: LocalKind::Binding { index: i as u32 },
                            init: Some(at),
                        },
                        n.syntax().text_range(),
                    );
                    out.push(id);
                }
                continue;
            }
            let Some(name) = d.name() else { continue };
            let id = self.alloc_local(
                Local { name: Arc::from(name.text()), ty, kind: LocalKind::Var, init },
                name.syntax().text_range(),
            );
            out.push(id);
        }
        out
    }

    /// An INITIALIZER node: `= e`, `= {..}`, `{..}`, `(a, b)`.
    fn initializer(&mut self, node: &SyntaxNode) -> Option<ExprId> {
        if let Some(e) = node.children().find_map(ast::Expr::cast) {
            return Some(self.expr(&e));
        }
        let args = node.children().find(|c| c.kind() == SyntaxKind::ARG_LIST)?;
        let elems: Vec<ExprId> = args.children().filter_map(ast::Expr::cast).map(|e| self.expr(&e)).collect();
        match elems.as_slice() {
            [one] => Some(*one),
            _ => Some(self.alloc_expr(Expr::InitList { elems }, args.text_range())),
        }
    }

    fn exprs_of(&mut self, node: Option<SyntaxNode>) -> Vec<ExprId> {
        node.map(|n| n.children().filter_map(ast::Expr::cast).map(|e| self.expr(&e)).collect()).unwrap_or_default()
    }

    fn expr(&mut self, e: &ast::Expr) -> ExprId {
        let node = e.syntax();
        let range = node.text_range();
        // a parenthesized expression (or a designator's value) is its inner expression,
        // found by either range
        if matches!(node.kind(), SyntaxKind::PAREN_EXPR | SyntaxKind::DESIGNATED_INIT)
            && let Some(inner) = node.children().find_map(ast::Expr::cast)
        {
            let id = self.expr(&inner);
            self.map.expr_at.entry(range).or_insert(id);
            return id;
        }
        let lowered = self.expr_kind(node);
        self.alloc_expr(lowered, range)
    }

    fn child_expr(&mut self, node: &SyntaxNode, n: usize) -> ExprId {
        match node.children().filter_map(ast::Expr::cast).nth(n) {
            Some(e) => self.expr(&e),
            None => self.alloc_expr(Expr::Missing, TextRange::empty(node.text_range().end())),
        }
    }

    fn expr_kind(&mut self, node: &SyntaxNode) -> Expr {
        match node.kind() {
            SyntaxKind::LITERAL => literal(node),
            SyntaxKind::PATH_EXPR => {
                let Some(path) = crate::ty::path_of(node) else { return Expr::Missing };
                if !path.global
                    && path.segments.len() == 1
                    && path.segments[0].args.is_none()
                    && let Some(l) = self.lookup(&path.segments[0].name)
                {
                    return Expr::Local(l);
                }
                Expr::Path(path)
            }
            SyntaxKind::THIS_EXPR => Expr::This,
            SyntaxKind::PAREN_EXPR => {
                // the inner expression's kind: a parenthesized expression is that expression
                match node.children().find_map(ast::Expr::cast) {
                    Some(inner) => self.expr_kind(inner.syntax()),
                    None => Expr::Missing,
                }
            }
            SyntaxKind::PREFIX_EXPR => {
                let op = match node.first_token().map(|t| t.kind()) {
                    Some(SyntaxKind::MINUS) => UnaryOp::Neg,
                    Some(SyntaxKind::PLUS) => UnaryOp::Plus,
                    Some(SyntaxKind::BANG) => UnaryOp::Not,
                    Some(SyntaxKind::TILDE) => UnaryOp::BitNot,
                    Some(SyntaxKind::STAR) => UnaryOp::Deref,
                    Some(SyntaxKind::AMP) => UnaryOp::AddrOf,
                    Some(SyntaxKind::PLUS2) => UnaryOp::PreInc,
                    Some(SyntaxKind::MINUS2) => UnaryOp::PreDec,
                    _ => return Expr::Missing,
                };
                Expr::Unary { op, expr: self.child_expr(node, 0) }
            }
            SyntaxKind::POSTFIX_EXPR => {
                let op = match node.last_token().map(|t| t.kind()) {
                    Some(SyntaxKind::PLUS2) => UnaryOp::PostInc,
                    _ => UnaryOp::PostDec,
                };
                Expr::Unary { op, expr: self.child_expr(node, 0) }
            }
            SyntaxKind::BIN_EXPR => {
                let op_tok = node
                    .children_with_tokens()
                    .filter_map(|e| e.into_token())
                    .find(|t| !t.kind().is_trivia())
                    .map(|t| t.kind());
                let lhs = self.child_expr(node, 0);
                let rhs = match node.children().find(|c| c.kind() == SyntaxKind::INIT_LIST) {
                    Some(list) if node.children().filter_map(ast::Expr::cast).count() == 1 => {
                        let elems = self.exprs_of(Some(list.clone()));
                        self.alloc_expr(Expr::InitList { elems }, list.text_range())
                    }
                    _ => self.child_expr(node, 1),
                };
                let Some(op) = op_tok else { return Expr::Missing };
                match op {
                    SyntaxKind::EQ => Expr::Assign { op: None, lhs, rhs },
                    SyntaxKind::COMMA => Expr::Comma { lhs, rhs },
                    k => match (binary_op(k), compound_op(k)) {
                        (Some(op), _) => Expr::Binary { op, lhs, rhs },
                        (None, Some(op)) => Expr::Assign { op: Some(op), lhs, rhs },
                        _ => Expr::Missing,
                    },
                }
            }
            SyntaxKind::CONDITIONAL_EXPR => Expr::Conditional {
                cond: self.child_expr(node, 0),
                then: self.child_expr(node, 1),
                other: self.child_expr(node, 2),
            },
            SyntaxKind::CALL_EXPR => {
                let callee = self.child_expr(node, 0);
                let args = self.exprs_of(node.children().find(|c| c.kind() == SyntaxKind::ARG_LIST));
                Expr::Call { callee, args }
            }
            SyntaxKind::INDEX_EXPR => Expr::Index { base: self.child_expr(node, 0), index: self.child_expr(node, 1) },
            SyntaxKind::MEMBER_EXPR => {
                let base = self.child_expr(node, 0);
                let arrow = node.children_with_tokens().any(|e| e.kind() == SyntaxKind::ARROW);
                let template_args = node
                    .children()
                    .find_map(ast::TemplateArgList::cast)
                    .map(|l| l.args().map(|a| crate::ty::arg_of(&a)).collect());
                let name = node
                    .children_with_tokens()
                    .filter_map(|e| e.into_token())
                    .filter(|t| t.kind() == SyntaxKind::IDENT)
                    .last()
                    .map(|t| t.text().to_string())
                    .or_else(|| {
                        node.children()
                            .find(|c| {
                                matches!(
                                    c.kind(),
                                    SyntaxKind::PATH | SyntaxKind::OPERATOR_NAME | SyntaxKind::DESTRUCTOR_NAME
                                )
                            })
                            .map(|c| {
                                // `v.Base::f`: the member is found by its own name
                                let text = c.text().to_string();
                                match (c.kind(), text.rfind("::")) {
                                    (SyntaxKind::PATH, Some(i)) => text[i + 2..].trim().to_string(),
                                    _ => text,
                                }
                            })
                    })
                    .unwrap_or_default();
                Expr::Member { base, name: Arc::from(name), arrow, template_args }
            }
            SyntaxKind::CAST_EXPR | SyntaxKind::CXX_CAST_EXPR => {
                let ty =
                    node.children().find_map(ast::Type::cast).map_or_else(TypeRef::unknown, |t| TypeRef::from_type(&t));
                let expr = self.child_expr(node, 0);
                Expr::Cast { ty, expr }
            }
            SyntaxKind::CONSTRUCT_EXPR => {
                let ty =
                    node.children().find_map(ast::Type::cast).map_or_else(TypeRef::unknown, |t| TypeRef::from_type(&t));
                let list = node.children().find(|c| matches!(c.kind(), SyntaxKind::ARG_LIST | SyntaxKind::INIT_LIST));
                let braced = list.as_ref().is_some_and(|l| l.kind() == SyntaxKind::INIT_LIST);
                let args = self.exprs_of(list);
                Expr::Construct { ty, args, braced }
            }
            SyntaxKind::INIT_LIST => Expr::InitList { elems: self.exprs_of(Some(node.clone())) },
            SyntaxKind::DESIGNATED_INIT => match node.children().find_map(ast::Expr::cast) {
                Some(e) => self.expr_kind(e.syntax()),
                None => Expr::Missing,
            },
            SyntaxKind::SIZEOF_EXPR => match node.children().find_map(ast::Type::cast) {
                Some(t) => Expr::SizeofType(TypeRef::from_type(&t)),
                None => Expr::SizeofExpr(self.child_expr(node, 0)),
            },
            SyntaxKind::ALIGNOF_EXPR => match node.children().find_map(ast::Type::cast) {
                Some(t) => Expr::Alignof(TypeRef::from_type(&t)),
                None => Expr::Missing,
            },
            SyntaxKind::LAMBDA_EXPR => {
                self.enter(node.text_range().end());
                let mut params = Vec::new();
                if let Some(list) = node.children().find_map(ast::ParamList::cast) {
                    for p in list.params() {
                        if let Some(id) = self.param(&p) {
                            params.push(id);
                        }
                    }
                }
                let body = node.children().find(|c| c.kind() == SyntaxKind::COMPOUND_STMT).map(|b| self.block(&b));
                self.leave();
                Expr::Lambda { params, body }
            }
            SyntaxKind::STMT_EXPR => {
                if let Some(b) = node.children().find(|c| c.kind() == SyntaxKind::COMPOUND_STMT) {
                    self.block(&b);
                }
                Expr::Missing
            }
            _ => {
                // not modelled (`new`, `throw`, folds): its operands are still lowered
                for c in node.children().filter_map(ast::Expr::cast) {
                    self.expr(&c);
                }
                Expr::Missing
            }
        }
    }
}

fn is_stmt(k: SyntaxKind) -> bool {
    matches!(
        k,
        SyntaxKind::COMPOUND_STMT
            | SyntaxKind::EXPR_STMT
            | SyntaxKind::DECL_STMT
            | SyntaxKind::IF_STMT
            | SyntaxKind::SWITCH_STMT
            | SyntaxKind::CASE_LABEL
            | SyntaxKind::DEFAULT_LABEL
            | SyntaxKind::WHILE_STMT
            | SyntaxKind::DO_STMT
            | SyntaxKind::FOR_STMT
            | SyntaxKind::RANGE_FOR_STMT
            | SyntaxKind::BREAK_STMT
            | SyntaxKind::CONTINUE_STMT
            | SyntaxKind::RETURN_STMT
            | SyntaxKind::GOTO_STMT
            | SyntaxKind::LABELED_STMT
            | SyntaxKind::EMPTY_STMT
            | SyntaxKind::TRY_STMT
            | SyntaxKind::ASM_STMT
            | SyntaxKind::UNKNOWN_MACRO_CALL
    )
}

fn literal(node: &SyntaxNode) -> Expr {
    let Some(tok) = node.first_token() else { return Expr::Missing };
    let text = tok.text().to_ascii_lowercase();
    Expr::Literal(match tok.kind() {
        SyntaxKind::TRUE_KW => Literal::Bool(true),
        SyntaxKind::FALSE_KW => Literal::Bool(false),
        SyntaxKind::NULLPTR_KW => Literal::Nullptr,
        SyntaxKind::CHAR_LIT => Literal::Char,
        SyntaxKind::STRING_LIT => Literal::String,
        SyntaxKind::FLOAT_NUMBER => {
            let hex = text.starts_with("0x");
            let bfloat = text.ends_with("bf");
            let half = !bfloat && text.ends_with('h');
            // `1f`, `2h`: integers with a floating suffix
            let _ = hex;
            Literal::Float { half, bfloat }
        }
        SyntaxKind::INT_NUMBER => {
            let suffix_start = text.trim_end_matches(['u', 'l', 'z']).len();
            let suffix = &text[suffix_start..];
            let value = crate::ty::parse_int_literal(&text).unwrap_or(0) as u64;
            Literal::Int { value, unsigned: suffix.contains('u'), long: suffix.contains('l') }
        }
        _ => return Expr::Missing,
    })
}

fn binary_op(k: SyntaxKind) -> Option<BinaryOp> {
    Some(match k {
        SyntaxKind::PLUS => BinaryOp::Add,
        SyntaxKind::MINUS => BinaryOp::Sub,
        SyntaxKind::STAR => BinaryOp::Mul,
        SyntaxKind::SLASH => BinaryOp::Div,
        SyntaxKind::PERCENT => BinaryOp::Rem,
        SyntaxKind::SHL => BinaryOp::Shl,
        SyntaxKind::SHR => BinaryOp::Shr,
        SyntaxKind::AMP => BinaryOp::BitAnd,
        SyntaxKind::PIPE => BinaryOp::BitOr,
        SyntaxKind::CARET => BinaryOp::BitXor,
        SyntaxKind::AMP2 => BinaryOp::And,
        SyntaxKind::PIPE2 => BinaryOp::Or,
        SyntaxKind::EQ2 => BinaryOp::Eq,
        SyntaxKind::NEQ => BinaryOp::Ne,
        SyntaxKind::L_ANGLE => BinaryOp::Lt,
        SyntaxKind::LTEQ => BinaryOp::Le,
        SyntaxKind::R_ANGLE => BinaryOp::Gt,
        SyntaxKind::GTEQ => BinaryOp::Ge,
        _ => return None,
    })
}

fn compound_op(k: SyntaxKind) -> Option<BinaryOp> {
    Some(match k {
        SyntaxKind::PLUSEQ => BinaryOp::Add,
        SyntaxKind::MINUSEQ => BinaryOp::Sub,
        SyntaxKind::STAREQ => BinaryOp::Mul,
        SyntaxKind::SLASHEQ => BinaryOp::Div,
        SyntaxKind::PERCENTEQ => BinaryOp::Rem,
        SyntaxKind::SHLEQ => BinaryOp::Shl,
        SyntaxKind::SHREQ => BinaryOp::Shr,
        SyntaxKind::AMPEQ => BinaryOp::BitAnd,
        SyntaxKind::PIPEEQ => BinaryOp::BitOr,
        SyntaxKind::CARETEQ => BinaryOp::BitXor,
        _ => return None,
    })
}
