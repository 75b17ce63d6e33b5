//! The light symbol table C++ parsing needs: which names are types, which are templates.
//! `T * x;` declares `x` when `T` is a type and multiplies otherwise; `a < b` opens a
//! template argument list only when `a` names a template.

use super::Word;
use crate::short::{self, ShortText};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sym {
    Type,
    /// A class or alias template (or a template template parameter): `<` after it starts
    /// arguments, and the result names a type.
    Template,
    /// A function or variable template: `<` after it starts arguments, and the result is
    /// a value (`is_float<T>()` inside template arguments is an expression).
    ValueTemplate,
    Value,
    Namespace,
}

/// A change to the scopes, as recorded for replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopeOp<'a> {
    /// A new scope; `local` for scopes inside function bodies (statements, lambdas).
    Push {
        local: bool,
    },
    Pop,
    Declare(&'a str, Sym),
    /// A template type parameter (`typename T`): a type that is not known yet.
    DeclareTypeParam(&'a str),
}

/// A [`ScopeOp`] kept with a parse: a name is a range of [`ScopeLog::names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OwnedScopeOp {
    Push { local: bool },
    Pop,
    Declare { name: (u32, u32), sym: Sym },
    DeclareTypeParam { name: (u32, u32) },
}

/// The scope changes of a parse, kept with it (see `Scopes::log`): each with the piece of
/// the parser's current token, and the declared names one after the other in one string
/// (one allocation, and copying the log after a body reparse counts no references).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ScopeLog {
    pub(crate) ops: Vec<(u32, OwnedScopeOp)>,
    pub(crate) names: std::sync::Arc<str>,
}

impl ScopeLog {
    /// The name of a [`OwnedScopeOp::Declare`].
    pub(crate) fn name(&self, (start, len): (u32, u32)) -> &str {
        self.names.get(start as usize..(start + len) as usize).unwrap_or("")
    }
}

#[derive(Debug, Clone, Copy)]
struct Mark {
    undo: usize,
    log: usize,
    local: bool,
    /// The scope left entries in the log that must stay (it declared types or
    /// namespaces, or holds a scope that did).
    kept: bool,
}

pub(crate) struct Scopes<'a> {
    /// What each name means, by the number it was given on first use (see
    /// [`Scopes::intern`]).
    names: RefCell<Names<'a>>,
    /// Bindings to restore when a scope closes: a name's number and what it meant before
    /// the scope bound it.
    undo: Vec<(u32, Option<Binding>)>,
    marks: Vec<Mark>,
    /// Every change, with the piece of the parser's current token when it was made, so
    /// that the state at a function body can be rebuilt later. A local scope that leaves
    /// nothing behind (no types, no namespaces) is removed from it when it closes.
    pub(crate) log: Vec<(u32, ScopeOp<'a>)>,
    /// The piece of the parser's current token.
    pub(crate) at: u32,
}

/// The names a parse has seen, numbered in order of first use. A number stands for its
/// text: the parser keeps each identifier token's number, so a token's text is looked up
/// once however often the parser asks about it.
struct Names<'a> {
    ids: FxHashMap<&'a str, u32>,
    /// A direct-mapped cache in front of `ids` for names of up to [`short::MAX`] bytes,
    /// its size a power of two: a name's short form and its number plus one (0 in an
    /// empty slot). Most look-ups are of names seen before, and end here.
    short: Vec<(ShortText, u32)>,
    info: Vec<Name>,
    texts: Vec<&'a str>,
}

/// A name's meaning in a scope: the scope's depth, what it is there, and whether it is a
/// template type parameter.
type Binding = (u32, Sym, bool);

/// What a name means where the parse is.
#[derive(Clone, Copy)]
struct Name {
    /// The innermost scope that declares it (its depth) and what it is there.
    bound: Option<Binding>,
    /// Declared as a type or template in any scope (member types, namespace members):
    /// what the last component of a qualified name means.
    any_type: Option<Sym>,
    /// Declared as a namespace somewhere.
    namespace: bool,
    /// What the standard library makes of it (see [`builtin`]).
    builtin: Option<Sym>,
    /// What it means as a contextual keyword.
    word: Word,
}

