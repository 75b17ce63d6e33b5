#include <metal_stdlib>
#include "ShaderTypes.h"

using namespace metal;

struct VertexIn {
    float3 position [[attribute(0)]];
    float2 uv       [[attribute(1)]];
    packed_float3 normal;
};

struct VertexOut {
    float4 position [[position, invariant]];
    float2 uv;
    half3  tint [[flat]];
    float  depth [[center_no_perspective]];
    float  size [[point_size]];
};

struct FragmentOut {
    half4 color [[color(0)]];
    float depth [[depth(less)]];
};

vertex VertexOut scene_vertex(VertexIn in [[stage_in]],
                              constant float4x4 &mvp [[buffer(1)]],
                              uint vid [[vertex_id]],
                              uint iid [[instance_id]])
{
    VertexOut out;
    out.position = mvp * float4(in.position, 1.0f);
    out.uv = in.uv;
    out.tint = half3(in.normal * 0.5f + 0.5f);
    out.depth = out.position.z / out.position.w;
    out.size = 4.0f;
    return out;
}

[[early_fragment_tests]]
fragment FragmentOut scene_fragment(VertexOut in [[stage_in]],
                                    texture2d<float> albedo [[texture(0)]],
                                    depth2d<float, access::sample> shadow [[texture(1)]],
                                    sampler linear_sampler [[sampler(0)]],
                                    bool front [[front_facing]])
{
    constexpr sampler s(coord::normalized, address::clamp_to_edge, filter::linear,
                        compare_func::less);
    float4 base = albedo.sample(linear_sampler, in.uv);
    float lit = shadow.sample_compare(s, in.uv, in.depth);
    FragmentOut out;
    out.color = half4(half3(base.rgb) * half(lit) * in.tint, half(base.a));
    out.depth = front ? in.depth : 1.0f;
    return out;
}
