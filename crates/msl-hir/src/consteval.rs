//! Constant evaluation: the integer (and `bool`) value of expressions that C++ computes
//! at compile time: array bounds, template arguments, enumerators, `static_assert`,
//! `if constexpr`, and the constants and `constexpr` functions they use.
//!
//! Values are integers with C++'s types: literals as C++ types them, the usual arithmetic
//! conversions between operands (an `int` meets an `unsigned int`: unsigned), unsigned
//! arithmetic that wraps, signed overflow and shifts out of range that are not constant,
//! conversions at declarations, parameters, returns and casts; `bool` is 0 or 1. Floating
//! values are not modelled (not constant). `sizeof` and `alignof` come from
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
use std::cell::RefCell;

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
    Return(Option<Value>),
}

/// An integer type: its width and signedness (`bool` and the small types are promoted
/// to `int` before arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IntTy {
    bits: u32,
    signed: bool,
}

const INT: IntTy = IntTy { bits: 32, signed: true };
const UINT: IntTy = IntTy { bits: 32, signed: false };
const LONG: IntTy = IntTy { bits: 64, signed: true };
const ULONG: IntTy = IntTy { bits: 64, signed: false };
const BOOL: IntTy = IntTy { bits: 1, signed: false };

/// A value of an integer type, held exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Value {
    v: i128,
    ty: IntTy,
}

impl Value {
    fn int(v: i128) -> Value {
        Value { v, ty: INT }
    }

    fn bool(b: bool) -> Value {
        Value { v: i128::from(b), ty: BOOL }
    }

    fn truth(self) -> bool {
        self.v != 0
    }

    /// `v` converted to `ty`: wrapped to its width and signedness.
    fn wrap(v: i128, ty: IntTy) -> Value {
        if ty == BOOL {
            return Value::bool(v != 0);
        }
        let modulus = 1i128 << ty.bits;
        let mut x = v.rem_euclid(modulus);
        if ty.signed && x >= modulus / 2 {
            x -= modulus;
        }
        Value { v: x, ty }
    }

    /// The value for callers: its bits as a 64-bit integer.
    fn to_i64(self) -> i64 {
        self.v as i64
    }
}

/// The type operands are promoted to (`bool`, `char`, `short` become `int`).
fn promote(t: IntTy) -> IntTy {
    if t.bits < 32 { INT } else { t }
}

/// The common type of two promoted operands (the usual arithmetic conversions).
fn common(a: IntTy, b: IntTy) -> IntTy {
    let (a, b) = (promote(a), promote(b));
    if a.signed == b.signed {
        return if a.bits >= b.bits { a } else { b };
    }
    let (s, u) = if a.signed { (a, b) } else { (b, a) };
    if u.bits >= s.bits {
        u
    } else {
        // the signed type holds every value of the unsigned one
        s
    }
}

/// The integer type a type is, when it is one.
fn int_ty(t: &Ty) -> Option<IntTy> {
    match t.strip().kind() {
        TyKind::Scalar(Scalar::Bool) => Some(BOOL),
        TyKind::Scalar(s) if s.is_integer() => Some(IntTy { bits: s.size() * 8, signed: s.is_signed() }),
        TyKind::Enum { .. } => Some(INT),
        _ => None,
    }
}

/// `v` as a value of type `t`; types that are not integers are not modelled, and `auto`
/// or an unknown type keeps the value.
fn convert(t: &Ty, v: Value) -> Eval<Value> {
    match t.strip().kind() {
        TyKind::Unknown => Ok(v),
        _ => match int_ty(t) {
            Some(ty) => Ok(Value::wrap(v.v, ty)),
            None => Err(EvalError::NotConstant),
        },
    }
}

/// The type C++ gives an integer literal (decimal or not cannot be told apart here: an
/// unsuffixed value past `int` is a `long`, as a decimal one is).
fn literal(value: u64, unsigned: bool, long: bool) -> Value {
    let v = i128::from(value);
    let ty = match (unsigned, long) {
        (true, false) if value <= u64::from(u32::MAX) => UINT,
        (true, _) => ULONG,
        (false, false) if value <= i32::MAX as u64 => INT,
        (false, _) if value <= i64::MAX as u64 => LONG,
        (false, _) => ULONG,
    };
    Value { v, ty }
}