impl<'a> Scopes<'a> {
    #[cfg(test)]
    pub(crate) fn new() -> Scopes<'a> {
        Scopes::with_capacity(0)
    }

    /// Scopes for a parse of `tokens` tokens: room for the names such a parse typically
    /// meets (one per 16 tokens or so in small units, fewer in large ones: one per 80 in
    /// ggml's kernels).
    pub(crate) fn with_capacity(tokens: usize) -> Scopes<'a> {
        let n = (tokens / 16).clamp(16, 2048);
        let names = Names {
            ids: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            short: vec![Default::default(); (2 * n).next_power_of_two()],
            info: Vec::with_capacity(n),
            texts: Vec::with_capacity(n),
        };
        Scopes { names: RefCell::new(names), undo: Vec::new(), marks: Vec::new(), log: Vec::new(), at: 0 }
    }

    /// The number of `name` (given on its first use).
    #[inline]
    pub(crate) fn intern(&self, name: &'a str) -> u32 {
        if name.len() > short::MAX {
            return self.intern_in_table(name, None);
        }
        let key = ShortText::new(name.as_bytes());
        let slot = {
            let names = self.names.borrow();
            let slot = key.hash(0) as usize & (names.short.len() - 1);
            if let Some(&(k, id)) = names.short.get(slot)
                && k == key
                && id != 0
            {
                return id - 1;
            }
            slot
        };
        self.intern_in_table(name, Some((key, slot)))
    }

    /// [`Scopes::intern`] for a name not in the short cache: found in the table of all
    /// names, or numbered now, and entered in `slot` of the cache.
    #[inline(never)]
    fn intern_in_table(&self, name: &'a str, slot: Option<(ShortText, usize)>) -> u32 {
        let mut names = self.names.borrow_mut();
        let Names { ids, short, info, texts } = &mut *names;
        let id = *ids.entry(name).or_insert_with(|| {
            let word = Word::of(name);
            info.push(Name { bound: None, any_type: None, namespace: false, builtin: builtin(name), word });
            texts.push(name);
            info.len() as u32 - 1
        });
        if let Some((key, i)) = slot
            && let Some(entry) = short.get_mut(i)
        {
            *entry = (key, id + 1);
        }
        id
    }

    /// What the name numbered `id` means as a contextual keyword.
    pub(crate) fn word(&self, id: u32) -> Word {
        self.names.borrow().info.get(id as usize).map_or(Word::Plain, |n| n.word)
    }

    /// The name numbered `id`.
    pub(crate) fn text(&self, id: u32) -> &'a str {
        self.names.borrow().texts.get(id as usize).copied().unwrap_or("")
    }

    fn name(&self, id: u32) -> Option<Name> {
        self.names.borrow().info.get(id as usize).copied()
    }

    fn depth(&self) -> u32 {
        self.marks.len() as u32
    }

    pub(crate) fn push(&mut self) {
        self.push_kind(false);
    }

    /// Whether the innermost scope is inside a function body.
    pub(crate) fn in_local_scope(&self) -> bool {
        self.marks.last().is_some_and(|m| m.local)
    }

    /// A scope inside a function body.
    pub(crate) fn push_local(&mut self) {
        self.push_kind(true);
    }

    fn push_kind(&mut self, local: bool) {
        // everything inside a function body is local to it
        let local = local || self.marks.last().is_some_and(|m| m.local);
        self.marks.push(Mark { undo: self.undo.len(), log: self.log.len(), local, kept: false });
        self.log.push((self.at, ScopeOp::Push { local }));
    }

    pub(crate) fn pop(&mut self) {
        let Some(mark) = self.marks.pop() else { return };
        if mark.local && !mark.kept {
            self.log.truncate(mark.log);
        } else {
            self.log.push((self.at, ScopeOp::Pop));
            if let Some(parent) = self.marks.last_mut() {
                parent.kept = true;
            }
        }
        let info = &mut self.names.get_mut().info;
        for (id, before) in self.undo.drain(mark.undo..).rev() {
            if let Some(name) = info.get_mut(id as usize) {
                name.bound = before;
            }
        }
    }

    pub(crate) fn declare(&mut self, name: &'a str, sym: Sym) {
        if name.is_empty() {
            return;
        }
        self.log.push((self.at, ScopeOp::Declare(name, sym)));
        self.bind(name, sym, false);
    }

    /// Declares a template type parameter: a type, and one whose members are not known
    /// (see [`Scopes::is_type_param`]).
    pub(crate) fn declare_type_param(&mut self, name: &'a str) {
        if name.is_empty() {
            return;
        }
        self.log.push((self.at, ScopeOp::DeclareTypeParam(name)));
        self.bind(name, Sym::Type, true);
    }

    fn bind(&mut self, name: &'a str, sym: Sym, param: bool) {
        if sym != Sym::Value
            && let Some(m) = self.marks.last_mut()
        {
            m.kept = true;
        }
        let depth = self.depth();
        let id = self.intern(name);
        let Some(entry) = self.names.get_mut().info.get_mut(id as usize) else { return };
        match sym {
            Sym::Type => {
                entry.any_type.get_or_insert(sym);
            }
            Sym::Template => entry.any_type = Some(Sym::Template),
            // a value template is what `<` after a qualified name opens, unless the name
            // is a class template somewhere
            Sym::ValueTemplate => {
                if entry.any_type != Some(Sym::Template) {
                    entry.any_type = Some(Sym::ValueTemplate);
                }
            }
            Sym::Namespace => entry.namespace = true,
            Sym::Value => {}
        }
        match &mut entry.bound {
            Some((d, s, p)) if *d == depth => {
                // a template stays a template when redeclared (overloads, specializations)
                if !(matches!(*s, Sym::Template | Sym::ValueTemplate) && sym == Sym::Value) {
                    *s = sym;
                    *p = param;
                }
            }
            bound => {
                // scopes only nest: a name bound deeper was unbound when that scope closed
                let before = bound.replace((depth, sym, param));
                if depth > 0 {
                    self.undo.push((id, before));
                }
            }
        }
    }

    /// Applies recorded changes (replaying a parse up to a point): the first `count` of
    /// `log`'s.
    pub(crate) fn replay(&mut self, log: &'a ScopeLog, count: usize) {
        for &(at, op) in &log.ops[..count.min(log.ops.len())] {
            self.at = at;
            match op {
                OwnedScopeOp::Push { local } => self.push_kind(local),
                OwnedScopeOp::Pop => self.pop(),
                OwnedScopeOp::Declare { name, sym } => self.declare(log.name(name), sym),
                OwnedScopeOp::DeclareTypeParam { name } => self.declare_type_param(log.name(name)),
            }
        }
    }

    /// The log, to keep.
    pub(crate) fn owned_log(&self) -> ScopeLog {
        let mut names = String::new();
        let ops = self
            .log
            .iter()
            .map(|&(at, op)| {
                let op = match op {
                    ScopeOp::Push { local } => OwnedScopeOp::Push { local },
                    ScopeOp::Pop => OwnedScopeOp::Pop,
                    ScopeOp::Declare(name, sym) => {
                        let start = names.len() as u32;
                        names.push_str(name);
                        OwnedScopeOp::Declare { name: (start, name.len() as u32), sym }
                    }
                    ScopeOp::DeclareTypeParam(name) => {
                        let start = names.len() as u32;
                        names.push_str(name);
                        OwnedScopeOp::DeclareTypeParam { name: (start, name.len() as u32) }
                    }
                };
                (at, op)
            })
            .collect();
        ScopeLog { ops, names: names.into() }
    }

    /// What the unqualified name numbered `id` is, if known.
    pub(crate) fn lookup(&self, id: u32) -> Option<Sym> {
        let name = self.name(id)?;
        name.bound.map(|(_, s, _)| s).or(name.builtin)
    }

    /// Whether the unqualified name numbered `id` is a template type parameter here.
    pub(crate) fn is_type_param(&self, id: u32) -> bool {
        self.name(id).is_some_and(|n| matches!(n.bound, Some((_, _, true))))
    }

    /// What the name numbered `id` is as the last component of a qualified name
    /// (`a::b::name`), if known.
    pub(crate) fn lookup_member(&self, id: u32) -> Option<Sym> {
        let name = self.name(id)?;
        name.any_type.or(name.namespace.then_some(Sym::Namespace)).or(name.builtin).or(name.bound.map(|(_, s, _)| s))
    }

    /// Whether the unqualified name `name` is a type or a template.
    #[cfg(test)]
    pub(crate) fn is_type(&self, name: &'a str) -> bool {
        matches!(self.lookup(self.intern(name)), Some(Sym::Type | Sym::Template))
    }
}

