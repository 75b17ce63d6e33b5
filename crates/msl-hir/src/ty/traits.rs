//! The library's type traits (`<metal_type_traits>`, as in C++'s `<type_traits>`):
//! transformations that name a type (`enable_if_t`, `conditional_t`, `make_unsigned_t`,
//! `remove_cv_t`, ...) and predicates that give a `bool` (`is_same_v`,
//! `is_floating_point_v`, ...). Both are evaluated on known arguments; on others a
//! transformation's type stays unknown and a predicate is a `bool` of unknown value.

use super::{Scalar, TemplateArg, Ty, TyKind};

/// The predicates the library defines, with the `_v` variable template of each.
pub const PREDICATES: &[&str] = &[
    "is_same",
    "is_floating_point",
    "is_integral",
    "is_arithmetic",
    "is_scalar",
    "is_signed",
    "is_unsigned",
    "is_void",
    "is_pointer",
    "is_reference",
    "is_lvalue_reference",
    "is_rvalue_reference",
    "is_const",
    "is_volatile",
    "is_array",
    "is_enum",
    "is_class",
    "is_union",
    "is_function",
    "is_vector",
    "is_convertible",
    "is_base_of",
    "is_trivially_copyable",
    "is_empty",
    "is_fundamental",
    "is_compound",
    "is_object",
];

/// The predicate a name is: `is_same_v` (a variable template) or `is_same` (a class
/// template whose `::value` is asked).
pub fn predicate(name: &str) -> Option<&'static str> {
    let base = name.strip_suffix("_v").unwrap_or(name);
    PREDICATES.iter().copied().find(|p| *p == base)
}

fn ty_arg(args: &[TemplateArg], i: usize) -> Option<Ty> {
    match args.get(i) {
        Some(TemplateArg::Type(t)) if !t.is_uncertain() => Some(t.strip()),
        _ => None,
    }
}

fn scalar_of(t: &Ty) -> Option<Scalar> {
    match t.kind() {
        TyKind::Scalar(s) => Some(*s),
        _ => None,
    }
}

/// The value of predicate `name` on `args`; `None` when it cannot be told.
pub fn predicate_value(name: &str, args: &[TemplateArg]) -> Option<bool> {
    let pred = predicate(name)?;
    let a = ty_arg(args, 0)?;
    let scalar = scalar_of(&a);
    Some(match pred {
        "is_same" => a == ty_arg(args, 1)?,
        "is_floating_point" => scalar.is_some_and(|s| s.is_float()),
        "is_integral" => scalar.is_some_and(|s| !s.is_float()),
        "is_arithmetic" => scalar.is_some(),
        "is_scalar" => scalar.is_some() || matches!(a.kind(), TyKind::Pointer { .. } | TyKind::Enum { .. }),
        "is_signed" => scalar.is_some_and(|s| s.is_signed()),
        "is_unsigned" => scalar.is_some_and(|s| !s.is_float() && !s.is_signed() && s != Scalar::Bool),
        "is_void" => matches!(a.kind(), TyKind::Void),
        "is_pointer" => matches!(a.kind(), TyKind::Pointer { .. }),
        "is_reference" => matches!(a.kind(), TyKind::Reference { .. }),
        "is_lvalue_reference" => matches!(a.kind(), TyKind::Reference { rvalue: false, .. }),
        "is_rvalue_reference" => matches!(a.kind(), TyKind::Reference { rvalue: true, .. }),
        "is_array" => matches!(a.kind(), TyKind::Array { .. }),
        "is_enum" => matches!(a.kind(), TyKind::Enum { .. }),
        "is_vector" => matches!(a.kind(), TyKind::Vector { .. }),
        "is_fundamental" => scalar.is_some() || matches!(a.kind(), TyKind::Void | TyKind::Nullptr),
        _ => return None,
    })
}

/// The type a transformation trait names (`enable_if_t<C, T>`, or `enable_if<C, T>`
/// whose `::type` is asked); `None` when `name` is none, unknown when its arguments are.
pub fn transform(name: &str, args: &[TemplateArg]) -> Option<Ty> {
    let base = name.strip_suffix("_t").unwrap_or(name);
    let known = |t: Option<Ty>| t.unwrap_or_else(Ty::unknown);
    Some(match base {
        // valid code only uses it where the condition holds
        "enable_if" => match args.get(1) {
            Some(TemplateArg::Type(t)) => t.clone(),
            None => Ty::void(),
            _ => Ty::unknown(),
        },
        "conditional" => match args.first() {
            Some(TemplateArg::Value(v)) => known(ty_arg(args, if *v != 0 { 1 } else { 2 })),
            _ => Ty::unknown(),
        },
        "type_identity" => known(ty_arg(args, 0)),
        "remove_cv" | "remove_const" | "remove_volatile" | "remove_cvref" | "remove_reference" | "decay" => {
            known(ty_arg(args, 0).map(|t| super::decay(t.non_reference())))
        }
        "remove_pointer" => known(ty_arg(args, 0).map(|t| match t.kind() {
            TyKind::Pointer { pointee, .. } => pointee.clone(),
            _ => t,
        })),
        "make_unsigned" | "make_signed" => known(ty_arg(args, 0).and_then(|t| {
            let s = scalar_of(&t)?;
            let unsigned = base == "make_unsigned";
            Some(Ty::scalar(s.with_signedness(!unsigned)?))
        })),
        _ => return None,
    })
}
