//! The checker's types: what a declaration or an expression has, as far as the unit and
//! the library tell. `Unknown` stands for anything not modelled (a template parameter, an
//! unknown macro, a class with bases); checks never report on it.

use std::fmt;

/// An address space: the semantic model's.
pub(crate) use crate::ty::AddressSpace as Space;

/// What a pointer or reference refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The address space of the object referred to, when written.
    pub(crate) space: Option<Space>,
    /// The object is `const`.
    pub(crate) is_const: bool,
    pub(crate) ty: Ty,
}

/// A texture type: `texture2d<half, access::read>`, `depth2d<float>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Texture {
    /// The library's name for it: `texture2d`, `depth2d_array`, `texture_buffer`.
    pub(crate) kind: String,
    /// The element type (`Unknown` when it is not a plain scalar).
    pub(crate) elem: Ty,
    /// The access: written, or the type's default; `None` when neither is known.
    pub(crate) access: Option<&'static str>,
}

impl Texture {
    pub(crate) fn is_depth(&self) -> bool {
        self.kind.starts_with("depth")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ty {
    Scalar(&'static str),
    /// Element, size, packed.
    Vector(&'static str, usize, bool),
    /// Element, columns, rows.
    Matrix(&'static str, usize, usize),
    Pointer(Box<Target>),
    Reference(Box<Target>),
    /// Element and bound.
    Array(Box<Ty>, Option<u64>),
    Texture(Box<Texture>),
    Sampler,
    /// `atomic<T>`, `atomic_int`: the value type.
    Atomic(Box<Ty>),
    /// A struct or class of the unit whose fields are known.
    Struct(String),
    /// An enum of the unit.
    Enum(String),
    /// A function of the unit or the library, named without being called.
    Function(String),
    Unknown,
}

/// The static name of a scalar type.
pub(crate) fn scalar(name: &str) -> Option<&'static str> {
    msl_stdlib::SCALAR_TYPES.iter().find(|s| **s == name).copied()
}

impl Ty {
    /// `float`, `half3`, `packed_float3`, `float4x4`.
    pub(crate) fn parse(name: &str) -> Option<Ty> {
        if let Some(s) = scalar(name) {
            return Some(Ty::Scalar(s));
        }
        let (packed, rest) = match name.strip_prefix("packed_") {
            Some(r) => (true, r),
            None => (false, name),
        };
        let digits = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let elem = scalar(&rest[..rest.len() - digits.len()])?;
        let dims: Vec<usize> = digits.split('x').map(|d| d.parse().ok()).collect::<Option<_>>()?;
        match dims.as_slice() {
            [n] if (2..=4).contains(n) => Some(Ty::Vector(elem, *n, packed)),
            [c, r] if !packed && (2..=4).contains(c) && (2..=4).contains(r) => Some(Ty::Matrix(elem, *c, *r)),
            _ => None,
        }
    }

    /// `Some` unless unknown.
    pub(crate) fn known(self) -> Option<Ty> {
        (self != Ty::Unknown).then_some(self)
    }

    /// A scalar, vector or matrix.
    pub(crate) fn is_numeric(&self) -> bool {
        matches!(self, Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..))
    }

    pub(crate) fn same_vector(&self, other: &Ty) -> bool {
        matches!((self, other), (Ty::Vector(a, n, _), Ty::Vector(b, m, _)) if a == b && n == m)
    }

    pub(crate) fn unpacked(&self) -> Ty {
        match self {
            Ty::Vector(e, n, _) => Ty::Vector(e, *n, false),
            other => other.clone(),
        }
    }

    /// The value a reference refers to; other types as they are.
    pub(crate) fn value(self) -> Ty {
        match self {
            Ty::Reference(t) => t.ty,
            other => other,
        }
    }

    /// The pointer's target, when this is a pointer.
    pub(crate) fn pointee(&self) -> Option<&Target> {
        match self {
            Ty::Pointer(t) => Some(t),
            _ => None,
        }
    }

    /// Whether a value of type `source` implicitly converts to this type, as far as the
    /// checks judge: between numeric types only; everything else is not judged (true).
    pub(crate) fn converts_from(&self, source: &Ty) -> bool {
        match (self, source) {
            (Ty::Scalar(_), Ty::Scalar(_)) => true,
            (Ty::Vector(..), Ty::Scalar(_)) => true,
            (Ty::Vector(..), Ty::Vector(..)) => self.same_vector(source),
            (Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..), Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..)) => {
                self == source
            }
            // a pointer never becomes a number (except a truth value); a function is not a value
            (Ty::Scalar(s), Ty::Pointer(_)) => *s == "bool",
            (Ty::Vector(..) | Ty::Matrix(..), Ty::Pointer(_)) => false,
            (Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..), Ty::Function(_)) => false,
            _ => true,
        }
    }