/// Builtin names of the Metal standard library that matter to parsing.
pub(crate) fn builtin(name: &str) -> Option<Sym> {
    static TABLE: std::sync::OnceLock<FxHashMap<&'static str, Sym>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = FxHashMap::default();
        for n in BUILTIN_TYPES {
            t.insert(*n, Sym::Type);
        }
        for n in BUILTIN_TEMPLATES {
            t.insert(*n, Sym::Template);
        }
        for n in BUILTIN_VALUE_TEMPLATES {
            t.insert(*n, Sym::ValueTemplate);
        }
        for n in ["metal", "simd", "raytracing", "mpp", "tensor_ops", "fast", "precise", "std"] {
            t.insert(n, Sym::Namespace);
        }
        t
    });
    if let Some(s) = table.get(name) {
        return Some(*s);
    }
    // numeric type names all start with a lowercase letter and are short
    if name.len() <= 20 && name.as_bytes().first().is_some_and(|b| b.is_ascii_lowercase()) && is_numeric_type_name(name)
    {
        return Some(Sym::Type);
    }
    None
}

const SCALARS: &[&str] =
    &["bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "double", "bfloat"];

/// `float4`, `half3x3`, `packed_uint2`, `simd_float4`, `vector_float3`, `matrix_float4x4`,
/// `simd_packed_float2`, `int32_t`, ...
pub(crate) fn is_numeric_type_name(name: &str) -> bool {
    if matches!(
        name,
        "half"
            | "bfloat"
            | "uchar"
            | "ushort"
            | "uint"
            | "ulong"
            | "size_t"
            | "ptrdiff_t"
            | "intptr_t"
            | "uintptr_t"
            | "int8_t"
            | "int16_t"
            | "int32_t"
            | "int64_t"
            | "uint8_t"
            | "uint16_t"
            | "uint32_t"
            | "uint64_t"
            | "simd_quatf"
            | "simd_quath"
            | "simd_quatd"
            | "max_align_t"
            | "nullptr_t"
    ) {
        return true;
    }
    let rest = name
        .strip_prefix("simd_packed_")
        .or_else(|| name.strip_prefix("packed_"))
        .or_else(|| name.strip_prefix("simd_"))
        .or_else(|| name.strip_prefix("vector_"))
        .or_else(|| name.strip_prefix("matrix_"))
        .unwrap_or(name);
    let Some(scalar) = SCALARS.iter().find(|s| rest.starts_with(**s)) else { return false };
    let dims = &rest[scalar.len()..];
    if dims.is_empty() {
        return rest.len() < name.len() && !name.starts_with("packed_");
    }
    let (a, b) = match dims.split_once('x') {
        Some((a, b)) => (a, Some(b)),
        None => (dims, None),
    };
    let ok_n = |s: &str| matches!(s, "1" | "2" | "3" | "4" | "8" | "16");
    ok_n(a) && b.is_none_or(ok_n)
}

const BUILTIN_TYPES: &[&str] = &[
    "depth_stencil_state",
    "tensor_plane_data",
    "tensor_plane_scales",
    "imageblock_layout_explicit",
    "imageblock_layout_implicit",
    "int4b_format",
    "uint4b_format",
    "int2b_format",
    "uint2b_format",
    "metal_fp4_e2m1_format",
    "metal_fp8_e4m3_format",
    "metal_fp8_e5m2_format",
    "metal_fp8_ue8m0_format",
    "sampler",
    "atomic_int",
    "atomic_uint",
    "atomic_bool",
    "atomic_ulong",
    "atomic_long",
    "atomic_float",
    "simd_vote",
    "quad_vote",
    "ray",
    "intersection_params",
    "primitive_acceleration_structure",
    "instance_acceleration_structure",
    "triangle_data",
    "instancing",
    "world_space_data",
    "primitive_motion",
    "instance_motion",
    "extended_limits",
    "curve_data",
    "intersection_function_buffer",
    "user_data",
    "command_buffer",
    "render_command",
    "compute_command",
    "render_pipeline_state",
    "compute_pipeline_state",
    "rasterization_rate_map_decoder",
    "rasterization_rate_map_data",
    "os_log",
    "mesh_grid_properties",
    "simdgroup_float8x8",
    "simdgroup_half8x8",
    "simdgroup_bfloat8x8",
    "bias",
    "level",
    "gradient2d",
    "gradient3d",
    "gradientcube",
    "min_lod_clamp",
    "lod_clamp",
    "max_anisotropy",
    "MTLPackedFloat3",
    "MTLPackedFloat4x3",
    "MTLResourceID",
    "MTLAccelerationStructureInstanceDescriptor",
    "MTLAccelerationStructureUserIDInstanceDescriptor",
    "MTLAccelerationStructureMotionInstanceDescriptor",
    "MTLIndirectAccelerationStructureInstanceDescriptor",
    "MTLIndirectAccelerationStructureMotionInstanceDescriptor",
    "MTLDispatchThreadgroupsIndirectArguments",
    "MTLDrawPrimitivesIndirectArguments",
    "MTLDrawIndexedPrimitivesIndirectArguments",
    "MTLQuadTessellationFactorsHalf",
    "MTLTriangleTessellationFactorsHalf",
    "MTLIntersectionFunctionBufferArguments",
    "true_type",
    "false_type",
    "execution_thread",
    "execution_simdgroup",
    "execution_threadgroup",
    "tensor_inline",
    "tensor_handle",
    "tensor_offset",
    "matmul2d_descriptor",
    "convolution2d_descriptor",
    "imageblock_data_rate",
    "intersection_function_buffer_arguments",
];

const BUILTIN_TEMPLATES: &[&str] = &[
    "sparse_block_color",
    "tensor_blockwise",
    "reduction_operation_identity",
    "dynamic_length",
    "packed_numeric_type",
    "r8unorm",
    "r8snorm",
    "r16unorm",
    "r16snorm",
    "rg8unorm",
    "rg8snorm",
    "rg16unorm",
    "rg16snorm",
    "rgba8unorm",
    "srgba8unorm",
    "rgba8snorm",
    "rgba16unorm",
    "rgba16snorm",
    "rgb10a2",
    "rg11b10f",
    "rgb9e5",
    "vec",
    "matrix",
    "packed_vec",
    "array",
    "array_ref",
    "atomic",
    "texture1d",
    "texture1d_array",
    "texture2d",
    "texture2d_array",
    "texture3d",
    "texturecube",
    "texturecube_array",
    "texture2d_ms",
    "texture2d_ms_array",
    "texture_buffer",
    "depth2d",
    "depth2d_array",
    "depthcube",
    "depthcube_array",
    "depth2d_ms",
    "depth2d_ms_array",
    "simdgroup_matrix",
    "acceleration_structure",
    "intersector",
    "intersection_result",
    "intersection_result_ref",
    "intersection_query",
    "intersection_function_table",
    "visible_function_table",
    "max_levels",
    "patch_control_point",
    "uniform",
    "interpolant",
    "vertex_value",
    "mesh",
    "imageblock",
    "imageblock_slice",
    "sparse_color",
    "block_color",
    "tensor",
    "extents",
    "dextents",
    "cooperative_tensor",
    "execution_simdgroups",
    "execution_threads",
    "matmul2d",
    "convolution2d",
    "numeric_limits",
    "enable_if",
    "enable_if_t",
    "conditional",
    "conditional_t",
    "is_same",
    "is_floating_point",
    "is_integral",
    "is_signed",
    "is_unsigned",
    "is_arithmetic",
    "is_scalar",
    "is_vector",
    "is_convertible",
    "is_const",
    "is_pointer",
    "make_unsigned",
    "make_unsigned_t",
    "make_signed",
    "make_signed_t",
    "remove_cv",
    "remove_cv_t",
    "remove_const",
    "remove_const_t",
    "remove_reference",
    "remove_reference_t",
    "remove_pointer",
    "remove_pointer_t",
    "remove_address_space",
    "remove_address_space_t",
    "decay",
    "decay_t",
    "integral_constant",
    "bool_constant",
    "vec_elements",
];

/// The library's function and variable templates (`as_type<uint>(x)`, `is_same_v<A, B>`).
const BUILTIN_VALUE_TEMPLATES: &[&str] = &[
    "as_type",
    "declval",
    "make_array_ref",
    "is_same_v",
    "is_floating_point_v",
    "is_integral_v",
    "is_signed_v",
    "is_unsigned_v",
    "is_arithmetic_v",
    "is_scalar_v",
    "is_vector_v",
    "is_convertible_v",
    "is_const_v",
    "is_pointer_v",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_type_names() {
        for n in
            ["float4", "half3x3", "packed_uint2", "simd_float4", "vector_float3", "matrix_float4x4", "uint", "bfloat2"]
        {
            assert!(is_numeric_type_name(n), "{n}");
        }
        for n in ["float5", "foo", "packed_float", "floating", "int4x", "inta"] {
            assert!(!is_numeric_type_name(n), "{n}");
        }
    }

    #[test]
    fn names_keep_their_numbers_past_the_short_cache() {
        // many more names than the smallest cache has slots, of every length around the
        // short limit, most differing from another in one byte
        let mut names = Vec::new();
        for len in 1..=short::MAX + 2 {
            let base: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            for pos in 0..len {
                let mut t = base.clone().into_bytes();
                t[pos] = b'_';
                names.push(String::from_utf8(t).expect("ASCII"));
            }
            names.push(base);
        }
        let s = Scopes::new();
        assert!(s.names.borrow().short.len() < names.len() / 4);
        // numbers in order of first use, each name its own
        let first: Vec<u32> = names.iter().map(|n| s.intern(n)).collect();
        assert_eq!(first, (0..names.len() as u32).collect::<Vec<_>>());
        // and the same number every time after, found in the cache or not
        for _ in 0..2 {
            for (n, &id) in names.iter().zip(&first).rev() {
                assert_eq!(s.intern(n), id, "{n}");
                assert_eq!(s.text(id), n);
            }
        }
    }

    #[test]
    fn scopes_shadow_and_restore() {
        let mut s = Scopes::new();
        s.declare("Foo", Sym::Type);
        assert!(s.is_type("Foo"));
        s.push();
        s.declare("Foo", Sym::Value);
        assert!(!s.is_type("Foo"));
        s.pop();
        assert!(s.is_type("Foo"));
        assert!(s.is_type("float4") && s.lookup(s.intern("texture2d")) == Some(Sym::Template));
    }

    #[test]
    fn scopes_nest_and_keep_what_qualified_names_need() {
        let mut s = Scopes::new();
        let x = s.intern("x");
        // shadowed at two depths, declared twice in the inner one, restored level by level
        s.declare("x", Sym::Value);
        s.push();
        s.declare("x", Sym::Type);
        s.push();
        s.declare("x", Sym::Value);
        s.declare("x", Sym::Template);
        assert_eq!(s.lookup(x), Some(Sym::Template));
        s.pop();
        assert_eq!(s.lookup(x), Some(Sym::Type));
        s.pop();
        assert_eq!(s.lookup(x), Some(Sym::Value));
        // a template stays one when redeclared in the same scope (overloads)
        s.declare("f", Sym::Template);
        s.declare("f", Sym::Value);
        assert_eq!(s.lookup(s.intern("f")), Some(Sym::Template));
        // out of scope, member types and namespaces still name what they are after `::`,
        // and a template wins over a type
        s.push();
        s.declare("Inner", Sym::Type);
        s.declare("Tmpl", Sym::Type);
        s.declare("Tmpl", Sym::Template);
        s.declare("ns", Sym::Namespace);
        s.pop();
        let (inner, tmpl, ns) = (s.intern("Inner"), s.intern("Tmpl"), s.intern("ns"));
        assert_eq!((s.lookup(inner), s.lookup_member(inner)), (None, Some(Sym::Type)));
        assert_eq!((s.lookup(tmpl), s.lookup_member(tmpl)), (None, Some(Sym::Template)));
        assert_eq!((s.lookup(ns), s.lookup_member(ns)), (None, Some(Sym::Namespace)));
        s.declare("Tmpl", Sym::Type);
        assert_eq!((s.lookup(tmpl), s.lookup_member(tmpl)), (Some(Sym::Type), Some(Sym::Template)));
        // the library's names, qualified or not; a value's binding answers last
        let float4 = s.intern("float4");
        assert_eq!((s.lookup(float4), s.lookup_member(float4)), (Some(Sym::Type), Some(Sym::Type)));
        s.declare("v", Sym::Value);
        assert_eq!(s.lookup_member(s.intern("v")), Some(Sym::Value));
        // an empty name is never declared
        s.declare("", Sym::Type);
        assert_eq!(s.lookup(s.intern("")), None);
    }
}
