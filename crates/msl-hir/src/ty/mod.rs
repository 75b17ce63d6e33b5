//! Types of the semantic model: one interned value per distinct type.
//!
//! A [`Ty`] is a pointer to its [`TyKind`], made once per distinct kind by a global
//! interner, so equality and hashing are those of the pointer and a type is a word to copy
//! around. Aliases (`typedef`, `using`) are a kind of their own that wraps the aliased
//! type: they are transparent to every question about the type ([`Ty::strip`]) and kept for
//! display. The unknown type ([`TyKind::Unknown`]) stands for what analysis cannot know (a
//! type from a missing header, a dependent type in a template): every rule stays silent on
//! it, so one unknown never causes a chain of reports.

mod library;
mod lower;
mod name;
pub mod traits;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashSet;

pub use library::{LibParam, LibSignature, signature};
pub use lower::{
    ArrayLen, LibraryOnly, Lowered, PathRef, Segment, TypeArgRef, TypeBase, TypeEnv, TypeRef, TypeRefOp, library_type,
    parse_type_text, path_of,
};
pub(crate) use lower::{arg_of, decay, lower_args, parse_int as parse_int_literal};
pub use name::numeric_type;

/// A scalar type (`bool` counts as one; `void` does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    BFloat,
    Float,
    /// `size_t`: what `sizeof` gives.
    SizeT,
    /// `ptrdiff_t`: what subtracting pointers gives.
    PtrDiffT,
}

impl Scalar {
    pub const ALL: [Scalar; 14] = [
        Scalar::Bool,
        Scalar::Char,
        Scalar::UChar,
        Scalar::Short,
        Scalar::UShort,
        Scalar::Int,
        Scalar::UInt,
        Scalar::Long,
        Scalar::ULong,
        Scalar::Half,
        Scalar::BFloat,
        Scalar::Float,
        Scalar::SizeT,
        Scalar::PtrDiffT,
    ];

    /// The name Metal spells it with.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Half => "half",
            Scalar::BFloat => "bfloat",
            Scalar::Float => "float",
            Scalar::SizeT => "size_t",
            Scalar::PtrDiffT => "ptrdiff_t",
        }
    }

    /// The scalar named `name`, by any of Metal's spellings (`uint`, `uint32_t`,
    /// `unsigned int`; vector element names such as `uchar` too).
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "char" | "int8_t" | "signed char" => Scalar::Char,
            "uchar" | "uint8_t" | "unsigned char" => Scalar::UChar,
            "short" | "int16_t" | "short int" | "signed short" => Scalar::Short,
            "ushort" | "uint16_t" | "unsigned short" | "unsigned short int" => Scalar::UShort,
            "int" | "int32_t" | "signed" | "signed int" => Scalar::Int,
            "uint" | "uint32_t" | "unsigned" | "unsigned int" => Scalar::UInt,
            "long" | "int64_t" | "long int" | "signed long" => Scalar::Long,
            "ulong" | "uint64_t" | "unsigned long" | "unsigned long int" => Scalar::ULong,
            "half" => Scalar::Half,
            "bfloat" | "bfloat16_t" => Scalar::BFloat,
            "float" => Scalar::Float,
            "size_t" | "uintptr_t" => Scalar::SizeT,
            "ptrdiff_t" | "intptr_t" => Scalar::PtrDiffT,
            _ => return None,
        })
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::BFloat | Scalar::Float)
    }

    /// Integer types, `bool` and characters included.
    pub fn is_integer(self) -> bool {
        !self.is_float()
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::Char | Scalar::Short | Scalar::Int | Scalar::Long | Scalar::PtrDiffT) || self.is_float()
    }

    /// The integer type of the same size with the other signedness (`make_unsigned`);
    /// `None` for floating-point types and `bool`.
    pub fn with_signedness(self, signed: bool) -> Option<Scalar> {
        let (s, u) = match self {
            Scalar::Char | Scalar::UChar => (Scalar::Char, Scalar::UChar),
            Scalar::Short | Scalar::UShort => (Scalar::Short, Scalar::UShort),
            Scalar::Int | Scalar::UInt => (Scalar::Int, Scalar::UInt),
            Scalar::Long | Scalar::ULong => (Scalar::Long, Scalar::ULong),
            Scalar::SizeT | Scalar::PtrDiffT => (Scalar::PtrDiffT, Scalar::SizeT),
            _ => return None,
        };
        Some(if signed { s } else { u })
    }

    /// Size in bytes.
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort | Scalar::Half | Scalar::BFloat => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::SizeT | Scalar::PtrDiffT => 8,
        }
    }

    /// The integer conversion rank of C++ ([conv.rank]); floating types rank above
    /// every integer, `half` and `bfloat` below `float`.
    pub fn rank(self) -> u8 {
        match self {
            Scalar::Bool => 0,
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt => 3,
            Scalar::Long | Scalar::ULong | Scalar::SizeT | Scalar::PtrDiffT => 4,
            Scalar::Half | Scalar::BFloat => 5,
            Scalar::Float => 6,
        }
    }
}

