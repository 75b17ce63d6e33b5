//! Operands of the operators that take integers only (C++17 [expr.mul], [expr.shift],
//! [expr.bit.and] and the compound assignments; MSL 4.1 section 2.1 for vectors): `%`,
//! shifts and bitwise operators between operands of a floating-point scalar or vector type.

use super::{Rule, RuleCx};
use crate::body::{BinaryOp, Expr};
use crate::ty::{Ty, TyKind};

/// The operators that take integer operands only.
fn integers_only(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Rem | BinaryOp::Shl | BinaryOp::Shr | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor)
}

/// A scalar or vector of the library whose elements are floating-point (a class type may
/// have operators of its own: not judged).
fn floating(t: &Ty) -> bool {
    let t = t.non_reference();
    matches!(t.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. })
        && t.scalar_of().is_some_and(|s| s.is_float())
}

fn numeric(t: &Ty) -> bool {
    let t = t.non_reference();
    !t.is_uncertain() && matches!(t.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. })
}

pub(super) fn check(cx: &mut RuleCx) {
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let (op, lhs, rhs, compound) = match e {
            Expr::Binary { op, lhs, rhs } => (*op, *lhs, *rhs, false),
            Expr::Assign { op: Some(op), lhs, rhs } => (*op, *lhs, *rhs, true),
            _ => continue,
        };
        if !integers_only(op) {
            continue;
        }
        let id = crate::body::ExprId(i as u32);
        if !cx.decided(id) {
            continue;
        }
        let (l, r) = (cx.infer.type_of(lhs), cx.infer.type_of(rhs));
        if !(numeric(&l) && numeric(&r)) || !(floating(&l) || floating(&r)) {
            continue;
        }
        let sym = if compound { format!("{}=", op.symbol()) } else { op.symbol().to_string() };
        let which = if floating(&l) { l.non_reference() } else { r.non_reference() };
        let hint = if op == BinaryOp::Rem {
            "use `fmod` for the remainder of a division of floating-point values"
        } else {
            "convert the operands to an integer type first"
        };
        let range = cx.range(id);
        cx.report(Rule::OperandTypes, range, format!("`{sym}` takes integer operands, not `{which}`")).hint(hint);
    }
}
