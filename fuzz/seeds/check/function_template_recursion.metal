#include <metal_stdlib>
using namespace metal;
template <int N> int f(int x) { return f<N - 1>(x) + 1; }
template <> int f<0>(int x) { return x; }
kernel void k(device int *o [[buffer(0)]]) { o[0] = f<100000>(1); }
