#include <metal_stdlib>
using namespace metal;
template <int N> struct F { static constexpr int value = F<N - 1>::value + 1; };
template <> struct F<0> { static constexpr int value = 0; };
constant int big = F<100000>::value;
static_assert(F<10>::value == 10, "ten");
kernel void k(device int *o [[buffer(0)]]) { o[0] = F<5000>::value; }