/// A Metal address space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    Device,
    Constant,
    Thread,
    Threadgroup,
    ThreadgroupImageblock,
    RayData,
    ObjectData,
}

impl AddressSpace {
    pub fn from_keyword(word: &str) -> Option<AddressSpace> {
        Some(match word {
            "device" => AddressSpace::Device,
            "constant" => AddressSpace::Constant,
            "thread" => AddressSpace::Thread,
            "threadgroup" => AddressSpace::Threadgroup,
            "threadgroup_imageblock" => AddressSpace::ThreadgroupImageblock,
            "ray_data" => AddressSpace::RayData,
            "object_data" => AddressSpace::ObjectData,
            _ => return None,
        })
    }

    pub fn keyword(self) -> &'static str {
        match self {
            AddressSpace::Device => "device",
            AddressSpace::Constant => "constant",
            AddressSpace::Thread => "thread",
            AddressSpace::Threadgroup => "threadgroup",
            AddressSpace::ThreadgroupImageblock => "threadgroup_imageblock",
            AddressSpace::RayData => "ray_data",
            AddressSpace::ObjectData => "object_data",
        }
    }
}

/// `const` and `volatile` on the object a pointer or reference designates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Cv {
    pub is_const: bool,
    pub is_volatile: bool,
}

impl Cv {
    pub const NONE: Cv = Cv { is_const: false, is_volatile: false };
    pub const CONST: Cv = Cv { is_const: true, is_volatile: false };
}

/// A template argument of a type: a type, a constant, or a named constant that is not
/// an integer (`access::read`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TemplateArg {
    Type(Ty),
    Value(i64),
    Name(Arc<str>),
}

impl fmt::Display for TemplateArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateArg::Type(t) => write!(f, "{t}"),
            TemplateArg::Value(v) => write!(f, "{v}"),
            TemplateArg::Name(n) => f.write_str(n),
        }
    }
}

/// Which definition of the unit a class or enum type is: its item's number in the unit's
/// definitions (see `crate::defs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId(pub u32);

/// A function's type: what it returns and takes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FnType {
    pub ret: Ty,
    pub params: Vec<Ty>,
    pub variadic: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TyKind {
    Void,
    /// The type of `nullptr`.
    Nullptr,
    Scalar(Scalar),
    /// `float4`, `packed_half3`: two to four elements.
    Vector {
        elem: Scalar,
        len: u8,
        packed: bool,
    },
    /// `float4x3`: `cols` columns of `rows` elements.
    Matrix {
        elem: Scalar,
        cols: u8,
        rows: u8,
    },
    /// `device const float *`: the pointee with its address space and qualifiers.
    Pointer {
        pointee: Ty,
        space: Option<AddressSpace>,
        cv: Cv,
    },
    /// `thread float &`, `T &&`.
    Reference {
        target: Ty,
        space: Option<AddressSpace>,
        cv: Cv,
        rvalue: bool,
    },
    /// `float[4]`; `len` is `None` for an unknown or unwritten bound.
    Array {
        elem: Ty,
        len: Option<u64>,
    },
    /// A struct, class or union of the unit, by its definition; `name` is qualified
    /// (`geo::Ray`) and `args` are a template's arguments.
    Class {
        def: DefId,
        name: Arc<str>,
        args: Box<[TemplateArg]>,
    },
    /// An enum of the unit.
    Enum {
        def: DefId,
        name: Arc<str>,
    },
    /// A type of the library that is not a number: `texture2d<half, access::read>`,
    /// `sampler`, `atomic<int>`, `tensor<device half, dextents<int, 2>>`, `ray`, ...
    Library {
        name: &'static str,
        args: Box<[TemplateArg]>,
    },
    Function(Box<FnType>),
    /// A template parameter, or a placeholder of a library signature (`T`, `Tv`).
    Param(Arc<str>),
    /// `typedef` and `using` names, kept for display: every question looks through them.
    Alias {
        name: Arc<str>,
        target: Ty,
    },
    /// What analysis cannot know; checks never report on it.
    Unknown,
}