fn binary(op: BinaryOp, a: Value, b: Value) -> Eval<Value> {
    match op {
        BinaryOp::And => return Ok(Value::bool(a.truth() && b.truth())),
        BinaryOp::Or => return Ok(Value::bool(a.truth() || b.truth())),
        BinaryOp::Shl | BinaryOp::Shr => {
            // the left operand's promoted type; a count out of range is not constant
            let ty = promote(a.ty);
            if b.v < 0 || b.v >= i128::from(ty.bits) {
                return Err(EvalError::NotConstant);
            }
            let a = Value::wrap(a.v, ty);
            return if op == BinaryOp::Shl {
                let shifted = a.v << b.v;
                // a negative value, or bits shifted past the unsigned type's: undefined
                if a.v < 0 || shifted >= 1i128 << ty.bits {
                    return Err(EvalError::NotConstant);
                }
                // into the sign bit: the value converted to the type (C++17)
                Ok(Value::wrap(shifted, ty))
            } else {
                Ok(Value::wrap(a.v >> b.v, ty))
            };
        }
        _ => {}
    }
    let ty = common(a.ty, b.ty);
    let (x, y) = (Value::wrap(a.v, ty).v, Value::wrap(b.v, ty).v);
    let exact = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div | BinaryOp::Rem => {
            if y == 0 {
                return Err(EvalError::DivideByZero);
            }
            // C++ truncates towards zero
            let q = x / y;
            if op == BinaryOp::Div { q } else { x - q * y }
        }
        BinaryOp::BitAnd => x & y,
        BinaryOp::BitOr => x | y,
        BinaryOp::BitXor => x ^ y,
        BinaryOp::Eq => return Ok(Value::bool(x == y)),
        BinaryOp::Ne => return Ok(Value::bool(x != y)),
        BinaryOp::Lt => return Ok(Value::bool(x < y)),
        BinaryOp::Le => return Ok(Value::bool(x <= y)),
        BinaryOp::Gt => return Ok(Value::bool(x > y)),
        BinaryOp::Ge => return Ok(Value::bool(x >= y)),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Shl | BinaryOp::Shr => unreachable_op(),
    };
    let wrapped = Value::wrap(exact, ty);
    // signed overflow is undefined: not a constant
    if ty.signed && wrapped.v != exact {
        return Err(EvalError::NotConstant);
    }
    Ok(wrapped)
}

/// The operators handled before the arithmetic ones never reach it.
fn unreachable_op() -> i128 {
    0
}

/// An evaluation, with its budgets.
pub struct Evaluator<'r, 'a> {
    r: &'r Resolver<'a>,
    steps: Cell<u32>,
    depth: Cell<u32>,
    /// Constants already evaluated (each once, as a compiler does).
    memo: RefCell<FxHashMap<DefId, Eval<Value>>>,
    /// Constants of class template instantiations, by what their parameters stand for.
    memo_bound: RefCell<FxHashMap<BoundConstant, Eval<Value>>>,
}

/// A constant of a class template's instantiation: what its parameters stand for, sorted.
type BoundConstant = (DefId, Vec<(Arc<str>, crate::ty::Ty)>);

thread_local! {
    /// The definitions being evaluated on this thread, through every evaluator (array
    /// bounds and template arguments start evaluators of their own): one met again is a
    /// cycle, not a constant.
    /// With a hash of the bindings for a constant of a class template's instantiation.
    static EVALUATING: RefCell<Vec<(usize, DefId, u64)>> = const { RefCell::new(Vec::new()) };
}

type Frame = FxHashMap<LocalId, Value>;

impl<'r, 'a> Evaluator<'r, 'a> {
    pub fn new(r: &'r Resolver<'a>) -> Evaluator<'r, 'a> {
        Evaluator {
            r,
            steps: Cell::new(0),
            depth: Cell::new(0),
            memo: RefCell::default(),
            memo_bound: RefCell::default(),
        }
    }

