// A shader for tests/check-queries.sh: expectations.tsv names lines of this file, so
// edit the two together.
#include <metal_stdlib>
#include "common.h"
using namespace metal;

#define TILE 16
#define SQUARE(x) ((x) * (x))

#if defined(__METAL_MACOS__)
constant float kGamma = 2.2f;
#else
constant half kGamma = 2.2h;
#endif

/// Rec. 709 luma weights.
constant float3 kLuma = float3(0.2126f, 0.7152f, 0.0722f);

/* Per-vertex data as the vertex stage reads it. */
struct VertexIn {
    float3 position [[attribute(0)]];
    half4 color [[attribute(1)]];
};

struct VertexOut {
    float4 position [[position]];
    half4 color;
    float point_size [[point_size]];
};

enum class Mode : uint {
    Plain = 0,
    Tinted = 1u,
};

namespace shading {

template <typename T>
T square(T value) {
    return value * value;
}

class Tonemapper {
public:
    half3x3 matrix;
    half3 apply(half3 c) const { return matrix * c; }
};

} // namespace shading

vertex VertexOut vertex_main(VertexIn in [[stage_in]],
                             constant float4x4 &mvp [[buffer(1)]],
                             uint vid [[vertex_id]])
{
    VertexOut out;
    out.position = mvp * float4(in.position, 1.0);
    out.color = in.color;
    out.point_size = 1.0f;
    return out;
}

fragment half4 fragment_main(VertexOut in [[stage_in]],
                             texture2d<half, access::sample> albedo [[texture(0)]],
                             sampler smp [[sampler(0)]])
{
    constexpr sampler linear(coord::normalized, filter::linear, address::clamp_to_edge);
    half4 texel = albedo.sample(linear, float2(0.5, 0.5));
    return texel * in.color;
}

kernel void blur(texture2d<float, access::read> src [[texture(0)]],
                 texture2d<float, access::write> dst [[texture(1)]],
                 device atomic_uint *counter [[buffer(0)]],
                 threadgroup float *scratch [[threadgroup(0)]],
                 uint2 gid [[thread_position_in_grid]],
                 uint lid [[thread_index_in_threadgroup]])
{
    thread float sum = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            sum += src.read(uint2(int2(gid) + int2(dx, dy))).r;
        }
    }
    scratch[lid] = sum / 9.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) {
        atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed);
    }
    dst.write(float4(SQUARE(scratch[lid])), gid);
}

[[kernel]] void fill(device uint *out [[buffer(0)]], uint id [[thread_position_in_grid]]) {
    out[id] = 0xFFu;
    bool ok = true;
    char tag = 'm';
    const char *name = "fill";
}