/// An interned type (see the module's documentation).
#[derive(Clone)]
pub struct Ty(Arc<TyKind>);

impl PartialEq for Ty {
    fn eq(&self, other: &Ty) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Ty {}

impl Hash for Ty {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.0) as usize).hash(state);
    }
}

impl fmt::Debug for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ty({self})")
    }
}

/// The interner: one `Arc` per distinct kind, forever (a unit has a few thousand types).
fn interner() -> &'static Mutex<FxHashSet<Arc<TyKind>>> {
    static INTERNER: OnceLock<Mutex<FxHashSet<Arc<TyKind>>>> = OnceLock::new();
    INTERNER.get_or_init(Default::default)
}

impl Ty {
    /// The one type of this kind.
    pub fn new(kind: TyKind) -> Ty {
        let mut set = match interner().lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(t) = set.get(&kind) {
            return Ty(t.clone());
        }
        let t = Arc::new(kind);
        set.insert(t.clone());
        Ty(t)
    }

    pub fn kind(&self) -> &TyKind {
        &self.0
    }

    pub fn unknown() -> Ty {
        static UNKNOWN: OnceLock<Ty> = OnceLock::new();
        UNKNOWN.get_or_init(|| Ty::new(TyKind::Unknown)).clone()
    }

    pub fn void() -> Ty {
        static VOID: OnceLock<Ty> = OnceLock::new();
        VOID.get_or_init(|| Ty::new(TyKind::Void)).clone()
    }

    pub fn scalar(s: Scalar) -> Ty {
        static SCALARS: OnceLock<Vec<Ty>> = OnceLock::new();
        let all = SCALARS.get_or_init(|| Scalar::ALL.iter().map(|s| Ty::new(TyKind::Scalar(*s))).collect());
        all[Scalar::ALL.iter().position(|x| *x == s).unwrap_or(0)].clone()
    }

    pub fn bool() -> Ty {
        Ty::scalar(Scalar::Bool)
    }

    pub fn vector(elem: Scalar, len: u8) -> Ty {
        Ty::new(TyKind::Vector { elem, len, packed: false })
    }

    pub fn matrix(elem: Scalar, cols: u8, rows: u8) -> Ty {
        Ty::new(TyKind::Matrix { elem, cols, rows })
    }

    pub fn pointer(pointee: Ty, space: Option<AddressSpace>, cv: Cv) -> Ty {
        Ty::new(TyKind::Pointer { pointee, space, cv })
    }

    pub fn reference(target: Ty, space: Option<AddressSpace>, cv: Cv) -> Ty {
        Ty::new(TyKind::Reference { target, space, cv, rvalue: false })
    }

    pub fn array(elem: Ty, len: Option<u64>) -> Ty {
        Ty::new(TyKind::Array { elem, len })
    }

    pub fn library(name: &'static str, args: Vec<TemplateArg>) -> Ty {
        Ty::new(TyKind::Library { name, args: args.into_boxed_slice() })
    }

    pub fn param(name: &str) -> Ty {
        Ty::new(TyKind::Param(Arc::from(name)))
    }

    pub fn alias(name: &str, target: Ty) -> Ty {
        if target.is_unknown() {
            return target;
        }
        Ty::new(TyKind::Alias { name: Arc::from(name), target })
    }

    pub fn function(ret: Ty, params: Vec<Ty>, variadic: bool) -> Ty {
        Ty::new(TyKind::Function(Box::new(FnType { ret, params, variadic })))
    }

    /// The type with aliases looked through.
    pub fn strip(&self) -> Ty {
        let mut t = self.clone();
        while let TyKind::Alias { target, .. } = t.kind() {
            t = target.clone();
        }
        t
    }