    /// The value of expression `e` of `body`, whose names are looked up by the resolver.
    pub fn eval(&self, body: &Body, e: ExprId) -> Eval<i64> {
        let mut frame = FxHashMap::default();
        self.expr(self.r, body, e, &mut frame).map(Value::to_i64)
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

    fn expr(&self, r: &Resolver<'_>, body: &Body, e: ExprId, frame: &mut Frame) -> Eval<Value> {
        self.step()?;
        let Some(ex) = body.exprs.get(e.0 as usize) else { return Err(EvalError::NotConstant) };
        match ex {
            Expr::Literal(Literal::Int { value, unsigned, long }) => Ok(literal(*value, *unsigned, *long)),
            Expr::Literal(Literal::Bool(b)) => Ok(Value::bool(*b)),
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
                        let step = if matches!(op, UnaryOp::PreInc | UnaryOp::PostInc) { 1 } else { -1 };
                        let exact = old.v + step;
                        let new = Value::wrap(exact, old.ty);
                        if old.ty.signed && new.v != exact {
                            return Err(EvalError::NotConstant);
                        }
                        frame.insert(*l, new);
                        Ok(if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) { new } else { old })
                    }
                    _ => {
                        let v = self.expr(r, body, inner, frame)?;
                        let ty = promote(v.ty);
                        match op {
                            UnaryOp::Neg => {
                                let w = Value::wrap(-v.v, ty);
                                if ty.signed && w.v != -v.v {
                                    return Err(EvalError::NotConstant);
                                }
                                Ok(w)
                            }
                            UnaryOp::Plus => Ok(Value::wrap(v.v, ty)),
                            UnaryOp::Not => Ok(Value::bool(!v.truth())),
                            UnaryOp::BitNot => Ok(Value::wrap(!v.v, ty)),
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
                    BinaryOp::And if !a.truth() => return Ok(Value::bool(false)),
                    BinaryOp::Or if a.truth() => return Ok(Value::bool(true)),
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
                let old = *frame.get(&l).ok_or(EvalError::NotConstant)?;
                let v = match op {
                    Some(op) => binary(op, old, b)?,
                    None => b,
                };
                // the local keeps its type
                let v = Value::wrap(v.v, old.ty);
                frame.insert(l, v);
                Ok(v)
            }
            Expr::Conditional { cond, then, other } => {
                let (cond, then, other) = (*cond, *then, *other);
                if self.expr(r, body, cond, frame)?.truth() {
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
            Expr::Construct { ty, args, .. } if args.is_empty() => convert(&ty.lower(r).ty, Value::int(0)),
            Expr::SizeofType(t) => {
                let t = t.lower(r).ty;
                let l = crate::layout::layout_of(r, &t).ok_or(EvalError::NotConstant)?;
                Ok(Value { v: i128::from(l.size), ty: ULONG })
            }
            Expr::Alignof(t) => {
                let t = t.lower(r).ty;
                let l = crate::layout::layout_of(r, &t).ok_or(EvalError::NotConstant)?;
                Ok(Value { v: i128::from(l.align), ty: ULONG })
            }
            Expr::Call { callee, args } => {
                let Some(Expr::Path(p)) = body.exprs.get(callee.0 as usize) else {
                    return Err(EvalError::NotConstant);
                };
                let mut values = Vec::with_capacity(args.len());
                for a in args.clone() {
                    values.push(self.expr(r, body, a, frame)?);
                }
                // `uint(x)`, `Flag(3)`: a type named like a function converts its argument
                if values.len() <= 1 {
                    let t = crate::ty::TypeRef {
                        base: crate::ty::TypeBase::Path(p.clone()),
                        ..crate::ty::TypeRef::unknown()
                    }
                    .lower(r)
                    .ty;
                    if int_ty(&t).is_some() {
                        return convert(&t, values.first().copied().unwrap_or(Value::int(0)));
                    }
                }
                self.call(r, p, &values)
            }
            _ => Err(EvalError::NotConstant),
        }
    }

    /// The value a name stands for: a template parameter's argument, a constant, an
    /// enumerator, a trait's `value`.
    fn path(&self, r: &Resolver<'_>, p: &PathRef) -> Eval<Value> {
        if p.segments.len() == 1
            && p.segments[0].args.is_none()
            && let Some(v) = r.bound_value(p.name())
        {
            return Ok(Value { v: i128::from(v), ty: LONG });
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
                return Ok(Value::bool(b));
            }
        }
        // a member of a class template named with arguments (`Fib<N - 1>::value`): the
        // specialization the arguments select, its parameters bound to them
        let n = p.segments.len();
        if n >= 2 && p.segments[..n - 1].iter().any(|s| s.args.is_some()) {
            if p.segments[n - 2].args.is_none() {
                return Err(EvalError::NotConstant);
            }
            let prefix = PathRef { global: p.global, segments: p.segments[..n - 1].to_vec() };
            let class = crate::ty::TypeRef { base: crate::ty::TypeBase::Path(prefix), ..crate::ty::TypeRef::unknown() }
                .lower(r)
                .ty;
            let class = class.strip();
            let TyKind::Class { def, args, .. } = class.kind() else { return Err(EvalError::NotConstant) };
            let Some(inner) = r.defs.inner_scope(*def) else { return Err(EvalError::NotConstant) };
            let Some(&id) = r.defs.lookup_in(inner, p.name()).first() else { return Err(EvalError::NotConstant) };
            return self.value_with(id, r.class_template_bindings(*def, args));
        }
        let Some(id) = r.def_of_path(p) else { return Err(EvalError::NotConstant) };
        // a variable template with its arguments (`lanes_v<float4>`)
        if let Some(args) = p.segments.last().and_then(|s| s.args.as_ref())
            && matches!(r.defs.def(id).kind, DefKind::Variable { .. })
            && r.defs.def(id).generics.is_some()
        {
            let lowered = crate::ty::lower_args(args, r);
            return self.value_with(id, r.class_template_bindings(id, &lowered));
        }
        self.value_of(id)
    }

    /// The value of a constant of a class template's instantiation: its parameters bound
    /// to `bound`; evaluated once per instantiation.
    fn value_with(&self, id: DefId, bound: FxHashMap<Arc<str>, crate::ty::Ty>) -> Eval<Value> {
        let mut bindings: Vec<(Arc<str>, crate::ty::Ty)> = bound.into_iter().collect();
        bindings.sort_by(|a, b| a.0.cmp(&b.0));
        if bindings.is_empty() {
            return self.value_of(id);
        }
        let key = (id, bindings);
        if let Some(v) = self.memo_bound.borrow().get(&key) {
            return *v;
        }
        let hash = {
            use std::hash::BuildHasher;
            rustc_hash::FxBuildHasher.hash_one(&key)
        };
        let cycle = (self.r.defs as *const crate::defs::Defs as usize, id, hash);
        if EVALUATING.with(|e| e.borrow().contains(&cycle)) {
            return Err(EvalError::NotConstant);
        }
        EVALUATING.with(|e| e.borrow_mut().push(cycle));
        // a fresh resolver: the depth of nested instantiations is the evaluator's to count
        let d = self.r.defs.def(id);
        let dr = Resolver::new(self.r.defs, d.scope, d.generics.clone()).with_bindings(&key.1);
        let out = self.compute_value_in(id, &dr);
        EVALUATING.with(|e| {
            e.borrow_mut().retain(|k| *k != cycle);
        });
        self.memo_bound.borrow_mut().insert(key, out);
        out
    }

    /// The value of a constant or enumerator of the unit, as a 64-bit integer.
    pub fn def_value(&self, id: DefId) -> Eval<i64> {
        self.value_of(id).map(Value::to_i64)
    }

    /// The value of a constant or enumerator, each evaluated once; a definition met
    /// again while it is being evaluated is a cycle (not a constant).
    fn value_of(&self, id: DefId) -> Eval<Value> {
        if let Some(v) = self.memo.borrow().get(&id) {
            return *v;
        }
        let key = (self.r.defs as *const crate::defs::Defs as usize, id, 0);
        if EVALUATING.with(|e| e.borrow().contains(&key)) {
            return Err(EvalError::NotConstant);
        }
        EVALUATING.with(|e| e.borrow_mut().push(key));
        let out = self.compute_value(id);
        EVALUATING.with(|e| {
            e.borrow_mut().retain(|k| *k != key);
        });
        self.memo.borrow_mut().insert(id, out);
        out
    }

    fn compute_value(&self, id: DefId) -> Eval<Value> {
        let dr = self.r.for_def(id);
        self.compute_value_in(id, &dr)
    }

    /// The value of constant or enumerator `id`, its names looked up by `dr`.
    fn compute_value_in(&self, id: DefId, dr: &Resolver<'_>) -> Eval<Value> {
        let d = self.r.defs.def(id);
        match &d.kind {
            DefKind::Variable { ty, value, init } => {
                let t = ty.lower(dr).ty;
                let v = match (value, init) {
                    (Some(v), _) => Value { v: i128::from(*v), ty: LONG },
                    (None, Some(c)) => {
                        let c = c.clone();
                        self.nested(|| {
                            let mut frame = FxHashMap::default();
                            self.expr(dr, &c.body, c.expr, &mut frame)
                        })?
                    }
                    (None, None) => return Err(EvalError::NotConstant),
                };
                // the constant has its declared type (`auto` keeps the initializer's)
                if ty.is_auto() { Ok(v) } else { convert(&t, v) }
            }
            DefKind::Enumerator { .. } => {
                // walk back to the enumerator with a value, counting the steps
                let mut at = id;
                let mut offset: i128 = 0;
                loop {
                    self.step()?;
                    match &self.r.defs.def(at).kind {
                        DefKind::Enumerator { value: Some(v), .. } => {
                            return Ok(Value::wrap(i128::from(*v) + offset, LONG));
                        }
                        DefKind::Enumerator { init: Some(c), .. } => {
                            let c = c.clone();
                            let er = self.r.for_def(at);
                            let base = self.nested(|| {
                                let mut frame = FxHashMap::default();
                                self.expr(&er, &c.body, c.expr, &mut frame)
                            })?;
                            return Ok(Value::wrap(base.v + offset, LONG));
                        }
                        DefKind::Enumerator { prev: Some(p), .. } => {
                            at = *p;
                            offset += 1;
                        }
                        _ => return Err(EvalError::NotConstant),
                    }
                }
            }
            _ => Err(EvalError::NotConstant),
        }
    }

    /// A call of a `constexpr` function of the unit.
    fn call(&self, r: &Resolver<'_>, p: &PathRef, args: &[Value]) -> Eval<Value> {
        let candidates = r.defs_of_path(p);
        let Some((id, body)) = candidates.iter().find_map(|id| match &r.defs.def(*id).kind {
            DefKind::Function(f) if f.params.len() == args.len() => f.constexpr_body.clone().map(|b| (*id, b)),
            _ => None,
        }) else {
            return Err(EvalError::NotConstant);
        };
        let fr = self.r.for_def(id);
        let ret = match &r.defs.def(id).kind {
            DefKind::Function(f) => f.ret.clone(),
            _ => None,
        };
        self.nested(|| {
            // the arguments take the parameters' types
            let mut frame: Frame = FxHashMap::default();
            for (p, a) in body.params.iter().zip(args) {
                let local = &body.locals[p.0 as usize];
                let v = if local.ty.is_auto() { *a } else { convert(&local.ty.lower(&fr).ty, *a)? };
                frame.insert(*p, v);
            }
            let Some(root) = body.root else { return Err(EvalError::NotConstant) };
            match self.stmt(&fr, &body, root, &mut frame)? {
                Flow::Return(Some(v)) => match &ret {
                    Some(t) if !t.is_auto() => convert(&t.lower(&fr).ty, v),
                    _ => Ok(v),
                },
                _ => Err(EvalError::NotConstant),
            }
        })
    }

    fn stmt(&self, r: &Resolver<'_>, body: &Body, s: StmtId, frame: &mut Frame) -> Eval<Flow> {
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
                        Some(i) => {
                            let v = self.expr(r, body, i, frame)?;
                            if local.ty.is_auto() { v } else { convert(&local.ty.lower(r).ty, v)? }
                        }
                        None => convert(&local.ty.lower(r).ty, Value::int(0))?,
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
                match if c.truth() { then } else { other } {
                    Some(b) => self.stmt(r, body, *b, frame),
                    None => Ok(Flow::Next),
                }
            }
            Stmt::While { cond, body: b } => {
                let cond = cond.ok_or(EvalError::NotConstant)?;
                while self.expr(r, body, cond, frame)?.truth() {
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
                    if !self.expr(r, body, cond, frame)?.truth() {
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
                        && !self.expr(r, body, *c, frame)?.truth()
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

/// The value of a constant expression written as text (an array bound, a template
/// argument kept as text), looked up from `r`'s scope. Parsed once per text.
pub fn eval_text(r: &Resolver<'_>, text: &str) -> Eval<i64> {
    let c = parse_expression(text).ok_or(EvalError::NotConstant)?;
    // a bound inside a bound inside ...: a few levels are real, more are a cycle
    thread_local! {
        static NESTED: Cell<u32> = const { Cell::new(0) };
    }
    let depth = NESTED.with(|n| n.get());
    if depth > 16 {
        return Err(EvalError::NotConstant);
    }
    NESTED.with(|n| n.set(depth + 1));
    let out = Evaluator::new(r).eval_const(&c);
    NESTED.with(|n| n.set(depth));
    out
}

/// An expression written as text (an array bound, a template argument, the operand of
/// `decltype`), lowered on its own; each text parsed once per thread.
pub(crate) fn parse_expression(text: &str) -> Option<Arc<ConstExpr>> {
    thread_local! {
        static PARSED: std::cell::RefCell<FxHashMap<Arc<str>, Option<Arc<ConstExpr>>>> = Default::default();
    }
    PARSED.with(|p| {
        if let Some(c) = p.borrow().get(text) {
            return c.clone();
        }
        let c = parse_expression_uncached(text);
        let mut map = p.borrow_mut();
        if map.len() > 4096 {
            map.clear();
        }
        map.insert(Arc::from(text), c.clone());
        c
    })
}

fn parse_expression_uncached(text: &str) -> Option<Arc<ConstExpr>> {
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
