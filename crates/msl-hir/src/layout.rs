//! Layout: the size and alignment of types, and the offsets of a class's members.
//!
//! Scalars are aligned to their size (`bool` and `char` 1, `short` and `half` 2, `int`
//! and `float` 4, `long`, `size_t` and pointers 8). A vector is aligned to its size, and a
//! 3-component vector is as large as the 4-component one (`float3`: 16 bytes); a packed
//! vector is its elements back to back, aligned as one element (`packed_float3`: 12 bytes,
//! aligned to 4). A matrix is its columns, each a vector of the matrix's rows
//! (`float3x3`: three `float3`, 48 bytes, aligned to 16). Arrays repeat their element.
//! Classes follow C++: each member at the next offset its alignment allows, bases first,
//! the class aligned to its most aligned member and its size rounded up to that (an empty
//! class takes 1 byte); a union is as large as its largest member. An atomic is laid out
//! as the type it holds.
//!
//! What has no layout the analysis can know (textures and other handles, template
//! parameters, unknown types, classes with `alignas`) has none: callers say nothing.

use rustc_hash::FxHashMap;

use crate::defs::{ClassKey, DefKind};
use crate::infer::Resolver;
use crate::ty::{DefId, Scalar, TemplateArg, Ty, TyKind};

/// Size and alignment in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    pub align: u64,
}

/// A data member's place in its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldLayout {
    pub def: DefId,
    pub offset: u64,
    pub layout: Layout,
}

/// A class's layout and its data members' (bases' members first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassLayout {
    pub layout: Layout,
    pub fields: Vec<FieldLayout>,
}

/// How deep classes may nest in one another's layout (a class holding itself by value is
/// an error the layout must not loop on).
const MAX_DEPTH: u32 = 64;

fn round_up(n: u64, align: u64) -> Option<u64> {
    if align <= 1 { Some(n) } else { n.div_ceil(align).checked_mul(align) }
}

fn scalar(s: Scalar) -> Layout {
    let size = u64::from(s.size());
    Layout { size, align: size }
}

/// One layout computation: classes already laid out, and those being laid out (a class
/// that contains itself has no layout).
#[derive(Default)]
struct Cx {
    classes: FxHashMap<(DefId, Vec<TemplateArg>), Option<ClassLayout>>,
    visiting: Vec<(DefId, Vec<TemplateArg>)>,
}

/// The layout of `ty`, when it has one the analysis knows.
pub fn layout_of(r: &Resolver<'_>, ty: &Ty) -> Option<Layout> {
    layout_at(r, ty, 0, &mut Cx::default())
}

fn layout_at(r: &Resolver<'_>, ty: &Ty, depth: u32, cx: &mut Cx) -> Option<Layout> {
    if depth > MAX_DEPTH {
        return None;
    }
    match ty.strip().kind() {
        TyKind::Scalar(s) => Some(scalar(*s)),
        TyKind::Vector { elem, len, packed } => {
            let e = u64::from(elem.size());
            let n = u64::from(*len);
            if *packed {
                Some(Layout { size: e * n, align: e })
            } else {
                let size = e * if n == 3 { 4 } else { n };
                Some(Layout { size, align: size })
            }
        }
        TyKind::Matrix { elem, cols, rows } => {
            let column = layout_at(r, &Ty::vector(*elem, *rows), depth + 1, cx)?;
            Some(Layout { size: column.size.checked_mul(u64::from(*cols))?, align: column.align })
        }
        TyKind::Pointer { .. } => Some(Layout { size: 8, align: 8 }),
        TyKind::Array { elem, len } => {
            let e = layout_at(r, elem, depth + 1, cx)?;
            Some(Layout { size: e.size.checked_mul((*len)?)?, align: e.align })
        }
        TyKind::Enum { def, .. } => match &r.defs.def(*def).kind {
            DefKind::Enum { underlying: Some(u), .. } => {
                let t = u.lower(&r.for_def(*def)).ty;
                layout_at(r, &t, depth + 1, cx)
            }
            _ => Some(scalar(Scalar::Int)),
        },
        TyKind::Class { def, args, .. } => class_layout_at(r, *def, args, depth + 1, cx).map(|c| c.layout),
        TyKind::Library { name, args } => match (*name, args.first()) {
            ("atomic", Some(TemplateArg::Type(t))) => layout_at(r, t, depth + 1, cx),
            _ => library_atomic(name),
        },
        _ => None,
    }
}

