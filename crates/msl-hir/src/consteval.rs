//! Constant evaluation: the integer (and `bool`) value of expressions that C++ computes
//! at compile time: array bounds, template arguments, enumerators, `static_assert`,
//! `if constexpr`, and the constants and `constexpr` functions they use.
//!
//! Values are 64-bit integers; a cast or a construction of an integer type wraps to its
//! width and signedness, `bool` is 0 or 1. `sizeof` and `alignof` come from
//! [`crate::layout`]. A `constexpr` function is run by interpreting its lowered body with
//! its parameters bound. Evaluation stops with [`EvalError::Steps`] after
//! [`STEP_BUDGET`] steps (a loop that never ends) and with [`EvalError::Depth`] after
//! [`DEPTH_BUDGET`] nested calls or constants (runaway recursion), as clang's
//! `-fconstexpr-steps` and `-fconstexpr-depth` do.

use std::cell::Cell;
use std::sync::Arc;

use msl_syntax::ast::AstNode;
use rustc_hash::FxHashMap;

use crate::body::{BinaryOp, Body, Expr, ExprId, Literal, LocalId, Stmt, StmtId, UnaryOp};
use crate::defs::{ConstExpr, DefKind};
use crate::infer::Resolver;
use crate::ty::{DefId, PathRef, Scalar, TemplateArg, Ty, TyKind};

/// Steps one evaluation may take (clang's default for `-fconstexpr-steps`).
pub const STEP_BUDGET: u32 = 1 << 20;
/// Nested calls and constants one evaluation may enter (clang's `-fconstexpr-depth`).
pub const DEPTH_BUDGET: u32 = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalError {
    /// Not a constant expression, or something the evaluator does not model.
    NotConstant,
    /// A division or remainder by zero.
    DivideByZero,
    /// More than [`STEP_BUDGET`] steps.
    Steps,
    /// More than [`DEPTH_BUDGET`] nested calls.
    Depth,
}

impl EvalError {
    /// Whether evaluation was stopped (rather than the expression not being constant).
    pub fn is_budget(self) -> bool {
        matches!(self, EvalError::Steps | EvalError::Depth)
    }
}

type Eval<T> = Result<T, EvalError>;

/// How a statement ends.
enum Flow {
    Next,
    Break,
    Continue,
    Return(Option<i64>),
}

/// An evaluation, with its budgets.
pub struct Evaluator<'r, 'a> {
    r: &'r Resolver<'a>,
    steps: Cell<u32>,
    depth: Cell<u32>,
}

impl<'r, 'a> Evaluator<'r, 'a> {
    pub fn new(r: &'r Resolver<'a>) -> Evaluator<'r, 'a> {
        Evaluator { r, steps: Cell::new(0), depth: Cell::new(0) }
    }

    /// The value of expression `e` of `body`, whose names are looked up by the resolver.
    pub fn eval(&self, body: &Body, e: ExprId) -> Eval<i64> {
        let mut frame = FxHashMap::default();
        self.expr(self.r, body, e, &mut frame)
    }

    /// The value of a constant kept by the definitions.
    pub fn eval_const(&self, c: &ConstExpr) -> Eval<i64> {
        self.eval(&c.body, c.expr)
    }

    fn step(&self) -> Eval<()> {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        if n > STEP_BUDGET { Err(EvalError::Steps) } else { Ok(()) }
    }

    /// Runs `f` one level deeper.
    fn nested<T>(&self, f: impl FnOnce() -> Eval<T>) -> Eval<T> {
        let d = self.depth.get();
        if d >= DEPTH_BUDGET {
            return Err(EvalError::Depth);
        }
        self.depth.set(d + 1);
        let out = f();
        self.depth.set(d);
        out
    }