    /// The type as a message names a value of it: "a `float3`", "the function `f`".
    pub(crate) fn described(&self) -> String {
        match self {
            Ty::Function(name) => format!("the function `{name}`"),
            other => format!("a `{other}`"),
        }
    }

    /// Integer promotion: the type arithmetic on a scalar of this type computes in.
    pub(crate) fn promoted(self) -> Ty {
        match &self {
            Ty::Scalar(s) if matches!(*s, "bool" | "char" | "uchar" | "short" | "ushort") => Ty::Scalar("int"),
            _ => self,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Scalar(s) => write!(f, "{s}"),
            Ty::Vector(e, n, packed) => write!(f, "{}{e}{n}", if *packed { "packed_" } else { "" }),
            Ty::Matrix(e, c, r) => write!(f, "{e}{c}x{r}"),
            Ty::Pointer(t) | Ty::Reference(t) => {
                if let Some(s) = t.space {
                    write!(f, "{} ", s.keyword())?;
                }
                if t.is_const {
                    write!(f, "const ")?;
                }
                let op = if matches!(self, Ty::Pointer(_)) { "*" } else { "&" };
                write!(f, "{} {op}", t.ty)
            }
            Ty::Array(e, Some(n)) => write!(f, "{e}[{n}]"),
            Ty::Array(e, None) => write!(f, "{e}[]"),
            Ty::Texture(t) => match (&t.elem, t.access) {
                (Ty::Unknown, _) => write!(f, "{}", t.kind),
                (e, Some(a)) => write!(f, "{}<{e}, access::{a}>", t.kind),
                (e, None) => write!(f, "{}<{e}>", t.kind),
            },
            Ty::Sampler => write!(f, "sampler"),
            Ty::Atomic(t) => write!(f, "atomic<{t}>"),
            Ty::Struct(s) | Ty::Enum(s) => write!(f, "{s}"),
            Ty::Function(name) => write!(f, "function `{name}`"),
            Ty::Unknown => write!(f, "?"),
        }
    }
}

/// The type of `l * r` when a matrix is involved: `Some(None)` when the dimensions or
/// element types do not match; `None` when no matrix is involved.
pub(crate) fn matrix_product(l: &Ty, r: &Ty) -> Option<Option<Ty>> {
    Some(match (l, r) {
        (Ty::Matrix(e, c, rows), Ty::Vector(f, n, _)) => (e == f && c == n).then_some(Ty::Vector(e, *rows, false)),
        (Ty::Vector(f, n, _), Ty::Matrix(e, c, rows)) => (e == f && rows == n).then_some(Ty::Vector(e, *c, false)),
        (Ty::Matrix(e, c1, r1), Ty::Matrix(f, c2, r2)) => (e == f && c1 == r2).then_some(Ty::Matrix(e, *c2, *r1)),
        (Ty::Matrix(..), Ty::Scalar(_)) => Some(l.clone()),
        (Ty::Scalar(_), Ty::Matrix(..)) => Some(r.clone()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        assert_eq!(Ty::parse("float3"), Some(Ty::Vector("float", 3, false)));
        assert_eq!(Ty::parse("packed_half4"), Some(Ty::Vector("half", 4, true)));
        assert_eq!(Ty::parse("float4x3"), Some(Ty::Matrix("float", 4, 3)));
        assert_eq!(Ty::parse("float5"), None);
        assert_eq!(Ty::parse("packed_float4x4"), None);
    }

    #[test]
    fn conversions() {
        let f = Ty::parse("float").unwrap();
        let f3 = Ty::parse("float3").unwrap();
        let f4 = Ty::parse("float4").unwrap();
        let p = Ty::Pointer(Box::new(Target { space: Some(Space::Device), is_const: false, ty: f.clone() }));
        assert!(f3.converts_from(&f));
        assert!(!f3.converts_from(&f4));
        assert!(!f.converts_from(&f3));
        assert!(!f.converts_from(&p));
        assert!(Ty::Scalar("bool").converts_from(&p));
        assert!(!f.converts_from(&Ty::Function("g".into())));
        // not judged
        assert!(Ty::Struct("S".into()).converts_from(&f));
        assert_eq!(p.to_string(), "device float *");
        assert_eq!(Ty::Scalar("ushort").promoted(), Ty::Scalar("int"));
    }
}