/// The named atomic types (`atomic_int`, `atomic_uint`, `atomic_bool`, `atomic_float`, ...).
fn library_atomic(name: &str) -> Option<Layout> {
    let inner = name.strip_prefix("atomic_")?;
    Scalar::from_name(inner).map(scalar)
}

/// The layout of class `def` with template arguments `args`.
pub fn class_layout(r: &Resolver<'_>, def: DefId, args: &[TemplateArg]) -> Option<ClassLayout> {
    class_layout_at(r, def, args, 0, &mut Cx::default())
}

fn class_layout_at(r: &Resolver<'_>, def: DefId, args: &[TemplateArg], depth: u32, cx: &mut Cx) -> Option<ClassLayout> {
    let key = (def, args.to_vec());
    if depth > MAX_DEPTH || cx.visiting.contains(&key) {
        return None;
    }
    if let Some(done) = cx.classes.get(&key) {
        return done.clone();
    }
    cx.visiting.push(key.clone());
    let out = compute_class_layout(r, def, args, depth, cx);
    cx.visiting.pop();
    cx.classes.insert(key, out.clone());
    out
}

fn compute_class_layout(
    r: &Resolver<'_>,
    def: DefId,
    args: &[TemplateArg],
    depth: u32,
    cx: &mut Cx,
) -> Option<ClassLayout> {
    let d = r.defs.def(def);
    let DefKind::Class { key, bases, fields, defined, .. } = &d.kind else { return None };
    if !defined || r.defs.class_alignas.contains(&def) {
        return None;
    }
    let cr = r.for_def(def);
    let bound = cr.class_template_bindings(def, args);
    let bindings: Vec<(std::sync::Arc<str>, Ty)> = bound.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let mut offset = 0u64;
    let mut align = 1u64;
    let mut size = 0u64;
    let mut out = Vec::new();
    let mut any = false;
    // bases first, in order; an empty base takes no room
    for b in bases {
        let t = crate::infer::substitute(&b.lower(&cr).ty, &bound).strip();
        let TyKind::Class { def: bdef, args: bargs, .. } = t.kind() else { return None };
        let base = class_layout_at(r, *bdef, bargs, depth + 1, cx)?;
        align = align.max(base.layout.align);
        if base.fields.is_empty() {
            continue;
        }
        offset = round_up(offset, base.layout.align)?;
        for f in &base.fields {
            out.push(FieldLayout { offset: f.offset.checked_add(offset)?, ..f.clone() });
        }
        offset = offset.checked_add(base.layout.size)?;
        any = true;
    }
    let ids = fields.clone();
    for id in ids {
        let DefKind::Field(f) = &r.defs.def(id).kind else { continue };
        // in the class's own scope (its member types and nested classes are seen), with
        // its template's arguments (which array bounds may use)
        let fr = r.for_def(id).with_bindings(&bindings);
        let t = crate::infer::substitute(&f.ty.lower(&fr).ty, &bound);
        let l = layout_at(r, &t, depth + 1, cx)?;
        align = align.max(l.align);
        if *key == ClassKey::Union {
            out.push(FieldLayout { def: id, offset: 0, layout: l });
            size = size.max(l.size);
        } else {
            offset = round_up(offset, l.align)?;
            out.push(FieldLayout { def: id, offset, layout: l });
            offset = offset.checked_add(l.size)?;
        }
        any = true;
    }
    if *key != ClassKey::Union {
        size = offset;
    }
    // an empty class still takes a byte
    let size = if any || size > 0 { round_up(size, align)? } else { 1 };
    Some(ClassLayout { layout: Layout { size, align }, fields: out })
}
