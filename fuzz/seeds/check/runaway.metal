#include <metal_stdlib>
using namespace metal;

// unrolls a reduction over N lanes at compile time, but nothing ends the recursion
template <int N>
float reduce_lanes(thread const float *v) {
    return v[N - 1] + reduce_lanes<N - 1>(v); // expect: E1804
}

// wraps its argument one level deeper at every call
template <typename T> struct Box { T inner; };
template <typename T>
float unwrap_all(T x) {
    return unwrap_all(Box<T>{x}); // expect: E1804
}

// a program-scope constant the compiler must compute, through a recursion without end
constexpr uint levels(uint n) { return levels(n + 1); }
constant uint mip_levels = levels(0); // expect: E1802

kernel void sum(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float lanes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    out[tid] = reduce_lanes<8>(lanes);
}

kernel void wrap(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    out[tid] = unwrap_all(out[tid]);
}
