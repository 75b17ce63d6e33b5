//! The numeric types' names: scalars, vectors and matrices in every spelling Metal has.

use super::{Scalar, Ty, TyKind};

/// The scalar, vector or matrix type named `name`: `float`, `uint32_t`, `half3`,
/// `packed_float3`, `float4x4`, `simd_float4`, `vector_float3`, `matrix_float3x3`,
/// `simd_packed_float2`.
pub fn numeric_type(name: &str) -> Option<Ty> {
    if let Some(s) = Scalar::from_name(name) {
        return Some(Ty::scalar(s));
    }
    let (packed, rest) = if let Some(r) = name.strip_prefix("simd_packed_").or_else(|| name.strip_prefix("packed_")) {
        (true, r)
    } else {
        (false, name.strip_prefix("simd_").or_else(|| name.strip_prefix("vector_")).unwrap_or(name))
    };
    let rest = if packed { rest } else { rest.strip_prefix("matrix_").unwrap_or(rest) };
    let digits_at = rest.find(|c: char| c.is_ascii_digit())?;
    let elem = Scalar::from_name(&rest[..digits_at])?;
    if matches!(elem, Scalar::SizeT | Scalar::PtrDiffT) || rest[..digits_at].ends_with("_t") {
        return None;
    }
    let dims = &rest[digits_at..];
    let dim = |d: &str| d.parse::<u8>().ok().filter(|n| (2..=4).contains(n));
    match dims.split_once('x') {
        None => Some(Ty::new(TyKind::Vector { elem, len: dim(dims)?, packed })),
        Some((c, r)) if !packed && elem.is_float() => Some(Ty::matrix(elem, dim(c)?, dim(r)?)),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_numeric_types() {
        let cases = [
            ("float", "float"),
            ("uint32_t", "uint"),
            ("half3", "half3"),
            ("packed_float3", "packed_float3"),
            ("simd_packed_float2", "packed_float2"),
            ("float4x4", "float4x4"),
            ("half2x3", "half2x3"),
            ("simd_float4", "float4"),
            ("vector_uchar2", "uchar2"),
            ("matrix_float3x3", "float3x3"),
            ("bool4", "bool4"),
            ("bfloat2", "bfloat2"),
        ];
        for (name, shown) in cases {
            assert_eq!(numeric_type(name).map(|t| t.to_string()).as_deref(), Some(shown), "{name}");
        }
        for bad in ["float5", "float1", "int3x3", "packed_float4x4", "floaty", "uint32_t4", "size_t2", "x4"] {
            assert!(numeric_type(bad).is_none(), "{bad}");
        }
    }
}