    fn expr(&self, r: &Resolver<'_>, body: &Body, e: ExprId, frame: &mut FxHashMap<LocalId, i64>) -> Eval<i64> {
        self.step()?;
        let Some(ex) = body.exprs.get(e.0 as usize) else { return Err(EvalError::NotConstant) };
        match ex {
            Expr::Literal(Literal::Int { value, .. }) => Ok(*value as i64),
            Expr::Literal(Literal::Bool(b)) => Ok(i64::from(*b)),
            Expr::Literal(Literal::Nullptr) => Ok(0),
            Expr::Local(l) => frame.get(l).copied().ok_or(EvalError::NotConstant),
            Expr::Path(p) => self.path(r, p),
            Expr::Unary { op, expr } => {
                let (op, inner) = (*op, *expr);
                match op {
                    UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                        let Some(Expr::Local(l)) = body.exprs.get(inner.0 as usize) else {
                            return Err(EvalError::NotConstant);
                        };
                        let old = *frame.get(l).ok_or(EvalError::NotConstant)?;
                        let new = if matches!(op, UnaryOp::PreInc | UnaryOp::PostInc) {
                            old.wrapping_add(1)
                        } else {
                            old.wrapping_sub(1)
                        };
                        frame.insert(*l, new);
                        Ok(if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) { new } else { old })
                    }
                    _ => {
                        let v = self.expr(r, body, inner, frame)?;
                        match op {
                            UnaryOp::Neg => Ok(v.wrapping_neg()),
                            UnaryOp::Plus => Ok(v),
                            UnaryOp::Not => Ok(i64::from(v == 0)),
                            UnaryOp::BitNot => Ok(!v),
                            _ => Err(EvalError::NotConstant),
                        }
                    }
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let (op, lhs, rhs) = (*op, *lhs, *rhs);
                let a = self.expr(r, body, lhs, frame)?;
                // `&&` and `||` do not evaluate what they do not need
                match op {
                    BinaryOp::And if a == 0 => return Ok(0),
                    BinaryOp::Or if a != 0 => return Ok(1),
                    _ => {}
                }
                let b = self.expr(r, body, rhs, frame)?;
                binary(op, a, b)
            }
            Expr::Assign { op, lhs, rhs } => {
                let (op, lhs, rhs) = (*op, *lhs, *rhs);
                let Some(Expr::Local(l)) = body.exprs.get(lhs.0 as usize) else { return Err(EvalError::NotConstant) };
                let l = *l;
                let b = self.expr(r, body, rhs, frame)?;
                let v = match op {
                    Some(op) => binary(op, *frame.get(&l).ok_or(EvalError::NotConstant)?, b)?,
                    None => b,
                };
                frame.insert(l, v);
                Ok(v)
            }
            Expr::Conditional { cond, then, other } => {
                let (cond, then, other) = (*cond, *then, *other);
                if self.expr(r, body, cond, frame)? != 0 {
                    self.expr(r, body, then, frame)
                } else {
                    self.expr(r, body, other, frame)
                }
            }
            Expr::Comma { lhs, rhs } => {
                let (lhs, rhs) = (*lhs, *rhs);
                self.expr(r, body, lhs, frame)?;
                self.expr(r, body, rhs, frame)
            }
            Expr::Cast { ty, expr } => {
                let v = self.expr(r, body, *expr, frame)?;
                convert(&ty.lower(r).ty, v)
            }
            Expr::Construct { ty, args, .. } if args.len() == 1 => {
                let v = self.expr(r, body, args[0], frame)?;
                convert(&ty.lower(r).ty, v)
            }
            Expr::Construct { ty, args, .. } if args.is_empty() => convert(&ty.lower(r).ty, 0),
            Expr::SizeofType(t) => {
                let t = t.lower(r).ty;
                crate::layout::layout_of(r, &t).map(|l| l.size as i64).ok_or(EvalError::NotConstant)
            }
            Expr::Alignof(t) => {
                let t = t.lower(r).ty;
                crate::layout::layout_of(r, &t).map(|l| l.align as i64).ok_or(EvalError::NotConstant)
            }
            Expr::Call { callee, args } => {
                let Some(Expr::Path(p)) = body.exprs.get(callee.0 as usize) else {
                    return Err(EvalError::NotConstant);
                };
                let mut values = Vec::with_capacity(args.len());
                for a in args.clone() {
                    values.push(self.expr(r, body, a, frame)?);
                }
                self.call(r, p, &values)
            }
            _ => Err(EvalError::NotConstant),
        }
    }

    /// The value a name stands for: a template parameter's argument, a constant, an
    /// enumerator, a trait's `value`.
    fn path(&self, r: &Resolver<'_>, p: &PathRef) -> Eval<i64> {
        if p.segments.len() == 1
            && p.segments[0].args.is_none()
            && let Some(v) = r.bound_value(p.name())
        {
            return Ok(v);
        }
        // `is_same_v<A, B>`, `is_integral<T>::value`
        let (trait_name, args) = match p.segments.as_slice() {
            [.., s] if s.args.is_some() => (Some(&*s.name), s.args.as_ref()),
            [.., s, v] if &*v.name == "value" && s.args.is_some() => (Some(&*s.name), s.args.as_ref()),
            _ => (None, None),
        };
        if let (Some(name), Some(args)) = (trait_name, args) {
            let lowered = crate::ty::lower_args(args, r);
            if let Some(b) = crate::ty::traits::predicate_value(name, &lowered) {
                return Ok(i64::from(b));
            }
        }
        let Some(id) = r.def_of_path(p) else { return Err(EvalError::NotConstant) };
        self.def_value(id)
    }

    /// The value of a constant or enumerator of the unit.
    pub fn def_value(&self, id: DefId) -> Eval<i64> {
        match &self.r.defs.def(id).kind {
            DefKind::Variable { value: Some(v), .. } | DefKind::Enumerator { value: Some(v), .. } => Ok(*v),
            DefKind::Variable { init: Some(c), .. } | DefKind::Enumerator { init: Some(c), .. } => {
                let c = c.clone();
                let dr = self.r.for_def(id);
                self.nested(|| {
                    let mut frame = FxHashMap::default();
                    self.expr(&dr, &c.body, c.expr, &mut frame)
                })
            }
            DefKind::Enumerator { prev: Some(p), .. } => {
                let p = *p;
                self.nested(|| self.def_value(p)).map(|v| v.wrapping_add(1))
            }
            _ => Err(EvalError::NotConstant),
        }
    }

    /// A call of a `constexpr` function of the unit.
    fn call(&self, r: &Resolver<'_>, p: &PathRef, args: &[i64]) -> Eval<i64> {
        let candidates = r.defs_of_path(p);
        let Some((id, body)) = candidates.iter().find_map(|id| match &r.defs.def(*id).kind {
            DefKind::Function(f) if f.params.len() == args.len() => f.constexpr_body.clone().map(|b| (*id, b)),
            _ => None,
        }) else {
            return Err(EvalError::NotConstant);
        };
        let fr = self.r.for_def(id);
        self.nested(|| {
            let mut frame: FxHashMap<LocalId, i64> = body.params.iter().copied().zip(args.iter().copied()).collect();
            let Some(root) = body.root else { return Err(EvalError::NotConstant) };
            match self.stmt(&fr, &body, root, &mut frame)? {
                Flow::Return(Some(v)) => Ok(v),
                _ => Err(EvalError::NotConstant),
            }
        })
    }

    fn stmt(&self, r: &Resolver<'_>, body: &Body, s: StmtId, frame: &mut FxHashMap<LocalId, i64>) -> Eval<Flow> {
        self.step()?;
        let Some(st) = body.stmts.get(s.0 as usize) else { return Err(EvalError::NotConstant) };
        match st {
            Stmt::Expr(e) => {
                self.expr(r, body, *e, frame)?;
                Ok(Flow::Next)
            }
            Stmt::Decl(locals) => {
                for l in locals {
                    let local = &body.locals[l.0 as usize];
                    let v = match local.init {
                        Some(i) => convert(&local.ty.lower(r).ty, self.expr(r, body, i, frame)?)?,
                        None => 0,
                    };
                    frame.insert(*l, v);
                }
                Ok(Flow::Next)
            }
            Stmt::Block(list) => {
                for st in list {
                    match self.stmt(r, body, *st, frame)? {
                        Flow::Next => {}
                        other => return Ok(other),
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::If { init, cond, then, other, .. } => {
                if let Some(i) = init {
                    self.stmt(r, body, *i, frame)?;
                }
                let c = self.expr(r, body, cond.ok_or(EvalError::NotConstant)?, frame)?;
                match if c != 0 { then } else { other } {
                    Some(b) => self.stmt(r, body, *b, frame),
                    None => Ok(Flow::Next),
                }
            }
            Stmt::While { cond, body: b } => {
                let cond = cond.ok_or(EvalError::NotConstant)?;
                while self.expr(r, body, cond, frame)? != 0 {
                    if let Some(b) = b {
                        match self.stmt(r, body, *b, frame)? {
                            Flow::Break => break,
                            Flow::Return(v) => return Ok(Flow::Return(v)),
                            _ => {}
                        }
                    }
                    self.step()?;
                }
                Ok(Flow::Next)
            }
            Stmt::Do { body: b, cond } => {
                let cond = cond.ok_or(EvalError::NotConstant)?;
                loop {
                    if let Some(b) = b {
                        match self.stmt(r, body, *b, frame)? {
                            Flow::Break => break,
                            Flow::Return(v) => return Ok(Flow::Return(v)),
                            _ => {}
                        }
                    }
                    if self.expr(r, body, cond, frame)? == 0 {
                        break;
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::For { init, cond, step, body: b } => {
                if let Some(i) = init {
                    self.stmt(r, body, *i, frame)?;
                }
                loop {
                    if let Some(c) = cond
                        && self.expr(r, body, *c, frame)? == 0
                    {
                        break;
                    }
                    if let Some(b) = b {
                        match self.stmt(r, body, *b, frame)? {
                            Flow::Break => break,
                            Flow::Return(v) => return Ok(Flow::Return(v)),
                            _ => {}
                        }
                    }
                    if let Some(s) = step {
                        self.expr(r, body, *s, frame)?;
                    }
                    self.step()?;
                }
                Ok(Flow::Next)
            }
            Stmt::Return(e) => match e {
                Some(e) => Ok(Flow::Return(Some(self.expr(r, body, *e, frame)?))),
                None => Ok(Flow::Return(None)),
            },
            Stmt::Break => Ok(Flow::Break),
            Stmt::Continue => Ok(Flow::Continue),
            Stmt::StaticAssert { .. } => Ok(Flow::Next),
            _ => Err(EvalError::NotConstant),
        }
    }
}

fn binary(op: BinaryOp, a: i64, b: i64) -> Eval<i64> {
    Ok(match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div => {
            if b == 0 {
                return Err(EvalError::DivideByZero);
            }
            a.wrapping_div(b)
        }
        BinaryOp::Rem => {
            if b == 0 {
                return Err(EvalError::DivideByZero);
            }
            a.wrapping_rem(b)
        }
        BinaryOp::Shl => a.wrapping_shl(b as u32),
        BinaryOp::Shr => a.wrapping_shr(b as u32),
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::And => i64::from(a != 0 && b != 0),
        BinaryOp::Or => i64::from(a != 0 || b != 0),
        BinaryOp::Eq => i64::from(a == b),
        BinaryOp::Ne => i64::from(a != b),
        BinaryOp::Lt => i64::from(a < b),
        BinaryOp::Le => i64::from(a <= b),
        BinaryOp::Gt => i64::from(a > b),
        BinaryOp::Ge => i64::from(a >= b),
    })
}

/// `v` as a value of type `t`: integers wrap to their width and signedness, `bool` is
/// whether it is not zero; other types are not modelled.
fn convert(t: &Ty, v: i64) -> Eval<i64> {
    match t.strip().kind() {
        TyKind::Scalar(Scalar::Bool) => Ok(i64::from(v != 0)),
        TyKind::Scalar(s) if s.is_integer() => {
            let bits = s.size() * 8;
            if bits >= 64 {
                return Ok(v);
            }
            let masked = (v as u64) & ((1u64 << bits) - 1);
            Ok(if s.is_signed() && masked >> (bits - 1) == 1 {
                (masked | !((1u64 << bits) - 1)) as i64
            } else {
                masked as i64
            })
        }
        TyKind::Enum { .. } => Ok(v),
        // `auto` and what is not known keep the value
        TyKind::Unknown => Ok(v),
        _ => Err(EvalError::NotConstant),
    }
}

/// The value of a constant expression written as text (an array bound, a template
/// argument kept as text), looked up from `r`'s scope. Parsed once per text.
pub fn eval_text(r: &Resolver<'_>, text: &str) -> Eval<i64> {
    thread_local! {
        static PARSED: std::cell::RefCell<FxHashMap<Arc<str>, Option<Arc<ConstExpr>>>> = Default::default();
    }
    let parsed = PARSED.with(|p| {
        if let Some(c) = p.borrow().get(text) {
            return c.clone();
        }
        let c = parse_expression(text);
        let mut map = p.borrow_mut();
        if map.len() > 4096 {
            map.clear();
        }
        map.insert(Arc::from(text), c.clone());
        c
    });
    let c = parsed.ok_or(EvalError::NotConstant)?;
    Evaluator::new(r).eval_const(&c)
}

fn parse_expression(text: &str) -> Option<Arc<ConstExpr>> {
    let source = format!("auto __value = {text};\n");
    let parse = msl_syntax::parse_text(&source, &msl_syntax::PpConfig::default());
    if parse.errors().next().is_some() {
        return None;
    }
    let init = parse.syntax().descendants().find(|n| n.kind() == msl_syntax::SyntaxKind::INITIALIZER)?;
    let e = init.children().find(|c| msl_syntax::ast::Expr::can_cast(c.kind()))?;
    Some(ConstExpr::lower(&e))
}

/// What a template argument written as a value is: `TemplateArg::Value` when it evaluates.
pub fn value_arg(r: &Resolver<'_>, text: &str) -> Option<TemplateArg> {
    eval_text(r, text).ok().map(TemplateArg::Value)
}
