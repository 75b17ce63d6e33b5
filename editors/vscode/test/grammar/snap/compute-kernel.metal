#include <metal_stdlib>
using namespace metal;

// Blurs one row of an image with a box filter that lives in threadgroup memory.
constant uint kRadius [[function_constant(0)]];

struct BlurParams {
    uint width;
    float scale;
};

[[max_total_threads_per_threadgroup(256)]]
kernel void box_blur(texture2d<half, access::read> src [[texture(0)]],
                     texture2d<half, access::write> dst [[texture(1)]],
                     constant BlurParams &params [[buffer(0)]],
                     device atomic_uint *counter [[buffer(1)]],
                     threadgroup half4 *cache [[threadgroup(0)]],
                     uint2 gid [[thread_position_in_grid]],
                     uint lid [[thread_index_in_threadgroup]],
                     uint simd_lane [[thread_index_in_simdgroup]])
{
    if (gid.x >= params.width) {
        return;
    }
    cache[lid] = src.read(gid);
    threadgroup_barrier(mem_flags::mem_threadgroup);

    half4 sum = half4(0.0h);
    for (int i = -int(kRadius); i <= int(kRadius); ++i) {
        uint j = uint(clamp(int(lid) + i, 0, 255));
        sum += cache[j];
    }
    sum *= half(params.scale) / half(2 * kRadius + 1);
    dst.write(sum, gid);

    uint active = simd_sum(1u);
    if (simd_is_first()) {
        atomic_fetch_add_explicit(counter, active, memory_order_relaxed);
    }
}