    /// The kind, aliases looked through.
    pub fn stripped(&self) -> TyKind {
        self.strip().kind().clone()
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self.strip().kind(), TyKind::Unknown)
    }

    /// Unknown, or made of an unknown or a template parameter somewhere: nothing is sure.
    pub fn is_uncertain(&self) -> bool {
        match self.strip().kind() {
            TyKind::Unknown | TyKind::Param(_) => true,
            TyKind::Pointer { pointee: t, .. }
            | TyKind::Reference { target: t, .. }
            | TyKind::Array { elem: t, .. } => t.is_uncertain(),
            TyKind::Class { args, .. } | TyKind::Library { args, .. } => {
                args.iter().any(|a| matches!(a, TemplateArg::Type(t) if t.is_uncertain()))
            }
            TyKind::Function(f) => f.ret.is_uncertain() || f.params.iter().any(Ty::is_uncertain),
            _ => false,
        }
    }

    /// The type a reference designates (the type itself when it is not a reference).
    pub fn non_reference(&self) -> Ty {
        match self.strip().kind() {
            TyKind::Reference { target, .. } => target.clone(),
            _ => self.clone(),
        }
    }

    /// The scalar of a scalar, vector or matrix type.
    pub fn scalar_of(&self) -> Option<Scalar> {
        match self.strip().kind() {
            TyKind::Scalar(s) => Some(*s),
            TyKind::Vector { elem, .. } | TyKind::Matrix { elem, .. } => Some(*elem),
            TyKind::Enum { .. } => Some(Scalar::Int),
            _ => None,
        }
    }

    /// Scalars (with `bool`), vectors and matrices: what arithmetic operators take.
    pub fn is_numeric(&self) -> bool {
        matches!(self.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. })
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self.strip().kind(), TyKind::Scalar(_))
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self.strip().kind(), TyKind::Pointer { .. })
    }

    /// The number of elements of a vector.
    pub fn vector_len(&self) -> Option<u8> {
        match self.strip().kind() {
            TyKind::Vector { len, .. } => Some(*len),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            TyKind::Void => f.write_str("void"),
            TyKind::Nullptr => f.write_str("nullptr_t"),
            TyKind::Scalar(s) => f.write_str(s.name()),
            TyKind::Vector { elem, len, packed } => {
                write!(f, "{}{}{len}", if *packed { "packed_" } else { "" }, elem.name())
            }
            TyKind::Matrix { elem, cols, rows } => write!(f, "{}{cols}x{rows}", elem.name()),
            // to an array: `device float (*)[4]`, `threadgroup float (&)[64]`
            TyKind::Pointer { pointee, space, cv } if matches!(pointee.kind(), TyKind::Array { .. }) => {
                qualifiers(f, *space, *cv)?;
                array(f, pointee, " (*)")
            }
            TyKind::Reference { target, space, cv, rvalue } if matches!(target.kind(), TyKind::Array { .. }) => {
                qualifiers(f, *space, *cv)?;
                array(f, target, if *rvalue { " (&&)" } else { " (&)" })
            }
            // to a function: `float (*)(float)`
            TyKind::Pointer { pointee, .. } if matches!(pointee.kind(), TyKind::Function(_)) => {
                let TyKind::Function(fun) = pointee.kind() else { return Ok(()) };
                write!(f, "{} (*)", fun.ret)?;
                params(f, fun)
            }
            TyKind::Pointer { pointee, space, cv } => {
                designated(f, pointee, *space, *cv)?;
                f.write_str(" *")
            }
            TyKind::Reference { target, space, cv, rvalue } => {
                designated(f, target, *space, *cv)?;
                f.write_str(if *rvalue { " &&" } else { " &" })
            }
            TyKind::Array { .. } => array(f, self, ""),
            TyKind::Class { name, args, .. } => {
                f.write_str(name)?;
                template_args(f, args)
            }
            TyKind::Enum { name, .. } | TyKind::Param(name) | TyKind::Alias { name, .. } => f.write_str(name),
            TyKind::Library { name, args } => {
                f.write_str(name)?;
                template_args(f, args)
            }
            TyKind::Function(fun) => {
                write!(f, "{} ", fun.ret)?;
                params(f, fun)
            }
            TyKind::Unknown => f.write_str("{unknown}"),
        }
    }
}

/// A function type's parameter list, parenthesized.
fn params(f: &mut fmt::Formatter<'_>, fun: &FnType) -> fmt::Result {
    f.write_str("(")?;
    for (i, p) in fun.params.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{p}")?;
    }
    if fun.variadic {
        f.write_str(if fun.params.is_empty() { "..." } else { ", ..." })?;
    }
    f.write_str(")")
}

