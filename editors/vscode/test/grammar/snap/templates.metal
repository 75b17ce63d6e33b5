#include <metal_stdlib>
using namespace metal;

template <typename T, int N = 4>
struct RingBuffer {
    array<T, N> items;
    static constexpr int capacity = N;
};

template <typename T>
inline T lerp3(T a, T b, T c, float t) {
    return mix(mix(a, b, t), c, t);
}

using Color = vec<half, 4>;
typedef packed_vec<float, 3> Packed3;

kernel void reinterpret(device const float *in [[buffer(0)]],
                        device uint *bits [[buffer(1)]],
                        device atomic<uint> *maxima [[buffer(2)]],
                        uint gid [[thread_position_in_grid]])
{
    uint raw = as_type<uint>(in[gid]);
    half2 pair = as_type<half2>(raw);
    int rounded = static_cast<int>(in[gid] + 0.5f);
    bits[gid] = raw ^ uint(rounded);
    atomic_fetch_max_explicit(&maxima[0], raw, memory_order_relaxed);

    simdgroup_float8x8 tile = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    simdgroup_matrix<half, 8, 8> weights;
    simdgroup_load(weights, (threadgroup const half *)nullptr, 8);
    RingBuffer<float> ring;
    texture2d_array<float, access::read_write> layers;
    metal::float3 v = metal::normalize(float3(pair.x, pair.y, 1.0h));
}