/// An array type as C++ writes it: the element type, then `declarator` (a pointer or
/// reference to the array), then the bounds outermost first (`float[4][3]` holds four
/// arrays of three).
fn array(f: &mut fmt::Formatter<'_>, t: &Ty, declarator: &str) -> fmt::Result {
    let mut bounds = Vec::new();
    let mut elem = t.clone();
    while let TyKind::Array { elem: inner, len } = elem.kind() {
        bounds.push(*len);
        elem = inner.clone();
    }
    write!(f, "{elem}{declarator}")?;
    for b in bounds {
        match b {
            Some(n) => write!(f, "[{n}]")?,
            None => f.write_str("[]")?,
        }
    }
    Ok(())
}

/// What a pointer or reference designates, with its qualifiers where C++ writes them:
/// before a plain type (`const device float`), after a pointer (`device float * constant`).
fn designated(f: &mut fmt::Formatter<'_>, t: &Ty, space: Option<AddressSpace>, cv: Cv) -> fmt::Result {
    if matches!(t.kind(), TyKind::Pointer { .. }) {
        write!(f, "{t}")?;
        if cv.is_const {
            f.write_str(" const")?;
        }
        if cv.is_volatile {
            f.write_str(" volatile")?;
        }
        if let Some(s) = space {
            write!(f, " {}", s.keyword())?;
        }
        return Ok(());
    }
    qualifiers(f, space, cv)?;
    write!(f, "{t}")
}

fn qualifiers(f: &mut fmt::Formatter<'_>, space: Option<AddressSpace>, cv: Cv) -> fmt::Result {
    if cv.is_const {
        f.write_str("const ")?;
    }
    if cv.is_volatile {
        f.write_str("volatile ")?;
    }
    if let Some(s) = space {
        write!(f, "{} ", s.keyword())?;
    }
    Ok(())
}

fn template_args(f: &mut fmt::Formatter<'_>, args: &[TemplateArg]) -> fmt::Result {
    if args.is_empty() {
        return Ok(());
    }
    f.write_str("<")?;
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    f.write_str(">")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_types_compare_by_pointer() {
        let a = Ty::pointer(Ty::vector(Scalar::Float, 4), Some(AddressSpace::Device), Cv::CONST);
        let b = Ty::pointer(Ty::vector(Scalar::Float, 4), Some(AddressSpace::Device), Cv::CONST);
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(a, b);
        assert_ne!(a, Ty::pointer(Ty::vector(Scalar::Float, 4), Some(AddressSpace::Thread), Cv::CONST));
        assert_eq!(a.to_string(), "const device float4 *");
    }

    #[test]
    fn aliases_are_transparent_but_displayed() {
        let f4 = Ty::vector(Scalar::Float, 4);
        let color = Ty::alias("Color", f4.clone());
        assert_ne!(color, f4);
        assert_eq!(color.strip(), f4);
        assert_eq!(color.to_string(), "Color");
        assert_eq!(color.vector_len(), Some(4));
        assert_eq!(Ty::alias("Lost", Ty::unknown()), Ty::unknown());
    }

    #[test]
    fn display_of_every_kind() {
        let tex = Ty::library(
            "texture2d",
            vec![TemplateArg::Type(Ty::scalar(Scalar::Half)), TemplateArg::Name("access::read".into())],
        );
        let cases = [
            (Ty::matrix(Scalar::Half, 3, 4), "half3x4"),
            (Ty::new(TyKind::Vector { elem: Scalar::Float, len: 3, packed: true }), "packed_float3"),
            (Ty::reference(Ty::scalar(Scalar::Int), Some(AddressSpace::Thread), Cv::NONE), "thread int &"),
            (Ty::array(Ty::scalar(Scalar::UInt), Some(8)), "uint[8]"),
            (tex, "texture2d<half, access::read>"),
            (Ty::function(Ty::scalar(Scalar::Float), vec![Ty::scalar(Scalar::Float)], false), "float (float)"),
            (Ty::unknown(), "{unknown}"),
        ];
        for (t, s) in cases {
            assert_eq!(t.to_string(), s);
        }
    }

    #[test]
    fn scalar_spellings() {
        for s in Scalar::ALL {
            assert_eq!(Scalar::from_name(s.name()), Some(s));
        }
        assert_eq!(Scalar::from_name("unsigned int"), Some(Scalar::UInt));
        assert_eq!(Scalar::from_name("uint64_t"), Some(Scalar::ULong));
        assert!(Scalar::Half.rank() > Scalar::ULong.rank() && Scalar::Float.rank() > Scalar::Half.rank());
    }
}
